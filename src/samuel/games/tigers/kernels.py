"""The compiled hot core of Tigers & Sheep: move generation, make-move, keys and perft.

Everything here takes plain integers and NumPy arrays and does not check its inputs; the friendly,
checked API is :mod:`samuel.games.tigers.rules`.

A position is four integers: ``tigers`` and ``sheep`` (25-bit masks), ``hand`` (sheep in hand) and
``tiger_to_move`` (0 or 1). A move is one integer ``origin | target << 5 | captured << 10``, where
``origin`` is ``NO_POINT`` for a placement and ``captured`` is ``NO_POINT`` unless the move is a
jump.

The captures that win the game are a parameter, ``captures_to_win``, of the kernels that judge
the end (``generate_moves``, ``count_moves``); it defaults to the standard 5
(``board.CAPTURES_TO_WIN``), so callers of the standard game omit it. Variants (4 and 6 are played;
1 and 2 make games small enough to solve in tests) pass it explicitly.
"""

from __future__ import annotations

import numpy as np

from samuel.bits import lowest_bit, popcount
from samuel.jit import kernel

from .board import (
    CAPTURES_TO_WIN,
    FULL,
    JUMP_COUNT,
    JUMP_LAND,
    JUMP_OVER,
    MAX_MOVES,
    SHEEP,
    STEP_COUNT,
    STEPS,
    SYMMETRIES,
)

NO_POINT = 25  # the move field for "no point": a placement's origin, a non-jump's captured point
POINT_BITS = 5
POINT_FIELD = 31

# Results, tigers' point of view.
TIGERS_WIN = 1
SHEEP_WIN = -1
DRAW = 0
NOT_OVER = 2


@kernel
def move_origin(move: int) -> int:
    return move & POINT_FIELD


@kernel
def move_captured(move: int) -> int:
    return (move >> (2 * POINT_BITS)) & POINT_FIELD


@kernel
def captured_sheep(sheep: int, hand: int) -> int:
    return SHEEP - hand - popcount(sheep)


@kernel
def generate_moves(
    tigers: int,
    sheep: int,
    hand: int,
    tiger_to_move: int,
    moves: np.ndarray,
    captures_to_win: int = CAPTURES_TO_WIN,
) -> int:
    """Write the legal moves into ``moves`` and return how many; a finished game has none.

    Threefold repetition is not seen here: it needs the game's history (the search and
    :class:`~samuel.games.tigers.rules.Game` handle it).
    """
    if captured_sheep(sheep, hand) >= captures_to_win:
        return 0
    empty = FULL & ~(tigers | sheep)
    n = 0
    if tiger_to_move:
        rest = tigers
        while rest:
            p = lowest_bit(rest)
            rest &= rest - 1
            for k in range(STEP_COUNT[p]):
                q = STEPS[p, k]
                if (empty >> q) & 1:
                    moves[n] = p | (q << POINT_BITS) | (NO_POINT << (2 * POINT_BITS))
                    n += 1
            for k in range(JUMP_COUNT[p]):
                over = JUMP_OVER[p, k]
                land = JUMP_LAND[p, k]
                if (sheep >> over) & 1 and (empty >> land) & 1:
                    moves[n] = p | (land << POINT_BITS) | (over << (2 * POINT_BITS))
                    n += 1
    elif hand > 0:
        rest = empty
        while rest:
            q = lowest_bit(rest)
            rest &= rest - 1
            moves[n] = NO_POINT | (q << POINT_BITS) | (NO_POINT << (2 * POINT_BITS))
            n += 1
    else:
        rest = sheep
        while rest:
            p = lowest_bit(rest)
            rest &= rest - 1
            for k in range(STEP_COUNT[p]):
                q = STEPS[p, k]
                if (empty >> q) & 1:
                    moves[n] = p | (q << POINT_BITS) | (NO_POINT << (2 * POINT_BITS))
                    n += 1
    return n


