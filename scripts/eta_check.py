#!/usr/bin/env python3
"""How honest the campaign ETA is: runs a command (a `cmbench campaign ...`), stamps every line
of its output with the seconds since the start, and compares each progress line's ETA with the
time that actually remained until the command ended.

    /usr/bin/python3 scripts/eta_check.py [--from 0.1] [--log FILE] -- \
        build/cmbench campaign campaigns/default.json --out /tmp/eta_1 --jobs 2

A progress line is "[k/N] ... ETA <t> ..." (parallel pass) or "[timed k/N] ... ETA <t> ..."
(timing pass); <t> is "12 s", "3.4 s", "4 min 10 s" or "1 h 2 min". The fraction done at a line
counts both passes' runs (k of the parallel pass, N + k of the timing pass, over N + M). Prints
one row per line from --from (default 10 %) of the runs on, then the minimum, median and maximum
of ETA / actual remaining (the target: within 0.5 to 2), without the last line (nothing left to
estimate there).
"""
import argparse
import re
import statistics
import subprocess
import sys
import time

LINE = re.compile(r"\[(timed )?(\d+)/(\d+)\].*?ETA ([^;)]+)")


def seconds(text):
    """'4 min 10 s' -> 250.0; '?' -> None."""
    text = text.strip()
    if text == "?":
        return None
    total = 0.0
    for value, unit in re.findall(r"([\d.]+)\s*(h|min|s)\b", text):
        total += float(value) * {"h": 3600, "min": 60, "s": 1}[unit]
    return total


def stamped_lines(command, log):
    """(seconds since start, line) for every line of the command's output, as it comes; the
    command's own carriage-return rewrites count as lines too."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines, pending = [], b""
    while True:
        chunk = process.stdout.read1(65536)
        if not chunk:
            break
        pending += chunk
        *complete, pending = re.split(rb"[\r\n]", pending)
        now = time.monotonic() - start
        for raw in complete:
            if raw.strip():
                text = raw.decode(errors="replace")
                lines.append((now, text))
                if log:
                    log.write(f"{now:9.3f} {text}\n")
                    log.flush()
    process.wait()
    end = time.monotonic() - start
    if pending.strip():
        lines.append((end, pending.decode(errors="replace")))
    return lines, end, process.returncode


def ratios(lines, end, start_fraction):
    """[(t, fraction done, eta, actual remaining, ratio)] of the progress lines."""
    parsed = []
    for t, text in lines:
        match = LINE.search(text)
        if match:
            timed, done, total = bool(match.group(1)), int(match.group(2)), int(match.group(3))
            parsed.append((t, timed, done, total, seconds(match.group(4))))
    parallel = max((total for _, timed, _, total, _ in parsed if not timed), default=0)
    timing = max((total for _, timed, _, total, _ in parsed if timed), default=0)
    rows = []
    for t, timed, done, total, eta in parsed:
        fraction = ((parallel if timed else 0) + done) / max(1, parallel + timing)
        remaining = end - t
        if fraction < start_fraction or eta is None or remaining <= 0:
            continue
        rows.append((t, fraction, eta, remaining, eta / remaining))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--from", dest="start", type=float, default=0.1)
    parser.add_argument("--log", help="write the stamped output here")
    parser.add_argument("--every", type=int, default=1, help="print every n-th row")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    log = open(args.log, "w") if args.log else None
    lines, end, code = stamped_lines(command, log)
    rows = ratios(lines, end, args.start)
    print(f"{'t [s]':>8} {'done':>6} {'ETA [s]':>9} {'actual [s]':>10} {'ratio':>6}")
    for i, (t, fraction, eta, remaining, ratio) in enumerate(rows):
        if i % args.every == 0 or i == len(rows) - 1:
            print(f"{t:8.1f} {fraction:6.1%} {eta:9.1f} {remaining:10.1f} {ratio:6.2f}")
    # The last line (every run done: "ETA 0 s") leaves only results.json to write: not an
    # estimate, so not in the summary.
    if rows and rows[-1][1] >= 1.0 and rows[-1][2] == 0.0:
        rows = rows[:-1]
    if rows:
        values = [r[4] for r in rows]
        # The last seconds' ratios divide small numbers: report them, but also from 10 s left on.
        early = [r[4] for r in rows if r[3] >= 10] or values
        print(f"total {end:.1f} s, exit {code}; {len(rows)} lines from {args.start:.0%}: ratio "
              f"min {min(values):.2f}, median {statistics.median(values):.2f}, "
              f"max {max(values):.2f} (with >= 10 s left: min {min(early):.2f}, "
              f"max {max(early):.2f})")
    else:
        print(f"total {end:.1f} s, exit {code}; no progress lines with an ETA")
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
