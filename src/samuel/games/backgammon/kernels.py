"""Backgammon's compiled rules: the plays of a roll, playing them, the end of a game, the key,
perft, and the network's and the classic evaluation's view of a position (``board.py`` says how
a position and a play are held).

The plays of a roll are found as GNU Backgammon finds them: every sequence of single-die steps,
depth first, the dice in both orders (a double's four steps only from points at or below the
last step's, so that one set of steps is tried once); plays that leave the same position are one
play; then only those that play the most dice stay, and of plays of one die of two, those of the
larger die when there are any.
"""

from __future__ import annotations

import numpy as np

from samuel.games.compiled_game import move_buffer_full
from samuel.jit import inline_kernel, kernel

from .board import (
    BAR,
    BAR_SLOT,
    CHECKERS,
    COUNT_SHIFT,
    DICE_MASK,
    DICE_SHIFT,
    FROM_SHIFT,
    HIGH_MASK,
    HOME,
    LOW_SLOTS,
    MAX_CANDIDATES,
    MAX_PLAYS,
    MAX_STEPS,
    OFF_SLOT,
    PASS,
    POINT_MASK,
    POINTS,
    ROLL_FLAG,
    SLOT_BITS,
    SLOT_MASK,
    SLOTS,
    STEP_BITS,
    STEP_HIT,
    STEP_MASK,
    TO_SHIFT,
    TURN_BIT,
)

HIT_SHIFT = (SLOTS - 1 - LOW_SLOTS) * SLOT_BITS  # 36: a play's key has its hits above the slots

# The network's inputs, from the side to move's view (Tesauro's encoding without his two turn
# units): for each side, the mover first, four for each point (at least one checker, two,
# three, and half of those beyond three), then half its checkers on the bar and a fifteenth of
# those borne off.
SIDE_INPUTS = 4 * POINTS + 2
NETWORK_INPUTS = 2 * SIDE_INPUTS
MOST_SET_INPUTS = 2 * CHECKERS  # a side's checkers set at most one input each

# The classic evaluation's features, X's view (X's less O's): pips still to go (O's less X's),
# blots (O's less X's), points made, home-board points made, the longest prime, checkers on the
# bar (O's less X's), checkers borne off, and the turn (+1 with X to move).
FEATURES = 8


@inline_kernel
def slot(state: np.ndarray, side: int, index: int) -> int:
    """How many of ``side``'s checkers (0 X, 1 O) are in slot ``index`` (``board.py``)."""
    word = state[2 * side + (index >> 4)]
    return (word >> (SLOT_BITS * (index & 15))) & SLOT_MASK


@inline_kernel
def unpack(state: np.ndarray, side: int, out: np.ndarray) -> None:
    low = state[2 * side]
    high = state[2 * side + 1]
    for i in range(LOW_SLOTS):
        out[i] = (low >> (SLOT_BITS * i)) & SLOT_MASK
    for i in range(SLOTS - LOW_SLOTS):
        out[LOW_SLOTS + i] = (high >> (SLOT_BITS * i)) & SLOT_MASK


@inline_kernel
def x_to_move(state: np.ndarray) -> bool:
    return (state[1] >> TURN_BIT) & 1 == 1


@inline_kernel
def dice_of(state: np.ndarray) -> int:
    return (state[1] >> DICE_SHIFT) & DICE_MASK


@inline_kernel
def finished(state: np.ndarray) -> bool:
    return slot(state, 0, OFF_SLOT) == CHECKERS or slot(state, 1, OFF_SLOT) == CHECKERS


@inline_kernel
def _can_step(mine: np.ndarray, theirs: np.ndarray, outside: int, start: int, die: int) -> bool:
    """Whether one of the mover's checkers may move ``die`` pips from point ``start``."""
    if start == BAR:  # enters on the mover's point 25 - die: the opponent's point die
        return mine[BAR_SLOT] > 0 and theirs[die - 1] < 2
    if mine[BAR_SLOT] > 0 or mine[start - 1] == 0:
        return False
    to = start - die
    if to >= 1:
        return theirs[POINTS - to] < 2  # the mover's point t is the opponent's 25 - t
    if outside > 0:  # bearing off: every checker home first
        return False
    if to == 0:
        return True
    for higher in range(start, HOME):  # a larger die bears off only from the highest point
        if mine[higher] > 0:
            return False
    return True


@inline_kernel
def _slot_unit(index: int) -> tuple[int, int]:
    """Which word of a side's key (0 the low, 1 the high) holds slot ``index``, and its unit."""
    if index < LOW_SLOTS:
        return 0, 1 << (SLOT_BITS * index)
    return 1, 1 << (SLOT_BITS * (index - LOW_SLOTS))


