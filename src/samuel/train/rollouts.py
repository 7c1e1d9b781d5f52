"""Labels by rollout (stage 2 of the loop): the value of a position is the mean result of K games
played from it by the champion, plus its standard error; quick static evaluations; and, for
Tigers & Sheep positions with the hand empty, the tablebase's exact value (which rollouts can
also end at).

**A rollout** is a self-play game (as :func:`samuel.train.selfplay.play_one_game` plays them: the
same search, threefold repetition a draw, ``ply_cap`` plies a draw) from the position, at a low
depth, with a share ``epsilon`` of its plies played by a uniformly random legal move. A
*truncated* rollout stops after ``truncate_plies`` plies and takes the evaluator's static value of
the position reached (clamped to -1..1) as its result. A position that is already decided gets its
exact result and no games (standard error 0). Values are in the first player's view, -1..1.

**Ending at the tablebase** (Tigers & Sheep, ``table=``): a rollout stops at the first position
the table holds (the hand empty) and takes its perfect-play value, and its searches probe the
table too; a position the table holds is labelled exactly, with no games (``exact``). Why: played
out to the end, rollouts at depth 1-2 play the movement phase badly, and their labels of
positions with the hand empty were biased towards the tigers by +0.45 to +0.72 against the
table's values (benchmarks/pipeline_rollouts.py, part 3). With the table a rollout only plays
out the placement, and part 4 measures what that gives near its end.

**Randomness** comes only from each position's seed (the caller derives it from the position's
id), and rollout ``j`` of a position draws from a stream derived from (seed, j) alone: a label
never depends on the batch it came in, the order of the work or the number of threads. The
compiled kernel spreads (position, rollout) work items over numba's threads in chunks, and each
chunk makes its search tables once: the tables' stamps make old entries invisible, so reusing
them changes no result, and saves allocating a megabyte per game.

**Variance reduction** (``variance_reduction=True``; off, rollouts are plain Monte Carlo: every
rollout its own stream and an independent coin per ply, so the two can be compared):

* *Which plies go random: stratified across the K rollouts* (``lattice="stratified"``, the
  default). Independent coins send a binomial number of the K rollouts random at each ply, by
  chance all or none; that count is noise in the label. Instead rollout ``j`` plays ply ``t`` at
  random where ``frac(vdc(j) + phi_t) < epsilon``: ``vdc`` is the base-2 van der Corput sequence
  (0, 1/2, 1/4, 3/4, ...), which spreads the K rollouts' phases evenly over [0, 1), and ``phi_t``
  a uniform drawn from (the position's seed, t), shared by the K rollouts (a randomly shifted
  rank-1 lattice at every ply). At each ply close to ``K * epsilon`` rollouts go random, never all
  or none by chance; yet for any one rollout the ``phi_t`` are independent, so its random plies
  are exactly independent ``epsilon``-coins: the rollout *policy*, and so the label's expected
  value, is plain Monte Carlo's.
* ``lattice="weyl"`` (the issue's first idea, kept for comparison): within a rollout, each side's
  ``s``-th move is random where ``frac(offset_j + side * g + s * epsilon) < epsilon`` (a Weyl
  sequence): exactly an ``epsilon`` share of each side's moves, evenly spaced (one lattice over
  all plies would, at epsilon 0.05, put every random ply on the same side: period 20 is even; the
  second side's shift ``g`` is the golden ratio's fraction), ``offset_j = frac(r + vdc(j))`` with
  ``r`` uniform from the seed. It changes the policy: a rollout of L plies gets about ``epsilon *
  L`` random moves and never none, and since the first blunder decides many games the label's
  mean moves. Measured (40 mid-game Tigers positions x 40 seeds, depth 2, epsilon 0.05): mean
  label 0.415 plain, 0.423 stratified, 0.459 Weyl, for no less noise.
* *Antithetic pairs.* Rollouts ``2m`` and ``2m + 1`` share one random stream, one uniform ``u``
  per ply. Antithetic variates only cancel noise if the outcome moves monotonically with ``u``, and
  a move's index in the generator's list says nothing about its quality; so a random ply ranks the
  legal moves by the evaluator's static value of the position each leads to (best first for the
  side to move; a finished game beyond any value), the first partner plays the move of rank
  ``floor(u * n)`` and the second the move of rank ``n - 1 - floor(u * n)`` (i.e. ``1 - u``). Each
  still plays a uniformly random legal move, but where one partner's random move is good the
  other's is bad, and their results anti-correlate. Ranking costs one evaluation per legal move on
  random plies only (an ``epsilon`` share, where no search is run). The partners' phases are
  complementary too: ``vdc(2m + 1) = vdc(2m) + 1/2``, so (for epsilon up to 1/2) partners never go
  random on the same ply (with ``weyl``, the partner's random plies fall halfway between the
  first's). Because partners are correlated, the standard error is computed
  the honest way, from the ``K / 2`` pair means (which are independent), never from the K games
  as if they were.

With a single independent unit (K = 1, or K = 2 in pairs) there is no spread to measure, so the
standard error is the bound ``1 / sqrt(K)`` (the largest a mean of K results in -1..1 has).
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

import numba
import numpy as np

from samuel.evaluation import kernels as evaluation
from samuel.evaluation.evaluators import check_params
from samuel.games import kernels as games
from samuel.jit import kernel, parallel_kernel
from samuel.search.alphabeta import (
    HISTORY_CAPACITY,
    MAX_PLY,
    _mix,
    _random_below,
    new_tables,
)

from . import game_loop

ROLLOUT_TABLE_BITS = 14  # shallow searches visit few nodes (as self-play's SELFPLAY_TABLE_BITS)
CHUNKS_PER_THREAD = 8  # work chunks per numba thread: enough to even out long and short games
UNIT = 1 << 53  # uniforms are multiples of 2**-53 in [0, 1)

# Constants that keep the streams apart (mixed with the position's seed).
GAME_STREAM = 0x5EED_0001  # plain Monte Carlo: rollout j's stream
PAIR_STREAM = 0x5EED_0002  # variance reduction: pair m's shared stream
SHIFT_STREAM = 0x5EED_0003  # variance reduction: the phases phi_t (stratified), r (weyl)
PLAIN, WEYL, STRATIFIED = 0, 1, 2  # how a rollout decides which plies go random
LATTICES = {"stratified": STRATIFIED, "weyl": WEYL}
# The second side's lattice is shifted from the first's by the golden ratio's fraction, so that
# the two sides' random plies do not fall on neighbouring plies in step.
SECOND_SIDE_SHIFT = (math.sqrt(5.0) - 1.0) / 2.0
FINISHED = 1.0e12  # a finished game's value when random moves are ranked: beyond any evaluation


@dataclass(frozen=True)
class RolloutConfig:
    """How positions are labelled by rollout."""

    rollouts: int = 16  # K games per position (even with variance_reduction: antithetic pairs)
    depth: int = 1  # the champion's search depth in rollouts: cheap, yet not random play
    epsilon: float = 0.05  # share of plies played by a random move: diversity between rollouts
    truncate_plies: int = 0  # 0: play to the end; N: stop after N plies, take the evaluator's value
    ply_cap: int = 200  # a rollout this long is a draw (as self-play's)
    variance_reduction: bool = True  # antithetic pairs and low-discrepancy random plies
    lattice: str = "stratified"  # with variance_reduction, which plies go random (docstring)

    def __post_init__(self) -> None:
        def whole(name: str) -> int:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise ValueError(f"rollout {name} must be a whole number, not {value!r}")
            return int(value)

        rollouts = whole("rollouts")
        if rollouts < 1:
            raise ValueError(f"rollouts per position must be at least 1, not {rollouts}")
        if self.variance_reduction and rollouts % 2:
            raise ValueError(
                f"with variance reduction the rollouts come in antithetic pairs: "
                f"the number per position must be even, not {rollouts}"
            )
        depth = whole("depth")
        if not 1 <= depth <= MAX_PLY - 2:
            raise ValueError(
                f"rollout search depth must be between 1 and {MAX_PLY - 2}, not {depth}"
            )
        epsilon = self.epsilon
        if isinstance(epsilon, bool) or not isinstance(epsilon, int | float | np.number):
            raise ValueError(f"epsilon must be a number between 0 and 1, not {epsilon!r}")
        if not 0.0 <= float(epsilon) <= 1.0:  # NaN fails too
            raise ValueError(f"epsilon (the share of random plies) must be in 0..1, not {epsilon}")
        ply_cap = whole("ply_cap")
        if not 1 <= ply_cap <= HISTORY_CAPACITY:
            raise ValueError(f"the ply cap must be between 1 and {HISTORY_CAPACITY}, not {ply_cap}")
        truncate = whole("truncate_plies")
        if not 0 <= truncate < ply_cap:
            raise ValueError(
                f"truncate_plies must be 0 (play to the end) or below the ply cap {ply_cap}, "
                f"not {truncate}"
            )
        if not isinstance(self.lattice, str) or self.lattice not in LATTICES:
            raise ValueError(f"lattice must be one of {sorted(LATTICES)}, not {self.lattice!r}")
        if not isinstance(self.variance_reduction, bool | np.bool_):
            raise ValueError(
                f"variance_reduction must be True or False, not {self.variance_reduction!r}"
            )


@dataclass(frozen=True)
class RolloutLabels:
    """The labels of a batch of positions, in the order given."""

    values: np.ndarray  # float32 (n,) mean outcome, first player's view, -1..1
    stderr: np.ndarray  # float32 (n,) standard error of that mean (0 for a decided position)
    rollouts: np.ndarray  # int32 (n,) games played per position (0 for a decided position)
    truncated: np.ndarray  # bool (n,) whether any of its rollouts was truncated
    plies: int  # plies played in all
    games: int  # rollout games played in all
    exact: np.ndarray  # bool (n,) the tablebase's value at the root (stderr 0, no rollouts)
    tabled: np.ndarray  # int32 (n,) rollouts that ended at the tablebase (took its value)
    # float32 (n,) the plies from the position to its games' end, the mean over its rollouts (a
    # rollout that stopped at the table: the plies played + the table's distance); 0 for a
    # decided position, the table's distance for an exact one; NaN where some game's end is
    # unknown (a truncated rollout, a drawn table position). The moves-left head's target.
    plies_left: np.ndarray


# --- compiled core -------------------------------------------------------------------------------


@kernel
def _uniform(rng):
    """A uniform in [0, 1) (a multiple of 2**-53) and the generator's next state."""
    draw, rng = _random_below(rng, UNIT)
    return draw / float(UNIT), rng


