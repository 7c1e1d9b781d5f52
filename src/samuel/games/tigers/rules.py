"""Tigers & Sheep for people and for the rest of the code: positions, moves, notation, symmetries.

The rules are ``docs/rules-tigers.md``. :class:`Position` is immutable and hashable and
``position.play(move)`` returns a new one; the work is done by the compiled kernels in
:mod:`samuel.games.tigers.kernels`.

>>> start = Position.initial()
>>> str(start)
'T3T/5/5/5/T3T S 20'
>>> len(start.legal_moves())
21
>>> str(start.play(Move.parse("c3")))
'T3T/5/2S2/5/T3T T 19'
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

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

from . import DESCRIPTOR, classic, kernels
from .board import (
    CAPTURES_TO_WIN,
    INVERSE_SYMMETRY,
    MAX_MOVES,
    NEIGHBOURS,
    POINTS,
    SHEEP,
    SIZE,
    START_TIGERS,
    SYMMETRIES,
    TIGERS,
)
from .compiled import variant_number

Point = int  # 0..24, x + 5*y
TIGERS_SIDE, SHEEP_SIDE = 0, 1  # the sides as side_to_move and Outcome.winner number them
FILES = "abcde"


class Termination(enum.Enum):
    """How a position by itself ends a game of Tigers & Sheep. Repetition and the ply cap depend
    on the game's history: :class:`samuel.games.base.Termination`. The texts are those of game
    records' Termination tags, so they never change."""

    FIVE_CAPTURED = "enough sheep captured"  # named for the standard game; variants need fewer
    TIGERS_BLOCKED = "the tigers have no legal move"
    SHEEP_BLOCKED = "the sheep have no legal move"


def point_name(p: Point) -> str:
    """``0`` -> ``'a1'``, ``12`` -> ``'c3'``."""
    return f"{FILES[p % SIZE]}{p // SIZE + 1}"


def parse_point(text: str) -> Point:
    """``'c3'`` -> ``12``; anything else raises :class:`NotationError`."""
    if len(text) == 2 and text[0] in FILES and text[1] in "12345":
        return FILES.index(text[0]) + SIZE * (int(text[1]) - 1)
    raise NotationError(f"{shown(text)} is not a point: points are a1 to e5 (column a-e, row 1-5)")


_MOVE = re.compile(r"([a-z][0-9]+)(?:([-x])([a-z][0-9]+))?")  # points checked after


@dataclass(frozen=True, slots=True)
class Move:
    """A placement (``origin`` None), a step, or a jump (``captured`` the jumped point)."""

    target: Point
    origin: Point | None = None
    captured: Point | None = None

    @property
    def is_placement(self) -> bool:
        return self.origin is None

    @property
    def is_jump(self) -> bool:
        return self.captured is not None

    @property
    def code(self) -> int:
        """The kernels' integer form of the move."""
        origin = kernels.NO_POINT if self.origin is None else self.origin
        captured = kernels.NO_POINT if self.captured is None else self.captured
        return origin | (self.target << kernels.POINT_BITS) | (captured << 2 * kernels.POINT_BITS)

    @classmethod
    def from_code(cls, code: int) -> Move:
        origin = code & kernels.POINT_FIELD
        target = (code >> kernels.POINT_BITS) & kernels.POINT_FIELD
        captured = (code >> 2 * kernels.POINT_BITS) & kernels.POINT_FIELD
        return cls(
            target=target,
            origin=None if origin == kernels.NO_POINT else origin,
            captured=None if captured == kernels.NO_POINT else captured,
        )

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``c3`` (placement), ``a1-b2`` (step) or ``a1xc3`` (jump).

        Checks the form only, and that a step joins neighbours and a jump runs straight over one
        point; whether the move is legal in a position is :meth:`Position.play`'s business.
        """
        text = check_length(text, "a move", MAX_MOVE_CHARS)
        match = _MOVE.fullmatch(text)
        if not match:
            raise NotationError(
                f"{text!r} is not a move: write a placement as c3, a step as a1-b2, a jump as a1xc3"
            )
        first, kind, second = match.groups()
        if kind is None:
            return cls(target=parse_point(first))
        origin, target = parse_point(first), parse_point(second)
        if kind == "-":
            if not (NEIGHBOURS[origin] >> target) & 1:
                raise NotationError(f"{text!r}: {first} and {second} are not joined by a line")
            return cls(target=target, origin=origin)
        ox, oy, tx, ty = origin % SIZE, origin // SIZE, target % SIZE, target // SIZE
        middle = (ox + tx) // 2 + SIZE * ((oy + ty) // 2)
        straight = (abs(tx - ox), abs(ty - oy)) in ((2, 0), (0, 2), (2, 2))
        if not straight or not (
            (NEIGHBOURS[origin] >> middle) & 1 and (NEIGHBOURS[middle] >> target) & 1
        ):
            raise NotationError(
                f"{text!r}: a jump goes straight along a line over one point, "
                f"and {first} to {second} does not"
            )
        return cls(target=target, origin=origin, captured=middle)

    def __str__(self) -> str:
        if self.origin is None:
            return point_name(self.target)
        mark = "x" if self.captured is not None else "-"
        return f"{point_name(self.origin)}{mark}{point_name(self.target)}"

    def transformed(self, symmetry: int) -> Move:
        """The move's image under one of the 8 symmetries (see :data:`board.SYMMETRIES`)."""
        image = SYMMETRIES[symmetry]
        return Move(
            target=int(image[self.target]),
            origin=None if self.origin is None else int(image[self.origin]),
            captured=None if self.captured is None else int(image[self.captured]),
        )


