"""The compiled interface every game offers to the search (and to self-play).

A game's position is an int64 array of the game's ``state_words`` entries (:data:`GAMES`), a move
one int64. Each function here dispatches on the game's number to that game's kernels, so the
search is written once and a new game adds a branch here, not a new search. Numba compiles every
branch into the caller; the branch on a constant-per-search integer costs next to nothing. A game
number no branch knows, or an evaluator a game lacks, raises ``ValueError``: numba checks no
bounds, so reading a position as the wrong game's would go on silently.

Values are from the point of view of the game's *first player* (for Tigers & Sheep, the tigers;
for draughts, Black): ``sign`` is +1 when that player is to move, -1 otherwise.

**Networks.** A game's encoder (:func:`network_inputs`) lists the set inputs of a position for the
game-neutral network (:mod:`samuel.nn.network`); each game declares its input count and the view
its network's value is in (:class:`CompiledGame`). Tigers & Sheep's inputs say who is to move, so
its network values the position for the tigers, the first player. Draughts' inputs are seen from
the side to move (the draughts course's encoding: my men, my kings, theirs), so a position and its
colour-swapped half-turn have the same inputs and its network's value is the *side to move's*:
:func:`network_sign` turns it into the first player's view wherever a value leaves the network
(the search, the hybrid), and turns training targets (first player's view) into the network's.

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
EVALUATOR_HYBRID = 2  # params: [scale, classic weights, network] (float32; games/hybrid.py)
# params: [threshold, max effect, slope, network with the moves-left head] (float32;
# games/moves_left.py): the network's value, nudged by its plies-left estimate when decided
EVALUATOR_MOVES_LEFT = 3
MOVES_LEFT_NETWORK = 3  # where the network starts in the moves-left evaluator's params

EVALUATOR_NAMES = {
    EVALUATOR_CLASSIC: "classic",
    EVALUATOR_NETWORK: "network",
    EVALUATOR_HYBRID: "hybrid",
    EVALUATOR_MOVES_LEFT: "network with moves left",
}

# Whose point of view a game's network value is in (CompiledGame.network_view).
VIEW_FIRST_PLAYER = 0  # the first player's, whoever is to move (Tigers & Sheep)
VIEW_SIDE_TO_MOVE = 1  # the side to move's (draughts: the inputs are seen from that side)


@dataclass(frozen=True)
class CompiledGame:
    """What the compiled side of a game needs room for."""

    title: str
    state_words: int  # int64 words of a position (the friendly ``encode()``'s length)
    max_moves: int  # the most legal moves a position has (the move buffers' lower bound)
    evaluators: dict[int, int]  # evaluator number -> float32 scratch entries it uses
    classic_features: int  # classic weights (the hybrid packs them before the network)
    network_inputs: int  # the network's input count
    most_set_inputs: int  # the most inputs a position sets (the encoder's buffers' lower bound)
    network_view: int  # VIEW_FIRST_PLAYER or VIEW_SIDE_TO_MOVE
    symmetries: int  # symmetries for augmentation (transform); 0 is the identity
    classic_weights: int  # classic weights with the piece-square tables (classic.WEIGHT_COUNT)
    # The Samuel Zero network's inputs: the first ones of network_inputs, those that say only
    # where the pieces are and who is to move (Zero learns with no hand-written knowledge, so
    # not Tigers & Sheep's classic features).
    zero_inputs: int


# The network's evaluation keeps its set inputs' values in the float32 scratch after the
# forward pass's activations, and their indices in the int64 ``active`` buffer.
NETWORK_VALUES = network.FORWARD_SCRATCH
MAX_SET_INPUTS = 32  # the ``active`` buffer: at least every game's most_set_inputs


def _evaluators(classic_features: int, most_set_inputs: int) -> dict[int, int]:
    network_scratch = NETWORK_VALUES + most_set_inputs
    return {
        EVALUATOR_CLASSIC: classic_features,
        EVALUATOR_NETWORK: network_scratch,
        # the network first, then the classic features over the start of the same space
        EVALUATOR_HYBRID: max(network_scratch, classic_features),
        EVALUATOR_MOVES_LEFT: network_scratch,  # the head reads h1, which the forward pass left
    }


GAMES = {
    TIGERS_AND_SHEEP: CompiledGame(
        "Tigers & Sheep",
        tigers_board.STATE_WORDS,
        tigers_board.MAX_MOVES,
        _evaluators(tigers_classic.FEATURE_COUNT, tigers.MOST_SET_INPUTS),
        tigers_classic.FEATURE_COUNT,
        tigers.NETWORK_INPUTS,
        tigers.MOST_SET_INPUTS,
        VIEW_FIRST_PLAYER,
        len(tigers_board.SYMMETRIES),
        tigers_classic.WEIGHT_COUNT,
        tigers.SEED_NETWORK_INPUTS,
    ),
    DRAUGHTS: CompiledGame(
        "English draughts",
        draughts_board.STATE_WORDS,
        draughts_board.MAX_MOVES,
        _evaluators(draughts_classic.FEATURE_COUNT, 2 * draughts_board.MEN),
        draughts_classic.FEATURE_COUNT,
        draughts.NETWORK_INPUTS,
        2 * draughts_board.MEN,  # every piece sets one input
        VIEW_SIDE_TO_MOVE,
        2,  # the identity and the half-turn with colours swapped
        draughts_classic.WEIGHT_COUNT,
        draughts.NETWORK_INPUTS,  # the pieces only
    ),
}

# The common maxima: one search table or buffer of these sizes serves every game.
STATE_SIZE = max(g.state_words for g in GAMES.values())  # a game uses the first state_words
MAX_MOVES = 192  # move buffers: at least every game's max_moves
SCRATCH = 192  # float32 room for any evaluator's work: the network's activations and values
# The moves-left evaluator's reference: the head's plies left at the search's root, which the
# search writes here before it starts (:func:`set_moves_left_reference`). The last entry, past
# the room the evaluator itself uses (checked at import).
MOVES_LEFT_REFERENCE = SCRATCH - 1


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
        if sizes.most_set_inputs > MAX_SET_INPUTS:
            raise RuntimeError(
                f"{sizes.title}: {sizes.most_set_inputs} set inputs > MAX_SET_INPUTS"
            )
        if sizes.evaluators[EVALUATOR_MOVES_LEFT] > MOVES_LEFT_REFERENCE:
            raise RuntimeError(f"{sizes.title}: the moves-left evaluator overwrites its reference")
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
        have = ", ".join(EVALUATOR_NAMES.get(e, str(e)) for e in sizes.evaluators)
        wanted = EVALUATOR_NAMES.get(evaluator, f"number {evaluator}")
        raise ValueError(f"{sizes.title} has no {wanted} evaluator; it has: {have}")


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
def occurrences(keys: np.ndarray, window: int, ply: int) -> int:
    """How often the position of ``keys[ply]`` has occurred in a game whose positions' keys are
    ``keys[:ply + 1]``, counting from ``window``, its first position that can recur (the one
    after the last irreversible move): 3 is a threefold repetition."""
    seen = 0
    for i in range(window, ply + 1):
        if keys[i] == keys[ply]:
            seen += 1
    return seen


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
def network_inputs(game: int, state: np.ndarray, active: np.ndarray, values: np.ndarray) -> int:
    """The set inputs of the game's network for a position: their indices into ``active``, their
    values into ``values`` (room for the game's ``most_set_inputs``, float32); how many."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        return tigers.network_inputs(state[0], state[1], state[2], state[3], active, values)
    if base == DRAUGHTS:
        n = draughts.network_inputs(state[0], state[1], state[2], state[3], active)
        for i in range(n):
            values[i] = 1.0
        return n
    raise ValueError("unknown game number")


@kernel
def network_input_count(game: int) -> int:
    """The game's network input count (``CompiledGame.network_inputs``)."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        return tigers.NETWORK_INPUTS
    if base == DRAUGHTS:
        return draughts.NETWORK_INPUTS
    raise ValueError("unknown game number")


@kernel
def zero_network_inputs(
    game: int, state: np.ndarray, active: np.ndarray, values: np.ndarray
) -> int:
    """The set inputs of the game's Zero network, as :func:`network_inputs` lists them: the
    position's set inputs below ``CompiledGame.zero_inputs`` (Tigers & Sheep's features, which
    come last, are not computed)."""
    if game & GAME_MASK == TIGERS_AND_SHEEP:
        return tigers.board_inputs(state[0], state[1], state[2], state[3], active, values)
    return network_inputs(game, state, active, values)


@kernel
def network_sign(game: int, state: np.ndarray) -> int:
    """The factor between the first player's view and the game's network's view of a position:
    +1 for a network in the first player's view; for one in the side to move's, :func:`sign`.
    (It is its own inverse: it turns values either way.)"""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        return 1
    if base == DRAUGHTS:
        return sign(game, state)
    raise ValueError("unknown game number")


@kernel
def network_value(
    game: int, params: np.ndarray, state: np.ndarray, scratch: np.ndarray, active: np.ndarray
) -> float:
    """The network's value of a position, first player's point of view. ``scratch`` needs
    ``NETWORK_VALUES`` + ``MAX_SET_INPUTS`` float32 entries, ``active`` ``MAX_SET_INPUTS``."""
    values = scratch[NETWORK_VALUES : NETWORK_VALUES + MAX_SET_INPUTS]
    n = network_inputs(game, state, active, values)
    value = network.forward(params, network_input_count(game), active, values, n, scratch)
    if network_sign(game, state) < 0:
        return -value
    return value


@kernel
def moves_left_adjusted(
    value: float,
    plies: float,
    reference: float,
    threshold: float,
    max_effect: float,
    slope: float,
) -> float:
    """A decided value (beyond ``threshold`` either way) moved by up to ``max_effect`` towards
    the side that wins sooner than ``reference`` plies: ``v + sign(v) * D * (|v| - t) / (1 - t)``
    with ``D = clip(slope * (reference - plies), -max_effect, max_effect)``; a value inside the
    threshold is left alone (:mod:`samuel.games.moves_left` says why this form)."""
    magnitude = abs(value)
    if magnitude <= threshold:
        return value
    shift = min(max_effect, max(-max_effect, slope * (reference - plies)))
    bonus = shift * (magnitude - threshold) / (1.0 - threshold)
    return value + bonus if value > 0 else value - bonus


@kernel
def moves_left_value(
    game: int, params: np.ndarray, state: np.ndarray, scratch: np.ndarray, active: np.ndarray
) -> float:
    """The moves-left evaluator (``EVALUATOR_MOVES_LEFT``): the network's value in the first
    player's view, adjusted by :func:`moves_left_adjusted` with the head's plies left against
    the reference in ``scratch[MOVES_LEFT_REFERENCE]`` (the search's root's). The adjustment is
    odd in the value, so it is the same in either view; the plies left belong to the position,
    not to a side, and are not turned."""
    net = params[MOVES_LEFT_NETWORK:]
    value = float(network_value(game, net, state, scratch, active))
    # the head reads the h1 that forward pass just left
    plies = float(network.plies_left(net, network_input_count(game), scratch))
    reference = float(scratch[MOVES_LEFT_REFERENCE])
    return moves_left_adjusted(
        value, plies, reference, float(params[0]), float(params[1]), float(params[2])
    )


@kernel
def set_moves_left_reference(
    game: int, params: np.ndarray, state: np.ndarray, scratch: np.ndarray, active: np.ndarray
) -> float:
    """Write the head's plies left in ``state`` (a search's root) where the moves-left
    evaluator reads its reference, and return it. ``params`` are the evaluator's."""
    net = params[MOVES_LEFT_NETWORK:]
    network_value(game, net, state, scratch, active)  # leaves h1 for the head
    plies = network.plies_left(net, network_input_count(game), scratch)
    scratch[MOVES_LEFT_REFERENCE] = plies
    return float(plies)