@kernel
def _van_der_corput(j):
    """The base-2 radical inverse of ``j``: 0, 1/2, 1/4, 3/4, 1/8, ..."""
    value = 0.0
    scale = 0.5
    while j > 0:
        if j & 1:
            value += scale
        j >>= 1
        scale *= 0.5
    return value


@kernel
def _clamp(value):
    return max(-1.0, min(1.0, value))


# How a rollout plays: one argument of the compiled rollout (a settings bundle). ``lattice`` is
# PLAIN, WEYL or STRATIFIED; the rest are RolloutConfig's.
RolloutPlay = namedtuple("RolloutPlay", "depth epsilon truncate_plies ply_cap lattice")


@kernel
def rollout_work(game, state_size, ply_cap):
    """A rollout's working arrays: the principal variation, the keys of the game's positions, the
    moves, the replies (ranking moves), the position and its child, a chance node's outcomes and
    their probabilities (the move buffers of the game's room)."""
    room = games.move_room_kernel(game)
    return (
        np.zeros(MAX_PLY, dtype=np.int64),
        np.empty(ply_cap + 1, dtype=np.int64),
        np.empty(room, dtype=np.int64),
        np.empty(room, dtype=np.int64),
        np.empty(state_size, dtype=np.int64),
        np.empty(state_size, dtype=np.int64),
        np.empty(room, dtype=np.int64),
        np.empty(room, dtype=np.float64),
    )


