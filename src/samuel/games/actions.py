"""The action space: each game's moves as numbered actions, the indices of a policy over them.

A policy network (:mod:`samuel.nn.zero`) gives one logit per action of the game; the search asks
for the logits of the legal moves only, as the compiled move generator lists them
(:func:`samuel.games.kernels.generate`), by their actions (:func:`move_actions`).

Each game declares its own action space: its count (``CompiledGame.actions``, 0 for a game that
has none) and two functions of its compiled interface (:data:`samuel.games.dispatch.INTERFACE`):
``move_action``, a legal move's action, and ``action_symmetry``, what a symmetry of the game
(:func:`~samuel.games.kernels.transform`) does to an action. The game's own module
(``samuel/games/<game>/actions.py``) says what its actions are. Moves may share an action (two
draughts captures that leave one square in one direction and then part): the policy gives them
one prior, which the search splits between them (evenly, unless it knows better:
:func:`distinct_actions` lists each shared action once and says which moves share it, so the
softmax runs over distinct actions and a visit-count target adds up the sharers' visits).

Actions of a game's variant are the standard game's. Every kernel here checks the sizes of the
arrays it writes and the range of every action it makes, raising ``ValueError``: numba checks no
bounds, and a policy index out of range would read or write past the logits.
"""

from __future__ import annotations

import numpy as np

from samuel.jit import kernel

from . import kernels

# Each game's action count by its number, for the games that have an action space.
ACTION_COUNTS = {number: sizes.actions for number, sizes in kernels.GAMES.items() if sizes.actions}


def action_count(game: int) -> int:
    """How many actions the game numbered ``game`` has (its policy's length; a variant's are
    its game's). Raises ValueError for a number that names no game, or a game with no action
    space (Samuel Zero's policy cannot name its moves)."""
    sizes = kernels.compiled_game(game)
    if sizes.actions <= 0:
        raise ValueError(f"{sizes.title} has no action space: Samuel Zero cannot play it yet")
    return sizes.actions


@kernel
def move_action(game: int, state: np.ndarray, move: int) -> int:
    """The action of ``move`` (a legal move) in the position ``state``; raises ValueError if the
    move's code stands for no action of the game."""
    action = kernels.move_action(game, state, move)  # a game may raise its own error
    if 0 <= action < kernels.policy_actions(game):
        return action
    raise ValueError("a move code that stands for no action of its game")


@kernel
def move_actions(
    game: int, state: np.ndarray, moves: np.ndarray, count: int, actions: np.ndarray
) -> None:
    """Write the action of each of ``moves[:count]`` (the legal moves of ``state``, as
    :func:`~samuel.games.kernels.generate` lists them) into ``actions[:count]``. Raises ValueError
    if either array is shorter than ``count`` or a move stands for no action."""
    if count < 0 or count > moves.shape[0] or count > actions.shape[0]:
        raise ValueError("move_actions: count beyond the moves or the actions array")
    for i in range(count):
        actions[i] = move_action(game, state, moves[i])


@kernel
def distinct_actions(
    actions: np.ndarray, count: int, distinct: np.ndarray, slot: np.ndarray
) -> int:
    """The distinct actions among ``actions[:count]``, in the order they first appear, into
    ``distinct``, and each move's index among them into ``slot[:count]``; returns how many are
    distinct. (Quadratic in ``count``, a few dozen moves: cheaper than a table of every action.)
    Raises ValueError if an array is shorter than ``count``."""
    if count < 0 or count > actions.shape[0] or count > distinct.shape[0] or count > slot.shape[0]:
        raise ValueError("distinct_actions: count beyond the arrays")
    found = 0
    for i in range(count):
        j = 0
        while j < found and distinct[j] != actions[i]:
            j += 1
        if j == found:
            distinct[found] = actions[i]
            found += 1
        slot[i] = j
    return found


@kernel
def action_symmetry(game: int, symmetry: int, action: int) -> int:
    """The action that ``action`` becomes in the image of its position under symmetry
    ``symmetry`` (:func:`~samuel.games.kernels.transform`), as the game says. Raises ValueError
    for an action or a symmetry out of range."""
    image = kernels.action_symmetry(game, symmetry, action)  # a game may raise its own error
    if 0 <= image < kernels.policy_actions(game):
        return image
    raise ValueError("a symmetry or action out of range")


def legal_actions(game: int, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The legal moves of the position ``state`` (the game's compiled encoding) and their actions,
    as two int64 arrays in the move generator's order: the friendly, checked form of
    :func:`move_actions`."""
    sizes = kernels.compiled_game(game)
    state = np.ascontiguousarray(state, dtype=np.int64)
    if state.ndim != 1 or len(state) < sizes.state_words:
        raise ValueError(
            f"a {sizes.title} position is {sizes.state_words} int64 words, not {np.shape(state)}"
        )
    moves = np.empty(kernels.move_room(game), dtype=np.int64)
    count = kernels.generate(int(game), state, moves)
    actions = np.empty(count, dtype=np.int64)
    move_actions(int(game), state, moves, count, actions)
    return moves[:count].copy(), actions
