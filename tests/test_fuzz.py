"""Fuzzing every parser of what a user gives: thousands of mutated and arbitrary inputs, and no
error but the project's own.

Each parser (positions, moves, game records, of Tigers & Sheep and of draughts (FEN, moves as
the command line and the server read them, PDN); player specs, network weights files, classic
weights files, labelled-positions ``.npz`` files) gets mutations of valid inputs (characters
inserted, deleted, replaced and repeated from the notation's alphabet plus the characters that
fool ``str.isdigit``, ``int`` and ``str.split``: ``'²'``, ``'٣'``, odd spaces and line breaks;
bits flipped, bytes cut off or added, header fields and array values changed) and arbitrary
text or bytes. Moves, FENs and movetext are also built from the notation's own pieces (squares
or points joined by ``-`` and ``x`` in every pattern, a near miss or a number past ``int``'s
4,300 digits now and then), so that a step and a capture mixed in one move (``11-15x19``,
issue 38) comes within a few hundred inputs rather than ten thousand.

A parser may refuse an input only with a :class:`~samuel.errors.SamuelError`; any other
exception (``ValueError``, ``KeyError``, ``UnicodeError``, ``zipfile.BadZipFile``, a numba
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

import contextlib
import io
import itertools
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from samuel.errors import SamuelError
from samuel.evaluation.networks import (
    load_network,
    load_zero_network,
    network_shape,
    random_network,
    random_zero_network,
    save_network,
    save_zero_network,
    zero_network_shape,
)
from samuel.games import get_game
from samuel.games import kernels as game_kernels
from samuel.games.actions import legal_actions
from samuel.games.base import IllegalMoveError, NotationError, terminations
from samuel.games.draughts.rules import Move as DraughtsMove
from samuel.games.draughts.rules import Position as DraughtsPosition
from samuel.games.game import Game
from samuel.games.record import (
    RESULTS,
    format_record,
    parse_records,
    read_records,
    record_from_game,
)
from samuel.games.tigers.board import FULL, SHEEP, TIGERS
from samuel.games.tigers.classic import FEATURES, classic_evaluate, load_weights, save_weights
from samuel.games.tigers.rules import Move, Position, format_position
from samuel.nn.shape import network_of
from samuel.nn.weights import header_bytes
from samuel.nn.zero import zero_forward
from samuel.players import MAX_ZERO_SIMULATIONS, SearchPlayer, ZeroPlayer, make_player
from samuel.search.alphabeta import MAX_PLY
from tests import game_numbers

RULES = get_game("tigers")
EXPLORE = os.environ.get("SAMUEL_FUZZ") == "explore"


def fuzz_settings(examples: int) -> settings:
    """Settings for a fuzz test of ``examples`` inputs (ten times as many when exploring)."""
    return settings(
        max_examples=examples * 10 if EXPLORE else examples,
        derandomize=not EXPLORE,
        database=None,
        deadline=None,  # the machine is shared: a slow example is not a failure
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


# Characters that look like digits, spaces or line ends to Python's str methods but not to a
# reader of the notation: '²'.isdigit() is true and int('²') fails; int('٣') is 3; str.split()
# and str.splitlines() break at \x1c, \x85 and \u2028 as well as at spaces and newlines.
NUMERALS = "²³¹٣۵१𝟓½Ⅻ"
TRAPS = NUMERALS + "\u00a0\u2003\u200b\ufeff\x00\x0b\x0c\x1c\x85\u2028\r\n\t -+.e_"


@st.composite
def mutated(draw, examples: list, pieces: st.SearchStrategy, max_edits: int = 4):
    """One of ``examples`` (text or bytes) with up to ``max_edits`` edits: a piece drawn from
    ``pieces`` inserted or put in place of a run, a run deleted, or a run repeated once or
    many times (which makes rows, tags, lists and file names long)."""
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
            text = text[:j] + text[i:j] * draw(st.sampled_from((1, 2, 80))) + text[j:]
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


def played_positions(rules, games: int, seed: int, ply_cap: int, every: int) -> list:
    """Every ``every``-th position (after the start) of ``games`` seeded random games."""
    rng = np.random.default_rng(seed)
    positions = []
    for _ in range(games):
        game = Game(rules, ply_cap=ply_cap)
        while game.outcome is None:
            moves = game.legal_moves()
            game.play(moves[rng.integers(len(moves))])
        positions.extend(game.positions[1::every])
    return positions


def random_positions(games: int = 6, seed: int = 1) -> list[Position]:
    """The start and every seventh position of a few random games: both sides to move, sheep in
    hand or not, sheep captured, games over."""
    return [RULES.initial_position(), *played_positions(RULES, games, seed, 120, 7)]


POSITIONS = random_positions()


def check_position(position: Position) -> None:
    """Assert what the kernels assume of a position (so that a bad one fails here, not in a
    kernel), then run the kernels on it: moves, outcome, key, a symmetry, a few moves played."""
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


@pytest.mark.slow
@given(text_inputs(POSITION_TEXTS, POSITION_ALPHABET))
@fuzz_settings(1000)
def test_positions_are_read_or_refused_with_a_notation_error(text: str) -> None:
    try:
        position = RULES.parse_position(text)
    except NotationError:
        event("refused")
        return
    event("accepted")
    check_position(position)
    assert RULES.parse_position(format_position(position)) == position


# --- moves ----------------------------------------------------------------------------------

MOVE_TEXTS = sorted({str(move) for position in POSITIONS for move in position.legal_moves()})
MOVE_ALPHABET = "abcdefxz0123456789- "
HUGE = "1" * 5000  # a number past int's 4,300-digit limit


@st.composite
def chains(draw, parts: st.SearchStrategy[str], odd_parts: list[str], links: str = "-x") -> str:
    """One to four of ``parts`` joined by the notation's ``links`` (``-`` and ``x``) in any
    pattern, drawn whole (:data:`LINK_PATTERNS`), so that steps and captures mixed in one move
    (``11-15x19``, ``a1-b2xc3``) are frequent, not a lucky mutation; then, a quarter of the time
    each, one part made one of ``odd_parts`` (off the board, past int's limit, in other digits)
    and one link a near miss (``X``, a space, two links, none)."""
    joins = list(draw(st.sampled_from(LINK_PATTERNS[links])))
    texts = [draw(parts) for _ in range(len(joins) + 1)]
    if draw(st.integers(0, 3)) == 0:
        texts[draw(st.integers(0, len(texts) - 1))] = draw(st.sampled_from(odd_parts))
    if joins and draw(st.integers(0, 3)) == 0:
        joins[draw(st.integers(0, len(joins) - 1))] = draw(st.sampled_from(["X", " ", "--", ""]))
    text = texts[0] + "".join(join + part for join, part in zip(joins, texts[1:], strict=True))
    return draw(st.sampled_from(["", "", " ", "\t"])) + text + draw(st.sampled_from(["", " "]))


# Every sequence of up to three links: "", "-", "x", "--", "-x", ..., "xxx".
LINK_PATTERNS = {
    links: ["".join(p) for n in range(4) for p in itertools.product(links, repeat=n)]
    for links in ("-x", "-,")
}


POINTS = chains(
    st.sampled_from([f"{column}{row}" for column in "abcde" for row in "12345"]),
    ["f1", "a0", "a6", "A1", "a11", "a" + HUGE, "a٣", "a²", "", "c"],
)


def test_valid_moves_read_back_as_written() -> None:
    for text in MOVE_TEXTS:
        assert str(Move.parse(text)) == text


@pytest.mark.slow
@given(st.one_of(text_inputs(MOVE_TEXTS, MOVE_ALPHABET), POINTS), st.sampled_from(POSITIONS))
@fuzz_settings(1200)
def test_moves_are_read_and_played_or_refused_with_the_games_errors(
    text: str, position: Position
) -> None:
    try:
        move = RULES.parse_move(text)
    except NotationError:
        event("refused")
        return
    assert RULES.parse_move(RULES.format_move(move)) == move
    assert Move.from_code(move.code) == move
    try:
        after = RULES.play(position, move)
    except IllegalMoveError:
        event("read, not legal")
        assert move not in position.legal_moves()
        return
    event("read and played")
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
    "Termination": [termination.value for termination in terminations(RULES)],
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


def check_records(text: str) -> None:
    """Records are read, and read back as written, or refused with a NotationError."""
    try:
        records = parse_records(text)
    except NotationError:
        event("refused")
        return
    event("accepted")
    for record in records:
        assert parse_records(format_record(record)) == [record]


@pytest.mark.slow
@given(text_inputs(RECORD_TEXTS, RECORD_ALPHABET))
@fuzz_settings(600)
def test_records_are_read_or_refused_with_a_notation_error(text: str) -> None:
    check_records(text)


@pytest.mark.slow
@given(retagged(RECORD_TEXTS))
@example(with_tag(RECORD_TEXTS[0], "PlyCap", "²"))  # was a ValueError ('²'.isdigit())
@example(with_tag(RECORD_TEXTS[0], "PlyCap", "9" * 5000))  # was a ValueError (int's limit)
@fuzz_settings(400)
def test_tags_are_read_or_refused_with_a_notation_error(text: str) -> None:
    check_records(text)


# Bytes that are not UTF-8, or begin a character that never ends, or mark UTF-8 or UTF-16.
BYTE_TRAPS = [b"\xff", b"\xc3", b"\xe2\x80", b"\xef\xbb\xbf", b"\xfe\xff", b"\x00", b"\r\n"]


def byte_pieces() -> st.SearchStrategy[bytes]:
    return st.one_of(st.binary(min_size=1, max_size=3), st.sampled_from(BYTE_TRAPS))


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A folder for the fuzzed files; module-scoped, since Hypothesis runs every example of a
    test in one call of it (each example overwrites the file it uses)."""
    return tmp_path_factory.mktemp("fuzz")


@pytest.mark.slow
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
    assert records == parse_records(content.decode("utf-8"))


# --- English draughts: FEN positions, moves (as the command line and the server read them) and
# PDN records -----------------------------------------------------------------------------------

DRAUGHTS = get_game("draughts")
# Positions with long captures and kings, where the short forms of captures are read.
CAPTURE_POSITIONS = [
    "B:W6,7,14,15,23,24:B1,2",
    "B:W14,16,22:B9,12",
    "B:WK6,K7,K14,K15,K22,K23:BK1",
    "W:WK14,30:B1,K23:Q3",
]


def random_draughts_positions(games: int = 4, seed: int = 3) -> list[DraughtsPosition]:
    """The start, positions with long captures and every fifth position of a few random games."""
    return [
        DRAUGHTS.initial_position(),
        *map(DRAUGHTS.parse_position, CAPTURE_POSITIONS),
        *played_positions(DRAUGHTS, games, seed, 150, 5),
    ]


DRAUGHTS_POSITIONS = random_draughts_positions()
DRAUGHTS_FENS = [DRAUGHTS.format_position(position) for position in DRAUGHTS_POSITIONS]
DRAUGHTS_FENS += ["B:W21-32:B1-12", " W:WK1-3,18:B5, K9:Q12. ", "B:W18,K27:B6,15,K23"]
FEN_ALPHABET = "BWKQ0123456789:,-. x"
# Chains of squares: on the board, so that they reach the checks past the form, and sometimes
# one off it, with leading zeros, in other scripts' digits or past int's limit.
SQUARE_CHAINS = chains(
    st.integers(1, 32).map(str), ["0", "33", "015", "100", "١١", "1²", "K5", "", HUGE, HUGE]
)
FEN_SQUARES = chains(
    st.tuples(st.sampled_from(["", "", "K"]), st.integers(1, 32)).map(lambda p: f"{p[0]}{p[1]}"),
    ["0", "33", "K", "KK5", "١١", "x", HUGE, "K" + HUGE],
    "-,",
)


@st.composite
def fens(draw) -> str:
    """A FEN built from its parts, each sometimes odd: the side to move, White's and Black's
    squares (squares, ranges and kings: see :data:`FEN_SQUARES`), maybe a 40-move count."""
    side = draw(st.sampled_from(["B", "W", "B", "W", "X", ""]))
    text = f"{side}:W{draw(FEN_SQUARES)}:B{draw(FEN_SQUARES)}"
    if draw(st.booleans()):
        text += ":Q" + draw(st.sampled_from(["0", "12", "9999", "10000", "", "x", HUGE]))
    return text


def check_draughts_position(position: DraughtsPosition) -> None:
    """Use a position as the program does: its moves, outcome, key, symmetry, a few moves."""
    assert isinstance(position, DraughtsPosition)
    assert DRAUGHTS.parse_position(DRAUGHTS.format_position(position)) == position
    moves = position.legal_moves()
    position.decided_outcome()
    assert position.key == DRAUGHTS.key(position)
    assert len(position.transformed(1).legal_moves()) == len(moves)
    for move in moves[:4]:
        position.play(move)


def test_valid_draughts_positions_read_back_as_written() -> None:
    for position in DRAUGHTS_POSITIONS:
        check_draughts_position(position)


@pytest.mark.slow
@given(
    st.one_of(
        text_inputs(DRAUGHTS_FENS, FEN_ALPHABET),
        mutated(DRAUGHTS_FENS, st.one_of(characters(FEN_ALPHABET), FEN_SQUARES)),
        fens(),
        fens(),
    )
)
@example("B:W" + HUGE + ":B1")  # was a ValueError (int's limit)
@example("B:W21:B1-" + HUGE)
@fuzz_settings(600)
def test_draughts_positions_are_read_or_refused_with_a_notation_error(text: str) -> None:
    try:
        position = DRAUGHTS.parse_position(text)
    except NotationError:
        event("refused")
        return
    event("accepted")
    check_draughts_position(position)


DRAUGHTS_MOVES = sorted(
    {str(move) for position in DRAUGHTS_POSITIONS for move in position.legal_moves()}
)
DRAUGHTS_MOVE_ALPHABET = "0123456789-xX "
DRAUGHTS_MOVE_INPUTS = st.one_of(
    SQUARE_CHAINS,
    SQUARE_CHAINS,
    text_inputs(DRAUGHTS_MOVES, DRAUGHTS_MOVE_ALPHABET),
    mutated(DRAUGHTS_MOVES, SQUARE_CHAINS),
)


def test_valid_draughts_moves_read_back_as_written() -> None:
    for text in DRAUGHTS_MOVES:
        assert str(DraughtsMove.parse(text)) == text


@pytest.mark.slow
@given(DRAUGHTS_MOVE_INPUTS, st.sampled_from(DRAUGHTS_POSITIONS))
@example("11-15x19", DRAUGHTS.initial_position())  # was a ValueError (too many values to unpack)
@example("1-1x5", DRAUGHTS.initial_position())
@example(HUGE + "-15", DRAUGHTS.initial_position())  # was a ValueError (int's limit)
@example("9x" + HUGE, DRAUGHTS.initial_position())  # read as a short form first
@fuzz_settings(1200)
def test_draughts_moves_are_read_and_played_or_refused_with_the_games_errors(
    text: str, position: DraughtsPosition
) -> None:
    # As `samuel play` and records read a move: the full form, checked for its form only.
    try:
        move = DRAUGHTS.parse_move(text)
    except NotationError:
        event("refused")
    else:
        assert DRAUGHTS.parse_move(DRAUGHTS.format_move(move)) == move
        assert DraughtsMove.from_code(move.code) == move
        try:
            DRAUGHTS.play(position, move)
        except IllegalMoveError:
            event("read, not legal")
            assert move not in position.legal_moves()
        else:
            event("read and played")
            assert move in position.legal_moves()
    # As the server reads it: against the position, short forms of captures too.
    try:
        move = position.parse_move(text)
    except (NotationError, IllegalMoveError):
        return
    assert move in position.legal_moves()


@pytest.fixture(scope="module")
def draughts_server():
    """The draughts server, and a game of two people from each position (made when needed)."""
    from samuel.web.app import create_app

    with warnings.catch_warnings():  # newer Starlette prefers the httpx2 package; httpx works
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from fastapi.testclient import TestClient

    app = create_app(game="draughts", allowed_hosts=["testserver"])
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, {}


@pytest.mark.slow
@given(st.one_of(SQUARE_CHAINS, SQUARE_CHAINS, DRAUGHTS_MOVE_INPUTS), st.integers(0, 8))
@fuzz_settings(300)
def test_the_server_answers_every_draughts_move_without_a_server_error(
    draughts_server, text: str, start: int
) -> None:
    client, games = draughts_server
    if start not in games:
        players = {"black": "human", "white": "human"}
        body = {"players": players, "start": DRAUGHTS_FENS[start], "ply_cap": None}
        answer = client.post("/api/games", json=body)
        assert answer.status_code == 201, answer.text
        games[start] = answer.json()["id"]
    answer = client.post(f"/api/games/{games[start]}/moves", json={"move": text})
    event(str(answer.status_code))
    assert answer.status_code in (200, 400, 409, 422), answer.text  # never 500
    if answer.status_code == 200:  # back to the start for the next input
        undo = client.post(f"/api/games/{games[start]}/undo", json={"plies": 1})
        assert undo.status_code == 200, undo.text


def draughts_record_texts() -> list[str]:
    """PDN records of short random games, from the start or a position with a FEN tag."""
    rng = np.random.default_rng(11)
    texts = []
    for n in range(6):
        start = DRAUGHTS_POSITIONS[2 * n] if n % 2 else DRAUGHTS.initial_position()
        game = Game(DRAUGHTS, start, ply_cap=10 if n % 3 == 0 else None)
        stop = rng.integers(0, 16)
        while game.outcome is None and game.ply < stop:
            moves = game.legal_moves()
            game.play(moves[rng.integers(len(moves))])
        record = record_from_game(
            game, {"black": "alice", "white": f"classic:depth={n}"}, date="2025.01.31"
        )
        texts.append(format_record(record))
    texts.append(texts[0] + "\n" + texts[1])
    return texts


DRAUGHTS_RECORDS = draughts_record_texts()
PDN_ALPHABET = '[]"\\{}.*/-xX0123456789 BWK:,GameTypeBlackWhiteResultFENSetUpDate?\n'


@st.composite
def with_new_move(draw, texts: list[str]) -> str:
    """A record with a move of its movetext replaced by, or a token put before one: mostly a
    chain of squares (a move, steps and captures mixed, a huge square), else a move number,
    maybe huge; or, a quarter of the time, a FEN tag built by :func:`fens`."""
    text = draw(st.sampled_from(texts))
    if draw(st.integers(0, 3)) == 0:
        return with_tag(text, "FEN", draw(fens()))
    lines = text.split("\n")
    i = draw(st.sampled_from([i for i, line in enumerate(lines) if line[:1] not in ("", "[")]))
    tokens = lines[i].split(" ")
    j = draw(st.integers(0, len(tokens) - 1))
    number = st.sampled_from(["1", "2", "3", "0", "01", HUGE])
    numbered = st.tuples(number, st.sampled_from([".", "..."])).map("".join)
    token = draw(st.one_of(SQUARE_CHAINS, SQUARE_CHAINS, SQUARE_CHAINS, numbered))
    keep = tokens[j] in RESULTS or draw(st.booleans())  # the result token stays
    tokens[j : j + (0 if keep else 1)] = [token]
    lines[i] = " ".join(tokens)
    return "\n".join(lines)


def test_valid_draughts_records_read_back_as_written() -> None:
    for text in DRAUGHTS_RECORDS:
        records = parse_records(text)
        assert "\n".join(format_record(record) for record in records) == text


@pytest.mark.slow
@given(
    st.one_of(
        text_inputs(DRAUGHTS_RECORDS, PDN_ALPHABET),
        with_new_move(DRAUGHTS_RECORDS),
        with_new_move(DRAUGHTS_RECORDS),
        with_new_move(DRAUGHTS_RECORDS),
    )
)
@example('[GameType "21"]\n[Result "*"]\n\n1. 11-15x19 *\n')  # was a ValueError
@example(with_tag(DRAUGHTS_RECORDS[0], "FEN", "B:W" + HUGE + ":B1"))  # was a ValueError
@fuzz_settings(400)
def test_draughts_records_are_read_or_refused_with_a_notation_error(text: str) -> None:
    check_records(text)


# --- player specs ---------------------------------------------------------------------------

SPEC_TEXTS = [
    "human",
    "random",
    "random:seed=3",
    "classic",
    "classic:depth=2",
    "classic:depth=6,time=2",
    "classic:epsilon=0.25,seed=7",
    "classic:weights=tuned.json,depth=1",
    "net:depth=1",
    "trained.bin:depth=2",
    "hybrid:scale=0.5,depth=1",
    "hybrid:net=trained.bin,weights=tuned.json",
    "perfect:depth=1",
    "classic:tablebase=tables,depth=1",
    "zero:net=zero.bin,sims=3",
    "zero:net=zero.bin,sims=5,noise=0.25,temp=1,seed=2,moves_left=on",
]
SPEC_ALPHABET = "abcdefhijlmnoprstuwy.=,:0123456789"


@pytest.fixture(scope="module")
def player_folder(tmp_path_factory) -> Path:
    """A folder holding only what the specs above name: classic weights, a network, a Zero
    network and an empty folder where a tablebase would be."""
    folder = tmp_path_factory.mktemp("players")
    save_weights(load_weights(), folder / "tuned.json")
    save_network(random_network(0, 1), folder / "trained.bin", 0)
    save_zero_network(random_zero_network(0, 1), folder / "zero.bin", 0)
    (folder / "tables").mkdir()
    return folder


@pytest.mark.slow
@given(text_inputs(SPEC_TEXTS, SPEC_ALPHABET))
@example("\x00.bin")  # was ValueError (embedded null byte), as was any file option with \x00
@example("classic:weights=\x00")
@example("hybrid:net=" + "n" * 300)  # was OSError (file name too long)
@example("classic:tablebase=" + "t" * 300)
@fuzz_settings(600)
def test_player_specs_make_a_player_or_are_refused_with_the_projects_errors(
    player_folder: Path, spec: str
) -> None:
    # A mutated spec names files. It is made in a folder holding only the files above, and a spec
    # that could reach outside it (an absolute path, '..') is skipped, so that fuzzing never
    # opens a real file, a FIFO (which would hang) or /dev/zero (which would fill the memory).
    assume("/" not in spec and ".." not in spec)
    with contextlib.chdir(player_folder):
        try:
            player = make_player(spec, RULES)
        except SamuelError:
            event("refused")
            return
    event(f"accepted: {type(player).__name__}")
    if isinstance(player, SearchPlayer):
        assert np.all(np.isfinite(player.params))  # what the search kernels take unchecked
        assert 1 <= player.depth < MAX_PLY
        if player.seconds is None and player.depth <= 3:
            game = Game(RULES)
            assert player.choose_move(game) in game.legal_moves()
    if isinstance(player, ZeroPlayer):
        assert np.all(np.isfinite(player.params))
        assert 1 <= player.simulations <= MAX_ZERO_SIMULATIONS
        if player.simulations <= 50:
            game = Game(RULES)
            assert player.choose_move(game) in game.legal_moves()


# --- network weights files ------------------------------------------------------------------


def network_file() -> bytes:
    """A valid TSNN file, as samuel train writes it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "net.bin"
        save_network(random_network(0, 1), path, 0)
        return path.read_bytes()


def zero_network_file() -> bytes:
    """A valid TSNN file of a Samuel Zero network."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "zero.bin"
        save_zero_network(random_zero_network(0, 1), path, 0)
        return path.read_bytes()


NETWORK = network_file()
ZERO_NETWORK = zero_network_file()
# The files' headers (the shape, each head's record after it), as u32 fields a damage may change.
HEADER_BYTES = header_bytes(network_shape(0))
ZERO_HEADER_BYTES = header_bytes(zero_network_shape(0))
# f32 values a damaged file may hold: not finite, the largest, the smallest, a NaN with a payload.
ODD_FLOATS = [
    struct.pack("<f", value) for value in (math.nan, math.inf, -math.inf, 3.4e38, -0.0, 1e-45)
]
ODD_FLOATS.append(struct.pack("<I", 0x7FC00001))


@st.composite
def damaged_bytes(draw, valid: bytes, fields: int = 0, values_from: int | None = None) -> bytes:
    """``valid`` with 1 to 3 kinds of damage: a bit flipped, the end cut off, bytes added, one of
    the first ``fields`` u32 header fields changed, or (past ``values_from``) an f32 value made
    odd (see :data:`ODD_FLOATS`)."""
    data = bytearray(valid)
    kinds = ["flip", "cut", "extend", "splice"]
    kinds += ["header"] * (fields > 0) + ["value"] * (values_from is not None)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(kinds))
        if kind == "flip" and data:
            bit = draw(st.integers(0, 8 * len(data) - 1))
            data[bit // 8] ^= 1 << (bit % 8)
        elif kind == "cut":
            del data[draw(st.integers(0, len(data))) :]
        elif kind == "extend":
            data += draw(st.binary(min_size=1, max_size=8))
        elif kind == "splice":
            data = bytearray(draw(mutated([bytes(data)], byte_pieces(), max_edits=2)))
        elif kind == "header" and len(data) >= 4 * fields:
            field = draw(st.integers(0, fields - 1))
            value = draw(st.one_of(st.integers(0, 70), st.integers(0, 2**32 - 1)))
            struct.pack_into("<I", data, 4 * field, value)
        elif kind == "value" and len(data) >= values_from + 4:
            at = values_from + 4 * draw(st.integers(0, (len(data) - values_from) // 4 - 1))
            data[at : at + 4] = draw(st.sampled_from(ODD_FLOATS))
    return bytes(data)


@pytest.mark.slow
@given(
    st.one_of(
        damaged_bytes(NETWORK, fields=HEADER_BYTES // 4, values_from=HEADER_BYTES),
        st.binary(max_size=64),
        st.just(b""),
    )
)
@fuzz_settings(400)
def test_network_files_are_loaded_or_refused_with_the_projects_errors(
    folder: Path, content: bytes
) -> None:
    path = folder / "net.bin"
    path.write_bytes(content)
    try:
        params = load_network(path, game_numbers.TIGERS)
    except SamuelError:
        event("refused")
        return
    event("accepted")
    assert params.dtype == np.float32 and network_of(params) == network_shape(0)


@given(damaged_bytes(ZERO_NETWORK, fields=ZERO_HEADER_BYTES // 4, values_from=ZERO_HEADER_BYTES))
@fuzz_settings(200)
def test_zero_network_files_are_loaded_or_refused_with_the_projects_errors(
    folder: Path, content: bytes
) -> None:
    path = folder / "zero.bin"
    path.write_bytes(content)
    try:
        params = load_zero_network(path, game_numbers.TIGERS)
    except SamuelError:
        event("refused")
        return
    event("accepted")
    shape = zero_network_shape(0)
    assert params.dtype == np.float32 and network_of(params) == shape
    assert np.all(np.isfinite(params))
    scratch = np.zeros(shape.forward_scratch, dtype=np.float32)
    active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)
    values = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.float32)
    for position in POSITIONS[:5]:  # finite weights may still overflow: only the size counts
        state = position.encode()
        count = game_kernels.zero_network_inputs(0, state, active, values)
        legal = np.unique(legal_actions(0, state)[1])
        logits = np.zeros(len(legal), dtype=np.float32)
        zero_forward(params, active, values, count, legal, len(legal), logits, scratch)


# --- classic weights files ------------------------------------------------------------------

CLASSIC = json.dumps({"weights": dict(zip(FEATURES, load_weights().tolist(), strict=True))})
JSON_ALPHABET = '{}[]":,.-+eE0123456789 \ntruefalsnNIinfity' + "".join(FEATURES[:3])
# Numbers a weight might be that are not finite floats, or not numbers: json reads 1e400 as inf
# and 10**400 as an int no float holds.
ODD_JSON = st.sampled_from([10**400, -(10**400), 2**1024, 1e308, math.nan, math.inf, True, "1"])
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=4), ODD_JSON),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=4,
)


@st.composite
def reweighted(draw) -> str:
    """The classic weights document with one change: a weight set to any JSON value, a weight
    removed or one added, the weights object or the whole document replaced."""
    weights = json.loads(CLASSIC)["weights"]
    document: object = {"weights": weights}
    change = draw(st.sampled_from(("set", "remove", "add", "weights", "document")))
    if change == "set":
        weights[draw(st.sampled_from(FEATURES))] = draw(st.one_of(ODD_JSON, JSON_VALUES))
    elif change == "remove":
        del weights[draw(st.sampled_from(FEATURES))]
    elif change == "add":
        weights[draw(st.text(max_size=6))] = draw(JSON_VALUES)
    elif change == "weights":
        document = {"weights": draw(JSON_VALUES)}
    else:
        document = draw(JSON_VALUES)
    return json.dumps(document)


@pytest.mark.slow
@given(
    st.one_of(
        reweighted().map(str.encode),
        text_inputs([CLASSIC], JSON_ALPHABET).map(lambda text: text.encode("utf-8", "replace")),
        damaged_bytes(CLASSIC.encode()),
    )
)
@example(b"[" * 100_000)  # was RecursionError
@example(CLASSIC.replace("-0.3", "1" * 400).encode())  # was OverflowError (no float holds it)
@fuzz_settings(500)
def test_classic_weights_files_are_loaded_or_refused_with_the_projects_errors(
    folder: Path, content: bytes
) -> None:
    path = folder / "weights.json"
    path.write_bytes(content)
    try:
        weights = load_weights(path)
    except SamuelError:
        event("refused")
        return
    event("accepted")
    assert weights.dtype == np.float64 and weights.shape == (len(FEATURES),)
    assert np.all(np.isfinite(weights))
    for position in POSITIONS[:5]:
        scratch = np.zeros(len(FEATURES), dtype=np.float64)
        classic_evaluate(*map(int, position.encode()), weights, scratch)


# --- labelled positions (.npz) --------------------------------------------------------------


def labelled_positions() -> dict[str, np.ndarray]:
    """The arrays of a small valid data set (the random games' positions), as ``samuel
    selfplay`` writes them."""
    rng = np.random.default_rng(5)
    count = len(POSITIONS)
    return {
        "states": np.array([position.encode() for position in POSITIONS], dtype=np.int64),
        "results": rng.integers(-1, 2, count).astype(np.int8),
        "games": (np.arange(count) // 8).astype(np.int32),
        "plies": (np.arange(count) % 8).astype(np.int16),
        "random_moves": rng.random(count) < 0.2,
        "scores": rng.uniform(-1, 1, count).astype(np.float32),
        "config": np.array(json.dumps({"games": 3, "player": "classic:depth=1"})),
    }


LABELLED_POSITIONS = labelled_positions()
# Values a damaged array may hold: a point past the board (1 << 25), bits far past it, negative
# masks and counts, more sheep than there are, a side that is neither, not-a-number.
ODD_NUMBERS = [-1, 2, 3, 21, 25, 127, 1 << 25, 1 << 30, 2**62, -(2**63), math.nan, math.inf]
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint64, np.float32, np.float64, np.bool_]
DTYPES += ["<U4", "S2", np.complex64, object]


def odd_state(draw, states: np.ndarray) -> tuple[np.ndarray, str]:
    """``states`` with one row made impossible: masks off the board or overlapping, too many
    sheep, a side to move that is neither; what the kernels index their tables with."""
    states = states.copy()
    row = draw(st.integers(0, len(states) - 1))
    column = draw(st.integers(0, 3))
    value = draw(
        st.one_of(
            st.sampled_from([v for v in ODD_NUMBERS if isinstance(v, int)]),
            st.just(int(states[row, 1 - column % 2])),  # for a mask: the other, overlapping
            st.integers(-(2**63), 2**63 - 1),
        )
    )
    if states.dtype.kind in "iu":  # states already of a damaged integer type: what it holds
        limits = np.iinfo(states.dtype)
        value = min(max(value, int(limits.min)), int(limits.max))
    states[row, column] = value
    return states, f"states[{row}, {column}] = {value}"


def reshaped(array: np.ndarray, shape: str) -> np.ndarray:
    """``array`` as one number, flat, one column, empty or transposed."""
    if shape == "scalar":
        return np.asarray(array.reshape(-1)[0] if array.size else array.reshape(-1)[:0].sum())
    if shape == "flat":
        return array.reshape(-1)
    if shape == "column":
        return array.reshape(-1, 1)
    if shape == "empty":
        return array.reshape(-1)[:0]
    return array.T


@st.composite
def damaged_arrays(draw) -> tuple[dict[str, np.ndarray], list[str]]:
    """The valid data set's arrays with 1 to 3 changes, and notes saying which: an array
    dropped, added, given another dtype or shape, cut short, one value made odd, a state made
    impossible, or the config made not JSON."""
    arrays = dict(LABELLED_POSITIONS)
    notes = []
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from([*LABELLED_POSITIONS, "extra"]))
        change = draw(st.sampled_from(("drop", "dtype", "shape", "rows", "value", "state")))
        if name not in arrays:
            arrays[name] = np.zeros(3)
            change = "add"
        elif change == "drop":
            del arrays[name]
        elif change == "dtype":
            dtype = draw(st.sampled_from(DTYPES))
            try:
                arrays[name] = arrays[name].astype(dtype)
            except (ValueError, TypeError):  # text that is not a number
                arrays[name] = np.zeros(arrays[name].shape, dtype=dtype)
            change = f"dtype {np.dtype(dtype)}"
        elif change == "shape":
            shape = draw(st.sampled_from(("scalar", "flat", "column", "empty", "transposed")))
            arrays[name] = reshaped(arrays[name], shape)
            change = f"shape {shape}"
        elif change == "rows" and arrays[name].ndim:
            rows = draw(st.integers(0, len(arrays[name])))
            arrays[name] = arrays[name][:rows]
            change = f"{rows} rows"
        elif change == "value" and name == "config":
            text = draw(st.sampled_from(["", "{", "[1, 2]", "3", "null", '"x"', "NaN"]))
            arrays[name] = np.array(text)
            change = f"config {text!r}"
        elif change == "value" and arrays[name].size:
            flat = arrays[name].reshape(-1).copy()
            at = draw(st.integers(0, flat.size - 1))
            value = draw(st.sampled_from(ODD_NUMBERS))
            with contextlib.suppress(ValueError, OverflowError):  # a value the dtype cannot hold
                flat[at] = value
            arrays[name] = flat.reshape(arrays[name].shape)
            change = f"[{at}] = {value}"
        elif change == "state" and "states" in arrays and arrays["states"].shape[1:] == (4,):
            if len(arrays["states"]):
                arrays["states"], change = odd_state(draw, arrays["states"])
                name = ""
        notes.append(f"{name} {change}".strip())
    return arrays, notes


