"""Players, and the spec strings that name them everywhere (play, analyse, match, train, serve).

A spec is a name with options: ``human``, ``random``, ``classic:depth=4``,
``classic:depth=6,time=2``, ``classic:weights=tuned.json``. Options are separated by ``,`` or
``:``. Every random choice a player makes comes from its seed and the ply, so the same seeds give
the same game.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from samuel.errors import SamuelError
from samuel.games import kernels as game_kernels
from samuel.games.base import GameRules, IllegalMoveError, NotationError
from samuel.games.game import Game
from samuel.search.alphabeta import MAX_PLY, Searcher, SearchResult
from samuel.seeds import derive_seed

DEFAULT_DEPTH = 4
PLAYER_NAMES = ("human", "random", "classic", "net", "FILE.bin", "hybrid", "perfect")
SEARCH_OPTIONS = "depth=N,time=SECONDS,epsilon=P,seed=N,tablebase=DIR"
SPEC_HELP = (
    f"human | random | classic[:{SEARCH_OPTIONS},weights=FILE.json] | "
    f"net[:{SEARCH_OPTIONS}] (the shipped network) | FILE.bin[:{SEARCH_OPTIONS}] "
    "(a trained network) | "
    f"hybrid[:{SEARCH_OPTIONS},net=FILE.bin,scale=S,weights=FILE.json] "
    "(classic + S x network) | "
    f"perfect[:{SEARCH_OPTIONS}] (classic, playing from the tablebase, by default "
    "tablebase/: perfect once the hand is empty)"
)
# The network shipped with the package: the best of the documented training run.
SHIPPED_NETWORK = Path(__file__).parent / "nn" / "shipped.bin"


class PlayerSpecError(SamuelError, ValueError):
    """A player spec that names no player, or gives a bad option."""


class Resigned(Exception):
    """A human player chose to stop the game."""


class Player(Protocol):
    spec: str

    def choose_move(self, game: Game):
        """The move to play in ``game``'s current position (which is not over)."""
        ...


def move_seed(seed: int, ply: int) -> int:
    """A seed for one move, derived from the player's seed and the ply, never from a worker."""
    return derive_seed(seed, ply)


@dataclass
class RandomPlayer:
    """Plays a uniformly random legal move."""

    seed: int = 0
    spec: str = "random"

    def choose_move(self, game: Game):
        moves = game.legal_moves()
        rng = np.random.default_rng([self.seed & 0xFFFFFFFFFFFFFFFF, game.ply])
        return moves[int(rng.integers(len(moves)))]


@dataclass
class SearchPlayer:
    """Alpha-beta search with a pluggable evaluation, to a depth or for a time per move.

    With ``epsilon`` > 0 it plays a random legal move instead with that probability.
    """

    rules: GameRules
    evaluator: int
    params: np.ndarray
    depth: int = DEFAULT_DEPTH
    seconds: float | None = None
    epsilon: float = 0.0
    seed: int = 0
    spec: str = "classic"
    tablebase: object | None = None  # a samuel.tablebase.probe.Tablebase the search probes
    last: SearchResult | None = field(default=None, repr=False)
    _searcher: Searcher | None = field(default=None, repr=False)

    def search(self, game: Game) -> SearchResult:
        if self._searcher is None:
            self._searcher = Searcher(self.rules.kernel_id)
        self.last = self._searcher.search(
            self.rules.encode(game.position),
            game.history_keys(),
            game.window_start,
            self.evaluator,
            self.params,
            self.depth,
            self.seconds,
            move_seed(self.seed, game.ply),
            None if self.tablebase is None else self.tablebase.layers,
        )
        return self.last

    def choose_move(self, game: Game):
        if self.epsilon > 0:
            rng = np.random.default_rng([self.seed & 0xFFFFFFFFFFFFFFFF, game.ply, 1])
            if rng.random() < self.epsilon:
                self.last = None
                moves = game.legal_moves()
                return moves[int(rng.integers(len(moves)))]
        return self.rules.move_from_code(self.search(game).best_move)


@dataclass
class HumanPlayer:
    """Asks a person for moves at the terminal; explains bad ones and asks again."""

    read: Callable[[str], str] = input
    write: Callable[[str], None] = print
    spec: str = "human"

    def choose_move(self, game: Game):
        rules = game.rules
        side = rules.sides[rules.side_to_move(game.position)]
        while True:
            try:
                text = self.read(f"{side} to move (a move, 'moves', 'help' or 'quit'): ").strip()
            except EOFError:
                raise Resigned from None
            if text in ("quit", "resign", "exit"):
                raise Resigned
            if text in ("moves", "?", "legal"):
                self.write(
                    "legal moves: " + " ".join(rules.format_move(m) for m in game.legal_moves())
                )
                continue
            if text in ("help", "h"):
                self.write(
                    "type a placement as c3, a step as a1-b2, a jump as a1xc3; "
                    "'moves' lists the legal moves; 'quit' stops the game"
                )
                continue
            if not text:
                continue
            try:
                move = rules.parse_move(text)
                rules.play(game.position, move)  # checks legality, changes nothing
                return move
            except (NotationError, IllegalMoveError) as error:
                self.write(f"{error} (type 'moves' for the legal moves)")


