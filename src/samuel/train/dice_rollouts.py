"""Labels by rollout for the games with dice (backgammon, long nardy): the six outcome chances of a
position, its equity and the equity's standard error, from K games played from it by the
champion, with the dice chosen to cancel noise.

**A rollout** is a game from the position: at each turn the side on roll rolls (the dice below)
and plays what the plied search of :mod:`samuel.search.plied` chooses at ``ply`` (0 ply: the
play whose position evaluates best; 1 and 2 ply: gnubg's n-ply with its move filter of
``candidates`` plays within ``threshold`` points; a roll with one play is played without a
search). The champion's evaluator values every position the search reaches, so a network per
phase (``EVALUATOR_PHASED``) values each by its own phase's network. A rollout played to the
end scores the outcome's *indicator vector*: a win of ``p`` points sets the first ``p`` of the
three win classes (win, gammon, backgammon), a loss the same of the loss classes. A *truncated*
rollout (``truncate_plies`` N > 0) stops after N plies (moves; a pass is one) and takes the
network's outcome head at the position reached (dice to roll), through the network of that
position's own phase. A game that reaches ``ply_cap`` plies stops there the same way (counted in
``capped``: with no outcome network it scores nothing, a draw). Everything is in the first
player's view.

**A label** (:class:`DiceRolloutLabels`, per position) stores the six outcome means (the K
rollouts' vectors averaged: P(win >= 1, 2, 3 points), then the same lost), the equity (expected
points: the three win chances summed less the three loss chances, as the network's
``expected_points``), its standard error, K, and the batch's ply, truncation and variance
reduction. A position already decided gets its exact vector, no games (K 0) and standard error
0. A position may have its dice rolled already: every rollout then plays that roll first, and
the rolls below are the ones the rollouts draw after it.

**The dice** of rollout ``j`` come from the position's seed and ``j`` alone, so a label never
depends on the batch, the order of the work or the number of threads. A roll is the ordered pair
of dice ``(a, b)``, coded ``r = 6 (a - 1) + (b - 1)`` in 0..35; the game plays the unordered
roll it makes (a double one way in 36, any other two). ``variance_reduction`` is one of
:data:`VARIANCE_REDUCTIONS`:

* ``"none"``: plain Monte Carlo, every roll of rollout ``j`` from its own seeded stream.
* *Antithetic pairs* (``"antithetic"``): rollouts ``2m`` and ``2m + 1`` share one stream, and
  the second plays the "opposite" dice, each die ``d`` replaced by ``7 - d`` on every roll
  (code ``35 - r``): where one partner rolls high the other rolls low, so their results
  anti-correlate. Each partner alone still rolls fair dice.
* *Quasi-random first rolls* (``"stratified"``): the first two rolls a rollout draws follow a
  design over the 36 x 36 ordered sequences. In each block of 1296 rollouts every sequence
  comes up exactly once; in each run of 36 (the K = 36 or 144 of a quick label) every first roll
  comes up exactly once and every second roll exactly once. The design, rollout ``q = j mod
  1296``: first roll ``x = q mod 36``, second ``y = (x + q div 36) mod 36``. Its rolls are then
  relabelled by two random permutations (one per roll), drawn afresh for each block from the
  position's seed, so that any one rollout's first two rolls are uniform and independent: the
  label's expected value is plain Monte Carlo's (the design only spreads the rollouts evenly).
  The later rolls come from the rollout's stream.
* ``"antithetic+stratified"`` (the default): both. Pair ``m = (j mod 1296) div 2`` has
  ``f = m mod 18`` and ``c = m div 18`` (``k = c div 2``, ``p = c mod 2``); with each code
  ``r`` seen as an orbit ``o = min(r, 35 - r)`` of the map ``r -> 35 - r`` and a side (``r >=
  18``), the pair's first partner rolls orbit ``f``, side 0, then orbit ``(f + k) mod 18``, side
  ``p``, and the second partner the opposite codes. A block's 648 pairs then cover the 1296
  sequences exactly once, and each run of 18 pairs every first and every second roll once. The
  permutations that relabel the rolls are drawn among those that commute with ``r -> 35 - r``
  (a random order of the 18 orbits and a random side for each), so the partners stay opposite
  and each rollout's rolls stay uniform.

**Luck** (``luck=True``, with an outcome network; any of the dice above): gnubg's variance
reduction, a control variate. Each roll a rollout draws (at a position ``s``, dice to roll) has a
luck: the network's six chances after the play the evaluator puts first (0 ply) for that roll,
less the mean of the same over the 21 rolls by their chances. Its expected value is 0 whatever
the network (the roll is fair), so the rollout's result less the sum of its rolls' lucks has the
plain result's expected value, and the better the network the more of the dice's noise it
cancels. It costs one 0-ply look at each of the 21 rolls per roll drawn. Measured (backgammon,
the shipped network, benchmarks/dice_rollouts.py): with antithetic + quasi-random dice, 0 ply,
10 plies, the equity's standard error 2.0 to 2.3 times smaller than plain dice's at equal K
(1.15 to 1.27 times without luck), for about 22 times the time per ply at 0 ply, 1.7 times at 1 ply
and no measurable time beside a 2-ply search. A luck-adjusted game's vector is no longer an
indicator (its entries may leave 0..1); the label's means, equity and standard error are of the
adjusted vectors.

**The standard error** is that of the equity's mean, from independent units: the pair means
with antithetic pairs (partners are correlated), the games otherwise, as ``std(units, ddof=1) /
sqrt(units)``. With stratification the units are not independent either (a block is drawn
without replacement), and the formula then overstates the error: an honest upper figure, which
benchmarks/dice_rollouts.py compares with the spread of labels over seeds. With one unit there
is no spread to measure, so the standard error is the bound ``3 / sqrt(K)`` (equities lie in
-3..3).

**Compiled work**: one kernel spreads the (position, rollout) items over numba's threads in
chunks, each chunk with its own search buffers, as :mod:`samuel.train.rollouts` does; every
array is checked here before a kernel reads it (numba checks no bounds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from samuel.evaluation import kernels as evaluation
from samuel.evaluation.evaluators import check_params
from samuel.evaluation.kernels import phase_network_start
from samuel.games import kernels as games
from samuel.games.compiled_game import MAX_SET_INPUTS, NETWORK_SCRATCH, NETWORK_VALUES
from samuel.jit import kernel, parallel_kernel
from samuel.nn import network
from samuel.nn.phased import phase_networks
from samuel.nn.shape import OUTCOMES, ShapeError, network_of
from samuel.search.alphabeta import _mix
from samuel.search.plied import MAX_PLIES, new_work, plied_search

from .rollouts import CHUNKS_PER_THREAD, check_seeds, check_states

CLASSES = 3  # win, gammon, backgammon (a mars and a koks in nardy): points 1, 2, 3
OUTCOME_COUNT = 2 * CLASSES  # P(win >= 1, 2, 3 points), then the same lost
FACES = 6
ROLLS = FACES * FACES  # ordered rolls (a, b), coded 6 (a - 1) + (b - 1)
ORBITS = ROLLS // 2  # pairs {r, 35 - r} of opposite rolls
STRATIFIED_ROLLS = 2  # the rolls the design spreads: the first two a rollout draws
BLOCK = ROLLS**STRATIFIED_ROLLS  # 1296 rollouts cover every sequence of them once
DISTINCT_ROLLS = 21  # a game's chance outcomes: the unordered rolls, 1-1, 2-1, 2-2, 3-1 ...
ROLL_CODE_MASK = 127  # a roll outcome's low bits hold 10 * high + low (samuel.games.dice)
MAX_RECORDED_ROLLS = 64
DEFAULT_PLY_CAP = 2000  # far beyond any backgammon or nardy game: a guard, not a rule
UNIT = 1 << 53

# Constants that keep the streams apart (mixed with the position's seed).
GAME_STREAM = 0xD1CE_0001  # no antithetic pairs: rollout j's stream
PAIR_STREAM = 0xD1CE_0002  # antithetic pairs: pair m's stream, shared by its two rollouts
SCRAMBLE_STREAM = 0xD1CE_0003  # stratified: each block's permutations of the rolls
ROLL_STREAM = 0xD1CE_0004  # a stream's roll t
SEARCH_STREAM = 0xD1CE_0005  # the plied search's tie-breaks

STRATIFY, ANTITHETIC = 1, 2  # the variance reductions, as bits
VARIANCE_REDUCTIONS = {
    "none": 0,
    "stratified": STRATIFY,
    "antithetic": ANTITHETIC,
    "antithetic+stratified": STRATIFY | ANTITHETIC,
}
NETWORK_EVALUATORS = (games.EVALUATOR_NETWORK, games.EVALUATOR_PHASED)


@dataclass(frozen=True)
class DiceRolloutConfig:
    """How positions of a game with dice are labelled by rollout."""

    rollouts: int = 36  # K games per position (even with antithetic pairs)
    ply: int = 0  # the champion's plied search in the rollouts (samuel.search.plied)
    truncate_plies: int = 0  # 0: play to the end; N: stop after N plies, the network's chances
    variance_reduction: str = "antithetic+stratified"  # one of VARIANCE_REDUCTIONS
    candidates: int = 8  # at 1 ply and more, the plays looked at deeper (gnubg's filter) ...
    threshold: float = 0.16  # ... within this many points of the best 0-ply play
    ply_cap: int = DEFAULT_PLY_CAP  # a game this long stops (see the module docstring)
    luck: bool = False  # subtract each drawn roll's luck (the docstring; needs an outcome network)

    def __post_init__(self) -> None:
        def whole(name: str, low: int, high: int) -> int:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise ValueError(f"dice rollouts' {name} must be a whole number, not {value!r}")
            if not low <= value <= high:
                raise ValueError(f"dice rollouts' {name} must be in {low}..{high}, not {value}")
            return int(value)

        rollouts = whole("rollouts", 1, 1 << 24)
        if self.variance_reduction not in VARIANCE_REDUCTIONS:
            raise ValueError(
                f"variance_reduction must be one of {sorted(VARIANCE_REDUCTIONS)}, "
                f"not {self.variance_reduction!r}"
            )
        if VARIANCE_REDUCTIONS[self.variance_reduction] & ANTITHETIC and rollouts % 2:
            raise ValueError(f"antithetic rollouts come in pairs: K must be even, not {rollouts}")
        whole("ply", 0, MAX_PLIES)
        cap = whole("ply_cap", 1, 1 << 20)
        whole("truncate_plies", 0, cap - 1)
        whole("candidates", 1, 1 << 16)
        threshold = self.threshold
        if isinstance(threshold, bool) or not isinstance(threshold, int | float | np.number):
            raise ValueError(f"the candidates' threshold must be a number, not {threshold!r}")
        if not 0.0 <= float(threshold) < math.inf:  # NaN fails too
            raise ValueError(f"the candidates' threshold must be 0 or more, not {threshold}")
        if not isinstance(self.luck, bool | np.bool_):
            raise ValueError(f"luck must be True or False, not {self.luck!r}")

    @property
    def name(self) -> str:
        """The variance reduction used, as labels record it (``+luck`` with luck)."""
        return self.variance_reduction + ("+luck" if self.luck else "")


@dataclass(frozen=True)
class DiceRolloutLabels:
    """The labels of a batch of positions, in the order given (first player's view)."""

    outcomes: np.ndarray  # float64 (n, 6): P(win >= 1, 2, 3), P(lose >= 1, 2, 3), K's means
    equity: np.ndarray  # float64 (n,): expected points, wins less losses summed over the classes
    stderr: np.ndarray  # float64 (n,): the equity's standard error (0 for a decided position)
    rollouts: np.ndarray  # int32 (n,): K, the games played (0 for a decided position)
    ply: int  # the champion's plies in the rollouts
    truncate_plies: int  # 0: played to the end; N: stopped after N plies
    variance_reduction: str  # one of VARIANCE_REDUCTIONS
    truncated: np.ndarray  # int32 (n,): rollouts valued by the network at their leaf
    capped: np.ndarray  # int32 (n,): of those, rollouts stopped by the ply cap
    rolls: np.ndarray  # int8 (n, K, R): the first R rolls each rollout drew, 10 a + b (0: none)
    games: int  # rollout games played in all
    plies: int  # plies played in all


# --- the dice --------------------------------------------------------------------------------


@kernel
def _draw(stream, t, n):
    """Draw ``t`` of ``stream``: an integer below ``n`` (53 random bits' remainder)."""
    return ((_mix(stream + _mix(ROLL_STREAM + t)) >> 11) & (UNIT - 1)) % n


@kernel
def _relabel(rng, permutation, flips):
    """For each of the stratified rolls, a random permutation of the roll codes that commutes
    with ``r -> 35 - r``: the orbits in a random order (``permutation[t]``), each turned round or
    not (``flips[t]``), from ``rng``; the rolls' permutations independent of each other."""
    for t in range(STRATIFIED_ROLLS):
        draws = _mix(rng + t)
        for o in range(ORBITS):
            permutation[t, o] = o
        for i in range(ORBITS - 1, 0, -1):
            j = _draw(draws, i, i + 1)
            permutation[t, i], permutation[t, j] = permutation[t, j], permutation[t, i]
        for o in range(ORBITS):
            flips[t, o] = _draw(draws, ORBITS + o, 2)


@kernel
def _relabelled(code, permutation, flips):
    """``code`` moved by one roll's permutation (rows of :func:`_relabel`'s arrays)."""
    orbit = code if code < ORBITS else ROLLS - 1 - code
    side = (1 if code >= ORBITS else 0) ^ flips[orbit]
    moved = permutation[orbit]
    return moved if side == 0 else ROLLS - 1 - moved


@kernel
def _stream(seed, j, reduction):
    """Rollout ``j``'s stream and whether it is a pair's second partner (plays ``35 - r``)."""
    if reduction & ANTITHETIC:
        return _mix(seed ^ _mix(PAIR_STREAM + (j >> 1))), (j & 1) == 1
    return _mix(seed ^ _mix(GAME_STREAM + j)), False


@kernel
def _first_rolls(seed, j, reduction, permutation, flips):
    """The first two rolls (codes) of rollout ``j`` by the stratified design (the docstring)."""
    block, q = divmod(j, BLOCK)
    _relabel(_mix(seed ^ _mix(SCRAMBLE_STREAM + block)), permutation, flips)
    if reduction & ANTITHETIC:
        pair = q >> 1
        f, c = pair % ORBITS, pair // ORBITS
        o = (f + (c >> 1)) % ORBITS
        first, second = f, (o if c & 1 == 0 else ROLLS - 1 - o)
        if q & 1:  # the partner: the opposite dice
            first, second = ROLLS - 1 - first, ROLLS - 1 - second
    else:
        first = q % ROLLS
        second = (first + q // ROLLS) % ROLLS
    return (
        _relabelled(first, permutation[0], flips[0]),
        _relabelled(second, permutation[1], flips[1]),
    )


@kernel
def _roll(reduction, t, stream, partner, firsts):
    """Roll ``t`` (0-based, among those the rollout draws) of a rollout, coded 0..35, from its
    stream (opposite dice for a pair's ``partner``); ``firsts`` holds the design's first two
    rolls when stratified."""
    if reduction & STRATIFY and t < STRATIFIED_ROLLS:
        return firsts[t]
    code = _draw(stream, t, ROLLS)
    return ROLLS - 1 - code if partner else code


@kernel
def _rollout_rolls(seed, rollouts, reduction, count, out):
    """``out[j, t]``: roll ``t`` of rollout ``j`` (codes), for testing the dice alone."""
    permutation = np.empty((STRATIFIED_ROLLS, ORBITS), dtype=np.int64)
    flips = np.empty((STRATIFIED_ROLLS, ORBITS), dtype=np.int64)
    firsts = np.zeros(STRATIFIED_ROLLS, dtype=np.int64)
    for j in range(rollouts):
        stream, partner = _stream(seed, j, reduction)
        if reduction & STRATIFY:
            firsts[0], firsts[1] = _first_rolls(seed, j, reduction, permutation, flips)
        for t in range(count):
            out[j, t] = _roll(reduction, t, stream, partner, firsts)


# --- one rollout -----------------------------------------------------------------------------


@kernel
def _indicator(points, out):
    """The outcome vector of a game won (``points`` > 0) or lost by so many points."""
    for o in range(OUTCOME_COUNT):
        out[o] = 0.0
    for c in range(min(abs(points), CLASSES)):
        out[c if points > 0 else CLASSES + c] = 1.0


@kernel
def _network_outcomes(game, net, state, scratch, active, out):
    """The outcome head of ``net`` at ``state``, in the first player's view."""
    values = scratch[NETWORK_VALUES : NETWORK_VALUES + MAX_SET_INPUTS]
    n = games.network_inputs(game, state, active, values)
    network.forward(net, active, values, n, scratch[NETWORK_SCRATCH:])
    at = network.outcomes(net, scratch[NETWORK_SCRATCH:])
    flip = games.network_sign(game, state) < 0  # the side to move's view: the other side's
    for o in range(OUTCOME_COUNT):
        source = (o + CLASSES) % OUTCOME_COUNT if flip else o
        out[o] = scratch[NETWORK_SCRATCH + at + source]


@kernel
def _leaf_outcomes(game, evaluator, params, state, scratch, active, out):
    """The network's chances at a leaf, by the network of the leaf's own phase."""
    if evaluator == games.EVALUATOR_PHASED:
        start = phase_network_start(game, params, state)
        _network_outcomes(game, params[start:], state, scratch, active, out)
    else:
        _network_outcomes(game, params, state, scratch, active, out)


@kernel
def _chances(game, evaluator, params, state, spare, spare_weights, scratch, active, out):
    """The six chances at a position after a play (dice to roll): its indicator vector if the
    game is over, else the network's (its phase's)."""
    if games.chance(game, state, spare, spare_weights) == 0:
        result = games.result(game, state, games.generate(game, state, spare))
        if result != games.NOT_OVER:
            _indicator(result, out)
            return
    _leaf_outcomes(game, evaluator, params, state, scratch, active, out)


@kernel
def _add_luck(game, evaluator, params, state, outcomes, weights, count, rolled, index, luck_work):
    """Add to the adjustment (``luck_work``'s last array) the luck of the roll
    ``outcomes[index]`` of ``state``: the six chances after the play the evaluator puts first
    (0 ply) for that roll, less their mean over the ``count`` rolls by their chances."""
    scratch, active, moves, spare, spare_weights, child, best, vector, expected, adjust = luck_work
    for o in range(OUTCOME_COUNT):
        expected[o] = 0.0
    for i in range(count):
        games.play(game, state, outcomes[i], rolled)
        side = games.sign(game, rolled)
        n = games.generate(game, rolled, moves)
        top = -math.inf
        for m in range(n):
            games.play(game, rolled, moves[m], child)
            result = games.NOT_OVER
            if games.chance(game, child, spare, spare_weights) == 0:
                result = games.result(game, child, games.generate(game, child, spare))
            if result != games.NOT_OVER:
                value = float(result)
            else:
                value = evaluation.evaluate(game, evaluator, params, child, scratch, active)
            if side * value > top:
                top = side * value
                best[:] = child
        _chances(game, evaluator, params, best, spare, spare_weights, scratch, active, vector)
        for o in range(OUTCOME_COUNT):
            expected[o] += weights[i] * vector[o]
            if i == index:
                adjust[o] += vector[o]
    for o in range(OUTCOME_COUNT):
        adjust[o] -= expected[o]


@kernel
def _play_rollout(
    game, evaluator, params, leaf, root, seed, j, reduction, settings, buffers, out, rolls
):
    """Play rollout ``j`` of ``root`` (the position's ``seed``); its outcome vector into
    ``out``, its first rolls (10 a + b) into ``rolls``; return ``(plies, how)``: how it ended,
    0 at the game's end, 1 truncated, 2 at the ply cap. ``leaf`` says whether the evaluator is
    an outcome network (else a capped game scores nothing)."""
    ply, truncate_plies, ply_cap, candidates, threshold, luck = settings
    state, child, moves, outcomes, weights, work, scratch, active, permutation, flips, firsts = (
        buffers[0]
    )
    rolled, luck_work = buffers[1]
    adjust = luck_work[9]
    adjust[:] = 0.0
    state[:] = root
    stream, partner = _stream(seed, j, reduction)
    if reduction & STRATIFY:
        firsts[0], firsts[1] = _first_rolls(seed, j, reduction, permutation, flips)
    drawn = 0
    limit = truncate_plies if truncate_plies > 0 else ply_cap
    for played in range(limit + 1):
        count = games.chance(game, state, outcomes, weights)
        if count == 0:
            n = games.generate(game, state, moves)
            result = games.result(game, state, n)
            if result != games.NOT_OVER:
                _indicator(result, out)
                for o in range(OUTCOME_COUNT):
                    out[o] -= adjust[o]
                return played, 0
        if played == limit:
            if leaf:
                _leaf_outcomes(game, evaluator, params, state, scratch, active, out)
            else:
                for o in range(OUTCOME_COUNT):
                    out[o] = 0.0
            for o in range(OUTCOME_COUNT):
                out[o] -= adjust[o]
            return played, 1 if truncate_plies > 0 else 2
        if count > 0:
            code = _roll(reduction, drawn, stream, partner, firsts)
            a, b = code // FACES + 1, code % FACES + 1
            if drawn < rolls.shape[0]:
                rolls[drawn] = 10 * a + b
            drawn += 1
            high, low = max(a, b), min(a, b)
            # the outcomes are the 21 rolls, low first (checked before the kernel runs)
            index = high * (high - 1) // 2 + low - 1
            if luck:
                _add_luck(
                    game, evaluator, params, state, outcomes, weights, count, rolled, index,
                    luck_work,
                )  # fmt: skip
            games.play(game, state, outcomes[index], child)
            state[:] = child
        n = games.generate(game, state, moves)
        move = moves[0]
        if n > 1:  # a forced play (or a pass) needs no search
            move, _, _ = plied_search(
                game,
                evaluator,
                params,
                state,
                ply,
                candidates,
                threshold,
                _mix(stream ^ _mix(SEARCH_STREAM + played)) & 0x7FFFFFFFFFFFFFFF,
                work,
                scratch,
                active,
            )
        games.play(game, state, move, child)
        state[:] = child
    return limit, 2  # not reached: the loop returns at its last turn


@kernel
def _buffers(game, words, scratch_size):
    """A rollout's working arrays: the game's and the search's, then luck's (which shares the
    evaluator's scratch); the adjustment luck adds up is the last."""
    room = games.move_room_kernel(game)
    scratch = np.zeros(scratch_size, dtype=np.float32)
    active = np.zeros(MAX_SET_INPUTS, dtype=np.int64)
    play = (
        np.empty(words, dtype=np.int64),
        np.empty(words, dtype=np.int64),
        np.empty(room, dtype=np.int64),
        np.empty(room, dtype=np.int64),
        np.empty(room, dtype=np.float64),
        new_work(game, words),
        scratch,
        active,
        np.empty((STRATIFIED_ROLLS, ORBITS), dtype=np.int64),
        np.empty((STRATIFIED_ROLLS, ORBITS), dtype=np.int64),
        np.zeros(STRATIFIED_ROLLS, dtype=np.int64),
    )
    luck = (
        scratch,
        active,
        np.empty(room, dtype=np.int64),
        np.empty(room, dtype=np.int64),
        np.empty(room, dtype=np.float64),
        np.empty(words, dtype=np.int64),
        np.empty(words, dtype=np.int64),
        np.zeros(OUTCOME_COUNT, dtype=np.float64),
        np.zeros(OUTCOME_COUNT, dtype=np.float64),
        np.zeros(OUTCOME_COUNT, dtype=np.float64),
    )
    return play, (np.empty(words, dtype=np.int64), luck)


@parallel_kernel
def _play_rollouts(
    game, evaluator, params, leaf, roots, seeds, rollouts, reduction, settings, chunks, out,
    plies, ends, rolls,
):  # fmt: skip
    """Rollout ``j`` of root ``i`` into ``out[i * rollouts + j]`` (and ``plies``, ``ends``,
    ``rolls``); the work cut into ``chunks`` parts, each with its own buffers."""
    items = roots.shape[0] * rollouts
    for c in numba.prange(chunks):
        start = c * items // chunks
        stop = (c + 1) * items // chunks
        if start == stop:
            continue
        buffers = _buffers(game, roots.shape[1], evaluation.scratch_size(game, evaluator, params))
        for item in range(start, stop):
            i = item // rollouts
            j = item - i * rollouts
            plies[item], ends[item] = _play_rollout(
                game, evaluator, params, leaf, roots[i], seeds[i], j, reduction, settings,
                buffers, out[item], rolls[item],
            )  # fmt: skip


@parallel_kernel
def _root_outcomes(game, states, decided, out):
    """Whether each position is decided, and then its outcome vector."""
    for i in numba.prange(states.shape[0]):
        moves = np.empty(games.move_room_kernel(game), dtype=np.int64)
        weights = np.empty(games.move_room_kernel(game), dtype=np.float64)
        decided[i] = False
        if games.chance(game, states[i], moves, weights) == 0:
            result = games.result(game, states[i], games.generate(game, states[i], moves))
            if result != games.NOT_OVER:
                decided[i] = True
                _indicator(result, out[i])


@kernel
def _leaves(game, evaluator, params, states, out):
    scratch = np.zeros(evaluation.scratch_size(game, evaluator, params), dtype=np.float32)
    active = np.zeros(MAX_SET_INPUTS, dtype=np.int64)
    for i in range(states.shape[0]):
        _leaf_outcomes(game, evaluator, params, states[i], scratch, active, out[i])


# --- checks and the friendly API -------------------------------------------------------------


def check_dice_game(game: int) -> None:
    """ValueError unless ``game`` numbers a game whose chance nodes roll two six-sided dice, the
    21 rolls listed low first (the kernel plays a roll by its place in that list)."""
    from samuel.games import registry

    sizes = games.compiled_game(game)
    if sizes.chance_outcomes == 0:
        raise ValueError(f"{sizes.title} has no dice: dice rollouts label a game with dice")
    base = int(game) & games.GAME_MASK
    rules = next(r for r in registry().values() if r.number == base)
    start = np.ascontiguousarray(rules.encode(rules.initial_position()), dtype=np.int64)
    outcomes = np.zeros(games.move_room(game), dtype=np.int64)
    weights = np.zeros(games.move_room(game), dtype=np.float64)
    count = games.chance(int(game), start, outcomes, weights)
    listed = [int(o) & ROLL_CODE_MASK for o in outcomes[:count]]
    wanted = [10 * high + low for high in range(1, 7) for low in range(1, high + 1)]
    if count != DISTINCT_ROLLS or listed != wanted:
        raise ValueError(f"{sizes.title}'s start does not roll two six-sided dice as expected")


def outcome_network(game: int, evaluator: int, params: np.ndarray) -> bool:
    """Whether the (checked) parameters are an outcome network of six chances (or one per
    phase), which can value a rollout's leaf."""
    if evaluator not in NETWORK_EVALUATORS:
        return False
    nets = phase_networks(params) if evaluator == games.EVALUATOR_PHASED else [params]
    for net in nets:
        try:
            head = network_of(net).head(OUTCOMES)
        except (ShapeError, ValueError):
            return False
        if head is None or head.outputs != OUTCOME_COUNT:
            return False
    return True


def summarize(outcomes: np.ndarray, paired: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(means, equity, stderr)`` of rollouts' outcome vectors ``(n, K, 6)``: the six means,
    the equity (expected points) of the means, and its standard error from independent units
    (pair means when ``paired``, the games otherwise; ``3 / sqrt(K)`` with a single unit)."""
    n, k, _ = outcomes.shape
    means = outcomes.mean(axis=1)
    equity = means[:, :CLASSES].sum(axis=1) - means[:, CLASSES:].sum(axis=1)
    games_equity = outcomes[:, :, :CLASSES].sum(axis=2) - outcomes[:, :, CLASSES:].sum(axis=2)
    units = games_equity.reshape(n, k // 2, 2).mean(axis=2) if paired else games_equity
    if units.shape[1] < 2:
        stderr = np.full(n, CLASSES / math.sqrt(k))
    else:
        stderr = units.std(axis=1, ddof=1) / math.sqrt(units.shape[1])
    return means, equity, stderr


def rollout_rolls(seed: int, rollouts: int, count: int, variance_reduction: str) -> np.ndarray:
    """The first ``count`` rolls the rollouts ``0..rollouts-1`` of a position with ``seed`` draw,
    ``(rollouts, count, 2)`` dice (first die, second die): the dice alone, as the rollouts roll
    them."""
    if variance_reduction not in VARIANCE_REDUCTIONS:
        raise ValueError(f"variance_reduction must be one of {sorted(VARIANCE_REDUCTIONS)}")
    if not 0 <= count <= 1 << 16 or not 0 <= rollouts <= 1 << 24:
        raise ValueError(f"rollouts {rollouts} and count {count} are out of range")
    if not -(1 << 63) <= seed < 1 << 63:
        raise ValueError(f"a seed is a 64-bit integer, not {seed}")
    codes = np.zeros((rollouts, count), dtype=np.int64)
    _rollout_rolls(int(seed), rollouts, VARIANCE_REDUCTIONS[variance_reduction], count, codes)
    return np.stack([codes // FACES + 1, codes % FACES + 1], axis=2)


def leaf_outcomes(game: int, evaluator: int, params: np.ndarray, states: np.ndarray) -> np.ndarray:
    """The six chances (first player's view, float64 ``(n, 6)``) a truncated rollout takes at
    each of ``states``: the outcome head of the network of each position's own phase."""
    params = check_params(game, evaluator, params)
    if not outcome_network(game, evaluator, params):
        raise ValueError("a rollout's leaf is valued by an outcome network of six chances")
    states = check_states(game, states)
    out = np.zeros((states.shape[0], OUTCOME_COUNT), dtype=np.float64)
    if states.shape[0]:
        _leaves(int(game), int(evaluator), params, states, out)
    return out


def dice_rollout_labels(
    game: int,
    evaluator: int,
    params: np.ndarray,
    states: np.ndarray,
    seeds: np.ndarray,
    config: DiceRolloutConfig,
    record_rolls: int = 0,
) -> DiceRolloutLabels:
    """Label each position by ``config.rollouts`` rollout games (the module docstring), in
    parallel on numba's threads; the same seeds give the same labels however the positions are
    batched and on any number of threads. ``states`` is ``(n, state_words)`` int64 (the
    kernels' form), ``seeds`` ``(n,)`` int64, one per position; ``record_rolls`` keeps each
    rollout's first rolls in the labels (``rolls``)."""
    if not isinstance(config, DiceRolloutConfig):
        raise ValueError(f"config must be a DiceRolloutConfig, not {type(config)}")
    if isinstance(record_rolls, bool) or not isinstance(record_rolls, int | np.integer):
        raise ValueError(f"record_rolls must be a whole number, not {record_rolls!r}")
    if not 0 <= record_rolls <= MAX_RECORDED_ROLLS:
        raise ValueError(f"record_rolls must be in 0..{MAX_RECORDED_ROLLS}, not {record_rolls}")
    check_dice_game(game)
    params = check_params(game, evaluator, params)
    leaf = outcome_network(game, evaluator, params)
    if (config.truncate_plies or config.luck) and not leaf:
        raise ValueError(
            "a truncated or luck-adjusted rollout reads the network's six chances: the "
            "evaluator must be a network (or a network per phase) with a six-chance outcome head"
        )
    states = check_states(game, states)
    count = states.shape[0]
    check_seeds(seeds, count)
    game, k = int(game), config.rollouts
    outcomes = np.zeros((count, OUTCOME_COUNT), dtype=np.float64)
    decided = np.zeros(count, dtype=np.bool_)
    if count:
        _root_outcomes(game, states, decided, outcomes)
    open_ = np.flatnonzero(~decided)
    equity = outcomes[:, :CLASSES].sum(axis=1) - outcomes[:, CLASSES:].sum(axis=1)
    stderr = np.zeros(count, dtype=np.float64)
    played = np.zeros(count, dtype=np.int32)
    truncated = np.zeros(count, dtype=np.int32)
    capped = np.zeros(count, dtype=np.int32)
    rolls = np.zeros((count, k, record_rolls), dtype=np.int8)
    items = len(open_) * k
    total_plies = 0
    if items:
        reduction = VARIANCE_REDUCTIONS[config.variance_reduction]
        out = np.zeros((items, OUTCOME_COUNT), dtype=np.float64)
        plies = np.zeros(items, dtype=np.int64)
        ends = np.zeros(items, dtype=np.int64)
        recorded = np.zeros((items, record_rolls), dtype=np.int8)
        settings = (
            int(config.ply),
            int(config.truncate_plies),
            int(config.ply_cap),
            int(config.candidates),
            float(config.threshold),
            bool(config.luck),
        )
        _play_rollouts(
            game, int(evaluator), params, leaf, np.ascontiguousarray(states[open_]),
            np.ascontiguousarray(seeds[open_]), k, reduction, settings,
            min(items, CHUNKS_PER_THREAD * numba.get_num_threads()), out, plies, ends, recorded,
        )  # fmt: skip
        means, equity[open_], stderr[open_] = summarize(
            out.reshape(len(open_), k, OUTCOME_COUNT), bool(reduction & ANTITHETIC)
        )
        outcomes[open_] = means
        played[open_] = k
        ends = ends.reshape(len(open_), k)
        truncated[open_] = (ends > 0).sum(axis=1)
        capped[open_] = (ends == 2).sum(axis=1)
        rolls[open_] = recorded.reshape(len(open_), k, record_rolls)
        total_plies = int(plies.sum())
    return DiceRolloutLabels(
        outcomes=outcomes,
        equity=equity,
        stderr=stderr,
        rollouts=played,
        ply=config.ply,
        truncate_plies=config.truncate_plies,
        variance_reduction=config.name,
        truncated=truncated,
        capped=capped,
        rolls=rolls,
        games=items,
        plies=total_plies,
    )