class DamagedFile:
    """A file's bytes and what was done to make them, which is all a failure shows of it."""

    def __init__(self, content: bytes, note: str) -> None:
        self.content = content
        self.note = note

    def __repr__(self) -> str:
        return f"<{len(self.content)} bytes: {self.note}>"


def npz_bytes(arrays: dict[str, np.ndarray], compressed: bool = False) -> bytes:
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, **arrays)
    return buffer.getvalue()


def labelled_positions_with(note: str, **arrays: np.ndarray) -> DamagedFile:
    """The valid data set with some arrays replaced or added."""
    return DamagedFile(npz_bytes({**LABELLED_POSITIONS, **arrays}), note)


def out_of_range_states() -> np.ndarray:
    states = LABELLED_POSITIONS["states"].copy()
    states[0, 0] = 1 << 30  # `samuel tune` crashed on this (issue 10, item 9)
    return states


def flipped(content: bytes, at: int, bits: int) -> bytes:
    damaged = bytearray(content)
    damaged[at] ^= bits
    return bytes(damaged)


# Failures found by fuzzing, kept as fixed examples so that each is tried on every run.
LABELLED_POSITIONS_EXAMPLES = [
    DamagedFile(b"", "empty"),  # was EOFError
    DamagedFile(npz_bytes(LABELLED_POSITIONS)[:100], "cut short"),  # was zipfile.BadZipFile
    # A bit of the first array's numbers flipped: the zip's CRC-32 no longer matches.
    DamagedFile(flipped(npz_bytes(LABELLED_POSITIONS), 200, 1), "a bit flipped"),
    # A byte of the first array's compressed stream changed (was zlib.error).
    DamagedFile(
        flipped(npz_bytes(LABELLED_POSITIONS, compressed=True), 101, 0xFF), "a byte changed"
    ),
    labelled_positions_with("results a number", results=np.int8(1)),  # was TypeError (len)
    labelled_positions_with("config not JSON", config=np.array("{")),  # was JSONDecodeError
    labelled_positions_with("an extra array", extra=np.zeros(3)),  # was TypeError
    labelled_positions_with("a tiger off the board", states=out_of_range_states()),
]


