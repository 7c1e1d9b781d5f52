"""Long nardy's compiled rules: the plays of a roll, playing them, the end of a game, the key,
perft, and the network's and the classic evaluation's view of a position (``board.py`` says how
a position and a play are held).

The plays of a roll are found as backgammon's are: every sequence of single-die steps, depth
first, the dice in both orders, each step legal when it is made (the head rule, no landing on an
opponent's checker, the six-block rule, bearing off); plays that leave the same position are one
play; then only those that play the most dice stay, and of plays of one die of two, those of the
larger die when there are any. A double's four steps are tried first only from points at or below
the last step's, so that one set of steps is tried once; the six-block rule is the one rule whose
verdict depends on the order of a play's steps, so when it refused a step of that search, the
double is searched again in every order.
"""

from __future__ import annotations

import numpy as np

from samuel.games.compiled_game import move_buffer_full
from samuel.jit import inline_kernel, kernel

from .board import (
    BLOCK,
    CHECKERS,
    COUNT_SHIFT,
    DICE_MASK,
    DICE_SHIFT,
    FROM_SHIFT,
    HALF,
    HEAD,
    HIGH_MASK,
    HOME,
    LOW_SLOTS,
    MAX_CANDIDATES,
    MAX_PLAYS,
    MAX_STEPS,
    MIDDLE,
    OFF_SLOT,
    PASS,
    POINT_MASK,
    POINTS,
    POINTS_HIGH_MASK,
    RACE,
    ROLL_FLAG,
    SLOT_BITS,
    SLOT_MASK,
    SLOTS,
    START,
    STEP_BITS,
    STEP_MASK,
    TURN_BIT,
)

# A step's verdict (_step_verdict): legal, refused by any rule but the six-block, or refused by
# the six-block rule alone (which another order of the same steps may avoid).
ILLEGAL = 0
LEGAL = 1
BLOCKED = 2

# The network's inputs, from the side to move's view, every point in the mover's numbering: for
# each side, the mover first, four for each point (at least one checker, two, three, and half of
# those beyond three: Tesauro's units), then a fifteenth of its checkers borne off.
SIDE_INPUTS = 4 * POINTS + 1
NETWORK_INPUTS = 2 * SIDE_INPUTS
MOST_SET_INPUTS = 2 * CHECKERS  # a side's checkers set at most one input each

# The classic evaluation's features, White's view (White's less Black's): pips still to go
# (Black's less White's), points held, home points held, the longest block on the other side's
# path, checkers on the head (Black's less White's), checkers borne off, and the turn (+1 with
# White to move).
FEATURES = 7


@inline_kernel
def slot(state: np.ndarray, side: int, index: int) -> int:
    """How many of ``side``'s checkers (0 White, 1 Black) are in slot ``index`` (``board.py``)."""
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
def white_to_move(state: np.ndarray) -> bool:
    return (state[1] >> TURN_BIT) & 1 == 1


@inline_kernel
def dice_of(state: np.ndarray) -> int:
    return (state[1] >> DICE_SHIFT) & DICE_MASK


@inline_kernel
def finished(state: np.ndarray) -> bool:
    return slot(state, 0, OFF_SLOT) == CHECKERS or slot(state, 1, OFF_SLOT) == CHECKERS


@inline_kernel
def across(index: int) -> int:
    """The other side's index (0-23) of a side's point index: half a board on."""
    return (index + HALF) % POINTS


@inline_kernel
def longest_block(mine: np.ndarray) -> tuple[int, int]:
    """The longest run of points ``mine`` holds along the other side's path, and where it starts
    (the other side's index of its lowest point, the one the other side reaches last)."""
    best = 0
    best_low = 0
    run = 0
    for j in range(POINTS):  # the other side's indices, from its point 1 up
        if mine[across(j)] > 0:
            run += 1
            if run > best:
                best = run
                best_low = j - run + 1
        else:
            run = 0
    return best, best_low


