"""Every public name of the cmbench Python package has a docstring of its own: each module, the
functions and classes it exports (its __all__, or else those defined in it without a leading
underscore) and the public methods and properties of those classes. The rule and the listing are
cmbench.docs.api_page's, which also writes the API reference page (docs/api/python.md) from the
same names. Run: PYTHONPATH=python python3 -m pytest -q tests/test_docstrings.py (the ctest
python_public_names_have_docstrings).
"""
import sys
import textwrap

from cmbench.docs import api_page


def test_every_public_name_has_a_docstring():
    missing = api_page.undocumented()
    assert not missing, (f"{len(missing)} public name(s) of python/cmbench without a docstring "
                         "(add one, or make the name private with a leading underscore):\n  "
                         + "\n  ".join(missing))


def test_the_check_finds_what_is_missing(tmp_path, monkeypatch):
    """The checker itself: a small package with one documented and several undocumented names."""
    package = tmp_path / "docpkg"
    package.mkdir()
    (package / "__init__.py").write_text('"""A package."""\n')
    (package / "good.py").write_text(textwrap.dedent('''\
        """Documented."""
        import dataclasses


        def f():
            """Documented."""


        def _private():
            pass


        @dataclasses.dataclass
        class D:
            """Documented."""
            x: int
        '''))
    (package / "bad.py").write_text(textwrap.dedent('''\
        import dataclasses

        __all__ = ["g", "C", "D", "E"]


        def g():
            pass


        def not_exported():
            pass


        class C:
            """Documented class, undocumented method and property."""

            def m(self):
                pass

            @property
            def p(self):
                return 1

            def _hidden(self):
                pass


        @dataclasses.dataclass
        class D:
            x: int


        class E(ValueError):
            pass
        '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        missing = api_page.undocumented("docpkg")
    finally:
        for name in [n for n in sys.modules if n == "docpkg" or n.startswith("docpkg.")]:
            del sys.modules[name]
    assert missing == ["docpkg.bad", "docpkg.bad.g", "docpkg.bad.C.m", "docpkg.bad.C.p",
                       "docpkg.bad.D", "docpkg.bad.E"]