@dataclass(frozen=True, slots=True)
class Position:
    """Where the pieces stand, the sheep in hand and whose turn it is. Immutable and hashable.

    ``captures_to_win`` is the rule the position is played under (5, the standard game, unless a
    variant says otherwise); it is not part of the notation or of the kernels' state, and the
    positions a game reaches keep their start's.
    """

    tigers: int  # 25-bit mask
    sheep: int  # 25-bit mask
    sheep_in_hand: int
    tiger_to_move: bool
    captures_to_win: int = CAPTURES_TO_WIN

    @classmethod
    def initial(cls, captures_to_win: int = CAPTURES_TO_WIN) -> Position:
        return cls(START_TIGERS, 0, SHEEP, False, captures_to_win)

    @property
    def captured(self) -> int:
        return SHEEP - self.sheep_in_hand - self.sheep.bit_count()

    @property
    def key(self) -> int:
        """The exact repetition key the kernels use."""
        return kernels.position_key(
            self.tigers, self.sheep, self.sheep_in_hand, int(self.tiger_to_move)
        )

    def encode(self) -> np.ndarray:
        """The kernels' form: ``[tigers, sheep, hand, tiger_to_move]`` as int64."""
        return np.array(
            [self.tigers, self.sheep, self.sheep_in_hand, int(self.tiger_to_move)], dtype=np.int64
        )

    @classmethod
    def decode(cls, state: np.ndarray, captures_to_win: int = CAPTURES_TO_WIN) -> Position:
        return cls(int(state[0]), int(state[1]), int(state[2]), bool(state[3]), captures_to_win)

    def move_codes(self) -> np.ndarray:
        buffer = np.empty(MAX_MOVES, dtype=np.int64)
        n = kernels.generate_moves(
            self.tigers,
            self.sheep,
            self.sheep_in_hand,
            int(self.tiger_to_move),
            buffer,
            self.captures_to_win,
        )
        return buffer[:n]

    def legal_moves(self) -> list[Move]:
        """Every legal move (none once ``captures_to_win`` sheep are captured). Repetition is the
        game's business, not the position's."""
        return [Move.from_code(int(code)) for code in self.move_codes()]

    def is_legal(self, move: Move) -> bool:
        return move.code in set(self.move_codes().tolist())

    def play(self, move: Move) -> Position:
        """The position after ``move``; raises :class:`IllegalMoveError` if it is not legal."""
        if not self.is_legal(move):
            raise IllegalMoveError(self._why_illegal(move))
        return self.play_unchecked(move)

    def play_unchecked(self, move: Move) -> Position:
        """The position after ``move``, which must be legal (not checked)."""
        t, s, h, side = kernels.play_move(
            self.tigers, self.sheep, self.sheep_in_hand, int(self.tiger_to_move), move.code
        )
        return Position(int(t), int(s), int(h), bool(side), self.captures_to_win)

    def _why_illegal(self, move: Move) -> str:
        side = "tigers" if self.tiger_to_move else "sheep"
        if self.decided_outcome() is not None:
            return f"{move} is not legal: the game is over"
        occupied = self.tigers | self.sheep
        if move.is_placement:
            if self.tiger_to_move:
                return f"{move} is not legal: it is the tigers' turn and tigers are not placed"
            if self.sheep_in_hand == 0:
                return f"{move} is not legal: no sheep are left in hand, so a sheep must step"
            return f"{move} is not legal: {point_name(move.target)} is occupied"
        own = self.tigers if self.tiger_to_move else self.sheep
        if not (own >> move.origin) & 1:
            return (
                f"{move} is not legal: there is no {side[:-1] if side == 'tigers' else side} "
                f"on {point_name(move.origin)} to move ({side} to move)"
            )
        if not self.tiger_to_move and self.sheep_in_hand > 0:
            return (
                f"{move} is not legal: sheep cannot move until all are placed "
                f"({self.sheep_in_hand} in hand)"
            )
        if (occupied >> move.target) & 1:
            return f"{move} is not legal: {point_name(move.target)} is occupied"
        if move.is_jump and not self.tiger_to_move:
            return f"{move} is not legal: sheep cannot jump"
        if move.is_jump:
            return f"{move} is not legal: there is no sheep on {point_name(move.captured)} to jump"
        return f"{move} is not legal here"

    def decided_outcome(self) -> Outcome | None:
        """The outcome if this position ends the game by itself (captures or no move)."""
        if self.captured >= self.captures_to_win:
            return Outcome(termination=Termination.FIVE_CAPTURED, winner=TIGERS_SIDE)
        if (
            kernels.count_moves(
                self.tigers,
                self.sheep,
                self.sheep_in_hand,
                int(self.tiger_to_move),
                self.captures_to_win,
            )
            == 0
        ):
            if self.tiger_to_move:
                return Outcome(termination=Termination.TIGERS_BLOCKED, winner=SHEEP_SIDE)
            return Outcome(termination=Termination.SHEEP_BLOCKED, winner=TIGERS_SIDE)
        return None

    def transformed(self, symmetry: int) -> Position:
        """The position's image under one of the 8 symmetries; it has the same value."""
        return Position(
            kernels.transform_mask(self.tigers, symmetry),
            kernels.transform_mask(self.sheep, symmetry),
            self.sheep_in_hand,
            self.tiger_to_move,
            self.captures_to_win,
        )

    @classmethod
    def parse(cls, text: str, captures_to_win: int = CAPTURES_TO_WIN) -> Position:
        """Read a position string such as ``T3T/5/5/5/T3T S 20`` (docs/rules-tigers.md)."""
        return parse_position(text, captures_to_win)

    def __str__(self) -> str:
        return format_position(self)


