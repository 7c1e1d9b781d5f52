"""A fair match between two players: paired games from random openings, and its statistics.

Every opening is played twice, each player taking each side once; games run on worker processes
and the result does not depend on how many. With an SPRT the match stops at the first pair (in
pair order) after which the test decides. This is the function the training loop and the
``samuel match`` command call:

    result = play_match("classic:depth=4", "classic:depth=2", 200, seed=1, workers=2)
    result.score, result.statistics.elo, result.statistics.pentanomial.counts
"""

from __future__ import annotations

import datetime
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from samuel.backends import Backend, RunInterrupted
from samuel.errors import CommandError, SamuelError
from samuel.games import default_game, descriptors, get_game, require_part
from samuel.games.record import GameRecord
from samuel.match.openings import OpeningConfig, as_opening_config
from samuel.match.runner import PairResult, PairTask, check_match_player, run_pairs
from samuel.match.sprt import PointsSprt, Sprt, SprtResult
from samuel.match.stats import (
    MatchStatistics,
    Pentanomial,
    PointsStatistics,
    Tally,
    match_statistics,
    points_statistics,
)
from samuel.progress import progress_bar

DEFAULT_GAMES = 200  # a 95% range of about +/-7 points around 50%: the seed's final checks
DEFAULT_PLY_CAP = 200  # as in training: a game this long is a draw
GAME_PLY_CAP = "game"  # play_match's default: the game's own (200; a game with dice, 1000)
# How often a match hands its games so far to ``checkpoint`` (after its first pair): often enough
# that a process killed outright (Ray ends its driver when its raylet dies) loses little.
CHECKPOINT_SECONDS = 10.0


@dataclass(frozen=True)
class MatchConfig:
    """How a match is played. Every field is an option of ``samuel match``."""

    games: int = DEFAULT_GAMES  # an even number (pairs of games); with an SPRT, the most
    seed: int = 0  # picks the openings and every player's seeds
    openings: OpeningConfig = field(default_factory=OpeningConfig)
    ply_cap: int | None = DEFAULT_PLY_CAP  # None: no cap (repetition still ends games)
    depth: int | None = None  # search depth for specs that set none (None: the player's own)
    seconds: float | None = None  # time per move for specs that set none (None: search by depth)
    sprt: Sprt | PointsSprt | None = None  # stop as soon as this test decides
    game: str = field(default_factory=default_game)  # the registry name of the game
    cube: bool = False  # played for points with the doubling cube (a game with one)
    match_length: int = 0  # each "game" a match to this many points (a game with a cube)

    def __post_init__(self) -> None:
        if self.games < 2 or self.games % 2:
            raise CommandError(
                f"a match is an even number of games (each opening is played twice), "
                f"at least 2, not {self.games}"
            )
        if self.seed < 0:
            raise CommandError(f"the match seed must not be negative, not {self.seed}")
        if self.ply_cap is not None and self.ply_cap < 1:
            raise CommandError(f"the ply cap must be at least 1, not {self.ply_cap}")
        if self.ply_cap is not None and self.ply_cap <= self.openings.max_plies:
            raise CommandError(
                f"the ply cap ({self.ply_cap}) must be longer than the openings ({self.openings})"
            )

    @property
    def pairs(self) -> int:
        return self.games // 2


@dataclass(frozen=True)
class SideResult(Tally):
    """The first player's results when it played one side."""

    wins: int
    draws: int
    losses: int

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.0