@inline_kernel
def block_allowed(mine: np.ndarray, to: int, theirs_lowest: int) -> bool:
    """Whether the mover's points, its point ``to`` newly held, keep the six-block rule: a run of
    six or more points along the opponent's path needs an opponent's checker past it (on a lower
    index of the opponent's than the run's lowest). ``theirs_lowest`` is the opponent's lowest
    index holding a checker (24: none on the board). Runs without ``to`` were there before the
    step, and stay allowed: the checker that allowed one only moves on past it."""
    j = across(to - 1)  # the opponent's index of the point
    low = j
    while low > 0 and mine[across(low - 1)] > 0:
        low -= 1
    high = j
    while high < POINTS - 1 and mine[across(high + 1)] > 0:
        high += 1
    return high - low + 1 < BLOCK or theirs_lowest < low


@inline_kernel
def _step_verdict(
    mine: np.ndarray,
    theirs: np.ndarray,
    outside: int,
    start: int,
    die: int,
    head_room: int,
    theirs_lowest: int,
) -> int:
    """Whether one of the mover's checkers may move ``die`` pips from point ``start`` now
    (``LEGAL``, ``ILLEGAL`` or ``BLOCKED``); ``head_room``: checkers that may still leave the
    head this turn."""
    if mine[start - 1] == 0 or (start == HEAD and head_room == 0):
        return ILLEGAL
    to = start - die
    if to >= 1:
        if theirs[across(to - 1)] > 0:
            return ILLEGAL  # one checker of the opponent's holds a point
        if mine[to - 1] > 0:
            return LEGAL  # a point held already makes no new run
        mine[start - 1] -= 1
        allowed = block_allowed(mine, to, theirs_lowest)
        mine[start - 1] += 1
        return LEGAL if allowed else BLOCKED
    if outside > 0:  # bearing off: every checker home first
        return ILLEGAL
    if to == 0:
        return LEGAL
    for higher in range(start, HOME):  # a larger die bears off only from the highest point
        if mine[higher] > 0:
            return ILLEGAL
    return LEGAL


@inline_kernel
def _slot_unit(index: int) -> tuple[int, int]:
    """Which word of a side's key (0 the low, 1 the high) holds slot ``index``, and its unit."""
    if index < LOW_SLOTS:
        return 0, 1 << (SLOT_BITS * index)
    return 1, 1 << (SLOT_BITS * (index - LOW_SLOTS))


@inline_kernel
def _move_checker(mine: np.ndarray, key: np.ndarray, start: int, to: int, sign: int) -> None:
    """Moves one of the mover's checkers from ``start`` to ``to`` (0 off), ``sign`` -1 back."""
    mine[start - 1] -= sign
    word, unit = _slot_unit(start - 1)
    key[word] -= sign * unit
    if to >= 1:
        mine[to - 1] += sign
        word, unit = _slot_unit(to - 1)
        key[word] += sign * unit
    else:
        mine[OFF_SLOT] += sign