@st.composite
def labelled_positions_files(draw) -> DamagedFile:
    """A ``.npz`` file of damaged arrays, itself maybe damaged (cut, bits flipped, bytes
    added), or arbitrary bytes."""
    if draw(st.integers(0, 9)) == 0:
        content = draw(st.binary(max_size=100))
        return DamagedFile(content, f"the bytes {content!r}")
    arrays, notes = draw(damaged_arrays()) if draw(st.integers(0, 4)) else (LABELLED_POSITIONS, [])
    compressed = draw(st.booleans())
    content = npz_bytes(arrays, compressed)
    notes.append("compressed" if compressed else "stored")
    if draw(st.integers(0, 3)) == 0:
        damaged = draw(damaged_bytes(content))
        notes.append(f"then damaged ({len(content)} -> {len(damaged)} bytes)")
        content = damaged
    return DamagedFile(content, ", ".join(notes))


def assert_states_are_positions(states: np.ndarray) -> None:
    """Assert that every row of ``states`` is a position (see :func:`check_position`)."""
    assert states.dtype == np.int64 and states.ndim == 2 and states.shape[1] == 4
    tigers, sheep, hand, tiger_to_move = states.T
    assert np.all((tigers & ~FULL) == 0) and np.all((sheep & ~FULL) == 0)
    assert np.all((tigers & sheep) == 0)
    assert all(int(mask).bit_count() == TIGERS for mask in tigers)
    on_board = np.array([int(mask).bit_count() for mask in sheep])
    assert np.all((hand >= 0) & (hand + on_board <= SHEEP))
    assert np.isin(tiger_to_move, (0, 1)).all()


