"""Backgammon's rules for people and for the rest of the code: positions, rolls, plays, notation
(gnubg's), the board as text. The rules themselves are ``docs/rules-backgammon.md``; the plays of
a roll come from the compiled generator (``kernels.py``), which the tests hold against GNU
Backgammon's own.

>>> start = RULES.initial_position()
>>> str(start), RULES.legal_moves(start), len(RULES.chance_outcomes(start))
('4HPwATDgc/ABMA X -', [], 21)
>>> rolled = RULES.play(start, Roll.parse("3-1"))
>>> len(RULES.legal_moves(rolled))
16
>>> after = RULES.play(rolled, RULES.parse_move("8/5 6/5"))
>>> str(after), after.pips()
('sGfwATDgc/ABMA O -', (163, 167))
"""

from __future__ import annotations

import enum
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from samuel.games.base import (
    MAX_POSITION_CHARS,
    IllegalMoveError,
    NotationError,
    Outcome,
    PositionRules,
    RecordFormat,
    check_length,
    shown,
)
from samuel.games.classic_file import read_weights, write_weights
from samuel.games.dice import TwoDice
from samuel.games.dice_plays import CompiledPlays

from . import DESCRIPTOR, kernels
from .board import (
    BAR,
    CHECKERS,
    COUNT_SHIFT,
    DICE_MASK,
    DICE_SHIFT,
    HOME,
    MAX_PLAYS,
    MAX_STEPS,
    POINTS,
    ROLL_FLAG,
    SLOT_BITS,
    SLOT_MASK,
    STATE_WORDS,
    STEP_BITS,
    STEP_MASK,
    TURN_BIT,
)
from .notation import (
    board_of_position_id,
    check_move_text,
    format_steps,
    parse_steps,
    position_id,
    sorted_steps,
    step_of,
    step_value,
)

X, O = 0, 1  # the sides as side_to_move and Outcome.winner number them
START = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
FEATURES = ("pips", "blots", "points", "home_points", "prime", "bar", "off", "turn")
DEFAULT_WEIGHTS_FILE = Path(__file__).with_name("classic_weights.json")
_MASK = (1 << 64) - 1


class Termination(enum.Enum):
    """How a position by itself ends a game (the text of a record's Termination tag)."""

    BORNE_OFF = "all fifteen checkers borne off"


@dataclass(frozen=True, slots=True)
class Roll(TwoDice):
    """A throw of the two dice, the high die first: ``3-1``, ``6-6`` (21 of them)."""

    FACES: ClassVar[int] = 6
    CODE_BASE: ClassVar[int] = ROLL_FLAG


@dataclass(frozen=True, slots=True)
class Play:
    """A turn's checker moves: its steps ``(start, to, hit)`` in the mover's numbering (start 25
    the bar, to 0 off), sorted. The empty play is a pass. A play read from text may hold a
    segment of more than one die (``24/13``); the rules match it to a legal play."""

    steps: tuple[tuple[int, int, bool], ...]

    def __post_init__(self) -> None:
        if len(self.steps) > MAX_STEPS or tuple(self.steps) != sorted_steps(self.steps):
            raise ValueError(f"a play is at most four steps, sorted, not {self.steps!r}")
        for start, to, _ in self.steps:
            if not 0 <= to < start <= BAR:
                raise ValueError(f"a step goes from a point 1-25 to a lower one, not {start}/{to}")

    @property
    def code(self) -> int:
        code = len(self.steps) << COUNT_SHIFT
        for k, step in enumerate(self.steps):
            code |= step_value(step) << (STEP_BITS * k)
        return code

    @classmethod
    def from_code(cls, code: int) -> Play:
        count = (code >> COUNT_SHIFT) & 7
        if code < 0 or code >> (COUNT_SHIFT + 3) or count > MAX_STEPS:
            raise ValueError(f"{code} is the code of no play of backgammon")
        if code >> (STEP_BITS * count) != count << (COUNT_SHIFT - STEP_BITS * count):
            raise ValueError(f"{code} is the code of no play of backgammon")
        try:
            return cls(tuple(step_of((code >> (STEP_BITS * k)) & STEP_MASK) for k in range(count)))
        except ValueError:
            raise ValueError(f"{code} is the code of no play of backgammon") from None

    @classmethod
    def parse(cls, text: str) -> Play:
        return cls(parse_steps(check_move_text(text)))

    def __str__(self) -> str:
        return format_steps(self.steps)

    def transformed(self, symmetry: int) -> Play:
        return self  # each side counts its own points: swapping the colours changes no play