@kernel
def evaluate(
    game: int,
    evaluator: int,
    params: np.ndarray,
    state: np.ndarray,
    scratch: np.ndarray,
    active: np.ndarray,
) -> float:
    """The evaluator's score of a position that is not over, first player's point of view.

    ``scratch`` is float32 room (``SCRATCH``), ``active`` int64 room (``MAX_SET_INPUTS``) for the
    network's set inputs. The hybrid is ``classic + scale * network`` (both in the first
    player's view), its parameters packed as :mod:`samuel.games.hybrid` says; the network runs
    first, since the classic features then overwrite the start of the scratch space. The
    moves-left evaluator is :func:`moves_left_value`, its parameters packed as
    :mod:`samuel.games.moves_left` says.
    """
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        if evaluator == EVALUATOR_CLASSIC:
            return tigers_classic.classic_evaluate(
                state[0], state[1], state[2], state[3], params, scratch
            )
        if evaluator == EVALUATOR_NETWORK:
            return network_value(game, params, state, scratch, active)
        if evaluator == EVALUATOR_HYBRID:
            split = 1 + tigers_classic.FEATURE_COUNT
            value = network_value(game, params[split:], state, scratch, active)
            classic = tigers_classic.classic_evaluate(
                state[0], state[1], state[2], state[3], params[1:split], scratch
            )
            return classic + params[0] * value
        if evaluator == EVALUATOR_MOVES_LEFT:
            return moves_left_value(game, params, state, scratch, active)
        raise ValueError("Tigers & Sheep has no such evaluator")
    if base == DRAUGHTS:
        if evaluator == EVALUATOR_CLASSIC:
            return draughts_classic.classic_evaluate(
                state[0], state[1], state[2], state[3], params, scratch
            )
        if evaluator == EVALUATOR_NETWORK:
            return network_value(game, params, state, scratch, active)
        if evaluator == EVALUATOR_HYBRID:
            split = 1 + draughts_classic.FEATURE_COUNT
            value = network_value(game, params[split:], state, scratch, active)
            classic = draughts_classic.classic_evaluate(
                state[0], state[1], state[2], state[3], params[1:split], scratch
            )
            return classic + params[0] * value
        if evaluator == EVALUATOR_MOVES_LEFT:
            return moves_left_value(game, params, state, scratch, active)
        raise ValueError("English draughts has no such evaluator")
    raise ValueError("unknown game number")


