"""Alpha-beta search (negamax, principal variation search) for any game in :mod:`samuel.games`.

The whole search runs compiled: iterative deepening to a fixed depth or until a deadline, a
transposition table, move ordering (the table's move, captures, killer moves, the history
heuristic), repetition (a position occurring for the third time, counting the game's history and
the search path, is a draw) and forced results scored by distance (``WIN - plies``), so a faster
win beats a slower one and a loss is put off as long as possible. Given a tablebase (the layers of
:mod:`samuel.games.tigers.tablebase`), it scores every position below the root that the table
holds by its perfect-play value instead of searching it. Moves that are equally good at
the root are told apart by a seeded shuffle, so the same seed gives the same game.

**Chance.** In a game with dice, a position whose dice are still to roll is a chance node: its
value is the average of its outcomes' values, weighted by their probabilities (expectimax, as
gnubg's n-ply), each outcome searched with a full window to the same depth: a move uses a ply of
depth, a roll none, so depth 1 picks the move whose position (before the opponent's roll)
evaluates best, and depth 2 averages the opponent's best replies over their rolls. Within each
roll's subtree alpha-beta prunes as usual; across the rolls nothing is cut, so the value is exact.
Such a game scores a finished game by its points (a gammon 2), in the units of its evaluations,
which are expected points, instead of by ``WIN - plies``.

The evaluation plugs in through ``(evaluator, params)``: the evaluator's number selects a branch
of :func:`samuel.evaluation.kernels.evaluate`, ``params`` is its parameter array (classic weights, a
network's parameters). Python's part is :class:`Searcher`, which owns the tables and checks
inputs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba
import numpy as np

from samuel.errors import CommandError
from samuel.evaluation import evaluators
from samuel.evaluation import kernels as evaluation
from samuel.games import kernels as games
from samuel.jit import kernel

WIN = 1000.0  # the score of a win on the spot; a win in p plies scores WIN - p
WIN_BOUND = 500.0  # scores beyond this are forced results, not evaluations
INFINITY = 1.0e9
NULL_WINDOW = 1.0e-7  # a zero-width window for floating-point scores
MAX_PLY = 128  # deepest line the search can follow, root included
HISTORY_CAPACITY = 4096  # positions of game history the repetition check can see

EXACT, LOWER, UPPER = 0, 1, 2

# Where each table sits in the tables tuple (see new_tables).
HISTORY, KILLERS, STATES, PATH, PV, PV_LENGTH, COUNTERS = 4, 5, 6, 9, 10, 11, 12
SCRATCH, ACTIVE = 13, 16  # the evaluator's scratch and set inputs
CHANCE_WEIGHTS = 17  # each ply's chance outcomes' probabilities (the outcomes go in its moves)

# counters[] slots
NODES, STAMP, STOP = 0, 1, 2


@kernel(nogil=False)  # object mode (the clock) cannot release the GIL
def _now() -> float:
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@kernel
def _mix(x: int) -> int:
    """splitmix64's finaliser: a well-spread 64-bit value from any integer."""
    x = (x ^ (x >> 30)) * -4658895280553007687  # 0xBF58476D1CE4E5B9 as int64
    x = (x ^ (x >> 27)) * -7723592293110705685  # 0x94D049BB133111EB as int64
    return x ^ (x >> 31)


@kernel
def _random_below(rng: int, n: int):
    """A uniform integer below ``n`` and the generator's next state (splitmix64)."""
    rng += -7046029254386353131  # 0x9E3779B97F4A7C15, splitmix64's step
    return (_mix(rng) >> 1) % n, rng


@kernel
def _to_table(score: float, ply: int) -> float:
    """Forced-result scores are stored relative to the node, not the root."""
    if score > WIN_BOUND:
        return score + ply
    if score < -WIN_BOUND:
        return score - ply
    return score


