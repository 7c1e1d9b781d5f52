"""Players, and the spec strings that name them everywhere (play, analyse, match, train, serve).

A spec is a name with options: ``human``, ``random``, ``classic:depth=4``,
``classic:depth=6,time=2``, ``classic:weights=tuned.json``. Options are separated by ``,`` or
``:``; a name or value holding either (a path such as ``my:file.json``) is written in double
quotes, ``classic:weights="my:file.json"``, with ``""`` for a quote inside. A spec is parsed once,
into a :class:`PlayerSpec`, which also says which files it names (:meth:`PlayerSpec.files`), so a
server can confine them. Every random choice a player makes comes from its seed and the ply, so the
same seeds give the same game.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

import numpy as np

from samuel.errors import SamuelError
from samuel.games import descriptor_of, descriptors
from samuel.games import kernels as game_kernels
from samuel.games.base import GameRules
from samuel.games.game import Game
from samuel.search.alphabeta import MAX_PLY, Searcher, SearchResult
from samuel.search.plied import MAX_PLIES, PliedSearcher
from samuel.search.puct import PuctResult, PuctSearch, PuctSettings, smallest_tree
from samuel.seeds import derive_seed

DEFAULT_DEPTH = 4
PLAYER_NAMES = (
    "human",
    "random",
    "classic",
    "net",
    "FILE.bin",
    "hybrid",
    "perfect",
    "spiel-mcts",
    "spiel-ab",
    "zero",
)
SPIEL_PLAYERS = ("spiel-mcts", "spiel-ab")  # OpenSpiel's bots: samuel.spiel.bots
SEARCH_OPTIONS = "depth=N,time=SECONDS,epsilon=P,seed=N,tablebase=DIR"
# A game with dice may be searched as gnubg searches it instead: samuel.search.plied.
PLIED_OPTIONS = "ply=N,candidates=K,threshold=T"
MOVES_LEFT_OPTIONS = "moves_left=on|off,ml_threshold=T,ml_max=E,ml_slope=S"
ZERO_OPTIONS = (
    "sims=N,time=SECONDS,cpuct=C,fpu=F,seed=S,noise=FRACTION,alpha=A,temp=T,temp_plies=N,"
    "moves_left=on|off,ml_factor=F,ml_scale=PLIES,ml_threshold=T,reuse=on|off,solver=on|off,"
    "minimax=W,tablebase=DIR,SIDE_net=FILE.bin"
)
MAX_ZERO_SIMULATIONS = 1_000_000  # a move of a million simulations takes minutes; enough
MAX_TREE_NODES = 1 << 22  # the zero player's largest tree (about 400 MB); a full one stops
# Nodes the zero player's tree holds per simulation: a simulation adds one node's children,
# about 16 at Tigers & Sheep's start and 6 in draughts (benchmarks/puct.py); 40 leaves room for
# wider positions, and a tree that fills anyway just stops searching (fewer simulations).
NODES_PER_SIMULATION = 40
# A timed zero player's tree is sized for this many simulations a second, above the compiled
# search's speed on one core (about 190,000: benchmarks/puct.py), so time, not room, stops it.
TIMED_SIMULATIONS_PER_SECOND = 400_000
SPEC_HELP = (
    f"human | random | classic[:{SEARCH_OPTIONS},weights=FILE.json] | "
    f"net[:{SEARCH_OPTIONS},{MOVES_LEFT_OPTIONS}] (the shipped network; moves_left=on: "
    "shorter wins and longer losses by the network's moves-left head) | "
    "FILE.bin[:the options of net] (a trained network); in a game with dice, "
    f"{PLIED_OPTIONS} instead of depth: gnubg's N-ply, the K best plays within T points "
    "looked at (8, 0.16) | "
    f"hybrid[:{SEARCH_OPTIONS},net=FILE.bin,scale=S,weights=FILE.json] "
    "(classic + S x network) | "
    f"perfect[:{SEARCH_OPTIONS}] (classic, playing from the tablebase, by default "
    "tablebase/: perfect once the hand is empty) | "
    "spiel-mcts[:sims=N,uct_c=C,rollouts=R,seed=S] (OpenSpiel's MCTS, random rollouts) | "
    "spiel-ab[:depth=N,weights=FILE.json] (OpenSpiel's alpha-beta, classic evaluation; "
    "both need pip install 'samuel[openspiel]') | "
    "gnubg[:ply=0-4,noise=X,level=NAME,seed=S] (backgammon: GNU Backgammon's play, level one "
    "of its own, beginner to grandmaster; pip install 'samuel[gnubg]') | "
    f"zero[:net=FILE.bin,{ZERO_OPTIONS}] (Samuel Zero: PUCT search with a policy network, "
    "the shipped Tigers & Sheep one by default; noise and temp for self-play, moves_left=on: "
    "lc0's moves-left utility; SIDE_net: the network it plays one side with, e.g. "
    "sheep_net=FILE.bin); "
    'quote a path holding "," or ":": weights="my:file.json"'
)
# The options whose value names a file or folder, and what it is (a name ending in .bin is a
# network file too). A server confines exactly these.
FILE_OPTIONS = {"weights": "classic weights file", "net": "network file", "tablebase": "tablebase"}
# The zero player's network for one side (``zero:SIDE_net=FILE``), one option per side of each
# registered game.
SIDE_NET_OPTIONS = tuple(
    f"{side}_net" for descriptor in descriptors().values() for side in descriptor.sides
)
FILE_OPTIONS.update({option: "network file" for option in SIDE_NET_OPTIONS})
NETWORK_SUFFIX = ".bin"
QUOTE_LIMIT = 80  # characters of a spec repeated in an error: enough to recognise it
# The network shipped with the package for Tigers & Sheep: the best of the documented training
# run (each game's: samuel.evaluation.networks.shipped_network).
SHIPPED_NETWORK = Path(__file__).parent / "nn" / "shipped.bin"


class PlayerSpecError(SamuelError, ValueError):
    """A player spec that names no player, or gives a bad option."""


class EvaluationError(SamuelError, ArithmeticError):
    """A player's evaluation gave no finite number (its weights overflow float32): said as an
    error rather than played or reported as a move."""


def _no_finite_evaluation(spec: str) -> EvaluationError:
    return EvaluationError(
        f"{quoted(spec)}: its evaluation gives no finite score in this position (infinite or "
        "NaN: weights too large for float32?), so it cannot search it"
    )


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
    """Alpha-beta search with a pluggable evaluation, to a depth or for a time per move; or, in
    a game with dice and with ``plies`` set, gnubg's n-ply (:mod:`samuel.search.plied`).

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
    tablebase: object | None = None  # a tigers.tablebase.probe.Tablebase, probed by the search
    plies: int | None = None  # gnubg's n-ply instead of the alpha-beta search
    candidates: int = 8  # n-ply's move filter: the best plays at 0-ply looked at deeper ...
    threshold: float = 0.16  # ... within this many points of the best
    last: SearchResult | None = field(default=None, repr=False)
    _searcher: Searcher | PliedSearcher | None = field(default=None, repr=False)

    def search(self, game: Game) -> SearchResult:
        if self.plies is not None:
            return self._plied(game)
        if self._searcher is None:
            self._searcher = Searcher(self.rules.number)
        self.last = None
        try:
            result = self._searcher.search(
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
        except ValueError as error:
            # The search finds no move only where the game is over, or where no move's score
            # was a number (every comparison with NaN is false): the evaluation overflowed.
            if isinstance(error, SamuelError) or game.outcome is not None:
                raise
            raise _no_finite_evaluation(self.spec) from None
        if not math.isfinite(result.score):
            raise _no_finite_evaluation(self.spec)
        self.last = result
        return result

    def _plied(self, game: Game) -> SearchResult:
        if self._searcher is None:
            self._searcher = PliedSearcher(self.rules.number)
        self.last = None
        result = self._searcher.search(
            self.rules.encode(game.position),
            self.evaluator,
            self.params,
            self.plies,
            self.candidates,
            self.threshold,
            move_seed(self.seed, game.ply),
        )
        if not math.isfinite(result.score):
            raise _no_finite_evaluation(self.spec)
        self.last = result
        return result

    def choose_move(self, game: Game):
        if self.epsilon > 0:
            rng = np.random.default_rng([self.seed & 0xFFFFFFFFFFFFFFFF, game.ply, 1])
            if rng.random() < self.epsilon:
                self.last = None
                moves = game.legal_moves()
                return moves[int(rng.integers(len(moves)))]
        return self.rules.move_from_code(self.search(game).best_move)


@dataclass
class ZeroPlayer:
    """Samuel Zero: PUCT search (:mod:`samuel.search.puct`) with a Zero network's policy, value
    and plies left. ``settings.temperature`` applies to the game's first ``temperature_plies``
    plies only (then the most visited move); the noise, to every move. Each move's search is
    seeded from the player's seed and the ply. With a ``tablebase``, the positions below the
    root that it holds are exact nodes of the search. With ``reuse`` (and no noise), a search
    keeps the subtree of the last search that the game's moves since then lead to, and adds its
    simulations to it (lc0's tree reuse); :meth:`forget` drops it."""

    rules: GameRules
    params: np.ndarray
    settings: PuctSettings = field(default_factory=PuctSettings)
    temperature_plies: int = MAX_ZERO_SIMULATIONS  # plies of the game played with temperature
    seed: int = 0
    spec: str = "zero"
    seconds: float | None = None  # a time per move; then ``settings.simulations`` caps it
    tablebase: object | None = None  # a tigers.tablebase.probe.Tablebase: exact nodes
    reuse: bool = True  # keep the subtree of the position reached since the last search
    # A network for each side (by its index in ``rules.sides``) that plays with its own; the
    # others play with ``params``
    side_params: dict[int, np.ndarray] = field(default_factory=dict)
    last: PuctResult | None = field(default=None, repr=False)
    _search: PuctSearch | None = field(default=None, repr=False)

    @property
    def simulations(self) -> int:
        return self.settings.simulations

    def search(self, game: Game) -> PuctResult:
        """Search ``game``'s position (its history counts for repetition, its ply cap is a
        draw)."""
        if self._search is None:
            simulations = self.settings.simulations
            if self.seconds is not None:
                simulations = min(simulations, self.seconds * TIMED_SIMULATIONS_PER_SECOND)
            nodes = smallest_tree(self.rules.number) + int(simulations) * NODES_PER_SIMULATION
            self._search = PuctSearch(self.rules.number, min(nodes, MAX_TREE_NODES))
        settings = self.settings
        if game.ply >= self.temperature_plies and settings.temperature > 0:
            settings = replace(settings, temperature=0.0)
        params = self.side_params.get(self.rules.side_to_move(game.position), self.params)
        self.last = self._search.search(
            params,
            self.rules.encode(game.position),
            game.history_keys(),
            game.window_start,
            settings,
            move_seed(self.seed, game.ply),
            None if game.ply_cap is None else game.ply_cap - game.ply,
            None if self.tablebase is None else self.tablebase.layers,
            seconds=self.seconds,
            reuse=self.reuse,
        )
        if not (math.isfinite(self.last.value) and np.all(np.isfinite(self.last.priors))):
            self.last = None
            raise _no_finite_evaluation(self.spec)
        return self.last

    def forget(self) -> None:
        """Keep no tree: the next search starts afresh, as a new player's would."""
        if self._search is not None:
            self._search.forget()

    def choose_move(self, game: Game):
        result = self.search(game)
        move = self.rules.move_from_code(result.best_move)
        if self.tablebase is None or not self.tablebase.covers(game.position):
            return move
        return table_move(self.tablebase, game.position, move, result, self.rules)


def table_move(table, position, chosen, result: PuctResult, rules: GameRules):
    """The move to play from a ``position`` the ``table`` holds, the search having ``chosen``:
    one that keeps the position's value. Won, the quickest win (the search's exact nodes all
    look alike to it, and a won position dawdled into a repetition is a draw); lost, the
    slowest loss; drawn, the search's move if it keeps the draw, else the most visited move
    that does."""
    values = table.move_values(position)
    best = max(outcome for _, outcome, _ in values)
    keeping = [(move, plies) for move, outcome, plies in values if outcome == best]
    if best > 0:
        return min(keeping, key=lambda kept: kept[1])[0]
    if best < 0:
        return max(keeping, key=lambda kept: kept[1])[0]
    if any(move == chosen for move, _ in keeping):
        return chosen
    visits = dict(zip(result.moves, result.visits.tolist(), strict=True))
    return max(keeping, key=lambda kept: visits.get(rules.move_code(kept[0]), 0))[0]


@dataclass
class HumanPlayer:
    """Asks a person for moves at the terminal; explains bad ones and asks again."""

    read: Callable[[str], str] = input
    write: Callable[[str], None] = print
    spec: str = "human"

    def choose_move(self, game: Game):
        rules = game.rules
        side = rules.sides[rules.side_to_move(game.position)]
        if _rolled(game):  # a game with dice: what was thrown, and the board with it
            self.write(f"{side} rolled {rules.format_move(game.moves[-1])}")
            self.write(rules.draw_board(game.position))
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
                    f"{rules.move_help}; 'moves' lists the legal moves; 'quit' stops the game"
                )
                continue
            if not text:
                continue
            try:
                move = rules.parse_move(text)
                child = rules.play(game.position, move)  # checks legality, changes nothing
                # the legal move it stands for (backgammon reads gnubg's 24/13 for 24/18/13)
                legal = (m for m in game.legal_moves() if rules.play(game.position, m) == child)
                return next(legal, move)
            except SamuelError as error:  # NotationError, IllegalMoveError: ask again
                self.write(f"{error} (type 'moves' for the legal moves)")