@kernel
def _search(
    state: np.ndarray,
    mover: int,
    high: int,
    low: int,
    every_order: bool,
    found_low: np.ndarray,
    found_high: np.ndarray,
    found_code: np.ndarray,
    found_dice: np.ndarray,
    found_die: np.ndarray,
) -> tuple[int, int, bool]:
    """Every distinct position the roll's sequences of legal steps leave (at least one die, and
    each sequence as long as it can go), into the ``found_*`` arrays: each position's two key
    words, a play's code that leaves it, its dice played and, for a play of one die, the die.
    Returns how many, the most dice played, and whether the six-block rule refused a step.
    ``every_order``: a double's steps in every order, not only from points at or below the last
    step's."""
    double = high == low
    mine = np.empty(SLOTS, dtype=np.int64)
    theirs = np.empty(SLOTS, dtype=np.int64)
    unpack(state, mover, mine)
    unpack(state, 1 - mover, theirs)
    outside = 0  # checkers not yet home
    for i in range(HOME, POINTS):
        outside += mine[i]
    theirs_lowest = POINTS
    for j in range(POINTS - 1, -1, -1):
        if theirs[j] > 0:
            theirs_lowest = j
    # Two checkers may leave the head on a side's first turn (all fifteen there) with 3-3, 4-4
    # or 6-6, the doubles whose one checker alone could not play them all from the start.
    heads_allowed = 1
    if double and mine[HEAD - 1] == CHECKERS and (high == 3 or high == 4 or high == 6):
        heads_allowed = 2
    heads = 0
    # The position a sequence leaves, exactly: the mover's points (those borne off follow).
    key = np.empty(2, dtype=np.int64)
    key[0] = state[2 * mover]
    key[1] = state[2 * mover + 1] & POINTS_HIGH_MASK
    found = 0
    most = 0
    blocked = False
    steps = 4 if double else 2
    dice_order = np.empty(MAX_STEPS, dtype=np.int64)
    next_start = np.empty(MAX_STEPS, dtype=np.int64)  # where each level looks next
    moved = np.zeros(MAX_STEPS, dtype=np.bool_)  # each level has played a step
    step_start = np.empty(MAX_STEPS, dtype=np.int64)
    step_to = np.empty(MAX_STEPS, dtype=np.int64)
    sorted_steps = np.empty(MAX_STEPS, dtype=np.int64)
    for order in range(1 if double else 2):
        for level in range(steps):
            dice_order[level] = high
        if not double:
            dice_order[0] = high if order == 0 else low
            dice_order[1] = low if order == 0 else high
        level = 0
        next_start[0] = HEAD
        moved[0] = False
        while True:
            die = dice_order[level]
            start = next_start[level]
            while start >= 1:
                verdict = _step_verdict(
                    mine, theirs, outside, start, die, heads_allowed - heads, theirs_lowest
                )
                if verdict == LEGAL:
                    break
                if verdict == BLOCKED:
                    blocked = True
                start -= 1
            complete = False
            played = 0
            if start >= 1:
                # Play the step.
                next_start[level] = start - 1
                moved[level] = True
                to = max(start - die, 0)
                _move_checker(mine, key, start, to, 1)
                if start == HEAD:
                    heads += 1
                if start > HOME and to <= HOME:
                    outside -= 1
                step_start[level] = start
                step_to[level] = to
                if level + 1 < steps and mine[OFF_SLOT] < CHECKERS:
                    level += 1
                    next_start[level] = start if double and not every_order else HEAD
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
                    value = (step_start[k] << FROM_SHIFT) | step_to[k]
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
            if start < 1:
                if level == 0:
                    break
                level -= 1
            # Take back the step of this level, and look on from the next point.
            start = step_start[level]
            to = step_to[level]
            _move_checker(mine, key, start, to, -1)
            if start == HEAD:
                heads -= 1
            if start > HOME and to <= HOME:
                outside += 1
    return found, most, blocked


@kernel
def generate_plays(state: np.ndarray, moves: np.ndarray) -> int:
    """Every distinct legal play of the rolled dice into ``moves`` (a pass when none moves a
    checker), their number; 0 with the dice still to roll or the game over."""
    dice = dice_of(state)
    if dice == 0 or finished(state):
        return 0
    high = dice // 10
    low = dice % 10
    mover = 0 if white_to_move(state) else 1
    found_low = np.empty(MAX_CANDIDATES, dtype=np.int64)
    found_high = np.empty(MAX_CANDIDATES, dtype=np.int64)
    found_code = np.empty(MAX_CANDIDATES, dtype=np.int64)
    found_dice = np.empty(MAX_CANDIDATES, dtype=np.int64)  # dice played
    found_die = np.empty(MAX_CANDIDATES, dtype=np.int64)  # the die of a play of one die
    found, most, blocked = _search(
        state, mover, high, low, False, found_low, found_high, found_code, found_dice, found_die
    )
    if high == low and blocked:
        found, most, blocked = _search(
            state, mover, high, low, True, found_low, found_high, found_code, found_dice, found_die
        )
    if found == 0:
        if moves.shape[0] < 1:
            move_buffer_full()
        moves[0] = PASS
        return 1
    larger_only = False  # a play of one die of two: the larger die if it can be played
    if most == 1 and high != low:
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
    mover = 0 if white_to_move(state) else 1
    count = (move >> COUNT_SHIFT) & 7
    for k in range(count):
        step = (move >> (STEP_BITS * k)) & STEP_MASK
        start = (step >> FROM_SHIFT) & POINT_MASK
        to = step & POINT_MASK
        _add(child, mover, start - 1, -1)
        _add(child, mover, OFF_SLOT if to == 0 else to - 1, 1)
    # The other side to roll: the turn flips and the dice are cleared.
    child[1] = (child[1] & HIGH_MASK) | ((0 if mover == 0 else 1) << TURN_BIT)