@kernel
def count_moves(
    tigers: int, sheep: int, hand: int, tiger_to_move: int, captures_to_win: int = CAPTURES_TO_WIN
) -> int:
    """How many legal moves ``generate_moves`` would write, without writing them."""
    if captured_sheep(sheep, hand) >= captures_to_win:
        return 0
    empty = FULL & ~(tigers | sheep)
    if tiger_to_move:
        n = 0
        rest = tigers
        while rest:
            p = lowest_bit(rest)
            rest &= rest - 1
            for k in range(STEP_COUNT[p]):
                n += (empty >> STEPS[p, k]) & 1
            for k in range(JUMP_COUNT[p]):
                n += ((sheep >> JUMP_OVER[p, k]) & (empty >> JUMP_LAND[p, k])) & 1
        return n
    if hand > 0:
        return popcount(empty)
    n = 0
    rest = sheep
    while rest:
        p = lowest_bit(rest)
        rest &= rest - 1
        for k in range(STEP_COUNT[p]):
            n += (empty >> STEPS[p, k]) & 1
    return n


@kernel
def play_move(tigers: int, sheep: int, hand: int, tiger_to_move: int, move: int):
    """The position after ``move`` (assumed legal), as ``(tigers, sheep, hand, tiger_to_move)``."""
    origin = move & POINT_FIELD
    target = (move >> POINT_BITS) & POINT_FIELD
    captured = (move >> (2 * POINT_BITS)) & POINT_FIELD
    if tiger_to_move:
        tigers = (tigers & ~(1 << origin)) | (1 << target)
        if captured != NO_POINT:
            sheep &= ~(1 << captured)
        return tigers, sheep, hand, 0
    if origin == NO_POINT:
        return tigers, sheep | (1 << target), hand - 1, 1
    return tigers, (sheep & ~(1 << origin)) | (1 << target), hand, 1


@kernel
def position_key(tigers: int, sheep: int, hand: int, tiger_to_move: int) -> int:
    """An exact key for repetition: the whole position packed into 56 bits."""
    return tigers | (sheep << 25) | (hand << 50) | (tiger_to_move << 55)


@kernel
def transform_mask(mask: int, symmetry: int) -> int:
    """The image of a set of points under one of the 8 symmetries."""
    image = 0
    rest = mask
    while rest:
        p = lowest_bit(rest)
        rest &= rest - 1
        image |= 1 << SYMMETRIES[symmetry, p]
    return image


@kernel
def perft(tigers: int, sheep: int, hand: int, tiger_to_move: int, depth: int) -> int:
    """The number of legal move sequences of ``depth`` plies (bulk-counted at the last ply).

    Iterative, with an explicit stack: numba's cache cannot hold recursive functions (numba
    issue #6061).
    """
    if depth == 0:
        return 1
    if depth == 1:
        return count_moves(tigers, sheep, hand, tiger_to_move)
    moves = np.empty((depth, MAX_MOVES), dtype=np.int64)
    stack = np.empty((depth, 4), dtype=np.int64)  # the position at each ply
    count = np.zeros(depth, dtype=np.int64)  # moves generated at each ply
    index = np.zeros(depth, dtype=np.int64)  # the next move to try at each ply
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = tigers, sheep, hand, tiger_to_move
    count[0] = generate_moves(tigers, sheep, hand, tiger_to_move, moves[0])
    total = 0
    ply = 0
    while ply >= 0:
        if index[ply] == count[ply]:
            ply -= 1
            continue
        move = moves[ply, index[ply]]
        index[ply] += 1
        t, s, h, side = play_move(stack[ply, 0], stack[ply, 1], stack[ply, 2], stack[ply, 3], move)
        if ply + 2 == depth:
            total += count_moves(t, s, h, side)
        else:
            ply += 1
            stack[ply, 0], stack[ply, 1], stack[ply, 2], stack[ply, 3] = t, s, h, side
            count[ply] = generate_moves(t, s, h, side, moves[ply])
            index[ply] = 0
    return total


@kernel
def tiger_threats(tigers: int, sheep: int) -> tuple[int, int, int]:
    """What the tigers can do: their legal moves (steps and jumps, whoever is to move), how many
    have none, and the set of sheep some tiger could jump now (a mask). The classic evaluation's
    features and the network's feature inputs both start here."""
    empty = FULL & ~(tigers | sheep)
    mobility = 0
    trapped = 0
    capturable = 0
    rest = tigers
    while rest:
        p = lowest_bit(rest)
        rest &= rest - 1
        moves = 0
        for k in range(STEP_COUNT[p]):
            moves += (empty >> STEPS[p, k]) & 1
        for k in range(JUMP_COUNT[p]):
            over = JUMP_OVER[p, k]
            if (sheep >> over) & 1 and (empty >> JUMP_LAND[p, k]) & 1:
                moves += 1
                capturable |= 1 << over
        mobility += moves
        if moves == 0:
            trapped += 1
    return mobility, trapped, capturable


