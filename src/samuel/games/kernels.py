"""The compiled interface every game offers to the search (and to self-play).

A game's position is an int64 array of the game's ``state_words`` entries (:data:`GAMES`), a move
one int64. The functions of :data:`samuel.games.dispatch.INTERFACE` (``generate``, ``play``,
``chance``, ``result`` ...) dispatch on the game's number to that game's compiled module, through
a dispatch written from the registry (:mod:`samuel.games.dispatch`): the search is written once,
and a new game registers its package instead of editing this file. Numba compiles every branch
into the caller; the branch on a constant-per-search integer costs next to nothing. A game number
no branch knows, or an evaluator a game lacks, raises ``ValueError``: numba checks no bounds, so
reading a position as the wrong game's would go on silently. What is the same for every game
(the evaluators built on a game's classic evaluation and network encoding) is here.

Values are from the point of view of the game's *first player* (its descriptor's first side):
``sign`` is +1 when that player is to move, -1 otherwise. A finished game's
``result`` is the first player's points: +1 or -1 for a plain win or loss, 0 a draw, more for a
game that scores more (a gammon: 2).

**Chance.** A position may be a chance node: dice to roll. ``chance`` lists its outcomes and
their probabilities (no outcomes: not a chance node), ``play`` applies an outcome as it applies a
move, and the side to move is the same after a roll as before it; a move passes the turn. A game
without chance always returns 0 outcomes.

**Networks.** A game's encoder (:func:`network_inputs`) lists the set inputs of a position for the
game-neutral network (:mod:`samuel.nn.network`); each game declares its input count and the view
its network's value is in (:class:`CompiledGame`). A game whose inputs say who is to move has a
network that values the position for the first player. A game whose inputs are seen from the side
to move (my pieces, theirs) gives a position and its colour-swapped half-turn the same inputs, and
its network's value is the *side to move's*: :func:`network_sign` turns it into the first
player's view wherever a value leaves the network (the search, the hybrid), and turns training
targets (first player's view) into the network's.

A game's number names the game in its low 8 bits (``GAME_MASK``: its descriptor's number) and a
variant of its rules in the bits above (``VARIANT_SHIFT``), which the game's package defines and
numbers (:attr:`CompiledGame.variants` says how many). The standard game is the plain number, so
nothing that plays the standard game passes anything new; a game without variants has only it.

The compiled sizes are per game (:class:`CompiledGame`) with one common maximum each
(``STATE_SIZE``, ``MAX_MOVES``), checked against each other at import; an evaluator's scratch
depends on its network's shape too (:func:`samuel.games.evaluators.scratch_size`).
"""

from __future__ import annotations

import importlib

import numpy as np

from samuel.jit import kernel
from samuel.nn import network
from samuel.nn.shape import FORWARD_SCRATCH

from . import dispatch
from .compiled_game import (  # noqa: F401  (compiled code reads these names from here)
    EVALUATOR_CLASSIC,
    EVALUATOR_HYBRID,
    EVALUATOR_MOVES_LEFT,
    EVALUATOR_NAMES,
    EVALUATOR_NETWORK,
    MAX_SET_INPUTS,
    MOVES_LEFT_NETWORK,
    NETWORK_SCRATCH,
    NETWORK_VALUES,
    NOT_OVER,
    VIEW_FIRST_PLAYER,
    VIEW_SIDE_TO_MOVE,
    CompiledGame,
)

GAME_MASK = dispatch.GAME_MASK  # a game number's low bits name the game ...
VARIANT_SHIFT = 8  # ... and the bits above, its variant (0: the standard rules)

_dispatch = dispatch.load()
# Each game's functions, dispatched on its number (dispatch.INTERFACE says what each does).
generate = _dispatch.generate
play = _dispatch.play
chance = _dispatch.chance
key = _dispatch.key
sign = _dispatch.sign
result = _dispatch.result
is_capture = _dispatch.is_capture
is_irreversible = _dispatch.is_irreversible
history_slot = _dispatch.history_slot
classic_evaluate = _dispatch.classic_evaluate
classic_features = _dispatch.classic_features
classic_weight_features = _dispatch.classic_weight_features
network_inputs = _dispatch.network_inputs
zero_network_inputs = _dispatch.zero_network_inputs
network_sign = _dispatch.network_sign
transform = _dispatch.transform
symmetry_sign = _dispatch.symmetry_sign
tablebase_result = _dispatch.tablebase_result
network_input_count = _dispatch.network_input_count
classic_feature_count = _dispatch.classic_feature_count
chance_outcomes = _dispatch.chance_outcomes
move_action = _dispatch.move_action
action_symmetry = _dispatch.action_symmetry
policy_actions = _dispatch.policy_actions

GAMES: dict[int, CompiledGame] = {
    number: importlib.import_module(module).COMPILED
    for number, module in dispatch.compiled_modules().items()
}