def format_position(position: Position) -> str:
    rows = []
    for y in range(SIZE - 1, -1, -1):
        row, run = "", 0
        for x in range(SIZE):
            p = x + SIZE * y
            piece = "T" if (position.tigers >> p) & 1 else "S" if (position.sheep >> p) & 1 else ""
            if piece:
                row += (str(run) if run else "") + piece
                run = 0
            else:
                run += 1
        rows.append(row + (str(run) if run else ""))
    side = "T" if position.tiger_to_move else "S"
    return f"{'/'.join(rows)} {side} {position.sheep_in_hand}"


def parse_position(text: str, captures_to_win: int = CAPTURES_TO_WIN) -> Position:
    """Read a position string; raise :class:`NotationError` saying what is wrong.

    ``captures_to_win`` is the rule it is played under: more captured sheep than that is an error.
    """
    text = check_length(text, "a position", MAX_POSITION_CHARS)
    fields = text.split()
    if len(fields) != 3:
        raise NotationError(
            f"{text!r} is not a position: expected three fields, the rows, the side to move and "
            "the sheep in hand, as in 'T3T/5/5/5/T3T S 20'"
        )
    board, side, hand_text = fields
    rows = board.split("/")
    if len(rows) != SIZE:
        raise NotationError(f"{text!r}: the board needs 5 rows separated by '/', not {len(rows)}")
    tigers = sheep = 0
    for r, row in enumerate(rows):
        y = SIZE - 1 - r
        x = 0
        for char in row:
            if char in "12345":
                x += int(char)
            elif char in "TS":
                if x >= SIZE:  # the row is too long; the check below says so
                    x += 1
                    continue
                bit = 1 << (x + SIZE * y)
                if char == "T":
                    tigers |= bit
                else:
                    sheep |= bit
                x += 1
            else:
                raise NotationError(
                    f"{text!r}: row {y + 1} has {char!r}; rows use T, S and digits 1-5"
                )
        if x != SIZE:
            raise NotationError(f"{text!r}: row {y + 1} ({row!r}) covers {x} points, not 5")
    if side not in ("S", "T"):
        raise NotationError(f"{text!r}: the side to move is S or T, not {side!r}")
    if not re.fullmatch("[0-9]{1,2}", hand_text) or not 0 <= int(hand_text) <= SHEEP:
        raise NotationError(
            f"{text!r}: sheep in hand must be a number from 0 to 20, not {hand_text!r}"
        )
    hand = int(hand_text)
    if tigers.bit_count() != TIGERS:
        raise NotationError(f"{text!r}: there must be exactly 4 tigers, not {tigers.bit_count()}")
    on_board = sheep.bit_count()
    if on_board + hand > SHEEP:
        raise NotationError(
            f"{text!r}: {on_board} sheep on the board and {hand} in hand make more than 20 sheep"
        )
    captured = SHEEP - on_board - hand
    if captured > captures_to_win:
        raise NotationError(
            f"{text!r}: {captured} sheep captured, but the game ends at {captures_to_win}"
        )
    if hand == SHEEP and side == "T":
        raise NotationError(
            f"{text!r}: the sheep move first, so with 20 in hand it is the sheep's turn"
        )
    return Position(tigers, sheep, hand, side == "T", captures_to_win)


