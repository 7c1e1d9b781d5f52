"""Race's compiled interface: the functions of :data:`samuel.games.dispatch.INTERFACE` and its
sizes (``COMPILED``), written apart from the plain-Python rules (``rules.py``) so that the tests
can hold one against the other.

A position is six int64 words: red's rear and front counters (points 0-6, lower first, 6 borne
off), green's, 1 when red is to move (or to roll), and the dice: 0 while they are to be rolled
(a chance node), else 10 * high + low. A move's code is rear pips * 8 + front pips (below 64); a
roll's, 100 + 10 * high + low. A move's action (Samuel Zero's policy) is its code: 64 actions,
which swapping the colours leaves as they are.
"""

from __future__ import annotations

import numpy as np

from samuel.games.compiled_game import NOT_OVER, VIEW_FIRST_PLAYER, CompiledGame, evaluators
from samuel.jit import inline_kernel

OFF = 6
ROLLS = 6
ROLL_CODE = 100
POINTS = 7  # network inputs per counter: one for each point it can be on
SIDE_INPUTS = 4 * POINTS  # then one input for each side to move
ROLL_INPUTS = SIDE_INPUTS + 2  # then one for each roll being played
NETWORK_INPUTS = ROLL_INPUTS + ROLLS
MOST_SET_INPUTS = 6  # four counters, the side to move, the roll
FEATURES = 2  # pips (green's to go less red's) and the turn
ACTIONS = 64  # a move's action is its code

COMPILED = CompiledGame(
    title="Race",
    state_words=6,
    max_moves=4,  # a roll splits four ways at most
    evaluators=evaluators(FEATURES, MOST_SET_INPUTS),
    classic_features=FEATURES,
    network_inputs=NETWORK_INPUTS,
    most_set_inputs=MOST_SET_INPUTS,
    network_view=VIEW_FIRST_PLAYER,
    symmetries=2,  # the identity and the colours swapped
    classic_weights=FEATURES,
    zero_inputs=NETWORK_INPUTS,  # the counters, the turn and the dice: all of them
    chance_outcomes=ROLLS,
    actions=ACTIONS,
)


@inline_kernel
def _finished(state: np.ndarray) -> bool:
    return state[0] == OFF or state[2] == OFF  # a side's rear counter off: both are


@inline_kernel
def _roll_index(dice: int) -> int:
    """1-1, 2-1, 2-2, 3-1, 3-2, 3-3 -> 0 to 5."""
    high = dice // 10
    return high * (high - 1) // 2 + dice % 10 - 1


@inline_kernel
def generate(game: int, state: np.ndarray, moves: np.ndarray) -> int:
    dice = state[5]
    if dice == 0 or _finished(state):
        return 0
    high = dice // 10
    low = dice % 10
    total = high + low
    rear = state[0] if state[4] else state[2]
    front = state[1] if state[4] else state[3]
    if front == OFF:
        moves[0] = total << 3
        return 1
    n = 0
    # Rear pips most first; a play that leaves the same counters as one before it is skipped.
    for k in range(4):
        if k == 0:
            a, b = total, 0
        elif k == 1:
            a, b = high, low
        elif k == 2:
            a, b = low, high
        else:
            a, b = 0, total
        if k == 2 and high == low:
            continue
        x = min(OFF, rear + a)
        y = min(OFF, front + b)
        lo, hi = min(x, y), max(x, y)
        seen = False
        for j in range(n):
            pa = moves[j] >> 3
            pb = moves[j] & 7
            u = min(OFF, rear + pa)
            v = min(OFF, front + pb)
            if min(u, v) == lo and max(u, v) == hi:
                seen = True
        if not seen:
            moves[n] = (a << 3) | b
            n += 1
    return n


@inline_kernel
def play(game: int, state: np.ndarray, move: int, child: np.ndarray) -> None:
    for i in range(6):
        child[i] = state[i]
    if move >= ROLL_CODE:
        child[5] = move - ROLL_CODE
        return
    base = 0 if state[4] else 2
    x = min(OFF, state[base] + (move >> 3))
    y = min(OFF, state[base + 1] + (move & 7))
    child[base] = min(x, y)
    child[base + 1] = max(x, y)
    child[4] = 1 - state[4]
    child[5] = 0


