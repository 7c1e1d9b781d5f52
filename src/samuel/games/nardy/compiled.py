"""Long nardy's compiled interface: the functions of :data:`samuel.games.dispatch.INTERFACE`
over its kernels (``kernels.py``), and its sizes (``COMPILED``). A position is four int64 words
and a play one int64 (``board.py``). The heavy kernels (the plays of a roll, the classic
evaluation) are called, not inlined, so that the search and self-play of every game do not grow
by them.
"""

from __future__ import annotations

import numpy as np

from samuel.games.compiled_game import VIEW_SIDE_TO_MOVE, CompiledGame, evaluators
from samuel.jit import inline_kernel

from . import board, kernels

COMPILED = CompiledGame(
    title="Long nardy",
    state_words=board.STATE_WORDS,
    max_moves=board.MAX_PLAYS,
    evaluators=evaluators(kernels.FEATURES, kernels.MOST_SET_INPUTS, phases=len(board.PHASES)),
    classic_features=kernels.FEATURES,
    network_inputs=kernels.NETWORK_INPUTS,
    most_set_inputs=kernels.MOST_SET_INPUTS,
    network_view=VIEW_SIDE_TO_MOVE,
    symmetries=2,  # the identity and the colours swapped
    classic_weights=kernels.FEATURES,
    zero_inputs=kernels.NETWORK_INPUTS,  # the checkers only
    chance_outcomes=board.ROLLS,
    # no action space: Samuel Zero's policy would need one per play of up to four steps
    phases=len(board.PHASES),
)


@inline_kernel
def generate(game: int, state: np.ndarray, moves: np.ndarray) -> int:
    return kernels.generate_plays(state, moves)


@inline_kernel
def play(game: int, state: np.ndarray, move: int, child: np.ndarray) -> None:
    kernels.play_move(state, move, child)


@inline_kernel
def chance(game: int, state: np.ndarray, outcomes: np.ndarray, weights: np.ndarray) -> int:
    if kernels.dice_of(state) != 0 or kernels.finished(state):
        return 0
    n = 0
    for high in range(1, 7):
        for low in range(1, high + 1):
            outcomes[n] = board.ROLL_FLAG | (10 * high + low)
            weights[n] = (1.0 if high == low else 2.0) / 36.0
            n += 1
    return n


@inline_kernel
def key(game: int, state: np.ndarray) -> int:
    return kernels.position_key(state)


@inline_kernel
def sign(game: int, state: np.ndarray) -> int:
    return 1 if kernels.white_to_move(state) else -1


@inline_kernel
def result(game: int, state: np.ndarray, move_count: int) -> int:
    return kernels.result(state)  # a roll with no play is a pass, never the end


@inline_kernel
def is_capture(game: int, move: int) -> bool:
    return False  # no hitting


@inline_kernel
def is_irreversible(game: int, state: np.ndarray, move: int) -> bool:
    # Every step moves a checker on. A pass leaves the checkers as they were, but long nardy has
    # no repetition rule: a position that comes back after passes ends no game (the ply cap
    # still ends one that runs too long), so no play opens a window for a repetition.
    return True


@inline_kernel
def history_slot(game: int, move: int) -> int:
    return move & board.STEP_MASK  # the first step's points


@inline_kernel
def classic_evaluate(
    game: int, state: np.ndarray, weights: np.ndarray, scratch: np.ndarray
) -> float:
    return kernels.classic_value(state, weights, scratch)


@inline_kernel
def classic_features(game: int, state: np.ndarray, out: np.ndarray) -> None:
    kernels.features(state, out)


@inline_kernel
def classic_weight_features(game: int, state: np.ndarray, out: np.ndarray) -> None:
    kernels.features(state, out)  # no tables: every weight is a feature's


@inline_kernel
def network_inputs(game: int, state: np.ndarray, active: np.ndarray, values: np.ndarray) -> int:
    return kernels.set_inputs(state, active, values)


@inline_kernel
def zero_network_inputs(
    game: int, state: np.ndarray, active: np.ndarray, values: np.ndarray
) -> int:
    return kernels.set_inputs(state, active, values)


@inline_kernel
def network_sign(game: int, state: np.ndarray) -> int:
    return sign(game, state)  # the inputs, and so the value, are the side to move's


@inline_kernel
def transform(game: int, state: np.ndarray, symmetry: int, image: np.ndarray) -> None:
    if symmetry == 0:
        for i in range(board.STATE_WORDS):
            image[i] = state[i]
    else:  # the colours swapped: White's checkers become Black's, the turn and the dice stay
        flags = state[1] & ~board.HIGH_MASK
        image[0] = state[2]
        image[1] = (state[3] & board.HIGH_MASK) | (flags ^ (1 << board.TURN_BIT))
        image[2] = state[0]
        image[3] = state[1] & board.HIGH_MASK


@inline_kernel
def symmetry_sign(game: int, symmetry: int) -> int:
    return 1 if symmetry == 0 else -1


@inline_kernel
def tablebase_result(game: int, state: np.ndarray, tablebase) -> tuple[bool, int, int]:
    return False, 0, 0  # no tablebase


@inline_kernel
def move_action(game: int, state: np.ndarray, move: int) -> int:
    return -1  # no action space (COMPILED.actions is 0)


@inline_kernel
def action_symmetry(game: int, symmetry: int, action: int) -> int:
    return -1


@inline_kernel
def phase(game: int, state: np.ndarray) -> int:
    return kernels.phase(state)