@inline_kernel
def result(state: np.ndarray) -> int:
    """White's points if the game is over (a mars 2, a koks 3), else 127."""
    for winner in range(2):
        if slot(state, winner, OFF_SLOT) == CHECKERS:
            loser = 1 - winner
            points = 1
            if slot(state, loser, OFF_SLOT) == 0:
                points = 2
                # still in its first quarter: the loser's points 19-24
                for index in range(POINTS - HOME, POINTS):
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
def _rearmost(state: np.ndarray, side: int) -> int:
    """The index of ``side``'s rearmost point that holds a checker (-1: all borne off)."""
    for index in range(POINTS - 1, -1, -1):
        if slot(state, side, index) > 0:
            return index
    return -1


@inline_kernel
def _met_ahead(state: np.ndarray, side: int) -> bool:
    """Whether an opponent's checker stands ahead of ``side``'s rearmost checker on its path:
    one that the rearmost must still pass."""
    for index in range(_rearmost(state, side)):
        if slot(state, 1 - side, across(index)) > 0:
            return True
    return False


@inline_kernel
def phase(state: np.ndarray) -> int:
    """The position's phase (``board.PHASES``), from its counts alone: a fixed number of slot
    reads, no play generated. The start lasts while a side has a checker on its head; the race
    begins when neither side's rearmost checker has an opponent's checker ahead of it (then no
    checker of either side ever meets one of the other's again)."""
    if slot(state, 0, HEAD - 1) > 0 or slot(state, 1, HEAD - 1) > 0:
        return START
    if _met_ahead(state, 0) or _met_ahead(state, 1):
        return MIDDLE
    return RACE


@inline_kernel
def set_inputs(state: np.ndarray, active: np.ndarray, values: np.ndarray) -> int:
    """The network's set inputs, the side to move's view (see ``NETWORK_INPUTS``)."""
    mover = 0 if white_to_move(state) else 1
    n = 0
    for view in range(2):
        side = mover if view == 0 else 1 - mover
        base = view * SIDE_INPUTS
        for point in range(POINTS):  # the mover's index
            count = slot(state, side, point if view == 0 else across(point))
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
        off = slot(state, side, OFF_SLOT)
        if off > 0:
            active[n] = base + 4 * POINTS
            values[n] = off / CHECKERS
            n += 1
    return n


@inline_kernel
def _side_features(state: np.ndarray, side: int, out: np.ndarray, sign: float) -> None:
    """Adds ``sign`` times one side's features to ``out`` (pips and head with the opposite
    sign)."""
    counts = np.empty(SLOTS, dtype=np.int64)
    unpack(state, side, counts)
    pips = 0
    held = 0
    home = 0
    for point in range(1, POINTS + 1):
        count = counts[point - 1]
        pips += count * point
        if count > 0:
            held += 1
            if point <= HOME:
                home += 1
    block, _ = longest_block(counts)
    out[0] -= sign * pips
    out[1] += sign * held
    out[2] += sign * home
    out[3] += sign * block
    out[4] -= sign * counts[HEAD - 1]
    out[5] += sign * counts[OFF_SLOT]


@inline_kernel
def features(state: np.ndarray, out: np.ndarray) -> None:
    for i in range(FEATURES):
        out[i] = 0.0
    _side_features(state, 0, out, 1.0)
    _side_features(state, 1, out, -1.0)
    out[6] = 1.0 if white_to_move(state) else -1.0


@kernel
def classic_value(state: np.ndarray, weights: np.ndarray, scratch: np.ndarray) -> float:
    """The classic evaluation, White's view: the weighted features squashed into (-1, 1), below
    any won game's points, so that the search takes a win it can reach."""
    features(state, scratch)
    total = 0.0
    for i in range(FEATURES):
        total += weights[i] * scratch[i]
    return np.tanh(total)


@kernel
def perft(state: np.ndarray, depth: int) -> int:
    """Long nardy's perft, as backgammon's: at a position with the dice to roll, the sum over the
    21 rolls (each once, unweighted) of the rolled position's; at a rolled position, the sum over
    each distinct play of the perft of ``depth - 1`` after it (a pass is a play). A finished game
    counts one."""
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
