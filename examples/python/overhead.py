"""What a cmbench.run call costs beyond the run itself: a ~1 ms simulation (simple_pendulum,
index1, RK4, 3000 steps) called from Python, against the run's own time as the record measures it
(timing.instrumented_s, the command line's number) and against a `cmbench run` process.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/overhead.py [build/cmbench]
"""
import statistics
import subprocess
import sys
import time

import cmbench

SETTINGS = dict(problem="simple_pendulum", method="index1", stepper="rk4", dt=1e-3, t_end=3.0)
cli = sys.argv[1] if len(sys.argv) > 1 else "build/cmbench"
calls, runs, processes = [], [], []
for _ in range(200):
    start = time.perf_counter()
    record = cmbench.run(**SETTINGS)
    calls.append(time.perf_counter() - start)
    runs.append(record["timing"]["instrumented_s"])
for _ in range(20):
    start = time.perf_counter()
    subprocess.run([cli, "run", "--problem", "simple_pendulum", "--method", "index1", "--stepper",
                    "rk4", "--dt", "1e-3", "--t-end", "3", "--repeat", "0"],
                   check=True, capture_output=True)
    processes.append(time.perf_counter() - start)
call, run = statistics.median(calls), statistics.median(runs)
print(f"run itself (instrumented_s, median of 200): {run * 1e3:.3f} ms")
print(f"cmbench.run call (median of 200):           {call * 1e3:.3f} ms")
print(f"overhead of the Python call:                {(call - run) * 1e3:.3f} ms "
      f"({(call - run) / run:.0%} of the run)")
print(f"`cmbench run` process (median of 20):       {statistics.median(processes) * 1e3:.3f} ms")
