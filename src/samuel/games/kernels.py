"""The compiled interface every game offers to the search (and to self-play).

A game's position is an int64 array of the game's ``state_words`` entries (:data:`GAMES`), a move
one int64. Each function here dispatches on the game's number to that game's kernels, so the
search is written once and a new game adds a branch here, not a new search. Numba compiles every
branch into the caller; the branch on a constant-per-search integer costs next to nothing. A game
number no branch knows, or an evaluator a game lacks, raises ``ValueError``: numba checks no
bounds, so reading a position as the wrong game's would go on silently.

Values are from the point of view of the game's *first player* (for Tigers & Sheep, the tigers;
for draughts, Black): ``sign`` is +1 when that player is to move, -1 otherwise.

A game's number names the game in its low 8 bits (``GAME_MASK``) and a variant of its rules in
the bits above: for Tigers & Sheep, the captures that win (:func:`tigers_and_sheep`). The standard
game is the plain number (``TIGERS_AND_SHEEP`` = 0, five captures), so nothing that plays the
standard game passes anything new. English draughts (``DRAUGHTS`` = 1) has no variants.

The compiled sizes are per game (:class:`CompiledGame`) with one common maximum each
(``STATE_SIZE``, ``MAX_MOVES``, ``SCRATCH``), checked against each other at import.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from samuel.jit import kernel
from samuel.nn import network

from .draughts import board as draughts_board
from .draughts import classic as draughts_classic
from .draughts import kernels as draughts
from .tigers import board as tigers_board
from .tigers import classic as tigers_classic
from .tigers import hybrid as tigers_hybrid
from .tigers import kernels as tigers
from .tigers.tablebase.index import stored_code
from .tigers.tablebase.values import code_outcome

TIGERS_AND_SHEEP = 0
DRAUGHTS = 1
GAME_MASK = 255  # a game number's low bits name the game ...
VARIANT_SHIFT = 8  # ... and the bits above, its variant (0: the standard rules)

NOT_OVER = 2

# Evaluators the search can use; each reads its own parameter array.
EVALUATOR_CLASSIC = 0  # params: the classic weights (float64)
EVALUATOR_NETWORK = 1  # params: the network's parameters (float32)
EVALUATOR_HYBRID = 2  # params: [scale, classic weights, network] (float32; tigers/hybrid.py)


@dataclass(frozen=True)
class CompiledGame:
    """What the compiled side of a game needs room for."""

    title: str
    state_words: int  # int64 words of a position (the friendly ``encode()``'s length)
    max_moves: int  # the most legal moves a position has (the move buffers' lower bound)
    evaluators: dict[int, int]  # evaluator number -> float32 scratch entries it uses


GAMES = {
    TIGERS_AND_SHEEP: CompiledGame(
        "Tigers & Sheep",
        tigers_board.STATE_WORDS,
        tigers_board.MAX_MOVES,
        {
            EVALUATOR_CLASSIC: tigers_classic.FEATURE_COUNT,
            EVALUATOR_NETWORK: network.SCRATCH,
            # the network first, then the classic features over the start of the same space
            EVALUATOR_HYBRID: max(network.SCRATCH, tigers_classic.FEATURE_COUNT),
        },
    ),
    DRAUGHTS: CompiledGame(
        "English draughts",
        draughts_board.STATE_WORDS,
        draughts_board.MAX_MOVES,
        {EVALUATOR_CLASSIC: draughts_classic.FEATURE_COUNT},  # networks come later (issue 11)
    ),
}

# The common maxima: one search table or buffer of these sizes serves every game.
STATE_SIZE = max(g.state_words for g in GAMES.values())  # a game uses the first state_words
MAX_MOVES = 192  # move buffers: at least every game's max_moves
SCRATCH = 192  # float32 room for any evaluator's work: the network's activations


def _check_sizes() -> None:
    """Every game's sizes fit the common ones (numba checks no bounds, so a game that outgrew a
    buffer would write past it). Run at import."""
    for number, sizes in GAMES.items():
        if not 0 <= number <= GAME_MASK:
            raise RuntimeError(f"{sizes.title}: game number {number} does not fit GAME_MASK")
        if sizes.state_words > STATE_SIZE:
            raise RuntimeError(f"{sizes.title}: {sizes.state_words} state words > {STATE_SIZE}")
        if sizes.max_moves > MAX_MOVES:
            raise RuntimeError(f"{sizes.title}: {sizes.max_moves} moves > MAX_MOVES {MAX_MOVES}")
        for evaluator, scratch in sizes.evaluators.items():
            if scratch > SCRATCH:
                raise RuntimeError(
                    f"{sizes.title}: evaluator {evaluator} needs {scratch} scratch > {SCRATCH}"
                )


_check_sizes()


def compiled_game(game: int) -> CompiledGame:
    """The sizes of the game numbered ``game``; raises ValueError for a number that names no
    game or no variant of it (the friendly check before any kernel sees the number)."""
    if isinstance(game, bool) or not isinstance(game, int | np.integer) or game < 0:
        raise ValueError(f"a game number is a non-negative integer, not {game!r}")
    base, variant = int(game) & GAME_MASK, int(game) >> VARIANT_SHIFT
    if base not in GAMES:
        known = ", ".join(f"{n} ({g.title})" for n, g in GAMES.items())
        raise ValueError(f"no game has number {base}; the games are: {known}")
    if base == TIGERS_AND_SHEEP and not 0 <= variant <= tigers.SHEEP:
        raise ValueError(f"Tigers & Sheep has no variant {variant} (won by 1 to 20 captures)")
    if base == DRAUGHTS and variant != 0:
        raise ValueError(f"English draughts has no variants, not {variant}")
    return GAMES[base]


def check_evaluator(game: int, evaluator: int) -> None:
    """Raise ValueError unless the game numbered ``game`` has evaluator ``evaluator``."""
    sizes = compiled_game(game)
    if evaluator not in sizes.evaluators:
        names = {
            EVALUATOR_CLASSIC: "classic",
            EVALUATOR_NETWORK: "network",
            EVALUATOR_HYBRID: "hybrid",
        }
        have = ", ".join(names.get(e, str(e)) for e in sizes.evaluators)
        raise ValueError(
            f"{sizes.title} has no {names.get(evaluator, f'number {evaluator}')} evaluator; "
            f"it has: {have}"
        )


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
    """Legal moves into ``moves``; their number. A position the game's rules end by themselves
    may still list moves (a draw by the 40-move rule): :func:`result` decides, not the count."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        return tigers.generate_moves(
            state[0], state[1], state[2], state[3], moves, captures_to_win(game)
        )
    if base == DRAUGHTS:
        n = draughts.generate_moves(state[0], state[1], state[2], state[3], moves)
        if n > moves.shape[0]:  # the kernel stopped writing at the end; the count is true
            raise ValueError("more legal moves than the move buffer holds")
        return n
    raise ValueError("unknown game number")


