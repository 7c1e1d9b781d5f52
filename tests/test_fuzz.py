"""Fuzzing every parser of what a user gives: thousands of mutated and arbitrary inputs, and no
error but the project's own.

Each parser (positions, moves, game records, player specs, network weights files, classic
weights files, labelled-positions ``.npz`` files) gets mutations of valid inputs (characters
inserted, deleted, replaced and repeated from the notation's alphabet plus the characters that
fool ``str.isdigit``, ``int`` and ``str.split``: ``'²'``, ``'٣'``, odd spaces and line breaks;
bits flipped, bytes cut off or added, header fields and array values changed) and arbitrary
text or bytes. A parser may refuse an input only with a :class:`~samuel.errors.SamuelError`; any
other exception (``ValueError``, ``KeyError``, ``UnicodeError``, ``zipfile.BadZipFile``, a numba
error) is a bug. What a parser accepts is then used as the program uses it (a position is
played, a network evaluates, data go through the tuner's compiled error function), so that a
value the parser lets through but the kernels cannot take fails here and not in a user's run.
Kernels do no bounds checks, so the ``.npz`` fuzzing runs in a child process: a segfault there
fails the test (naming the last input) instead of killing the test run.

The inputs are the same on every run (``derandomize``) and no ``.hypothesis`` database is
written, so CI passes or fails the same way each time. ``SAMUEL_FUZZ=explore`` draws fresh
random inputs and ten times as many, for hunting locally.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from samuel.errors import SamuelError
from samuel.games import get_game
from samuel.games.base import IllegalMoveError, Termination
from samuel.games.game import Game
from samuel.games.record import format_record, parse_records, read_records, record_from_game
from samuel.games.tigers.board import FULL, SHEEP, TIGERS
from samuel.games.tigers.rules import Move, Position, format_position

RULES = get_game("tigers")
EXPLORE = os.environ.get("SAMUEL_FUZZ") == "explore"


def fuzz_settings(examples: int, **more) -> settings:
    """Settings for a fuzz test of ``examples`` inputs (ten times as many when exploring)."""
    return settings(
        max_examples=examples * 10 if EXPLORE else examples,
        derandomize=not EXPLORE,
        database=None,
        deadline=None,  # the machine is shared: a slow example is not a failure
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        **more,
    )


# Characters that look like digits, spaces or line ends to Python's str methods but not to a
# reader of the notation: '²'.isdigit() is true and int('²') fails; int('٣') is 3; str.split()
# and str.splitlines() break at \x1c, \x85 and \u2028 as well as at spaces and newlines.
NUMERALS = "²³¹٣۵१𝟓½Ⅻ"
TRAPS = NUMERALS + "\u00a0\u2003\u200b\ufeff\x00\x0b\x0c\x1c\x85\u2028\r\n\t -+.e_"


@st.composite
def mutated(draw, examples: list, pieces: st.SearchStrategy, max_edits: int = 4):
    """One of ``examples`` (text or bytes) with up to ``max_edits`` edits: a piece drawn from
    ``pieces`` inserted or put in place of a run, a run deleted, or a run repeated (which makes
    rows, tags and lists long)."""
    text = draw(st.sampled_from(examples))
    for _ in range(draw(st.integers(0, max_edits))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 6)))
        edit = draw(st.sampled_from(("insert", "replace", "delete", "repeat")))
        if edit == "insert":
            text = text[:i] + draw(pieces) + text[i:]
        elif edit == "replace":
            text = text[:i] + draw(pieces) + text[j:]
        elif edit == "delete":
            text = text[:i] + text[j:]
        else:
            text = text[:j] + text[i:j] + text[j:]
    return text


def characters(alphabet: str) -> st.SearchStrategy[str]:
    """Runs of 1 to 3 characters from the notation's alphabet and :data:`TRAPS`."""
    return st.text(st.sampled_from(alphabet + TRAPS), min_size=1, max_size=3)


def text_inputs(examples: list[str], alphabet: str) -> st.SearchStrategy[str]:
    """Mostly mutated valid examples; sometimes arbitrary text, from the alphabet or any."""
    return st.one_of(
        mutated(examples, characters(alphabet)),
        mutated(examples, characters(alphabet), max_edits=12),
        st.text(st.sampled_from(alphabet + TRAPS), max_size=60),
        st.text(max_size=60),
    )


