"""The compiled hot core of English draughts: move generation, make-move, keys and perft.

Everything here takes plain integers and NumPy arrays and does not check its inputs; the friendly,
checked API is :mod:`samuel.games.draughts.rules`.

A position is five integers: ``black`` and ``white`` (32-bit masks of each side's pieces),
``kings`` (the mask of the kings of both sides), ``black_to_move`` (1 when Black, the first
player, is to move) and ``quiet_plies`` (plies in a row without a capture or a move of a man, for
the 40-move rule; perft and move generation ignore it).

A move is one integer::

    origin | target << 5 | jumps << 10 | direction[0] << 14 | direction[1] << 16 | ...

``origin`` and ``target`` are square indices (0-31), ``jumps`` the number of jumps (0 for a
step) and ``direction[j]`` (2 bits, :mod:`board`'s ``UP_LEFT`` ...) the direction of jump ``j``.
The path is in the move, so two captures that share their first and last squares, or even the
pieces they take, are different moves (docs/rules-draughts.md, "Perft").
"""

from __future__ import annotations

import numpy as np

from samuel.bits import popcount
from samuel.jit import kernel

from .board import (
    BLACK_CROWN_ROW,
    BLACK_FIRST_DIRECTION,
    EVEN_FROM,
    EVEN_SHIFT,
    FULL,
    HALF_TURN,
    JUMP_LAND,
    JUMP_OVER,
    MAX_MOVES,
    ODD_FROM,
    ODD_SHIFT,
    OPPOSITE,
    STEP,
    WHITE_CROWN_ROW,
    WHITE_FIRST_DIRECTION,
)

SQUARE_BITS = 5
SQUARE_FIELD = 31
JUMPS_SHIFT = 10
JUMPS_FIELD = 15
PATH_SHIFT = 14

# Results, Black's (the first player's) point of view.
BLACK_WIN = 1
WHITE_WIN = -1
DRAW = 0
NOT_OVER = 2

# The 40-move rule (docs/rules-draughts.md): 80 plies in a row without a capture or a man's move.
QUIET_PLY_LIMIT = 80

OPPOSITE_DIRECTION = np.array(OPPOSITE, dtype=np.int64)


@kernel
def lowest_square(mask: int) -> int:
    """Index of the lowest set bit of a non-zero mask (at most 32 bits)."""
    return popcount((mask & -mask) - 1)


@kernel
def shift_towards(squares: int, direction: int) -> int:
    """The neighbours, in ``direction``, of a set of squares (those that have one)."""
    even = squares & EVEN_FROM[direction]
    odd = squares & ODD_FROM[direction]
    a = EVEN_SHIFT[direction]
    b = ODD_SHIFT[direction]
    even = (even << a) if a > 0 else (even >> -a)
    odd = (odd << b) if b > 0 else (odd >> -b)
    return (even | odd) & FULL


@kernel
def move_origin(move: int) -> int:
    return move & SQUARE_FIELD


@kernel
def move_target(move: int) -> int:
    return (move >> SQUARE_BITS) & SQUARE_FIELD


@kernel
def move_jumps(move: int) -> int:
    return (move >> JUMPS_SHIFT) & JUMPS_FIELD


@kernel
def move_captured(move: int) -> int:
    """The mask of the pieces a move captures (0 for a step)."""
    square = move & SQUARE_FIELD
    captured = 0
    for j in range((move >> JUMPS_SHIFT) & JUMPS_FIELD):
        direction = (move >> (PATH_SHIFT + 2 * j)) & 3
        captured |= 1 << JUMP_OVER[square, direction]
        square = JUMP_LAND[square, direction]
    return captured


@kernel
def _sides(black: int, white: int, black_to_move: int):
    """``(own, opponent, own men's first direction)`` for the side to move."""
    if black_to_move:
        return black, white, BLACK_FIRST_DIRECTION
    return white, black, WHITE_FIRST_DIRECTION