@kernel
def play_rollout(
    game,
    evaluator,
    params,
    root,
    play,
    stream,
    offset,
    rotation_seed,
    antithetic,
    tables,
    work,
    tablebase=None,
):
    """Play one rollout from ``root`` as ``play`` says (a :data:`RolloutPlay`), with the
    working arrays ``work`` (:func:`rollout_work`); return ``(outcome, plies, truncated, tabled,
    left)``, the
    outcome in the first player's view (-1..1; an exact 1, 0 or -1 unless truncated), ``plies``
    the plies played and ``left`` the plies the game had left when the rollout stopped: 0 where
    it ended (a ply-capped game ends there, a draw), the table's distance where it stopped at a
    decided table position, and -1 where no one knows (truncated, or a drawn table position).

    With a ``tablebase`` (the game's layers, or None: then that code is not even compiled, as in
    :func:`~samuel.search.alphabeta.search_kernel`), the rollout stops at the first position the
    table holds and takes its perfect-play value (``tabled`` True), and its searches probe it.

    ``lattice`` says which plies go random (PLAIN: a coin per ply from the stream; STRATIFIED,
    WEYL: the module docstring's phases, ``offset`` the rollout's, ``rotation_seed`` the
    position's). The stream gives one uniform per ply for the random move; with a lattice it is
    a rank among the moves ranked by quality (mirrored when ``antithetic``). Random plies need no
    search.
    """
    depth, epsilon, truncate_plies, ply_cap, lattice = play
    pv, keys, moves, replies, state, child, outcomes, weights = work
    state[:] = root
    window = 0
    rng = stream
    for ply in range(ply_cap):
        n, result = game_loop.arrive(
            game, state, child, keys, window, ply, moves, outcomes, weights, stream
        )
        if result != games.NOT_OVER:
            return float(game_loop.points(result)), ply, False, False, 0
        if tablebase is not None:
            found, outcome, distance = games.tablebase_result(game, state, tablebase)
            if found:  # the side to move's outcome -> the first player's
                left = distance if outcome != 0 else -1  # a draw has no distance
                return float(outcome * games.sign(game, state)), ply, False, True, left
        if truncate_plies > 0 and ply == truncate_plies:
            scratch = tables[13]
            active = tables[16]
            value = evaluation.evaluate(game, evaluator, params, state, scratch, active)
            return _clamp(value), ply, True, False, -1
        if lattice == WEYL:  # each side's own plies: a lattice over all plies of period
            # 2 / epsilon would give one side every random ply of a rollout
            phase = offset + (ply & 1) * SECOND_SIDE_SHIFT + (ply >> 1) * epsilon
            explore = phase - math.floor(phase) < epsilon
        elif lattice == STRATIFIED:
            rotation, _ = _uniform(_mix(rotation_seed + ply))
            phase = offset + rotation
            explore = phase - math.floor(phase) < epsilon
        else:
            coin, rng = _uniform(rng)
            explore = coin < epsilon
        # One uniform per ply, random or not (partners on one stream stay in step). Drawing it
        # only on random plies was miscompiled here: the assignment under the condition was lost
        # and every random move was the first legal one (the compiled and the Python function
        # disagreed; tests/test_pipeline_rollouts.py checks they agree).
        u, rng = _uniform(rng)
        if explore:
            pick = min(int(u * n), n - 1)
            if antithetic:
                pick = n - 1 - pick
            if lattice:
                move = _ranked_move(
                    game, evaluator, params, state, moves, n, pick, tables, replies, child
                )
            else:
                move = moves[pick]
        else:
            # ties at the root: the pair's stream (shared by partners)
            game_loop.searched(
                game, evaluator, params, state, keys, window, ply, depth, stream, tables, pv,
                tablebase,
            )  # fmt: skip
            move = pv[0]
        window = game_loop.advance(game, state, child, move, ply, window)
    return 0.0, ply_cap, False, False, 0


