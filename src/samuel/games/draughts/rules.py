"""English draughts for people and for the rest of the code: positions, moves, notation, symmetry.

The rules are ``docs/rules-draughts.md``. :class:`Position` is immutable and hashable and
``position.play(move)`` returns a new one; the work is done by the compiled kernels in
:mod:`samuel.games.draughts.kernels`. Squares are named by their PDN numbers, 1-32.

>>> start = Position.initial()
>>> str(start)
'B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12'
>>> [str(move) for move in start.legal_moves()]
['9-13', '10-14', '11-15', '12-16', '9-14', '10-15', '11-16']
>>> position = start.play(Move.parse("11-15")).play(Move.parse("24-20"))
>>> position.perft(3)
204
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
)

from . import DESCRIPTOR, classic, kernels
from .board import (
    BLACK_CROWN_ROW,
    FULL,
    JUMP_LAND,
    JUMP_OVER,
    MAX_JUMPS,
    MAX_MOVES,
    MEN,
    SQUARES,
    START_BLACK,
    START_WHITE,
    STEP,
    WHITE_CROWN_ROW,
    column_of,
)

Square = int  # a PDN square number, 1-32 (the kernels use the index, square - 1)

DRAUGHTS = DESCRIPTOR.number  # the game's number in samuel.games.kernels' dispatch
SYMMETRY_COUNT = 2  # 0: the identity; 1: the half-turn with the colours swapped


class Termination(enum.Enum):
    """How a position by itself ends a game of draughts. Repetition and the ply cap depend on the
    game's history; :class:`samuel.games.game.Game` reports them with its own terminations."""

    NO_LEGAL_MOVE = "the side to move has no legal move"
    FORTY_MOVE_RULE = "40-move rule: 80 plies without a capture or a move of a man"


def _check_square(square: Square, text: str) -> int:
    """The index of PDN square ``square``; raises NotationError naming ``text`` otherwise."""
    if not 1 <= square <= SQUARES:
        raise NotationError(f"{text!r}: square {square} is not on the board; squares are 1 to 32")
    return square - 1


def _code_problem(code: int) -> str:
    """Why ``code`` is no move's code (checked before any kernel sees it), or '' if it is one."""
    if not isinstance(code, int) or isinstance(code, bool) or code < 0:
        return "not a non-negative integer"
    origin = code & kernels.SQUARE_FIELD
    target = (code >> kernels.SQUARE_BITS) & kernels.SQUARE_FIELD
    jumps = (code >> kernels.JUMPS_SHIFT) & kernels.JUMPS_FIELD
    if jumps > MAX_JUMPS or code >> (kernels.PATH_SHIFT + 2 * jumps):
        return f"bits beyond its {jumps} jumps"
    if jumps == 0:
        return "" if target in STEP[origin] else f"{origin + 1}-{target + 1} is no step"
    square = origin
    for j in range(jumps):
        direction = (code >> (kernels.PATH_SHIFT + 2 * j)) & 3
        if JUMP_LAND[square, direction] < 0:
            return f"jump {j + 1} leaves the board"
        square = int(JUMP_LAND[square, direction])
    return "" if square == target else "its path does not end on its target"


# ASCII digits only (``\d`` takes any script's); lengths are capped before (check_length), so
# ``int`` never meets a number of thousands of digits.
_STEP = re.compile(r"([0-9]+)-([0-9]+)")
_CAPTURE = re.compile(r"[0-9]+(?:x[0-9]+)+")
_SQUARES = re.compile(r"[0-9]+(?:[-x][0-9]+)+")  # squares joined by '-' or 'x', in any mix
_MOVE_FORMS = "write a step as 11-15 and a capture with every landing square, as 22x15 or 15x24x31"


