"""Players measured against perfect play: how often a move gives away the position's true value.

``score_player`` has the player play itself from random openings and takes, from each game, one
position of the movement phase (hand empty) where the player moved, chosen at random; so the
sampled positions are independent and the 95% ranges are plain binomial ones (Wilson's). A move
is a *blunder* if it changes the true value for the side that plays it: from a win to a draw or a
loss, or from a draw to a loss (from a lost position no move is a blunder). For a network player
it also compares the network's value of each position (the first player's view, -1..1: for Tigers
& Sheep the tigers') with the truth. The table is a game's (its ``perfect`` part's: Tigers &
Sheep's), and the game's rules come with it (``table.rules``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from samuel.backends import Backend, LocalBackend
from samuel.evaluation import evaluators
from samuel.evaluation import kernels as evaluation
from samuel.games import descriptor_of
from samuel.games import kernels as game_kernels
from samuel.match.openings import random_moves
from samuel.match.play import play_game
from samuel.match.stats import Z95
from samuel.players import SearchPlayer, make_player

SCORE_STREAM = 0x7AB1E  # keeps this module's random numbers apart from the players' and openings'


def wilson_range(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a binomial proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + Z95**2 / trials
    centre = (p + Z95**2 / (2 * trials)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / trials + Z95**2 / (4 * trials**2)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class ScoredMove:
    """One sampled position, the player's move there and what the table says of both."""

    game: int
    position: object  # a Position
    move: object  # a Move
    value: tuple[int, int]  # the position's (outcome, plies), side to move's view
    after: tuple[int, int]  # the move's (outcome, plies) for the side that played it
    network_value: float | None  # the network's value (first player's view), for network players
    mover: int = 0  # the side that moved: 0 the first player, 1 the second

    @property
    def blunder(self) -> bool:
        return self.after[0] < self.value[0]


@dataclass(frozen=True)
class ScoreReport:
    player: str
    moves: tuple[ScoredMove, ...]
    games: int
    # The true value (the first player's view: +1, 0, -1) of the first position of each game's
    # movement phase, for the games that got there.
    movement_starts: tuple[int, ...] = ()
    # the table's game's rules: how its sides' wins and view are said (not compared: the same
    # game's rules may be two objects)
    rules: object = field(default=None, compare=False, repr=False)

    def count(self, outcome: int) -> int:
        return sum(1 for m in self.moves if m.value[0] == outcome)

    @property
    def blunders(self) -> int:
        return sum(m.blunder for m in self.moves)

    @property
    def blunder_rate(self) -> float:
        return self.blunders / len(self.moves) if self.moves else 0.0

    @property
    def blunder_range(self) -> tuple[float, float]:
        return wilson_range(self.blunders, len(self.moves))

    def network_error(self) -> tuple[float, float, float] | None:
        """Mean |network value - true value| (the first player's view) and its 95% range, if a
        network."""
        errors = [
            abs(m.network_value - true_first_value(m))
            for m in self.moves
            if m.network_value is not None
        ]
        if not errors:
            return None
        mean = float(np.mean(errors))
        spread = float(np.std(errors, ddof=1)) if len(errors) > 1 else 0.0
        half = Z95 * spread / math.sqrt(len(errors))
        return mean, mean - half, mean + half

    def lines(self) -> list[str]:
        n = len(self.moves)
        low, high = self.blunder_range
        lines = [
            f"player      {self.player}",
            f"positions   {n} (one per game, from {self.games} games; hand empty, player to move)",
            f"true value  {self.count(1)} won, {self.count(0)} drawn, {self.count(-1)} lost "
            "for the side to move",
        ]
        for outcome, name in ((1, "won"), (0, "drawn")):
            start = [m for m in self.moves if m.value[0] == outcome]
            bad = sum(m.blunder for m in start)
            if start:
                rlow, rhigh = wilson_range(bad, len(start))
                lines.append(
                    f"from {name:5}  {bad} of {len(start)} moves blunder "
                    f"({100 * bad / len(start):.1f}%, 95% range {100 * rlow:.1f}-"
                    f"{100 * rhigh:.1f}%)"
                )
        lines.append(
            f"blunders    {self.blunders} of {n} = {100 * self.blunder_rate:.1f}% "
            f"(95% range {100 * low:.1f}-{100 * high:.1f}%); "
            f"{100 * (1 - self.blunder_rate):.1f}% of moves keep the true value"
        )
        starts = self.movement_starts
        first_wins, second_wins = self.rules.win_phrases
        if starts:
            lines.append(
                f"movement    began in {len(starts)} of {self.games} games, true value: "
                f"{first_wins} {starts.count(1)}, draw {starts.count(0)}, {second_wins} "
                f"{starts.count(-1)}"
            )
        error = self.network_error()
        if error is not None:
            lines.append(
                f"net error   mean |value - truth| {error[0]:.3f} "
                f"(95% range {error[1]:.3f}-{error[2]:.3f}), {self.rules.view_phrase}, truth "
                "+1/0/-1"
            )
        return lines


def true_first_value(move: ScoredMove) -> int:
    """The position's true result from the first player's point of view."""
    return move.value[0] if move.mover == 0 else -move.value[0]


