"""The files cmbench's Python reads and writes: JSON read within bounds, every write atomic.

    from cmbench.files import read_json, write_atomic, save_figure
    doc = read_json("results/default/RUN/results.json", "result set")
    write_atomic("README.md", text)                   # text (written as UTF-8) or bytes
    save_figure(fig, "out/drift.pdf", dpi=300)        # format from the extension

read_json refuses with InputFileError (a ValueError; str(): 'PATH: what is wrong (WHAT)', the
place in the document given as a line and column or a JSON path such as /runs/3):
  - anything but a regular file (a FIFO, a device, a directory), without waiting on it;
  - a file larger than MAX_FILE_BYTES;
  - bytes that are not UTF-8, text that is not JSON;
  - nesting deeper than MAX_JSON_DEPTH, found by a scan without recursion before parsing (the
    parser recurses once per level: a deep enough file would end in a RecursionError);
  - a key twice in one object (JSON leaves that to the reader; keeping the last would hide a
    typo), NaN and Infinity (not JSON), numbers beyond double range (the C++ reader refuses them).
The limits and the refusals are those of the C++ reader (core/json_input.hpp).

write_atomic and save_figure write a temporary file beside the target, flush and fsync it, give
it the target's mode and rename it over the target: a reader sees the previous file or the new
one, never a part of one. A target that exists and is not a regular file (a FIFO, a device) is
refused (OutputFileError), as the C++ writer refuses it. A write that fails (a full disk, a
file-size limit, an error while drawing) removes the temporary file and leaves the previous one
as it was; an OSError is raised as OutputFileError naming the target.

exit_status(prog, entry) runs an entry point's work with these errors as one line on stderr.
"""
import contextlib
import errno
import json
import math
import os
import re
import secrets
import stat
import sys

__all__ = ["read_json", "read_text", "parse_json", "write_atomic", "save_figure", "exit_status",
           "InputFileError", "OutputFileError", "MAX_FILE_BYTES", "MAX_JSON_DEPTH"]

# Committed result sets are at most 3.9 MB (795 runs, about 4.8 kB a run): 256 MiB leaves room
# for some 55 000 runs in one set, while the objects Python builds from a file that size (1.5
# times the text for the default set) still fit in a workstation's memory. A larger file is
# refused before it is read.
MAX_FILE_BYTES = 256 * 1024 * 1024
# core/json_input.hpp's kMaxJsonDepth: what one reader takes, the other takes too. Result sets
# nest 8 levels deep.
MAX_JSON_DEPTH = 64


class InputFileError(ValueError):
    """An input file that cannot be used: str() is 'PATH: what is wrong' followed by what the
    file was read as, in parentheses, when the reader said."""

    def __init__(self, path, problem, what=None):
        super().__init__(f"{path}: {problem}" + (f" ({what})" if what else ""))
        self.path = path
        self.problem = problem


class OutputFileError(OSError):
    """A file that could not be written (the previous file, if any, is as it was): str() is
    'PATH: cannot write: why'."""

    def __str__(self):
        return f"{self.filename}: cannot write: {self.strerror}"


# --- reading ----------------------------------------------------------------------------------

def read_text(path, what):
    """The UTF-8 text of the file at path, at most MAX_FILE_BYTES; InputFileError otherwise."""
    try:
        # Opened without waiting (a FIFO's open waits for a writer, perhaps forever), then only
        # a regular file is read: a FIFO or a device could stream without end.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with open(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise InputFileError(path, f"not a regular file ({_kind(info.st_mode)})", what)
            os.set_blocking(fd, True)
            if info.st_size > MAX_FILE_BYTES:
                raise InputFileError(path, _too_large(info.st_size), what)
            data = f.read(MAX_FILE_BYTES + 1)  # bounded for a file that grows while read
    except OSError as error:
        raise InputFileError(path, f"cannot read: {error.strerror or error}", what) from None
    if len(data) > MAX_FILE_BYTES:
        raise InputFileError(path, _too_large(len(data)), what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputFileError(path, f"not UTF-8 text (byte {error.start})", what) from None


def _kind(mode):
    """What a file that is not a regular one is, for a message."""
    return ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else
            "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or
            stat.S_ISBLK(mode) else "not a file")


def _too_large(size):
    return f"larger than {MAX_FILE_BYTES >> 20} MiB ({size} bytes or more), the limit of a read"


def read_json(path, what):
    """The JSON document in the file at path, read within the bounds above; `what` says what the
    file was read as ("result set", "run record", ...) in the messages."""
    return parse_json(read_text(path, what), path, what)


def parse_json(text, path, what):
    """The JSON document `text` (read from path), checked as read_json checks a file."""
    deep = _too_deep_at(text)
    if deep is not None:
        raise InputFileError(path, f"nested deeper than {MAX_JSON_DEPTH} levels at "
                                   f"{_path_at(text, deep)}", what)
    refused = []

    def refuse(problem):
        refused.append(problem)
        return _Refused(problem)

    try:
        document = json.loads(text, object_pairs_hook=lambda pairs: _object(pairs, refuse),
                              parse_constant=lambda name: refuse(f"{name} is not a JSON number"),
                              parse_float=lambda number: _finite(float(number), number, refuse),
                              parse_int=lambda number: _integer(number, refuse))
    except json.JSONDecodeError as error:
        raise InputFileError(path, f"not valid JSON (truncated?): {error.msg}: line "
                                   f"{error.lineno} column {error.colno}", what) from None
    if refused:
        raise InputFileError(path, next(_refusals(document)), what)
    return document