@dataclass(frozen=True, slots=True)
class Move:
    """A move as the kernels encode it (see :mod:`kernels`): its origin, target and, for a
    capture, the direction of every jump. Build one with :meth:`parse` or :meth:`from_code`.

    >>> move = Move.parse("15x24x31")
    >>> move.squares, move.captured, move.is_capture
    ((15, 24, 31), (19, 27), True)
    """

    code: int

    def __post_init__(self) -> None:
        problem = _code_problem(self.code)
        if problem:
            raise ValueError(f"{self.code!r} is not a move code: {problem}")

    @classmethod
    def from_code(cls, code: int) -> Move:
        """The move with kernel code ``code``; raises ValueError if no move has it (a jump off
        the board, a target that does not match the path, bits beyond the path)."""
        if isinstance(code, np.integer):
            code = int(code)
        return cls(code)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``11-15`` (a step) or ``22x15``, ``15x24x31`` (a capture with every landing
        square). Checks the form only, and that each step or jump is one on the board; whether the
        move is legal is :meth:`Position.play`'s business. ``15x31`` as a short form of a longer
        capture needs the position: :meth:`Position.parse_move`."""
        text = check_length(text, "a move", MAX_MOVE_CHARS)
        step = _STEP.fullmatch(text)
        if not step and not _CAPTURE.fullmatch(text):
            if _SQUARES.fullmatch(text) and "-" in text and "x" in text:
                raise NotationError(
                    f"{text!r} is not a move: it mixes a step ('-') and a capture ('x'); "
                    f"{_MOVE_FORMS}"
                )
            if _SQUARES.fullmatch(text):
                raise NotationError(
                    f"{text!r} is not a move: a step goes to one square; {_MOVE_FORMS}"
                )
            raise NotationError(f"{text!r} is not a move: {_MOVE_FORMS}")
        squares = [int(part) for part in re.split("[-x]", text)]
        indices = [_check_square(square, text) for square in squares]
        if step:
            origin, target = indices
            directions = [d for d in range(4) if STEP[origin, d] == target]
            if not directions:
                raise NotationError(
                    f"{text!r}: {squares[0]} and {squares[1]} are not diagonal neighbours, so "
                    "this is no step"
                )
            return cls(origin | (target << kernels.SQUARE_BITS))
        if len(indices) - 1 > MAX_JUMPS:
            raise NotationError(f"{text!r}: a capture takes at most 12 pieces, so 12 jumps")
        code = indices[0] | (indices[-1] << kernels.SQUARE_BITS)
        code |= (len(indices) - 1) << kernels.JUMPS_SHIFT
        for j, (a, b) in enumerate(zip(indices, indices[1:], strict=False)):
            directions = [d for d in range(4) if JUMP_LAND[a, d] == b]
            if not directions:
                raise NotationError(
                    f"{text!r}: {a + 1}x{b + 1} is not one jump (two squares along a diagonal); "
                    "list every landing square, or read a short form against a position with "
                    "Position.parse_move"
                )
            code |= directions[0] << (kernels.PATH_SHIFT + 2 * j)
        return cls(code)

    @property
    def origin(self) -> Square:
        return (self.code & kernels.SQUARE_FIELD) + 1

    @property
    def target(self) -> Square:
        return ((self.code >> kernels.SQUARE_BITS) & kernels.SQUARE_FIELD) + 1

    @property
    def jumps(self) -> int:
        return (self.code >> kernels.JUMPS_SHIFT) & kernels.JUMPS_FIELD

    @property
    def is_capture(self) -> bool:
        return self.jumps > 0

    @property
    def squares(self) -> tuple[Square, ...]:
        """The origin and every square the piece lands on."""
        if not self.is_capture:
            return (self.origin, self.target)
        square = self.origin - 1
        path = [self.origin]
        for j in range(self.jumps):
            direction = (self.code >> (kernels.PATH_SHIFT + 2 * j)) & 3
            square = int(JUMP_LAND[square, direction])
            path.append(square + 1)
        return tuple(path)

    @property
    def captured(self) -> tuple[Square, ...]:
        """The squares of the pieces the move takes, in the order they are jumped."""
        square = self.origin - 1
        taken = []
        for j in range(self.jumps):
            direction = (self.code >> (kernels.PATH_SHIFT + 2 * j)) & 3
            taken.append(int(JUMP_OVER[square, direction]) + 1)
            square = int(JUMP_LAND[square, direction])
        return tuple(taken)

    def __str__(self) -> str:
        return ("x" if self.is_capture else "-").join(str(s) for s in self.squares)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    def transformed(self, symmetry: int) -> Move:
        """The move's image under symmetry 0 (itself) or 1 (the half-turn)."""
        _check_symmetry(symmetry)
        return self if symmetry == 0 else Move(kernels.half_turn_move(self.code))


def _check_symmetry(symmetry: int) -> None:
    if symmetry not in range(SYMMETRY_COUNT):
        raise ValueError(f"draughts has symmetries 0 and 1, not {symmetry!r}")