def default_depth(rules: GameRules) -> int:
    """How deep a searching player of the game searches unless told (its descriptor's)."""
    return descriptor_of(rules.number).default_depth  # a variant: its game's


def _rolled(game: Game) -> bool:
    """Whether the game's last ply was a throw of the dice."""
    return len(game.positions) >= 2 and bool(game.rules.chance_outcomes(game.positions[-2]))


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as an error repeats it: quoted, and cut after ``limit`` characters, so a huge
    input never comes back whole.

    >>> quoted("classic:depth=x")
    "'classic:depth=x'"
    >>> quoted("x" * 100, limit=4)
    "'xxxx'... (100 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


@dataclass(frozen=True)
class SpecFile:
    """A file (or, for a tablebase, a folder) that a spec names."""

    option: str | None  # the option naming it; None when the player's name is the file
    path: str  # as written in the spec
    kind: str  # "network file", "classic weights file" or "tablebase"


@dataclass(frozen=True)
class PlayerSpec:
    """A player spec, parsed: the player's name and its options in the order given. Parsing
    checks the form only (``KEY=VALUE``, no option twice, closed quotes); :func:`make_player`
    checks the names, values and files.

    >>> spec = PlayerSpec.parse('classic:depth=4,weights="my:file.json"')
    >>> spec.name, spec.get("depth"), spec.get("weights")
    ('classic', '4', 'my:file.json')
    >>> str(spec)
    'classic:depth=4,weights="my:file.json"'
    """

    name: str
    options: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> PlayerSpec:
        """The spec ``text`` names; raises :class:`PlayerSpecError` saying what is malformed."""
        fields = _split_fields(text)
        name = "".join(char for char, _ in fields[0]).strip() if fields else ""
        if not name:
            raise PlayerSpecError(f"{quoted(text)} names no player; players are: {SPEC_HELP}")
        options: dict[str, str] = {}
        for field_chars in fields[1:]:
            key, value, has_equals = _key_and_value(field_chars)
            if not key and not value and not has_equals:
                continue  # an empty field, as in "classic:" or "classic:depth=2,"
            if not has_equals or not key or not value:
                part = "".join(char for char, _ in field_chars)
                raise PlayerSpecError(
                    f"player option {quoted(part.strip())} of {quoted(name)} is not KEY=VALUE; "
                    f"players are: {SPEC_HELP}"
                )
            if key in options:
                raise PlayerSpecError(f"{quoted(text)}: the option {key} is given twice")
            options[key] = value
        return cls(name, tuple(options.items()))

    def get(self, key: str, default: str | None = None) -> str | None:
        """The value of option ``key``, or ``default`` if the spec does not give it."""
        return dict(self.options).get(key, default)

    def files(self) -> tuple[SpecFile, ...]:
        """Every file or folder the spec names itself: a name ending in ``.bin``, and the values
        of :data:`FILE_OPTIONS`. (The shipped network and weights, read when a spec names none,
        are not listed: they come with the program.)"""
        named = []
        if self.name.endswith(NETWORK_SUFFIX):
            named.append(SpecFile(None, self.name, "network file"))
        for key, value in self.options:
            if key in FILE_OPTIONS:
                named.append(SpecFile(key, value, FILE_OPTIONS[key]))
        return tuple(named)

    def __str__(self) -> str:
        parts = [_quote_field(self.name)]
        options = ",".join(f"{key}={_quote_field(value)}" for key, value in self.options)
        return ":".join(parts + [options]) if options else parts[0]


