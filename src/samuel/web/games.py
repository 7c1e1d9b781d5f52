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

from samuel.games.base import Outcome
from samuel.games.game import Game
from samuel.games.record import format_record, record_from_game
from samuel.games.tigers.rules import RULES, Move, Position, point_name
from samuel.players import HumanPlayer, Player, PlayerSpec, PlayerSpecError, SearchPlayer, quoted
from samuel.search.alphabeta import SearchResult
from samuel.web import schemas
from samuel.web.specs import player_for

SIDES = RULES.sides  # ("tigers", "sheep"): index 0 is the first player, whose view scores take


class GameNotFound(LookupError):
    """No game has this id (it never existed, was deleted, or was dropped as the oldest)."""


class GameBusy(RuntimeError):
    """The engine is thinking for this game, so it cannot change now."""


class RequestRefused(ValueError):
    """A well-formed request that the game's state does not allow (no move to undo, a human's
    turn for the engine, ...)."""


def check_player(spec: str, weights_dir: Path | None, tablebase_dir: Path | None = None) -> None:
    """Raise :class:`PlayerSpecError` unless ``spec`` names a player this server can make (it
    reads the spec's files: call it in a worker thread)."""
    player_for(spec, weights_dir, tablebase_dir)


def describe_search(result: SearchResult, position: Position, spec: str) -> schemas.Search:
    """A search's result for people and pages: the tigers' view, as ``samuel analyse`` says it."""
    side = RULES.side_to_move(position)  # 0: the tigers, whose view scores take
    tigers_view = result.score if side == 0 else -result.score
    plies = result.forced_plies
    winner = None
    if plies is not None:
        winner = SIDES[0] if tigers_view > 0 else SIDES[1]
        text = f"{winner} win in {plies} {'ply' if plies == 1 else 'plies'}"
    else:
        text = f"{tigers_view:+.3f} ({SIDES[0]}' view)"
    return schemas.Search(
        player=spec,
        move=str(Move.from_code(result.best_move)),
        score=round(tigers_view, 6),
        score_text=text,
        forced_winner=winner,
        forced_plies=plies,
        depth=result.depth,
        nodes=result.nodes,
        seconds=round(result.seconds, 6),
        nodes_per_second=round(result.nodes_per_second, 1),
        principal_variation=[str(Move.from_code(m)) for m in result.principal_variation],
    )


def describe_outcome(outcome: Outcome) -> schemas.Outcome:
    winner = None if outcome.winner is None else SIDES[outcome.winner]
    reason = outcome.termination.value
    message = f"A draw: {reason}." if winner is None else f"The {winner} win: {reason}."
    return schemas.Outcome(winner=winner, result=outcome.result, reason=reason, message=message)


