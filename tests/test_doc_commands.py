"""Every ``samuel ...`` command line in the README and docs/ parses: its command, options and
their values are what the real argument parser accepts (it is not run; parsing checks names,
types and choices, so a renamed or removed option fails here)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from samuel.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PREFIX = re.compile(r"^(?:\$ |\.venv/bin/)")
SHELL = {">", ">>", "|", "&&", ";", "2>&1", "&"}  # what follows is the shell's, not samuel's


def documented_commands() -> list[tuple[str, list[str]]]:
    """``(where, arguments)`` for each command line in a fenced block of a doc: one starting
    with ``samuel`` (or ``.venv/bin/samuel``), joined over ``\\`` continuations, its comment and
    shell redirections cut. A synopsis (``[options]``) and an error message quoted from a
    run (``samuel tune: error: ...``) are not command lines."""
    found = []
    for doc in DOCS:
        lines = doc.read_text(encoding="utf-8").splitlines()
        fenced = False
        i = 0
        while i < len(lines):
            text = lines[i].strip()
            number = i + 1
            i += 1
            if text.startswith("```"):
                fenced = not fenced
                continue
            text = PREFIX.sub("", text)
            if not fenced or not text.startswith("samuel "):
                continue
            while text.endswith("\\") and i < len(lines):
                text = text[:-1] + " " + lines[i].strip()
                i += 1
            tokens = shlex.split(text, comments=True)
            if tokens[1].endswith(":") or " [" in text.split("#")[0]:
                continue
            for end, token in enumerate(tokens):
                if token in SHELL:
                    tokens = tokens[:end]
                    break
            found.append((f"{doc.relative_to(ROOT)}:{number}", tokens[1:]))
    return found


COMMANDS = documented_commands()


def test_the_docs_hold_command_lines_of_every_command():
    parser = build_parser()
    named = {arguments[0] for _, arguments in COMMANDS}
    [subcommands] = [a for a in parser._actions if a.dest == "command"]
    missing = set(subcommands.choices) - named - {"analyze"}  # analyze: analyse's other spelling
    assert len(COMMANDS) > 100 and not missing, missing


@pytest.mark.parametrize("where, arguments", COMMANDS, ids=[where for where, _ in COMMANDS])
def test_a_documented_command_line_parses(where, arguments):
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(arguments)
    except SystemExit as exit:
        assert not exit.code, f"{where}: samuel {shlex.join(arguments)}: {errors.getvalue()}"


def test_a_wrong_command_line_fails_to_parse():
    errors = io.StringIO()
    with pytest.raises(SystemExit), contextlib.redirect_stderr(errors):
        build_parser().parse_args(["train", "--games", "5000"])
    assert "unrecognized arguments: --games" in errors.getvalue()