def _parse_options(name: str, text: str) -> dict[str, str]:
    options: dict[str, str] = {}
    for part in text.replace(":", ",").split(","):
        if not part:
            continue
        key, sep, value = part.partition("=")
        if not sep or not key or not value:
            raise PlayerSpecError(
                f"player option {part!r} of {name!r} is not KEY=VALUE; players are: {SPEC_HELP}"
            )
        options[key.strip()] = value.strip()
    return options


def _number(options: dict[str, str], key: str, kind, spec: str, low, high):
    if key not in options:
        return None
    try:
        value = kind(options.pop(key))
    except ValueError:
        raise PlayerSpecError(f"{spec!r}: {key} must be a {kind.__name__}") from None
    if not (low <= value <= high) or (isinstance(value, float) and not math.isfinite(value)):
        raise PlayerSpecError(f"{spec!r}: {key} must be between {low} and {high}, not {value}")
    return value


def _evaluation(name: str, options: dict[str, str], rules: GameRules) -> tuple[int, np.ndarray]:
    """The evaluator number and parameters a searching player's name asks for."""
    from samuel.games.tigers.classic import WeightsError
    from samuel.nn.weights import WeightsFileError, load_parameters

    if name == "classic":
        try:
            return game_kernels.EVALUATOR_CLASSIC, rules.classic_weights(
                options.pop("weights", None)
            )
        except WeightsError as error:
            raise PlayerSpecError(str(error)) from None
    if name == "hybrid":
        from samuel.games.tigers.hybrid import DEFAULT_SCALE, hybrid_parameters

        scale = _number(options, "scale", float, name, -1e3, 1e3)
        _, classic_weights = _evaluation("classic", options, rules)
        path = Path(options.pop("net", SHIPPED_NETWORK))
        if not path.exists() and path == SHIPPED_NETWORK:
            raise PlayerSpecError(
                "no network is shipped with this install; give the hybrid one: hybrid:net=FILE.bin"
            )
        try:
            network_params = load_parameters(path)
        except WeightsFileError as error:
            raise PlayerSpecError(str(error)) from None
        scale = DEFAULT_SCALE if scale is None else scale
        return game_kernels.EVALUATOR_HYBRID, hybrid_parameters(
            scale, classic_weights, network_params
        )
    path = SHIPPED_NETWORK if name == "net" else Path(name)
    if name == "net" and not path.exists():
        raise PlayerSpecError(
            "no network is shipped with this install; name a weights file "
            "(e.g. weights/latest.bin) instead of 'net'"
        )
    try:
        return game_kernels.EVALUATOR_NETWORK, load_parameters(path)
    except WeightsFileError as error:
        raise PlayerSpecError(str(error)) from None


def _tablebase(directory: str, rules: GameRules, spec: str):
    """The tablebase a searching player probes, checked against the rules it plays."""
    from samuel.tablebase.files import TablebaseError
    from samuel.tablebase.probe import load_tablebase

    try:
        table = load_tablebase(directory)
    except TablebaseError as error:
        raise PlayerSpecError(f"{spec!r}: {error}") from None
    if getattr(rules, "captures_to_win", None) != table.captures_to_win:
        raise PlayerSpecError(
            f"{spec!r}: {directory} is the tablebase of the game won by "
            f"{table.captures_to_win} captures, not of {rules!r}"
        )
    return table


def make_player(
    spec: str,
    rules: GameRules,
    depth: int | None = None,
    seconds: float | None = None,
    seed: int = 0,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    tablebase: str | None = None,
) -> Player:
    """The player a spec names. ``depth``, ``seconds``, ``seed`` and ``tablebase`` (a tablebase
    directory for searching players) are defaults that the spec's own options override. Raises
    :class:`PlayerSpecError` with the valid choices."""
    name, _, rest = spec.strip().partition(":")
    options = _parse_options(name, rest)
    spec_seed = _number(options, "seed", int, spec, 0, 2**63 - 1)
    seed = seed if spec_seed is None else spec_seed
    if name == "human":
        player: Player = HumanPlayer(read=read, write=write, spec=spec)
    elif name == "random":
        player = RandomPlayer(seed=seed, spec=spec)
    elif name in ("classic", "net", "hybrid", "perfect") or name.endswith(".bin"):
        evaluator, params = _evaluation("classic" if name == "perfect" else name, options, rules)
        directory = options.pop("tablebase", None) or tablebase
        if name == "perfect" and directory is None:
            directory = "tablebase"  # samuel.tablebase.probe.DEFAULT_DIRECTORY
        spec_depth = _number(options, "depth", int, spec, 1, MAX_PLY - 1)
        spec_time = _number(options, "time", float, spec, 1e-3, 1e6)
        epsilon = _number(options, "epsilon", float, spec, 0.0, 1.0) or 0.0
        timed = spec_time is not None or seconds is not None  # then depth only caps the search
        player = SearchPlayer(
            rules=rules,
            evaluator=evaluator,
            params=params,
            depth=spec_depth or depth or (MAX_PLY - 1 if timed else DEFAULT_DEPTH),
            seconds=spec_time if spec_time is not None else seconds,
            epsilon=epsilon,
            seed=seed,
            spec=spec,
            tablebase=None if directory is None else _tablebase(directory, rules, spec),
        )
    else:
        raise PlayerSpecError(f"unknown player {spec!r}; players are: {SPEC_HELP}")
    if options:
        raise PlayerSpecError(
            f"{spec!r}: unknown option(s) {', '.join(sorted(options))} for "
            f"{name}; players are: {SPEC_HELP}"
        )
    return player
