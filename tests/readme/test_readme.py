"""The README is the front page: it quotes no commit hash, reaches its first command within one
screen, and every example in it works against the build under test (the main command and the
test command themselves excepted: this test runs inside the second).

Environment: CMBENCH (the executable), PYTHONPATH (the build's python/ directory, holding the
compiled module), CMB_SOURCE_DIR (the checkout). The examples' paths are mapped: build/cmbench to
CMBENCH, build/python to the PYTHONPATH entry, /tmp/ to a fresh directory of this test.
"""
import os
import re
import subprocess
import sys

import pytest

SOURCE = os.environ.get("CMB_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
README = os.path.join(SOURCE, "README.md")
# What fits one screen of a README on a code host: the text above the first code block.
SCREEN_WORDS = 250
SCREEN_LINES = 40
SETUP_COMMANDS = ("bash scripts/main.sh", "bash scripts/test.sh")


def readme():
    with open(README, encoding="utf-8") as f:
        return f.read()


def code_blocks(text):
    """[(language, code)] of the fenced blocks, in order."""
    return re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.M | re.S)


def before_first_block(text):
    return text[:text.index("```")]


def commit_like_tokens(text):
    """Hexadecimal tokens of 7-40 characters with at least one digit and one letter: how a
    commit hash looks (a bare number or a word is not one)."""
    tokens = re.findall(r"(?<![0-9A-Za-z_])[0-9a-f]{7,40}(?![0-9A-Za-z_])", text)
    return [t for t in tokens if re.search(r"[0-9]", t) and re.search(r"[a-f]", t)]


def test_commit_like_tokens_are_found():
    # The check itself must be able to fail.
    assert commit_like_tokens("measured at 611d13f and 725414d on results/x_24879888e99b") \
        == ["611d13f", "725414d"]
    assert commit_like_tokens("1000000 runs, a deadbeef word, 2026-11-27") == []


def test_the_readme_quotes_no_commit_hash():
    assert commit_like_tokens(readme()) == []


def test_the_first_command_is_within_one_screen():
    head = before_first_block(readme())
    words, lines = len(head.split()), head.count("\n")
    assert words <= SCREEN_WORDS and lines <= SCREEN_LINES, (words, lines)


def test_the_quick_start_is_two_commands_that_install_what_they_need():
    language, code = code_blocks(readme())[0]
    commands = [line.split("#")[0].strip() for line in code.splitlines() if line.strip()]
    assert language == "sh" and commands == list(SETUP_COMMANDS)


def mapped(code, scratch):
    # /tmp/ first: the build paths put in after it lie under /tmp when the checkout does.
    code = code.replace("/tmp/", scratch + "/")
    build_python = os.environ["PYTHONPATH"].split(os.pathsep)[0]
    code = code.replace("build/cmbench", os.environ["CMBENCH"])
    return code.replace("build/python", build_python)


def examples():
    blocks = code_blocks(readme())
    runnable = [(lang, code) for lang, code in blocks
                if not any(c in code for c in SETUP_COMMANDS)]
    return [pytest.param(lang, code, id=f"{lang}-{i}") for i, (lang, code) in enumerate(runnable)]


@pytest.mark.parametrize("language,code", examples())
def test_every_example_works(language, code, tmp_path):
    assert language in ("sh", "python"), f"an example in a language this test cannot run: {language}"
    code = mapped(code, str(tmp_path))
    if language == "sh":
        command = ["bash", "-euo", "pipefail", "-c", code]
    else:
        command = [sys.executable, "-c", code]
    done = subprocess.run(command, cwd=SOURCE, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "Traceback" not in done.stderr


def test_the_python_example_is_six_lines():
    python = [code for lang, code in code_blocks(readme()) if lang == "python"]
    assert len(python) == 1 and len(python[0].strip().splitlines()) <= 6