@kernel
def transform(game: int, state: np.ndarray, symmetry: int, image: np.ndarray) -> None:
    """Write the position's image under symmetry ``symmetry`` (0 is the identity; the game has
    ``CompiledGame.symmetries``) into ``image``. Its value in the first player's view is the
    original's times :func:`symmetry_sign`."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        image[0] = tigers.transform_mask(state[0], symmetry)
        image[1] = tigers.transform_mask(state[1], symmetry)
        image[2] = state[2]
        image[3] = state[3]
    elif base == DRAUGHTS:
        if symmetry == 0:
            for i in range(draughts_board.STATE_WORDS):
                image[i] = state[i]
        else:  # the half-turn with colours swapped: Black's pieces become White's
            image[0] = draughts.half_turn(state[1])
            image[1] = draughts.half_turn(state[0])
            image[2] = draughts.half_turn(state[2])
            image[3] = 1 - state[3]
            image[4] = state[4]
    else:
        raise ValueError("unknown game number")


@kernel
def symmetry_sign(game: int, symmetry: int) -> int:
    """What a symmetry does to a value in the first player's view: Tigers & Sheep's 8 keep it
    (+1); draughts' half-turn swaps the colours, so Black's value becomes White's (-1)."""
    base = game & GAME_MASK
    if base == TIGERS_AND_SHEEP:
        return 1
    if base == DRAUGHTS:
        return 1 if symmetry == 0 else -1
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


@kernel
def classic_weight_features(game: int, state: np.ndarray, out: np.ndarray) -> None:
    """Write every classic weight's feature of a position into ``out`` (the game's
    ``WEIGHT_COUNT`` entries, as its ``classic.WEIGHTS`` names them): the named features, then
    the piece-square tables'. The classic score with tables is their dot product with the
    weights."""
    base = game & GAME_MASK
    out[:] = 0.0
    if base == TIGERS_AND_SHEEP:
        tigers_classic.classic_features(state[0], state[1], state[2], state[3], out)
        tigers_classic.table_features(state[0], state[1], state[2], out)
    elif base == DRAUGHTS:
        draughts_classic.classic_features(state[0], state[1], state[2], state[3], out)
        draughts_classic.table_features(state[0], state[1], state[2], out)
    else:
        raise ValueError("unknown game number")