@kernel
def generate_plays(state: np.ndarray, moves: np.ndarray) -> int:
    """Every distinct legal play of the rolled dice into ``moves`` (a pass when none moves a
    checker), their number; 0 with the dice still to roll or the game over."""
    dice = dice_of(state)
    if dice == 0 or finished(state):
        return 0
    high = dice // 10
    low = dice % 10
    double = high == low
    mover = 0 if x_to_move(state) else 1
    mine = np.empty(SLOTS, dtype=np.int64)
    theirs = np.empty(SLOTS, dtype=np.int64)
    unpack(state, mover, mine)
    unpack(state, 1 - mover, theirs)
    outside = 0  # checkers not yet home, the bar's included
    for i in range(HOME, OFF_SLOT):
        outside += mine[i]
    # The position a sequence leaves, exactly: the mover's slots (the off slot follows from the
    # others) and the points where it hit.
    key = np.empty(2, dtype=np.int64)
    key[0] = state[2 * mover]
    key[1] = state[2 * mover + 1] & ((1 << HIT_SHIFT) - 1)
    found_low = np.empty(MAX_CANDIDATES, dtype=np.int64)
    found_high = np.empty(MAX_CANDIDATES, dtype=np.int64)
    found_code = np.empty(MAX_CANDIDATES, dtype=np.int64)
    found_dice = np.empty(MAX_CANDIDATES, dtype=np.int64)  # dice played
    found_die = np.empty(MAX_CANDIDATES, dtype=np.int64)  # the die of a play of one die
    found = 0
    most = 0
    steps = 4 if double else 2
    dice_order = np.empty(MAX_STEPS, dtype=np.int64)
    next_start = np.empty(MAX_STEPS, dtype=np.int64)  # where each level looks next
    moved = np.zeros(MAX_STEPS, dtype=np.bool_)  # each level has played a step
    step_start = np.empty(MAX_STEPS, dtype=np.int64)
    step_to = np.empty(MAX_STEPS, dtype=np.int64)
    step_hit = np.empty(MAX_STEPS, dtype=np.bool_)
    sorted_steps = np.empty(MAX_STEPS, dtype=np.int64)
    for order in range(1 if double else 2):
        for level in range(steps):
            dice_order[level] = high
        if not double:
            dice_order[0] = high if order == 0 else low
            dice_order[1] = low if order == 0 else high
        level = 0
        next_start[0] = BAR
        moved[0] = False
        while True:
            die = dice_order[level]
            start = next_start[level]
            while start >= 1 and not _can_step(mine, theirs, outside, start, die):
                start -= 1
                if start < BAR and mine[BAR_SLOT] > 0:
                    start = 0  # with a checker on the bar, nothing else moves
            complete = False
            played = 0
            if start >= 1:
                # Play the step.
                next_start[level] = start - 1
                moved[level] = True
                to = start - die if start != BAR else BAR - die
                if to < 0:
                    to = 0
                source = BAR_SLOT if start == BAR else start - 1
                mine[source] -= 1
                word, unit = _slot_unit(source)
                key[word] -= unit
                if start > HOME and to <= HOME:
                    outside -= 1
                hit = False
                if to >= 1:
                    mine[to - 1] += 1
                    word, unit = _slot_unit(to - 1)
                    key[word] += unit
                    if theirs[POINTS - to] == 1:
                        hit = True
                        theirs[POINTS - to] = 0
                        theirs[BAR_SLOT] += 1
                        key[1] |= 1 << (HIT_SHIFT + to - 1)
                else:
                    mine[OFF_SLOT] += 1
                step_start[level] = start
                step_to[level] = to
                step_hit[level] = hit
                if level + 1 < steps and mine[OFF_SLOT] < CHECKERS:
                    level += 1
                    next_start[level] = start if double else BAR
                    moved[level] = False
                    continue
                complete = True
                played = level + 1
            elif not moved[level] and level > 0:
                complete = True  # this sequence can go no further
                played = level
            if complete and played >= most:
                # Record the sequence, its steps sorted so that a play has one code.
                for k in range(played):
                    value = (step_start[k] << FROM_SHIFT) | (step_to[k] << TO_SHIFT)
                    if step_hit[k]:
                        value |= STEP_HIT
                    j = k
                    while j > 0 and sorted_steps[j - 1] < value:
                        sorted_steps[j] = sorted_steps[j - 1]
                        j -= 1
                    sorted_steps[j] = value
                code = played << COUNT_SHIFT
                for k in range(played):
                    code |= sorted_steps[k] << (STEP_BITS * k)
                first_die = dice_order[0]
                same = -1
                for j in range(found):
                    if found_low[j] == key[0] and found_high[j] == key[1]:
                        same = j
                        break
                if same < 0:
                    if found == MAX_CANDIDATES:
                        move_buffer_full()
                    found_low[found] = key[0]
                    found_high[found] = key[1]
                    found_code[found] = code
                    found_dice[found] = played
                    found_die[found] = first_die
                    found += 1
                elif played > found_dice[same] or (
                    played == found_dice[same] and played == 1 and first_die > found_die[same]
                ):
                    found_code[same] = code
                    found_dice[same] = played
                    found_die[same] = first_die
                most = max(most, played)
            if start >= 1:
                # Take back the step just played, and look on from the next point.
                _undo(mine, theirs, key, step_start[level], step_to[level], step_hit[level])
                if step_start[level] > HOME and step_to[level] <= HOME:
                    outside += 1
                continue
            if level == 0:
                break
            level -= 1
            _undo(mine, theirs, key, step_start[level], step_to[level], step_hit[level])
            if step_start[level] > HOME and step_to[level] <= HOME:
                outside += 1
    if found == 0:
        if moves.shape[0] < 1:
            move_buffer_full()
        moves[0] = PASS
        return 1
    larger_only = False  # a play of one die of two: the larger die if it can be played
    if most == 1 and not double:
        for j in range(found):
            if found_dice[j] == 1 and found_die[j] == high:
                larger_only = True
    n = 0
    for j in range(found):
        if found_dice[j] != most or (larger_only and found_die[j] != high):
            continue
        if n == moves.shape[0]:
            move_buffer_full()
        moves[n] = found_code[j]
        n += 1
    return n