@kernel
def _ranked_move(game, evaluator, params, state, moves, n, rank, tables, replies, child):
    """The move of the given ``rank`` (0 the best) among ``moves[:n]`` by the static value of
    the position it leads to, for the side to move (a finished game counts beyond any value;
    ties keep the generator's order). Ranks ``k`` and ``n - 1 - k`` are antithetic partners."""
    scratch = tables[13]
    active = tables[16]
    quality = np.empty(n, dtype=np.float64)
    side = games.sign(game, state)
    for i in range(n):
        games.play(game, state, moves[i], child)
        result = games.result(game, child, games.generate(game, child, replies))
        if result != games.NOT_OVER:
            value = result * FINISHED
        else:
            value = evaluation.evaluate(game, evaluator, params, child, scratch, active)
        quality[i] = side * value
    for i in range(n):
        above = 0
        for j in range(n):
            if quality[j] > quality[i] or (quality[j] == quality[i] and j < i):
                above += 1
        if above == rank:
            return moves[i]
    return moves[rank]  # not reached: the ranks are 0..n-1


@kernel
def _rollout_stream(seed, j, reduced):
    """``(stream, offset, antithetic)`` of rollout ``j`` of the position with ``seed``."""
    if reduced == STRATIFIED:  # vdc(2m + 1) = vdc(2m) + 1/2: the partner's phase
        return _mix(seed ^ _mix(PAIR_STREAM + (j >> 1))), _van_der_corput(j), (j & 1) == 1
    if reduced == WEYL:
        stream = _mix(seed ^ _mix(PAIR_STREAM + (j >> 1)))
        shift, _ = _uniform(_mix(seed ^ SHIFT_STREAM))
        phase = shift + _van_der_corput(j)  # vdc(2m + 1) = vdc(2m) + 1/2: the partner's shift
        return stream, phase - math.floor(phase), (j & 1) == 1
    return _mix(seed ^ _mix(GAME_STREAM + j)), 0.0, False


