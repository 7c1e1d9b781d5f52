"""Stage 1 of the production loop: where positions come from.

Every source returns a :class:`PositionBatch`: positions as the kernels' int64 state rows
(``rules.encode(position)``, the game's ``state_words`` words), none decided (the game goes on
from each), none twice, each with the game of the batch it came from and its ply there. Every
source works for any game in :mod:`samuel.games` (by its ``games.kernels`` number, variants
included) and takes its randomness only from its ``seed`` (through
:func:`samuel.seeds.derive_seed`), so a batch is the same on any number of numba threads.

The sources
-----------
``selfplay``
    :func:`selfplay_positions`: every position where a move was played in self-play games of the
    champion (:func:`samuel.train.selfplay.play_selfplay`), game ``g`` seeded by
    ``derive_seed(seed, g)``.
``expert``
    :func:`expert_positions`: the decision points (two or more legal moves, an expert to move)
    of games between the strongest players Samuel has, :class:`ExpertPlayers`: deep ``classic``,
    ``hybrid`` (classic + the champion network) and, for Tigers & Sheep with a tablebase,
    ``perfect`` (classic whose search scores every position the table holds exactly, so it plays
    perfectly once the hand is empty). Game ``g`` is played by the ``g % P``-th of the ``P``
    ordered pairs of players (each player against each, itself included, with either side), after
    ``random_plies`` random opening plies so that games differ, all compiled
    (:func:`play_expert_games`, each player with its own search tables).
``random``
    :func:`random_positions`: positions made up to look like those of real games, in the way
    described next.
``tablebase``
    :func:`tablebase_positions` (a game with a tablebase: Tigers & Sheep): positions with the hand
    empty drawn from a built tablebase, with their exact values.

How random positions follow real ones
-------------------------------------
:func:`measure_distribution` measures a :class:`PlacementDistribution` on real game positions
(self-play or expert states):

1. **Piece counts, jointly.** Every position gives a *count tuple*: for Tigers & Sheep
   ``(sheep_on_board, sheep_in_hand, tiger_to_move, captured)``, for draughts
   ``(black_men, black_kings, white_men, white_kings, black_to_move)``. The distribution keeps how
   many positions had each tuple that occurred (the joint histogram, not one histogram per
   field: the fields are far from independent).
2. **Placements, per piece kind and count bucket.** The kinds are Tigers & Sheep's tigers and
   sheep, draughts' black men, black kings, white men and white kings. A kind's count falls in a
   *bucket* (``bucket_lows``: Tigers & Sheep 0-2, 3-5, ..., 18-20; draughts 0, 1, 2, 3-4, 5-6,
   ..., 11-12). For every kind and bucket the distribution keeps how many positions fell in it
   and, for every point or square, in how many of them a piece of that kind stood there.

:func:`random_positions` samples from it. For each position it draws a count tuple with
probability proportional to its count; then, kind by kind in the order above, it puts that
kind's count of pieces on the still-empty squares by weighted sampling without replacement
(each draw picks one square with probability proportional to its weight among those left; done
at once by Efraimidis and Spirakis' exponential keys, which have the same law), the
weight of a square being its smoothed occupation frequency ``(occupied + 0.5) / (positions + 1)``
in the kind's bucket (a bucket with no positions takes the kind's frequencies over all buckets;
a kind never seen, equal weights). The smoothing lets every square occur, rarely where real games
never put the kind. The position is then built through the game's own interface (its
``Position`` constructor, ``format_position`` and ``parse_position``, which refuse what no game
can hold: a draughts man on its crowning row, a Tigers & Sheep position with 20 sheep in hand and
the tigers to move, more captured sheep than end the game, ...) and **rejected** if the parser
refuses it, if the game is over in it (:meth:`decided_outcome`), or if the batch already has it.
So the counts follow the measured joint histogram up to those rejections, and each kind's
placements follow its measured per-square frequencies up to the exclusion of squares already
taken (sequential weighted sampling, not independent squares).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numba
import numpy as np

from samuel.evaluation import kernels as evaluation
from samuel.evaluation.evaluators import check_params
from samuel.evaluation.networks import shipped_network
from samuel.games import descriptor_of, descriptors
from samuel.games import kernels as games
from samuel.games.base import GameRules
from samuel.jit import kernel, parallel_kernel
from samuel.search.alphabeta import MAX_PLY, _random_below, new_tables
from samuel.seeds import derive_seed
from samuel.train import game_loop
from samuel.train.selfplay import SelfPlaySettings, play_selfplay

EXPERT_TABLE_BITS = 16  # deeper searches than self-play's: a larger transposition table
MAX_GAMES = 1_000_000
MAX_PLY_CAP = 10_000
MAX_COUNT = 10_000_000
SMOOTHING = 0.5  # pseudo-count added to every square's occupation (see the module's docstring)
ATTEMPTS_PER_POSITION = 50  # random positions: give up after this many tries per position asked
DISTRIBUTION_FORMAT = "samuel placement distribution"
DISTRIBUTION_VERSION = 1


# ---------------------------------------------------------------------------------------------
# Batches, games and their rules


@dataclass(frozen=True, eq=False)
class PositionBatch:
    """Positions from one source: no decided positions, no duplicates."""

    # (n, words) int64, rules.encode(position): the game's own state_words (Tigers & Sheep 4,
    # draughts 5; games.kernels.STATE_SIZE is the largest), as the searcher and self-play take them
    states: np.ndarray
    games: np.ndarray  # (n,) int64: the batch's game each came from (0..), -1 for none (random)
    plies: np.ndarray  # (n,) int32: its ply in that game (0 for random positions)

    def __post_init__(self) -> None:
        n = len(self.states)
        if self.states.ndim != 2 or self.games.shape != (n,) or self.plies.shape != (n,):
            raise ValueError(
                f"a batch's states are (n, words) with n games and n plies, not "
                f"{self.states.shape}, {self.games.shape}, {self.plies.shape}"
            )

    def __len__(self) -> int:
        return len(self.states)


def game_part(game: int):
    """The ``pipeline`` part of the game numbered ``game`` (a variant's number names its game):
    what the sources need of it; ValueError for a number that names no game, or a game without
    the part."""
    games.compiled_game(game)  # raises ValueError for no game or variant
    descriptor = descriptor_of(game)
    part = descriptor.part("pipeline")
    if part is None:
        raise ValueError(
            f"{descriptor.title} has no pipeline part: the production loop cannot play it"
        )
    return part


def game_rules(game: int) -> GameRules:
    """The :class:`GameRules` of the game numbered ``game`` (a ``games.kernels`` number, a
    variant included: its game's ``pipeline`` part makes them); ValueError for a number that
    names no game."""
    return game_part(game).rules(int(game))


def game_name(game: int) -> str:
    """The registry name of the game numbered ``game``; a variant has its game's name."""
    return game_rules(int(game) & games.GAME_MASK).name


def decode_state(game: int, state: np.ndarray):
    """The game's friendly position (its ``Position``) of a kernel state row."""
    rules = game_rules(game)
    words = games.compiled_game(game).state_words
    state = np.asarray(state)
    if state.ndim != 1 or len(state) < words:
        raise ValueError(f"a {rules.title} state has {words} words, not shape {state.shape}")
    return game_part(game).decode(rules, state[:words])


def _count(value, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}, not {value}")
    return int(value)


def _seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise ValueError(f"a seed is a whole number, not {seed!r}")
    return int(seed)


def _first_unique(states: np.ndarray) -> np.ndarray:
    """The indices of the first occurrence of every distinct row, in their order."""
    if len(states) == 0:
        return np.zeros(0, dtype=np.int64)
    _, first = np.unique(states, axis=0, return_index=True)
    return np.sort(first)


def _batch(states: np.ndarray, game_numbers: np.ndarray, plies: np.ndarray) -> PositionBatch:
    keep = _first_unique(states)
    return PositionBatch(
        np.ascontiguousarray(states[keep], dtype=np.int64),
        np.asarray(game_numbers[keep], dtype=np.int64),
        np.asarray(plies[keep], dtype=np.int32),
    )


def _check_play(depth, random_plies, ply_cap, games_count) -> None:
    _count(games_count, "the number of games", 1, MAX_GAMES)
    _count(depth, "the search depth", 1, MAX_PLY - 1)
    _count(random_plies, "the random opening plies", 0, MAX_PLY_CAP)
    _count(ply_cap, "the ply cap", 1, MAX_PLY_CAP)


# ---------------------------------------------------------------------------------------------
# Self-play


def selfplay_positions(
    game: int,
    evaluator: int,
    params: np.ndarray,
    games: int,
    depth: int,
    seed: int,
    random_plies: int = 4,
    epsilon: float = 0.05,
    ply_cap: int = 200,
) -> PositionBatch:
    """Every position where a move was played in ``games`` self-play games of ``(evaluator,
    params)`` searching ``depth`` plies (game ``g`` seeded by ``derive_seed(seed, g)``;
    ``random_plies`` random opening plies, then a random move with probability ``epsilon``,
    a draw after ``ply_cap`` plies). A position met again (the start, a repeated opening) is
    kept once, with its first game and ply."""
    count = games
    return _selfplay(game, evaluator, params, count, depth, seed, random_plies, epsilon, ply_cap)


def _selfplay(game, evaluator, params, count, depth, seed, random_plies, epsilon, ply_cap):
    settings, seeds = selfplay_settings(
        game, evaluator, params, count, depth, seed, random_plies, epsilon, ply_cap
    )
    return selfplay_batch([play_selfplay(settings, seeds)])


def selfplay_settings(
    game, evaluator, params, count, depth, seed, random_plies, epsilon, ply_cap
) -> tuple[SelfPlaySettings, np.ndarray]:
    """The checked settings of :func:`samuel.train.selfplay.play_selfplay` and the games' seeds,
    game ``g`` seeded by ``derive_seed(seed, g)``."""
    rules = game_rules(game)
    params = check_params(game, evaluator, params)
    _check_play(depth, random_plies, ply_cap, count)
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float | np.floating):
        raise ValueError(f"epsilon is a probability, not {epsilon!r}")
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon is a probability between 0 and 1, not {epsilon}")
    seed = _seed(seed)
    seeds = np.array([derive_seed(seed, g) for g in range(count)], dtype=np.int64)
    root = rules.encode(rules.initial_position())
    settings = SelfPlaySettings(
        int(game), evaluator, params, root, depth, random_plies, float(epsilon), ply_cap
    )
    return settings, seeds


def selfplay_batch(parts) -> PositionBatch:
    """Every position of the self-play games ``parts`` (consecutive runs of games, in order)."""
    positions = np.concatenate([part.positions for part in parts])
    plies = np.concatenate([part.plies for part in parts])
    return _gather(positions, plies, lambda g, n: np.ones(n, dtype=bool))


def _gather(positions: np.ndarray, plies: np.ndarray, keep) -> PositionBatch:
    """The rows of per-game padded positions that ``keep(g, plies_g)`` (a mask) selects."""
    states, numbers, at = [], [], []
    for g in range(len(plies)):
        n = int(plies[g])
        mask = keep(g, n)
        index = np.flatnonzero(mask)
        states.append(positions[g, index])
        numbers.append(np.full(len(index), g, dtype=np.int64))
        at.append(index.astype(np.int32))
    width = positions.shape[2]
    return _batch(
        np.concatenate(states) if states else np.zeros((0, width), dtype=np.int64),
        np.concatenate(numbers) if numbers else np.zeros(0, dtype=np.int64),
        np.concatenate(at) if at else np.zeros(0, dtype=np.int32),
    )


# ---------------------------------------------------------------------------------------------
# Expert games


@dataclass(frozen=True, eq=False)
class ExpertPlayer:
    """One expert: a search to ``depth`` with an evaluator, and for ``perfect`` a tablebase
    (a loaded table of the game's ``perfect`` part: Tigers & Sheep's ``Tablebase``) its search
    probes."""

    name: str  # for people and reports: "classic", "hybrid", "perfect"
    evaluator: int
    params: np.ndarray
    depth: int
    tablebase: object | None = None

    def compiled(self) -> tuple:
        """The player as the compiled games take it: evaluator, parameters, the tablebase's
        layers (or None) and depth."""
        table = None if self.tablebase is None else self.tablebase.layers
        return (int(self.evaluator), self.params, table, int(self.depth))


@dataclass(frozen=True, eq=False)
class ExpertPlayers:
    """The experts of one game (its ``games.kernels`` number); checked when made."""

    game: int
    players: tuple[ExpertPlayer, ...]

    def __post_init__(self) -> None:
        rules = game_rules(self.game)
        if not isinstance(self.players, tuple) or not self.players:
            raise ValueError("expert players are a non-empty tuple of ExpertPlayer")
        checked = []
        for player in self.players:
            if not isinstance(player, ExpertPlayer):
                raise ValueError(f"an expert is an ExpertPlayer, not {player!r}")
            params = check_params(self.game, player.evaluator, player.params)
            _count(player.depth, f"{player.name}'s depth", 1, MAX_PLY - 1)
            table = player.tablebase
            if table is not None:
                ctw = getattr(table, "captures_to_win", None)
                if descriptor_of(self.game).part("perfect") is None:
                    raise ValueError(f"{player.name}: {rules.title} has no tablebase")
                if ctw != rules.captures_to_win or not isinstance(table.layers, tuple):
                    raise ValueError(
                        f"{player.name}: the tablebase is for the game won by {ctw} captures, "
                        f"not {rules.captures_to_win}"
                    )
            checked.append(
                ExpertPlayer(player.name, player.evaluator, params, int(player.depth), table)
            )
        object.__setattr__(self, "players", tuple(checked))

    def pairs(self) -> list[tuple[int, int]]:
        """The ordered pairs ``(first player's, second player's)`` games cycle through."""
        n = len(self.players)
        return [(a, b) for a in range(n) for b in range(n)]


def _load_table(tablebase, game: int | None = None):
    """``tablebase`` loaded (None stays None, a loaded table stays as it is): a folder is read by
    the ``perfect`` part of the game numbered ``game`` (the default game if None)."""
    if tablebase is None or hasattr(tablebase, "layers"):
        return tablebase
    if not isinstance(tablebase, str | os.PathLike):
        raise ValueError(f"a tablebase is a loaded Tablebase or its folder, not {tablebase!r}")
    return _perfect(game).load(tablebase)


def _perfect(game: int | None):
    """The ``perfect`` part (the tablebase) of the game numbered ``game`` (the default game if
    None); ValueError for a game without one."""
    from samuel.games import default_game

    descriptor = descriptors()[default_game()] if game is None else descriptor_of(game)
    perfect = descriptor.part("perfect")
    if perfect is None:
        raise ValueError(f"{descriptor.title} has no tablebase")
    return perfect


def _perfect_titles() -> str:
    """The games with a tablebase, for people: "Tigers & Sheep"."""
    titles = [d.title for d in descriptors().values() if d.part("perfect") is not None]
    return " and ".join(titles) or "no game"


# The expert players' depths, by game number: each game's ``pipeline`` part's (measured on a
# 2-core machine; a ply deeper roughly divides the decision points a second by 3-5).
EXPERT_DEPTHS = {
    descriptor.number: dict(part.EXPERT_DEPTHS)
    for descriptor in descriptors().values()
    if (part := descriptor.part("pipeline")) is not None
}


def default_expert_players(
    game: int, champion_params: np.ndarray | None, tablebase=None
) -> ExpertPlayers:
    """The strongest players Samuel has for the game: deep ``classic``; ``hybrid`` (classic +
    ``champion_params``, the champion network, at the game's default scale; without one, the
    network shipped for the game, if any); for a game with a tablebase (Tigers & Sheep) given a
    ``tablebase`` (a loaded table or its folder), ``perfect``. Depths: :data:`EXPERT_DEPTHS`."""
    from samuel.evaluation.hybrid import default_scale, hybrid_parameters
    from samuel.evaluation.networks import load_network

    rules = game_rules(game)
    depths = EXPERT_DEPTHS[int(game) & games.GAME_MASK]
    weights = rules.classic_weights()
    players = [ExpertPlayer("classic", games.EVALUATOR_CLASSIC, weights, depths["classic"])]
    network = champion_params
    if network is None and shipped_network(game) is not None:
        network = load_network(shipped_network(game), game)
    if network is not None:
        network = check_params(game, games.EVALUATOR_NETWORK, network)
        params = hybrid_parameters(game, default_scale(game), weights, network)
        players.append(ExpertPlayer("hybrid", games.EVALUATOR_HYBRID, params, depths["hybrid"]))
    if tablebase is not None and "perfect" not in depths:
        raise ValueError(f"{rules.title} has no tablebase: 'perfect' plays {_perfect_titles()}")
    table = _load_table(tablebase, game)
    if table is not None:
        players.append(
            ExpertPlayer("perfect", games.EVALUATOR_CLASSIC, weights, depths["perfect"], table)
        )
    return ExpertPlayers(int(game), tuple(players))


@kernel
def _searched_move(game, player, state, keys, window, ply, seed, tables, pv) -> int:
    """The move ``player`` (an :meth:`ExpertPlayer.compiled` bundle) searches in ``state``."""
    evaluator, params, table, depth = player
    game_loop.searched(
        game, evaluator, params, state, keys, window, ply, depth, seed, tables, pv, table
    )
    return pv[0]


@kernel
def play_expert_game(
    game, first, second, root, random_plies, ply_cap, seed, tables, pv, positions, move_counts
):
    """Play one game from ``root``, ``first`` (an :meth:`ExpertPlayer.compiled` bundle: its
    evaluator, parameters, tablebase or None and depth) for the first player, ``second`` for
    the second; return ``(plies, result)``. ``tables`` are the two players' search tables (a
    transposition table holds one evaluator's scores).

    The first ``random_plies`` moves are random; after, the side to move's player searches
    unless it has one legal move. ``positions[ply]`` is the position where the ply's move was
    played and ``move_counts[ply]`` its number of legal moves. A position met for the third
    time draws, as does the ply cap. The result is the first player's points.
    """
    state, child, keys, moves, outcomes, weights = game_loop.buffers(game, root, ply_cap)
    window = 0
    rng = seed
    for ply in range(ply_cap):
        n, result = game_loop.arrive(
            game, state, child, keys, window, ply, moves, outcomes, weights, seed
        )
        if result != games.NOT_OVER:
            return ply, game_loop.points(result)
        positions[ply, :] = state
        move_counts[ply] = n
        if ply < random_plies:
            pick, rng = _random_below(rng, n)
            move = moves[pick]
        elif n == 1:
            move = moves[0]
        elif games.sign(game, state) > 0:
            move = _searched_move(game, first, state, keys, window, ply, seed, tables[0], pv)
        else:
            move = _searched_move(game, second, state, keys, window, ply, seed, tables[1], pv)
        window = game_loop.advance(game, state, child, move, ply, window)
    return ply_cap, 0


@parallel_kernel
def play_expert_games(
    game,
    evaluator_a,
    params_a,
    table_a,
    depth_a,
    evaluator_b,
    params_b,
    table_b,
    depth_b,
    root,
    random_plies,
    ply_cap,
    seeds,
    table_bits,
    positions,
    move_counts,
    plies,
    results,
):
    """Play ``len(seeds)`` games of a against b (each an :meth:`ExpertPlayer.compiled`
    bundle's fields) in parallel, game ``g`` with ``seeds[g]``, into its row of the games'
    positions, move counts, plies and results. Everything the parallel loop reads comes as an
    argument of its own: numba's parallel loops mishandle tuples of arrays made outside them
    (a tuple of the tablebase's layers inside one was refused, and writes to an array unpacked
    from one were lost), so the bundles are made inside."""
    for g in numba.prange(seeds.shape[0]):
        first = (evaluator_a, params_a, table_a, depth_a)
        second = (evaluator_b, params_b, table_b, depth_b)
        tables = (
            new_tables(
                table_bits,
                root.shape[0],
                games.move_room_kernel(game),
                evaluation.scratch_size(game, evaluator_a, params_a),
            ),
            new_tables(
                table_bits,
                root.shape[0],
                games.move_room_kernel(game),
                evaluation.scratch_size(game, evaluator_b, params_b),
            ),
        )
        pv = np.zeros(MAX_PLY, dtype=np.int64)
        n, result = play_expert_game(
            game, first, second, root, random_plies, ply_cap, seeds[g], tables, pv,
            positions[g], move_counts[g],
        )  # fmt: skip
        plies[g] = n
        results[g] = result


@dataclass(frozen=True, eq=False)
class ExpertGames:
    """Expert games, padded to the ply cap (game ``g`` played by ``pairs[g]``)."""

    positions: np.ndarray  # (games, ply_cap, words) int64
    move_counts: np.ndarray  # (games, ply_cap) int64: legal moves where each move was played
    plies: np.ndarray  # (games,)
    results: np.ndarray  # (games,) first player's: 1, 0, -1
    pairs: np.ndarray  # (games, 2): the players' indices, first player's then second's


def play_experts(
    game: int,
    players: ExpertPlayers,
    games_count: int,
    seed: int,
    random_plies: int,
    ply_cap: int,
    numbers: range | None = None,
) -> ExpertGames:
    """Play the expert games (see :func:`expert_positions`): games ``numbers`` of the
    ``games_count`` (all of them by default), each played and seeded by its own number, so that
    a backend's units (samuel.pipeline.fanout) play exactly the games a whole run plays."""
    if not isinstance(players, ExpertPlayers):
        raise ValueError(f"the experts are an ExpertPlayers, not {type(players).__name__}")
    if int(players.game) != int(game):
        raise ValueError(f"the experts play game {players.game}, not game {game}")
    rules = game_rules(game)
    _check_play(1, random_plies, ply_cap, games_count)
    seed = _seed(seed)
    root = rules.encode(rules.initial_position())
    pairs = players.pairs()
    numbers = np.arange(games_count) if numbers is None else np.arange(numbers.start, numbers.stop)
    if len(numbers) and not 0 <= numbers[0] <= numbers[-1] < games_count:
        raise ValueError(f"games {numbers[0]}..{numbers[-1]} are not among {games_count}")
    count = len(numbers)
    positions = np.zeros((count, ply_cap, len(root)), dtype=np.int64)
    move_counts = np.zeros((count, ply_cap), dtype=np.int64)
    plies = np.zeros(count, dtype=np.int64)
    results = np.zeros(count, dtype=np.int64)
    chosen = np.array([pairs[g % len(pairs)] for g in numbers], dtype=np.int64).reshape(count, 2)
    seeds = np.array([derive_seed(seed, int(g)) for g in numbers], dtype=np.int64)
    for p, (a, b) in enumerate(pairs):
        index = np.flatnonzero(numbers % len(pairs) == p)
        if len(index) == 0:
            continue
        first, second = players.players[a], players.players[b]
        part_positions = np.zeros((len(index), ply_cap, len(root)), dtype=np.int64)
        part_counts = np.zeros((len(index), ply_cap), dtype=np.int64)
        part_plies = np.zeros(len(index), dtype=np.int64)
        part_results = np.zeros(len(index), dtype=np.int64)
        play_expert_games(
            int(game),
            *first.compiled(),
            *second.compiled(),
            root,
            random_plies,
            ply_cap,
            seeds[index],
            EXPERT_TABLE_BITS,
            part_positions,
            part_counts,
            part_plies,
            part_results,
        )
        positions[index] = part_positions
        move_counts[index] = part_counts
        plies[index] = part_plies
        results[index] = part_results
    return ExpertGames(positions, move_counts, plies, results, chosen)


def expert_positions(
    game: int,
    players: ExpertPlayers,
    games: int,
    seed: int,
    random_plies: int = 4,
    ply_cap: int = 200,
) -> PositionBatch:
    """The decision points of ``games`` expert games: every position after the ``random_plies``
    random opening plies where an expert was to move with two or more legal moves. Game ``g``
    (seed ``derive_seed(seed, g)``) is played by the ``g % P``-th ordered pair of
    ``players.pairs()``; a draw after ``ply_cap`` plies or on a threefold repetition."""
    return decision_points(
        play_experts(game, players, games, seed, random_plies, ply_cap), random_plies
    )


def decision_points(played: ExpertGames, random_plies: int) -> PositionBatch:
    """The positions of ``played`` after the random opening where the expert to move had two or
    more legal moves."""
    counts = played.move_counts

    def keep(g: int, n: int) -> np.ndarray:
        mask = np.zeros(counts.shape[1], dtype=bool)
        mask[random_plies:n] = True
        return mask & (counts[g] >= 2)

    return _gather(played.positions, played.plies, keep)


# ---------------------------------------------------------------------------------------------
# Placement distributions


@dataclass(frozen=True)
class _Layout:
    """What a game's distribution measures: its count fields, piece kinds and buckets."""

    count_fields: tuple[str, ...]
    kinds: tuple[str, ...]
    squares: int
    bucket_lows: tuple[int, ...]
    most: tuple[int, ...]  # the largest value of each count field


def _layout(game: int) -> _Layout:
    """What a distribution of the game numbered ``game`` measures: its ``pipeline`` part's count
    fields, kinds, squares and buckets; ValueError for a game without one."""
    part = game_part(game)
    return _Layout(part.COUNT_FIELDS, part.KINDS, part.SQUARES, part.BUCKET_LOWS, part.MOST)


def _popcount(masks: np.ndarray) -> np.ndarray:
    masks = masks.astype(np.uint64)
    total = np.zeros(masks.shape, dtype=np.int64)
    for shift in range(0, 64, 8):
        total += POPCOUNT8[((masks >> np.uint64(shift)) & np.uint64(255)).astype(np.int64)]
    return total


POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def _kind_masks_and_counts(game: int, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(masks, counts)``: each kind's mask per position (n, kinds) and the count tuples
    (n, fields), after checking that the rows can be positions of the game."""
    layout = _layout(game)
    words = games.compiled_game(game).state_words
    states = np.asarray(states)
    if states.ndim != 2 or states.shape[1] < words or not np.issubdtype(states.dtype, np.integer):
        raise ValueError(
            f"states are an (n, {words}) integer array of kernel rows, not {states.dtype} "
            f"{states.shape}"
        )
    if len(states) == 0:
        raise ValueError("no states to measure a distribution on")
    s = states[:, :words].astype(np.int64)
    full = (1 << layout.squares) - 1
    if (s[:, :3] < 0).any() or (s[:, :2] > full).any() or not np.isin(s[:, 3], (0, 1)).all():
        raise ValueError("a state's masks or side to move are out of range: not a game's rows")
    return game_part(game).masks_and_counts(s)


@dataclass(frozen=True, eq=False)
class PlacementDistribution:
    """Piece counts (jointly) and per-square placements measured on real positions of a game;
    see the module's docstring for what is measured and how :func:`random_positions` samples.
    Checked when made: a malformed one raises ValueError."""

    game: int  # the games.kernels number it was measured on
    count_fields: tuple[str, ...]
    counts: np.ndarray  # (k, fields) int64: every count tuple that occurred
    count_positions: np.ndarray  # (k,) int64: how many positions had it (> 0)
    kinds: tuple[str, ...]
    bucket_lows: tuple[int, ...]  # a kind's count c falls in the last bucket with low <= c
    bucket_positions: np.ndarray  # (kinds, buckets) int64: positions per kind and bucket
    occupied: np.ndarray  # (kinds, buckets, squares) int64: of those, how many had the square

    def __post_init__(self) -> None:
        layout = _layout(self.game)
        if tuple(self.count_fields) != layout.count_fields:
            raise ValueError(
                f"the count fields are {list(layout.count_fields)}, not {list(self.count_fields)}"
            )
        if tuple(self.kinds) != layout.kinds:
            raise ValueError(f"the piece kinds are {list(layout.kinds)}, not {list(self.kinds)}")
        lows = self.bucket_lows
        if (
            not isinstance(lows, tuple)
            or not lows
            or lows[0] != 0
            or any(not isinstance(v, int) or isinstance(v, bool) for v in lows)
            or any(b <= a for a, b in zip(lows, lows[1:], strict=False))
        ):
            raise ValueError(f"bucket lows are increasing whole numbers from 0, not {lows!r}")
        fields, kinds, buckets = len(layout.count_fields), len(layout.kinds), len(lows)
        for name, array, shape in (
            ("counts", self.counts, (None, fields)),
            ("count_positions", self.count_positions, (None,)),
            ("bucket_positions", self.bucket_positions, (kinds, buckets)),
            ("occupied", self.occupied, (kinds, buckets, layout.squares)),
        ):
            if not isinstance(array, np.ndarray) or array.dtype != np.int64:
                raise ValueError(f"{name} must be an int64 array")
            if array.ndim != len(shape) or any(
                want is not None and have != want
                for have, want in zip(array.shape, shape, strict=True)
            ):
                raise ValueError(f"{name} has shape {array.shape}, not {shape}")
            if (array < 0).any():
                raise ValueError(f"{name} holds a negative number")
        if len(self.counts) == 0 or len(self.count_positions) != len(self.counts):
            raise ValueError("a distribution needs at least one count tuple, each with positions")
        if (self.count_positions <= 0).any():
            raise ValueError("every count tuple needs a positive number of positions")
        if (self.counts > np.array(layout.most)).any():
            raise ValueError(f"a count tuple is out of range (at most {layout.most})")
        if len(np.unique(self.counts, axis=0)) != len(self.counts):
            raise ValueError("a count tuple is listed twice")
        game_part(self.game).check_counts(self.counts)
        if (self.occupied > self.bucket_positions[:, :, None]).any():
            raise ValueError("a square is occupied in more positions than its bucket has")

    @property
    def positions(self) -> int:
        """How many positions it was measured on."""
        return int(self.count_positions.sum())

    def frequencies(self) -> np.ndarray:
        """Each count tuple's share of the positions."""
        return self.count_positions / self.count_positions.sum()

    def to_json(self) -> dict:
        """A JSON-ready dict; :meth:`from_json` reads it back."""
        return {
            "format": DISTRIBUTION_FORMAT,
            "version": DISTRIBUTION_VERSION,
            "game": int(self.game),
            "count_fields": list(self.count_fields),
            "counts": [
                {"values": [int(v) for v in row], "positions": int(n)}
                for row, n in zip(self.counts, self.count_positions, strict=True)
            ],
            "kinds": list(self.kinds),
            "bucket_lows": list(self.bucket_lows),
            "placements": {
                kind: [
                    {
                        "low": low,
                        "positions": int(self.bucket_positions[k, b]),
                        "occupied": [int(v) for v in self.occupied[k, b]],
                    }
                    for b, low in enumerate(self.bucket_lows)
                ]
                for k, kind in enumerate(self.kinds)
            },
        }

    @classmethod
    def from_json(cls, data: dict) -> PlacementDistribution:
        """Read :meth:`to_json`'s dict back; ValueError saying what is wrong."""
        if not isinstance(data, dict):
            kind = type(data).__name__
            raise ValueError(f"a placement distribution is a JSON object, not {kind}")
        missing = {
            "format",
            "version",
            "game",
            "count_fields",
            "counts",
            "kinds",
            "bucket_lows",
            "placements",
        } - set(data)
        if missing:
            raise ValueError(f"a placement distribution lacks {', '.join(sorted(missing))}")
        if data["format"] != DISTRIBUTION_FORMAT or data["version"] != DISTRIBUTION_VERSION:
            raise ValueError(
                f"not a placement distribution of version {DISTRIBUTION_VERSION}: format "
                f"{data['format']!r}, version {data['version']!r}"
            )
        game = data["game"]
        if isinstance(game, bool) or not isinstance(game, int):
            raise ValueError(f"the game is a game number, not {game!r}")
        layout = _layout(game)
        if not isinstance(data["count_fields"], list) or not isinstance(data["kinds"], list):
            raise ValueError("count_fields and kinds are lists of names")
        lows = data["bucket_lows"]
        if not isinstance(lows, list):
            raise ValueError("bucket_lows is a list of whole numbers")
        entries = data["counts"]
        if not isinstance(entries, list) or not all(
            isinstance(e, dict) and set(e) == {"values", "positions"} for e in entries
        ):
            raise ValueError("counts is a list of {values, positions} objects")
        counts = _int_array([e["values"] for e in entries], "counts", (len(entries), None))
        if len(entries) == 0:
            counts = np.zeros((0, len(layout.count_fields)), dtype=np.int64)
        count_positions = _int_array([e["positions"] for e in entries], "counts' positions", None)
        placements = data["placements"]
        if not isinstance(placements, dict) or list(placements) != list(data["kinds"]):
            raise ValueError("placements has one entry per kind, in the kinds' order")
        bucket_positions, occupied = [], []
        for kind, buckets in placements.items():
            if not isinstance(buckets, list) or len(buckets) != len(lows):
                raise ValueError(f"placements of {kind!r}: one entry per bucket")
            for bucket, low in zip(buckets, lows, strict=True):
                if not isinstance(bucket, dict) or set(bucket) != {"low", "positions", "occupied"}:
                    raise ValueError(f"placements of {kind!r}: {{low, positions, occupied}}")
                if bucket["low"] != low:
                    raise ValueError(f"placements of {kind!r}: bucket lows differ from bucket_lows")
            bucket_positions.append([b["positions"] for b in buckets])
            occupied.append([b["occupied"] for b in buckets])
        return cls(
            game,
            tuple(data["count_fields"]),
            counts,
            count_positions,
            tuple(data["kinds"]),
            tuple(lows),
            _int_array(bucket_positions, "bucket positions", None),
            _int_array(occupied, "occupied", None),
        )


def _int_array(values, name: str, shape) -> np.ndarray:
    """``values`` as an int64 array; ValueError unless every entry is a whole number."""

    def check(value):
        if isinstance(value, list):
            for item in value:
                check(item)
        elif isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must hold whole numbers, not {value!r}")

    check(values)
    try:
        array = np.array(values, dtype=np.int64)
    except (ValueError, OverflowError):
        raise ValueError(f"{name} is not a regular array of whole numbers") from None
    if shape is not None and len(values) and array.ndim != len(shape):
        raise ValueError(f"{name} is not a regular array of whole numbers")
    return array


def _bucket(lows: tuple[int, ...], count: int) -> int:
    return int(np.searchsorted(np.array(lows), count, side="right")) - 1


def measure_distribution(game: int, states: np.ndarray) -> PlacementDistribution:
    """The :class:`PlacementDistribution` of real positions of the game (kernel state rows, such
    as a self-play or expert batch's ``states``)."""
    layout = _layout(game)
    masks, counts = _kind_masks_and_counts(game, states)
    tuples, inverse = np.unique(counts, axis=0, return_inverse=True)
    count_positions = np.bincount(inverse.reshape(-1), minlength=len(tuples)).astype(np.int64)
    kinds, buckets, squares = len(layout.kinds), len(layout.bucket_lows), layout.squares
    bucket_positions = np.zeros((kinds, buckets), dtype=np.int64)
    occupied = np.zeros((kinds, buckets, squares), dtype=np.int64)
    lows = np.array(layout.bucket_lows)
    bits = np.arange(squares, dtype=np.int64)
    for k in range(kinds):
        kind_counts = _popcount(masks[:, k])
        which = np.searchsorted(lows, kind_counts, side="right") - 1
        bucket_positions[k] = np.bincount(which, minlength=buckets)
        on = (masks[:, k, None] >> bits) & 1
        for b in range(buckets):
            occupied[k, b] = on[which == b].sum(axis=0)
    return PlacementDistribution(
        int(game),
        layout.count_fields,
        tuples.astype(np.int64),
        count_positions,
        layout.kinds,
        layout.bucket_lows,
        bucket_positions,
        occupied,
    )


def _square_weights(distribution: PlacementDistribution, kind: int, count: int) -> np.ndarray:
    """The sampling weights of every square for ``count`` pieces of kind ``kind``."""
    b = _bucket(distribution.bucket_lows, count)
    positions = distribution.bucket_positions[kind, b]
    occupied = distribution.occupied[kind, b]
    if positions == 0:  # no position had this bucket: the kind's frequencies over all buckets
        positions = distribution.bucket_positions[kind].sum()
        occupied = distribution.occupied[kind].sum(axis=0)
    return (occupied + SMOOTHING) / (positions + 2 * SMOOTHING)


def _build_position(rules: GameRules, part, masks: list[int], values: np.ndarray):
    """The legal, undecided position with these kind masks and count tuple, or None: built
    with the game's constructor (its ``pipeline`` part's ``position``), then read back through
    its own position parser."""
    from samuel.games.base import NotationError

    try:
        position = part.position(rules, masks, values)
        position = rules.parse_position(rules.format_position(position))
    except (NotationError, ValueError):
        return None
    if rules.decided_outcome(position) is not None:
        return None
    return position


def random_positions(
    game: int, distribution: PlacementDistribution, count: int, seed: int
) -> PositionBatch:
    """``count`` distinct random positions of the game, legal and undecided, whose piece counts
    follow ``distribution``'s joint histogram and whose placements follow its per-square
    frequencies (the module's docstring says how). ValueError if the distribution is of another
    game, or if ``count`` such positions are not found in ``50 * count`` tries (a distribution of
    decided positions, or of too few distinct ones)."""
    rules = game_rules(game)
    layout = _layout(game)
    part = game_part(game)
    if not isinstance(distribution, PlacementDistribution):
        raise ValueError(f"expected a PlacementDistribution, not {type(distribution).__name__}")
    base = int(game) & games.GAME_MASK
    if int(distribution.game) & games.GAME_MASK != base:
        raise ValueError(
            f"the distribution was measured on game {distribution.game}, not on {rules.title}"
        )
    count = _count(count, "the number of positions", 1, MAX_COUNT)
    rng = np.random.default_rng(derive_seed(_seed(seed), 1))
    cumulative = np.cumsum(distribution.frequencies())
    weights = {}
    seen: set[tuple[int, ...]] = set()
    states = []
    tries = 0
    while len(states) < count:
        if tries >= ATTEMPTS_PER_POSITION * count:
            raise ValueError(
                f"only {len(states)} of {count} random positions found in {tries} tries: the "
                "distribution's counts give mostly illegal or decided positions, or too few "
                "distinct ones"
            )
        tries += 1
        row = min(int(np.searchsorted(cumulative, rng.random(), side="right")), len(cumulative) - 1)
        values = distribution.counts[row]
        taken = np.zeros(layout.squares, dtype=bool)
        masks = []
        for kind, n in enumerate(part.kind_counts(values)):
            mask = 0
            if n:
                if (kind, n) not in weights:
                    weights[kind, n] = _square_weights(distribution, kind, n)
                if layout.squares - taken.sum() < n:
                    break
                # Weighted sampling without replacement by exponential keys (Efraimidis and
                # Spirakis): the n smallest Exp(1) / weight among the open squares are drawn
                # with the same law as n successive weighted draws, each among those left.
                keys = rng.standard_exponential(layout.squares) / weights[kind, n]
                keys[taken] = np.inf
                chosen = np.argpartition(keys, n - 1)[:n]
                taken[chosen] = True
                for square in chosen:
                    mask |= 1 << int(square)
            masks.append(mask)
        if len(masks) < len(layout.kinds):
            continue
        position = _build_position(rules, part, masks, values)
        if position is None:
            continue
        state = rules.encode(position)
        key = tuple(int(v) for v in state)
        if key in seen:
            continue
        seen.add(key)
        states.append(state)
    n = len(states)
    return PositionBatch(
        np.array(states, dtype=np.int64).reshape(n, -1),
        np.full(n, -1, dtype=np.int64),
        np.zeros(n, dtype=np.int32),
    )


# ---------------------------------------------------------------------------------------------
# Tablebase positions


def tablebase_positions(
    table,
    count: int,
    seed: int,
    distribution: PlacementDistribution | None = None,
    game: int | None = None,
) -> tuple[PositionBatch, np.ndarray]:
    """``count`` distinct undecided positions drawn from a game's tablebase (a loaded
    ``Tablebase``, or its folder, read as the table of the game numbered ``game``: the default
    game's if None), and their exact values (float32: +1 the first player wins, 0 a draw, -1 the
    second wins, with perfect play; the first player's view). For Tigers & Sheep, the positions
    with the hand empty; +1 the tigers win.

    A *layer* is the positions with ``captured`` sheep captured and one side to move. Layers are
    drawn by ``distribution``'s frequencies of ``(captured, side to move)`` among its positions
    with the hand empty (those the table's game has not already ended: its game's ``pipeline``
    part's ``table_weights``), or uniformly without a distribution; a position uniformly within
    its layer (by index: every arrangement of 4 tigers and the sheep, reachable in play or not).
    Decided positions (no legal move) are redrawn. The draws are the game's ``perfect`` part's
    (:func:`samuel.games.tigers.tablebase.sample.draw_positions`)."""
    table = _load_table(table, game)
    if table is None:
        raise ValueError("tablebase_positions needs a tablebase")
    number = int(table.rules.number)
    perfect = _perfect(number)
    count = _count(count, "the number of positions", 1, MAX_COUNT)
    weights = None  # uniform over the layers
    if distribution is not None:
        if not isinstance(distribution, PlacementDistribution):
            raise ValueError(f"expected a PlacementDistribution, not {type(distribution).__name__}")
        if int(distribution.game) & games.GAME_MASK != number & games.GAME_MASK:
            raise ValueError(f"the distribution is not of {table.rules.title} positions")
        weights = game_part(number).table_weights(
            distribution.counts, distribution.count_positions, table.captures_to_win
        )
        if weights.sum() == 0:
            raise ValueError(
                "the distribution has no positions with the hand empty that the table holds"
            )
    rng = np.random.default_rng(derive_seed(_seed(seed), 2))
    states, outcomes, _ = perfect.draw_positions(table, count, rng, weights)
    batch = PositionBatch(states, np.full(count, -1, dtype=np.int64), np.zeros(count, np.int32))
    return batch, outcomes.astype(np.float32)


__all__ = [
    "EXPERT_DEPTHS",
    "ExpertGames",
    "ExpertPlayer",
    "ExpertPlayers",
    "PlacementDistribution",
    "PositionBatch",
    "check_params",
    "decode_state",
    "default_expert_players",
    "expert_positions",
    "game_rules",
    "measure_distribution",
    "play_expert_games",
    "play_experts",
    "random_positions",
    "selfplay_positions",
    "tablebase_positions",
]