SEPARATORS = ",:"
QUOTE = '"'


def _split_fields(text: str) -> list[list[tuple[str, bool]]]:
    """``text`` cut at every ``,`` or ``:`` outside double quotes; each field a list of
    (character, quoted) pairs, with the quotes themselves removed (``""`` inside quotes is one
    ``"``)."""
    fields: list[list[tuple[str, bool]]] = [[]]
    inside, i = False, 0
    while i < len(text):
        char = text[i]
        if char == QUOTE:
            if inside and text[i + 1 : i + 2] == QUOTE:
                fields[-1].append((QUOTE, True))
                i += 1
            else:
                inside = not inside
        elif char in SEPARATORS and not inside:
            fields.append([])
        else:
            fields[-1].append((char, inside))
        i += 1
    if inside:
        raise PlayerSpecError(f"{quoted(text)}: a double quote is not closed")
    return fields


def _key_and_value(field_chars: list[tuple[str, bool]]) -> tuple[str, str, bool]:
    """A field's key and value, split at the first ``=`` outside quotes; the blanks around each
    are dropped unless quoted."""
    for i, (char, inside) in enumerate(field_chars):
        if char == "=" and not inside:
            return _text(field_chars[:i]), _text(field_chars[i + 1 :]), True
    return _text(field_chars), "", False