@dataclass(frozen=True, slots=True)
class Position:
    """The pieces, whose turn it is and the plies since the last capture or man's move (the
    40-move rule). Immutable and hashable; checked when made, since the kernels trust it.

    Masks have bit ``s - 1`` for PDN square ``s``; ``kings`` holds the kings of both sides.
    """

    black: int
    white: int
    kings: int
    black_to_move: bool
    quiet_plies: int = 0

    def __post_init__(self) -> None:
        problem = position_problem(self.black, self.white, self.kings, self.quiet_plies)
        if problem:
            raise ValueError(f"not a draughts position: {problem}")

    @classmethod
    def initial(cls) -> Position:
        return cls(START_BLACK, START_WHITE, 0, True)

    @property
    def key(self) -> int:
        """The repetition key the kernels use: pieces and side to move, not the 40-move count."""
        return kernels.position_key(self.black, self.white, self.kings, int(self.black_to_move))

    def encode(self) -> np.ndarray:
        """The kernels' form: ``[black, white, kings, black_to_move, quiet_plies]`` as int64."""
        return np.array(
            [self.black, self.white, self.kings, int(self.black_to_move), self.quiet_plies],
            dtype=np.int64,
        )

    @classmethod
    def decode(cls, state: np.ndarray) -> Position:
        return cls(int(state[0]), int(state[1]), int(state[2]), bool(state[3]), int(state[4]))

    def move_codes(self) -> np.ndarray:
        buffer = np.empty(MAX_MOVES, dtype=np.int64)
        args = (self.black, self.white, self.kings, int(self.black_to_move))
        n = kernels.generate_moves(*args, buffer)
        if n > len(buffer):  # more capture paths than the usual buffer holds: make room
            buffer = np.empty(n, dtype=np.int64)
            n = kernels.generate_moves(*args, buffer)
        return buffer[:n]

    def legal_moves(self) -> list[Move]:
        """Every legal move: only captures when there is one. Draws are the game's business."""
        return [Move(int(code)) for code in self.move_codes()]

    def is_legal(self, move: Move) -> bool:
        return move.code in set(self.move_codes().tolist())

    def play(self, move: Move) -> Position:
        """The position after ``move``; raises :class:`IllegalMoveError` if it is not legal."""
        if not self.is_legal(move):
            raise IllegalMoveError(self._why_illegal(move))
        return self.play_unchecked(move)

    def play_unchecked(self, move: Move) -> Position:
        """The position after ``move``, which must be legal (not checked)."""
        b, w, k, side, quiet = kernels.play_move(
            self.black, self.white, self.kings, int(self.black_to_move), self.quiet_plies, move.code
        )
        return Position(int(b), int(w), int(k), bool(side), int(quiet))

    def parse_move(self, text: str) -> Move:
        """Read a move against this position: the full form (``15x24x31``) or, for a capture,
        the first and last squares only (``15x31``) when exactly one legal capture has them.
        Raises NotationError for text that is no move or an ambiguous short form, and
        IllegalMoveError for a move that is not legal here."""
        text = check_length(text, "a move", MAX_MOVE_CHARS)
        short = re.fullmatch(r"([0-9]+)x([0-9]+)", text)
        if not short:
            move = Move.parse(text)  # raises NotationError for text that is no move
            if not self.is_legal(move):
                raise IllegalMoveError(self._why_illegal(move))
            return move
        first, last = (int(short.group(k)) for k in (1, 2))
        _check_square(first, text)
        _check_square(last, text)
        fits = [
            m for m in self.legal_moves() if m.is_capture and m.origin == first and m.target == last
        ]
        single = [m for m in fits if m.jumps == 1]
        if single:  # a one-jump capture written in full
            return single[0]
        if len(fits) == 1:
            return fits[0]
        if len(fits) > 1:
            raise NotationError(
                f"{text!r} is ambiguous: {len(fits)} captures go from {first} to {last} "
                f"({', '.join(str(m) for m in fits)}); give the full path"
            )
        try:
            move = Move.parse(text)
        except NotationError:  # a short form that fits no legal capture
            captures = [str(m) for m in self.legal_moves() if m.is_capture]
            raise IllegalMoveError(
                f"{text} is not legal: no capture goes from {first} to {last} "
                f"(the captures are: {', '.join(captures) or 'none'})"
            ) from None
        raise IllegalMoveError(self._why_illegal(move))

    def _why_illegal(self, move: Move) -> str:
        side = "Black" if self.black_to_move else "White"
        own = self.black if self.black_to_move else self.white
        occupied = self.black | self.white
        origin = move.origin - 1
        if kernels.count_moves(self.black, self.white, self.kings, int(self.black_to_move)) == 0:
            return f"{move} is not legal: {side} has no legal move, the game is over"
        if not (own >> origin) & 1:
            return f"{move} is not legal: {side} has no piece on {move.origin}"
        captures = [m for m in self.legal_moves() if m.is_capture]
        if captures and not move.is_capture:
            return (
                f"{move} is not legal: captures are compulsory "
                f"({', '.join(str(m) for m in captures)})"
            )
        if not move.is_capture:
            if (occupied >> (move.target - 1)) & 1:
                return f"{move} is not legal: {move.target} is occupied"
            return f"{move} is not legal: a man moves forward only"
        same_start = [str(m) for m in captures if m.origin == move.origin]
        if same_start:
            return (
                f"{move} is not legal: the captures from {move.origin} are "
                f"{', '.join(same_start)} (a capture goes on while it can, and a man crowned by "
                "a capture stops)"
            )
        return f"{move} is not legal: the piece on {move.origin} has no such capture"

    def decided_outcome(self) -> Outcome | None:
        """The outcome if this position ends the game by itself: no legal move (a loss for the
        side to move, which takes precedence) or the 40-move rule (a draw)."""
        result = kernels.decided_result(
            self.black, self.white, self.kings, int(self.black_to_move), self.quiet_plies
        )
        if result == kernels.NOT_OVER:
            return None
        if result == kernels.DRAW:
            return Outcome(termination=Termination.FORTY_MOVE_RULE, winner=None)
        return Outcome.from_result(Termination.NO_LEGAL_MOVE, int(result))

    def transformed(self, symmetry: int) -> Position:
        """Symmetry 0 is the identity; 1 turns the board half round and swaps the colours (and the
        side to move), which negates the value from Black's point of view."""
        _check_symmetry(symmetry)
        if symmetry == 0:
            return self
        return Position(
            kernels.half_turn(self.white),
            kernels.half_turn(self.black),
            kernels.half_turn(self.kings),
            not self.black_to_move,
            self.quiet_plies,
        )

    def perft(self, depth: int) -> int:
        """The number of legal move sequences of ``depth`` plies (draws ignored)."""
        if not isinstance(depth, int) or depth < 0 or depth > 64:
            raise ValueError(f"perft depth must be an integer from 0 to 64, not {depth!r}")
        count = kernels.perft(self.black, self.white, self.kings, int(self.black_to_move), depth)
        if count < 0:
            raise RuntimeError(f"a position in perft from {self} has more than {MAX_MOVES} moves")
        return count

    def network_inputs(self) -> np.ndarray:
        """The indices of the network inputs that are 1 (see :func:`kernels.network_inputs`)."""
        out = np.empty(2 * MEN, dtype=np.int64)
        n = kernels.network_inputs(self.black, self.white, self.kings, int(self.black_to_move), out)
        return out[:n]

    @classmethod
    def parse(cls, text: str) -> Position:
        """Read a PDN FEN such as ``B:W21,22:B1,K2``."""
        return parse_position(text)

    def __str__(self) -> str:
        return format_position(self)