@kernel
def _from_table(score: float, ply: int) -> float:
    if score > WIN_BOUND:
        return score - ply
    if score < -WIN_BOUND:
        return score + ply
    return score


# What the iterative search does next (it keeps its own stack: numba cannot cache recursive
# functions, numba issue #6061).
ENTER, NEXT_MOVE, RETURN = 0, 1, 2
# Per-ply integer frame fields.
F_DEPTH, F_COUNT, F_NEXT, F_BEST_MOVE, F_BOUND, F_SLOT, F_WINDOW, F_STAGE, F_CHANCE = range(9)
# Per-ply score frame fields.
F_ALPHA, F_BETA, F_BEST = range(3)
# Stages of the search of one child: its first (full-window) search, a null-window probe, and
# the full-window re-search of a probe that beat alpha.
FIRST, PROBE, RESEARCH = 0, 1, 2


@kernel
def _alphabeta(
    game, evaluator, params, tables, depth, root_index, window_start, deadline, seed, tablebase
):
    """The negamax score of the root (``states[0]``) to ``depth`` plies, side to move's view.

    ``root_index`` is where the root's key goes in ``path`` (after the game's history);
    ``tablebase`` is None or the game's tablebase layers.
    """
    (
        tt_key,
        tt_move,
        tt_score,
        tt_info,
        history,
        killers,
        states,
        moves,
        order,
        path,
        pv,
        pv_length,
        counters,
        scratch,
        frame,
        scores,
        active,
        chance_weights,
    ) = tables
    mask = tt_key.shape[0] - 1
    stamp = counters[STAMP]
    # A game with chance scores a finished game by its points, in the units of its evaluations
    # (expected points): an average over rolls mixes the two. Others score WIN - plies.
    in_points = games.chance_outcomes(game) > 0
    ply = 0
    frame[0, F_DEPTH] = depth
    frame[0, F_WINDOW] = window_start
    scores[0, F_ALPHA] = -INFINITY
    scores[0, F_BETA] = INFINITY
    mode = ENTER
    value = 0.0
    while True:
        if mode == ENTER:
            counters[NODES] += 1
            pv_length[ply] = ply
            if deadline > 0.0 and (counters[NODES] & 1023) == 0 and _now() > deadline:
                counters[STOP] = 1
                return 0.0
            state = states[ply]
            key = games.key(game, state)
            path[root_index + ply] = key
            frame[ply, F_CHANCE] = 0
            mode = RETURN
            if ply > 0:
                seen = 0
                for i in range(frame[ply, F_WINDOW], root_index + ply):
                    if path[i] == key:
                        seen += 1
                if seen >= 2:
                    value = 0.0  # this would be the position's third occurrence: a draw
                    continue
            outcomes = games.chance(game, state, moves[ply], chance_weights[ply])
            if outcomes > 0:
                # Dice to roll: the value is the outcomes' average, weighted by their
                # probabilities, each searched exactly (full window) to the same depth: a
                # roll is no move. The side to move is the same after it.
                if frame[ply, F_DEPTH] <= 0 or ply >= MAX_PLY - 1:
                    side = games.sign(game, state)
                    value = side * evaluation.evaluate(
                        game, evaluator, params, state, scratch, active
                    )
                    continue
                frame[ply, F_CHANCE] = 1
                frame[ply, F_COUNT] = outcomes
                frame[ply, F_NEXT] = 0
                scores[ply, F_BEST] = 0.0
                mode = NEXT_MOVE
                continue
            n = games.generate(game, state, moves[ply])
            result = games.result(game, state, n)
            side = games.sign(game, state)
            if result != games.NOT_OVER:
                value = 0.0
                if in_points:
                    value = float(result * side)
                elif result * side > 0:
                    value = WIN - ply
                elif result * side < 0:
                    value = -(WIN - ply)
                continue
            if tablebase is not None and ply > 0:
                found, outcome, plies = games.tablebase_result(game, state, tablebase)
                if found:  # perfect play: a win in plies scores WIN - (ply + plies), as above
                    value = outcome * (WIN - (ply + plies)) if outcome != 0 else 0.0
                    continue
            node_depth = frame[ply, F_DEPTH]
            if node_depth <= 0 or ply >= MAX_PLY - 1:
                value = side * evaluation.evaluate(game, evaluator, params, state, scratch, active)
                continue
            alpha = scores[ply, F_ALPHA]
            beta = scores[ply, F_BETA]
            slot = (_mix(key) >> 8) & mask
            table_move = -1
            if tt_key[slot] == key and (tt_info[slot] >> 16) == stamp:
                table_move = tt_move[slot]
                bound = (tt_info[slot] >> 8) & 255
                pv_node = beta - alpha > 2.0 * NULL_WINDOW
                if (tt_info[slot] & 255) >= node_depth and ply > 0 and not pv_node:
                    value = _from_table(tt_score[slot], ply)
                    if (
                        bound == EXACT
                        or (bound == LOWER and value >= beta)
                        or (bound == UPPER and value <= alpha)
                    ):
                        continue
            side_index = 1 if side > 0 else 0
            if ply == 0:
                # Shuffle the root moves with the seed: among equally good moves the first
                # searched is kept, so the seed decides ties.
                rng = seed
                for i in range(n - 1, 0, -1):
                    j, rng = _random_below(rng, i + 1)
                    swap = moves[0, i]
                    moves[0, i] = moves[0, j]
                    moves[0, j] = swap
            for i in range(n):
                m = moves[ply, i]
                if m == table_move:
                    order[ply, i] = 1 << 50
                elif games.is_capture(game, m):
                    order[ply, i] = 1 << 40
                elif ply == 0:
                    order[ply, i] = 0
                elif m == killers[ply, 0]:
                    order[ply, i] = 1 << 39
                elif m == killers[ply, 1]:
                    order[ply, i] = 1 << 38
                else:
                    order[ply, i] = history[side_index, games.history_slot(game, m)]
            frame[ply, F_COUNT] = n
            frame[ply, F_NEXT] = 0
            frame[ply, F_BEST_MOVE] = moves[ply, 0]
            frame[ply, F_BOUND] = UPPER
            frame[ply, F_SLOT] = slot
            scores[ply, F_BEST] = -INFINITY
            mode = NEXT_MOVE

        elif mode == NEXT_MOVE:
            j = frame[ply, F_NEXT]
            n = frame[ply, F_COUNT]
            if frame[ply, F_CHANCE]:
                if j >= n:
                    value = scores[ply, F_BEST]
                    mode = RETURN
                    continue
                games.play(game, states[ply], moves[ply, j], states[ply + 1])
                frame[ply + 1, F_DEPTH] = frame[ply, F_DEPTH]
                frame[ply + 1, F_WINDOW] = frame[ply, F_WINDOW]
                scores[ply + 1, F_ALPHA] = -INFINITY
                scores[ply + 1, F_BETA] = INFINITY
                ply += 1
                mode = ENTER
                continue
            if j >= n:
                # Every move searched (or a cut-off): store the result and return it.
                best = scores[ply, F_BEST]
                node_depth = frame[ply, F_DEPTH]
                slot = frame[ply, F_SLOT]
                key = path[root_index + ply]
                if (
                    tt_key[slot] != key
                    or (tt_info[slot] >> 16) != stamp
                    or (tt_info[slot] & 255) <= node_depth
                ):
                    tt_key[slot] = key
                    tt_move[slot] = frame[ply, F_BEST_MOVE]
                    tt_score[slot] = _to_table(best, ply)
                    tt_info[slot] = node_depth | (frame[ply, F_BOUND] << 8) | (stamp << 16)
                value = best
                mode = RETURN
                continue
            # Selection sort, one step: bring the best-ordered remaining move to position j.
            pick = j
            for i in range(j + 1, n):
                if order[ply, i] > order[ply, pick]:
                    pick = i
            m = moves[ply, pick]
            moves[ply, pick] = moves[ply, j]
            moves[ply, j] = m
            swap = order[ply, pick]
            order[ply, pick] = order[ply, j]
            order[ply, j] = swap
            state = states[ply]
            games.play(game, state, m, states[ply + 1])
            frame[ply + 1, F_DEPTH] = frame[ply, F_DEPTH] - 1
            frame[ply + 1, F_WINDOW] = (
                root_index + ply + 1
                if games.is_irreversible(game, state, m)
                else frame[ply, F_WINDOW]
            )
            alpha = scores[ply, F_ALPHA]
            if j == 0:
                frame[ply, F_STAGE] = FIRST
                scores[ply + 1, F_ALPHA] = -scores[ply, F_BETA]
            else:
                frame[ply, F_STAGE] = PROBE
                scores[ply + 1, F_ALPHA] = -alpha - NULL_WINDOW
            scores[ply + 1, F_BETA] = -alpha
            ply += 1
            mode = ENTER

        else:  # RETURN: value is the node's score; hand it to the parent
            if ply == 0:
                return value
            ply -= 1
            if frame[ply, F_CHANCE]:  # the roll's side is the parent's: no sign change
                j = frame[ply, F_NEXT]
                scores[ply, F_BEST] += chance_weights[ply, j] * value
                frame[ply, F_NEXT] = j + 1
                mode = NEXT_MOVE
                continue
            score = -value
            alpha = scores[ply, F_ALPHA]
            beta = scores[ply, F_BETA]
            if frame[ply, F_STAGE] == PROBE and alpha < score < beta:
                frame[ply, F_STAGE] = RESEARCH
                scores[ply + 1, F_ALPHA] = -beta
                scores[ply + 1, F_BETA] = -alpha
                ply += 1
                mode = ENTER
                continue
            j = frame[ply, F_NEXT]
            m = moves[ply, j]
            frame[ply, F_NEXT] = j + 1
            mode = NEXT_MOVE
            if score > scores[ply, F_BEST]:
                scores[ply, F_BEST] = score
                frame[ply, F_BEST_MOVE] = m
                if score > alpha:
                    scores[ply, F_ALPHA] = score
                    frame[ply, F_BOUND] = EXACT
                    pv[ply, ply] = m
                    for i in range(ply + 1, pv_length[ply + 1]):
                        pv[ply, i] = pv[ply + 1, i]
                    pv_length[ply] = max(pv_length[ply + 1], ply + 1)
                    if score >= beta:
                        frame[ply, F_BOUND] = LOWER
                        if not games.is_capture(game, m):
                            if killers[ply, 0] != m:
                                killers[ply, 1] = killers[ply, 0]
                                killers[ply, 0] = m
                            d = frame[ply, F_DEPTH]
                            history[
                                1 if games.sign(game, states[ply]) > 0 else 0,
                                games.history_slot(game, m),
                            ] += d * d
                        frame[ply, F_NEXT] = frame[ply, F_COUNT]  # cut off the rest


