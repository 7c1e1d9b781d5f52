"""Long nardy's rules for people and for the rest of the code: positions, rolls, plays, notation,
the board as text. The rules themselves are ``docs/rules-nardy.md``; the plays of a roll come
from the compiled generator (``kernels.py``).

>>> start = RULES.initial_position()
>>> str(start), RULES.legal_moves(start), len(RULES.chance_outcomes(start))
('24x15/24x15 w', [], 21)
>>> rolled = RULES.play(start, Roll.parse("3-3"))
>>> sorted(str(play) for play in RULES.legal_moves(rolled))
['24/21/18(2)', '24/21/18/15 24/21']
>>> str(RULES.play(rolled, RULES.parse_move("24/18(2)")))
'24x13,18x2/24x15 b'
"""

from __future__ import annotations

import enum
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
    BLOCK,
    CHECKERS,
    COUNT_SHIFT,
    DICE_MASK,
    DICE_SHIFT,
    HALF,
    HEAD,
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
    SIDE_LETTERS,
    check_move_text,
    format_side,
    format_steps,
    parse_side,
    parse_steps,
    sorted_steps,
    step_of,
    step_value,
)

WHITE, BLACK = 0, 1  # the sides as side_to_move and Outcome.winner number them
NAMES = ("White", "Black")
START = (0,) * (POINTS - 1) + (CHECKERS,)  # all fifteen on the head
FEATURES = ("pips", "points", "home_points", "block", "head", "off", "turn")
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
    """A turn's checker moves: its steps ``(start, to)`` in the mover's numbering (to 0 off),
    sorted. The empty play is a pass. A play read from text may hold a segment of more than one
    die (``24/13``); the rules match it to a legal play."""

    steps: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        if len(self.steps) > MAX_STEPS or tuple(self.steps) != sorted_steps(self.steps):
            raise ValueError(f"a play is at most four steps, sorted, not {self.steps!r}")
        for start, to in self.steps:
            if not 0 <= to < start <= POINTS:
                raise ValueError(f"a step goes from a point 1-24 to a lower one, not {start}/{to}")

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
            raise ValueError(f"{code} is the code of no play of long nardy")
        if code >> (STEP_BITS * count) != count << (COUNT_SHIFT - STEP_BITS * count):
            raise ValueError(f"{code} is the code of no play of long nardy")
        try:
            return cls(tuple(step_of((code >> (STEP_BITS * k)) & STEP_MASK) for k in range(count)))
        except ValueError:
            raise ValueError(f"{code} is the code of no play of long nardy") from None

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
    code = int(code)
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


def across(point: int) -> int:
    """The other side's number of a side's point: half a board on (24 is the other's 12)."""
    return (point + HALF - 1) % POINTS + 1


