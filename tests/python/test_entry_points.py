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


# --- a Python without a module a part of cmbench needs ------------------------------------------

def hiding(tmp_path, module):
    """A PYTHONPATH entry that makes `import module` fail as if it were not installed."""
    shadow = tmp_path / "shadow" / module
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        f"raise ModuleNotFoundError(\"No module named '{module}'\", name='{module}')\n")
    return str(tmp_path / "shadow")


# (module hidden, command line needing it, program importing the part needing it)
NEEDS = [("numpy", ["-m", "cmbench.derive", "MODEL", "--check"], "import cmbench.derive"),
         ("sympy", ["-m", "cmbench.derive", "MODEL", "--check"], "import cmbench.derive"),
         ("matplotlib", ["-m", "cmbench.report", "RESULTS"], "import cmbench.report"),
         ("pandas", ["-c", "import cmbench; cmbench.load('RESULTS')"],
          "import cmbench; cmbench.load('RESULTS')")]


@hypothesis_settings(max_examples=8, derandomize=True, deadline=None, database=None)
@given(need=st.sampled_from(NEEDS), use=st.sampled_from(["command", "import"]))
def test_a_missing_module_is_named_in_one_line(tmp_path_factory, need, use):
    module, command, program = need
    path = hiding(tmp_path_factory.mktemp("missing"), module)
    env = dict(ENV, PYTHONPATH=path + os.pathsep + ENV["PYTHONPATH"])
    model = os.path.join(SOURCE, "tests", "derive", "models", "driven_knife_edge.py")
    results = os.path.join(SOURCE, "results", "scaling")

    def filled(text):
        return text.replace("MODEL", model).replace("RESULTS", results)

    if use == "command" and command[0] == "-m":
        out = subprocess.run(["/usr/bin/python3"] + [filled(a) for a in command],
                             capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
        assert out.stderr.count("\n") == 1 and out.stderr.startswith("cmbench: error: ")
    else:
        # A program using the package gets the exception (a ModuleNotFoundError), with the same
        # sentence.
        out = subprocess.run(["/usr/bin/python3", "-c", filled(program)],
                             capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 1 and "MissingModule" in out.stderr, out.stderr
    assert f"needs the Python module {module}" in out.stderr
    assert "/usr/bin/python3" in out.stderr