@kernel
def play(game: int, state: np.ndarray, move: int, child: np.ndarray) -> None:
    """Write the position after ``move`` (assumed legal) into ``child``."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        t, s, h, side = tigers.play_move(state[0], state[1], state[2], state[3], move)
        child[0] = t
        child[1] = s
        child[2] = h
        child[3] = side
    elif base == DRAUGHTS:
        b, w, k, side, quiet = draughts.play_move(
            state[0], state[1], state[2], state[3], state[4], move
        )
        child[0] = b
        child[1] = w
        child[2] = k
        child[3] = side
        child[4] = quiet
    else:
        raise ValueError("unknown game number")


@kernel
def key(game: int, state: np.ndarray) -> int:
    """A key identifying the position for repetition and the transposition table. For draughts
    it leaves out the 40-move count: repetition compares the pieces and the side to move."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        return tigers.position_key(state[0], state[1], state[2], state[3])
    if base == DRAUGHTS:
        return draughts.position_key(state[0], state[1], state[2], state[3])
    raise ValueError("unknown game number")


@kernel
def sign(game: int, state: np.ndarray) -> int:
    """+1 when the first player (whose wins are positive) is to move, else -1."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP or base == DRAUGHTS:  # both keep "first player to move" in word 3
        return 1 if state[3] else -1
    raise ValueError("unknown game number")


@kernel
def result(game: int, state: np.ndarray, move_count: int) -> int:
    """The result (first player's view: 1, 0, -1) if the position ends the game, else NOT_OVER.

    ``move_count`` is the number of legal moves, which the caller has just generated.
    Repetition needs the game's history and is the caller's business.
    """
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        if tigers.captured_sheep(state[1], state[2]) >= captures_to_win(game):
            return tigers.TIGERS_WIN
        if move_count == 0:
            return tigers.SHEEP_WIN if state[3] else tigers.TIGERS_WIN
        return NOT_OVER
    if base == DRAUGHTS:
        # No legal move loses, even on the 80th quiet ply; then the 40-move rule draws.
        if move_count == 0:
            return draughts.WHITE_WIN if state[3] else draughts.BLACK_WIN
        if state[4] >= draughts.QUIET_PLY_LIMIT:
            return draughts.DRAW
        return NOT_OVER
    raise ValueError("unknown game number")


@kernel
def is_capture(game: int, move: int) -> bool:
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        return tigers.move_captured(move) != tigers.NO_POINT
    if base == DRAUGHTS:
        return draughts.move_jumps(move) > 0
    raise ValueError("unknown game number")


@kernel
def is_irreversible(game: int, state: np.ndarray, move: int) -> bool:
    """True if no position before ``move`` can occur again after it (for repetition)."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        return tigers.move_origin(move) == tigers.NO_POINT or (
            tigers.move_captured(move) != tigers.NO_POINT
        )
    if base == DRAUGHTS:
        return draughts.is_irreversible(state[0], state[1], state[2], move)
    raise ValueError("unknown game number")