def fuzz_labelled_positions_files(folder: str) -> None:
    """The fuzzing of :func:`samuel.tune.dataset.load_positions`, run in a child process by the
    test below: every accepted file goes through the tuner's compiled features and error
    function. Each input's note is written to stderr before it is tried, so that if a kernel
    crashes the process, the last line says which input did it."""
    from samuel.tune.dataset import load_positions
    from samuel.tune.gradient import (
        error_gradient,
        mean_squared_error,
        result_targets,
        sparse_features,
    )

    weights = load_weights()
    path = Path(folder) / "positions.npz"

    @fuzz_settings(250)
    @given(labelled_positions_files())
    def check(file: DamagedFile) -> None:
        print(f"trying: {file!r}", file=sys.stderr, flush=True)
        path.write_bytes(file.content)
        try:
            data = load_positions(path, "tigers")
        except SamuelError:
            return
        assert_states_are_positions(data.states)  # what the kernels below take unchecked
        assert np.isin(data.results, (-1, 0, 1)).all()
        features = sparse_features(data.states)
        targets = result_targets(data.results)
        assert math.isfinite(mean_squared_error(features, targets, weights, 1.0))
        error, gradient = error_gradient(features, targets, weights, 1.0)
        assert math.isfinite(error) and np.all(np.isfinite(gradient))
        data.subset(data.games % 2 == 0)

    for damaged in LABELLED_POSITIONS_EXAMPLES:
        check = example(damaged)(check)
    check()


@pytest.mark.slow
def test_labelled_positions_files_are_loaded_or_refused_with_the_projects_errors(
    folder: Path,
) -> None:
    # In a child process: the tuner's kernels do no bounds checks, so a state the loader lets
    # through can crash the process, and that must fail this test, not end the test run.
    child = subprocess.run(
        [
            sys.executable,
            "-X",
            "faulthandler",
            "-c",
            "import sys; from tests.test_fuzz import fuzz_labelled_positions_files as fuzz; "
            "fuzz(sys.argv[1])",
            str(folder),
        ],
        cwd=Path(__file__).resolve().parents[1],
        env={**os.environ, "NUMBA_NUM_THREADS": "1"},  # the machine is shared
        capture_output=True,
        text=True,
        timeout=600,
    )
    if child.returncode != 0:
        lines = child.stderr.splitlines()
        tried = [line for line in lines if line.startswith("trying: ")]
        told = [line for line in lines if not line.startswith("trying: ")]
        last = tried[-1] if tried else "(none)"
        crashed = "crashed" if child.returncode < 0 else "failed"
        pytest.fail(
            f"the fuzzing {crashed} (exit status {child.returncode}); last input {last}\n"
            + "\n".join(told[-100:]),
            pytrace=False,
        )
