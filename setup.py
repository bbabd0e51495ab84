"""The build behind `pip install .`: CMake builds the compiled module cmbench._core for the
Python running the install and the `cmbench` executable, and setuptools packages them with the
pure-Python package python/cmbench.

The CMake build directory is ./build, the one scripts/build.sh and scripts/main.sh use, so an
install after the README's main command rebuilds nothing; for another Python than the one
./build is configured for it is build/pip-<interpreter>. Environment: CMB_BUILD_DIR (another
build directory), CMB_BUILD_JOBS (parallel jobs, default 2), CMB_CMAKE_ARGS (extra configure
arguments, split on spaces; they stay in that directory's cache).
"""
import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as cmake_lists:
        match = re.search(r"project\(cmbench VERSION ([0-9.]+)", cmake_lists.read())
    if not match:
        sys.exit("setup.py: no `project(cmbench VERSION x.y.z)` in CMakeLists.txt")
    return match.group(1)


def cached_python(build_dir):
    """The interpreter a configured build directory builds the module for, or None if the
    directory is not configured."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as cache:
            for line in cache:
                if line.startswith("Python3_EXECUTABLE:"):
                    return line.split("=", 1)[1].strip()
    except FileNotFoundError:
        return None
    return ""


class CMakeModule(Extension):
    """The module CMake builds (target cmb_python_core); setuptools compiles nothing itself."""

    def __init__(self):
        super().__init__("cmbench._core", sources=[])


class BuildWithCMake(build_ext):
    """Configures and builds with CMake, then copies the module and the executable into the
    package being built (the executable as cmbench/bin/cmbench, run by `cmbench`)."""

    def build_extension(self, ext):
        # The interpreter itself, not a venv's link to it: the build directory outlives venvs.
        python = os.path.realpath(sys.executable)
        build_dir = self._build_dir(python)
        configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMB_PYTHON_MODULE=ON"]
        if cached_python(build_dir) is None:
            configure += ["-DCMAKE_BUILD_TYPE=Release", f"-DPython3_EXECUTABLE={python}"]
            if shutil.which("ninja"):  # as scripts/build.sh: both cores stay busy
                configure += ["-G", "Ninja"]
            if shutil.which("ccache"):  # as scripts/build.sh: a reinstall recompiles nothing
                configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=" + ROOT +
                              ";CCACHE_NOHASHDIR=true;ccache"]
        configure += os.environ.get("CMB_CMAKE_ARGS", "").split()
        jobs = os.environ.get("CMB_BUILD_JOBS", "2")
        self._run(configure)
        self._run(["cmake", "--build", build_dir, "-j", jobs, "--target", "cmb_python_core",
                   "cmbench"])
        module = self._built_module(build_dir)
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(module, target)
        bin_dir = os.path.join(os.path.dirname(target), "bin")
        os.makedirs(bin_dir, exist_ok=True)
        shutil.copy2(os.path.join(build_dir, "cmbench"), os.path.join(bin_dir, "cmbench"))

    @staticmethod
    def _build_dir(python):
        """CMB_BUILD_DIR, else ./build when it builds for this interpreter (or is not configured
        yet), else build/pip-<interpreter>: a pip install never reconfigures the directory the
        scripts and the tests use for another Python."""
        if os.environ.get("CMB_BUILD_DIR"):
            return os.path.abspath(os.environ["CMB_BUILD_DIR"])
        shared = os.path.join(ROOT, "build")
        cached = cached_python(shared)
        if cached is None or (cached and os.path.realpath(cached) == python):
            return shared
        tag = re.sub(r"[^A-Za-z0-9.]+", "-", python.strip(os.sep))
        return os.path.join(shared, "pip-" + tag)

    @staticmethod
    def _run(command):
        print("setup.py:", " ".join(command), flush=True)
        subprocess.run(command, check=True)

    def _built_module(self, build_dir):
        suffix = self.get_ext_filename("_core")  # e.g. _core.cpython-311-x86_64-linux-gnu.so
        module = os.path.join(build_dir, "python", "cmbench", suffix)
        if not os.path.exists(module):
            sys.exit(f"setup.py: CMake did not produce {module}: is {build_dir} configured for "
                     f"another Python than {sys.executable}?")
        return module


class BuildWithCampaigns(build_py):
    """The pure-Python package plus the repository's campaign files, as cmbench/campaigns/ (for
    cmbench.campaign_file: a pip user has no checkout to take them from)."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "cmbench", "campaigns")
        os.makedirs(target, exist_ok=True)
        for path in glob.glob(os.path.join(ROOT, "campaigns", "*.json")):
            shutil.copy2(path, target)


# setuptools copies the package into build/setuptools/lib.<platform> and never removes what is
# gone from python/: start each build from an empty copy.
for stale in glob.glob(os.path.join(ROOT, "build", "setuptools", "lib.*")):
    shutil.rmtree(stale, ignore_errors=True)
setup(version=project_version(), ext_modules=[CMakeModule()],
      cmdclass={"build_ext": BuildWithCMake, "build_py": BuildWithCampaigns},
      options={"build": {"build_base": os.path.join("build", "setuptools")}})
