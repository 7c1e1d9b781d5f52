"""Backgammon as it is played for points: the opening throw, a game with the doubling cube, and
a match to N points with the Crawford rule.

**The opening throw.** Each side throws one die; a tie throws again; the higher die's side plays
the two numbers thrown from the start (so the opening move is never a double).

**The cube.** Before each roll, the side on roll may double if the cube is centred or its own,
this is not the Crawford game, and (in a match) the cube does not already win it the match; the
other side takes (the cube doubles and is its) or passes (the game ends, the doubler winning the
cube's value before the double). A game borne off is worth the cube times one, two (a gammon)
or three (a backgammon); in money play under the Jacoby rule a gammon counts single while the
cube was never turned.

**A player's cube decisions** are two methods, looked up on the player (so a player needs no
change to play without them): ``offers_double(game, cube) -> bool`` and ``takes(game, cube) ->
bool``, ``cube`` a :class:`CubeState` seen from the side asked. :func:`cube_decider` finds them:
the player's own; for an engine with an outcome network, Janowski's 0-ply decisions from its six
chances (:func:`network_cube`, ``cube.py``); for a human, questions; for any other player
(random, the classic evaluation: they have no chances to decide from) :class:`NeverDoubles`,
which never doubles and always takes, the choice that cannot lose more than the game's own
points by a bad double.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from samuel.games.game import Game

from .cube import MatchScore, analyse, position_cube_life
from .rules import RULES, START, Position, Roll

X, O = 0, 1


def opening_throw(dice: np.random.Generator) -> tuple[int, Roll]:
    """The side that plays first (0 X, 1 O) and the roll it plays: each side throws one die,
    X's first; a tie throws again."""
    while True:
        x, o = (int(d) for d in dice.integers(1, 7, size=2))
        if x != o:
            return (X if x > o else O), Roll(max(x, o), min(x, o))


@dataclass(frozen=True)
class CubeState:
    """The cube as the side asked sees it: its value, its owner (``"me"``, ``"them"``, or None
    while centred), and the match (None: money play, with ``jacoby``)."""

    value: int = 1
    owner: str | None = None
    score: MatchScore | None = None
    jacoby: bool = True


@dataclass(frozen=True)
class CubeAction:
    """One cube action: before the play numbered ``turn`` (0 the first), ``side`` doubled to
    ``value``, or took or passed it."""

    turn: int
    side: int
    action: str  # "double", "take" or "pass"
    value: int


@dataclass
class GameResult:
    """A game played for points: who won, how many points, the cube's actions and the game."""

    winner: int
    points: int
    game: Game
    cube: list[CubeAction] = field(default_factory=list)
    passed: bool = False  # the game ended with a double passed

    @property
    def value(self) -> int:
        """The cube's value at the end: the last double taken, or 1."""
        return max([a.value for a in self.cube if a.action == "take"], default=1)


class CubeTermination(enum.Enum):
    """How the cube ends a game (the text of a record's Termination tag)."""

    PASSED = "double passed"


PASSED = CubeTermination.PASSED


class NeverDoubles:
    """The cube decisions of a player with no chances to decide from: it never doubles, and it
    takes every double."""

    def offers_double(self, game: Game, cube: CubeState) -> bool:
        return False

    def takes(self, game: Game, cube: CubeState) -> bool:
        return True


@dataclass
class ChancesCube:
    """Cube decisions from six outcome chances of the side on roll (``chances(position)``, the
    dice still to roll) by Janowski's formulas (``cube.py``): the side on roll doubles when the
    decision is to double; the side doubled takes unless the doubler's double is a pass."""

    chances: Callable[[Position], np.ndarray]
    cube_life: float | None = None  # None: gnubg's for the position (position_cube_life)

    def _decision(self, game: Game, value: int, owner: int | None, score, jacoby: bool):
        chances = self.chances(game.position)
        chances[3] = 1.0 - chances[0]  # the head's two sigmoids need not add to one
        position = game.position
        life = self.cube_life
        if life is None:
            life = position_cube_life(position.mover, position.opponent)
        return analyse(chances, value, owner, score, jacoby, life).decision

    def offers_double(self, game: Game, cube: CubeState) -> bool:
        owner = None if cube.owner is None else 0
        return self._decision(game, cube.value, owner, cube.score, cube.jacoby).doubles

    def takes(self, game: Game, cube: CubeState) -> bool:
        # the doubler is on roll: its decision, with the cube as it was before the double
        # (centred at 1, else the doubler's own)
        before = cube.value // 2
        owner = None if before == 1 else 0
        return self._decision(game, before, owner, _swapped(cube.score), cube.jacoby).takes


