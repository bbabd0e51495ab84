"""The package's command-line entry points on generated bad options: a usage or input error is
one line and exit 2, never a traceback. Run by ctest (tests/python/tests.cmake)."""
import os
import subprocess

from hypothesis import given, settings as hypothesis_settings, strategies as st

SOURCE = os.environ["CMB_SOURCE_DIR"]
ENV = dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "python"))


def numbers(*args):
    return subprocess.run(["/usr/bin/python3", "-m", "cmbench.docs.numbers", *args],
                          capture_output=True, text=True, env=ENV, timeout=120)


@hypothesis_settings(max_examples=12, derandomize=True, deadline=None, database=None)
@given(mode=st.sampled_from(["--check", "--list", "--write"]),
       jobs=st.one_of(st.integers(-5, 0).map(str), st.sampled_from(["x", "", "1.5", "2e0"])))
def test_numbers_refuses_a_bad_job_count(mode, jobs):
    out = numbers(mode, "--jobs", jobs)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "--jobs" in out.stderr


@hypothesis_settings(max_examples=9, derandomize=True, deadline=None, database=None)
@given(mode=st.sampled_from(["--check", "--list", "--write"]),
       binary=st.sampled_from(["DIR", "FILE", "MISSING"]))
def test_numbers_refuses_what_is_not_a_cmbench_binary(tmp_path_factory, mode, binary):
    scratch = tmp_path_factory.mktemp("numbers")
    (scratch / "FILE").write_text("not a program")
    (scratch / "DIR").mkdir()
    out = numbers(mode, "--cmbench", str(scratch / binary))
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "no cmbench binary at" in out.stderr