def _text(field_chars: list[tuple[str, bool]]) -> str:
    start, end = 0, len(field_chars)
    while start < end and field_chars[start][0].isspace() and not field_chars[start][1]:
        start += 1
    while end > start and field_chars[end - 1][0].isspace() and not field_chars[end - 1][1]:
        end -= 1
    return "".join(char for char, _ in field_chars[start:end])


def _quote_field(text: str) -> str:
    """``text`` as a spec writes it: in double quotes when it holds a separator, a quote, an
    ``=`` or blanks at its ends."""
    if text and not any(char in text for char in SEPARATORS + QUOTE + "=") and text == text.strip():
        return text
    return QUOTE + text.replace(QUOTE, QUOTE * 2) + QUOTE


NUMBER_KINDS = {int: "a whole number", float: "a number"}


def _number(options: dict[str, str], key: str, kind, spec: str, low, high):
    if key not in options:
        return None
    text = options.pop(key)
    try:
        if not text.isascii():  # int() and float() also read digits such as '٣'
            raise ValueError(text)
        value = kind(text)
    except ValueError:
        raise PlayerSpecError(f"{quoted(spec)}: {key} must be {NUMBER_KINDS[kind]}") from None
    if not (low <= value <= high) or (isinstance(value, float) and not math.isfinite(value)):
        given = str(value)[:QUOTE_LIMIT]  # a 4,000-digit number is not repeated whole
        raise PlayerSpecError(
            f"{quoted(spec)}: {key} must be between {low} and {high}, not {given}"
        )
    return value