@dataclass(frozen=True)
class MatchResult:
    """A finished match, from the first player's view: the pairs played (in pair order), the
    statistics, the SPRT's state (when one ran) and the wall-clock seconds it took."""

    first: str
    second: str
    config: MatchConfig
    pairs: tuple[PairResult, ...]
    statistics: MatchStatistics
    sprt: SprtResult | None
    seconds: float
    # Why the match stopped before its games were played (the backend failed), or None: the
    # result is then of the pairs finished before it stopped, and says so everywhere.
    incomplete: str | None = None

    @property
    def score(self) -> float:
        """The first player's share of the points."""
        return self.statistics.score

    @property
    def games(self) -> int:
        """Games played: ``config.games``, or fewer when an SPRT stopped the match."""
        return 2 * len(self.pairs)

    @property
    def points(self) -> PointsStatistics:
        """The first player's points per game, won less lost (a gammon counts 2): the figure
        of a game whose wins score more than a point."""
        return points_statistics(pair.net_points for pair in self.pairs)

    @property
    def by_side(self) -> dict[str, SideResult]:
        """The first player's results on each side of the game."""
        tally: dict[str, Counter] = {}
        for pair in self.pairs:
            for game in pair.games:
                tally.setdefault(game.first_side, Counter())[game.first_points] += 1
        return {
            side: SideResult(wins=c[1.0], draws=c[0.5], losses=c[0.0]) for side, c in tally.items()
        }

    @property
    def terminations(self) -> Counter:
        """How many games ended each way (by :class:`Termination`)."""
        return Counter(game.termination for pair in self.pairs for game in pair.games)

    @property
    def average_plies(self) -> float:
        return sum(len(game.moves) for pair in self.pairs for game in pair.games) / self.games

    def records(self, date: datetime.date | str | None = None) -> list[GameRecord]:
        """Every game as a game record, in pair order (as tigers first), tagged with its round
        (``pair.game``, counting from 1) and its opening's length."""
        rules = get_game(self.config.game)
        if date is None:
            date = datetime.date.today()
        if isinstance(date, datetime.date):
            date = date.strftime("%Y.%m.%d")
        records = []
        for pair in self.pairs:
            for number, game in enumerate(pair.games):
                names = {game.first_side: self.first}
                names[next(s for s in rules.sides if s != game.first_side)] = self.second
                records.append(
                    GameRecord(
                        rules=rules,
                        players=tuple(names[side] for side in rules.sides),
                        date=date,
                        start=(
                            rules.initial_position()
                            if game.start is None
                            else rules.parse_position(game.start)
                        ),
                        moves=tuple(rules.parse_move(move) for move in game.moves),
                        result=game.result,
                        termination=game.termination,
                        ply_cap=self.config.ply_cap,
                        points=abs(game.net_points) if abs(game.net_points) > 1 else None,
                        extra_tags=(
                            ("Round", f"{pair.pair + 1}.{number + 1}"),
                            ("OpeningPlies", str(len(pair.opening))),
                            *self._incomplete_tag(),
                        ),
                    )
                )
        return records

    def _incomplete_tag(self) -> tuple[tuple[str, str], ...]:
        """A tag on every record of an incomplete match, saying so."""
        if self.incomplete is None:
            return ()
        return (("Match", f"incomplete: {self.games} of {self.config.games} games played"),)


class MatchInterrupted(SamuelError, RuntimeError):
    """A match that its backend could not finish (Ray failed): the message says why, and
    ``result`` is the match of the pairs finished before (``incomplete`` set), or None when no
    pair had finished."""

    def __init__(self, message: str, result: MatchResult | None) -> None:
        super().__init__(message)
        self.result = result


class Tally:
    """Running counts of a match's results, pair by pair."""

    def __init__(self) -> None:
        self.outcomes: Counter = Counter()  # first player's points per game: 1, 0.5, 0
        self.pair_points: Counter = Counter()  # first player's points per pair
        self.pair_net_points: Counter = Counter()  # its points won less lost per game, by pair

    def add(self, pair: PairResult) -> None:
        for game in pair.games:
            self.outcomes[game.first_points] += 1
        self.pair_points[pair.first_points] += 1
        self.pair_net_points[pair.net_points / 2] += 1

    @property
    def pentanomial(self) -> Pentanomial:
        return Pentanomial.from_pair_points(self.pair_points.elements())

    def statistics(self) -> MatchStatistics:
        return match_statistics(
            self.outcomes[1.0], self.outcomes[0.5], self.outcomes[0.0], self.pentanomial
        )


def summarize(
    first: str,
    second: str,
    config: MatchConfig,
    pairs: list[PairResult],
    seconds: float,
    incomplete: str | None = None,
) -> MatchResult:
    """The :class:`MatchResult` of ``pairs`` (in pair order); ``incomplete`` says why a match
    stopped before its games were played."""
    tally = Tally()
    for pair in pairs:
        tally.add(pair)
    return MatchResult(
        first=first,
        second=second,
        config=config,
        pairs=tuple(pairs),
        statistics=tally.statistics(),
        sprt=None if config.sprt is None else config.sprt.result_of(tally),
        seconds=seconds,
        incomplete=incomplete,
    )


