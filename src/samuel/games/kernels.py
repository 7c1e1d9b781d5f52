"""The compiled interface every game offers to the search (and to self-play).

A game's position is an int64 array of the game's ``state_words`` entries (:data:`GAMES`), a move
one int64. The functions of :data:`samuel.games.dispatch.INTERFACE` (``generate``, ``play``,
``chance``, ``result`` ...) dispatch on the game's number to that game's compiled module, through
a dispatch written from the registry (:mod:`samuel.games.dispatch`): the search is written once,
and a new game registers its package instead of editing this file. Numba compiles every branch
into the caller; the branch on a constant-per-search integer costs next to nothing. A game number
no branch knows, or an evaluator a game lacks, raises ``ValueError``: numba checks no bounds, so
reading a position as the wrong game's would go on silently. The evaluators built on a game's
classic evaluation and network encoding, the same for every game, are a layer above
(:mod:`samuel.evaluation.kernels`).

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
depends on its network's shape too (:func:`samuel.evaluation.evaluators.scratch_size`). A move
buffer is sized by the game it serves (:func:`move_room`; :func:`move_room_kernel` in compiled
code), not by ``MAX_MOVES``: one game's thousands of dice plays would make every other game's
search tables and trees that much larger.
"""

from __future__ import annotations

import importlib

import numpy as np

from samuel.jit import inline_kernel, kernel

from . import dispatch
from .compiled_game import (  # noqa: F401  (compiled code reads these names from here)
    EVALUATOR_CLASSIC,
    EVALUATOR_HYBRID,
    EVALUATOR_MOVES_LEFT,
    EVALUATOR_NAMES,
    EVALUATOR_NETWORK,
    EVALUATOR_PHASED,
    MAX_SET_INPUTS,
    MOVES_LEFT_NETWORK,
    NETWORK_SCRATCH,
    NETWORK_VALUES,
    NOT_OVER,
    VIEW_FIRST_PLAYER,
    VIEW_SIDE_TO_MOVE,
    CompiledGame,
    unknown_game,
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
phase = _dispatch.phase
phase_count = _dispatch.phase_count

GAMES: dict[int, CompiledGame] = {
    number: importlib.import_module(module).COMPILED
    for number, module in dispatch.compiled_modules().items()
}

# The common maxima: one search table or buffer of these sizes serves every game.
STATE_SIZE = max(g.state_words for g in GAMES.values())  # a game uses the first state_words
# move buffers: every game's moves and chance outcomes fit (where no game is known: a buffer
# that serves one game holds move_room(game))
MAX_MOVES = max(max(g.max_moves, g.chance_outcomes) for g in GAMES.values())
# Each game's move room by its number's low bits, for compiled code (0: no game has the number).
MOVE_ROOMS = np.zeros(GAME_MASK + 1, dtype=np.int64)
for _number, _sizes in GAMES.items():
    MOVE_ROOMS[_number] = max(_sizes.max_moves, _sizes.chance_outcomes)


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


def move_room(game: int) -> int:
    """The entries a move buffer of the game numbered ``game`` needs: its most legal moves or
    its most chance outcomes, whichever is more (one buffer holds either); a variant's are its
    game's. At most ``MAX_MOVES``. Raises ValueError for a number that names no game.

    >>> from samuel.games import get_game
    >>> move_room(get_game("draughts").number)
    128
    """
    sizes = compiled_game(game)
    return max(sizes.max_moves, sizes.chance_outcomes)


@inline_kernel
def move_room_kernel(game: int) -> int:
    """:func:`move_room` for compiled code, which sizes the move buffers it makes by it (a
    number that names no game raises, unchecked variants are their game's)."""
    room = MOVE_ROOMS[game & GAME_MASK]
    if room == 0:
        unknown_game(game)  # raises
    return room


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
