"""What a game's compiled side declares of itself: :class:`CompiledGame`, the sizes generic code
makes room for, and the evaluators the search can use. Each game's compiled module (its
descriptor's ``compiled_module``) defines one as ``COMPILED``, beside the functions of
:data:`samuel.games.dispatch.INTERFACE`.
"""

from __future__ import annotations

from dataclasses import dataclass

from samuel.jit import kernel

# What ``result`` returns for a position that does not end the game: no game scores 127 points.
NOT_OVER = 127

# Evaluators the search can use; each reads its own parameter array.
EVALUATOR_CLASSIC = 0  # params: the classic weights (float64)
EVALUATOR_NETWORK = 1  # params: the network's parameters (float32)
EVALUATOR_HYBRID = 2  # params: [scale, classic weights, network] (float32; evaluation/hybrid.py)
# params: [threshold, max effect, slope, network with the moves-left head] (float32;
# evaluation/moves_left.py): the network's value, nudged by its plies-left estimate when decided
EVALUATOR_MOVES_LEFT = 3
MOVES_LEFT_NETWORK = 3  # where the network starts in the moves-left evaluator's params
# params: one network per phase, packed (float32; nn/phased.py): each position is valued by the
# network of its own phase (the game's compiled ``phase``)
EVALUATOR_PHASED = 4

EVALUATOR_NAMES = {
    EVALUATOR_CLASSIC: "classic",
    EVALUATOR_NETWORK: "network",
    EVALUATOR_HYBRID: "hybrid",
    EVALUATOR_MOVES_LEFT: "network with moves left",
    EVALUATOR_PHASED: "network per phase",
}

# Whose point of view a game's network value is in (CompiledGame.network_view).
VIEW_FIRST_PLAYER = 0  # the first player's, whoever is to move (Tigers & Sheep)
VIEW_SIDE_TO_MOVE = 1  # the side to move's (draughts: the inputs are seen from that side)

# The network's evaluation keeps its set inputs' values at the start of the float32 scratch,
# their indices in the int64 ``active`` buffer, and the network's own scratch (its activations,
# as many as its shape has: ``Network.forward_scratch``) after the values.
MAX_SET_INPUTS = 32  # the ``active`` buffer: at least every game's most_set_inputs
NETWORK_VALUES = 0
NETWORK_SCRATCH = MAX_SET_INPUTS


def evaluators(
    classic_features: int, most_set_inputs: int, network: bool = True, phases: int = 1
) -> dict:
    """Evaluator number -> the float32 scratch entries it uses, for a game with that many
    classic features and set inputs (``network=False``: the classic evaluator only) and phases
    (more than one: a network per phase too), beside the network's own
    (:func:`samuel.evaluation.evaluators.scratch_size` adds those)."""
    if most_set_inputs > MAX_SET_INPUTS:
        raise ValueError(f"{most_set_inputs} set inputs are more than {MAX_SET_INPUTS}")
    if not network:
        return {EVALUATOR_CLASSIC: classic_features}
    offered = {
        EVALUATOR_CLASSIC: classic_features,
        EVALUATOR_NETWORK: NETWORK_SCRATCH,
        # the network first, then the classic features over the start of the same space
        EVALUATOR_HYBRID: max(NETWORK_SCRATCH, classic_features),
        EVALUATOR_MOVES_LEFT: NETWORK_SCRATCH,  # the head reads what the forward pass left
    }
    if phases > 1:
        offered[EVALUATOR_PHASED] = NETWORK_SCRATCH
    return offered


@dataclass(frozen=True)
class CompiledGame:
    """What the compiled side of a game needs room for."""

    title: str
    state_words: int  # int64 words of a position (the friendly ``encode()``'s length)
    max_moves: int  # the most legal moves (or chance outcomes) a position has
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
    chance_outcomes: int = 0  # the most outcomes a chance node has (0: a game without chance)
    variants: int = 0  # the largest variant number its rules know (0: the standard rules only)
    variant_help: str = "has no variants"  # what its variants are, for an error message
    # Samuel Zero's policy's actions (samuel.games.actions): the numbers the game's interface
    # functions move_action and action_symmetry give its moves; 0: no action space (Samuel
    # Zero, its PUCT search and the OpenSpiel adapter refuse the game).
    actions: int = 0
    # The phases its compiled ``phase`` tells apart (seed 001's routing: a network per phase);
    # 1: the game is one phase, and ``phase`` always says 0.
    phases: int = 1


# Errors a game's interface functions raise. Those are inlined into their callers
# (jit.inline_kernel), where a ``raise`` would keep numba from running a prange loop in
# parallel; a call is fine.
@kernel
def unknown_game(game: int) -> None:
    raise ValueError("unknown game number")


@kernel
def move_buffer_full() -> None:
    raise ValueError("more legal moves than the move buffer holds")