def draw_board(position: Position) -> str:
    """The board as text with its lines, for a terminal."""
    lines = []
    for y in range(SIZE - 1, -1, -1):
        row = f"{y + 1}  "
        for x in range(SIZE):
            p = x + SIZE * y
            piece = "T" if (position.tigers >> p) & 1 else "S" if (position.sheep >> p) & 1 else "·"
            row += piece + ("───" if x < SIZE - 1 else "")
        lines.append(row)
        if y > 0:
            between = "   "
            for x in range(SIZE):
                between += "│"
                if x < SIZE - 1:
                    between += " ╲ " if (x + y) % 2 == 0 else " ╱ "
            lines.append(between)
    lines.append("   a   b   c   d   e")
    side = "tigers" if position.tiger_to_move else "sheep"
    lines.append(
        f"sheep in hand {position.sheep_in_hand}   captured {position.captured}   {side} to move"
    )
    return "\n".join(lines)


class TigersAndSheep(PositionRules):
    """The :class:`~samuel.games.base.GameRules` of Tigers & Sheep.

    ``TigersAndSheep()`` is the standard game (:data:`RULES`, registered as ``tigers``);
    ``TigersAndSheep(captures_to_win=4)`` is the variant won by 4 captures (named ``tigers-4``,
    not registered): its positions carry the rule, and its ``number`` tells the compiled search.

    >>> TigersAndSheep(captures_to_win=2).parse_position("T3T/5/5/5/T3T S 20").captures_to_win
    2
    """

    title = DESCRIPTOR.title
    move_type = Move
    sides = DESCRIPTOR.sides
    side_letters = DESCRIPTOR.side_letters  # the command line's -T/--tigers and -S/--sheep
    win_phrases = ("tigers win", "sheep win")  # by side, as results are said
    view_phrase = "tigers' view"  # whose view scores take: the first player's
    move_help = "type a placement as c3, a step as a1-b2, a jump as a1xc3"
    # Perft counts grow about 14- and 18-fold on alternate plies (`samuel perft 8`: 339,123,476 at
    # 7, 4,933,406,760 at 8), so perft 15 is about 2e18, within the kernel's 64-bit count (9.2e18),
    # and perft 16 about 3e19, past it. Time runs out sooner anyway: perft 10 takes about an hour.
    max_perft_depth = 15
    symmetry_count = 8
    key_words = 4  # the key is the whole position (a variant's rule is in the game's number)
    terminations = Termination
    record_format = RecordFormat(game_tag="Game", game_value=title, start_tag="Start")

    def __init__(self, captures_to_win: int = CAPTURES_TO_WIN) -> None:
        self.number = variant_number(captures_to_win)  # checks the range
        self.captures_to_win = captures_to_win
        standard = captures_to_win == CAPTURES_TO_WIN
        self.name = DESCRIPTOR.name if standard else f"{DESCRIPTOR.name}-{captures_to_win}"

    def __repr__(self) -> str:
        return f"TigersAndSheep(captures_to_win={self.captures_to_win})"

    def initial_position(self) -> Position:
        return Position.initial(self.captures_to_win)

    def legal_moves(self, position: Position) -> list[Move]:
        return position.legal_moves()

    def play(self, position: Position, move: Move) -> Position:
        return position.play(move)

    def side_to_move(self, position: Position) -> int:
        return 0 if position.tiger_to_move else 1

    def is_irreversible(self, position: Position, move: Move) -> bool:
        return move.is_placement or move.is_jump

    def parse_position(self, text: str) -> Position:
        return parse_position(text, self.captures_to_win)

    def format_position(self, position: Position) -> str:
        return format_position(position)

    def draw_board(self, position: Position) -> str:
        return draw_board(position)

    def classic_weights(self, path: str | None = None) -> np.ndarray:
        return classic.load_weights(path)

    def perft(self, position: Position, depth: int) -> int:
        """The number of legal move sequences of ``depth`` plies (at most
        :attr:`max_perft_depth`) from ``position``; repetition is ignored.

        >>> RULES.perft(RULES.initial_position(), 2)
        252
        """
        if not 0 <= depth <= self.max_perft_depth:
            raise ValueError(f"perft depth must be 0 to {self.max_perft_depth}, not {depth!r}")
        return int(kernels.perft(*map(int, position.encode()), depth))


RULES = TigersAndSheep()


__all__ = [
    "RULES",
    "INVERSE_SYMMETRY",
    "TigersAndSheep",
    "POINTS",
    "Move",
    "Point",
    "Position",
    "Termination",
    "draw_board",
    "format_position",
    "parse_point",
    "parse_position",
    "point_name",
]