def score_player(
    spec: str,
    table,
    positions: int = 400,
    seed: int = 0,
    opening_plies: tuple[int, int] = (4, 8),
    ply_cap: int = 200,
    start=None,
    max_games: int | None = None,
    progress: Callable[[int], None] | None = None,
    backend: Backend | None = None,
) -> ScoreReport:
    """Sample ``positions`` movement-phase positions from the player's games against itself
    (one per game; a game with none gives none) and judge its move in each by the table.

    Game ``g`` starts at ``start`` (the initial position by default) with a random opening of
    ``opening_plies`` plies (a range), and the players' seeds are ``seed + 2g`` and
    ``seed + 2g + 1``; every random number comes from ``seed`` and ``g``, so the report depends
    only on the arguments. Stops after ``max_games`` games (default: 10 per position asked for)
    even if short of positions.

    The games are played one after another in this process, or, with a cluster ``backend``
    (:mod:`samuel.backends`), in waves of games cut into its units; since a game depends on its
    number alone and the games are taken in order up to the one that completes the sample, the
    report is the same. On a cluster every node reads the table (and any file the spec names)
    at the same full path.
    """
    start = table.rules.initial_position() if start is None else start
    max_games = max_games if max_games is not None else 10 * positions
    if backend is not None and not isinstance(backend, LocalBackend):
        return _score_on(
            backend,
            spec,
            table,
            positions,
            seed,
            opening_plies,
            ply_cap,
            start,
            max_games,
            progress,
        )
    scored: list[ScoredMove] = []
    starts: list[int] = []
    games = 0
    while len(scored) < positions and games < max_games:
        g = games
        games += 1
        first_value, move = _score_game(table, spec, seed, opening_plies, ply_cap, start, g)
        if first_value is not None:
            starts.append(first_value)
        if move is None:
            continue
        scored.append(move)
        if progress is not None:
            progress(len(scored))
    return ScoreReport(spec, tuple(scored), games, tuple(starts), table.rules)


def _score_game(
    table,
    spec: str,
    seed: int,
    opening_plies: tuple[int, int],
    ply_cap: int,
    start,
    g: int,
) -> tuple[int | None, ScoredMove | None]:
    """Game ``g``: the true value (the first player's view) of its first movement-phase position
    (None if it never got there) and its sampled move (None if it has no position to sample)."""
    rules = table.rules
    players = {
        side: make_player(spec, rules, seed=seed + 2 * g + i) for i, side in enumerate(rules.sides)
    }
    rng = np.random.default_rng([seed & 0xFFFFFFFFFFFFFFFF, g, SCORE_STREAM])
    opening = random_moves(
        rules, start, int(rng.integers(opening_plies[0], opening_plies[1] + 1)), rng
    )
    game = play_game(rules, players, start=start, ply_cap=ply_cap, opening=opening)
    first = next((p for p in game.positions if table.covers(p)), None)
    first_value = None
    if first is not None:
        outcome, _ = table.value(first)
        first_value = outcome if rules.side_to_move(first) == 0 else -outcome
    candidates = [
        i for i in range(len(opening), len(game.moves)) if table.covers(game.positions[i])
    ]
    if not candidates:
        return first_value, None
    i = candidates[int(rng.integers(len(candidates)))]
    position, move = game.positions[i], game.moves[i]
    outcome, plies = table.value(position.play_unchecked(move))
    mover = rules.side_to_move(position)
    player = players[rules.sides[mover]]
    return first_value, ScoredMove(
        g,
        position,
        move,
        table.value(position),
        (-outcome, plies + 1 if outcome else 0),
        _network_value(player, position, rules),
        mover,
    )


def _score_unit(shared: tuple, games: range) -> list[tuple[int | None, ScoredMove | None]]:
    """A backend's unit: the games numbered ``games``, the table read from its folder (mapped
    once per worker process) by its game's ``perfect`` part rather than sent."""
    directory, spec, seed, opening_plies, ply_cap, start, game = shared
    table = descriptor_of(game).part("perfect").load(directory)
    return [_score_game(table, spec, seed, opening_plies, ply_cap, start, g) for g in games]


def _score_on(
    backend: Backend,
    spec: str,
    table,
    positions: int,
    seed: int,
    opening_plies: tuple[int, int],
    ply_cap: int,
    start,
    max_games: int,
    progress: Callable[[int], None] | None,
) -> ScoreReport:
    """:func:`score_player`'s games as ``backend``'s units, in waves sized by what the games so
    far yielded; the results taken in game order up to the game that completes the sample."""
    directory = str(Path(table.directory).resolve())
    shared = (directory, spec, seed, opening_plies, ply_cap, start, int(table.rules.number))
    scored: list[ScoredMove] = []
    starts: list[int] = []
    games = 0
    while len(scored) < positions and games < max_games:
        need = positions - len(scored)
        rate = len(scored) / games if games else 1.0  # positions per game so far
        wave = min(max_games - games, math.ceil(1.1 * need / max(rate, 0.1)))
        units = [range(games + part.start, games + part.stop) for part in backend.parts(wave)]
        already = len(scored)

        def after(done: list, already=already) -> bool:
            found = already + sum(move is not None for part in done for _, move in part)
            if progress is not None:
                progress(min(found, positions))
            return found >= positions

        for part in backend.run(_score_unit, units, shared, after):
            for first_value, move in part:
                if len(scored) == positions:
                    break
                games += 1
                if first_value is not None:
                    starts.append(first_value)
                if move is not None:
                    scored.append(move)
    return ScoreReport(spec, tuple(scored), games, tuple(starts), table.rules)


def _network_value(player, position, rules) -> float | None:
    if not isinstance(player, SearchPlayer) or player.evaluator != game_kernels.EVALUATOR_NETWORK:
        return None
    game = int(rules.number) & game_kernels.GAME_MASK  # the standard game's network
    size = evaluators.scratch_size(game, game_kernels.EVALUATOR_NETWORK, player.params)
    scratch = np.zeros(size, dtype=np.float32)
    active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)
    return float(
        evaluation.network_value(game, player.params, rules.encode(position), scratch, active)
    )
