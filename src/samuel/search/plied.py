"""GNU Backgammon's n-ply search, for any game with dice: a play's value looked ``plies`` rolls
ahead, with the candidates narrowed first by the static evaluation.

The alpha-beta search (:mod:`samuel.search.alphabeta`) values a roll exactly: at depth 3 every
reply to every roll is itself searched over every roll, some 20 times the work of gnubg's 2-ply.
gnubg does less, and this module does as gnubg does:

- **0-ply** values a position (dice to roll) by the evaluation alone.
- **n-ply** values it by the average over the 21 rolls, each weighted by its chance, of the
  position after the play the side on roll would choose by the 0-ply values of the positions
  it leaves (the best for it), that position itself valued at (n-1)-ply.
- **At the root** (a rolled position) every play's position is valued at 0-ply, and only the
  best ``candidates`` within ``threshold`` points of the best are valued at n-ply (gnubg's move
  filter; its 2-ply default keeps 8 within 0.16). The best of those is played.

So a play's n-ply value is what gnubg calls its n-ply evaluation, and ``ply=0`` plays the move
whose position evaluates best (the alpha-beta search at depth 1). A finished game counts its
points (a gammon 2) in the units of the evaluation, expected points. Values are the side to
move's. Equal values at the root are told apart by a seeded shuffle, so the same seed plays the
same game.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from samuel.errors import CommandError
from samuel.evaluation import evaluators
from samuel.evaluation import kernels as evaluation
from samuel.games import kernels as games
from samuel.jit import inline_kernel, kernel
from samuel.nn import network
from samuel.search.alphabeta import SearchResult, _mix, _random_below

MAX_PLIES = 3  # gnubg's world-class level looks 2 ahead; each ply multiplies the work by ~400
LOSS = -1.0e9  # below any value: the first play's value replaces it


@kernel
def _static(game, evaluator, params, state, spare, spare_weights, scratch, active, counters):
    """0-ply: the side to move's value of ``state`` (its dice to roll): a finished game's points,
    else the evaluation. ``spare`` and ``spare_weights`` are move room it may overwrite."""
    side = games.sign(game, state)
    if games.chance(game, state, spare, spare_weights) == 0:
        n = games.generate(game, state, spare)
        result = games.result(game, state, n)
        if result != games.NOT_OVER:
            return float(result * side)
    counters[0] += 1
    return side * evaluation.evaluate(game, evaluator, params, state, scratch, active)


@inline_kernel
def _best_reply(game, evaluator, params, state, outcome, level, work, scratch, active, counters):
    """After the roll ``outcome`` of ``state``, the play the side on roll chooses by the 0-ply
    values of the positions it leaves: that position into ``chosen[level]`` (``work``'s), its
    value (the side on roll's) returned."""
    _, _, moves, spare, spare_weights, rolled, child, chosen = work
    games.play(game, state, outcome, rolled[level])
    n = games.generate(game, rolled[level], moves[level])
    if n == 0:
        raise ValueError("a roll with no play: a game with dice must list a pass")
    best = LOSS
    for j in range(n):
        games.play(game, rolled[level], moves[level, j], child[level])
        value = -_static(
            game,
            evaluator,
            params,
            child[level],
            spare[level],
            spare_weights[level],
            scratch,
            active,
            counters,
        )
        if value > best:
            best = value
            chosen[level, :] = child[level]
    return best


@kernel
def ply_value(game, evaluator, params, state, plies, work, scratch, active, counters) -> float:
    """The side to move's value of ``state`` (its dice to roll) at ``plies``; ``work`` holds
    each level's buffers (:func:`new_work`), this level's the first."""
    outcomes, weights, _, spare, spare_weights, _, _, chosen = work
    level = MAX_PLIES - plies
    count = 0
    if plies > 0:
        count = games.chance(game, state, outcomes[level], weights[level])
    if count == 0:  # no dice to roll: the game is over, or plies are spent
        return _static(
            game,
            evaluator,
            params,
            state,
            spare[level],
            spare_weights[level],
            scratch,
            active,
            counters,
        )
    total = 0.0
    for i in range(count):
        best = _best_reply(
            game,
            evaluator,
            params,
            state,
            outcomes[level, i],
            level,
            work,
            scratch,
            active,
            counters,
        )
        if plies > 1:
            best = -ply_value(
                game, evaluator, params, chosen[level], plies - 1, work, scratch, active, counters
            )
        total += weights[level, i] * best
    return total


@kernel
def _root_values(game, evaluator, params, root, seed, work, scratch, active, counters, static):
    """Every play of ``root`` (its dice rolled) in the root's move buffer, shuffled by ``seed``
    (which decides between equal values), with its 0-ply value, the side to move's, in
    ``static``; returns how many there are."""
    outcomes, weights, moves, spare, spare_weights, rolled, child, chosen = work
    top = MAX_PLIES  # the root's buffers: below every level's
    n = games.generate(game, root, moves[top])
    rng = seed
    for i in range(n - 1, 0, -1):
        j, rng = _random_below(rng, i + 1)
        swap = moves[top, i]
        moves[top, i] = moves[top, j]
        moves[top, j] = swap
    for j in range(n):
        games.play(game, root, moves[top, j], child[top])
        static[j] = -_static(
            game,
            evaluator,
            params,
            child[top],
            spare[top],
            spare_weights[top],
            scratch,
            active,
            counters,
        )
    return n


@kernel
def _deeper(game, evaluator, params, root, move, plies, work, scratch, active, counters):
    """The side to move's value of playing ``move`` in ``root``, looked ``plies`` rolls ahead."""
    chosen, child = work[7], work[6]
    games.play(game, root, move, child[MAX_PLIES])
    chosen[MAX_PLIES, :] = child[MAX_PLIES]
    return -ply_value(
        game, evaluator, params, chosen[MAX_PLIES], plies, work, scratch, active, counters
    )


@kernel
def plied_search(
    game, evaluator, params, root, plies, candidates, threshold, seed, work, scratch, active
):
    """Choose a play in ``root`` (its dice rolled) as the module says; return ``(move, value,
    evaluations)``, the value the side to move's at ``plies``."""
    moves = work[2][MAX_PLIES]
    counters = np.zeros(1, dtype=np.int64)
    static = np.empty(moves.shape[0], dtype=np.float64)
    n = _root_values(game, evaluator, params, root, seed, work, scratch, active, counters, static)
    order = np.argsort(-static[:n], kind="mergesort")  # stable: the shuffle breaks ties
    best_move = moves[order[0]]
    best = static[order[0]]
    if plies == 0:
        return best_move, best, counters[0]
    best = LOSS
    for k in range(min(n, candidates)):
        j = order[k]
        if k > 0 and static[j] < static[order[0]] - threshold:
            break
        value = _deeper(
            game, evaluator, params, root, moves[j], plies, work, scratch, active, counters
        )
        if value > best:
            best = value
            best_move = moves[j]
    return best_move, best, counters[0]


@kernel
def plied_values(
    game,
    evaluator,
    params,
    root,
    plies,
    candidates,
    threshold,
    keep,
    seed,
    work,
    scratch,
    active,
    out_moves,
    out_values,
    out_plies,
):
    """Every play of ``root`` with its value as :func:`plied_search` sees it: the 0-ply value of
    each, the ``plies`` value of the candidates it looks at deeper, and of ``keep`` (a play's
    code, or -1) whatever the filter says. Writes the plays, their values (the side to move's)
    and the plies each value looked ahead to the ``out_`` arrays, best first; returns
    ``(plays, evaluations)``."""
    moves = work[2][MAX_PLIES]
    counters = np.zeros(1, dtype=np.int64)
    static = np.empty(moves.shape[0], dtype=np.float64)
    n = _root_values(game, evaluator, params, root, seed, work, scratch, active, counters, static)
    order = np.argsort(-static[:n], kind="mergesort")
    for k in range(n):
        j = order[k]
        out_moves[k] = moves[j]
        out_values[k] = static[j]
        out_plies[k] = 0
    if plies > 0:
        for k in range(n):
            looked = k < candidates and (k == 0 or out_values[k] >= static[order[0]] - threshold)
            if looked or out_moves[k] == keep:
                out_values[k] = _deeper(
                    game,
                    evaluator,
                    params,
                    root,
                    out_moves[k],
                    plies,
                    work,
                    scratch,
                    active,
                    counters,
                )
                out_plies[k] = plies
    # best first: a deeper value outranks a shallower one, as the search plays
    ranked = np.argsort(-(out_plies[:n] * 1.0e6 + out_values[:n]), kind="mergesort")
    out_moves[:n] = out_moves[:n][ranked]
    out_values[:n] = out_values[:n][ranked]
    out_plies[:n] = out_plies[:n][ranked]
    return n, counters[0]


@kernel
def _after_plays(game, root, moves, out):
    """The position each of ``moves`` (legal in ``root``) leaves, a row each of ``out``."""
    for i in range(moves.shape[0]):
        games.play(game, root, moves[i], out[i])


@kernel
def _leaf_chances(game, evaluator, params, state, spare, spare_weights, scratch, active, out):
    """The side to move's outcome chances of ``state`` (its dice to roll) into ``out`` (wins by
    at least 1, 2 ... points, then losses): a finished game's as certainties, else the network's
    outcome head (``evaluator`` a network, or a network per phase)."""
    half = out.shape[0] // 2
    side = games.sign(game, state)
    out[:] = 0.0
    if games.chance(game, state, spare, spare_weights) == 0:
        n = games.generate(game, state, spare)
        result = games.result(game, state, n)
        if result != games.NOT_OVER:
            points = result * side
            for c in range(min(abs(points), half)):
                out[c if points > 0 else half + c] = 1.0
            return
    net = params
    if evaluator == games.EVALUATOR_PHASED:
        net = params[evaluation.phase_network_start(game, params, state) :]
    values = scratch[games.NETWORK_VALUES : games.NETWORK_VALUES + games.MAX_SET_INPUTS]
    n = games.network_inputs(game, state, active, values)
    network.forward(net, active, values, n, scratch[games.NETWORK_SCRATCH :])
    at = games.NETWORK_SCRATCH + network.outcomes(net, scratch[games.NETWORK_SCRATCH :])
    # the head's view is the first player's, or the other side's where network_sign says so;
    # the side to move's is that, swapped when it is the second player to move
    swapped = (games.network_sign(game, state) < 0) != (side < 0)
    for o in range(2 * half):
        out[o] = scratch[at + ((o + half) % (2 * half) if swapped else o)]


@kernel
def ply_chances(game, evaluator, params, state, plies, work, scratch, active, out) -> int:
    """The side to move's outcome chances of ``state`` (its dice to roll) at ``plies``, into
    ``out``: as :func:`ply_value` looks ahead (each roll's play chosen by its 0-ply value), the
    chances of the chosen plays' positions averaged over the rolls, each at ``plies - 1``."""
    outcomes, weights, _, spare, spare_weights, _, _, chosen = work
    level = MAX_PLIES - plies
    count = 0
    if plies > 0:
        count = games.chance(game, state, outcomes[level], weights[level])
    if count == 0:
        _leaf_chances(
            game, evaluator, params, state, spare[level], spare_weights[level], scratch, active, out
        )
        return 0
    counters = np.zeros(1, dtype=np.int64)
    half = out.shape[0] // 2
    theirs = np.empty(out.shape[0], dtype=np.float64)
    out[:] = 0.0
    for i in range(count):
        _best_reply(
            game,
            evaluator,
            params,
            state,
            outcomes[level, i],
            level,
            work,
            scratch,
            active,
            counters,
        )
        below = chosen[level]
        ply_chances(game, evaluator, params, below, plies - 1, work, scratch, active, theirs)
        for o in range(2 * half):  # the other side's chances, seen by this side
            out[o] += weights[level, i] * theirs[(o + half) % (2 * half)]
    return 0


@kernel
def _plays_of(game, root, moves, after, ended):
    """The plays of ``root`` (its dice rolled), the position each leaves, and for a play that
    ends the game its points to the side that played it (``ended``; NaN for the others);
    returns how many plays there are."""
    n = games.generate(game, root, moves)
    room = np.zeros(moves.shape[0], dtype=np.int64)
    weights = np.zeros(moves.shape[0], dtype=np.float64)
    for i in range(n):
        games.play(game, root, moves[i], after[i])
        ended[i] = np.nan
        if games.chance(game, after[i], room, weights) == 0:
            replies = games.generate(game, after[i], room)
            result = games.result(game, after[i], replies)
            if result != games.NOT_OVER:
                ended[i] = -float(result * games.sign(game, after[i]))
    return n


@kernel
def new_work(game: int, state_words: int) -> tuple[np.ndarray, ...]:
    """Each level's buffers (``MAX_PLIES`` levels below the root, then the root's): a roll's
    outcomes and their chances, the moves, spare move room and chances (for :func:`_static`),
    the rolled position, a child and the chosen reply. Compiled, so that a compiled loop (the
    rollouts over dice) makes its own."""
    levels, room = MAX_PLIES + 1, games.move_room_kernel(game)
    return (
        np.zeros((levels, room), dtype=np.int64),
        np.zeros((levels, room), dtype=np.float64),
        np.zeros((levels, room), dtype=np.int64),
        np.zeros((levels, room), dtype=np.int64),
        np.zeros((levels, room), dtype=np.float64),
        np.zeros((levels, state_words), dtype=np.int64),
        np.zeros((levels, state_words), dtype=np.int64),
        np.zeros((levels, state_words), dtype=np.int64),
    )


@dataclass(frozen=True)
class RankedPlays:
    """A rolled position's plays, best first: each play's code, its value (the side to move's,
    in points) and the rolls it looked ahead to reach it (0: the evaluation of the position it
    leaves)."""

    moves: np.ndarray
    values: np.ndarray
    plies: np.ndarray
    after: np.ndarray  # the position each play leaves, a row each
    evaluations: int
    seconds: float


class PliedSearcher:
    """Runs plied searches for one game with dice; owns the buffers. Not thread-safe."""

    def __init__(self, game: int) -> None:
        sizes = games.compiled_game(game)
        if sizes.chance_outcomes == 0:
            raise CommandError(f"{sizes.title} has no dice: 'ply' searches a game with dice")
        self.game, self.sizes = int(game), sizes
        self.work = new_work(self.game, sizes.state_words)
        self.active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
        self._checked: tuple[int, np.ndarray, np.ndarray, np.ndarray] | None = None

    def _prepared(self, evaluator: int, params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The checked parameters and a scratch of their size (checked once for one array)."""
        if (
            self._checked is not None
            and self._checked[0] == evaluator
            and self._checked[1] is params
        ):
            return self._checked[2], self._checked[3]
        checked = evaluators.check_params(self.game, evaluator, params)
        scratch = np.zeros(
            int(evaluation.scratch_size(self.game, evaluator, checked)), dtype=np.float32
        )
        self._checked = (evaluator, params, checked, scratch)
        return checked, scratch

    def _ready(self, root, evaluator, params, plies, candidates, threshold, params_needed=True):
        """Check a search's settings and root (its dice rolled, the game not over) before they
        reach a kernel; return the checked parameters and their scratch."""
        if not 0 <= plies <= MAX_PLIES:
            raise CommandError(f"plies must be between 0 and {MAX_PLIES}, not {plies}")
        if candidates < 1:
            raise CommandError(f"candidates must be at least 1, not {candidates}")
        if not threshold >= 0.0:
            raise CommandError(f"the candidates' threshold must be 0 or more, not {threshold}")
        if root.shape != (self.sizes.state_words,):
            raise ValueError(f"a {self.sizes.title} position is {self.sizes.state_words} words")
        if games.chance(self.game, root, self.work[0][MAX_PLIES], self.work[1][MAX_PLIES]) > 0:
            raise ValueError("the dice are still to roll in this position: search it after a roll")
        checked, scratch = self._prepared(evaluator, params) if params_needed else (None, None)
        if games.result(self.game, root, 1) != games.NOT_OVER:
            raise ValueError("the game is over in this position: there is nothing to search")
        return checked, scratch

    def value(self, state: np.ndarray, evaluator: int, params: np.ndarray, plies: int) -> float:
        """The side to move's value of ``state``, its dice still to roll, at ``plies`` (0: the
        evaluation; n: the average over the rolls of the best play's value at n - 1)."""
        if not 0 <= plies <= MAX_PLIES:
            raise CommandError(f"plies must be between 0 and {MAX_PLIES}, not {plies}")
        if state.shape != (self.sizes.state_words,):
            raise ValueError(f"a {self.sizes.title} position is {self.sizes.state_words} words")
        checked, scratch = self._prepared(evaluator, params)
        counters = np.zeros(1, dtype=np.int64)
        return float(
            ply_value(
                self.game,
                evaluator,
                checked,
                state,
                plies,
                self.work,
                scratch,
                self.active,
                counters,
            )
        )

    def chances(
        self,
        states: np.ndarray,
        evaluator: int,
        params: np.ndarray,
        plies: np.ndarray,
        outcomes: int,
    ) -> np.ndarray:
        """The outcome chances of each of ``states`` (its dice to roll), its side to move's, at
        its own ``plies`` (``outcomes`` of them: the network's outcome head's width)."""
        checked, scratch = self._prepared(evaluator, params)
        found = np.zeros((len(states), outcomes), dtype=np.float64)
        for i in range(len(states)):
            if not 0 <= plies[i] <= MAX_PLIES:
                raise CommandError(f"plies must be between 0 and {MAX_PLIES}, not {plies[i]}")
            ply_chances(
                self.game,
                evaluator,
                checked,
                states[i],
                int(plies[i]),
                self.work,
                scratch,
                self.active,
                found[i],
            )
        return found

    def plays(self, root: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every play of ``root`` (its dice rolled, the game not over), unvalued: their codes,
        the positions they leave, and the points of those that end the game (NaN otherwise)."""
        self._ready(root, games.EVALUATOR_CLASSIC, None, 0, 1, 0.0, params_needed=False)
        room = self.work[2].shape[1]
        moves = np.zeros(room, dtype=np.int64)
        after = np.zeros((room, self.sizes.state_words), dtype=np.int64)
        ended = np.zeros(room, dtype=np.float64)
        n = _plays_of(self.game, root, moves, after, ended)
        return moves[:n].copy(), after[:n].copy(), ended[:n].copy()

    def rank(
        self,
        root: np.ndarray,
        evaluator: int,
        params: np.ndarray,
        plies: int,
        candidates: int = 8,
        threshold: float = 0.16,
        seed: int = 0,
        keep: int | None = None,
    ) -> RankedPlays:
        """Every play of ``root`` (its dice rolled) valued as :meth:`search` values them: each
        at 0-ply, the candidates (and ``keep``, a play's code) at ``plies``; best first."""
        checked, scratch = self._ready(root, evaluator, params, plies, candidates, threshold)
        room = self.work[2].shape[1]
        moves = np.zeros(room, dtype=np.int64)
        values = np.zeros(room, dtype=np.float64)
        looked = np.zeros(room, dtype=np.int64)
        started = time.perf_counter()
        n, evaluations = plied_values(
            self.game,
            evaluator,
            checked,
            root,
            plies,
            candidates,
            float(threshold),
            -1 if keep is None else int(keep),
            _mix(seed) & 0x7FFFFFFFFFFFFFFF,
            self.work,
            scratch,
            self.active,
            moves,
            values,
            looked,
        )
        after = np.zeros((n, self.sizes.state_words), dtype=np.int64)
        _after_plays(self.game, root, moves[:n], after)
        return RankedPlays(
            moves=moves[:n].copy(),
            values=values[:n].copy(),
            plies=looked[:n].copy(),
            after=after,
            evaluations=int(evaluations),
            seconds=time.perf_counter() - started,
        )

    def search(
        self,
        root: np.ndarray,
        evaluator: int,
        params: np.ndarray,
        plies: int,
        candidates: int = 8,
        threshold: float = 0.16,
        seed: int = 0,
    ) -> SearchResult:
        """The play to make in ``root`` (a position whose dice are rolled) at ``plies``, keeping
        ``candidates`` plays within ``threshold`` of the best 0-ply value for the deeper look."""
        checked, scratch = self._ready(root, evaluator, params, plies, candidates, threshold)
        started = time.perf_counter()
        move, value, evaluations = plied_search(
            self.game,
            evaluator,
            checked,
            root,
            plies,
            candidates,
            float(threshold),
            _mix(seed) & 0x7FFFFFFFFFFFFFFF,
            self.work,
            scratch,
            self.active,
        )
        return SearchResult(
            best_move=int(move),
            score=float(value),
            depth=plies,
            nodes=int(evaluations),
            seconds=time.perf_counter() - started,
            principal_variation=(int(move),),
        )
