"""Third-party modules that parts of cmbench need, checked where they are first used, so that a
Python without them (another interpreter than the one the package was set up with) gets one
clear sentence instead of an import traceback from deep inside the package."""
import importlib
import sys

# Debian package of each module (the packages scripts/install_deps.sh installs).
DEBIAN_PACKAGES = {"numpy": "python3-numpy", "pandas": "python3-pandas",
                   "matplotlib": "python3-matplotlib", "sympy": "python3-sympy",
                   "jsonschema": "python3-jsonschema", "tqdm": "python3-tqdm"}


class MissingModule(ModuleNotFoundError):
    """A module a part of cmbench needs cannot be imported by the running Python."""


def message(what, module):
    """The sentence naming what needs `module`, the Python lacking it and two ways out."""
    package = DEBIAN_PACKAGES.get(module, f"python3-{module}")
    return (f"{what} needs the Python module {module}, which {sys.executable} cannot import: "
            f"run it with Debian's /usr/bin/python3 ({package}), or install {module} for this "
            "Python")


def require(what, *modules):
    """Imports each module, raising MissingModule (a ModuleNotFoundError) naming `what`."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as error:
            if error.name != module:
                raise
            raise MissingModule(message(what, module), name=module) from None


def _one_line_hook(previous):
    def hook(kind, value, traceback):
        if isinstance(value, MissingModule):
            print(f"cmbench: error: {value}", file=sys.stderr)
            return
        previous(kind, value, traceback)
    return hook


def install_entry_point_hook():
    """For `python3 -m cmbench.X`: a MissingModule ends the program with one line, not a
    traceback. runpy sets sys.argv[0] to '-m' while it imports the package of the module it
    runs, so a plain `import cmbench` in a user's program leaves the hook alone."""
    if sys.argv[:1] == ["-m"] and not getattr(sys.excepthook, "_cmbench", False):
        sys.excepthook = _one_line_hook(sys.excepthook)
        sys.excepthook._cmbench = True
