"""The compiled interface every game offers to the search (and later to self-play).

A game's position is an int64 array of ``STATE_SIZE`` entries, a move one int64. Each function
here dispatches on the game's number to that game's kernels, so the search is written once and a
new game adds a branch here, not a new search. Numba compiles every branch into the caller; the
branch on a constant-per-search integer costs next to nothing.

Values are from the point of view of the game's *first player* (for Tigers & Sheep, the tigers):
``sign`` is +1 when that player is to move, -1 otherwise.

A game's number names the game in its low 8 bits (``GAME_MASK``) and a variant of its rules in
the bits above: for Tigers & Sheep, the captures that win (:func:`tigers_and_sheep`). The standard
game is the plain number (``TIGERS_AND_SHEEP`` = 0, five captures), so nothing that plays the
standard game passes anything new.
"""

from __future__ import annotations

import numpy as np

from samuel.jit import kernel
from samuel.nn import network

from .tigers import classic as tigers_classic
from .tigers import hybrid as tigers_hybrid
from .tigers import kernels as tigers
from .tigers.tablebase.index import stored_code
from .tigers.tablebase.values import code_outcome

TIGERS_AND_SHEEP = 0
GAME_MASK = 255  # a game number's low bits name the game ...
VARIANT_SHIFT = 8  # ... and the bits above, its variant (0: the standard rules)

STATE_SIZE = 4
MAX_MOVES = 192
SCRATCH = 192  # float32 room for any evaluator's work: the network's activations

NOT_OVER = 2

# Evaluators the search can use; each reads its own parameter array.
EVALUATOR_CLASSIC = 0  # params: the classic weights (float64)
EVALUATOR_NETWORK = 1  # params: the network's parameters (float32)
EVALUATOR_HYBRID = 2  # params: [scale, classic weights, network] (float32; tigers/hybrid.py)


def tigers_and_sheep(captures_to_win: int = tigers.CAPTURES_TO_WIN) -> int:
    """The game number of Tigers & Sheep won by ``captures_to_win`` captures (standard: 5)."""
    if not 1 <= captures_to_win <= tigers.SHEEP:
        raise ValueError(f"captures to win must be between 1 and 20, not {captures_to_win}")
    if captures_to_win == tigers.CAPTURES_TO_WIN:
        return TIGERS_AND_SHEEP
    return TIGERS_AND_SHEEP | (captures_to_win << VARIANT_SHIFT)


@kernel
def captures_to_win(game: int) -> int:
    """The captures that win a Tigers & Sheep game numbered ``game``."""
    variant = game >> VARIANT_SHIFT
    return variant if variant > 0 else tigers.CAPTURES_TO_WIN


@kernel
def generate(game: int, state: np.ndarray, moves: np.ndarray) -> int:
    """Legal moves into ``moves``; their number. A finished position has none."""
    if game & GAME_MASK == TIGERS_AND_SHEEP:
        return tigers.generate_moves(
            state[0], state[1], state[2], state[3], moves, captures_to_win(game)
        )
    return -1


@kernel
def play(game: int, state: np.ndarray, move: int, child: np.ndarray) -> None:
    """Write the position after ``move`` (assumed legal) into ``child``."""
    if game & GAME_MASK == TIGERS_AND_SHEEP:
        t, s, h, side = tigers.play_move(state[0], state[1], state[2], state[3], move)
        child[0] = t
        child[1] = s
        child[2] = h
        child[3] = side


@kernel
def key(game: int, state: np.ndarray) -> int:
    """A key identifying the position for repetition and the transposition table."""
    if game & GAME_MASK == TIGERS_AND_SHEEP:
        return tigers.position_key(state[0], state[1], state[2], state[3])
    return 0


@kernel
def sign(game: int, state: np.ndarray) -> int:
    """+1 when the first player (whose wins are positive) is to move, else -1."""
    if game & GAME_MASK == TIGERS_AND_SHEEP:
        return 1 if state[3] else -1
    return 1


@kernel
def result(game: int, state: np.ndarray, move_count: int) -> int:
    """The result (first player's view: 1, 0, -1) if the position ends the game, else NOT_OVER.

    ``move_count`` is the number of legal moves, which the caller has just generated.
    """
    if game & GAME_MASK == TIGERS_AND_SHEEP:
        if tigers.captured_sheep(state[1], state[2]) >= captures_to_win(game):
            return tigers.TIGERS_WIN
        if move_count == 0:
            return tigers.SHEEP_WIN if state[3] else tigers.TIGERS_WIN
        return NOT_OVER
    return NOT_OVER


@kernel
def is_capture(game: int, move: int) -> bool:
    if game & GAME_MASK == TIGERS_AND_SHEEP:
        return tigers.move_captured(move) != tigers.NO_POINT
    return False


@kernel
def is_irreversible(game: int, state: np.ndarray, move: int) -> bool:
    """True if no position before ``move`` can occur again after it (for repetition)."""
    if game & GAME_MASK == TIGERS_AND_SHEEP:
        return tigers.move_origin(move) == tigers.NO_POINT or (
            tigers.move_captured(move) != tigers.NO_POINT
        )
    return True


@kernel
def history_slot(game: int, move: int) -> int:
    """A small index (below 1024) for the history heuristic: origin and target of a move."""
    if game & GAME_MASK == TIGERS_AND_SHEEP:
        return move & 1023
    return 0


@kernel
def evaluate(
    game: int, evaluator: int, params: np.ndarray, state: np.ndarray, scratch: np.ndarray
) -> float:
    """The evaluator's score of a position that is not over, first player's point of view."""
    if game & GAME_MASK == TIGERS_AND_SHEEP:
        if evaluator == EVALUATOR_CLASSIC:
            return tigers_classic.classic_evaluate(
                state[0], state[1], state[2], state[3], params, scratch
            )
        if evaluator == EVALUATOR_NETWORK:
            return network.forward(params, state[0], state[1], state[2], state[3], scratch)
        if evaluator == EVALUATOR_HYBRID:
            return tigers_hybrid.hybrid_evaluate(
                params, state[0], state[1], state[2], state[3], scratch
            )
    return 0.0


@kernel
def tablebase_result(game: int, state: np.ndarray, tablebase) -> tuple[bool, int, int]:
    """``(found, outcome, plies)``: the perfect-play value of a position that is not over, if the
    game's tablebase (its layers, :mod:`.tigers.tablebase`) holds it. The outcome is the side to
    move's (+1 a win, -1 a loss, 0 a draw) in ``plies`` plies."""
    if game & GAME_MASK == TIGERS_AND_SHEEP:
        if state[2] == 0:  # the table holds every position with the hand empty
            outcome, plies = code_outcome(stored_code(state[0], state[1], state[3], tablebase))
            return True, outcome, plies
    return False, 0, 0