@parallel_kernel
def _play_rollouts(
    game,
    evaluator,
    params,
    roots,
    seeds,
    rollouts,
    depth,
    epsilon,
    truncate_plies,
    ply_cap,
    reduced,
    chunks,
    outcomes,
    plies,
    truncated,
    tabled,
    lengths,
    tablebase,
):
    """Rollout ``j`` of root ``i`` into ``outcomes[i * rollouts + j]`` (and ``plies``,
    ``truncated``, ``tabled``, and ``lengths``: the plies from the root to the game's end, -1
    where unknown); the work is cut into ``chunks`` parts, each with its own search tables.
    ``tablebase`` is the game's layers or None (see :func:`play_rollout`)."""
    items = roots.shape[0] * rollouts
    for c in numba.prange(chunks):
        start = c * items // chunks
        stop = (c + 1) * items // chunks
        if start == stop:
            continue
        tables = new_tables(
            ROLLOUT_TABLE_BITS,
            roots.shape[1],
            games.move_room_kernel(game),
            evaluation.scratch_size(game, evaluator, params),
        )
        work = rollout_work(game, roots.shape[1], ply_cap)
        play = RolloutPlay(depth, epsilon, truncate_plies, ply_cap, reduced)
        for item in range(start, stop):
            i = item // rollouts
            j = item - i * rollouts
            stream, offset, antithetic = _rollout_stream(seeds[i], j, reduced)
            outcome, n, cut, ended, left = play_rollout(
                game,
                evaluator,
                params,
                roots[i],
                play,
                stream,
                offset,
                _mix(seeds[i] ^ SHIFT_STREAM),
                antithetic,
                tables,
                work,
                tablebase,
            )
            outcomes[item] = outcome
            plies[item] = n
            truncated[item] = cut
            tabled[item] = ended
            lengths[item] = n + left if left >= 0 else -1


