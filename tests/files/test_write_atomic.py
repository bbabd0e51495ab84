"""cmbench.files.write_atomic and save_figure (issue #26 item 4): a file is replaced whole or not
at all. A write that fails at any point (hypothesis, derandomized: the write cut after any number
of bytes, fsync, chmod or the rename failing, with an OSError or an interrupt) leaves the
previous file byte for byte and no temporary file; so does a file-size limit (RLIMIT_FSIZE, in a
subprocess), for write_atomic and for `python3 -m cmbench.docs.numbers --write` on a copy of the
docs, the reported case (it truncated README.md).
Run by ctest (tests/files/tests.cmake) with PYTHONPATH=python."""
import errno
import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
from unittest import mock

import pytest
from hypothesis import assume, given, settings, strategies as st

import cmbench
from cmbench.docs import numbers
from cmbench.files import OutputFileError, save_figure, write_atomic

PROPERTIES = settings(max_examples=100, derandomize=True, deadline=None, database=None)
PACKAGE_PATH = os.path.dirname(os.path.dirname(os.path.abspath(cmbench.__file__)))
SOURCE = os.path.dirname(PACKAGE_PATH)
CONTENTS = st.binary(max_size=3000) | st.text(max_size=1000)


def as_bytes(data):
    return data.encode("utf-8") if isinstance(data, str) else data


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


class CutFile:
    """A file object whose write stores the first `keep` bytes, then raises `error`."""

    def __init__(self, f, keep, error):
        self.f, self.keep, self.error = f, keep, error

    def __enter__(self):
        return self

    def __exit__(self, *failure):
        self.f.close()

    def write(self, data):
        self.f.write(data[:self.keep])
        self.f.flush()
        raise self.error

    def flush(self):
        self.f.flush()

    def fileno(self):
        return self.f.fileno()


def failing(stage, keep, error):
    """A patch making `stage` of write_atomic fail with `error`."""
    if stage == "write":
        real_fdopen = os.fdopen
        return mock.patch("os.fdopen", lambda fd, mode: CutFile(real_fdopen(fd, mode), keep, error))
    return mock.patch(f"os.{stage}", side_effect=error)


@PROPERTIES
@given(old=st.none() | st.binary(max_size=2000), new=CONTENTS,
       stage=st.sampled_from(["write", "fsync", "chmod", "replace"]),
       keep=st.integers(0, 3000), interrupt=st.booleans())
def test_a_write_failing_at_any_point_leaves_the_previous_file_whole(old, new, stage, keep,
                                                                     interrupt):
    assume(old is not None or stage != "chmod")  # a new file has no mode to keep: no chmod
    error = KeyboardInterrupt() if interrupt else OSError(errno.ENOSPC, "No space left on device")
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "table.md")
        if old is not None:
            with open(path, "wb") as f:
                f.write(old)
        with pytest.raises(KeyboardInterrupt if interrupt else OutputFileError) as caught:
            with failing(stage, keep, error):
                write_atomic(path, new)
        if not interrupt:
            assert str(caught.value) == f"{path}: cannot write: No space left on device"
        assert os.listdir(directory) == ([] if old is None else ["table.md"])
        if old is not None:
            with open(path, "rb") as f:
                assert f.read() == old


@PROPERTIES
@given(old=st.none() | st.binary(max_size=2000), new=CONTENTS,
       mode=st.sampled_from([0o600, 0o640, 0o644, 0o755, 0o444]))
def test_a_write_replaces_the_file_whole_and_keeps_its_mode(old, new, mode):
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "table.md")
        if old is not None:
            with open(path, "wb") as f:
                f.write(old)
            os.chmod(path, mode)
        write_atomic(path, new)
        with open(path, "rb") as f:
            assert f.read() == as_bytes(new)
        expected = mode if old is not None else 0o666 & ~current_umask()  # as open(path, "w")
        assert stat.S_IMODE(os.stat(path).st_mode) == expected
        assert os.listdir(directory) == ["table.md"]


def test_a_write_through_a_symlink_replaces_its_target(tmp_path):
    (tmp_path / "target.md").write_text("old")
    (tmp_path / "link.md").symlink_to("target.md")
    write_atomic(tmp_path / "link.md", "new")
    assert (tmp_path / "link.md").is_symlink() and (tmp_path / "target.md").read_text() == "new"


