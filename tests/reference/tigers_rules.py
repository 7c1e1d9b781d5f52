"""A plain, slow, obviously correct Tigers & Sheep, written from docs/rules-tigers.md alone.

Nothing here comes from :mod:`samuel.games.tigers`: points are ``(x, y)`` pairs, the board is a
dict from a point to ``"T"`` or ``"S"``, the lines are written out as lists of directions, and
moves are the notation strings themselves (``"c3"``, ``"a1-b2"``, ``"a1xc3"``). The tests check
the compiled engine against it; speed is no concern here, clarity is.

>>> start = initial()
>>> len(legal_moves(start))
21
>>> format_position(play(start, "c3"))
'T3T/5/2S2/5/T3T T 19'
>>> [perft(start, depth) for depth in range(4)]
[1, 21, 252, 5052]
"""

from __future__ import annotations

from dataclasses import dataclass, field

SIZE = 5
COLUMNS = "abcde"  # x = 0..4
TIGER = "T"
SHEEP = "S"
ALL_SHEEP = 20
CAPTURES_TO_WIN = 5

# Every point is joined to its orthogonal neighbours ...
ORTHOGONAL = [(1, 0), (-1, 0), (0, 1), (0, -1)]
# ... and a point whose x + y is even also to its diagonal neighbours.
DIAGONAL = [(1, 1), (1, -1), (-1, 1), (-1, -1)]

Point = tuple[int, int]


@dataclass
class ReferencePosition:
    """The pieces on the board, the sheep in hand and whose turn it is."""

    board: dict[Point, str] = field(default_factory=dict)
    sheep_in_hand: int = ALL_SHEEP
    tiger_to_move: bool = False


def all_points() -> list[Point]:
    return [(x, y) for y in range(SIZE) for x in range(SIZE)]


def on_board(p: Point) -> bool:
    x, y = p
    return 0 <= x < SIZE and 0 <= y < SIZE


def line_directions(p: Point) -> list[Point]:
    """The directions of the lines leaving point ``p``."""
    x, y = p
    if (x + y) % 2 == 0:
        return ORTHOGONAL + DIAGONAL
    return ORTHOGONAL


def neighbours(p: Point) -> list[Point]:
    """The points joined to ``p`` by a line."""
    x, y = p
    return [(x + dx, y + dy) for dx, dy in line_directions(p) if on_board((x + dx, y + dy))]


def joined(p: Point, q: Point) -> bool:
    return q in neighbours(p)


def point_name(p: Point) -> str:
    x, y = p
    return f"{COLUMNS[x]}{y + 1}"


def parse_point(text: str) -> Point:
    if len(text) != 2 or text[0] not in COLUMNS or text[1] not in "12345":
        raise ValueError(f"not a point: {text!r}")
    return COLUMNS.index(text[0]), int(text[1]) - 1


def initial() -> ReferencePosition:
    tigers = [(0, 0), (4, 0), (0, 4), (4, 4)]  # a1 e1 a5 e5
    return ReferencePosition({p: TIGER for p in tigers}, ALL_SHEEP, False)


def sheep_on_board(position: ReferencePosition) -> int:
    return sum(1 for piece in position.board.values() if piece == SHEEP)


def captured(position: ReferencePosition) -> int:
    return ALL_SHEEP - position.sheep_in_hand - sheep_on_board(position)


def empty(position: ReferencePosition, p: Point) -> bool:
    return p not in position.board


def legal_moves(position: ReferencePosition) -> list[str]:
    """Every legal move, as notation strings, sorted. A finished game has none."""
    if captured(position) >= CAPTURES_TO_WIN:
        return []
    moves = []
    if not position.tiger_to_move and position.sheep_in_hand > 0:
        for p in all_points():
            if empty(position, p):
                moves.append(point_name(p))
    elif not position.tiger_to_move:
        for p in all_points():
            if position.board.get(p) == SHEEP:
                for q in neighbours(p):
                    if empty(position, q):
                        moves.append(f"{point_name(p)}-{point_name(q)}")
    else:
        for p in all_points():
            if position.board.get(p) != TIGER:
                continue
            for q in neighbours(p):
                if empty(position, q):
                    moves.append(f"{point_name(p)}-{point_name(q)}")
            x, y = p
            for dx, dy in line_directions(p):
                over = (x + dx, y + dy)
                land = (x + 2 * dx, y + 2 * dy)
                if not on_board(land):
                    continue
                # Straight along one line: p to over, and over on to land in the same direction.
                assert joined(p, over) and joined(over, land)
                if position.board.get(over) == SHEEP and empty(position, land):
                    moves.append(f"{point_name(p)}x{point_name(land)}")
    return sorted(moves)