@kernel
def jumpers(black: int, white: int, kings: int, black_to_move: int) -> int:
    """The pieces of the side to move that can capture now."""
    own, opponent, first = _sides(black, white, black_to_move)
    empty = FULL & ~(black | white)
    found = 0
    for d in range(4):
        movers = own if d == first or d == first + 1 else own & kings
        back = OPPOSITE_DIRECTION[d]
        found |= shift_towards(shift_towards(empty, back) & opponent, back) & movers
    return found


@kernel
def _capture_sequences(
    origin: int,
    is_king: int,
    first: int,
    opponent: int,
    empty: int,
    crown_row: int,
    moves: np.ndarray,
    n: int,
) -> int:
    """Every capture sequence of the piece on ``origin`` written into ``moves`` from index ``n``
    (never past its end); returns the new count, which goes on counting past the end.

    Depth-first over jumps, without recursion (numba cannot cache recursive functions) and
    without a stack: the path so far is the move's code, and stepping back undoes its last jump
    (the square two steps back the other way, the piece jumped between them). Jumped pieces stay
    on the board until the move ends: they can be neither landed on nor jumped again. A man that
    lands on its crown row stops there.
    """
    low = 0 if is_king else first
    high = 3 if is_king else first + 1
    capacity = moves.shape[0]
    square = origin
    taken = 0  # the pieces jumped so far
    path = origin  # the move's code so far: origin and directions
    depth = 0  # jumps so far
    d = low  # the next direction to try from here
    went_on = False  # whether some jump left this landing square
    while True:
        if d > high:
            if depth > 0 and not went_on:
                if n < capacity:
                    moves[n] = path | (square << SQUARE_BITS) | (depth << JUMPS_SHIFT)
                n += 1
            if depth == 0:
                return n
            depth -= 1
            last = (path >> (PATH_SHIFT + 2 * depth)) & 3
            path ^= last << (PATH_SHIFT + 2 * depth)
            square = JUMP_LAND[square, OPPOSITE_DIRECTION[last]]
            taken ^= 1 << JUMP_OVER[square, last]
            d = last + 1
            went_on = True
            continue
        over = JUMP_OVER[square, d]
        if over >= 0 and (opponent >> over) & 1 and not (taken >> over) & 1:
            land = JUMP_LAND[square, d]
            if (empty >> land) & 1:
                went_on = True
                if not is_king and (crown_row >> land) & 1:
                    if n < capacity:
                        moves[n] = (
                            path
                            | (d << (PATH_SHIFT + 2 * depth))
                            | (land << SQUARE_BITS)
                            | ((depth + 1) << JUMPS_SHIFT)
                        )
                    n += 1
                else:
                    path |= d << (PATH_SHIFT + 2 * depth)
                    taken |= 1 << over
                    square = land
                    depth += 1
                    d = low
                    went_on = False
                    continue
        d += 1


@kernel
def generate_moves(
    black: int, white: int, kings: int, black_to_move: int, moves: np.ndarray
) -> int:
    """Write the legal moves into ``moves`` and return how many (captures only, if there is one).

    Never writes past the end of ``moves``; the count returned is the true one, so a count above
    ``len(moves)`` means the buffer was too small. Threefold repetition and the 40-move rule are
    not seen here: they are the game's and the search's business.
    """
    own, opponent, first = _sides(black, white, black_to_move)
    crown_row = BLACK_CROWN_ROW if black_to_move else WHITE_CROWN_ROW
    capacity = moves.shape[0]
    n = 0
    can_jump = jumpers(black, white, kings, black_to_move)
    if can_jump:
        empty = FULL & ~(black | white)  # the origin is added per piece below
        rest = can_jump
        while rest:
            p = lowest_square(rest)
            rest &= rest - 1
            n = _capture_sequences(
                p, (kings >> p) & 1, first, opponent, empty | (1 << p), crown_row, moves, n
            )
        return n
    empty = FULL & ~(black | white)
    for d in range(4):
        movers = own if d == first or d == first + 1 else own & kings
        back = OPPOSITE_DIRECTION[d]
        rest = shift_towards(movers, d) & empty
        while rest:
            q = lowest_square(rest)
            rest &= rest - 1
            if n < capacity:
                moves[n] = STEP[q, back] | (q << SQUARE_BITS)
            n += 1
    return n


