"""Tigers & Sheep's compiled interface: the functions of :data:`samuel.games.dispatch.INTERFACE`
over its kernels, and its sizes (``COMPILED``).

A position is four int64 words: the tigers' and the sheep's masks, the sheep in hand, and 1 when
the tigers are to move. The game's number carries a variant in its bits above the low 8: the
captures that win (:func:`variant_number`), 0 for the standard five.
"""

from __future__ import annotations

import numpy as np

from samuel.games.compiled_game import NOT_OVER, VIEW_FIRST_PLAYER, CompiledGame, evaluators
from samuel.jit import inline_kernel

from . import DESCRIPTOR, board, kernels
from . import actions as tigers_actions
from . import classic as tigers_classic
from .tablebase.index import stored_code
from .tablebase.values import code_outcome

VARIANT_SHIFT = 8


def variant_number(captures_to_win: int = board.CAPTURES_TO_WIN) -> int:
    """The game number of Tigers & Sheep won by ``captures_to_win`` captures (standard: 5, the
    plain number)."""
    if not 1 <= captures_to_win <= board.SHEEP:
        raise ValueError(f"captures to win must be between 1 and 20, not {captures_to_win}")
    if captures_to_win == board.CAPTURES_TO_WIN:
        return DESCRIPTOR.number
    return DESCRIPTOR.number | (captures_to_win << VARIANT_SHIFT)


COMPILED = CompiledGame(
    title="Tigers & Sheep",
    state_words=board.STATE_WORDS,
    max_moves=board.MAX_MOVES,
    evaluators=evaluators(tigers_classic.FEATURE_COUNT, kernels.MOST_SET_INPUTS),
    classic_features=tigers_classic.FEATURE_COUNT,
    network_inputs=kernels.NETWORK_INPUTS,
    most_set_inputs=kernels.MOST_SET_INPUTS,
    network_view=VIEW_FIRST_PLAYER,
    symmetries=len(board.SYMMETRIES),
    classic_weights=tigers_classic.WEIGHT_COUNT,
    zero_inputs=kernels.SEED_NETWORK_INPUTS,
    variants=board.SHEEP,
    variant_help="is won by 1 to 20 captures",
    actions=tigers_actions.ACTIONS,
)


@inline_kernel
def captures_to_win(game: int) -> int:
    """The captures that win a Tigers & Sheep game numbered ``game``."""
    variant = game >> VARIANT_SHIFT
    return variant if variant > 0 else board.CAPTURES_TO_WIN


@inline_kernel
def generate(game: int, state: np.ndarray, moves: np.ndarray) -> int:
    return kernels.generate_moves(
        state[0], state[1], state[2], state[3], moves, captures_to_win(game)
    )


@inline_kernel
def play(game: int, state: np.ndarray, move: int, child: np.ndarray) -> None:
    t, s, h, side = kernels.play_move(state[0], state[1], state[2], state[3], move)
    child[0] = t
    child[1] = s
    child[2] = h
    child[3] = side


@inline_kernel
def chance(game: int, state: np.ndarray, outcomes: np.ndarray, weights: np.ndarray) -> int:
    return 0


@inline_kernel
def key(game: int, state: np.ndarray) -> int:
    return kernels.position_key(state[0], state[1], state[2], state[3])


@inline_kernel
def sign(game: int, state: np.ndarray) -> int:
    return 1 if state[3] else -1


@inline_kernel
def result(game: int, state: np.ndarray, move_count: int) -> int:
    if kernels.captured_sheep(state[1], state[2]) >= captures_to_win(game):
        return kernels.TIGERS_WIN
    if move_count == 0:
        return kernels.SHEEP_WIN if state[3] else kernels.TIGERS_WIN
    return NOT_OVER


@inline_kernel
def is_capture(game: int, move: int) -> bool:
    return kernels.move_captured(move) != kernels.NO_POINT


@inline_kernel
def is_irreversible(game: int, state: np.ndarray, move: int) -> bool:
    return kernels.move_origin(move) == kernels.NO_POINT or (
        kernels.move_captured(move) != kernels.NO_POINT
    )


@inline_kernel
def history_slot(game: int, move: int) -> int:
    return move & 1023  # the origin and the target, 5 bits each


@inline_kernel
def classic_evaluate(
    game: int, state: np.ndarray, weights: np.ndarray, scratch: np.ndarray
) -> float:
    return tigers_classic.classic_evaluate(state[0], state[1], state[2], state[3], weights, scratch)


@inline_kernel
def classic_features(game: int, state: np.ndarray, out: np.ndarray) -> None:
    tigers_classic.classic_features(state[0], state[1], state[2], state[3], out)


@inline_kernel
def classic_weight_features(game: int, state: np.ndarray, out: np.ndarray) -> None:
    out[:] = 0.0
    tigers_classic.classic_features(state[0], state[1], state[2], state[3], out)
    tigers_classic.table_features(state[0], state[1], state[2], out)


@inline_kernel
def network_inputs(game: int, state: np.ndarray, active: np.ndarray, values: np.ndarray) -> int:
    return kernels.network_inputs(state[0], state[1], state[2], state[3], active, values)


@inline_kernel
def zero_network_inputs(
    game: int, state: np.ndarray, active: np.ndarray, values: np.ndarray
) -> int:
    """The inputs that say where the pieces are and who is to move, not the features."""
    return kernels.board_inputs(state[0], state[1], state[2], state[3], active, values)


@inline_kernel
def network_sign(game: int, state: np.ndarray) -> int:
    return 1  # the network values a position for the tigers, whoever is to move


@inline_kernel
def transform(game: int, state: np.ndarray, symmetry: int, image: np.ndarray) -> None:
    image[0] = kernels.transform_mask(state[0], symmetry)
    image[1] = kernels.transform_mask(state[1], symmetry)
    image[2] = state[2]
    image[3] = state[3]


@inline_kernel
def symmetry_sign(game: int, symmetry: int) -> int:
    return 1  # the board's 8 symmetries keep who is who


@inline_kernel
def tablebase_result(game: int, state: np.ndarray, tablebase) -> tuple[bool, int, int]:
    if state[2] == 0:  # the table holds every position with the hand empty
        outcome, plies = code_outcome(stored_code(state[0], state[1], state[3], tablebase))
        return True, outcome, plies
    return False, 0, 0


@inline_kernel
def move_action(game: int, state: np.ndarray, move: int) -> int:
    action = tigers_actions.action_of(move)
    if 0 <= action < tigers_actions.ACTIONS:
        return action
    tigers_actions.no_action()  # raises
    return -1


@inline_kernel
def action_symmetry(game: int, symmetry: int, action: int) -> int:
    """The board's symmetries move the points, and so the actions."""
    if 0 <= symmetry < tigers_actions.SYMMETRY_COUNT and 0 <= action < tigers_actions.ACTIONS:
        return tigers_actions.action_image(symmetry, action)
    tigers_actions.symmetry_out_of_range()  # raises
    return -1


@inline_kernel
def phase(game: int, state: np.ndarray) -> int:
    return 0  # one phase: one network values every position