def position_problem(black: int, white: int, kings: int, quiet_plies: int) -> str:
    """What makes these masks no position, or '' if they are one: every check a
    :class:`Position` makes, for callers that read positions from elsewhere (a data set's rows)
    and want the reason rather than an exception."""
    for name, value in (("black", black), ("white", white), ("kings", kings)):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= FULL:
            return f"{name} must be a 32-bit mask, not {value!r}"
    if black & white:
        return f"squares {_squares(black & white)} hold both a black and a white piece"
    if kings & ~(black | white):
        return f"kings on {_squares(kings & ~(black | white))} belong to neither side"
    for name, pieces in (("Black", black), ("White", white)):
        if pieces.bit_count() > MEN:
            return f"{name} has {pieces.bit_count()} pieces, more than 12"
    if black & ~kings & BLACK_CROWN_ROW:
        crowned = _squares(black & ~kings & BLACK_CROWN_ROW)
        return f"a black man stands on {crowned}, where it would be a king"
    if white & ~kings & WHITE_CROWN_ROW:
        crowned = _squares(white & ~kings & WHITE_CROWN_ROW)
        return f"a white man stands on {crowned}, where it would be a king"
    if not isinstance(quiet_plies, int) or isinstance(quiet_plies, bool) or quiet_plies < 0:
        return f"the quiet plies must be a count, not {quiet_plies!r}"
    return ""


def _squares(mask: int) -> str:
    return ", ".join(str(i + 1) for i in range(SQUARES) if (mask >> i) & 1)