def _swapped(score: MatchScore | None) -> MatchScore | None:
    if score is None:
        return None
    return MatchScore(score.away_opponent, score.away_me, score.crawford)


def network_cube(params: np.ndarray) -> ChancesCube:
    """Cube decisions from an outcome network's six chances at 0-ply."""
    from samuel.evaluation.outcomes import outcome_predictions

    def chances(position: Position) -> np.ndarray:
        found = outcome_predictions(RULES.number, params, position.encode()[None, :])[0]
        if not position.x_to_move:  # X's view: the side on roll is O
            found = np.concatenate([found[3:], found[:3]])
        return found.astype(np.float64)

    return ChancesCube(chances)


@dataclass
class HumanCube:
    """A human's cube decisions: asked with ``ask`` (``input``, by default)."""

    ask: Callable[[str], str] = input

    def _yes(self, question: str) -> bool:
        while True:
            answer = self.ask(question).strip().lower()
            if answer in ("y", "yes", "n", "no"):
                return answer.startswith("y")

    def offers_double(self, game: Game, cube: CubeState) -> bool:
        return self._yes(f"double to {2 * cube.value}? [y/n] ")

    def takes(self, game: Game, cube: CubeState) -> bool:
        return self._yes(f"your opponent doubles to {cube.value}: take? [y/n] ")


def cube_decider(player):
    """The object that makes ``player``'s cube decisions (the module's docstring says which)."""
    if callable(getattr(player, "offers_double", None)) and callable(
        getattr(player, "takes", None)
    ):
        return player
    from samuel.games.kernels import EVALUATOR_NETWORK
    from samuel.players import HumanPlayer, SearchPlayer

    if isinstance(player, HumanPlayer):
        return HumanCube(ask=player.read)
    if isinstance(player, SearchPlayer) and player.evaluator == EVALUATOR_NETWORK:
        from samuel.evaluation.outcomes import has_outcomes

        if has_outcomes(player.params):
            return network_cube(player.params)
    return NeverDoubles()


def play_game(
    players: Sequence,
    dice: np.random.Generator,
    cube_on: bool = True,
    match_length: int = 0,
    score: tuple[int, int] = (0, 0),
    crawford: bool = False,
    jacoby: bool = True,
    ply_cap: int = 10_000,
    after_move: Callable[[Game, object], None] | None = None,
    after_cube: Callable[[CubeAction], None] | None = None,
) -> GameResult:
    """Play one game between ``players`` (X's, O's), the dice from ``dice``: the opening throw,
    then each turn the cube (if ``cube_on``) and the play. In a match to ``match_length`` points
    at ``score`` (X's, O's), ``crawford``: this is the Crawford game; money play (0) follows the
    Jacoby rule if ``jacoby``. ``after_move`` is called after each play with the game and its
    player, ``after_cube`` after each cube action (to show them)."""
    deciders = [cube_decider(p) for p in players]
    first, roll = opening_throw(dice)
    game = Game(RULES, Position(START, START, first == X, roll), ply_cap=ply_cap)
    value, owner = 1, None
    actions: list[CubeAction] = []
    turn = 0
    while game.outcome is None:
        if game.chance_outcomes():
            side = X if game.position.x_to_move else O
            if cube_on and may_double(side, value, owner, match_length, score, crawford):
                state = seen_by(side, value, owner, match_length, score, crawford, jacoby)
                if deciders[side].offers_double(game, state):
                    _act(actions, CubeAction(turn, side, "double", 2 * value), after_cube)
                    other = 1 - side
                    state = seen_by(other, 2 * value, side, match_length, score, crawford, jacoby)
                    if not deciders[other].takes(game, state):
                        _act(actions, CubeAction(turn, other, "pass", 2 * value), after_cube)
                        return GameResult(side, value, game, actions, passed=True)
                    _act(actions, CubeAction(turn, other, "take", 2 * value), after_cube)
                    value, owner = 2 * value, other
            game.roll(dice)
            continue
        player = players[RULES.side_to_move(game.position)]
        game.play(player.choose_move(game))
        turn += 1
        if after_move is not None:
            after_move(game, player)
    outcome = game.outcome
    if outcome.winner is None:
        raise ValueError(f"the game reached the ply cap ({ply_cap}) unfinished")
    points = game_points(outcome.points, value, owner, match_length, jacoby)
    return GameResult(outcome.winner, points, game, actions)