def random_positions(games: int = 6, seed: int = 1) -> list[Position]:
    """The start and every seventh position of a few random games: both sides to move, sheep in
    hand or not, sheep captured, games over."""
    rng = np.random.default_rng(seed)
    positions = [RULES.initial_position()]
    for _ in range(games):
        game = Game(RULES, ply_cap=120)
        while game.outcome is None:
            moves = game.legal_moves()
            game.play(moves[rng.integers(len(moves))])
        positions.extend(game.positions[1::7])
    return positions


POSITIONS = random_positions()


def check_position(position: Position) -> None:
    """Assert what the kernels assume of a position (so that a bad one fails here, not in a
    kernel), then run the kernels on it: moves, outcome, key, symmetries, and each move played."""
    assert isinstance(position, Position)
    assert position.tigers & ~FULL == 0 and position.sheep & ~FULL == 0
    assert position.tigers & position.sheep == 0
    assert position.tigers.bit_count() == TIGERS
    assert 0 <= position.sheep_in_hand <= SHEEP - position.sheep.bit_count()
    assert 0 <= position.captured <= position.captures_to_win
    moves = position.legal_moves()
    position.decided_outcome()
    assert position.key == RULES.key(position)
    assert len(position.transformed(1).legal_moves()) == len(moves)
    for move in moves[:4]:
        after = position.play(move)
        assert after.tigers.bit_count() == TIGERS


# --- positions ------------------------------------------------------------------------------

POSITION_TEXTS = [format_position(position) for position in POSITIONS]
POSITION_ALPHABET = "TS123456789/0 tsx-"


def test_valid_positions_read_back_as_written() -> None:
    for text in POSITION_TEXTS:
        assert format_position(RULES.parse_position(text)) == text


@given(text_inputs(POSITION_TEXTS, POSITION_ALPHABET))
@fuzz_settings(1500)
def test_positions_are_read_or_refused_with_a_notation_error(text: str) -> None:
    try:
        position = RULES.parse_position(text)
    except SamuelError:
        return
    check_position(position)
    assert RULES.parse_position(format_position(position)) == position


# --- moves ----------------------------------------------------------------------------------

MOVE_TEXTS = sorted({str(move) for position in POSITIONS for move in position.legal_moves()})
MOVE_ALPHABET = "abcdefxz0123456789- "


def test_valid_moves_read_back_as_written() -> None:
    for text in MOVE_TEXTS:
        assert str(Move.parse(text)) == text


@given(text_inputs(MOVE_TEXTS, MOVE_ALPHABET), st.sampled_from(POSITIONS))
@fuzz_settings(2000)
def test_moves_are_read_and_played_or_refused_with_the_games_errors(
    text: str, position: Position
) -> None:
    try:
        move = RULES.parse_move(text)
    except SamuelError:
        return
    assert RULES.parse_move(RULES.format_move(move)) == move
    assert Move.from_code(move.code) == move
    try:
        after = RULES.play(position, move)
    except IllegalMoveError:
        assert move not in position.legal_moves()
        return
    assert move in position.legal_moves()
    check_position(after)


# --- game records ---------------------------------------------------------------------------


def record_texts() -> list[str]:
    """Short records of random games: from the start or from a position of a random game, some
    unfinished, some with a ply cap or an extra tag, with a comment, and two in one text."""
    rng = np.random.default_rng(7)
    texts = []
    for n in range(8):
        start = POSITIONS[3 * n] if n % 2 else RULES.initial_position()
        game = Game(RULES, start, ply_cap=12 if n % 3 == 0 else None)
        stop = rng.integers(0, 20)
        while game.outcome is None and game.ply < stop:
            moves = game.legal_moves()
            game.play(moves[rng.integers(len(moves))])
        record = record_from_game(
            game,
            {"tigers": f"classic:depth={n}", "sheep": 'a "human"'},
            date="2025.01.31",
            extra_tags={"Round": str(n)} if n % 2 else None,
        )
        texts.append(format_record(record))
    texts.append(texts[0].replace("\n1. ", "\n{ a comment } 1. ", 1))
    texts.append(texts[1] + "\n" + texts[2])
    return texts