def _evaluation(name: str, options: dict[str, str], rules: GameRules) -> tuple[int, np.ndarray]:
    """The evaluator number and parameters a searching player's name asks for."""
    from samuel.evaluation.hybrid import default_scale, hybrid_parameters
    from samuel.evaluation.networks import (
        load_network,
        load_network_or_phases,
        shipped_moves_left_network,
        shipped_network,
    )
    from samuel.nn.phased import is_phased
    from samuel.nn.weights import WeightsFileError

    evaluator = {"classic": game_kernels.EVALUATOR_CLASSIC, "hybrid": game_kernels.EVALUATOR_HYBRID}
    try:
        game_kernels.check_evaluator(
            rules.number, evaluator.get(name, game_kernels.EVALUATOR_NETWORK)
        )
    except ValueError as error:
        raise PlayerSpecError(f"{quoted(name)}: {error}") from None
    if name == "classic":
        try:
            return game_kernels.EVALUATOR_CLASSIC, rules.classic_weights(
                options.pop("weights", None)
            )
        except SamuelError as error:  # each game's weights file has its own error type
            raise PlayerSpecError(str(error)) from None
    shipped = shipped_network(rules.number)
    if name == "hybrid":
        scale = _number(options, "scale", float, name, -1e3, 1e3)
        _, classic_weights = _evaluation("classic", options, rules)
        if len(classic_weights) != game_kernels.compiled_game(rules.number).classic_features:
            raise PlayerSpecError(
                "the hybrid takes classic weights without piece-square tables, and this weights "
                "file has them (play it as classic:weights=FILE)"
            )
        net = options.pop("net", None)
        if net is None and shipped is None:
            raise PlayerSpecError(
                f"no {rules.title} network is shipped with this install; give the hybrid one: "
                "hybrid:net=FILE.bin"
            )
        try:
            network_params = load_network(shipped if net is None else net, rules.number)
        except WeightsFileError as error:
            raise PlayerSpecError(str(error)) from None
        scale = default_scale(rules.number) if scale is None else scale
        return game_kernels.EVALUATOR_HYBRID, hybrid_parameters(
            rules.number, scale, classic_weights, network_params
        )
    if name == "net" and shipped is None:
        raise PlayerSpecError(
            f"no {rules.title} network is shipped with this install; name a weights file "
            "(e.g. weights/latest.bin) instead of 'net'"
        )
    path = shipped if name == "net" else Path(name)  # a name ending in .bin
    if name == "net" and options.get("moves_left") == "on":
        # the same value, with the head the nudge reads, where one is shipped
        path = shipped_moves_left_network(rules.number) or path
    try:
        network_params = load_network_or_phases(path, rules.number)
    except WeightsFileError as error:
        raise PlayerSpecError(str(error)) from None
    if is_phased(network_params):
        if _switch(options, "moves_left", "off", name):
            raise PlayerSpecError(
                f"{quoted(name)} holds one network per phase, without a moves-left head"
            )
        return game_kernels.EVALUATOR_PHASED, network_params
    return _network_evaluation(name, options, rules, network_params)