def play_match(
    first: str,
    second: str,
    games: int = DEFAULT_GAMES,
    *,
    seed: int = 0,
    openings: OpeningConfig | int | tuple[int, int] | str | None = None,
    ply_cap: int | None | str = GAME_PLY_CAP,
    depth: int | None = None,
    seconds: float | None = None,
    sprt: Sprt | PointsSprt | None = None,
    workers: int = 1,
    progress: bool = False,
    game: str | None = None,
    backend: Backend | None = None,
    checkpoint: Callable[[MatchResult], None] | None = None,
    cube: bool = False,
    match_length: int = 0,
) -> MatchResult:
    """Play a match of ``games`` games (an even number) between the players the specs
    ``first`` and ``second`` name, and return it with its statistics, from ``first``'s view.

    ``openings`` is the random openings' length: an :class:`OpeningConfig`, a number of plies,
    a (low, high) range or text such as ``"2-6"``; by default the game's (4; with dice, 0).
    ``ply_cap``: a game this long is a draw; by default the game's own (``default_ply_cap``:
    long nardy's games at 0 ply can outlast 200 plies), None for no cap.
    ``depth`` and ``seconds`` are defaults that a spec's own options override. With ``sprt`` the
    match stops as soon as the test decides (``games`` is then the most it plays). The pairs are
    played by ``backend`` (:mod:`samuel.backends`), by default this machine with ``workers``
    processes; the result is the same on any backend and any number of workers (searches by
    time excepted: a clock is never reproducible). ``progress`` shows a bar on standard error
    when it is a terminal. ``checkpoint`` is handed the match so far
    (``incomplete`` set) after the first pair and then every :data:`CHECKPOINT_SECONDS`, so that
    a caller can keep the games played should the process be ended before the match is.
    With ``cube`` each game is played for points with the doubling cube, from the opening throw
    (a game with a cube: its ``cube_game`` part). With ``match_length`` N each of the match's
    "games" is a match to N points (the cube on with ``cube``, the Crawford rule kept), won or
    lost whole: the statistics and the SPRT count matches.

    Raises :class:`samuel.players.PlayerSpecError` for a bad spec and :class:`ValueError` for a
    bad setting, before any game is played, and :class:`MatchInterrupted`, with the match of the
    pairs finished, when the backend fails before the end (Ray's processes died).
    """
    game = default_game() if game is None else game
    if ply_cap == GAME_PLY_CAP:
        ply_cap = descriptors()[get_game(game).name].default_ply_cap
    config = MatchConfig(
        games=games,
        seed=seed,
        openings=as_opening_config(openings, game),
        ply_cap=ply_cap,
        depth=depth,
        seconds=seconds,
        sprt=sprt,
        game=game,
        cube=cube,
        match_length=match_length,
    )
    if cube:
        require_part(config.game, "cube_game", "--cube on", "{games} is played with a cube")
    if match_length:
        require_part(config.game, "cube_game", "a match to N points", "{games} has matches")
        if isinstance(match_length, bool) or not 1 <= match_length <= 25:
            raise ValueError(f"a match is to 1-25 points, not {match_length!r}")
    started = time.perf_counter()
    rules = get_game(config.game)
    for spec in dict.fromkeys((first, second)):
        check_match_player(spec, rules, depth=depth, seconds=seconds)
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
            game=config.game,
            cube=cube,
            match_length=match_length,
        )
        for pair in range(config.pairs)
    ]
    bar = progress_bar(config.games, f"{first} vs {second}", enabled=progress)
    tally = Tally()
    last_checkpoint: list[float] = []  # when the last one was handed on

    def after_pair(done: list[PairResult]) -> bool:
        tally.add(done[-1])
        bar.update(2)
        statistics = tally.statistics()
        text = f"score {100 * statistics.score:.1f}%"
        decided = False
        if config.sprt is not None:
            state = config.sprt.result_of(tally)
            text += f" LLR {state.llr:.2f} [{config.sprt.lower:.2f}, {config.sprt.upper:.2f}]"
            decided = state.decision is not None
        bar.set_postfix_str(text)
        now = time.monotonic()
        due = not last_checkpoint or now - last_checkpoint[-1] >= CHECKPOINT_SECONDS
        if checkpoint is not None and due and not decided and len(done) < config.pairs:
            last_checkpoint.append(now)
            so_far = (
                f"written during the match, after {2 * len(done)} of {config.games} games; "
                "the match stopped there unless a finished report replaced this"
            )
            elapsed = time.perf_counter() - started
            checkpoint(summarize(first, second, config, list(done), elapsed, so_far))
        return decided

    try:
        pairs = run_pairs(tasks, workers=workers, after_pair=after_pair, backend=backend)
    except RunInterrupted as error:
        partial = None
        if error.done:
            seconds = time.perf_counter() - started
            partial = summarize(first, second, config, error.done, seconds, str(error))
        raise MatchInterrupted(str(error), partial) from None
    finally:
        bar.close()
    return summarize(first, second, config, pairs, time.perf_counter() - started)