# The common maxima: one search table or buffer of these sizes serves every game.
STATE_SIZE = max(g.state_words for g in GAMES.values())  # a game uses the first state_words
# move buffers: every game's moves and chance outcomes fit
MAX_MOVES = max(max(g.max_moves, g.chance_outcomes) for g in GAMES.values())
# The moves-left evaluator's reference, the head's plies left at the search's root, which the
# search writes before it starts (:func:`set_moves_left_reference`), is the scratch's last entry,
# past the room the evaluator itself uses (evaluators.scratch_size).


def _check_sizes() -> None:
    """Every game's sizes fit the common ones (numba checks no bounds, so a game that outgrew a
    buffer would write past it). Run at import."""
    for sizes in GAMES.values():
        if sizes.most_set_inputs > MAX_SET_INPUTS:
            raise RuntimeError(
                f"{sizes.title}: {sizes.most_set_inputs} set inputs > MAX_SET_INPUTS"
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
    sizes = GAMES[base]
    if not 0 <= variant <= sizes.variants:
        raise ValueError(f"{sizes.title} has no variant {variant}: it {sizes.variant_help}")
    return sizes


def check_evaluator(game: int, evaluator: int) -> None:
    """Raise ValueError unless the game numbered ``game`` has evaluator ``evaluator``."""
    sizes = compiled_game(game)
    if evaluator not in sizes.evaluators:
        have = ", ".join(EVALUATOR_NAMES.get(e, str(e)) for e in sizes.evaluators)
        wanted = EVALUATOR_NAMES.get(evaluator, f"number {evaluator}")
        raise ValueError(f"{sizes.title} has no {wanted} evaluator; it has: {have}")


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
def network_value(
    game: int, params: np.ndarray, state: np.ndarray, scratch: np.ndarray, active: np.ndarray
) -> float:
    """The network's value of a position, first player's point of view. ``params`` is the
    network's array (its plan and parameters); ``scratch`` needs ``NETWORK_SCRATCH`` float32
    entries and the network's forward scratch after them, ``active`` ``MAX_SET_INPUTS``."""
    values = scratch[NETWORK_VALUES : NETWORK_VALUES + MAX_SET_INPUTS]
    n = network_inputs(game, state, active, values)
    value = network.forward(params, active, values, n, scratch[NETWORK_SCRATCH:])
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
    the reference in the scratch's last entry (the search's root's). The adjustment is
    odd in the value, so it is the same in either view; the plies left belong to the position,
    not to a side, and are not turned."""
    net = params[MOVES_LEFT_NETWORK:]
    value = float(network_value(game, net, state, scratch, active))
    # the head reads the h1 that forward pass just left
    plies = float(network.plies_left(net, scratch[NETWORK_SCRATCH:]))
    reference = float(scratch[scratch.shape[0] - 1])
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
    plies = network.plies_left(net, scratch[NETWORK_SCRATCH:])
    scratch[scratch.shape[0] - 1] = plies
    return float(plies)


@kernel
def scratch_size(game: int, evaluator: int, params: np.ndarray) -> int:
    """The float32 scratch the evaluator needs with these (checked) parameters: the classic
    features, or the network's set inputs and forward pass (as its plan says), whichever is more,
    and the moves-left reference last."""
    room = classic_feature_count(game)
    if evaluator != EVALUATOR_CLASSIC:
        start = MOVES_LEFT_NETWORK
        if evaluator == EVALUATOR_NETWORK:
            start = 0
        elif evaluator == EVALUATOR_HYBRID:
            start = 1 + classic_feature_count(game)
        room = max(room, NETWORK_SCRATCH + int(params[start + FORWARD_SCRATCH]))
    return room + 1


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

    ``scratch`` is float32 room (:func:`scratch_size`), ``active`` int64 room
    (``MAX_SET_INPUTS``) for the network's set inputs. The hybrid is ``classic + scale *
    network`` (both in the first player's view), its parameters packed as
    :mod:`samuel.games.hybrid` says; the network runs first, since the classic features then
    overwrite the start of the scratch space. The moves-left evaluator is
    :func:`moves_left_value`, its parameters packed as :mod:`samuel.games.moves_left` says.
    """
    if evaluator == EVALUATOR_CLASSIC:
        return classic_evaluate(game, state, params, scratch)
    if evaluator == EVALUATOR_NETWORK:
        return network_value(game, params, state, scratch, active)
    if evaluator == EVALUATOR_HYBRID:
        split = 1 + classic_feature_count(game)
        value = network_value(game, params[split:], state, scratch, active)
        classic = classic_evaluate(game, state, params[1:split], scratch)
        return classic + params[0] * value
    if evaluator == EVALUATOR_MOVES_LEFT:
        return moves_left_value(game, params, state, scratch, active)
    raise ValueError("no such evaluator")