def apply(position: ReferencePosition, move: str) -> ReferencePosition:
    """The position after ``move``, which must be legal (not checked)."""
    board = dict(position.board)
    hand = position.sheep_in_hand
    if len(move) == 2:
        board[parse_point(move)] = SHEEP
        hand -= 1
    else:
        origin, target = parse_point(move[:2]), parse_point(move[3:])
        board[target] = board.pop(origin)
        if move[2] == "x":
            middle = ((origin[0] + target[0]) // 2, (origin[1] + target[1]) // 2)
            assert board[middle] == SHEEP
            del board[middle]
    return ReferencePosition(board, hand, not position.tiger_to_move)


def play(position: ReferencePosition, move: str) -> ReferencePosition:
    """The position after ``move``; raises ValueError if it is not legal."""
    if move not in legal_moves(position):
        raise ValueError(f"{move} is not legal in {format_position(position)}")
    return apply(position, move)


def outcome(position: ReferencePosition) -> tuple[str, int] | None:
    """``(how, result)`` if the position ends the game by itself, else None. Results are from
    the tigers' point of view."""
    if captured(position) >= CAPTURES_TO_WIN:
        return "five captured", 1
    if not legal_moves(position):
        if position.tiger_to_move:
            return "tigers blocked", -1
        return "sheep blocked", 1
    return None


def perft(position: ReferencePosition, depth: int) -> int:
    """The number of legal move sequences of ``depth`` plies."""
    if depth == 0:
        return 1
    return sum(perft(apply(position, move), depth - 1) for move in legal_moves(position))


def format_position(position: ReferencePosition) -> str:
    """The one-line position string: rows 5 down to 1, side to move, sheep in hand."""
    rows = []
    for y in reversed(range(SIZE)):
        row = ""
        run = 0
        for x in range(SIZE):
            piece = position.board.get((x, y))
            if piece is None:
                run += 1
                continue
            if run:
                row += str(run)
                run = 0
            row += piece
        if run:
            row += str(run)
        rows.append(row)
    side = "T" if position.tiger_to_move else "S"
    return f"{'/'.join(rows)} {side} {position.sheep_in_hand}"


def parse_position(text: str) -> ReferencePosition:
    """Read a position string; checks only that it is well formed."""
    rows_text, side, hand = text.split(" ")
    rows = rows_text.split("/")
    if len(rows) != SIZE or side not in ("S", "T"):
        raise ValueError(f"not a position: {text!r}")
    board = {}
    for row, y in zip(rows, reversed(range(SIZE)), strict=True):
        x = 0
        for char in row:
            if char in "12345":
                x += int(char)
            elif char in (TIGER, SHEEP):
                board[(x, y)] = char
                x += 1
            else:
                raise ValueError(f"not a position: {text!r}")
        if x != SIZE:
            raise ValueError(f"not a position: {text!r}")
    return ReferencePosition(board, int(hand), side == "T")


# The 8 symmetries of the square, as maps of (x, y): four rotations, then four reflections.
SYMMETRY_MAPS = [
    lambda x, y: (x, y),
    lambda x, y: (SIZE - 1 - y, x),
    lambda x, y: (SIZE - 1 - x, SIZE - 1 - y),
    lambda x, y: (y, SIZE - 1 - x),
    lambda x, y: (SIZE - 1 - x, y),
    lambda x, y: (x, SIZE - 1 - y),
    lambda x, y: (y, x),
    lambda x, y: (SIZE - 1 - y, SIZE - 1 - x),
]


def images(position: ReferencePosition) -> list[ReferencePosition]:
    """The position under each of the 8 symmetries (in no promised order)."""
    return [
        ReferencePosition(
            {transform(x, y): piece for (x, y), piece in position.board.items()},
            position.sheep_in_hand,
            position.tiger_to_move,
        )
        for transform in SYMMETRY_MAPS
    ]
