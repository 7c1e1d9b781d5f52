"""Race's rules for people and for the rest of the code, in plain Python: positions, rolls,
moves, notation. The rules are in this package's docstring (``tests/race/__init__.py``).

Nothing here calls the compiled side (``compiled.py``), so comparing the two is a real test.

>>> start = RULES.initial_position()
>>> str(start), RULES.legal_moves(start), len(RULES.chance_outcomes(start))
('00/00 R -', [], 6)
>>> rolled = RULES.play(start, Roll.parse("2-1"))
>>> [str(m) for m in RULES.legal_moves(rolled)]
['a3', 'a2b1']
>>> str(RULES.play(rolled, Move.parse("a2b1")))
'12/00 G -'
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from samuel.games.base import (
    MAX_MOVE_CHARS,
    MAX_POSITION_CHARS,
    IllegalMoveError,
    NotationError,
    Outcome,
    PositionRules,
    RecordFormat,
    check_length,
    shown,
)
from samuel.games.dice import TwoDice

from . import DESCRIPTOR

OFF = 6  # the end of the track: a counter on point 6 is borne off
FACES = 3  # the dice are three-sided
RED, GREEN = 0, 1  # the sides as side_to_move and Outcome.winner number them
ROLL_CODE = 100  # a roll's code is 100 + 10 * high + low: above every move's (below 64)
PIP_BITS = 3  # a move's code is rear pips * 8 + front pips
STATE_WORDS = 6  # red rear, red front, green rear, green front, red to move, dice (10h + l)


class Termination(enum.Enum):
    """How a position by itself ends a game of Race (the text of a record's Termination tag)."""

    BORNE_OFF = "both counters borne off"


@dataclass(frozen=True, slots=True)
class Roll(TwoDice):
    """A roll of the two three-sided dice, the high die first: ``2-1`` (six of them)."""

    FACES: ClassVar[int] = FACES
    CODE_BASE: ClassVar[int] = ROLL_CODE


@dataclass(frozen=True, slots=True)
class Move:
    """A play of a roll: the pips the side's rear counter moves, and its front counter's (the
    rear counter is the one on the lower point; with both on one point, either). Written
    ``a3b1`` (rear 3, front 1), ``a4`` (the rear counter takes both dice) or ``b4``."""

    rear: int
    front: int

    def __post_init__(self) -> None:
        most = 2 * FACES
        if not (0 <= self.rear <= most and 0 <= self.front <= most and self.rear + self.front):
            raise ValueError(f"a move's pips are 0 to {most} for each counter, not {self!r}")

    @property
    def code(self) -> int:
        return (self.rear << PIP_BITS) | self.front

    @classmethod
    def parse(cls, text: str) -> Move:
        text = check_length(text, "a move", MAX_MOVE_CHARS)
        match = re.fullmatch(r"(?:a([1-6]))? ?(?:b([1-6]))?", text)
        if not text or not match:
            raise NotationError(
                f"{shown(text)} is not a move: write the pips each counter moves, the rear "
                "counter a, the front one b: a3b1, a4 or b4"
            )
        return cls(int(match.group(1) or 0), int(match.group(2) or 0))

    def __str__(self) -> str:
        return (f"a{self.rear}" if self.rear else "") + (f"b{self.front}" if self.front else "")

    def transformed(self, symmetry: int) -> Move:
        return self  # swapping the colours leaves the pips as they are


def code_to_play(code: int) -> Move | Roll:
    """The roll or move whose code is ``code``."""
    if isinstance(code, bool) or not isinstance(code, int | np.integer):
        raise ValueError(f"a move's code is an integer, not {code!r}")
    code = int(code)
    try:
        if code >= ROLL_CODE:
            rest = code - ROLL_CODE
            return Roll(rest // 10, rest % 10)
        if code < 0 or code >> 2 * PIP_BITS:
            raise ValueError
        return Move(code >> PIP_BITS, code & ((1 << PIP_BITS) - 1))
    except ValueError:
        raise ValueError(f"{code} is the code of no move or roll of Race") from None


def advance(point: int, pips: int) -> int:
    return min(OFF, point + pips)


@dataclass(frozen=True, slots=True)
class Position:
    """The counters (each side's two, lower point first), whose turn it is and the dice: None
    when they are still to be rolled (a chance node), else the roll being played."""

    red: tuple[int, int]
    green: tuple[int, int]
    red_to_move: bool
    dice: Roll | None = None

    def __post_init__(self) -> None:
        for counters in (self.red, self.green):
            if len(counters) != 2 or not 0 <= counters[0] <= counters[1] <= OFF:
                raise ValueError(f"counters are two points 0-6, lower first, not {counters!r}")

    @property
    def mover(self) -> tuple[int, int]:
        return self.red if self.red_to_move else self.green

    def winner(self) -> int | None:
        if self.red[0] == OFF:
            return RED
        if self.green[0] == OFF:
            return GREEN
        return None

    def decided_outcome(self) -> Outcome | None:
        winner = self.winner()
        if winner is None:
            return None
        loser = self.green if winner == RED else self.red
        points = 1 if loser[1] == OFF else 2  # a gammon: the loser bore off no counter
        return Outcome(termination=Termination.BORNE_OFF, winner=winner, points=points)

    def is_chance_node(self) -> bool:
        return self.dice is None and self.winner() is None

    def with_mover(self, counters: tuple[int, int]) -> Position:
        """The position after the side to move plays to ``counters``: the other side to roll."""
        ordered = (min(counters), max(counters))
        if self.red_to_move:
            return Position(ordered, self.green, False, None)
        return Position(self.red, ordered, True, None)

    def plays(self) -> dict[Move, Position]:
        """Every legal move and the position it leaves: one move per position (the one that
        moves the rear counter furthest), in the order of the rear counter's pips, most first."""
        if self.dice is None or self.winner() is not None:
            return {}
        high, low = self.dice.high, self.dice.low
        rear, front = self.mover
        total = high + low
        if front == OFF:  # only the rear counter is on the track: it takes both dice
            splits = [(total, 0)]
        else:
            splits = sorted({(total, 0), (high, low), (low, high), (0, total)}, reverse=True)
        found: dict[Position, Move] = {}
        for pips_rear, pips_front in splits:
            child = self.with_mover((advance(rear, pips_rear), advance(front, pips_front)))
            found.setdefault(child, Move(pips_rear, pips_front))
        return {move: child for child, move in found.items()}

    @property
    def key(self) -> int:
        """The compiled side's key: every word of the encoding, packed (exact, no hash)."""
        words = [int(w) for w in self.encode()]
        return (
            words[0]
            | words[1] << 3
            | words[2] << 6
            | words[3] << 9
            | words[4] << 12
            | words[5] << 13
        )

    def encode(self) -> np.ndarray:
        dice = 0 if self.dice is None else 10 * self.dice.high + self.dice.low
        return np.array([*self.red, *self.green, int(self.red_to_move), dice], dtype=np.int64)

    def transformed(self, symmetry: int) -> Position:
        """Symmetry 0 is the identity, 1 swaps the colours (red's counters become green's and
        the turn passes to the other colour): the first player's value changes sign."""
        if symmetry == 0:
            return self
        if symmetry == 1:
            return Position(self.green, self.red, not self.red_to_move, self.dice)
        raise ValueError(f"Race has symmetries 0 and 1, not {symmetry!r}")

    def __str__(self) -> str:
        return format_position(self)


def format_position(position: Position) -> str:
    """``35/36 R 1-1``: red's counters, green's (the points, lower first, 6 borne off), the side
    to move or to roll (R or G) and the dice (``-`` still to roll)."""
    counters = "".join(map(str, position.red)) + "/" + "".join(map(str, position.green))
    side = "R" if position.red_to_move else "G"
    return f"{counters} {side} {'-' if position.dice is None else position.dice}"


def parse_position(text: str) -> Position:
    text = check_length(text, "a position", MAX_POSITION_CHARS)
    match = re.fullmatch(r"([0-6])([0-6])/([0-6])([0-6]) ([RG]) (-|[1-3]-[1-3])", text)
    if not match:
        raise NotationError(
            f"{shown(text)} is not a Race position: write red's two points, green's, the side to "
            "move (R or G) and the dice (- still to roll), as in '00/00 R -' or '35/36 G 2-1'"
        )
    red = sorted(int(match.group(i)) for i in (1, 2))
    green = sorted(int(match.group(i)) for i in (3, 4))
    dice = None if match.group(6) == "-" else Roll.parse(match.group(6))
    position = Position((red[0], red[1]), (green[0], green[1]), match.group(5) == "R", dice)
    winner = position.winner()
    if red[0] == OFF and green[0] == OFF:
        raise NotationError(f"{shown(text)}: both sides cannot have borne off both counters")
    if winner is not None and winner == (RED if position.red_to_move else GREEN):
        raise NotationError(f"{shown(text)}: the side that bore off both counters has won")
    if winner is not None and dice is not None:
        raise NotationError(f"{shown(text)}: the game is over, so there are no dice to play")
    return position


def draw_board(position: Position) -> str:
    """The track as text: each side's counters on points 0-6 (6 is borne off)."""
    lines = ["       0 1 2 3 4 5 | off"]
    for name, counters in (("red", position.red), ("green", position.green)):
        cells = [str(counters.count(p)) if p in counters else "." for p in range(OFF)]
        off = counters.count(OFF)
        lines.append(f"{name:<6} {' '.join(cells)} | {off}")
    side = "red" if position.red_to_move else "green"
    if position.decided_outcome() is not None:
        outcome = position.decided_outcome()
        what = RULES.outcome_classes[outcome.points]
        lines.append(f"{DESCRIPTOR.sides[outcome.winner]} has won ({what})")
    elif position.dice is None:
        lines.append(f"{side} to roll")
    else:
        lines.append(f"{side} to move, rolled {position.dice}")
    return "\n".join(lines)


def classic_features(position: Position) -> list[int]:
    """The classic evaluation's features, first player's view: green's pips to go less red's,
    and +1 when red is to move or roll (-1 when green is)."""
    red_pips = sum(OFF - p for p in position.red)
    green_pips = sum(OFF - p for p in position.green)
    return [green_pips - red_pips, 1 if position.red_to_move else -1]


# A pip is worth about an eighth of a point and the turn a quarter (half a roll: 2 pips).
CLASSIC_WEIGHTS = (0.125, 0.25)


class Race(PositionRules):
    """The :class:`~samuel.games.base.GameRules` of Race (``tests/race/__init__.py``)."""

    name = DESCRIPTOR.name
    title = DESCRIPTOR.title
    number = DESCRIPTOR.number
    move_type = Move
    sides = DESCRIPTOR.sides
    side_letters = DESCRIPTOR.side_letters
    win_phrases = ("red wins", "green wins")
    view_phrase = "red's view"
    move_help = "type a roll as 2-1 and a move as the pips of each counter: a3b1, a4 or b4"
    max_perft_depth = 12
    symmetry_count = 2
    key_words = STATE_WORDS  # the key is the whole position
    terminations = Termination
    record_format = RecordFormat(game_tag="Game", game_value=DESCRIPTOR.title, start_tag="Start")
    outcome_classes = {1: "single game", 2: "gammon"}  # noqa: RUF012

    def __repr__(self) -> str:
        return "Race()"

    def initial_position(self) -> Position:
        return Position((0, 0), (0, 0), True, None)

    def legal_moves(self, position: Position) -> list[Move]:
        return list(position.plays())

    def chance_outcomes(self, position: Position) -> list[tuple[Roll, float]]:
        if not position.is_chance_node():
            return []
        return [(roll, float(roll.probability)) for roll in Roll.all()]

    def play(self, position: Position, move: Move | Roll) -> Position:
        if isinstance(move, Roll):
            if not position.is_chance_node():
                why = "the game is over" if position.winner() is not None else "dice are rolled"
                raise IllegalMoveError(f"{move} is not legal here: {why}")
            return Position(position.red, position.green, position.red_to_move, move)
        if not isinstance(move, Move):
            raise TypeError(f"Race plays a Move or a Roll, not {move!r}")
        plays = position.plays()
        if move not in plays:
            if position.winner() is not None:
                why = "the game is over"
            elif position.dice is None:
                why = "the dice are still to roll"
            else:
                legal = ", ".join(map(str, plays))
                why = f"with {position.dice} the moves are {legal}"
            raise IllegalMoveError(f"{move} is not legal: {why}")
        return plays[move]

    def side_to_move(self, position: Position) -> int:
        return RED if position.red_to_move else GREEN

    def is_irreversible(self, position: Position, move: Move | Roll) -> bool:
        return True  # counters only advance, and a roll is never unrolled

    def move_from_code(self, code: int) -> Move | Roll:
        return code_to_play(code)

    def parse_move(self, text: str) -> Move | Roll:
        stripped = check_length(text, "a move", MAX_MOVE_CHARS)
        return Roll.parse(stripped) if "-" in stripped else Move.parse(stripped)

    def parse_position(self, text: str) -> Position:
        return parse_position(text)

    def format_position(self, position: Position) -> str:
        return format_position(position)

    def draw_board(self, position: Position) -> str:
        return draw_board(position)

    def classic_weights(self, path: str | None = None) -> np.ndarray:
        if path is not None:
            raise ValueError("Race's classic weights are built in; there is no weights file")
        return np.array(CLASSIC_WEIGHTS, dtype=np.float64)

    def perft(self, position: Position, depth: int) -> int:
        """Sequences of ``depth`` plies from ``position``, a roll counting as a ply."""
        if not 0 <= depth <= self.max_perft_depth:
            raise ValueError(f"perft depth must be 0 to {self.max_perft_depth}, not {depth!r}")
        if depth == 0:
            return 1
        children = [r for r, _ in self.chance_outcomes(position)] + self.legal_moves(position)
        return sum(self.perft(self.play(position, c), depth - 1) for c in children)


RULES = Race()
