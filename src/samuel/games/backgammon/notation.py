"""Backgammon's notation as GNU Backgammon writes it: plays (``24/18* 13/11``, ``bar/22``,
``6/off``, ``8/5(2)``) in the mover's numbering, and Position IDs (14 characters).

A play here is its steps, one a die, each ``(start, to, hit)`` with start 25 for the bar and to 0
for off (``board.py`` packs a step into 11 bits). Written, a checker's steps are chained
(``24/18*/13``: it hit on 18 and moved on), and equal chains are counted (``13/7(2)``), so the
text names every step: reading it back gives the same steps. gnubg reads such text, and writes
chains without the points where nothing was hit (``24/13``): Samuel reads that too, as one
segment, which the rules then match to a legal play by the position it leaves.
"""

from __future__ import annotations

import base64
import functools
import re
from dataclasses import dataclass

from samuel.games.base import MAX_MOVE_CHARS, MAX_POSITION_CHARS, NotationError, shown

from .board import BAR, CHECKERS, FROM_SHIFT, MAX_STEPS, POINT_MASK, STEP_HIT, TO_SHIFT

Step = tuple[int, int, bool]  # (start 1-25, to 0-24, hit)

_CHAIN = re.compile(
    r"(bar|25|2[0-4]|1[0-9]|[1-9])((?:/(?:off|2[0-4]|1[0-9]|[0-9])\*?)+)(?:\(([1-4])\))?"
)
_LINK = re.compile(r"/(off|\d+)(\*?)")
PASS_TEXT = "pass"


def step_value(step: Step) -> int:
    """The step's 11-bit value (``board.py``): plays sort their steps by it, largest first."""
    start, to, hit = step
    return (start << FROM_SHIFT) | (to << TO_SHIFT) | (STEP_HIT if hit else 0)


def step_of(value: int) -> Step:
    return (value >> FROM_SHIFT) & POINT_MASK, (value >> TO_SHIFT) & POINT_MASK, bool(value & 1)


def sorted_steps(steps) -> tuple[Step, ...]:
    """Steps in a play's order: by value, largest first (the compiled side's order)."""
    return tuple(sorted(steps, key=step_value, reverse=True))


def _point(point: int) -> str:
    return "bar" if point == BAR else "off" if point == 0 else str(point)


def format_steps(steps: tuple[Step, ...]) -> str:
    """``24/18*/13 6/4(2)``: each checker's steps chained, equal chains counted; ``pass`` for
    none."""
    return _format_steps(tuple(steps))


@functools.lru_cache(maxsize=1 << 16)  # an analysis writes every play of a position, each time
def _format_steps(steps: tuple[Step, ...]) -> str:
    if not steps:
        return PASS_TEXT
    rest = list(steps)
    chains: list[str] = []
    while rest:
        start, to, hit = rest.pop(0)
        text = f"{_point(start)}/{_point(to)}{'*' if hit else ''}"
        while to > 0:  # the same checker on, if one of the steps left goes on from here
            follow = next((s for s in rest if s[0] == to), None)
            if follow is None:
                break
            rest.remove(follow)
            _, to, hit = follow
            text += f"/{_point(to)}{'*' if hit else ''}"
        chains.append(text)
    written: list[str] = []
    for chain in dict.fromkeys(chains):  # in order of first appearance
        count = chains.count(chain)
        written.append(chain if count == 1 else f"{chain}({count})")
    return " ".join(written)


def parse_steps(text: str) -> tuple[Step, ...]:
    """The steps of a play's text, sorted; a segment that spans more than one die (gnubg's
    ``24/13``) stays one step, for the rules to match by the position it leaves."""
    text = text.strip().lower()
    if text == PASS_TEXT:
        return ()
    steps: list[Step] = []
    for token in text.split():
        match = _CHAIN.fullmatch(token)
        if not match:
            raise NotationError(
                f"{shown(token)} is not a checker's move: write it as gnubg does, start/end "
                "(points 1-24 in the mover's numbering, bar, off), * for a hit, (2) for two "
                "checkers: 24/18* 13/11, bar/22, 6/off, 8/5(2)"
            )
        start = BAR if match.group(1) in ("bar", "25") else int(match.group(1))
        chain = []
        for link in _LINK.finditer(match.group(2)):
            to = 0 if link.group(1) == "off" else int(link.group(1))
            if not 0 <= to < start:
                raise NotationError(
                    f"{shown(token)}: a checker moves from a higher point to a lower one "
                    f"(towards off), not from {_point(start)} to {_point(to)}"
                )
            chain.append((start, to, link.group(2) == "*"))
            start = to
            if to == 0 and link.end() != len(match.group(2)):
                raise NotationError(f"{shown(token)}: a checker borne off moves no further")
        steps.extend(chain * int(match.group(3) or 1))
    if len(steps) > MAX_STEPS:
        raise NotationError(
            f"{shown(text)} moves {len(steps)} times; a roll plays at most four dice"
        )
    return sorted_steps(steps)


