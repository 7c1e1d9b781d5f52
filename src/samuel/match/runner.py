"""Playing pairs of games on worker processes, with results that do not depend on the workers.

A pair is one opening played twice, each player taking each side once (the game is asymmetric:
one game as tigers, one as sheep). Everything random in a pair comes from seeds derived from
(match seed, pair number, game of the pair, side), and every game gets freshly built players (no
search table carries over from another game), so a pair's result is the same whichever worker
plays it. Results are collected in pair order.

The pairs are units of a backend (:mod:`samuel.backends`): this machine's processes or a Ray
cluster. A worker rebuilds the players from their spec strings and loads the compiled kernels from
numba's cache; the parent compiles (warms) every player's kernels first, since parallel cache
writes can crash (numba issue #4807).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from samuel.backends import Backend, LocalBackend
from samuel.games import default_game, descriptors, get_game
from samuel.games.base import GameRules, Result
from samuel.games.game import Game
from samuel.match.openings import OpeningConfig, opening_moves
from samuel.match.play import play_game
from samuel.players import HumanPlayer, Player, PlayerSpecError, make_player
from samuel.seeds import derive_seed

PLAYER_STREAM = 0x5EED  # keeps the players' seeds apart from the openings'
DICE_STREAM = 0xD1CE  # and the dice's


def dice(match_seed: int, pair: int) -> np.random.Generator:
    """The dice of pair ``pair``: both of its games get a generator in the same state, so in a
    game with dice they see the same rolls for as long as they stay alike (duplicate dice, as
    backgammon's fair matches play them); a game without chance never draws from it."""
    return np.random.default_rng(derive_seed(match_seed, pair, DICE_STREAM))


def player_seed(match_seed: int, pair: int, game: int, side: int) -> int:
    """The seed of the player on side ``side`` (0 the game's first side, the tigers; 1 the
    second) in game ``game`` (0 or 1) of pair ``pair``: derived from these numbers only, never
    from a worker."""
    return derive_seed(match_seed, pair, game, side, PLAYER_STREAM)


@dataclass(frozen=True)
class PairTask:
    """Everything a worker needs to play one pair; plain data, so it crosses processes."""

    first: str  # the first player's spec; its results are the ones reported
    second: str
    pair: int  # the pair's number in its match: picks the opening and the seeds
    seed: int  # the match seed
    openings: OpeningConfig
    ply_cap: int | None
    depth: int | None = None  # default search depth for specs that do not set one
    seconds: float | None = None  # default time per move for specs that do not set one
    game: str = field(default_factory=default_game)  # the registry name of the game
    cube: bool = False  # played for points with the doubling cube (a game with one)
    # each "game" is a match to this many points (a game with a cube; 0: single games)
    match_length: int = 0


@dataclass(frozen=True)
class GamePlayed:
    """One finished game of a pair, as plain data."""

    first_side: str  # the side the first player took
    result: Result  # from the view of the game's first side (the tigers): +1, 0, -1
    first_points: float  # the first player's points: 1 a win, 0.5 a draw, 0 a loss
    termination: enum.Enum  # the game's own Termination or samuel.games.base.Termination
    moves: tuple[str, ...]  # every move in notation (and roll, in a game with dice)
    # What the first player scored: +2 for a gammon it won, -1 for a plain loss, 0 a draw
    # (None: not kept, so a win's 1 point, from first_points).
    first_score: int | None = None
    start: str | None = None  # the position it started from, where not the game's initial one
    cube: int = 1  # the cube's value at the end (a game played with one)
    passed: bool = False  # ended by a double passed

    @property
    def net_points(self) -> int:
        """The first player's points, won or lost (``first_score``)."""
        if self.first_score is None:
            return round(2 * self.first_points - 1)
        return self.first_score


@dataclass(frozen=True)
class PairResult:
    """Both games of one opening: ``games[0]`` with the first player on the game's first side
    (tigers), ``games[1]`` with it on the second (sheep)."""

    pair: int
    opening: tuple[str, ...]  # the opening's moves in notation
    games: tuple[GamePlayed, GamePlayed]

    @property
    def first_points(self) -> float:
        """The first player's points from the pair: 0, 0.5, 1, 1.5 or 2."""
        return sum(game.first_points for game in self.games)

    @property
    def net_points(self) -> int:
        """What the first player scored over the pair's two games, won less lost (a gammon
        counts 2)."""
        return sum(game.net_points for game in self.games)


def build_player(spec: str, rules: GameRules, task: PairTask, game: int, side: int) -> Player:
    """The player ``spec`` names, with its seed for this pair, game and side."""
    return make_player(
        spec,
        rules,
        depth=task.depth,
        seconds=task.seconds,
        seed=player_seed(task.seed, task.pair, game, side),
    )


def _played_for_points(task: PairTask, rules: GameRules, players, game_number: int) -> GamePlayed:
    """One game played for points with the cube, as the game's ``cube_game`` part plays it
    (from the opening throw), ``players`` by side."""
    cube_game = descriptors()[rules.name].part("cube_game")
    played = cube_game.play_game(
        [players[side] for side in rules.sides],
        dice(task.seed, task.pair),
        cube_on=True,
        ply_cap=task.ply_cap or descriptors()[rules.name].default_ply_cap,
    )
    game, sign = played.game, 1 if game_number == 0 else -1
    result = 1 if played.winner == 0 else -1
    return GamePlayed(
        first_side=rules.sides[game_number],
        result=result,
        first_points=(1 + sign * result) / 2,
        termination=cube_game.PASSED if played.passed else game.outcome.termination,
        moves=tuple(rules.format_move(move) for move in game.moves),
        first_score=sign * result * played.points,
        start=rules.format_position(game.start),
        cube=played.value,
        passed=played.passed,
    )


def _played_match(task: PairTask, rules: GameRules, players, game_number: int) -> GamePlayed:
    """One match to ``task.match_length`` points (the cube on if ``task.cube``), as the game's
    ``cube_game`` part plays it, ``players`` by side; its result is the match's, a point to its
    winner, and its moves those of its last game."""
    cube_game = descriptors()[rules.name].part("cube_game")
    played = cube_game.play_match(
        [players[side] for side in rules.sides],
        task.match_length,
        dice(task.seed, task.pair),
        cube_on=task.cube,
    )
    sign = 1 if game_number == 0 else -1
    result = 1 if played.winner == 0 else -1
    last = played.games[-1][1]
    return GamePlayed(
        first_side=rules.sides[game_number],
        result=result,
        first_points=(1 + sign * result) / 2,
        termination=cube_game.PASSED if last.passed else last.game.outcome.termination,
        moves=tuple(rules.format_move(move) for move in last.game.moves),
        first_score=sign * result,
        start=rules.format_position(last.game.start),
        cube=last.value,
        passed=last.passed,
    )


def play_pair(task: PairTask) -> PairResult:
    """Play both games of one pair (in this process) and return their results."""
    rules = get_game(task.game)
    opening = opening_moves(rules, task.openings, task.seed, task.pair)
    played = []
    for game_number in (0, 1):
        first_side = rules.sides[game_number]
        second_side = rules.sides[1 - game_number]
        players = {
            first_side: build_player(task.first, rules, task, game_number, game_number),
            second_side: build_player(task.second, rules, task, game_number, 1 - game_number),
        }
        if task.match_length:
            played.append(_played_match(task, rules, players, game_number))
            continue
        if task.cube:
            played.append(_played_for_points(task, rules, players, game_number))
            continue
        game = play_game(
            rules,
            players,
            opening=opening,
            ply_cap=task.ply_cap,
            dice=dice(task.seed, task.pair),
        )
        sign = 1 if game_number == 0 else -1
        played.append(
            GamePlayed(
                first_side=first_side,
                result=game.outcome.result,
                first_points=(1 + sign * game.outcome.result) / 2,
                termination=game.outcome.termination,
                moves=tuple(rules.format_move(move) for move in game.moves),
                first_score=sign * game.outcome.score,
            )
        )
    return PairResult(
        pair=task.pair,
        opening=tuple(rules.format_move(move) for move in opening),
        games=(played[0], played[1]),
    )


def check_match_player(
    spec: str, rules: GameRules, depth: int | None = None, seconds: float | None = None
) -> Player:
    """Build ``spec``'s player and play one move with it, so that a bad spec fails here, before
    any worker starts, and its kernels are compiled (and cached) in this process."""
    player = make_player(spec, rules, depth=depth, seconds=seconds)
    if isinstance(player, HumanPlayer):
        raise PlayerSpecError("human cannot play in a match: matches are between engines")
    game = Game(rules)
    if game.chance_outcomes():  # a game that starts with a roll
        game.roll(dice(0, 0))
    player.choose_move(game)
    return player


def _play_pair_unit(_shared, task: PairTask) -> PairResult:
    """A backend's unit: one pair (the tasks carry everything; nothing is shared)."""
    return play_pair(task)


def run_pairs(
    tasks: Sequence[PairTask],
    workers: int = 1,
    after_pair: Callable[[list[PairResult]], bool] | None = None,
    backend: Backend | None = None,
) -> list[PairResult]:
    """Play every task and return the results in task order.

    ``after_pair`` is called with the results of tasks 0..k each time that run of finished
    tasks grows by one (in task order, whatever order the workers finish in); if it returns
    True, the remaining tasks are cancelled and the results of tasks 0..k are returned, so an
    early stop, too, does not depend on the number of workers. The pairs are played by
    ``backend`` (:mod:`samuel.backends`), by default this machine with ``workers`` processes
    (with 1, in this process).
    """
    if backend is None:
        backend = LocalBackend(workers)
    return backend.run(_play_pair_unit, list(tasks), after=after_pair)