@dataclass(frozen=True, slots=True)
class Position:
    """Each side's checkers, 24 counts in its own numbering (points 1-24; those borne off are
    the rest of its fifteen), whose turn it is, and the dice: None while they are still to roll
    (a chance node), else the roll being played."""

    white: tuple[int, ...]
    black: tuple[int, ...]
    white_to_move: bool
    dice: Roll | None = None

    def __post_init__(self) -> None:
        for name, side in zip(NAMES, (self.white, self.black), strict=True):
            if len(side) != POINTS or any(not 0 <= c <= CHECKERS for c in side):
                raise ValueError(f"{name}'s checkers are 24 counts 0-15, not {side!r}")
            if sum(side) > CHECKERS:
                raise ValueError(f"{name} has {sum(side)} checkers; a side has fifteen")
        for point in range(1, POINTS + 1):
            if self.white[point - 1] and self.black[across(point) - 1]:
                raise ValueError(
                    f"White's point {point} is Black's point {across(point)}: both sides have "
                    "checkers on it"
                )

    @property
    def mover(self) -> tuple[int, ...]:
        return self.white if self.white_to_move else self.black

    @property
    def opponent(self) -> tuple[int, ...]:
        return self.black if self.white_to_move else self.white

    def side(self, side: int) -> tuple[int, ...]:
        return self.white if side == WHITE else self.black

    def off(self, side: int) -> int:
        return CHECKERS - sum(self.side(side))

    def pips(self) -> tuple[int, int]:
        """Each side's pips still to go (White's, Black's)."""
        return tuple(sum(c * (p + 1) for p, c in enumerate(s)) for s in (self.white, self.black))

    def winner(self) -> int | None:
        if self.off(WHITE) == CHECKERS:
            return WHITE
        if self.off(BLACK) == CHECKERS:
            return BLACK
        return None

    def decided_outcome(self) -> Outcome | None:
        winner = self.winner()
        if winner is None:
            return None
        loser = self.side(1 - winner)
        points = 1
        if sum(loser) == CHECKERS:  # the loser bore off nothing: a mars, or a koks
            points = 3 if any(loser[POINTS - HOME :]) else 2  # its first quarter, points 19-24
        return Outcome(termination=Termination.BORNE_OFF, winner=winner, points=points)

    def is_chance_node(self) -> bool:
        return self.dice is None and self.winner() is None

    def encode(self) -> np.ndarray:
        words = [0, 0, 0, 0]
        for side, counts in ((WHITE, self.white), (BLACK, self.black)):
            for index, count in enumerate((*counts, CHECKERS - sum(counts))):
                words[2 * side + (index >> 4)] |= count << (SLOT_BITS * (index & 15))
        dice = 0 if self.dice is None else 10 * self.dice.high + self.dice.low
        words[1] |= (int(self.white_to_move) << TURN_BIT) | (dice << DICE_SHIFT)
        # a word's top slot holds point 16's checkers: eight or more set the sign bit
        return np.array([w - (1 << 64) if w >> 63 else w for w in words], dtype=np.int64)

    @classmethod
    def decode(cls, state: np.ndarray) -> Position:
        words = [int(w) for w in state[:STATE_WORDS]]
        sides = []
        for side in (WHITE, BLACK):
            slots = [
                (words[2 * side + (i >> 4)] >> (SLOT_BITS * (i & 15))) & SLOT_MASK
                for i in range(POINTS)
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
        """Symmetry 0 is the identity, 1 swaps the colours (White's checkers become Black's and
        the turn passes to the other colour): the first player's value changes sign."""
        if symmetry == 0:
            return self
        if symmetry == 1:
            return Position(self.black, self.white, not self.white_to_move, self.dice)
        raise ValueError(f"long nardy has symmetries 0 and 1, not {symmetry!r}")

    def __str__(self) -> str:
        return format_position(self)


def six_block_breach(position: Position) -> str | None:
    """What breaks the six-block rule in ``position``, or None: a side holding six or more
    points running along the other side's path with none of the other side's checkers past
    them (a position no game reaches: the rule refuses the step that would make it). Once the
    other side has borne off every checker the game is over, and a run made while its checkers
    stood past it stays on the board: no breach."""
    for side in (WHITE, BLACK):
        mine, theirs = position.side(side), position.side(1 - side)
        lowest = next((q for q in range(1, POINTS + 1) if theirs[q - 1]), POINTS + 1)
        if lowest > POINTS:
            continue
        run = 0
        for q in range(1, POINTS + 2):  # the other side's points, from its 1 up
            if q <= POINTS and mine[across(q) - 1]:
                run += 1
                continue
            if run >= BLOCK and lowest >= q - run:
                low, high = q - run, q - 1
                return (
                    f"{NAMES[side]} holds {run} points running on {NAMES[1 - side]}'s path "
                    f"({NAMES[1 - side]}'s {low}-{high}) with no {NAMES[1 - side]} checker past "
                    "them, which the six-block rule forbids"
                )
            run = 0
    return None


def format_position(position: Position) -> str:
    """``24x15/24x15 w``: White's checkers, Black's, the side on roll (w or b) and, once rolled,
    its dice (``notation.py``)."""
    text = f"{format_side(position.white)}/{format_side(position.black)} "
    text += SIDE_LETTERS[0 if position.white_to_move else 1]
    return text if position.dice is None else f"{text} {position.dice}"


def parse_position(text: str) -> Position:
    text = check_length(text, "a position", MAX_POSITION_CHARS)
    parts = text.split()
    if not 2 <= len(parts) <= 3 or parts[1] not in SIDE_LETTERS or parts[0].count("/") != 1:
        raise NotationError(
            f"{shown(text)} is not a long nardy position: write White's checkers/Black's, each "
            "side's POINTxCOUNT items in its own numbering joined by commas (offxN for those "
            "borne off), the side on roll (w or b) and, once rolled, its dice: as in "
            "'24x15/24x15 w' or '24x14,18x1/24x15 b 3-1'"
        )
    white_text, black_text = parts[0].split("/")
    white = parse_side(white_text, "White")
    black = parse_side(black_text, "Black")
    dice = Roll.parse(parts[2]) if len(parts) == 3 else None
    try:
        position = Position(white, black, parts[1] == "w", dice)
    except ValueError as error:
        raise NotationError(f"{shown(text)}: {error}") from None
    if position.off(WHITE) == CHECKERS and position.off(BLACK) == CHECKERS:
        raise NotationError(f"{shown(text)}: both sides cannot have borne off every checker")
    for side in (WHITE, BLACK):
        counts = position.side(side)
        if position.off(side) and any(counts[HOME:]):
            raise NotationError(
                f"{shown(text)}: {NAMES[side]} has borne off checkers but has some outside its "
                "home (points 1-6), and a checker never moves back"
            )
    breach = six_block_breach(position)
    if breach is not None:
        raise NotationError(f"{shown(text)}: {breach}")
    if position.winner() is not None and dice is not None:
        raise NotationError(f"{shown(text)}: the game is over, so there are no dice to play")
    return position


def draw_board(position: Position) -> str:
    """The board in White's numbering: points 13-24 above, 12-1 below, each with its checkers
    (``15W``, ``2B``); Black counts the same points half a board on (its 24, its head, is White's
    12)."""

    def cell(point: int) -> str:
        white, black = position.white[point - 1], position.black[across(point) - 1]
        return f"{white}W" if white else f"{black}B" if black else "."

    def row(cells: list[str]) -> str:
        cells = [f"{c:>4}" for c in cells]
        return "".join(cells[:6]) + " |" + "".join(cells[6:])

    top, bottom = list(range(13, 25)), list(range(12, 0, -1))
    white_pips, black_pips = position.pips()
    lines = [
        row([str(p) for p in top]),
        row([cell(p) for p in top]),
        row([cell(p) for p in bottom]),
        row([str(p) for p in bottom]),
        f"off: White {position.off(WHITE)}, Black {position.off(BLACK)}   "
        f"pips: White {white_pips}, Black {black_pips}   (Black's point p is White's p - 12, "
        "or p + 12)",
    ]
    side = NAMES[WHITE if position.white_to_move else BLACK]
    outcome = position.decided_outcome()
    if outcome is not None:
        what = RULES.outcome_classes[outcome.points]
        lines.append(f"{NAMES[outcome.winner]} has won ({what})")
    elif position.dice is None:
        lines.append(f"{side} to roll")
    else:
        lines.append(f"{side} to play {position.dice}")
    return "\n".join(lines)


class Nardy(CompiledPlays, PositionRules):
    """The :class:`~samuel.games.base.GameRules` of long nardy (``docs/rules-nardy.md``)."""

    name = DESCRIPTOR.name
    title = DESCRIPTOR.title
    number = DESCRIPTOR.number
    move_type = Play
    sides = DESCRIPTOR.sides
    side_letters = DESCRIPTOR.side_letters  # -W/--white, -B/--black, as in draughts
    win_phrases = ("White wins", "Black wins")
    view_phrase = "White's view"
    move_help = (
        "type a play in your own numbering, each checker start/end: 24/18 24/21, 24/18/13, "
        "13/7(2), 3/off; pass when nothing can move"
    )
    max_perft_depth = 4
    symmetry_count = 2
    key_words = STATE_WORDS  # the key stands for the whole position
    terminations = Termination
    record_format = RecordFormat(game_tag="Game", game_value=DESCRIPTOR.title, start_tag="Start")
    outcome_classes = {1: "win", 2: "mars", 3: "koks"}  # noqa: RUF012
    kernels = kernels
    position_type = Position
    play_type = Play
    roll_type = Roll
    max_plays = MAX_PLAYS
    state_words = STATE_WORDS

    def __repr__(self) -> str:
        return "Nardy()"

    def initial_position(self) -> Position:
        return Position(START, START, True, None)

    def play(self, position: Position, move: Play | Roll) -> Position:
        if isinstance(move, Roll):
            if not position.is_chance_node():
                why = "the game is over" if position.winner() is not None else "the dice are rolled"
                raise IllegalMoveError(f"{move} is not a roll to throw here: {why}")
            return Position(position.white, position.black, position.white_to_move, move)
        if not isinstance(move, Play):
            raise TypeError(f"long nardy plays a Play or a Roll, not {move!r}")
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
        why = _why_not(position, move)
        raise IllegalMoveError(
            f"{move} is not legal: {why}; with {position.dice} the plays are {legal}"
        )

    def resolve(self, position: Position, move: Play) -> Play:
        """The legal play that ``move`` (perhaps with a segment of two dice, ``24/13``) stands
        for."""
        child = self.play(position, move)
        return next(p for p, c in self.plays(position).items() if c == child)

    def side_to_move(self, position: Position) -> int:
        return WHITE if position.white_to_move else BLACK

    def is_irreversible(self, position: Position, move: Play | Roll) -> bool:
        return True  # no repetition rule: checkers only move on (compiled.py)

    def move_from_code(self, code: int) -> Play | Roll:
        return code_to_play(code)

    def parse_move(self, text: str) -> Play | Roll:
        text = check_move_text(text)
        if re.fullmatch(r"[1-6]-[1-6]", text):
            return Roll.parse(text)
        return Play.parse(text)

    def parse_position(self, text: str) -> Position:
        if isinstance(text, str) and text.strip() == "start":
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
        """Long nardy's perft (``kernels.perft``): from a position with the dice to roll, over
        the 21 rolls, each once, the distinct plays (a pass is a play); a roll is no ply.

        >>> [RULES.perft(RULES.initial_position(), d) for d in (1, 2, 3)]
        [22, 484, 35387]
        """
        if not 0 <= depth <= self.max_perft_depth:
            raise ValueError(f"perft depth must be 0 to {self.max_perft_depth}, not {depth!r}")
        return int(kernels.perft(position.encode(), depth))


def _after_segments(position: Position, play: Play) -> Position | None:
    """The position ``play``'s segments leave, each from its start to its end, or None if one
    cannot be made (no checker to move, or an opponent's checker where it lands); the rest of
    legality is the caller's business."""
    mine = list(position.mover)
    theirs = position.opponent
    for start, to in play.steps:
        if mine[start - 1] == 0:
            return None
        mine[start - 1] -= 1
        if to == 0:
            continue
        if theirs[across(to) - 1]:
            return None
        mine[to - 1] += 1
    mover, other = tuple(mine), theirs
    white, black = (mover, other) if position.white_to_move else (other, mover)
    try:
        return Position(white, black, not position.white_to_move, None)
    except ValueError:
        return None


def _why_not(position: Position, play: Play) -> str:
    """Why ``play`` (no legal play's steps) is not legal, as far as a glance can tell."""
    mine = list(position.mover)
    theirs = position.opponent
    other = NAMES[BLACK if position.white_to_move else WHITE]
    for start, to in play.steps:
        if mine[start - 1] == 0:
            return f"you have no checker on your point {start} to move"
        mine[start - 1] -= 1
        if to and theirs[across(to) - 1]:
            return f"your point {to} is held by {other} (its point {across(to)})"
        if to:
            mine[to - 1] += 1
    dice = position.dice
    heads = sum(1 for start, _ in play.steps if start == HEAD)
    first_turn = position.mover[HEAD - 1] == CHECKERS and dice.is_double and dice.high in (3, 4, 6)
    if heads > (2 if first_turn else 1):
        return (
            "only one checker may leave the head (24) in a turn (two on the first turn with "
            "3-3, 4-4 or 6-6)"
        )
    pips = sum(start - to for start, to in play.steps)
    if any(to == 0 for _, to in play.steps) and any(mine[HOME:]):
        return "a side bears off only once all its checkers are home (points 1-6)"
    rolled = 4 * dice.high if dice.is_double else dice.high + dice.low
    if pips > rolled:
        return f"it moves {pips} pips and {dice} gives at most {rolled}"
    return (
        "it breaks a rule (the six-block rule, as many dice as can be played, the larger die, "
        "or bearing off from the highest point)"
    )


RULES = Nardy()
__all__ = ["RULES", "Nardy", "Play", "Position", "Roll"]
