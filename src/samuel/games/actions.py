"""The action space: each game's moves as numbered actions, the indices of a policy over them.

A policy network (:mod:`samuel.nn.zero`) gives one logit per action of the game; the search asks
for the logits of the legal moves only, as the compiled move generator lists them
(:func:`samuel.games.kernels.generate`), by their actions (:func:`move_actions`).

- **Tigers & Sheep**, 650 actions: a step or a jump from point ``o`` to point ``t`` is
  ``o * 25 + t`` (a jump's captured point is implied; a tiger's and a sheep's moves never share a
  position, so they share the numbers); a placement on ``t`` is ``625 + t``. Points are as the
  rules number them (0..24), whoever is to move: the network's inputs are the board as it is
  (the first player's view, with an input that says who is to move), so the actions are too. This
  is also the OpenSpiel adapter's numbering (:mod:`samuel.spiel.game`).
- **English draughts**, 128 actions: ``square * 4 + direction`` of the move's *first* step or
  jump (``direction`` as :mod:`samuel.games.draughts.board` numbers them, ``UP_LEFT`` 0 ..
  ``DOWN_RIGHT`` 3), in the *side to move's* frame, as the network's inputs are: for White the
  board is turned half round, square ``s`` read as ``31 - s`` and every direction reversed
  (``OPPOSITE``), so a position and its colour-swapped half-turn have the same inputs and the
  same actions. A step is its one action. Captures that leave the same square in the same
  direction and then part (a king's or a man's branching multi-jump) share one action: the policy
  gives them one prior, which the search splits between them (evenly, unless it knows better:
  :func:`distinct_actions` lists each shared action once and says which moves share it, so the
  softmax runs over distinct actions and a visit-count target adds up the sharers' visits).
  Every other legal move has an action of its own (tests/test_actions.py checks it).

Actions of a game's variant are the standard game's. Every kernel here checks the sizes of the
arrays it writes and the range of every action it makes, raising ``ValueError``: numba checks no
bounds, and a policy index out of range would read or write past the logits.
"""

from __future__ import annotations

import numpy as np

from samuel.jit import kernel

from . import kernels
from .draughts import board as draughts_board
from .draughts import kernels as draughts
from .tigers import board as tigers_board
from .tigers import kernels as tigers

TIGERS_POINTS = tigers_board.POINTS
TIGERS_PLACEMENT = TIGERS_POINTS * TIGERS_POINTS  # 625: the first placement action
TIGERS_ACTIONS = TIGERS_PLACEMENT + TIGERS_POINTS  # 650
DRAUGHTS_DIRECTIONS = 4
DRAUGHTS_ACTIONS = draughts_board.SQUARES * DRAUGHTS_DIRECTIONS  # 128

ACTION_COUNTS = {kernels.TIGERS_AND_SHEEP: TIGERS_ACTIONS, kernels.DRAUGHTS: DRAUGHTS_ACTIONS}

# The direction of a draughts step from square ``o`` to square ``t`` (-1: no step), for the
# steps, whose move codes carry no direction (a jump's carries its path).
_STEP_DIRECTION = np.full((draughts_board.SQUARES, draughts_board.SQUARES), -1, dtype=np.int64)
for _origin in range(draughts_board.SQUARES):
    for _direction in range(DRAUGHTS_DIRECTIONS):
        if draughts_board.STEP[_origin, _direction] >= 0:
            _STEP_DIRECTION[_origin, draughts_board.STEP[_origin, _direction]] = _direction
_OPPOSITE = np.array(draughts_board.OPPOSITE, dtype=np.int64)
_TIGERS_SYMMETRIES = np.asarray(tigers_board.SYMMETRIES, dtype=np.int64)