def format_position(position: Position) -> str:
    """PDN FEN: side to move, White's squares, Black's, kings prefixed ``K``. A non-zero 40-move
    count is added as a fourth field, ``:Q<plies>`` (ours; the count is part of the state as the
    half-move clock is in chess, and PDN has no field for it)."""

    def field(colour: str, pieces: int) -> str:
        names = [
            ("K" if (position.kings >> i) & 1 else "") + str(i + 1)
            for i in range(SQUARES)
            if (pieces >> i) & 1
        ]
        return colour + ",".join(names)

    text = ("B" if position.black_to_move else "W") + ":" + field("W", position.white)
    text += ":" + field("B", position.black)
    if position.quiet_plies:
        text += f":Q{position.quiet_plies}"
    return text


_FEN_SQUARE = re.compile(r"(K?)([0-9]+)(?:-([0-9]+))?")  # ASCII digits, as in moves


def parse_position(text: str) -> Position:
    """Read a PDN FEN (``B:W21,...:B1,...``, kings prefixed ``K``, ranges such as ``B1-12``, an
    optional ``:Q<plies>`` 40-move count); raise :class:`NotationError` saying what is wrong."""
    text = check_length(text, "a position", MAX_POSITION_CHARS)
    fields = [part.strip() for part in text.rstrip(".").split(":")]
    if len(fields) not in (3, 4):
        raise NotationError(
            f"{text!r} is not a position: expected the side to move and each colour's squares "
            "separated by ':', as in 'B:W21,22,23:B1,2,3'"
        )
    if fields[0] not in ("B", "W"):
        raise NotationError(f"{text!r}: the side to move is B or W, not {fields[0]!r}")
    quiet = 0
    if len(fields) == 4:
        if not re.fullmatch(r"Q[0-9]{1,4}", fields[3]):
            raise NotationError(
                f"{text!r}: the fourth field is the 40-move count, as Q12, not {fields[3]!r}"
            )
        quiet = int(fields[3][1:])
    colours = [f[:1] for f in fields[1:3]]
    if sorted(colours) != ["B", "W"]:
        raise NotationError(
            f"{text!r}: expected one field of White's squares (W...) and one of Black's (B...), "
            f"not {fields[1]!r} and {fields[2]!r}"
        )
    pieces = {"B": 0, "W": 0}
    kings = 0
    seen = 0
    for f in fields[1:3]:
        colour, body = f[0], f[1:].strip()
        for item in [part.strip() for part in body.split(",")] if body else []:
            match = _FEN_SQUARE.fullmatch(item)
            if not match:
                raise NotationError(
                    f"{text!r}: {item!r} is not a square: write 21, K21 for a king, or 1-12"
                )
            king, first, last = match.group(1), int(match.group(2)), match.group(3)
            last = first if last is None else int(last)
            _check_square(first, text)
            _check_square(last, text)
            if last < first:
                raise NotationError(f"{text!r}: the range {item!r} runs backwards")
            for square in range(first, last + 1):
                bit = 1 << (square - 1)
                if seen & bit:
                    raise NotationError(f"{text!r}: square {square} is used twice")
                seen |= bit
                pieces[colour] |= bit
                if king:
                    kings |= bit
    for colour, name in (("B", "Black"), ("W", "White")):
        if pieces[colour].bit_count() > MEN:
            raise NotationError(
                f"{text!r}: {name} has {pieces[colour].bit_count()} pieces; a side has at most 12"
            )
    black_men_crowned = pieces["B"] & ~kings & BLACK_CROWN_ROW
    if black_men_crowned:
        raise NotationError(
            f"{text!r}: a black man on {_squares(black_men_crowned)}, Black's crowning row, "
            "would be a king (write K)"
        )
    white_men_crowned = pieces["W"] & ~kings & WHITE_CROWN_ROW
    if white_men_crowned:
        raise NotationError(
            f"{text!r}: a white man on {_squares(white_men_crowned)}, White's crowning row, "
            "would be a king (write K)"
        )
    return Position(pieces["B"], pieces["W"], kings, fields[0] == "B", quiet)