@inline_kernel
def chance(game: int, state: np.ndarray, outcomes: np.ndarray, weights: np.ndarray) -> int:
    if state[5] != 0 or _finished(state):
        return 0
    n = 0
    for high in range(1, 4):
        for low in range(1, high + 1):
            outcomes[n] = ROLL_CODE + 10 * high + low
            weights[n] = (1.0 if high == low else 2.0) / 9.0
            n += 1
    return n


@inline_kernel
def key(game: int, state: np.ndarray) -> int:
    return (
        state[0]
        | (state[1] << 3)
        | (state[2] << 6)
        | (state[3] << 9)
        | (state[4] << 12)
        | (state[5] << 13)
    )


@inline_kernel
def sign(game: int, state: np.ndarray) -> int:
    return 1 if state[4] else -1


@inline_kernel
def result(game: int, state: np.ndarray, move_count: int) -> int:
    if state[0] == OFF:  # red has won: a gammon if green has borne off nothing
        return 1 if state[3] == OFF else 2
    if state[2] == OFF:
        return -1 if state[1] == OFF else -2
    return NOT_OVER


@inline_kernel
def is_capture(game: int, move: int) -> bool:
    return False


@inline_kernel
def is_irreversible(game: int, state: np.ndarray, move: int) -> bool:
    return True


@inline_kernel
def history_slot(game: int, move: int) -> int:
    return move & 1023


@inline_kernel
def classic_evaluate(
    game: int, state: np.ndarray, weights: np.ndarray, scratch: np.ndarray
) -> float:
    pips = (state[0] + state[1]) - (state[2] + state[3])  # green's to go less red's
    turn = 1.0 if state[4] else -1.0
    return weights[0] * pips + weights[1] * turn


@inline_kernel
def classic_features(game: int, state: np.ndarray, out: np.ndarray) -> None:
    out[0] = (state[0] + state[1]) - (state[2] + state[3])
    out[1] = 1.0 if state[4] else -1.0


@inline_kernel
def classic_weight_features(game: int, state: np.ndarray, out: np.ndarray) -> None:
    out[:] = 0.0
    classic_features(game, state, out)


@inline_kernel
def network_inputs(game: int, state: np.ndarray, active: np.ndarray, values: np.ndarray) -> int:
    for i in range(4):
        active[i] = POINTS * i + state[i]
        values[i] = 1.0
    active[4] = SIDE_INPUTS + (0 if state[4] else 1)
    values[4] = 1.0
    if state[5] == 0:
        return 5
    active[5] = ROLL_INPUTS + _roll_index(state[5])
    values[5] = 1.0
    return 6


@inline_kernel
def zero_network_inputs(
    game: int, state: np.ndarray, active: np.ndarray, values: np.ndarray
) -> int:
    return network_inputs(game, state, active, values)


@inline_kernel
def network_sign(game: int, state: np.ndarray) -> int:
    return 1  # the inputs say who is to move: the value is red's


@inline_kernel
def transform(game: int, state: np.ndarray, symmetry: int, image: np.ndarray) -> None:
    if symmetry == 0:
        for i in range(6):
            image[i] = state[i]
    else:  # the colours swapped
        image[0] = state[2]
        image[1] = state[3]
        image[2] = state[0]
        image[3] = state[1]
        image[4] = 1 - state[4]
        image[5] = state[5]


@inline_kernel
def symmetry_sign(game: int, symmetry: int) -> int:
    return 1 if symmetry == 0 else -1


@inline_kernel
def tablebase_result(game: int, state: np.ndarray, tablebase) -> tuple[bool, int, int]:
    return False, 0, 0


@inline_kernel
def move_action(game: int, state: np.ndarray, move: int) -> int:
    return move if 0 <= move < ACTIONS else -1


@inline_kernel
def action_symmetry(game: int, symmetry: int, action: int) -> int:
    return action if 0 <= symmetry < 2 and 0 <= action < ACTIONS else -1


@inline_kernel
def phase(game: int, state: np.ndarray) -> int:
    return 0  # one phase: one network values every position