def game_points(kind: int, value: int, owner, match_length: int = 0, jacoby: bool = True) -> int:
    """What a game borne off is worth: the cube's ``value`` times its kind's points (1, a
    gammon 2, a backgammon 3); in money play under the Jacoby rule, one while the cube was never
    turned."""
    if not match_length and jacoby and owner is None and value == 1:
        kind = 1  # Jacoby: no gammons while the cube was never turned
    return kind * value


def _act(actions: list[CubeAction], action: CubeAction, after_cube) -> None:
    actions.append(action)
    if after_cube is not None:
        after_cube(action)


def may_double(side, value, owner, match_length, score, crawford) -> bool:
    """Whether ``side`` may double now: the cube centred or its own, and in a match not the
    Crawford game nor a cube that already wins it the match."""
    if owner not in (None, side):
        return False
    if not match_length:
        return True
    return not crawford and value < match_length - score[side]


def seen_by(side, value, owner, match_length, score, crawford, jacoby) -> CubeState:
    """The cube as ``side`` sees it (owner "me" or "them"), for its decisions."""
    mine = None if owner is None else ("me" if owner == side else "them")
    match = None
    if match_length:
        match = MatchScore(
            match_length - score[side], match_length - score[1 - side], crawford=crawford
        )
    return CubeState(value, mine, match, jacoby)


@dataclass
class MatchResult:
    """A match: its games (each with the score, X's and O's, before it), and its winner."""

    length: int
    games: list[tuple[tuple[int, int], GameResult]]
    winner: int
    score: tuple[int, int]


def play_match(
    players: Sequence,
    length: int,
    dice: np.random.Generator,
    cube_on: bool = True,
    after_move: Callable[[Game, object], None] | None = None,
    after_cube: Callable[[CubeAction], None] | None = None,
    after_game: Callable[[tuple[int, int], GameResult], None] | None = None,
) -> MatchResult:
    """A match to ``length`` points between ``players`` (X's, O's): games until a side has
    ``length`` points; the game after a side first reaches ``length - 1`` is the Crawford game
    (no cube); a game's points beyond what its winner needs still count in the score.
    ``after_move`` and ``after_cube`` go to each game (:func:`play_game`), ``after_game`` is
    called with the score before each game and its result."""
    if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= 25:
        raise ValueError(f"a match is to 1-25 points, not {length!r}")
    score = [0, 0]
    games = []
    crawford_played = False
    while max(score) < length:
        crawford = not crawford_played and length - 1 in score and length > 1
        crawford_played = crawford_played or crawford
        before = (score[0], score[1])
        result = play_game(
            players,
            dice,
            cube_on,
            length,
            before,
            crawford,
            after_move=after_move,
            after_cube=after_cube,
        )
        games.append((before, result))
        if after_game is not None:
            after_game(before, result)
        score[result.winner] += result.points
    return MatchResult(length, games, X if score[X] >= length else O, (score[0], score[1]))