@kernel
def history_slot(game: int, move: int) -> int:
    """A small index (below 1024) for the history heuristic: origin and target of a move."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP or base == DRAUGHTS:
        # Both games keep the origin and the target (5 bits each) in a move's low 10 bits.
        return move & 1023
    raise ValueError("unknown game number")


@kernel
def evaluate(
    game: int, evaluator: int, params: np.ndarray, state: np.ndarray, scratch: np.ndarray
) -> float:
    """The evaluator's score of a position that is not over, first player's point of view."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
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
        raise ValueError("Tigers & Sheep has no such evaluator")
    if base == DRAUGHTS:
        if evaluator == EVALUATOR_CLASSIC:
            return draughts_classic.classic_evaluate(
                state[0], state[1], state[2], state[3], params, scratch
            )
        raise ValueError("English draughts has no such evaluator (yet: classic only)")
    raise ValueError("unknown game number")


@kernel
def tablebase_result(game: int, state: np.ndarray, tablebase) -> tuple[bool, int, int]:
    """``(found, outcome, plies)``: the perfect-play value of a position that is not over, if the
    game's tablebase (its layers, :mod:`samuel.games.tigers.tablebase`) holds it. The outcome is
    the side to move's (+1 a win, -1 a loss, 0 a draw) in ``plies`` plies. Draughts has no
    tablebase."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        if state[2] == 0:  # the table holds every position with the hand empty
            outcome, plies = code_outcome(stored_code(state[0], state[1], state[3], tablebase))
            return True, outcome, plies
        return False, 0, 0
    if base == DRAUGHTS:
        return False, 0, 0
    raise ValueError("unknown game number")


@kernel
def classic_features(game: int, state: np.ndarray, out: np.ndarray) -> None:
    """Write the classic evaluation's features of a position into ``out`` (the game's
    ``FEATURE_COUNT`` entries, as its ``classic.FEATURES`` names them): what tuning fits the
    classic weights on. The classic score is their dot product with the weights."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        tigers_classic.classic_features(state[0], state[1], state[2], state[3], out)
    elif base == DRAUGHTS:
        draughts_classic.classic_features(state[0], state[1], state[2], state[3], out)
    else:
        raise ValueError("unknown game number")