# A string (through its closing quote, or to the end of the text when it has none; an escaped
# quote does not close it) or one structural character. Brackets inside strings come and go with
# their string.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)
_STRING_OR_STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{},:]', re.DOTALL)


def _too_deep_at(text):
    """The offset of the first bracket opening a container deeper than MAX_JSON_DEPTH, or None.
    A loop over tokens, whatever the depth."""
    depth = 0
    for token in _STRING_OR_BRACKET.finditer(text):
        char = text[token.start()]
        if char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return token.start()
        elif char in "]}":
            depth -= 1
            if depth < 0:  # a stray closing bracket: the parser stops there with a syntax error
                return None
    return None


def _path_at(text, offset):
    """The JSON path ('/runs/3/x') of the value starting at `offset`: the key or element index
    in each container open there, as the C++ reader names it."""
    open_containers = []  # [key, or index of the current element]; key None in a new object
    last_string = None
    for token in _STRING_OR_STRUCTURE.finditer(text, 0, offset):
        char = text[token.start()]
        if char == '"':
            last_string = token.group()
        elif char in "[{":
            open_containers.append(0 if char == "[" else None)
        elif char in "]}":
            open_containers.pop()
        elif open_containers and char == ":":
            open_containers[-1] = _key_text(last_string)
        elif open_containers and isinstance(open_containers[-1], int):  # "," in an array
            open_containers[-1] += 1
    return "/" + "/".join(str(step) for step in open_containers)


def _key_text(token):
    try:
        return json.loads(token)
    except ValueError:  # only in text that is not JSON: the key as written
        return token


class _Refused:
    """Stands, in the parsed document, for a value refused while parsing, so that its path can
    be named afterwards (json's hooks are not told where they are)."""

    def __init__(self, problem):
        self.problem = problem


def _object(pairs, refuse):
    keys = set()
    for key, _ in pairs:
        if key in keys:
            return refuse(f"key {json.dumps(key)} appears twice in the object")
        keys.add(key)
    return dict(pairs)


def _finite(value, text, refuse):
    return value if math.isfinite(value) else refuse(f"{text} is beyond double range")


def _integer(text, refuse):
    try:
        number = int(text)  # ValueError: more digits than int() converts
        float(number)  # OverflowError: beyond the doubles the C++ reader holds numbers in
        return number
    except (ValueError, OverflowError):
        shown = text if len(text) <= 24 else f"{text[:20]}… ({len(text)} digits)"
        return refuse(f"{shown} is beyond double range")


def _refusals(document):
    """'what was refused at /its/path' for each refused value, in document order (a walk with a
    stack, not recursion)."""
    stack = [(document, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, _Refused):
            yield f"{value.problem} at {path or '/'}"
        elif isinstance(value, dict):
            stack += reversed([(v, f"{path}/{k}") for k, v in value.items()])
        elif isinstance(value, list):
            stack += reversed([(v, f"{path}/{i}") for i, v in enumerate(value)])


# --- writing ----------------------------------------------------------------------------------

def write_atomic(path, data):
    """Replaces the file at path (or creates it) with data, text (UTF-8) or bytes, whole or not
    at all."""
    with _replacing(path) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


def save_figure(fig, path, **options):
    """fig.savefig(path, **options), whole or not at all. The format is the extension's: a file
    object gives matplotlib no name to take it from."""
    with _replacing(path) as f:
        fig.savefig(f, format=os.path.splitext(path)[1][1:], **options)


@contextlib.contextmanager
def _replacing(path):
    """A binary file object whose contents replace the file at path when the block ends
    without an error."""
    target = os.path.realpath(path)  # a symlink's target, as open(path, "w") would write
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = None  # not there yet (or not visible): creating it below says what is wrong
    if mode is not None and not stat.S_ISREG(mode):  # replacing a FIFO or a device would hide it
        raise OutputFileError(errno.EEXIST, f"it exists and is {_kind(mode)}, not a regular file "
                                            "(remove it, or write elsewhere)", path)
    try:
        temporary, fd = _create_beside(target)
    except OSError as error:
        raise _cannot_write(path, error) from None
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        _keep_mode(target, temporary)
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise _cannot_write(path, error) from None
        raise


def _create_beside(target):
    """(name, descriptor) of a new hidden file in target's directory: a rename within one file
    system is atomic."""
    directory, name = os.path.split(target)
    while True:
        temporary = os.path.join(directory, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            # Mode 0666 less the umask: what open(target, "w") gives a new file.
            return temporary, os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue


def _keep_mode(target, temporary):
    with contextlib.suppress(FileNotFoundError):
        os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))


def _cannot_write(path, error):
    return OutputFileError(error.errno, error.strerror or str(error), os.fspath(path))


# --- command lines ----------------------------------------------------------------------------

def exit_status(prog, entry, *args):
    """entry(*args), the work of an entry point, as an exit status: an input file it cannot use
    is one line 'PROG: PATH: what is wrong' on stderr and status 2, a file it could not write one
    line and status 1; never a traceback."""
    try:
        return entry(*args)
    except InputFileError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    except OutputFileError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 1