MOVES_LEFT_SETTINGS = ("ml_threshold", "ml_max", "ml_slope")


def _network_evaluation(
    name: str, options: dict[str, str], rules: GameRules, network_params: np.ndarray
) -> tuple[int, np.ndarray]:
    """The network alone (``moves_left=off``, the default: exactly the plain network's search)
    or the network nudged by its moves-left head (``moves_left=on``, with the ``ml_*``
    settings; :mod:`samuel.evaluation.moves_left`)."""
    from samuel.evaluation import moves_left

    on = _switch(options, "moves_left", "off", name)
    given = [key for key in MOVES_LEFT_SETTINGS if key in options]
    if not on:
        if given:
            raise PlayerSpecError(
                f"{quoted(name)}: {', '.join(given)} only apply with moves_left=on"
            )
        return game_kernels.EVALUATOR_NETWORK, network_params
    defaults = (
        moves_left.DEFAULT_THRESHOLD,
        moves_left.DEFAULT_MAX_EFFECT,
        moves_left.DEFAULT_SLOPE,
    )
    settings = []
    # ranges wide enough for check_settings to say what is wrong with a value in them
    for key, default, high in zip(MOVES_LEFT_SETTINGS, defaults, (1.0, 1.0, 1e6), strict=True):
        value = _number(options, key, float, name, 0.0, high)
        settings.append(default if value is None else value)
    threshold, max_effect, slope = settings
    try:
        moves_left.check_settings(threshold, max_effect, slope, names=MOVES_LEFT_SETTINGS)
        params = moves_left.moves_left_parameters(
            rules.number, network_params, threshold, max_effect, slope
        )
    except ValueError as error:
        raise PlayerSpecError(f"{quoted(name)}: {error}") from None
    return game_kernels.EVALUATOR_MOVES_LEFT, params


def _game_player(name: str, rules: GameRules):
    """The factory of a player that ``rules``' game offers itself (its ``players`` part's
    ``PLAYERS``: backgammon's ``gnubg``), or None."""
    try:
        descriptor = descriptor_of(rules.number)
    except ValueError:  # no registered game's rules
        return None
    part = descriptor.part("players")
    return None if part is None else part.PLAYERS.get(name)


def tablebase_part(rules: GameRules):
    """The tablebase of ``rules``' game (its ``perfect`` part: ``load``, ``DEFAULT_DIRECTORY``,
    ``TablebaseError``), or None for a game that has none."""
    try:
        descriptor = descriptor_of(rules.number)
    except ValueError:  # no registered game's rules
        return None
    return descriptor.part("perfect")


def _tablebase(directory: str, rules: GameRules, spec: str):
    """The tablebase a searching player probes, checked against the rules it plays."""
    part = tablebase_part(rules)
    if part is None:
        raise PlayerSpecError(f"{quoted(spec)}: {rules.title} has no tablebase")
    try:
        table = part.load(directory)
    except part.TablebaseError as error:
        raise PlayerSpecError(f"{quoted(spec)}: {error}") from None
    if getattr(rules, "captures_to_win", None) != table.captures_to_win:
        raise PlayerSpecError(
            f"{quoted(spec)}: {directory} is the tablebase of the game won by "
            f"{table.captures_to_win} captures, not of {rules!r}"
        )
    return table


def _check_game(name: str, rules: GameRules) -> None:
    """Refuse ``perfect`` for a game without a tablebase (a ``perfect`` part)."""
    if name == "perfect" and tablebase_part(rules) is None:
        having = [d.title for d in descriptors().values() if d.part("perfect") is not None]
        raise PlayerSpecError(
            f"'perfect' plays from the {' or '.join(having)} tablebase; {rules.title} has none"
        )


ZERO_SETTINGS = (  # option, PuctSettings field, bounds (PuctSettings checks them again)
    ("cpuct", "c_puct", 0.0, 100.0),
    ("fpu", "fpu_reduction", -10.0, 10.0),
    ("noise", "noise_fraction", 0.0, 1.0),
    ("alpha", "noise_alpha", 1e-3, 100.0),
    ("temp", "temperature", 0.0, 100.0),
    ("minimax", "minimax", 0.0, 1.0),
)
ZERO_MOVES_LEFT = (
    ("ml_factor", "moves_left_factor", 0.0, 1.0),
    ("ml_scale", "moves_left_scale", 1e-3, 1000.0),
    ("ml_threshold", "moves_left_threshold", 0.0, 1.0),
)
ZERO_MOVES_LEFT_FACTOR = 0.05  # moves_left=on: lc0's MovesLeftFactor (seed 003)