@kernel
def count_moves(black: int, white: int, kings: int, black_to_move: int) -> int:
    """How many legal moves ``generate_moves`` would write, without writing them."""
    own, opponent, first = _sides(black, white, black_to_move)
    can_jump = jumpers(black, white, kings, black_to_move)
    if can_jump:
        crown_row = BLACK_CROWN_ROW if black_to_move else WHITE_CROWN_ROW
        empty = FULL & ~(black | white)
        nowhere = np.empty(0, dtype=np.int64)
        n = 0
        rest = can_jump
        while rest:
            p = lowest_square(rest)
            rest &= rest - 1
            n = _capture_sequences(
                p, (kings >> p) & 1, first, opponent, empty | (1 << p), crown_row, nowhere, n
            )
        return n
    empty = FULL & ~(black | white)
    n = 0
    for d in range(4):
        movers = own if d == first or d == first + 1 else own & kings
        n += popcount(shift_towards(movers, d) & empty)
    return n


@kernel
def play_move(black: int, white: int, kings: int, black_to_move: int, quiet_plies: int, move: int):
    """The position after ``move`` (assumed legal), as
    ``(black, white, kings, black_to_move, quiet_plies)``."""
    origin = move & SQUARE_FIELD
    target = (move >> SQUARE_BITS) & SQUARE_FIELD
    captured = move_captured(move)
    was_king = (kings >> origin) & 1
    kings &= ~captured
    if was_king:
        kings = (kings & ~(1 << origin)) | (1 << target)
    elif (BLACK_CROWN_ROW if black_to_move else WHITE_CROWN_ROW) >> target & 1:
        kings |= 1 << target
    quiet_plies = quiet_plies + 1 if was_king and captured == 0 else 0
    if black_to_move:
        black = (black & ~(1 << origin)) | (1 << target)
        white &= ~captured
        return black, white, kings, 0, quiet_plies
    white = (white & ~(1 << origin)) | (1 << target)
    black &= ~captured
    return black, white, kings, 1, quiet_plies


@kernel
def is_irreversible(black: int, white: int, kings: int, move: int) -> bool:
    """True if ``move`` captures or moves a man: no earlier position can occur again."""
    return move_jumps(move) > 0 or not (kings >> (move & SQUARE_FIELD)) & 1


@kernel
def _mix(x: int) -> int:
    """splitmix64's finaliser on the bits of an int64 (wrapping arithmetic, logical shifts)."""
    x = (x ^ ((x >> 30) & 0x3FFFFFFFF)) * -4658895280553007687  # 0xBF58476D1CE4E5B9
    x = (x ^ ((x >> 27) & 0x1FFFFFFFFF)) * -7723592293110705685  # 0x94D049BB133111EB
    return x ^ ((x >> 31) & 0x1FFFFFFFF)


@kernel
def position_key(black: int, white: int, kings: int, black_to_move: int) -> int:
    """A 64-bit key of the pieces and the side to move, for repetition and the transposition
    table; the 40-move count is not in it. The position takes 97 bits, so the key is a hash (two
    splitmix64 rounds), not exact; a collision needs two of some 2^32 positions in one game."""
    return _mix(_mix(black | (white << 32)) ^ (kings | (black_to_move << 32)))


@kernel
def decided_result(black: int, white: int, kings: int, black_to_move: int, quiet_plies: int) -> int:
    """The result if the position itself ends the game, else ``NOT_OVER``: the side to move with
    no legal move loses; 80 quiet plies (the 40-move rule) draw. A side left without a move on the
    80th quiet ply loses. Repetition needs the game's history and is not seen here."""
    if count_moves(black, white, kings, black_to_move) == 0:
        return WHITE_WIN if black_to_move else BLACK_WIN
    if quiet_plies >= QUIET_PLY_LIMIT:
        return DRAW
    return NOT_OVER