@kernel
def search_kernel(
    game,
    evaluator,
    params,
    root,
    history_keys,
    window_start,
    max_depth,
    deadline,
    seed,
    tables,
    best_pv,
    tablebase=None,
):
    """Iterative deepening from ``root``; returns ``(score, depth, pv_length)``.

    ``history_keys`` are the keys of the game's positions up to and including the root, and
    positions before ``window_start`` cannot recur. The principal variation of the deepest
    completed iteration is written to ``best_pv``; the score is the side to move's. With a
    ``tablebase`` (the game's layers), positions below the root that it holds are not searched
    but scored exactly; without one (None) that code is not even compiled.
    """
    history = tables[HISTORY]
    killers = tables[KILLERS]
    states = tables[STATES]
    path = tables[PATH]
    pv = tables[PV]
    pv_length = tables[PV_LENGTH]
    counters = tables[COUNTERS]
    counters[NODES] = 0
    counters[STAMP] += 1
    counters[STOP] = 0
    history[:, :] = 0
    killers[:, :] = -1
    n_history = history_keys.shape[0]
    for i in range(n_history):
        path[i] = history_keys[i]
    states[0, :] = root
    if evaluator == games.EVALUATOR_MOVES_LEFT:  # its leaves compare their plies with the root's
        evaluation.set_moves_left_reference(game, params, root, tables[SCRATCH], tables[ACTIVE])
    best_score = 0.0
    done = 0
    length = 0
    for depth in range(1, max_depth + 1):
        # The first iteration always completes, so there is always a move to play.
        score = _alphabeta(
            game,
            evaluator,
            params,
            tables,
            depth,
            n_history - 1,
            window_start,
            deadline if depth > 1 else 0.0,
            seed,
            tablebase,
        )
        if counters[STOP] and done > 0:
            break
        best_score = score
        done = depth
        length = pv_length[0]
        for i in range(length):
            best_pv[i] = pv[0, i]
        if counters[STOP] or abs(score) > WIN_BOUND:
            break
    return best_score, done, length