def _plied_options(
    options: dict[str, str], rules: GameRules, spec: str, depth: int | None, time: float | None
) -> dict:
    """A searching player's n-ply settings (``ply``, ``candidates``, ``threshold``), as
    :class:`SearchPlayer` takes them; none unless the spec says ``ply``."""
    plies = _number(options, "ply", int, spec, 0, MAX_PLIES)
    candidates = _number(options, "candidates", int, spec, 1, game_kernels.MAX_MOVES)
    threshold = _number(options, "threshold", float, spec, 0.0, 1000.0)
    if plies is None:
        if candidates is not None or threshold is not None:
            raise PlayerSpecError(f"{quoted(spec)}: candidates and threshold go with ply=N")
        return {}
    if game_kernels.compiled_game(rules.number).chance_outcomes == 0:
        raise PlayerSpecError(
            f"{quoted(spec)}: 'ply' searches a game with dice; {rules.title} has none (depth=N)"
        )
    if depth is not None or time is not None:
        raise PlayerSpecError(f"{quoted(spec)}: give ply=N or depth/time, not both")
    found = {"plies": plies}
    if candidates is not None:
        found["candidates"] = candidates
    if threshold is not None:
        found["threshold"] = threshold
    return found


def _switch(options: dict[str, str], key: str, default: str, spec: str) -> bool:
    """Pop the on/off option ``key`` (``default`` if absent): True for on."""
    value = options.pop(key, default)
    if value not in ("on", "off"):
        raise PlayerSpecError(f"{quoted(spec)}: {key} must be on or off, not {quoted(value)}")
    return value == "on"


def _zero_player(
    options: dict[str, str],
    rules: GameRules,
    spec: str,
    seed: int,
    tablebase: str | None,
    seconds: float | None = None,
) -> ZeroPlayer:
    """The ``zero`` player of a spec's options (``net``: the game's shipped Zero network);
    ``tablebase`` is the caller's default tablebase directory and ``seconds`` its default time
    per move, which the spec's options override. Timed, ``sims`` only caps the search."""
    from samuel.evaluation.networks import load_zero_network, shipped_zero_network
    from samuel.games.actions import action_count
    from samuel.nn.weights import WeightsFileError

    try:
        action_count(rules.number)  # its policy names each move by an action
    except ValueError as error:
        raise PlayerSpecError(f"{quoted(spec)}: {error}") from None

    net = options.pop("net", None) or shipped_zero_network(rules.number)
    if net is None:
        raise PlayerSpecError(
            f"{quoted(spec)}: no Samuel Zero network is shipped for {rules.title}; name one: "
            "zero:net=FILE.bin"
        )
    try:
        params = load_zero_network(net, rules.number)
        side_params = {
            side: load_zero_network(options.pop(f"{name}_net"), rules.number)
            for side, name in enumerate(rules.sides)
            if f"{name}_net" in options
        }
    except WeightsFileError as error:
        raise PlayerSpecError(str(error)) from None
    fields: dict[str, float | int] = {}
    sims = _number(options, "sims", int, spec, 1, MAX_ZERO_SIMULATIONS)
    spec_time = _number(options, "time", float, spec, 1e-3, 1e6)
    seconds = spec_time if spec_time is not None else seconds
    if sims is not None:
        fields["simulations"] = sims
    elif seconds is not None:
        fields["simulations"] = MAX_ZERO_SIMULATIONS
    for key, name, low, high in ZERO_SETTINGS:
        value = _number(options, key, float, spec, low, high)
        if value is not None:
            fields[name] = value
    moves_left = _switch(options, "moves_left", "off", spec)
    given = [key for key, *_ in ZERO_MOVES_LEFT if key in options]
    if not moves_left and given:
        raise PlayerSpecError(f"{quoted(spec)}: {', '.join(given)} only apply with moves_left=on")
    if moves_left:
        fields["moves_left_factor"] = ZERO_MOVES_LEFT_FACTOR
        for key, name, low, high in ZERO_MOVES_LEFT:
            value = _number(options, key, float, spec, low, high)
            if value is not None:
                fields[name] = value
    reuse = _switch(options, "reuse", "on", spec)
    fields["solver"] = _switch(options, "solver", "off", spec)
    temperature_plies = _number(options, "temp_plies", int, spec, 0, MAX_ZERO_SIMULATIONS)
    if temperature_plies is not None and "temperature" not in fields:
        raise PlayerSpecError(f"{quoted(spec)}: temp_plies only applies with temp=T")
    try:
        settings = PuctSettings(**fields)
    except SamuelError as error:
        raise PlayerSpecError(f"{quoted(spec)}: {error}") from None
    directory = options.pop("tablebase", None) or tablebase
    return ZeroPlayer(
        rules=rules,
        params=params,
        settings=settings,
        temperature_plies=MAX_ZERO_SIMULATIONS if temperature_plies is None else temperature_plies,
        seed=seed,
        spec=spec,
        tablebase=None if directory is None else _tablebase(directory, rules, spec),
        seconds=seconds,
        reuse=reuse,
        side_params=side_params,
    )


