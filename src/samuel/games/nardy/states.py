"""Long nardy's check of kernel states from outside (a file, a store, another process): what
generic code reaches as ``descriptor.part("states").state_problem`` (:mod:`samuel.games.states`).
"""

from __future__ import annotations

import numpy as np

from .board import (
    CHECKERS,
    DICE_MASK,
    DICE_SHIFT,
    HIGH_BITS,
    LOW_SLOTS,
    SLOT_BITS,
    SLOT_MASK,
    SLOTS,
    STATE_WORDS,
)

_WORD = (1 << 64) - 1
# word 1 holds White's high slots, the turn bit and the dice; word 3 Black's high slots alone
_FLAGS_END = DICE_SHIFT + 7
ROLLS = {10 * high + low for high in range(1, 7) for low in range(1, high + 1)}


def _row_problem(words: list[int]) -> str | None:
    from .rules import Position, six_block_breach

    words = [w & _WORD for w in words]
    if words[1] >> _FLAGS_END or words[3] >> HIGH_BITS:
        return "bits are set past the checkers, the turn and the dice"
    for side, name in ((0, "White"), (1, "Black")):
        low, high = words[2 * side], words[2 * side + 1] & ((1 << HIGH_BITS) - 1)
        total = sum((low >> (SLOT_BITS * i)) & SLOT_MASK for i in range(LOW_SLOTS))
        total += sum((high >> (SLOT_BITS * i)) & SLOT_MASK for i in range(SLOTS - LOW_SLOTS))
        if total != CHECKERS:
            return f"{name} has {total} checkers on the board and off it, not {CHECKERS}"
    dice = (words[1] >> DICE_SHIFT) & DICE_MASK
    if dice and dice not in ROLLS:
        return f"the dice field holds {dice}, which is no roll"
    try:
        position = Position.decode(np.array(words, dtype=np.uint64).astype(np.int64))
    except ValueError as error:
        return str(error)
    return six_block_breach(position)


def state_problem(states: np.ndarray) -> str | None:
    """What is wrong with the first row of ``states`` (kernel states, int64 rows of 4) that is
    not a possible long-nardy position, or None: no bits past the fields, fifteen checkers a side
    (on the board and borne off), dice that are a roll, no point held by both sides, no six-block
    that breaks the rule."""
    if states.ndim != 2 or states.shape[1] != STATE_WORDS:
        return f"long nardy's states are rows of {STATE_WORDS} words, not {states.shape}"
    for row, words in enumerate(states.tolist()):
        problem = _row_problem(words)
        if problem:
            return f"states row {row} is not a position: {problem}"
    return None