RECORD_TEXTS = record_texts()
RECORD_ALPHABET = '[]"\\{}.*/-x0123456789abcdeTS GameResultStartPlyCapTerminationDate?\n'


def test_valid_records_read_back_as_written() -> None:
    for text in RECORD_TEXTS:
        records = parse_records(text)
        written = "\n".join(format_record(record) for record in records)
        assert written == text or "{" in text  # comments are not kept
        assert parse_records(written) == records


TAG_VALUES = {
    "Game": ["Tigers & Sheep", "tigers", "draughts"],
    "Tigers": ["classic:depth=4"],
    "Sheep": ["human"],
    "Date": ["2025.01.31", "????.??.??"],
    "Start": POSITION_TEXTS[:6],
    "Result": ["*", "1-0", "0-1", "1/2-1/2"],
    "Termination": [termination.value for termination in Termination],
    "PlyCap": ["12", "1", "150"],
    "Round": ["3"],
}


@st.composite
def retagged(draw, texts: list[str]) -> str:
    """A record with one tag (PlyCap, Start, Date, ...) given a mutation of a value that tag
    could have, in place of its own or added, so that each tag's own parser is reached."""
    text = draw(st.sampled_from(texts))
    name = draw(st.sampled_from(sorted(TAG_VALUES)))
    value = draw(
        st.one_of(
            mutated(TAG_VALUES[name], characters("0123456789?./-* TS")),
            st.text(st.sampled_from("0123456789" + NUMERALS), min_size=1, max_size=4),
        )
    )
    return with_tag(text, name, value, draw(st.integers(0, text.count("\n[") + 1)))


def with_tag(text: str, name: str, value: str, where: int = 0) -> str:
    """``text`` with its ``name`` tag's value replaced by ``value``, or the tag added as line
    ``where`` if it has none."""
    lines = text.split("\n")
    tag_line = f'[{name} "{value}"]'
    mine = [i for i, line in enumerate(lines) if line.startswith(f"[{name} ")]
    if mine:
        lines[mine[0]] = tag_line
    else:
        lines.insert(min(where, lines.index("")), tag_line)
    return "\n".join(lines)


@given(text_inputs(RECORD_TEXTS, RECORD_ALPHABET))
@fuzz_settings(600)
def test_records_are_read_or_refused_with_a_notation_error(text: str) -> None:
    check_records(text)


@given(retagged(RECORD_TEXTS))
@example(with_tag(RECORD_TEXTS[0], "PlyCap", "²"))  # was a ValueError ('²'.isdigit())
@example(with_tag(RECORD_TEXTS[0], "PlyCap", "9" * 5000))  # was a ValueError (int's limit)
@fuzz_settings(400)
def test_tags_are_read_or_refused_with_a_notation_error(text: str) -> None:
    check_records(text)


def check_records(text: str) -> None:
    """Records are read, and read back as written, or refused with a NotationError."""
    try:
        records = parse_records(text)
    except SamuelError:
        event("refused")
        return
    event("accepted")
    for record in records:
        assert parse_records(format_record(record)) == [record]


# Bytes that are not UTF-8, or begin a character that never ends, or mark UTF-8 or UTF-16.
BYTE_TRAPS = [b"\xff", b"\xc3", b"\xe2\x80", b"\xef\xbb\xbf", b"\xfe\xff", b"\x00", b"\r\n"]


def byte_pieces() -> st.SearchStrategy[bytes]:
    return st.one_of(st.binary(min_size=1, max_size=3), st.sampled_from(BYTE_TRAPS))


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A folder for the fuzzed files; module-scoped, since Hypothesis runs every example of a
    test in one call of it (each example overwrites the file it uses)."""
    return tmp_path_factory.mktemp("fuzz")


@given(
    st.one_of(
        mutated([text.encode() for text in RECORD_TEXTS], byte_pieces(), max_edits=6),
        st.binary(max_size=200),
    )
)
@example(b"\x80")  # was a UnicodeDecodeError
@fuzz_settings(300)
def test_record_files_are_read_or_refused_with_the_projects_errors(
    folder: Path, content: bytes
) -> None:
    path = folder / "games.txt"
    path.write_bytes(content)
    try:
        records = read_records(path)
    except SamuelError:
        event("refused")
        return
    event("accepted")
    for record in records:
        assert parse_records(format_record(record)) == [record]
