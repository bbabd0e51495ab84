"""Figures, tables and a report (Markdown and self-contained HTML) from a campaign's results
directory.

Usage: python3 -m cmbench.report RESULTS_DIR [--width single|double] [--names FILE]
                                 [--series-from RERUN_DIR] [--work time|rhs] [--out DIR]
                                 [--problems IDS] [--methods IDS] [--steppers IDS]
                                 [--filter FIELD=IDS] [--per-problem] [--quiet]
       (PYTHONPATH=python from the repository root; bash scripts/report.sh does the same)

  --width single|double   figure width: 3.5 in (one column) or 7 in (two columns, default);
                          every text is 8 pt at that size (docs/report.md, cmbench.style)
  --names FILE            display names overriding cmbench.names' (a JSON object: sectioned
                          {"methods": {id: name}, "problems": ..., "steppers": ..., "params":
                          ...} or flat {id: name})
  --series-from DIR       read series CSVs the results directory lacks from DIR, a re-run of
                          the same campaign, for the runs whose re-run has the same status,
                          metrics and work (cmbench.rerun; committed result sets keep no series)
  --work time|rhs         the work axis of the work-precision diagrams
  --out DIR               write figures, tables and pages into DIR (default: RESULTS_DIR)
  --problems/--methods/--steppers IDS
                          report only the runs of these ids (comma-separated); --filter
                          problem=a,b (or method=, stepper=) is the same. An id the results do
                          not hold is refused (exit 2) with the list of those they hold.
  --per-problem           one figure per problem (NAME_<problem>.pdf) instead of one figure of
                          all of them
  --quiet                 no progress lines on stderr

No figure is taller than a page (figures.pages.MAX_HEIGHT, 9 in): a taller one is written on
pages, NAME_1.pdf, NAME_2.pdf, ... (each also as PNG).

Progress goes to stderr, one line per step ("report.py: [3/7] energy: 2 files, 1.9 s");
stdout gets the one line naming report.md (and the figures skipped).

Writes into RESULTS_DIR every figure the results support (PDF and PNG): work_precision, drift,
energy, energy_growth, convergence, scaling, baumgarte_heatmap_<problem>, impulse_response; the
tables precision_table.{md,tex}, drift_energy_table.{md,tex}, energy_growth_table.md,
convergence_table.md, scaling_table.md, baumgarte_heatmaps.md, impulse_response.md; and
report.md and report.html linking all of them,
with the context block and the figures skipped for lack of data. docs/report.md describes each.

Input is checked as it is loaded (cmbench.results: InputFileError, BadInputWarning; JSON is read
by cmbench.files.read_json, which refuses files over 256 MiB, nesting deeper than 64 levels,
duplicate keys and NaN). When nothing can be reported — no such directory, neither results.json
nor runs/, a set whose store says it is unfinished or whose results.json is not its store's
export (cmbench.store), a results.json that is not valid JSON or whose 'runs' is not a list,
not one usable run, a --names file that cannot be used — one line on stderr names the file and
what is wrong ("report.py: DIR/results.json: 'runs' must be a list, not a number") and the exit
status is 2. A bad part — a run record of the wrong shape, an unreadable runs/*.json or series CSV, a malformed
context block — is left out with one warning line naming it ("report.py: warning: PATH: what is
wrong; run left out") and the rest is reported (exit 0). Every file is written whole or not at
all (cmbench.files.write_atomic). Exit status 1 when a figure failed with an unexpected error
(the others are still written) or a file could not be written (one line naming it).
"""
import argparse
import collections
import html
import os
import re
import sys
import time
import traceback
import warnings

from .requirements import require

require("the report (cmbench.report)", "numpy", "matplotlib")

from . import files, names, plot, rerun, results, style, tables  # noqa: E402
from .figures import (baumgarte as baumgarte_figures, convergence as convergence_figure,
                      long_horizon, runs as run_figures, work_precision as work_precision_figure)
from .tables import write

FIGURES = [  # (name in the report, function, whether --per-problem draws it per problem)
    ("work_precision", work_precision_figure.work_precision, True),
    ("drift", run_figures.drift, True),
    ("energy", run_figures.energy, True),
    ("energy_growth", long_horizon.energy_growth, True),
    ("convergence", convergence_figure.convergence, True),
    ("scaling", run_figures.scaling, True),
    # one file per problem case already
    ("baumgarte_heatmaps", baumgarte_figures.heatmaps, False),
    ("impulse_response", baumgarte_figures.impulse, False),
]