def make_player(
    spec: str | PlayerSpec,
    rules: GameRules,
    depth: int | None = None,
    seconds: float | None = None,
    seed: int = 0,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    tablebase: str | None = None,
) -> Player:
    """The player a spec names (a spec string, parsed here, or a :class:`PlayerSpec`).
    ``depth``, ``seconds``, ``seed`` and ``tablebase`` (a tablebase directory for searching
    players) are defaults that the spec's own options override (a spec's ``time`` replaces the
    default ``depth`` as well: the spec's limit is the search's). Reads the files the spec names
    wherever they are: a caller that must confine them checks :meth:`PlayerSpec.files` first.
    Raises :class:`PlayerSpecError` with the valid choices."""
    parsed = spec if isinstance(spec, PlayerSpec) else PlayerSpec.parse(spec)
    spec = spec if isinstance(spec, str) else str(parsed)  # the player is known by it
    name, options = parsed.name, dict(parsed.options)
    spec_seed = _number(options, "seed", int, spec, 0, 2**63 - 1)
    seed = seed if spec_seed is None else spec_seed
    if name == "human":
        player: Player = HumanPlayer(read=read, write=write, spec=spec)
    elif name == "random":
        player = RandomPlayer(seed=seed, spec=spec)
    elif name in ("classic", "net", "hybrid", "perfect") or name.endswith(".bin"):
        _check_game(name, rules)
        evaluator, params = _evaluation("classic" if name == "perfect" else name, options, rules)
        directory = options.pop("tablebase", None) or tablebase
        if name == "perfect" and directory is None:
            directory = tablebase_part(rules).DEFAULT_DIRECTORY
        spec_depth = _number(options, "depth", int, spec, 1, MAX_PLY - 1)
        spec_time = _number(options, "time", float, spec, 1e-3, 1e6)
        plied = _plied_options(options, rules, spec, spec_depth, spec_time)
        epsilon = _number(options, "epsilon", float, spec, 0.0, 1.0) or 0.0
        timed = spec_time is not None or seconds is not None  # then depth only caps the search
        if spec_time is not None:
            # The spec's own limit replaces the caller's default one: a default depth (as
            # `samuel analyse` gives, 6) would otherwise stop a `classic:time=3` search first.
            depth = None
        player = SearchPlayer(
            rules=rules,
            evaluator=evaluator,
            params=params,
            depth=spec_depth or depth or (MAX_PLY - 1 if timed else default_depth(rules)),
            seconds=spec_time if spec_time is not None else seconds,
            epsilon=epsilon,
            seed=seed,
            spec=spec,
            tablebase=None if directory is None else _tablebase(directory, rules, spec),
            **plied,
        )
    elif name == "zero":
        player = _zero_player(options, rules, spec, seed, tablebase, seconds)
    elif name in SPIEL_PLAYERS:
        try:  # OpenSpiel is an optional extra: imported only when one of its bots is built
            from samuel.spiel.bots import spiel_player
        except ImportError as error:
            raise PlayerSpecError(
                f"{quoted(name)} needs OpenSpiel, which is not installed "
                f"(pip install 'samuel[openspiel]'; {error})"
            ) from None
        player = spiel_player(name, options, rules, spec, seed=seed, depth=depth)
    elif (game_player := _game_player(name, rules)) is not None:
        player = game_player(options, rules, spec, seed, depth)
    else:
        raise PlayerSpecError(f"unknown player {quoted(name)}; players are: {SPEC_HELP}")
    if options:
        raise PlayerSpecError(
            f"{quoted(spec)}: unknown option(s) {', '.join(sorted(options))} for "
            f"{name}; players are: {SPEC_HELP}"
        )
    return player