@kernel
def half_turn(mask: int) -> int:
    """The image of a set of squares under the half-turn (square i to 31 - i)."""
    image = 0
    rest = mask
    while rest:
        p = lowest_square(rest)
        rest &= rest - 1
        image |= 1 << HALF_TURN[p]
    return image


@kernel
def half_turn_move(move: int) -> int:
    """The image of a move under the half-turn: every direction reverses."""
    image = (31 - (move & SQUARE_FIELD)) | ((31 - ((move >> SQUARE_BITS) & SQUARE_FIELD)) << 5)
    jumps = (move >> JUMPS_SHIFT) & JUMPS_FIELD
    image |= jumps << JUMPS_SHIFT
    for j in range(jumps):
        direction = (move >> (PATH_SHIFT + 2 * j)) & 3
        image |= OPPOSITE_DIRECTION[direction] << (PATH_SHIFT + 2 * j)
    return image


@kernel
def perft(black: int, white: int, kings: int, black_to_move: int, depth: int) -> int:
    """The number of legal move sequences of ``depth`` plies (bulk-counted at the last ply), or
    -1 if a position on the way has more than ``MAX_MOVES`` moves. Draws (repetition, the 40-move
    rule) are ignored, as in the published counts.

    Iterative, with an explicit stack: numba's cache cannot hold recursive functions (numba
    issue #6061).
    """
    if depth == 0:
        return 1
    if depth == 1:
        return count_moves(black, white, kings, black_to_move)
    moves = np.empty((depth, MAX_MOVES), dtype=np.int64)
    stack = np.empty((depth, 4), dtype=np.int64)  # the position at each ply
    count = np.zeros(depth, dtype=np.int64)  # moves generated at each ply
    index = np.zeros(depth, dtype=np.int64)  # the next move to try at each ply
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = black, white, kings, black_to_move
    count[0] = generate_moves(black, white, kings, black_to_move, moves[0])
    if count[0] > MAX_MOVES:
        return -1  # more moves than the buffers hold (not seen in play): the caller says so
    total = 0
    ply = 0
    while ply >= 0:
        if index[ply] == count[ply]:
            ply -= 1
            continue
        move = moves[ply, index[ply]]
        index[ply] += 1
        b, w, k, side, _ = play_move(
            stack[ply, 0], stack[ply, 1], stack[ply, 2], stack[ply, 3], 0, move
        )
        if ply + 2 == depth:
            total += count_moves(b, w, k, side)
        else:
            ply += 1
            stack[ply, 0], stack[ply, 1], stack[ply, 2], stack[ply, 3] = b, w, k, side
            count[ply] = generate_moves(b, w, k, side, moves[ply])
            if count[ply] > MAX_MOVES:
                return -1
            index[ply] = 0
    return total


# The network's inputs (the draughts course docs/draughts.md follows): four groups of 32, one input
# per square, seen from the side to move: its men, its kings, the opponent's men, its kings.
# White sees the board turned half round (square i as 31 - i), so a position and its colour-swapped
# half-turn image give the same inputs.
NETWORK_INPUTS = 128
MY_MEN, MY_KINGS, THEIR_MEN, THEIR_KINGS = 0, 32, 64, 96


@kernel
def network_inputs(black: int, white: int, kings: int, black_to_move: int, out: np.ndarray) -> int:
    """Write the indices of the inputs that are 1 into ``out`` (room for 24), in increasing
    order; return how many."""
    own = black if black_to_move else white
    opponent = white if black_to_move else black
    n = 0
    for group in range(4):
        pieces = own if group < 2 else opponent
        pieces = pieces & kings if group % 2 else pieces & ~kings
        offset = 32 * group
        found = 0
        rest = pieces
        while rest:
            p = lowest_square(rest)
            rest &= rest - 1
            out[n + found] = offset + (p if black_to_move else 31 - p)
            found += 1
        if not black_to_move:  # White's squares came out in decreasing order: reverse them
            for j in range(found // 2):
                a = out[n + j]
                out[n + j] = out[n + found - 1 - j]
                out[n + found - 1 - j] = a
        n += found
    return n