def test_a_write_into_a_missing_directory_names_the_file(tmp_path):
    path = tmp_path / "missing" / "table.md"
    with pytest.raises(OutputFileError, match=rf"^{path}: cannot write: No such file"):
        write_atomic(path, "text")


def limited_to(size):
    """preexec_fn: a file-size limit of `size` bytes in the child (Python ignores SIGXFSZ, so a
    write past it fails with EFBIG)."""
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def test_a_file_size_limit_leaves_the_previous_file_whole(tmp_path):
    path = tmp_path / "table.md"
    path.write_bytes(b"previous\n" * 100)
    script = ("import sys\nfrom cmbench.files import write_atomic\n"
              "write_atomic(sys.argv[1], 'new line\\n' * 10000)\n")
    run = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                         text=True, preexec_fn=limited_to(4096),
                         env=dict(os.environ, PYTHONPATH=PACKAGE_PATH))
    assert run.returncode != 0 and f"{path}: cannot write: File too large" in run.stderr
    assert path.read_bytes() == b"previous\n" * 100
    assert os.listdir(tmp_path) == ["table.md"]


# --- figures ------------------------------------------------------------------------------------

def test_figures_are_written_in_their_extensions_format(tmp_path):
    from matplotlib.figure import Figure
    figure = Figure()
    figure.add_subplot().plot([0, 1], [1, 0])
    for name, magic in (("a.pdf", b"%PDF"), ("a.png", b"\x89PNG")):
        save_figure(figure, tmp_path / name, dpi=50)
        assert (tmp_path / name).read_bytes().startswith(magic)


class BrokenFigure:
    """A figure whose drawing fails after part of the file is written."""

    def savefig(self, f, format, **options):
        f.write(b"%PDF-1.4 part of a figure")
        raise ValueError("cannot draw")


def test_a_figure_that_fails_to_draw_leaves_the_previous_file_whole(tmp_path):
    path = tmp_path / "drift.pdf"
    path.write_bytes(b"%PDF previous figure")
    with pytest.raises(ValueError, match="cannot draw"):
        save_figure(BrokenFigure(), path)
    assert path.read_bytes() == b"%PDF previous figure"
    assert os.listdir(tmp_path) == ["drift.pdf"]


# --- the reported case: docs.numbers --write under a file-size limit -----------------------------

# A cmbench that answers every run with an empty record (each claim then measures "–", so every
# quoted value is rewritten) and lists no methods (the drift table gets no rows).
FAKE_CMBENCH = """#!/bin/sh
if [ "$1" = list ]; then echo '{"methods": []}'; exit 0; fi
while [ $# -gt 1 ]; do
  if [ "$1" = --out ]; then echo '{}' > "$2"; fi
  shift
done
"""


def docs_copy(tmp_path):
    """A repository holding copies of the docs numbers reads and this package (a symlink: the
    package takes its repository from its path, which the link does not resolve)."""
    root = tmp_path / "repo"
    for rel in numbers.DOCS:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(os.path.join(SOURCE, rel), root / rel)
    (root / "python").symlink_to(PACKAGE_PATH)
    fake = tmp_path / "cmbench"
    fake.write_text(FAKE_CMBENCH)
    fake.chmod(0o755)
    return root, fake


def write_numbers(root, fake, preexec_fn=None):
    return subprocess.run([sys.executable, "-m", "cmbench.docs.numbers", "--write", "--cmbench",
                           str(fake)], capture_output=True, text=True, cwd=root,
                          preexec_fn=preexec_fn,
                          env=dict(os.environ, PYTHONPATH=str(root / "python"),
                                   PYTHONDONTWRITEBYTECODE="1"))


def test_numbers_write_under_a_file_size_limit_leaves_the_page_whole(tmp_path):
    # docs/measured.md holds most of the quoted numbers (the README once did, and was truncated).
    root, fake = docs_copy(tmp_path)
    page = root / "docs" / "measured.md"
    before = page.read_bytes()
    listing = sorted(os.listdir(root))
    limited = write_numbers(root, fake, limited_to(len(before) // 2))
    assert limited.returncode == 1, limited.stderr
    assert limited.stderr.splitlines()[-1:] == [
        f"cmbench.docs.numbers: {page}: cannot write: File too large"]
    assert "Traceback" not in limited.stderr
    assert page.read_bytes() == before
    assert sorted(os.listdir(root)) == listing
    # Without the limit the same command rewrites the page: the limited run did try to.
    free = write_numbers(root, fake)
    assert free.returncode == 0, free.stderr
    assert page.read_bytes() != before
