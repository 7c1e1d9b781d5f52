"""A plain, slow, obviously correct English draughts, written from docs/rules-draughts.md alone.

Nothing here comes from :mod:`samuel.games.draughts`: the board is a dict from ``(row, column)``
(row 0 at the top, seen from White's side) to ``"b"``, ``"B"`` (Black's man, king), ``"w"``,
``"W"``; capture sequences are found by plain recursion; moves are PDN strings with every landing
square (``"9-13"``, ``"15x24x31"``). The tests check the compiled engine against it; speed is no
concern here, clarity is.

>>> start = initial()
>>> sorted(legal_moves(start))
['10-14', '10-15', '11-15', '11-16', '12-16', '9-13', '9-14']
>>> [perft(start, depth) for depth in range(5)]
[1, 7, 49, 302, 1469]
"""

from __future__ import annotations

from dataclasses import dataclass

Square = tuple[int, int]  # (row, column), both 0-7


@dataclass
class ReferencePosition:
    board: dict[Square, str]
    black_to_move: bool = True


def dark_squares() -> list[Square]:
    """The 32 playing squares in PDN order: row by row from the top, left to right."""
    return [(row, column) for row in range(8) for column in range(8) if (row + column) % 2 == 1]


def number(square: Square) -> int:
    """The PDN number (1-32) of a dark square."""
    return dark_squares().index(square) + 1


def square_of(n: int) -> Square:
    return dark_squares()[n - 1]


def initial() -> ReferencePosition:
    board = {}
    for n in range(1, 13):
        board[square_of(n)] = "b"
    for n in range(21, 33):
        board[square_of(n)] = "w"
    return ReferencePosition(board, True)


def owner(piece: str) -> str:
    return piece.lower()


def is_king(piece: str) -> bool:
    return piece.isupper()


def directions(piece: str) -> list[tuple[int, int]]:
    """Where a piece may go: Black's men down the board (row + 1), White's up, kings both ways."""
    if is_king(piece):
        return [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    if piece == "b":
        return [(1, -1), (1, 1)]
    return [(-1, -1), (-1, 1)]


def on_board(square: Square) -> bool:
    return 0 <= square[0] < 8 and 0 <= square[1] < 8


def crowning_row(piece: str) -> int:
    return 7 if owner(piece) == "b" else 0


def capture_paths(
    board: dict[Square, str], piece: str, at: Square, taken: list[Square]
) -> list[list[Square]]:
    """Every way for ``piece`` on ``at`` to go on jumping, having taken ``taken`` so far: a list
    of landing-square lists (an empty list when it cannot jump further). ``board`` has the moving
    piece lifted off its starting square; jumped pieces stay until the move ends."""
    me = owner(piece)
    paths = []
    for dr, dc in directions(piece):
        over = (at[0] + dr, at[1] + dc)
        land = (at[0] + 2 * dr, at[1] + 2 * dc)
        if not on_board(land):
            continue
        enemy = board.get(over)
        if enemy is None or owner(enemy) == me or over in taken:
            continue
        if land in board:
            continue
        if not is_king(piece) and land[0] == crowning_row(piece):
            paths.append([land])  # crowned by the capture: the move ends here
            continue
        further = capture_paths(board, piece, land, taken + [over])
        if not further:
            paths.append([land])
        for path in further:
            paths.append([land] + path)
    return paths


def legal_moves(position: ReferencePosition) -> list[str]:
    """Every legal move as a PDN string: only captures if there is one, by every path."""
    me = "b" if position.black_to_move else "w"
    captures = []
    steps = []
    for square, piece in position.board.items():
        if owner(piece) != me:
            continue
        lifted = dict(position.board)
        del lifted[square]
        for path in capture_paths(lifted, piece, square, []):
            captures.append("x".join(str(number(s)) for s in [square] + path))
        for dr, dc in directions(piece):
            to = (square[0] + dr, square[1] + dc)
            if on_board(to) and to not in position.board:
                steps.append(f"{number(square)}-{number(to)}")
    return captures if captures else steps


def apply(position: ReferencePosition, move: str) -> ReferencePosition:
    """The position after ``move`` (assumed legal)."""
    board = dict(position.board)
    if "x" in move:
        squares = [square_of(int(n)) for n in move.split("x")]
    else:
        squares = [square_of(int(n)) for n in move.split("-")]
    piece = board.pop(squares[0])
    if "x" in move:
        for a, b in zip(squares, squares[1:], strict=False):
            del board[((a[0] + b[0]) // 2, (a[1] + b[1]) // 2)]
    end = squares[-1]
    if not is_king(piece) and end[0] == crowning_row(piece):
        piece = piece.upper()
    board[end] = piece
    return ReferencePosition(board, not position.black_to_move)


def perft(position: ReferencePosition, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(apply(position, move), depth - 1) for move in legal_moves(position))


def format_position(position: ReferencePosition) -> str:
    """PDN FEN, White's squares then Black's, each ascending, kings prefixed K."""

    def field(colour: str) -> str:
        names = []
        for n in range(1, 33):
            piece = position.board.get(square_of(n))
            if piece is not None and owner(piece) == colour:
                names.append(("K" if is_king(piece) else "") + str(n))
        return colour.upper() + ",".join(names)

    side = "B" if position.black_to_move else "W"
    return f"{side}:{field('w')}:{field('b')}"


def half_turn(position: ReferencePosition) -> ReferencePosition:
    """The board turned half round with the colours swapped, and the other side to move."""
    swap = {"b": "w", "w": "b", "B": "W", "W": "B"}
    board = {(7 - r, 7 - c): swap[piece] for (r, c), piece in position.board.items()}
    return ReferencePosition(board, not position.black_to_move)