def action_count(game: int) -> int:
    """How many actions the game numbered ``game`` has (its policy's length): 650 for Tigers &
    Sheep (any variant), 128 for English draughts. Raises ValueError for a number that names no
    game, or a game with no action space (Samuel Zero's policy cannot name its moves)."""
    sizes = kernels.compiled_game(game)
    if int(game) & kernels.GAME_MASK not in ACTION_COUNTS:
        raise ValueError(f"{sizes.title} has no action space: Samuel Zero cannot play it yet")
    return ACTION_COUNTS[int(game) & kernels.GAME_MASK]


@kernel
def tigers_action(move: int) -> int:
    """The action of a Tigers & Sheep move code (its origin and target; not checked)."""
    origin = move & tigers.POINT_FIELD
    target = (move >> tigers.POINT_BITS) & tigers.POINT_FIELD
    if origin == tigers.NO_POINT:
        return TIGERS_PLACEMENT + target
    return origin * TIGERS_POINTS + target


@kernel
def draughts_action(move: int, black_to_move: int) -> int:
    """The action of a draughts move code in the side to move's frame: its first step's square
    and direction, turned half round for White. -1 for a step between squares that are not
    neighbours (no legal move)."""
    origin = move & draughts.SQUARE_FIELD
    if (move >> draughts.JUMPS_SHIFT) & draughts.JUMPS_FIELD:
        direction = (move >> draughts.PATH_SHIFT) & 3
    else:
        direction = _STEP_DIRECTION[origin, (move >> draughts.SQUARE_BITS) & draughts.SQUARE_FIELD]
        if direction < 0:
            return -1
    if not black_to_move:
        origin = draughts_board.SQUARES - 1 - origin
        direction = _OPPOSITE[direction]
    return origin * DRAUGHTS_DIRECTIONS + direction


@kernel
def move_action(game: int, state: np.ndarray, move: int) -> int:
    """The action of ``move`` (a legal move) in the position ``state``; raises ValueError if the
    move's code stands for no action of the game."""
    base = game & kernels.GAME_MASK
    if base == kernels.TIGERS_AND_SHEEP:
        action = tigers_action(move)
        if 0 <= action < TIGERS_ACTIONS:
            return action
        raise ValueError("a Tigers & Sheep move code that stands for no action")
    if base == kernels.DRAUGHTS:
        action = draughts_action(move, state[3])
        if 0 <= action < DRAUGHTS_ACTIONS:
            return action
        raise ValueError("a draughts move code that stands for no action")
    raise ValueError("unknown game number")


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
    ``symmetry`` (:func:`~samuel.games.kernels.transform`): Tigers & Sheep's symmetries move the
    points; draughts' half-turn with colours swapped leaves the side to move's frame, and so the
    action, as it is. Raises ValueError for an action or a symmetry out of range."""
    base = game & kernels.GAME_MASK
    if base == kernels.TIGERS_AND_SHEEP:
        if not (0 <= symmetry < _TIGERS_SYMMETRIES.shape[0] and 0 <= action < TIGERS_ACTIONS):
            raise ValueError("a Tigers & Sheep symmetry or action out of range")
        if action >= TIGERS_PLACEMENT:
            return TIGERS_PLACEMENT + _TIGERS_SYMMETRIES[symmetry, action - TIGERS_PLACEMENT]
        origin = action // TIGERS_POINTS
        target = action - origin * TIGERS_POINTS
        return (
            _TIGERS_SYMMETRIES[symmetry, origin] * TIGERS_POINTS
            + _TIGERS_SYMMETRIES[symmetry, target]
        )
    if base == kernels.DRAUGHTS:
        if not (0 <= symmetry < 2 and 0 <= action < DRAUGHTS_ACTIONS):
            raise ValueError("a draughts symmetry or action out of range")
        return action
    raise ValueError("unknown game number")


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
    moves = np.empty(kernels.MAX_MOVES, dtype=np.int64)
    count = kernels.generate(int(game), state, moves)
    actions = np.empty(count, dtype=np.int64)
    move_actions(int(game), state, moves, count, actions)
    return moves[:count].copy(), actions