def check_move_text(text: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"a move is text, not {type(text).__name__}")
    text = text.strip()
    if len(text) > MAX_MOVE_CHARS:
        raise NotationError(f"{shown(text)} is too long for a move (at most {MAX_MOVE_CHARS})")
    return text


# -- Position IDs ---------------------------------------------------------------------------------


def position_id(on_roll: tuple[int, ...], opponent: tuple[int, ...]) -> str:
    """gnubg's Position ID of a board: each side's 25 counts (points 1-24 in its own numbering,
    then its bar), the side not on roll first, written as a run of ones per count and a zero,
    80 bits, the first bit the lowest of the first byte, in base 64 without its padding."""
    bits = []
    for counts in (opponent, on_roll):
        for count in counts:
            bits.extend([1] * count + [0])
    key = bytearray(10)
    for i, bit in enumerate(bits):
        if bit:
            key[i // 8] |= 1 << (i % 8)
    return base64.b64encode(bytes(key)).decode("ascii")[:14]


def board_of_position_id(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The board of a Position ID: (the side on roll's 25 counts, the other side's); a
    NotationError saying what is wrong with a malformed one."""
    text = text.strip()
    if len(text) > MAX_POSITION_CHARS:
        raise NotationError(f"{shown(text)} is too long for a Position ID (14 characters)")
    if not re.fullmatch(r"[A-Za-z0-9+/]{14}", text):
        raise NotationError(
            f"{shown(text)} is not a Position ID: 14 characters of A-Z, a-z, 0-9, + and / "
            "(the start is 4HPwATDgc/ABMA)"
        )
    key = base64.b64decode(text + "==")
    bits = [(key[i // 8] >> (i % 8)) & 1 for i in range(80)]
    counts: list[int] = []
    run = 0
    for bit in bits:
        if len(counts) == 50:
            if bit:
                raise NotationError(f"{shown(text)} is not a Position ID: it has bits to spare")
            continue
        if bit:
            run += 1
        else:
            counts.append(run)
            run = 0
    if len(counts) < 50:
        raise NotationError(f"{shown(text)} is not a Position ID: it describes too many checkers")
    opponent, on_roll = tuple(counts[:25]), tuple(counts[25:])
    for name, side in (("the side on roll", on_roll), ("the other side", opponent)):
        if sum(side) > CHECKERS:
            raise NotationError(
                f"{shown(text)}: {name} has {sum(side)} checkers; a side has {CHECKERS}"
            )
    for point in range(1, 25):  # a side's point p is the other's 25 - p: both cannot hold it
        if on_roll[point - 1] and opponent[24 - point]:
            raise NotationError(f"{shown(text)}: both sides have checkers on one point")
    return on_roll, opponent


# -- Match IDs ------------------------------------------------------------------------------------

GAME_STATES = ("no game", "playing", "over", "resigned", "dropped")  # gnubg's numbers 0-4
MAX_MATCH_LENGTH = (1 << 15) - 1


@dataclass(frozen=True)
class MatchState:
    """What gnubg's Match ID says beside the board: the cube, whose turn, the dice, the match
    length (0: money play) and the score. Sides are Samuel's (0 X, 1 O); gnubg numbers X as
    its player 1 and O as its player 0, as its board draws them."""

    cube: int = 1  # the cube's value: 1, 2, 4 ... 2**15
    cube_owner: int | None = None  # the side that owns it; None while it is centred
    on_roll: int = 0  # the side on roll
    crawford: bool = False  # this is the Crawford game
    game_state: int = 1  # GAME_STATES' index: 1 a game under way
    turn: int = 0  # the side to decide now (the one doubled, once a double is offered)
    doubled: bool = False  # a double is offered
    resigned: int = 0  # 0, or what a resignation offers: 1 single, 2 gammon, 3 backgammon
    dice: tuple[int, int] = (0, 0)  # the dice thrown, (0, 0) before
    match_length: int = 0  # 0: money play
    score: tuple[int, int] = (0, 0)  # X's, O's
    jacoby: bool = True  # money play's Jacoby rule (gnubg writes the flag for matches off)

    def __post_init__(self) -> None:
        cube_log = self.cube.bit_length() - 1
        checks = [
            (self.cube >= 1 and self.cube == 1 << cube_log and cube_log < 16, "cube 1, 2, 4 ..."),
            (self.cube_owner in (None, 0, 1), "cube owner 0, 1 or None"),
            (self.on_roll in (0, 1) and self.turn in (0, 1), "sides 0 and 1"),
            (0 <= self.game_state < len(GAME_STATES), "a game state 0-4"),
            (0 <= self.resigned <= 3, "a resignation 0-3"),
            (all(0 <= d <= 6 for d in self.dice) and (0 in self.dice) == (self.dice == (0, 0)),
             "dice 1-6, or (0, 0)"),
            (0 <= self.match_length <= MAX_MATCH_LENGTH, "a match length 0-32767"),
            (all(0 <= s <= MAX_MATCH_LENGTH for s in self.score), "scores 0-32767"),
        ]  # fmt: skip
        for ok, what in checks:
            if not ok:
                raise ValueError(f"a match state has {what}: {self!r}")


def _gnubg_player(side: int) -> int:
    return 1 - side


def match_id(state: MatchState) -> str:
    """gnubg's Match ID (12 characters): the fields' bits, the lowest first, in 9 bytes."""
    fields = [
        (state.cube.bit_length() - 1, 4),
        (3 if state.cube_owner is None else _gnubg_player(state.cube_owner), 2),
        (_gnubg_player(state.on_roll), 1),
        (int(state.crawford), 1),
        (state.game_state, 3),
        (_gnubg_player(state.turn), 1),
        (int(state.doubled), 1),
        (state.resigned, 2),
        (state.dice[0], 3),
        (state.dice[1], 3),
        (state.match_length, 15),
        (state.score[1], 15),  # gnubg's player 0 (O) first
        (state.score[0], 15),
        (int(not state.jacoby), 1),
    ]
    value, shift = 0, 0
    for number, width in fields:
        value |= number << shift
        shift += width
    return base64.b64encode(value.to_bytes(9, "little")).decode("ascii")


def parse_match_id(text: str) -> MatchState:
    """The match state of a Match ID; a NotationError saying what is wrong with a bad one."""
    text = text.strip()
    if not re.fullmatch(r"[A-Za-z0-9+/]{12}", text):
        raise NotationError(
            f"{shown(text)} is not a Match ID: 12 characters of A-Z, a-z, 0-9, + and / "
            "(a money game about to start is cAkAAAAAAAAA)"
        )
    value = int.from_bytes(base64.b64decode(text), "little")
    widths = (4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15, 1)
    numbers = []
    for width in widths:
        numbers.append(value & ((1 << width) - 1))
        value >>= width
    cube_log, owner, on_roll, crawford, game_state, turn, doubled, resigned = numbers[:8]
    die1, die2, length, score0, score1, jacoby_off = numbers[8:]
    if value:
        raise NotationError(f"{shown(text)} is not a Match ID: it sets bits past the last field")
    try:
        return MatchState(
            cube=1 << cube_log,
            cube_owner=None if owner == 3 else _gnubg_player(owner),
            on_roll=_gnubg_player(on_roll),
            crawford=bool(crawford),
            game_state=game_state,
            turn=_gnubg_player(turn),
            doubled=bool(doubled),
            resigned=resigned,
            dice=(die1, die2),
            match_length=length,
            score=(score1, score0),
            jacoby=not jacoby_off,
        )
    except ValueError as error:
        raise NotationError(f"{shown(text)} is not a Match ID: {error}") from None