@inline_kernel
def _undo(
    mine: np.ndarray, theirs: np.ndarray, key: np.ndarray, start: int, to: int, hit: bool
) -> None:
    source = BAR_SLOT if start == BAR else start - 1
    mine[source] += 1
    word, unit = _slot_unit(source)
    key[word] += unit
    if to >= 1:
        mine[to - 1] -= 1
        word, unit = _slot_unit(to - 1)
        key[word] -= unit
        if hit:
            theirs[POINTS - to] = 1
            theirs[BAR_SLOT] -= 1
            key[1] &= ~(1 << (HIT_SHIFT + to - 1))
    else:
        mine[OFF_SLOT] -= 1


@inline_kernel
def _add(state: np.ndarray, side: int, index: int, amount: int) -> None:
    shift = SLOT_BITS * (index & 15)
    state[2 * side + (index >> 4)] += amount << shift


@inline_kernel
def play_move(state: np.ndarray, move: int, child: np.ndarray) -> None:
    """The position after a play (the other side then to roll), or after a roll."""
    for i in range(4):
        child[i] = state[i]
    if move & ROLL_FLAG:
        child[1] = (state[1] & ~(DICE_MASK << DICE_SHIFT)) | ((move & DICE_MASK) << DICE_SHIFT)
        return
    mover = 0 if x_to_move(state) else 1
    count = (move >> COUNT_SHIFT) & 7
    for k in range(count):
        step = (move >> (STEP_BITS * k)) & STEP_MASK
        start = (step >> FROM_SHIFT) & POINT_MASK
        to = (step >> TO_SHIFT) & POINT_MASK
        _add(child, mover, BAR_SLOT if start == BAR else start - 1, -1)
        if to == 0:
            _add(child, mover, OFF_SLOT, 1)
            continue
        _add(child, mover, to - 1, 1)
        if step & STEP_HIT:
            _add(child, 1 - mover, POINTS - to, -1)
            _add(child, 1 - mover, BAR_SLOT, 1)
    # The other side to roll: the turn flips and the dice are cleared.
    child[1] = (child[1] & HIGH_MASK) | ((0 if mover == 0 else 1) << TURN_BIT)


@inline_kernel
def play_hits(move: int) -> bool:
    count = (move >> COUNT_SHIFT) & 7
    for k in range(count):
        if (move >> (STEP_BITS * k)) & STEP_HIT:
            return True
    return False


@inline_kernel
def result(state: np.ndarray) -> int:
    """X's points if the game is over (a gammon 2, a backgammon 3), else 127."""
    for winner in range(2):
        if slot(state, winner, OFF_SLOT) == CHECKERS:
            loser = 1 - winner
            points = 1
            if slot(state, loser, OFF_SLOT) == 0:
                points = 2
                # still on the bar or in the winner's home board: the loser's points 19-24
                for index in range(POINTS - HOME, BAR_SLOT + 1):
                    if slot(state, loser, index) > 0:
                        points = 3
            return points if winner == 0 else -points
    return 127