# What --filter FIELD=IDS (and --problems, --methods, --steppers) select on: the row's id.
FILTER_FIELDS = {"problem": "problem", "problems": "problem", "method": "method",
                 "methods": "method", "stepper": "stepper", "steppers": "stepper"}


class FilterError(ValueError):
    """A report filter naming an id the results do not hold (or a field there is none of); the
    message names the valid ones. The command line prints it and exits with status 2."""


def select(rows, filters):
    """The rows whose problem, method and stepper are among those `filters` lists ({"problem":
    [ids], "method": [...], "stepper": [...]}; a field left out or empty keeps every id).
    Raises FilterError for a field it does not know or an id no row has, naming the ids the rows
    hold."""
    for field, wanted in (filters or {}).items():
        if field not in ("problem", "method", "stepper"):
            raise FilterError(f"cannot filter on {field!r}: give problem, method or stepper")
        held = list(dict.fromkeys(r[field] for r in rows if r[field] is not None))
        unknown = [i for i in wanted if i not in held]
        if unknown:
            raise FilterError(
                f"unknown {field} {', '.join(repr(i) for i in unknown)}: the results hold "
                f"{', '.join(held) or 'none'}")
    return [r for r in rows if all(not wanted or r[field] in wanted
                                   for field, wanted in (filters or {}).items())]


def parse_filters(problems=None, methods=None, steppers=None, filter_args=()):
    """{"problem": [ids], ...} from the command line's comma-separated lists and --filter
    FIELD=IDS items; raises FilterError for an item without '=' or an unknown field."""
    out = {}
    items = [("problem", problems), ("method", methods), ("stepper", steppers)]
    for item in filter_args or ():
        field, sep, ids = item.partition("=")
        if not sep or field.strip() not in FILTER_FIELDS:
            raise FilterError(f"--filter {item!r}: expected problem=IDS, method=IDS or "
                              "stepper=IDS (comma-separated ids)")
        items.append((FILTER_FIELDS[field.strip()], ids))
    for field, text in items:
        if text is None:
            continue
        ids = [i.strip() for i in text.split(",") if i.strip()]
        if not ids:
            raise FilterError(f"no {field} ids given")
        out.setdefault(field, [])
        out[field] += [i for i in ids if i not in out[field]]
    return out


# --- the report as blocks, rendered to Markdown and to HTML -----------------------------------
# ("h", level, text) | ("p", text) | ("img", src, alt) | ("links", [(text, href)])
# | ("table", header, rows) | ("list", [text])

def markdown(blocks):
    """The report's blocks as Markdown text."""
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out += ["#" * block[1] + " " + block[2], ""]
        elif kind == "p":
            out += [block[1], ""]
        elif kind == "img":
            out += [f"![{block[2]}]({block[1]})", ""]
        elif kind == "links":
            out += [" · ".join(f"[{text}]({href})" for text, href in block[1]), ""]
        elif kind == "table":
            out += [plot.markdown_table(block[1], block[2])]
        elif kind == "list":
            out += [f"- {item}" for item in block[1]] + [""]
    return "\n".join(out)


def inline_html(text):
    """Escapes text; `code` spans become <code>."""
    return re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(str(text)))


STYLE = """body{font-family:sans-serif;max-width:75em;margin:1em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0 1em}
th,td{border-top:1px solid #bbb;border-bottom:1px solid #bbb;padding:0.2em 0.6em;text-align:left}
th{border-bottom:2px solid #444}img{max-width:100%}figure{margin:1em 0}
figcaption{font-size:0.9em;color:#444}code{font-size:0.9em}"""