@parallel_kernel
def _root_results(game, states, results):
    """Each position's result if it is decided (first player's view), else NOT_OVER."""
    for i in numba.prange(states.shape[0]):
        moves = np.empty(games.move_room_kernel(game), dtype=np.int64)
        n = games.generate(game, states[i], moves)
        results[i] = games.result(game, states[i], n)


@parallel_kernel
def _static_values(game, evaluator, params, states, values):
    """Each position's static value, first player's view, clamped; a decided one's result."""
    count = states.shape[0]
    chunks = min(count, 64)
    for c in numba.prange(chunks):
        moves = np.empty(games.move_room_kernel(game), dtype=np.int64)
        scratch = np.zeros(evaluation.scratch_size(game, evaluator, params), dtype=np.float32)
        active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
        for i in range(c * count // chunks, (c + 1) * count // chunks):
            n = games.generate(game, states[i], moves)
            result = games.result(game, states[i], n)
            if result != games.NOT_OVER:
                values[i] = result
            else:
                value = evaluation.evaluate(game, evaluator, params, states[i], scratch, active)
                values[i] = _clamp(value)


@kernel
def _tablebase_values(game, states, layers, captures_to_win, mask, values, distances):
    for i in range(states.shape[0]):
        state = states[i]
        if state[2] != 0:
            continue
        sheep = state[1]
        count = 0
        while sheep:
            sheep &= sheep - 1
            count += 1
        if 20 - count >= captures_to_win:  # the game is over: no layer holds it
            continue
        found, outcome, plies = games.tablebase_result(game, state, layers)
        if found:
            mask[i] = True
            values[i] = outcome if state[3] else -outcome  # side to move's -> the tigers'
            if outcome != 0:  # a draw has no distance
                distances[i] = plies


# --- checks and the friendly API -----------------------------------------------------------------


def check_states(game: int, states: np.ndarray) -> np.ndarray:
    """The positions as the kernels read them, ``(n, state_words)`` int64 C-contiguous; raise
    ValueError for anything else. Rows of ``STATE_SIZE`` words (padded) are accepted when the
    padding is zero. Every row must be a position of the game (the game's own check,
    :data:`samuel.games.states.STATE_PROBLEMS`): the kernels index tables by its words, and
    numba checks no bounds."""
    sizes = games.compiled_game(game)
    if not isinstance(states, np.ndarray):
        raise ValueError(f"positions must be a NumPy array, not {type(states)}")
    words = sizes.state_words
    if states.ndim != 2 or states.shape[1] not in (words, games.STATE_SIZE):
        raise ValueError(
            f"{sizes.title} positions are an (n, {words}) array (or (n, {games.STATE_SIZE}) "
            f"padded with zeros), not one of shape {states.shape}"
        )
    if states.dtype != np.int64:
        raise ValueError(f"positions must be int64, not {states.dtype}")
    if not states.flags.c_contiguous:
        raise ValueError("positions must be a C-contiguous array")
    if states.shape[1] != words:
        if np.any(states[:, words:]):
            raise ValueError(f"{sizes.title} positions have {words} words; the padding must be 0")
        states = np.ascontiguousarray(states[:, :words])
    from samuel.games import registry
    from samuel.games.states import state_problem

    base = int(game) & games.GAME_MASK  # a variant is checked as its game
    name = next(rules.name for rules in registry().values() if rules.number == base)
    problem = state_problem(name, states)  # a ValueError for a game without the check
    if problem is not None:
        raise ValueError(f"not a {sizes.title} position: {problem}")
    return states


def check_seeds(seeds: np.ndarray, count: int) -> None:
    if not isinstance(seeds, np.ndarray):
        raise ValueError(f"seeds must be a NumPy array, not {type(seeds)}")
    if seeds.shape != (count,):
        raise ValueError(
            f"expected one seed per position, {count}, not an array of shape {seeds.shape}"
        )
    if seeds.dtype != np.int64:
        raise ValueError(f"seeds must be int64, not {seeds.dtype}")
    if not seeds.flags.c_contiguous:
        raise ValueError("seeds must be a C-contiguous array")


def _spread(outcomes: np.ndarray, rollouts: int, paired: bool) -> np.ndarray:
    """The standard error of each row's mean, from independent units (games or pair means)."""
    units = outcomes.reshape(len(outcomes), rollouts // 2, 2).mean(axis=2) if paired else outcomes
    count = units.shape[1]
    if count < 2:
        return np.full(len(outcomes), 1.0 / math.sqrt(rollouts))
    return units.std(axis=1, ddof=1) / math.sqrt(count)


def rollout_labels(
    game: int,
    evaluator: int,
    params: np.ndarray,
    states: np.ndarray,
    seeds: np.ndarray,
    config: RolloutConfig,
    table=None,
) -> RolloutLabels:
    """Label each position by ``config.rollouts`` rollout games (see the module's docstring),
    in parallel on numba's threads; the same seeds give the same labels however the positions
    are batched and on any number of threads. ``states`` is ``(n, state_words)`` int64 (the
    kernels' form, ``rules.encode``), ``seeds`` ``(n,)`` int64, one per position.

    ``table`` (Tigers & Sheep only: a loaded
    :class:`~samuel.games.tigers.tablebase.probe.Tablebase` for the game's captures to win, or
    None): positions it holds get its exact value with no games; rollouts end at the first
    position it holds, with its value, and their searches probe it."""
    if not isinstance(config, RolloutConfig):
        raise ValueError(f"config must be a RolloutConfig, not {type(config)}")
    params = check_params(game, evaluator, params)
    states = check_states(game, states)
    count = states.shape[0]
    check_seeds(seeds, count)
    game = int(game)
    layers = None if table is None else _table_layers(table, game)
    results = np.empty(count, dtype=np.int64)
    if count:
        _root_results(game, states, results)
    exact = np.zeros(count, dtype=np.bool_)
    exact_values = np.zeros(count, dtype=np.int8)
    exact_plies = np.full(count, np.nan, dtype=np.float32)
    if layers is not None and count:
        # checks the positions, too
        exact, exact_values, exact_plies = tablebase_distances(table, states)
    open_ = np.flatnonzero((results == games.NOT_OVER) & ~exact)
    values = np.where(results == games.NOT_OVER, 0, results).astype(np.float64)
    values[exact] = exact_values[exact]
    plies_left = np.where(results == games.NOT_OVER, np.nan, 0.0)
    plies_left[exact] = exact_plies[exact]
    stderr = np.zeros(count, dtype=np.float64)
    played = np.zeros(count, dtype=np.int32)
    truncated = np.zeros(count, dtype=np.bool_)
    tabled = np.zeros(count, dtype=np.int32)
    k = config.rollouts
    items = len(open_) * k
    total_plies = 0
    if items:
        roots = np.ascontiguousarray(states[open_])
        outcomes = np.zeros(items, dtype=np.float64)
        plies = np.zeros(items, dtype=np.int64)
        cut = np.zeros(items, dtype=np.bool_)
        ended = np.zeros(items, dtype=np.bool_)
        lengths = np.zeros(items, dtype=np.int64)
        chunks = min(items, CHUNKS_PER_THREAD * numba.get_num_threads())
        _play_rollouts(
            game,
            int(evaluator),
            params,
            roots,
            np.ascontiguousarray(seeds[open_]),
            k,
            config.depth,
            float(config.epsilon),
            config.truncate_plies,
            config.ply_cap,
            LATTICES[config.lattice] if config.variance_reduction else PLAIN,
            chunks,
            outcomes,
            plies,
            cut,
            ended,
            lengths,
            layers,
        )
        outcomes = outcomes.reshape(len(open_), k)
        values[open_] = outcomes.mean(axis=1)
        stderr[open_] = _spread(outcomes, k, bool(config.variance_reduction))
        played[open_] = k
        truncated[open_] = cut.reshape(len(open_), k).any(axis=1)
        tabled[open_] = ended.reshape(len(open_), k).sum(axis=1)
        lengths = lengths.reshape(len(open_), k)
        known = (lengths >= 0).all(axis=1)
        plies_left[open_] = np.where(known, lengths.mean(axis=1), np.nan)
        total_plies = int(plies.sum())
    return RolloutLabels(
        values=np.clip(values, -1.0, 1.0).astype(np.float32),
        stderr=stderr.astype(np.float32),
        rollouts=played,
        truncated=truncated,
        plies=total_plies,
        games=items,
        exact=exact,
        tabled=tabled,
        plies_left=plies_left.astype(np.float32),
    )


def evaluate_positions(
    game: int, evaluator: int, params: np.ndarray, states: np.ndarray
) -> np.ndarray:
    """The evaluator's static value (no search) of each position, first player's view, clamped
    to -1..1, float32; a decided position's exact result. For relabelling priority."""
    params = check_params(game, evaluator, params)
    states = check_states(game, states)
    values = np.zeros(states.shape[0], dtype=np.float32)
    if states.shape[0]:
        _static_values(int(game), int(evaluator), params, states, values)
    return values


def tablebase_labels(table, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(mask, values)`` for Tigers & Sheep positions: ``mask`` True where the table (a
    :class:`~samuel.games.tigers.tablebase.probe.Tablebase`) holds the position (the hand empty,
    fewer sheep captured than win), ``values`` its perfect-play result there, +1 / 0 / -1 in the
    first player's (the tigers') view (0 where the mask is False)."""
    mask, values, _ = tablebase_distances(table, states)
    return mask, values


def tablebase_distances(table, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(mask, values, plies)``: :func:`tablebase_labels`'s two and, float32, the plies to the
    game's end with perfect play where the table holds a decided position (NaN elsewhere: a
    drawn position has no end to count to)."""
    layers, captures = _table_parts(table)
    game = table.game
    states = check_states(game, states)
    mask = np.zeros(states.shape[0], dtype=np.bool_)
    values = np.zeros(states.shape[0], dtype=np.int8)
    plies = np.full(states.shape[0], np.nan, dtype=np.float32)
    if states.shape[0]:
        _tablebase_values(game, states, layers, captures, mask, values, plies)
    return mask, values, plies


def _table_parts(table) -> tuple[tuple, int]:
    """A loaded tablebase's ``(layers, captures_to_win)``; ValueError for anything else."""
    layers = getattr(table, "layers", None)
    captures = getattr(table, "captures_to_win", None)
    if not isinstance(layers, tuple) or not isinstance(captures, int):
        raise ValueError(f"expected a loaded Tablebase (probe.load_tablebase), not {type(table)}")
    if len(layers) != 2 * captures or captures < 1:
        raise ValueError(
            f"a tablebase for {captures} captures has {2 * captures} layers, not {len(layers)}"
        )
    return layers, captures


def _table_layers(table, game: int) -> tuple:
    """The layers of ``table`` for rollouts of ``game``; ValueError unless it is the table of
    that game (Tigers & Sheep won by the table's captures)."""
    layers, captures = _table_parts(table)
    if game != table.game:
        raise ValueError(
            f"the tablebase is of Tigers & Sheep won by {captures} captures (game number "
            f"{table.game}): it cannot label positions of "
            f"{games.compiled_game(game).title} (game number {game})"
        )
    return layers