# The network's inputs. The seed's (docs/training.md) are the raw position:
#   0..25  a tiger on that point       25..50  a sheep on that point
#   50     sheep in hand / 20          51      the tigers are to move
# and six more give it the classic evaluation's tactical features, scaled to about 0..1:
#   52  sheep captured / 5             53  the tigers' moves / 16
#   54  trapped tigers / 4             55  sheep a tiger could jump now / 4
#   56  the tigers to move and a jump ready
#   57  the sheep to move and two or more sheep threatened
# The network learns the raw position's tactics slowly: with the six it scores 95% against classic
# at depth 3, without them 76% (docs/pipeline.md). A file of the seed's 52 inputs is the same
# network with no weight on the six (evaluation/networks.py widens it on loading).
# The value is the tigers' (the first player's) whatever side is to move: input 51 says which.
NETWORK_INPUTS = 58
SEED_NETWORK_INPUTS = 52  # the seed's inputs: the raw position, before the features
SHEEP_INPUTS = 25
HAND_INPUT = 50
TIGER_TO_MOVE_INPUT = 51
CAPTURED_INPUT = 52
MOBILITY_INPUT = 53
TRAPPED_INPUT = 54
CAPTURABLE_INPUT = 55
JUMP_READY_INPUT = 56
DOUBLE_THREAT_INPUT = 57
# At most 4 tigers, 20 sheep (on the board or in hand: the hand input is one), the side to move,
# and the six features: 32.
MOST_SET_INPUTS = 4 + SHEEP + 1 + 1 + 6


@kernel
def _set_input(active: np.ndarray, values: np.ndarray, n: int, index: int, value: float) -> int:
    """Append input ``index`` with ``value`` unless the value is 0; the new count."""
    if value == 0.0:
        return n
    active[n] = index
    values[n] = np.float32(value)
    return n + 1


@kernel
def board_inputs(
    tigers: int,
    sheep: int,
    hand: int,
    tiger_to_move: int,
    active: np.ndarray,
    values: np.ndarray,
) -> int:
    """The seed's inputs (0..51, the raw position) of :func:`network_inputs`, alone: what Samuel
    Zero's network reads. Same buffers and order; returns how many are set."""
    n = 0
    rest = tigers
    while rest:
        active[n] = lowest_bit(rest)
        values[n] = 1.0
        rest &= rest - 1
        n += 1
    rest = sheep
    while rest:
        active[n] = SHEEP_INPUTS + lowest_bit(rest)
        values[n] = 1.0
        rest &= rest - 1
        n += 1
    if hand:
        active[n] = HAND_INPUT
        values[n] = np.float32(hand / 20.0)
        n += 1
    if tiger_to_move:
        active[n] = TIGER_TO_MOVE_INPUT
        values[n] = 1.0
        n += 1
    return n


@kernel
def network_inputs(
    tigers: int,
    sheep: int,
    hand: int,
    tiger_to_move: int,
    active: np.ndarray,
    values: np.ndarray,
) -> int:
    """Write the set inputs' indices into ``active`` and their values into ``values`` (room for
    ``MOST_SET_INPUTS``), in increasing order; return how many. The pieces and the side to move
    are 1, the hand and the features fractions (float32); an input that is 0 is not set."""
    n = board_inputs(tigers, sheep, hand, tiger_to_move, active, values)
    mobility, trapped, capturable = tiger_threats(tigers, sheep)
    threatened = popcount(capturable)
    n = _set_input(active, values, n, CAPTURED_INPUT, captured_sheep(sheep, hand) / 5.0)
    n = _set_input(active, values, n, MOBILITY_INPUT, mobility / 16.0)
    n = _set_input(active, values, n, TRAPPED_INPUT, trapped / 4.0)
    n = _set_input(active, values, n, CAPTURABLE_INPUT, threatened / 4.0)
    jump_ready = 1.0 if tiger_to_move and threatened > 0 else 0.0
    n = _set_input(active, values, n, JUMP_READY_INPUT, jump_ready)
    double_threat = 1.0 if not tiger_to_move and threatened > 1 else 0.0
    return _set_input(active, values, n, DOUBLE_THREAT_INPUT, double_threat)
