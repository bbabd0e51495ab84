"""The `cmbench` command of an installed package: runs the executable built with the module.

pip installs it as cmbench/bin/cmbench; in the build tree (PYTHONPATH=build/python) it is
build/cmbench, two levels above the package.
"""
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_CANDIDATES = (os.path.join(_PACKAGE_DIR, "bin", "cmbench"),
               os.path.join(_PACKAGE_DIR, os.pardir, os.pardir, "cmbench"))


def executable():
    """The path of the cmbench executable next to this package, or None if there is none."""
    for path in _CANDIDATES:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.normpath(path)
    return None


def main(argv=None):
    """Replaces this process by the cmbench executable with the given arguments (default:
    the command line's); exits 2 with a message if the package was installed without it."""
    path = executable()
    if path is None:
        print("cmbench: error: no cmbench executable beside the Python package at "
              f"{_PACKAGE_DIR} (install with `pip install .` from the source tree, or build "
              "with scripts/build.sh)", file=sys.stderr)
        return 2
    arguments = sys.argv[1:] if argv is None else list(argv)
    os.execv(path, [path] + arguments)
    return 0  # not reached: execv replaces the process


if __name__ == "__main__":
    sys.exit(main())
