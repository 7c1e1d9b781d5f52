"""English draughts' compiled interface: the functions of
:data:`samuel.games.dispatch.INTERFACE` over its kernels, and its sizes (``COMPILED``).

A position is five int64 words: Black's and White's masks, the kings' mask, 1 when Black is to
move, and the quiet plies so far (the 40-move rule). Draughts has no variants.
"""

from __future__ import annotations

import numpy as np

from samuel.games.compiled_game import (
    NOT_OVER,
    VIEW_SIDE_TO_MOVE,
    CompiledGame,
    evaluators,
    move_buffer_full,
)
from samuel.jit import inline_kernel

from . import actions as draughts_actions
from . import board, kernels
from . import classic as draughts_classic

COMPILED = CompiledGame(
    title="English draughts",
    state_words=board.STATE_WORDS,
    max_moves=board.MAX_MOVES,
    evaluators=evaluators(draughts_classic.FEATURE_COUNT, 2 * board.MEN),
    classic_features=draughts_classic.FEATURE_COUNT,
    network_inputs=kernels.NETWORK_INPUTS,
    most_set_inputs=2 * board.MEN,  # every piece sets one input
    network_view=VIEW_SIDE_TO_MOVE,
    symmetries=2,  # the identity and the half-turn with colours swapped
    classic_weights=draughts_classic.WEIGHT_COUNT,
    zero_inputs=kernels.NETWORK_INPUTS,  # the pieces only
    actions=draughts_actions.ACTIONS,
)


@inline_kernel
def generate(game: int, state: np.ndarray, moves: np.ndarray) -> int:
    n = kernels.generate_moves(state[0], state[1], state[2], state[3], moves)
    if n > moves.shape[0]:  # the kernel stopped writing at the end; the count is true
        move_buffer_full()
    return n


@inline_kernel
def play(game: int, state: np.ndarray, move: int, child: np.ndarray) -> None:
    b, w, k, side, quiet = kernels.play_move(state[0], state[1], state[2], state[3], state[4], move)
    child[0] = b
    child[1] = w
    child[2] = k
    child[3] = side
    child[4] = quiet


@inline_kernel
def chance(game: int, state: np.ndarray, outcomes: np.ndarray, weights: np.ndarray) -> int:
    return 0


@inline_kernel
def key(game: int, state: np.ndarray) -> int:
    """Leaves out the 40-move count: repetition compares the pieces and the side to move."""
    return kernels.position_key(state[0], state[1], state[2], state[3])


@inline_kernel
def sign(game: int, state: np.ndarray) -> int:
    return 1 if state[3] else -1


@inline_kernel
def result(game: int, state: np.ndarray, move_count: int) -> int:
    # No legal move loses, even on the 80th quiet ply; then the 40-move rule draws.
    if move_count == 0:
        return kernels.WHITE_WIN if state[3] else kernels.BLACK_WIN
    if state[4] >= kernels.QUIET_PLY_LIMIT:
        return kernels.DRAW
    return NOT_OVER


@inline_kernel
def is_capture(game: int, move: int) -> bool:
    return kernels.move_jumps(move) > 0


@inline_kernel
def is_irreversible(game: int, state: np.ndarray, move: int) -> bool:
    return kernels.is_irreversible(state[0], state[1], state[2], move)


@inline_kernel
def history_slot(game: int, move: int) -> int:
    return move & 1023  # the origin and the target, 5 bits each


@inline_kernel
def classic_evaluate(
    game: int, state: np.ndarray, weights: np.ndarray, scratch: np.ndarray
) -> float:
    return draughts_classic.classic_evaluate(
        state[0], state[1], state[2], state[3], weights, scratch
    )


@inline_kernel
def classic_features(game: int, state: np.ndarray, out: np.ndarray) -> None:
    draughts_classic.classic_features(state[0], state[1], state[2], state[3], out)


@inline_kernel
def classic_weight_features(game: int, state: np.ndarray, out: np.ndarray) -> None:
    out[:] = 0.0
    draughts_classic.classic_features(state[0], state[1], state[2], state[3], out)
    draughts_classic.table_features(state[0], state[1], state[2], out)


@inline_kernel
def network_inputs(game: int, state: np.ndarray, active: np.ndarray, values: np.ndarray) -> int:
    n = kernels.network_inputs(state[0], state[1], state[2], state[3], active)
    for i in range(n):
        values[i] = 1.0
    return n


@inline_kernel
def zero_network_inputs(
    game: int, state: np.ndarray, active: np.ndarray, values: np.ndarray
) -> int:
    return network_inputs(game, state, active, values)  # the inputs are the pieces only


@inline_kernel
def network_sign(game: int, state: np.ndarray) -> int:
    return sign(game, state)  # the inputs, and so the value, are the side to move's


@inline_kernel
def transform(game: int, state: np.ndarray, symmetry: int, image: np.ndarray) -> None:
    if symmetry == 0:
        for i in range(board.STATE_WORDS):
            image[i] = state[i]
    else:  # the half-turn with colours swapped: Black's pieces become White's
        image[0] = kernels.half_turn(state[1])
        image[1] = kernels.half_turn(state[0])
        image[2] = kernels.half_turn(state[2])
        image[3] = 1 - state[3]
        image[4] = state[4]


@inline_kernel
def symmetry_sign(game: int, symmetry: int) -> int:
    return 1 if symmetry == 0 else -1  # the half-turn swaps the colours: Black's value is White's


@inline_kernel
def tablebase_result(game: int, state: np.ndarray, tablebase) -> tuple[bool, int, int]:
    return False, 0, 0  # draughts has no tablebase


@inline_kernel
def move_action(game: int, state: np.ndarray, move: int) -> int:
    """In the side to move's frame (``actions.py``)."""
    action = draughts_actions.action_of(move, state[3])
    if 0 <= action < draughts_actions.ACTIONS:
        return action
    draughts_actions.no_action()  # raises
    return -1


@inline_kernel
def action_symmetry(game: int, symmetry: int, action: int) -> int:
    """The half-turn with colours swapped leaves the side to move's frame, and so the action,
    as it is."""
    if 0 <= symmetry < draughts_actions.SYMMETRY_COUNT and 0 <= action < draughts_actions.ACTIONS:
        return action
    draughts_actions.symmetry_out_of_range()  # raises
    return -1


@inline_kernel
def phase(game: int, state: np.ndarray) -> int:
    return 0  # one phase: one network values every position