def code_to_play(code: int) -> Play | Roll:
    if isinstance(code, bool) or not isinstance(code, int | np.integer):
        raise ValueError(f"a move's code is an integer, not {code!r}")
    return _move_of(int(code))


@functools.lru_cache(maxsize=1 << 16)
def _move_of(code: int) -> Play | Roll:
    """The play or roll of a code, remembered (an analysis names every play of a position,
    each time it is asked; plays and rolls are immutable)."""
    if code >= 0 and code & ROLL_FLAG:
        rest = code ^ ROLL_FLAG
        try:
            if rest > DICE_MASK:
                raise ValueError
            return Roll(rest // 10, rest % 10)
        except ValueError:
            raise ValueError(f"{code} is the code of no roll") from None
    return Play.from_code(code)


def _mix(h: int) -> int:
    h = (h * 0x9E3779B97F4A7C15) & _MASK
    return h ^ (h >> 32)


@dataclass(frozen=True, slots=True)
class Position:
    """Each side's checkers, 25 counts in its own numbering (points 1-24, then its bar; those
    borne off are the rest of its fifteen), whose turn it is, and the dice: None while they are
    still to roll (a chance node), else the roll being played."""

    x: tuple[int, ...]
    o: tuple[int, ...]
    x_to_move: bool
    dice: Roll | None = None

    def __post_init__(self) -> None:
        for name, side in (("X", self.x), ("O", self.o)):
            if len(side) != 25 or any(not 0 <= c <= CHECKERS for c in side):
                raise ValueError(f"{name}'s checkers are 25 counts 0-15, not {side!r}")
            if sum(side) > CHECKERS:
                raise ValueError(f"{name} has {sum(side)} checkers; a side has fifteen")
        for point in range(1, POINTS + 1):
            if self.x[point - 1] and self.o[POINTS - point]:
                raise ValueError(f"X and O both have checkers on X's point {point}")

    @property
    def mover(self) -> tuple[int, ...]:
        return self.x if self.x_to_move else self.o

    @property
    def opponent(self) -> tuple[int, ...]:
        return self.o if self.x_to_move else self.x

    def off(self, side: int) -> int:
        return CHECKERS - sum(self.x if side == X else self.o)

    def pips(self) -> tuple[int, int]:
        """Each side's pips still to go (X's, O's): the bar counts 25."""
        return tuple(sum(c * (p + 1) for p, c in enumerate(s)) for s in (self.x, self.o))

    def winner(self) -> int | None:
        if self.off(X) == CHECKERS:
            return X
        if self.off(O) == CHECKERS:
            return O
        return None

    def decided_outcome(self) -> Outcome | None:
        winner = self.winner()
        if winner is None:
            return None
        loser = self.o if winner == X else self.x
        points = 1
        if sum(loser) == CHECKERS:  # the loser bore off nothing: a gammon, or a backgammon
            points = 3 if any(loser[POINTS - HOME :]) else 2  # its points 19-24 and its bar
        return Outcome(termination=Termination.BORNE_OFF, winner=winner, points=points)

    def is_chance_node(self) -> bool:
        return self.dice is None and self.winner() is None

    def encode(self) -> np.ndarray:
        words = [0, 0, 0, 0]
        for side, counts in ((X, self.x), (O, self.o)):
            for index, count in enumerate((*counts, CHECKERS - sum(counts))):
                words[2 * side + (index >> 4)] |= count << (SLOT_BITS * (index & 15))
        dice = 0 if self.dice is None else 10 * self.dice.high + self.dice.low
        words[1] |= (int(self.x_to_move) << TURN_BIT) | (dice << DICE_SHIFT)
        # a word's top slot holds a 16th point's checkers: eight or more set the sign bit
        return np.array([w - (1 << 64) if w >> 63 else w for w in words], dtype=np.int64)

    @classmethod
    def decode(cls, state: np.ndarray) -> Position:
        words = [int(w) for w in state[:STATE_WORDS]]
        sides = []
        for side in (X, O):
            slots = [
                (words[2 * side + (i >> 4)] >> (SLOT_BITS * (i & 15))) & SLOT_MASK
                for i in range(25)
            ]
            sides.append(tuple(slots))
        dice = (words[1] >> DICE_SHIFT) & DICE_MASK
        roll = None if dice == 0 else Roll(dice // 10, dice % 10)
        return cls(sides[0], sides[1], bool((words[1] >> TURN_BIT) & 1), roll)

    @property
    def key(self) -> int:
        """The compiled side's key (``kernels.position_key``), bit for bit."""
        h = 0
        for word in self.encode().tolist():
            h = _mix(h ^ word)
        return h - (1 << 64) if h >> 63 else h

    def transformed(self, symmetry: int) -> Position:
        """Symmetry 0 is the identity, 1 swaps the colours (X's checkers become O's and the
        turn passes to the other colour): the first player's value changes sign."""
        if symmetry == 0:
            return self
        if symmetry == 1:
            return Position(self.o, self.x, not self.x_to_move, self.dice)
        raise ValueError(f"backgammon has symmetries 0 and 1, not {symmetry!r}")

    def __str__(self) -> str:
        return format_position(self)


def format_position(position: Position) -> str:
    """``4HPwATDgc/ABMA X 3-1``: gnubg's Position ID (the side on roll's view), the side on roll
    (X or O) and its dice, ``-`` while they are still to roll."""
    side = "X" if position.x_to_move else "O"
    dice = "-" if position.dice is None else str(position.dice)
    return f"{position_id(position.mover, position.opponent)} {side} {dice}"


def parse_position(text: str) -> Position:
    text = check_length(text, "a position", MAX_POSITION_CHARS)
    parts = text.split()
    if len(parts) != 3 or parts[1] not in ("X", "O"):
        raise NotationError(
            f"{shown(text)} is not a backgammon position: write gnubg's Position ID, the side "
            "on roll (X or O) and its dice (- still to roll), as in '4HPwATDgc/ABMA X -' or "
            "'4HPwATDgc/ABMA O 3-1'"
        )
    on_roll, other = board_of_position_id(parts[0])
    dice = None if parts[2] == "-" else Roll.parse(parts[2])
    x_to_move = parts[1] == "X"
    x, o = (on_roll, other) if x_to_move else (other, on_roll)
    position = Position(x, o, x_to_move, dice)
    winner = position.winner()
    if position.off(X) == CHECKERS and position.off(O) == CHECKERS:
        raise NotationError(f"{shown(text)}: both sides cannot have borne off every checker")
    if winner is not None and dice is not None:
        raise NotationError(f"{shown(text)}: the game is over, so there are no dice to play")
    return position


def draw_board(position: Position) -> str:
    """The board from X's side: X's points 13-24 above, 12-1 below, each with its checkers
    (``5X``, ``2O``); O counts the same points from the other side (its point p is X's 25 - p)."""

    def cell(point: int) -> str:
        x, o = position.x[point - 1], position.o[POINTS - point]
        return f"{x}X" if x else f"{o}O" if o else " ."

    def row(points: list[int]) -> str:
        cells = [f"{cell(p):>3}" for p in points]
        return "".join(cells[:6]) + " |" + "".join(cells[6:])

    def numbers(points: list[int]) -> str:
        cells = [f"{p:>3}" for p in points]
        return "".join(cells[:6]) + " |" + "".join(cells[6:])

    top, bottom = list(range(13, 25)), list(range(12, 0, -1))
    x_pips, o_pips = position.pips()
    lines = [
        numbers(top),
        row(top),
        row(bottom),
        numbers(bottom),
        f"bar: X {position.x[BAR - 1]}, O {position.o[BAR - 1]}   "
        f"off: X {position.off(X)}, O {position.off(O)}   pips: X {x_pips}, O {o_pips}",
    ]
    side = "X" if position.x_to_move else "O"
    outcome = position.decided_outcome()
    if outcome is not None:
        what = RULES.outcome_classes[outcome.points]
        lines.append(f"{'XO'[outcome.winner]} has won ({what})")
    elif position.dice is None:
        lines.append(f"{side} to roll")
    else:
        lines.append(f"{side} to play {position.dice}")
    return "\n".join(lines)


class Backgammon(CompiledPlays, PositionRules):
    """The :class:`~samuel.games.base.GameRules` of backgammon (``docs/rules-backgammon.md``)."""

    name = DESCRIPTOR.name
    title = DESCRIPTOR.title
    number = DESCRIPTOR.number
    move_type = Play
    sides = DESCRIPTOR.sides
    side_letters = DESCRIPTOR.side_letters
    win_phrases = ("X wins", "O wins")
    view_phrase = "X's view"
    move_help = (
        "type a play as gnubg writes it, in your own numbering: 24/18* 13/11, bar/22, 6/off, "
        "8/5(2); pass when nothing can move"
    )
    max_perft_depth = 4
    symmetry_count = 2
    key_words = STATE_WORDS  # the key stands for the whole position
    terminations = Termination
    record_format = RecordFormat(game_tag="Game", game_value=DESCRIPTOR.title, start_tag="Start")
    outcome_classes = {1: "single game", 2: "gammon", 3: "backgammon"}  # noqa: RUF012
    kernels = kernels
    position_type = Position
    play_type = Play
    roll_type = Roll
    max_plays = MAX_PLAYS
    state_words = STATE_WORDS

    def __repr__(self) -> str:
        return "Backgammon()"

    def initial_position(self) -> Position:
        return Position(START, START, True, None)

    def play(self, position: Position, move: Play | Roll) -> Position:
        if isinstance(move, Roll):
            if not position.is_chance_node():
                why = "the game is over" if position.winner() is not None else "the dice are rolled"
                raise IllegalMoveError(f"{move} is not a roll to throw here: {why}")
            return Position(position.x, position.o, position.x_to_move, move)
        if not isinstance(move, Play):
            raise TypeError(f"backgammon plays a Play or a Roll, not {move!r}")
        if position.winner() is not None:
            raise IllegalMoveError(f"{move} is not legal: the game is over")
        if position.dice is None:
            raise IllegalMoveError(f"{move} is not legal: the dice are still to roll")
        state, codes = self._codes(position)
        if move.code in codes:  # a legal play as the generator writes it: one child to make
            return self._after(state, move.code)
        plays = self.plays(position)
        reached = _after_segments(position, move)
        for child in plays.values():
            if child == reached:
                return child
        legal = ", ".join(map(str, plays))
        raise IllegalMoveError(f"{move} is not legal: with {position.dice} the plays are {legal}")

    def resolve(self, position: Position, move: Play) -> Play:
        """The legal play that ``move`` (perhaps as gnubg writes it, ``24/13``) stands for."""
        child = self.play(position, move)
        return next(p for p, c in self.plays(position).items() if c == child)

    def side_to_move(self, position: Position) -> int:
        return X if position.x_to_move else O

    def is_irreversible(self, position: Position, move: Play | Roll) -> bool:
        return True  # no repetition rule: passes end when a number enters (compiled.py)

    def move_from_code(self, code: int) -> Play | Roll:
        return code_to_play(code)

    def parse_move(self, text: str) -> Play | Roll:
        text = check_move_text(text)
        if re.fullmatch(r"[1-6]-[1-6]", text):
            return Roll.parse(text)
        return Play.parse(text)

    def parse_position(self, text: str) -> Position:
        if text.strip() == "start":
            return self.initial_position()
        return parse_position(text)

    def format_position(self, position: Position) -> str:
        return format_position(position)

    def draw_board(self, position: Position) -> str:
        return draw_board(position)

    def classic_weights(self, path: str | os.PathLike | None = None) -> np.ndarray:
        return read_weights(DEFAULT_WEIGHTS_FILE if path is None else path, FEATURES)

    def save_classic_weights(self, weights: np.ndarray, path, note: str = "") -> None:
        write_weights(weights, path, FEATURES, note)

    def perft(self, position: Position, depth: int) -> int:
        """Backgammon's perft (``kernels.perft``): from a position with the dice to roll, over
        the 21 rolls, each once, the distinct plays (a pass is a play); a roll is no ply.

        >>> [RULES.perft(RULES.initial_position(), d) for d in (1, 2)]
        [447, 202782]
        """
        if not 0 <= depth <= self.max_perft_depth:
            raise ValueError(f"perft depth must be 0 to {self.max_perft_depth}, not {depth!r}")
        return int(kernels.perft(position.encode(), depth))


def _after_segments(position: Position, play: Play) -> Position | None:
    """The position ``play``'s segments leave, each from its start to its end (hitting a blot
    where it lands), or None if one cannot be made; legality is the caller's business."""
    mine = list(position.mover)
    theirs = list(position.opponent)
    for start, to, _ in play.steps:
        if mine[start - 1] == 0:
            return None
        mine[start - 1] -= 1
        if to == 0:
            continue
        theirs_index = POINTS - to
        if theirs[theirs_index] >= 2:
            return None
        if theirs[theirs_index] == 1:
            theirs[theirs_index] = 0
            theirs[BAR - 1] += 1
        mine[to - 1] += 1
    mine_t, theirs_t = tuple(mine), tuple(theirs)
    x, o = (mine_t, theirs_t) if position.x_to_move else (theirs_t, mine_t)
    return Position(x, o, not position.x_to_move, None)


RULES = Backgammon()
__all__ = ["RULES", "Backgammon", "Play", "Position", "Roll"]
