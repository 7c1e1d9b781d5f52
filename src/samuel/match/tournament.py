"""A round robin: every two players play a fair match, and one fit rates them all at once.

Every pairing plays the same openings (they come from the tournament seed and the pair number),
so no pairing is luckier in its openings than another. All the pairings' games share one pool of
workers; the results do not depend on how many. The ratings are fitted by
:func:`samuel.match.ratings.fit_ratings`.
"""

from __future__ import annotations

import datetime
import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from samuel.backends import Backend
from samuel.errors import CommandError
from samuel.games import default_game, get_game
from samuel.games.record import GameRecord
from samuel.match.head_to_head import (
    DEFAULT_PLY_CAP,
    MatchConfig,
    MatchResult,
    summarize,
)
from samuel.match.openings import OpeningConfig, as_opening_config
from samuel.match.ratings import Ratings, fit_ratings
from samuel.match.runner import PairResult, PairTask, check_match_player, run_pairs
from samuel.match.stats import Tally
from samuel.progress import progress_bar

DEFAULT_TOURNAMENT_GAMES = 100  # per pairing


@dataclass(frozen=True)
class TournamentConfig:
    """How a tournament is played and rated. Every field is an option of ``samuel tournament``."""

    games: int = DEFAULT_TOURNAMENT_GAMES  # per pairing; an even number
    seed: int = 0
    openings: OpeningConfig = field(default_factory=OpeningConfig)
    ply_cap: int | None = DEFAULT_PLY_CAP
    depth: int | None = None
    seconds: float | None = None
    anchor: str | None = None  # the player fixed at anchor_rating; None: the pool's average
    anchor_rating: float = 0.0
    game: str = field(default_factory=default_game)

    def match_config(self) -> MatchConfig:
        """The settings every pairing's match is played with."""
        return MatchConfig(
            games=self.games,
            seed=self.seed,
            openings=self.openings,
            ply_cap=self.ply_cap,
            depth=self.depth,
            seconds=self.seconds,
            game=self.game,
        )


@dataclass(frozen=True)
class Standing(Tally):
    """One player's line in the table."""

    player: str
    rating: float
    error: float | None  # 95% range (+/-); None for the anchor
    wins: int
    draws: int
    losses: int

    @property
    def played(self) -> int:
        return self.games

    @property
    def score(self) -> float:
        return self.points / self.played


@dataclass(frozen=True)
class TournamentResult:
    """Every pairing's match (``players[i]`` first against ``players[j]``, i < j, in that
    order), the ratings and the wall-clock seconds."""

    players: tuple[str, ...]
    config: TournamentConfig
    matches: tuple[MatchResult, ...]
    ratings: Ratings
    seconds: float

    @property
    def standings(self) -> list[Standing]:
        """The players from the highest rating down."""
        tally = {player: [0, 0, 0] for player in self.players}
        for match in self.matches:
            s = match.statistics
            for player, (w, d, l) in (
                (match.first, (s.wins, s.draws, s.losses)),
                (match.second, (s.losses, s.draws, s.wins)),
            ):
                tally[player][0] += w
                tally[player][1] += d
                tally[player][2] += l
        rows = [
            Standing(player, rating, error, *tally[player])
            for player, rating, error in zip(
                self.players, self.ratings.ratings, self.ratings.errors, strict=True
            )
        ]
        return sorted(rows, key=lambda row: -row.rating)

    def records(self, date: datetime.date | str | None = None) -> list[GameRecord]:
        """Every game of every pairing as game records, pairing by pairing."""
        return [record for match in self.matches for record in match.records(date)]


def points_table(players: Sequence[str], matches: Sequence[MatchResult]) -> np.ndarray:
    """``table[i, j]``: the points ``players[i]`` scored against ``players[j]``."""
    table = np.zeros((len(players), len(players)))
    for match in matches:
        i, j = players.index(match.first), players.index(match.second)
        table[i, j] += match.statistics.points
        table[j, i] += match.games - match.statistics.points
    return table


def play_tournament(
    players: Sequence[str],
    games: int = DEFAULT_TOURNAMENT_GAMES,
    *,
    seed: int = 0,
    openings: OpeningConfig | int | tuple[int, int] | str | None = None,
    ply_cap: int | None = DEFAULT_PLY_CAP,
    depth: int | None = None,
    seconds: float | None = None,
    anchor: str | None = None,
    anchor_rating: float = 0.0,
    workers: int = 1,
    progress: bool = False,
    game: str | None = None,
    backend: Backend | None = None,
) -> TournamentResult:
    """Play a round robin of ``games`` games per pairing between the players the specs name,
    and fit their ratings (``anchor`` fixed at ``anchor_rating``, or the pool's average when
    ``anchor`` is None). Settings mean what they mean in
    :func:`samuel.match.head_to_head.play_match`."""
    game = default_game() if game is None else game
    players = tuple(players)
    if len(players) < 2:
        raise CommandError("a tournament needs at least two players")
    repeated = sorted({p for p in players if players.count(p) > 1})
    if repeated:
        raise CommandError(f"each player is named once; repeated: {', '.join(repeated)}")
    if anchor is not None and anchor not in players:
        raise CommandError(f"the anchor {anchor!r} is not one of the players: {', '.join(players)}")
    config = TournamentConfig(
        games=games,
        seed=seed,
        openings=as_opening_config(openings, game),
        ply_cap=ply_cap,
        depth=depth,
        seconds=seconds,
        anchor=anchor,
        anchor_rating=anchor_rating,
        game=game,
    )
    match_config = config.match_config()  # checks the settings
    started = time.perf_counter()
    rules = get_game(game)
    for spec in players:
        check_match_player(spec, rules, depth=depth, seconds=seconds)
    pairings = list(itertools.combinations(players, 2))
    tasks = [
        PairTask(
            first=first,
            second=second,
            pair=pair,
            seed=seed,
            openings=config.openings,
            ply_cap=ply_cap,
            depth=depth,
            seconds=seconds,
            game=game,
        )
        for first, second in pairings
        for pair in range(match_config.pairs)
    ]
    bar = progress_bar(2 * len(tasks), f"tournament of {len(players)}", enabled=progress)

    def after_pair(done: list[PairResult]) -> bool:
        bar.update(2)
        return False

    try:
        results = run_pairs(tasks, workers=workers, after_pair=after_pair, backend=backend)
    finally:
        bar.close()
    elapsed = time.perf_counter() - started
    per_pairing = match_config.pairs
    share = elapsed / len(pairings)  # the pairings' games were mixed: each gets an even share
    matches = tuple(
        summarize(
            first, second, match_config, results[k * per_pairing : (k + 1) * per_pairing], share
        )
        for k, (first, second) in enumerate(pairings)
    )
    ratings = fit_ratings(
        players, points_table(players, matches), anchor=anchor, anchor_rating=anchor_rating
    )
    return TournamentResult(
        players=players, config=config, matches=matches, ratings=ratings, seconds=elapsed
    )