def render_html(blocks, title):
    """The report's blocks as a self-contained HTML page (inline CSS, no scripts)."""
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{html.escape(title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>"]
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out.append(f"<h{block[1]}>{inline_html(block[2])}</h{block[1]}>")
        elif kind == "p":
            out.append(f"<p>{inline_html(block[1])}</p>")
        elif kind == "img":
            out.append(f'<figure><img src="{html.escape(block[1])}" alt="{html.escape(block[2])}">'
                       "</figure>")
        elif kind == "links":
            out.append("<p>" + " · ".join(f'<a href="{html.escape(href)}">{inline_html(text)}</a>'
                                          for text, href in block[1]) + "</p>")
        elif kind == "table":
            out.append("<table><thead><tr>" + "".join(f"<th>{inline_html(h)}</th>"
                                                      for h in block[1]) + "</tr></thead><tbody>")
            for row in block[2]:
                out.append("<tr>" + "".join(f"<td>{inline_html(c)}</td>" for c in row) + "</tr>")
            out.append("</tbody></table>")
        elif kind == "list":
            out.append("<ul>" + "".join(f"<li>{inline_html(i)}</li>" for i in block[1]) + "</ul>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


def run_counts(rows):
    """'runs: 640 (521 ok; 119 failed: 45 singular, 22 diverged, ...)': every status but ok is
    a failure (run_figures.ok), listed by count."""
    failed = collections.Counter(r["status"] for r in rows if r["status"] != "ok")
    text = f"runs: {len(rows)} ({len(rows) - sum(failed.values())} ok"
    if failed:
        text += f"; {sum(failed.values())} failed: " + ", ".join(
            f"{n} {status}" for status, n in sorted(failed.items(), key=lambda x: (-x[1], x[0])))
    return text + ")"


def context_blocks(doc, rows):
    """The context block: build, machine, libraries, date, run counts, the campaign's filter and shard."""
    ctx = doc.get("context") or {}
    libs = ", ".join(f"{k} {v}" for k, v in sorted((ctx.get("libraries") or {}).items()))
    build = (f"build: `{ctx.get('git_sha')}` ({ctx.get('build_type')}, {ctx.get('compiler')}, "
             f"flags `{ctx.get('flags')}`)")
    library = ctx.get("cmbench_build")
    if ctx.get("program", "cmbench") != "cmbench" and isinstance(library, dict):
        # A program of its own (cmbench_add_executable): the build above is its own files'.
        build += (f" for `{ctx['program']}`; cmbench libraries ({library.get('build_type')}, "
                  f"flags `{library.get('flags')}`)")
    items = [build,
             f"machine: {ctx.get('cpu')}, {ctx.get('hardware_threads')} hardware threads",
             f"libraries: {libs or '–'}", f"date: {ctx.get('date')}",
             run_counts(rows)]
    if doc.get("filter"):
        items.append(f"filter: `{doc['filter']}`")
    shard = doc.get("shard")
    if isinstance(shard, dict) and (shard.get("count") or 1) > 1:
        items.append(f"shard {shard.get('index')} of {shard.get('count')}")
    return [("h", 2, "Context"), ("list", items)]


def table_blocks(entry, level=3):
    """A table entry (title, header, rows, its files) as report blocks."""
    blocks = [("h", level, entry["title"]), ("table", entry["header"], entry["rows"])]
    links = [(entry["md"], entry["md"])]
    if entry.get("tex"):
        links.append((f"LaTeX ({entry['tex']})", entry["tex"]))
    return blocks + [("links", links)]


def _quiet(_message):
    pass


def build(results_dir, width=None, display_names=None, series_from=None, progress=None,
          work="time", filters=None, per_problem=False, out_dir=None):
    """Writes every figure and table; returns (blocks of the report, figure results, skipped
    [(name, reason)], errors [(name, message)]). width: 'single' or 'double' (default double);
    display_names: overrides of cmbench.names, a dict or the path of a JSON file (for this
    report only); series_from: a re-run directory for the series (cmbench.rerun);
    progress(message): called with one short line per step; work: what the work-precision
    diagrams measure work in, 'time' (CPU time where recorded) or 'rhs' (RHS calls); filters:
    {"problem": [ids], "method": [...], "stepper": [...]} (select; FilterError for an id the
    results do not hold); per_problem: one figure per problem; out_dir: where the files go
    (default results_dir, which is only read from otherwise)."""
    with style.using(width or style.DEFAULT_WIDTH), names.overriding(display_names), \
            style.measuring(work):
        return _build(results_dir, series_from, progress or _quiet, filters or {},
                      per_problem, out_dir or results_dir)


def _draw(figure, rows, results_dir, out_dir, name):
    """One figure function's result, or ("skipped", reason) / ("failed", message)."""
    try:
        kwargs = {"out_dir": out_dir}
        if name is not None:
            kwargs["name"] = name
        return "drawn", figure(rows, results_dir, **kwargs)
    except plot.Skipped as why:
        return "skipped", str(why)
    except files.OutputFileError as error:  # drawn but not written: no traceback to show
        plot.pyplot().close("all")
        return "failed", str(error)
    except Exception as error:  # one broken figure must not cost the others
        traceback.print_exc()
        plot.pyplot().close("all")
        return "failed", f"{type(error).__name__}: {error}"


def _figures(rows, results_dir, progress, per_problem=False, out_dir=None):
    """Draws every figure (per problem with per_problem, where the figure allows it); returns
    (produced, skipped [(name, reason)], errors [(name, message)])."""
    produced, skipped, errors = [], [], []
    problems = list(dict.fromkeys(r["problem"] for r in rows))
    for i, (name, figure, splits) in enumerate(FIGURES, 1):
        began = time.monotonic()
        jobs = ([(f"{name}_{_slug(p)}", f"{name} ({p})", [r for r in rows if r["problem"] == p])
                 for p in problems] if per_problem and splits else [(None, name, rows)])
        drawn, failed = [], 0
        for file_name, label, mine in jobs:
            outcome, value = _draw(figure, mine, results_dir, out_dir or results_dir, file_name)
            if outcome == "drawn":
                drawn.append(value)
            elif outcome == "skipped":
                skipped.append((label, value))
            else:
                errors.append((label, value))
                failed += 1
        produced += drawn
        text = (f"{sum(len(f['files']) for f in drawn)} files" if drawn else
                "FAILED" if failed else "skipped")
        if failed and drawn:
            text += f", {failed} FAILED"
        progress(f"[{i}/{len(FIGURES)}] {name}: {text}, {time.monotonic() - began:.1f} s")
    return produced, skipped, errors


def _slug(text):
    """A file-name part of an id: letters, digits and underscores."""
    return re.sub(r"[^A-Za-z0-9_]+", "_", str(text)).strip("_") or "problem"


def _build(results_dir, series_from, progress, filters, per_problem, out_dir):
    start = time.monotonic()
    doc = results.load_doc(results_dir)
    rows = [results.flatten(r) for r in doc["runs"]]
    progress(f"{len(rows)} runs read ({time.monotonic() - start:.1f} s)")
    if filters:
        rows = select(rows, filters)
        progress(f"{len(rows)} runs selected by the filter")
        if not rows:
            raise FilterError("the filter selects no run (the ids exist, but never together)")
    if out_dir != results_dir:
        try:
            os.makedirs(out_dir, exist_ok=True)
        except OSError as error:
            raise files.OutputFileError(error.errno, error.strerror or str(error),
                                        out_dir) from None
    rerun_info = None
    if series_from:
        rerun_info = rerun.attach(results_dir, series_from, doc["runs"])
        progress(f"series from {series_from}: {rerun_info['matched']} of "
                 f"{rerun_info['total']} runs identical")
    try:
        produced, skipped, errors = _figures(rows, results_dir, progress, per_problem, out_dir)
    finally:
        rerun.detach(results_dir)
    table_entries = tables.write_tables(rows, out_dir)
    campaign = doc.get("campaign")
    campaign = campaign.get("name") if isinstance(campaign, dict) else campaign
    blocks = [("h", 1, f"cmbench report: campaign `{campaign}`")]
    blocks += context_blocks(doc, rows)
    if filters:
        blocks[-1][1].append("report filter: " + "; ".join(
            f"{field}s {', '.join(ids)}" for field, ids in filters.items()))
    if rerun_info is not None:
        blocks[-1][1].append(
            f"series: from a re-run of the campaign (build `{rerun_info['git_sha']}`): "
            f"{rerun_info['matched']} of {rerun_info['total']} runs with the same status, "
            "metrics and work; the records and timings are this directory's")
    blocks[-1][1].append(f"figures: {style.width_name()} column, {style.width():g} in wide, "
                         f"text {style.MIN_FONT:g} pt")
    blocks.append(("h", 2, "Figures"))
    for fig in produced:
        blocks.append(("h", 3, fig["title"]))
        for path in fig["files"]:
            if path.endswith(".png"):
                name = os.path.basename(path)
                blocks.append(("img", name, name))
        blocks.append(("p", fig["caption"]))
        links = [(f"PDF ({os.path.basename(p)})", os.path.basename(p)) for p in fig["files"]
                 if p.endswith(".pdf")]
        blocks.append(("links", links))
        for entry in fig["tables"]:
            blocks += table_blocks(entry, 4)
    if skipped or errors:
        blocks.append(("h", 3, "Figures not drawn"))
        blocks.append(("list", [f"{name}: skipped, {reason}" for name, reason in skipped]
                       + [f"{name}: failed, {message}" for name, message in errors]))
    blocks.append(("h", 2, "Tables"))
    for entry in table_entries:
        blocks += table_blocks(entry)
    blocks += [("h", 2, "All runs"), ("table", plot.SUMMARY_HEADER, plot.summary_rows(rows))]
    write(out_dir, "report.md", markdown(blocks))
    write(out_dir, "report.html", render_html(blocks, f"cmbench report: {campaign}"))
    progress(f"tables and pages written ({time.monotonic() - start:.1f} s in all)")
    return blocks, produced, skipped, errors


PROG = "report.py"
_show_warning = warnings.showwarning


def print_warning(message, category, filename, lineno, file=None, line=None):
    """Parts of the input left out as one line each: 'report.py: warning: PATH: what is wrong;
    what was done' (other warnings as Python shows them)."""
    if issubclass(category, results.BadInputWarning):
        print(f"{PROG}: warning: {message}", file=sys.stderr)
    else:
        _show_warning(message, category, filename, lineno, file, line)


def parse_args(argv):
    """The command line's options (argparse.Namespace); --help prints the usage."""
    parser = argparse.ArgumentParser(
        prog="python3 -m cmbench.report",
        description="Figures, tables, report.md and report.html of a cmbench results "
                    "directory (docs/report.md).")
    parser.add_argument("results_dir", metavar="RESULTS_DIR",
                        help="what `cmbench campaign` wrote (results.json, runs/, series/)")
    parser.add_argument("--width", choices=sorted(style.WIDTHS), default=style.DEFAULT_WIDTH,
                        help="figure width: single (3.5 in) or double (7 in) column; "
                             "every text is 8 pt at that size (default: %(default)s)")
    parser.add_argument("--names", metavar="FILE",
                        help="JSON object of display names overriding the built-in ones: "
                             '{"methods": {"index1": "KKT"}, ...}, flat {"index1": "KKT"}, or '
                             "the output of `cmbench list --json` (its entries' names and units)")
    parser.add_argument("--series-from", metavar="DIR",
                        help="read missing series CSVs from DIR, a re-run of the same "
                             "campaign (only for runs with identical status, metrics, work)")
    parser.add_argument("--work", choices=style.WORK_MEASURES, default="time",
                        help="work axis of the work-precision diagrams: time (the run's CPU "
                             "time, min of its repetitions, where recorded) or rhs (RHS calls; "
                             "machine-independent) (default: %(default)s)")
    parser.add_argument("--out", metavar="DIR",
                        help="write the figures, tables and pages into DIR (created if "
                             "missing) instead of RESULTS_DIR")
    parser.add_argument("--problems", metavar="IDS",
                        help="only these problems (comma-separated ids)")
    parser.add_argument("--methods", metavar="IDS",
                        help="only these methods (or DAE integrators; comma-separated ids)")
    parser.add_argument("--steppers", metavar="IDS",
                        help="only these steppers (comma-separated ids)")
    parser.add_argument("--filter", metavar="FIELD=IDS", action="append", default=[],
                        help="the same as --problems/--methods/--steppers: problem=a,b, "
                             "method=x or stepper=y (repeatable)")
    parser.add_argument("--per-problem", action="store_true",
                        help="one figure per problem (NAME_<problem>.pdf) instead of one of "
                             "all problems")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return parser.parse_args(argv)


def main(argv=None):
    """The command line (python3 -m cmbench.report ...); returns the exit status."""
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    warnings.showwarning = print_warning
    return files.exit_status(PROG, _report, opts)


def _report(opts):
    def progress(message):
        print(f"{PROG}: {message}", file=sys.stderr, flush=True)

    try:
        filters = parse_filters(opts.problems, opts.methods, opts.steppers, opts.filter)
        _, produced, skipped, errors = build(opts.results_dir, opts.width, opts.names,
                                             opts.series_from,
                                             None if opts.quiet else progress, opts.work,
                                             filters, opts.per_problem, opts.out)
    except FilterError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    written = sum(len(f["files"]) for f in produced)
    out = opts.out or opts.results_dir
    print(f"report: {os.path.join(out, 'report.md')} and report.html "
          f"({len(produced)} figures, {written} files; {len(skipped)} skipped"
          + (f"; {len(errors)} FAILED: {', '.join(n for n, _ in errors)}" if errors else "") + ")")
    for name, reason in skipped:
        print(f"  skipped {name}: {reason}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