@inline_kernel
def _mix(h: int) -> int:
    """A 64-bit mixing step (a multiply and a logical shift; numba's int64 wraps)."""
    h = h * -7046029254386353131  # 0x9E3779B97F4A7C15
    return h ^ ((h >> 32) & 0xFFFFFFFF)


@inline_kernel
def position_key(state: np.ndarray) -> int:
    h = _mix(state[0])
    h = _mix(h ^ state[1])
    h = _mix(h ^ state[2])
    return _mix(h ^ state[3])


@inline_kernel
def set_inputs(state: np.ndarray, active: np.ndarray, values: np.ndarray) -> int:
    """The network's set inputs, the side to move's view (see ``NETWORK_INPUTS``)."""
    mover = 0 if x_to_move(state) else 1
    n = 0
    for view in range(2):
        side = mover if view == 0 else 1 - mover
        base = view * SIDE_INPUTS
        for point in range(POINTS):
            count = slot(state, side, point)
            if count == 0:
                continue
            first = base + 4 * point
            active[n] = first
            values[n] = 1.0
            n += 1
            if count >= 2:
                active[n] = first + 1
                values[n] = 1.0
                n += 1
            if count >= 3:
                active[n] = first + 2
                values[n] = 1.0
                n += 1
            if count > 3:
                active[n] = first + 3
                values[n] = (count - 3) / 2.0
                n += 1
        bar = slot(state, side, BAR_SLOT)
        if bar > 0:
            active[n] = base + 4 * POINTS
            values[n] = bar / 2.0
            n += 1
        off = slot(state, side, OFF_SLOT)
        if off > 0:
            active[n] = base + 4 * POINTS + 1
            values[n] = off / CHECKERS
            n += 1
    return n


@inline_kernel
def _side_features(state: np.ndarray, side: int, out: np.ndarray, sign: float) -> None:
    """Adds ``sign`` times one side's features to ``out`` (the pips with the opposite sign)."""
    pips = 0
    blots = 0
    made = 0
    home = 0
    prime = 0
    run = 0
    for point in range(1, POINTS + 1):
        count = slot(state, side, point - 1)
        pips += count * point
        if count == 1:
            blots += 1
        if count >= 2:
            made += 1
            run += 1
            if point <= HOME:
                home += 1
            prime = max(prime, run)
        else:
            run = 0
    bar = slot(state, side, BAR_SLOT)
    pips += bar * BAR
    out[0] -= sign * pips
    out[1] -= sign * blots
    out[2] += sign * made
    out[3] += sign * home
    out[4] += sign * prime
    out[5] -= sign * bar
    out[6] += sign * slot(state, side, OFF_SLOT)


@inline_kernel
def features(state: np.ndarray, out: np.ndarray) -> None:
    for i in range(FEATURES):
        out[i] = 0.0
    _side_features(state, 0, out, 1.0)
    _side_features(state, 1, out, -1.0)
    out[7] = 1.0 if x_to_move(state) else -1.0


@kernel
def classic_value(state: np.ndarray, weights: np.ndarray, scratch: np.ndarray) -> float:
    """The classic evaluation, X's view: the weighted features squashed into (-1, 1), below any
    won game's points, so that the search takes a win it can reach."""
    features(state, scratch)
    total = 0.0
    for i in range(FEATURES):
        total += weights[i] * scratch[i]
    return np.tanh(total)


@kernel
def perft(state: np.ndarray, depth: int) -> int:
    """Backgammon's perft: at a position with the dice to roll, the sum over the 21 rolls (each
    once, unweighted) of the rolled position's; at a rolled position, the sum over each distinct
    play of the perft of ``depth - 1`` after it (a pass is a play). A finished game counts one."""
    if depth == 0 or finished(state):
        return 1
    child = np.empty(4, dtype=np.int64)
    if dice_of(state) == 0:
        total = 0
        for high in range(1, 7):
            for low in range(1, high + 1):
                play_move(state, ROLL_FLAG | (10 * high + low), child)
                total += perft(child, depth)
        return total
    moves = np.empty(MAX_PLAYS, dtype=np.int64)
    n = generate_plays(state, moves)
    if depth == 1:
        return n
    total = 0
    for j in range(n):
        play_move(state, moves[j], child)
        total += perft(child, depth - 1)
    return total