@kernel
def new_tables(table_bits, state_size, max_moves, scratch_size):
    """The search's working memory: transposition table, ordering tables, stacks; the
    evaluator's scratch of ``scratch_size`` (:func:`samuel.evaluation.kernels.scratch_size`)."""
    entries = 1 << table_bits
    return (
        np.zeros(entries, dtype=np.int64),  # tt_key
        np.zeros(entries, dtype=np.int64),  # tt_move
        np.zeros(entries, dtype=np.float64),  # tt_score
        np.zeros(entries, dtype=np.int64),  # tt_info: depth | bound << 8 | stamp << 16
        np.zeros((2, 1024), dtype=np.int64),  # history heuristic, by side to move
        np.full((MAX_PLY, 2), -1, dtype=np.int64),  # killer moves
        np.zeros((MAX_PLY + 1, state_size), dtype=np.int64),  # position at each ply
        np.zeros((MAX_PLY, max_moves), dtype=np.int64),  # moves at each ply
        np.zeros((MAX_PLY, max_moves), dtype=np.int64),  # their ordering scores
        np.zeros(HISTORY_CAPACITY + MAX_PLY, dtype=np.int64),  # keys: game history + path
        np.zeros((MAX_PLY + 1, MAX_PLY + 1), dtype=np.int64),  # triangular PV table
        np.zeros(MAX_PLY + 1, dtype=np.int64),  # PV lengths
        np.zeros(4, dtype=np.int64),  # counters: nodes, stamp, stop
        np.zeros(scratch_size, dtype=np.float32),  # evaluator scratch
        np.zeros((MAX_PLY + 1, 9), dtype=np.int64),  # search stack: integer fields
        np.zeros((MAX_PLY + 1, 3), dtype=np.float64),  # search stack: alpha, beta, best
        np.zeros(games.MAX_SET_INPUTS, dtype=np.int64),  # evaluator scratch: network inputs
        np.zeros((MAX_PLY, max_moves), dtype=np.float64),  # chance outcomes' probabilities
    )


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found. ``score`` is the side to move's, in the evaluator's units; a forced
    result is ``±(WIN - plies)``."""

    best_move: int
    score: float
    depth: int
    nodes: int
    seconds: float
    principal_variation: tuple[int, ...]

    @property
    def forced_plies(self) -> int | None:
        """Plies to the end of the game if the score is a forced result, else None."""
        if abs(self.score) > WIN_BOUND:
            return int(round(WIN - abs(self.score)))
        return None

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


class Searcher:
    """Owns the search tables for one game and runs searches on encoded positions.

    Not thread-safe: give each thread or process its own.
    """

    def __init__(self, game: int, table_bits: int = 18) -> None:
        """A searcher for the game numbered ``game`` (a :class:`GameRules`' ``number``);
        raises ValueError for a number that names no game."""
        self.sizes = games.compiled_game(game)
        self.game = int(game)
        # Positions are the game's own width, and the move buffers hold the game's own moves.
        room = games.move_room(game)
        self.tables = new_tables(table_bits, self.sizes.state_words, room, 1)
        self._checked: tuple[int, np.ndarray, np.ndarray] | None = None  # evaluator, given, checked
        self._pv = np.zeros(MAX_PLY, dtype=np.int64)
        self._outcomes = np.zeros(room, dtype=np.int64)
        self._weights = np.zeros(room, dtype=np.float64)

    def _checked_params(self, evaluator: int, params: np.ndarray) -> np.ndarray:
        """The evaluator's parameters, checked (once for the same array), with the evaluator's
        scratch grown to what they need (a network's depends on its shape)."""
        if self._checked is not None and self._checked[0] == evaluator:
            if self._checked[1] is params and self._checked[2] is params:
                return params
        checked = evaluators.check_params(self.game, evaluator, params)
        need = int(evaluation.scratch_size(self.game, evaluator, checked))
        if self.tables[SCRATCH].shape[0] < need:
            scratch = np.zeros(need, dtype=np.float32)
            self.tables = (*self.tables[:SCRATCH], scratch, *self.tables[SCRATCH + 1 :])
        self._checked = (evaluator, params, checked)
        return checked

    def search(
        self,
        root: np.ndarray,
        history_keys: np.ndarray,
        window_start: int,
        evaluator: int,
        params: np.ndarray,
        depth: int,
        seconds: float | None = None,
        seed: int = 0,
        tablebase: tuple[np.ndarray, ...] | None = None,
    ) -> SearchResult:
        """Search ``root`` to ``depth`` plies, or until ``seconds`` have passed (the deepest
        completed iteration counts; depth 1 always completes).

        ``history_keys`` are the keys of the game's positions so far, ending with the root's;
        ``window_start`` is the first of them that could still recur. ``tablebase`` is the
        layers of a tablebase for this game's rules (``Tablebase.layers``), or None. Does not
        check that the root is a legal, unfinished position, nor that the table fits the game:
        the caller does.
        """
        if not 1 <= depth < MAX_PLY:
            raise CommandError(f"search depth must be between 1 and {MAX_PLY - 1}, not {depth}")
        if seconds is not None and seconds <= 0:
            raise CommandError(f"search time must be positive, not {seconds}")
        params = self._checked_params(evaluator, params)
        if root.shape != (self.sizes.state_words,):
            raise ValueError(
                f"a {self.sizes.title} position is {self.sizes.state_words} words, "
                f"not an array of shape {root.shape}"
            )
        if games.chance(self.game, root, self._outcomes, self._weights) > 0:
            raise ValueError("the dice are still to roll in this position: search it after a roll")
        dropped = max(0, len(history_keys) - HISTORY_CAPACITY)
        history_keys = np.ascontiguousarray(history_keys[dropped:], dtype=np.int64)
        window_start = max(0, window_start - dropped)
        started = time.perf_counter()
        deadline = started + seconds if seconds is not None else 0.0
        score, done, length = search_kernel(
            self.game,
            evaluator,
            params,
            root,
            history_keys,
            window_start,
            depth,
            deadline,
            seed & 0x7FFFFFFFFFFFFFFF,
            self.tables,
            self._pv,
            tablebase,
        )
        elapsed = time.perf_counter() - started
        if length == 0:
            raise ValueError("the game is over in this position: there is nothing to search")
        pv = tuple(int(m) for m in self._pv[:length])
        return SearchResult(
            best_move=pv[0],
            score=float(score),
            depth=int(done),
            nodes=int(self.tables[COUNTERS][NODES]),
            seconds=elapsed,
            principal_variation=pv,
        )