def draw_board(position: Position) -> str:
    """The board as text, from White's side, with each row's square numbers beside it.

    >>> print(draw_board(Position.parse("W:WK14,30:B1,K23")))
    8     b   .   .   .     1  2  3  4
    7   .   .   .   .       5  6  7  8
    6     .   .   .   .     9 10 11 12
    5   .   W   .   .      13 14 15 16
    4     .   .   .   .    17 18 19 20
    3   .   .   B   .      21 22 23 24
    2     .   .   .   .    25 26 27 28
    1   .   w   .   .      29 30 31 32
        a b c d e f g h
    White to move (b B Black's men and kings, w W White's)
    """
    lines = []
    for row in range(8):
        cells = [" "] * 8
        for k in range(4):
            i = 4 * row + k
            bit = 1 << i
            char = "."
            if position.black & bit:
                char = "B" if position.kings & bit else "b"
            elif position.white & bit:
                char = "W" if position.kings & bit else "w"
            cells[column_of(i)] = char
        numbers = " ".join(f"{4 * row + k + 1:2}" for k in range(4))
        lines.append(f"{8 - row}   {' '.join(cells)}    {numbers}")
    lines.append("    a b c d e f g h")
    side = "Black" if position.black_to_move else "White"
    lines.append(f"{side} to move (b B Black's men and kings, w W White's)")
    if position.quiet_plies:
        lines[-1] += f"; {position.quiet_plies} plies without a capture or a man's move"
    return "\n".join(lines)


class EnglishDraughts(PositionRules):
    """The :class:`~samuel.games.base.GameRules` of English draughts, registered as
    ``draughts``."""

    name = DESCRIPTOR.name
    title = DESCRIPTOR.title
    move_type = Move
    number = DRAUGHTS
    key_words = 4  # the key covers the pieces and the side to move, not the 40-move count
    sides = DESCRIPTOR.sides
    side_letters = DESCRIPTOR.side_letters  # the command line's -B/--black and -W/--white
    win_phrases = ("Black wins", "White wins")  # by side, as results are said
    view_phrase = "Black's view"  # whose view scores take: the first player's
    move_help = (
        "type a step as 11-15 and a capture with every landing square, as 22x15 or 15x24x31 "
        "(squares 1-32 as numbered beside the board)"
    )
    # Counts grow about 4.6-fold a ply (18,391,564 at 10, 388,623,673 at 12; docs/rules-draughts.md)
    # so perft 20 is about 1e14, far inside the 64-bit count, and already takes days; deeper counts
    # are for programs built for them.
    max_perft_depth = 20
    symmetry_count = SYMMETRY_COUNT
    terminations = Termination
    # PDN, which other draughts programs read: GameType 21 is English draughts; the FEN tag (with
    # SetUp "1") only for a start other than the initial position. Results are written 1-0, 0-1
    # and 1/2-1/2, the first player's (Black's) score first, as PGN writes its first player's
    # (White's): the tokens DRAUGHTS.md names, which PDN readers for English draughts take (PDN
    # 3.0's 2-0, 0-2 and 1-1 score international draughts, 2 points a win, and are read too).
    record_format = RecordFormat(
        game_tag="GameType",
        game_value="21",
        start_tag="FEN",
        start_always=False,
        setup_tag=True,
        result_aliases={"2-0": 1, "0-2": -1, "1-1": 0},
        suffix=".pdn",
    )

    def __repr__(self) -> str:
        return "EnglishDraughts()"

    def initial_position(self) -> Position:
        return Position.initial()

    def legal_moves(self, position: Position) -> list[Move]:
        return position.legal_moves()

    def play(self, position: Position, move: Move) -> Position:
        return position.play(move)

    def side_to_move(self, position: Position) -> int:
        return 0 if position.black_to_move else 1

    def is_irreversible(self, position: Position, move: Move) -> bool:
        return bool(
            kernels.is_irreversible(position.black, position.white, position.kings, move.code)
        )

    def parse_position(self, text: str) -> Position:
        return parse_position(text)

    def format_position(self, position: Position) -> str:
        return format_position(position)

    def draw_board(self, position: Position) -> str:
        return draw_board(position)

    def classic_weights(self, path: str | None = None) -> np.ndarray:
        return classic.load_weights(path)

    def perft(self, position: Position, depth: int) -> int:
        """The number of legal move sequences of ``depth`` plies (at most
        :attr:`max_perft_depth`) from ``position``; draws are ignored, as in the published counts.

        >>> RULES.perft(RULES.initial_position(), 3)
        302
        """
        if not 0 <= depth <= self.max_perft_depth:
            raise ValueError(f"perft depth must be 0 to {self.max_perft_depth}, not {depth!r}")
        return position.perft(depth)


RULES = EnglishDraughts()

__all__ = [
    "RULES",
    "EnglishDraughts",
    "Move",
    "Position",
    "Square",
    "Termination",
    "draw_board",
    "format_position",
    "parse_position",
    "position_problem",
]