def parse_start(text: str) -> Position:
    """``'start'`` or a position string; raises :class:`NotationError` saying what is wrong."""
    text = text.strip()
    return RULES.initial_position() if text == "start" else RULES.parse_position(text)


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

    @property
    def thinking(self) -> bool:
        return self.lock.locked()

    @property
    def side_to_move(self) -> str:
        return SIDES[RULES.side_to_move(self.game.position)]

    def seed_for(self, side: str) -> int:
        """Each side's engine gets its own seed, as in ``samuel play``."""
        return self.seed + SIDES.index(side)

    def play(self, text: str) -> None:
        """Play a move given in notation; raises and changes nothing if it is malformed or not
        legal now."""
        if self.thinking:
            raise GameBusy(f"the engine is thinking for the {self.side_to_move}; wait for its move")
        move = RULES.parse_move(text)
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

    def engine_spec(self, override: str | None) -> str:
        """The spec of the engine to move now: ``override``, or the side to move's player."""
        if self.game.outcome is not None:
            raise RequestRefused(
                f"the game is over ({self.game.outcome.termination.value}): there is no move"
            )
        spec = override if override is not None else self.players[self.side_to_move]
        if override is None and PlayerSpec.parse(spec).name == "human":
            raise RequestRefused(
                f"the {self.side_to_move} are played by a human in this game; "
                "give 'player' to ask an engine to move for them"
            )
        return spec

    def state(self) -> schemas.GameState:
        game, position = self.game, self.game.position
        moves = []
        for i, (move, search) in enumerate(zip(game.moves, self.searches, strict=True)):
            side = SIDES[RULES.side_to_move(game.positions[i])]
            moves.append(schemas.PlayedMove(ply=i + 1, side=side, move=str(move), search=search))
        return schemas.GameState(
            id=self.id,
            position=str(position),
            start=str(game.start),
            side_to_move=self.side_to_move,
            tigers=[point_name(p) for p in range(25) if (position.tigers >> p) & 1],
            sheep=[point_name(p) for p in range(25) if (position.sheep >> p) & 1],
            sheep_in_hand=position.sheep_in_hand,
            captured=position.captured,
            ply=game.ply,
            moves=moves,
            legal_moves=[str(m) for m in game.legal_moves()],
            players=schemas.Players(**self.players),
            ply_cap=game.ply_cap,
            seed=self.seed,
            outcome=None if game.outcome is None else describe_outcome(game.outcome),
            thinking=self.thinking,
            record=f"/api/games/{self.id}/record",
            true_value=self.true_value(),
        )

    def true_value(self) -> schemas.TrueValue | None:
        """The tablebase's value of the position, while the game goes on with the hand empty."""
        position = self.game.position
        if self.tablebase is None or self.game.outcome is not None:
            return None
        if not self.tablebase.covers(position):
            return None
        outcome, plies = self.tablebase.value(position)  # the side to move's view
        result = outcome if RULES.side_to_move(position) == 0 else -outcome
        if result == 0:
            return schemas.TrueValue(result=0, plies=0, text="a draw with perfect play")
        winner = SIDES[0] if result > 0 else SIDES[1]
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
        self, weights_dir: Path | None, size: int = 16, tablebase_dir: Path | None = None
    ) -> None:
        self.weights_dir = weights_dir
        self.tablebase_dir = tablebase_dir
        self.size = size
        self._idle: dict[tuple, list[Player]] = {}
        self._count = 0
        self._lock = threading.Lock()

    @contextmanager
    def lend(
        self, spec: str, seed: int, depth: int | None = None, seconds: float | None = None
    ) -> Iterator[Player]:
        """A player for ``spec`` with ``seed``, for the duration of the ``with`` block."""
        key = (spec, depth, seconds)
        with self._lock:
            idle = self._idle.get(key)
            player = idle.pop() if idle else None
            self._count -= player is not None
        if player is None:
            player = player_for(
                spec, self.weights_dir, self.tablebase_dir, seed, depth=depth, seconds=seconds
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
) -> tuple[Move, schemas.Search | None]:
    """The engine's move in ``game`` and its search (None for a player that does not search,
    or that played a random move). Runs in a worker thread: it reads the game, never changes
    it."""
    with pool.lend(spec, seed) as player:
        if isinstance(player, HumanPlayer):
            raise PlayerSpecError(
                f"{quoted(spec)} is a person, not an engine: it cannot be asked to move"
            )
        if hasattr(player, "last"):
            player.last = None
        move = player.choose_move(game)
        last = getattr(player, "last", None)
    search = describe_search(last, game.position, spec) if isinstance(last, SearchResult) else None
    return move, search


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
    with pool.lend(spec, seed, depth=depth, seconds=seconds) as player:
        if not isinstance(player, SearchPlayer):
            raise PlayerSpecError(
                f"{quoted(spec)} does not search; analysing needs a searching player"
            )
        result = player.search(game)
    search = describe_search(result, game.position, spec)
    return schemas.Analysis(position=str(game.position), **search.model_dump())


def copy_game(game: Game) -> Game:
    """An independent copy of ``game`` (same start, moves and ply cap)."""
    copy = Game(game.rules, start=game.start, ply_cap=game.ply_cap)
    for move in game.moves:
        copy.play(move)
    return copy


class GameStore:
    """The games in play, by id. Holds at most ``capacity``: past that, the game left alone
    longest (and not thinking) is dropped, so a public server's memory stays bounded. One client
    (a remote address) holds at most ``per_client`` of them: a client past that loses its own
    game left alone longest, so no client can push everyone else's games out by creating new
    ones (at most ``per_client`` of theirs go, the oldest)."""

    def __init__(self, capacity: int = 1000, tablebase=None, per_client: int = 100) -> None:
        if capacity < 1 or per_client < 1:
            raise ValueError(f"the store must hold a game, not {capacity} ({per_client} a client)")
        self.capacity = capacity
        self.per_client = per_client
        self.tablebase = tablebase  # shown as each game's true value once the hand is empty
        self._games: OrderedDict[str, GameSession] = OrderedDict()

    def __len__(self) -> int:
        return len(self._games)

    def create(
        self,
        players: dict[str, str],
        start: Position,
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
            game=Game(RULES, start=start, ply_cap=ply_cap),
            players=dict(players),
            seed=secrets.randbelow(2**31) if seed is None else seed,
            tablebase=self.tablebase,
            client=client,
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
    "analyse",
    "check_player",
    "choose_engine_move",
    "copy_game",
    "describe_outcome",
    "describe_search",
    "parse_start",
    "player_for",
]
