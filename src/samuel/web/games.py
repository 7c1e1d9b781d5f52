"""The server's games: each one a :class:`~samuel.games.game.Game` with its players, an id and a
lock, kept in a :class:`GameStore`; and the engine's part, run in a worker thread.

Every change to a game happens on the event loop while its lock is held, and an engine search
holds the lock from the moment it starts until its move is played, so the move is computed
against the game as it stands and nothing can change the game meanwhile: a request that would
change it then is refused (409) instead of waiting.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from samuel.games.base import GameRules, Outcome
from samuel.games.game import Game
from samuel.games.record import format_record, record_from_game
from samuel.players import (
    HumanPlayer,
    Player,
    PlayerSpec,
    PlayerSpecError,
    SearchPlayer,
    ZeroPlayer,
    quoted,
)
from samuel.search.alphabeta import SearchResult
from samuel.search.describe import score_view
from samuel.search.puct import PuctResult
from samuel.web import schemas
from samuel.web.boards import WebGame, default_web
from samuel.web.dice import CubeQuestion, MoneyCube, decide_cube, dice_for
from samuel.web.specs import default_rules, player_for


class GameNotFound(LookupError):
    """No game has this id (it never existed, was deleted, or was dropped as the oldest)."""


class GameBusy(RuntimeError):
    """The engine is thinking for this game, so it cannot change now."""


class RequestRefused(ValueError):
    """A well-formed request that the game's state does not allow (no move to undo, a human's
    turn for the engine, ...)."""


class UnknownSide(ValueError):
    """Players named by a side the server's game does not have (a 422, as a body that does not
    fit the schema: the schema is the same for every game, the sides are not)."""


def check_player(
    spec: str,
    weights_dir: Path | None,
    tablebase_dir: Path | None = None,
    rules: GameRules | None = None,
) -> None:
    """Raise :class:`PlayerSpecError` unless ``spec`` names a player this server can make for
    ``rules``' game (the default game's by default; it reads the spec's files: call it in a
    worker thread)."""
    player_for(spec, weights_dir, tablebase_dir, rules=rules)


def check_sides(players: dict[str, str], web: WebGame) -> dict[str, str]:
    """Each side's player: ``players``, by the game's side names, and the game's default for
    a side left out. Raises :class:`UnknownSide` for a name that is no side of the game."""
    sides = web.rules.sides
    unknown = [side for side in players if side not in sides]
    if unknown:
        raise UnknownSide(
            f"players: {quoted(unknown[0])} is no side of {web.rules.title}; "
            f"its sides are {' and '.join(sides)}"
        )
    defaults = dict(zip(sides, web.default_players, strict=True))
    return {side: players.get(side, defaults[side]) for side in sides}


def describe_search(
    result: SearchResult | PuctResult, position, spec: str, rules: GameRules | None = None
) -> schemas.Search:
    """A search's result for people and pages: the first player's view (the tigers', Black's),
    in the game's words (``rules``, the default game's by default), as ``samuel analyse`` says
    it. A zero player's (PUCT) score is its expected result, -1..1, and its depth the length of
    its most visited line."""
    rules = default_rules() if rules is None else rules
    zero = isinstance(result, PuctResult)
    view = score_view(rules, result, position)
    first_view = view.value
    notation = rules.format_move
    line = [notation(rules.move_from_code(m)) for m in result.principal_variation]
    only_zero = {}
    if zero:
        only_zero = {
            "expected_result": round(first_view, 6),
            "simulations": result.simulations + result.reused,
        }
    return schemas.Search(
        player=spec,
        move=notation(rules.move_from_code(result.best_move)),
        score=round(first_view, 6),
        score_text=view.text,
        forced_winner=None if view.winner is None else rules.sides[view.winner],
        forced_plies=view.plies,
        depth=len(line) if zero else result.depth,
        nodes=result.nodes,
        seconds=round(result.seconds, 6),
        nodes_per_second=round(result.nodes / result.seconds, 1) if result.seconds > 0 else 0.0,
        principal_variation=line,
        **only_zero,
    )


def describe_outcome(
    outcome: Outcome, web: WebGame | None = None, points: int | None = None
) -> schemas.Outcome:
    """A finished game's end as data and in a sentence, in the game's words (``web``'s, the
    default game's by default); a game with dice says the ``points`` it is worth."""
    web = default_web() if web is None else web
    winner = None if outcome.winner is None else web.rules.sides[outcome.winner]
    return schemas.Outcome(
        winner=winner,
        result=outcome.result,
        reason=outcome.termination.value,
        message=web.outcome_message(outcome, points if outcome.winner is not None else None),
        points=points,
    )


def parse_start(text: str, rules: GameRules | None = None):
    """``'start'`` or a position string in ``rules``' notation (the default game's by default);
    raises :class:`NotationError` saying what is wrong."""
    rules = default_rules() if rules is None else rules
    text = text.strip()
    return rules.initial_position() if text == "start" else rules.parse_position(text)


@dataclass
class GameSession:
    """One game on the server: the game, who plays each side, and the engine's searches."""

    id: str
    game: Game
    players: dict[str, str]  # side -> spec
    seed: int
    searches: list[schemas.Search | None] = field(default_factory=list)  # one per move
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    tablebase: object | None = None  # a games.tigers.tablebase.probe.Tablebase: the true value
    client: str = ""  # the remote address that created it
    web: WebGame = field(default_factory=default_web)  # the game as the page shows it
    cube: MoneyCube | None = None  # backgammon's doubling cube (web/dice.py)

    @property
    def thinking(self) -> bool:
        return self.lock.locked()

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended: by its position, or by a double passed."""
        if self.game.outcome is not None:
            return self.game.outcome
        return None if self.cube is None else self.cube.outcome()

    def points(self) -> int | None:
        """A finished game with dice: what it is worth (the cube's value times its kind)."""
        outcome = self.outcome
        if outcome is None or not self.web.dice or outcome.winner is None:
            return None
        return outcome.points if self.cube is None else self.cube.points(outcome)

    def is_human(self, side: int) -> bool:
        return PlayerSpec.parse(self.players[self.web.rules.sides[side]]).name == "human"

    def cube_question(self) -> CubeQuestion | None:
        """What the cube waits for now, before the throw: a double, or its answer."""
        if self.cube is None or self.outcome is not None or not self.game.chance_outcomes():
            return None
        game = self.game
        if game.ply == 0 and game.start == game.rules.initial_position():
            return None  # the opening throw decides who moves first: nobody may double before
        return self.cube.question(game.ply, game.rules.side_to_move(game.position))

    def roll_if_due(self) -> bool:
        """Throw the dice if the game is at a chance node and nobody's cube decision waits;
        whether they were thrown. The same seed and ply, the same dice."""
        if not self.web.dice or self.outcome is not None or not self.game.chance_outcomes():
            return False
        if self.cube_question() is not None:
            return False
        self.game.roll(dice_for(self.seed, self.game.ply))
        self.searches.append(None)
        return True

    def answer_cube(self, question: CubeQuestion, yes: bool) -> None:
        """``question`` answered (by a person's action or an engine's decision)."""
        self.cube.answer(question, yes, self.game.ply)

    def cube_action(self, action: str) -> None:
        """A person's cube action: ``roll`` or ``double`` before the throw, ``take`` or
        ``pass`` a double offered; refused (and nothing changes) when it is not theirs now."""
        if self.thinking:
            raise GameBusy("the engine is thinking for this game; act after its move")
        if self.cube is None:
            raise RequestRefused(f"{self.web.rules.title} has no doubling cube")
        if self.outcome is not None:
            raise RequestRefused(f"the game is over ({self.outcome.termination.value})")
        question = self.cube_question()
        sides = self.web.rules.sides
        if question is not None and not self.is_human(question.side):
            raise RequestRefused(f"{self.who(sides[question.side])} is an engine here")
        wanted = {"roll": "double", "double": "double", "take": "take", "pass": "take"}[action]
        if question is None or question.kind != wanted:
            if wanted == "take":
                raise RequestRefused(f"there is no double to {action}: nobody has doubled")
            if question is not None:  # a double waits for its answer
                raise RequestRefused(
                    f"{self.who(sides[question.side])} must take or pass the double first"
                )
            if not self.game.chance_outcomes():
                raise RequestRefused(f"the dice are already thrown: {action} before the throw")
            owner = self.cube.owner
            whose = "centred" if owner is None else f"{self.who(sides[owner])}'s"
            raise RequestRefused(
                f"{self.who(self.side_to_move)} may not double: the cube is {whose}"
            )
        self.answer_cube(question, action in ("double", "take"))

    def check_decision(self, what: str) -> None:
        """Refuse ``what`` (a move, an engine move) while a cube decision waits or a double
        was passed."""
        if self.cube is None:
            return
        if self.cube.passed is not None:
            raise RequestRefused(f"the game is over ({self.outcome.termination.value}): no {what}")
        question = self.cube_question()
        if question is not None:
            sides = self.web.rules.sides
            ask = "take or pass the double" if question.kind == "take" else "double or roll"
            raise RequestRefused(
                f"{self.who(sides[question.side])} must {ask} first (POST /api/games/"
                f"{self.id}/cube)"
            )

    @property
    def side_to_move(self) -> str:
        return self.web.rules.sides[self.game.rules.side_to_move(self.game.position)]

    def who(self, side: str) -> str:
        """A side as a sentence names it: "the tigers", "Black"."""
        return self.web.side_phrases[self.web.rules.sides.index(side)]

    def seed_for(self, side: str) -> int:
        """Each side's engine gets its own seed, as in ``samuel play``."""
        return self.seed + self.web.rules.sides.index(side)

    def play(self, text: str) -> None:
        """Play a move given in notation; raises and changes nothing if it is malformed or not
        legal now."""
        if self.thinking:
            raise GameBusy(
                f"the engine is thinking for {self.who(self.side_to_move)}; wait for its move"
            )
        self.check_decision("move")
        move = self.web.parse_move(self.game.position, text)
        if self.game.chance_outcomes():
            raise RequestRefused("the server throws the dice: there is nothing to play yet")
        self.game.play(move)
        self.searches.append(None)

    def undo(self, plies: int) -> None:
        if self.thinking:
            raise GameBusy("the engine is thinking; take moves back after its move")
        if plies > self.game.ply:
            have = "no moves" if self.game.ply == 0 else f"only {self.game.ply} move(s)"
            raise RequestRefused(f"cannot take back {plies} move(s): the game has {have}")
        for _ in range(plies):
            self.game.undo()
            self.searches.pop()
        if self.cube is not None:
            self.cube.take_back_to(self.game.ply)

    def engine_spec(self, override: str | None) -> str:
        """The spec of the engine to move now: ``override``, or the side to move's player."""
        if self.outcome is not None:
            raise RequestRefused(
                f"the game is over ({self.outcome.termination.value}): there is no move"
            )
        self.check_decision("move")
        if self.game.chance_outcomes():
            raise RequestRefused("the dice are still to be thrown: there is nothing to play")
        spec = override if override is not None else self.players[self.side_to_move]
        if override is None and PlayerSpec.parse(spec).name == "human":
            who = self.who(self.side_to_move)
            verb = "are" if self.web.plural_sides else "is"
            raise RequestRefused(
                f"{who} {verb} played by a human in this game; give 'player' to ask an engine "
                f"to move for {'them' if self.web.plural_sides else who}"
            )
        return spec

    def state(self) -> schemas.GameState:
        game, position, web = self.game, self.game.position, self.web
        rules, sides = game.rules, web.rules.sides
        moves = []
        last_move = None
        for i, (move, search) in enumerate(zip(game.moves, self.searches, strict=True)):
            side = sides[rules.side_to_move(game.positions[i])]
            notation = rules.format_move(move)
            roll = bool(rules.chance_outcomes(game.positions[i])) if web.dice else None
            moves.append(
                schemas.PlayedMove(ply=i + 1, side=side, move=notation, search=search, roll=roll)
            )
            if not roll:
                last_move = (move, game.positions[i])
        finished = self.outcome is not None
        legal = [] if finished else [web.move_path(m, position) for m in game.legal_moves()]
        dice = getattr(position, "dice", None) if web.dice else None
        return schemas.GameState(
            id=self.id,
            game=web.name,
            position=rules.format_position(position),
            start=rules.format_position(game.start),
            side_to_move=self.side_to_move,
            board=web.board(position),
            **web.extra_fields(position),
            ply=game.ply,
            moves=moves,
            legal_moves=[path.move for path in legal],
            legal_move_paths=legal,
            last_move=None if last_move is None else web.move_path(*last_move),
            players=dict(self.players),
            ply_cap=game.ply_cap,
            seed=self.seed,
            outcome=None if not finished else describe_outcome(self.outcome, web, self.points()),
            thinking=self.thinking,
            record=f"/api/games/{self.id}/record",
            true_value=self.true_value(),
            dice=None if dice is None else [dice.high, dice.low],
            cube=self.cube_view(),
        )

    def cube_view(self) -> schemas.CubeView | None:
        cube = self.cube
        if cube is None:
            return None
        sides = self.web.rules.sides
        question = self.cube_question()
        asked = question is not None and self.is_human(question.side)
        return schemas.CubeView(
            value=cube.value,
            owner=None if cube.owner is None else sides[cube.owner],
            offered_by=None if cube.offered_by is None else sides[cube.offered_by],
            decision=question.kind if asked else None,
            decider=sides[question.side] if asked else None,
            jacoby=cube.jacoby,
            actions=[
                schemas.CubeActionView(
                    ply=a.ply, side=sides[a.side], action=a.action, value=a.value
                )
                for a in cube.actions
            ],
        )

    def true_value(self) -> schemas.TrueValue | None:
        """The tablebase's value of the position, while the game goes on with the hand empty."""
        position = self.game.position
        if self.tablebase is None or self.game.outcome is not None:
            return None
        if not self.tablebase.covers(position):
            return None
        outcome, plies = self.tablebase.value(position)  # the side to move's view
        result = outcome if self.game.rules.side_to_move(position) == 0 else -outcome
        if result == 0:
            return schemas.TrueValue(result=0, plies=0, text="a draw with perfect play")
        winner = self.web.rules.sides[0] if result > 0 else self.web.rules.sides[1]
        unit = "ply" if plies == 1 else "plies"
        return schemas.TrueValue(result=result, plies=plies, text=f"{winner} win in {plies} {unit}")

    def record(self) -> str:
        """The game so far as a record (docs/records.md)."""
        return format_record(record_from_game(self.game, players=self.players))


class PlayerPool:
    """Players kept between searches, so that a search reuses its player's tables: making them
    takes about 6 ms, forty times a whole depth-3 search. A search's result does not depend on
    the searches before it (each starts with fresh ordering tables, and the transposition
    table ignores entries of earlier searches), so a reused player plays as a new one would.

    Thread-safe. A player is lent to one search at a time; at most ``size`` are kept idle.
    """

    def __init__(
        self,
        weights_dir: Path | None,
        size: int = 16,
        tablebase_dir: Path | None = None,
        models_dir: Path | None = None,
    ) -> None:
        self.weights_dir = weights_dir
        self.tablebase_dir = tablebase_dir
        self.models_dir = models_dir  # a pipeline's models, which network specs may read
        self.size = size
        self._idle: dict[tuple, list[Player]] = {}
        self._count = 0
        self._lock = threading.Lock()

    @contextmanager
    def lend(
        self,
        spec: str,
        seed: int,
        depth: int | None = None,
        seconds: float | None = None,
        rules: GameRules | None = None,
    ) -> Iterator[Player]:
        """A player of ``rules``' game (the default game's by default) for ``spec`` with
        ``seed``, for the duration of the ``with`` block."""
        rules = default_rules() if rules is None else rules
        key = (rules.name, spec, depth, seconds)
        with self._lock:
            idle = self._idle.get(key)
            player = idle.pop() if idle else None
            self._count -= player is not None
        if player is None:
            player = player_for(
                spec,
                self.weights_dir,
                self.tablebase_dir,
                seed,
                depth=depth,
                seconds=seconds,
                rules=rules,
                models_dir=self.models_dir,
            )
        spec_seed = PlayerSpec.parse(spec).get("seed") is not None  # the spec's own seed wins
        if hasattr(player, "seed") and not spec_seed:
            player.seed = seed  # the players that draw random numbers draw them from their seed
        try:
            yield player
        finally:
            with self._lock:
                if self._count < self.size:
                    self._idle.setdefault(key, []).append(player)
                    self._count += 1


def choose_engine_move(
    game: Game, spec: str, seed: int, pool: PlayerPool
) -> tuple[object, schemas.Search | None]:
    """The engine's move in ``game`` and its search (None for a player that does not search,
    or that played a random move). Runs in a worker thread: it reads the game, never changes
    it."""
    with pool.lend(spec, seed, rules=game.rules) as player:
        if isinstance(player, HumanPlayer):
            raise PlayerSpecError(
                f"{quoted(spec)} is a person, not an engine: it cannot be asked to move"
            )
        if hasattr(player, "last"):
            player.last = None
        if hasattr(player, "forget"):
            player.forget()  # a lent player plays as a new one: no tree kept from another game
        move = player.choose_move(game)
        last = getattr(player, "last", None)
    search = (
        describe_search(last, game.position, spec, game.rules)
        if isinstance(last, SearchResult | PuctResult)
        else None
    )
    return move, search


def choose_cube_answer(
    game: Game, spec: str, seed: int, pool: PlayerPool, cube: MoneyCube, question: CubeQuestion
) -> bool:
    """An engine's cube decision (``question``: does it double, does it take). Runs in a worker
    thread: it reads the game, never changes it."""
    with pool.lend(spec, seed, rules=game.rules) as player:
        return decide_cube(player, game, cube, question)


def analyse(
    game: Game,
    spec: str,
    depth: int | None,
    seconds: float | None,
    seed: int,
    pool: PlayerPool,
) -> schemas.Analysis:
    """Search ``game``'s current position (its history counts for repetition). Runs in a
    worker thread and does not change the game; raises :class:`PlayerSpecError` for a player
    that does not search."""
    if game.outcome is not None:
        raise RequestRefused(
            f"the game is already over in this position: {game.outcome.termination.value}"
        )
    with pool.lend(spec, seed, depth=depth, seconds=seconds, rules=game.rules) as player:
        if not isinstance(player, SearchPlayer | ZeroPlayer):
            raise PlayerSpecError(
                f"{quoted(spec)} does not search; analysing needs a searching player"
            )
        if isinstance(player, ZeroPlayer):
            player.forget()  # no tree of another game
        result = player.search(game)
    search = describe_search(result, game.position, spec, game.rules)
    position = game.rules.format_position(game.position)
    return schemas.Analysis(position=position, **search.model_dump())


class GameStore:
    """The games in play, by id. Holds at most ``capacity``: past that, the game left alone
    longest (and not thinking) is dropped, so a public server's memory stays bounded. One client
    (a remote address) holds at most ``per_client`` of them: a client past that loses its own
    game left alone longest, so no client can push everyone else's games out by creating new
    ones (at most ``per_client`` of theirs go, the oldest)."""

    def __init__(
        self,
        capacity: int = 1000,
        tablebase=None,
        per_client: int = 100,
        web: WebGame | None = None,
    ) -> None:
        web = default_web() if web is None else web
        if capacity < 1 or per_client < 1:
            raise ValueError(f"the store must hold a game, not {capacity} ({per_client} a client)")
        self.web = web  # the one game this store's games are of
        self.capacity = capacity
        self.per_client = per_client
        self.tablebase = tablebase  # shown as each game's true value once the hand is empty
        self._games: OrderedDict[str, GameSession] = OrderedDict()

    def __len__(self) -> int:
        return len(self._games)

    def create(
        self,
        players: dict[str, str],
        start,
        ply_cap: int | None,
        seed: int | None,
        client: str = "",
    ) -> GameSession:
        """A new game from ``start`` (already parsed) for ``client``; the specs must have been
        checked. Drops the client's own game left alone longest if it holds ``per_client``
        already, then the store's if it is over capacity (never one the engine thinks for)."""
        game_id = secrets.token_urlsafe(9)
        while game_id in self._games:  # pragma: no cover - 72 random bits
            game_id = secrets.token_urlsafe(9)
        session = GameSession(
            id=game_id,
            game=Game(self.web.rules, start=start, ply_cap=ply_cap),
            players=dict(players),
            seed=secrets.randbelow(2**31) if seed is None else seed,
            tablebase=self.tablebase,
            client=client,
            web=self.web,
            cube=None if self.web.cube is None else MoneyCube(self.web.cube),
        )
        own = [key for key, game in self._games.items() if game.client == client]
        for game_id_to_drop in own[: max(0, len(own) + 1 - self.per_client)]:
            if not self._games[game_id_to_drop].thinking:
                del self._games[game_id_to_drop]
        self._games[game_id] = session
        self._drop_oldest()
        return session

    def get(self, game_id: str) -> GameSession:
        session = self._games.get(game_id)
        if session is None:
            raise GameNotFound(
                f"there is no game {quoted(game_id)} (start one with POST /api/games; "
                "games left alone longest are dropped once the server holds too many)"
            )
        self._games.move_to_end(game_id)  # the least recently used game is dropped first
        return session

    def delete(self, game_id: str) -> None:
        session = self.get(game_id)
        if session.thinking:
            raise GameBusy("the engine is thinking for this game; delete it after its move")
        del self._games[game_id]

    def _drop_oldest(self) -> None:
        for game_id in list(self._games):
            if len(self._games) <= self.capacity:
                return
            if not self._games[game_id].thinking:
                del self._games[game_id]


__all__ = [
    "GameBusy",
    "GameNotFound",
    "GameSession",
    "GameStore",
    "PlayerPool",
    "RequestRefused",
    "UnknownSide",
    "analyse",
    "check_player",
    "check_sides",
    "choose_cube_answer",
    "choose_engine_move",
    "describe_outcome",
    "describe_search",
    "parse_start",
    "player_for",
]
