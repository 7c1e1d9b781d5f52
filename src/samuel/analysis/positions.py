"""A position's analysis: its moves ranked best first with their values, as gnubg's and a chess
engine's analysis shows them, for every game and every searching player.

Values are the **side to move's**, so that the best move has the highest and a move's error is
the best value less its own:

- **A game with dice, the dice rolled**: every play valued as the n-ply search
  (:mod:`samuel.search.plied`) values it: all at 0 plies (the evaluation of the position the play
  leaves), the candidates the move filter keeps (and a move asked for, ``keep``) at the player's
  plies. Values are expected points, cubeless. With a network that has an outcome head, each play
  also has its chances (win, win a gammon or more, win a backgammon, then the same lost, in the
  game's own words), read from the network at the position it leaves (0 plies).
- **A game with dice, the dice still to roll**: no moves; the position's own chances and, for a
  game with a doubling cube, its cube decision (the game's ``analysis`` part).
- **A game without dice**: every move searched by the player's alpha-beta to one ply less than
  the player's depth from the position it leaves, so each value looks as deep as the player's
  own search, with its principal variation. A forced result is a win (or loss) in so many plies.
- **Samuel Zero**: the moves its PUCT search visited, most visited first, with their values
  (expected results) and visits.
"""

from __future__ import annotations

import math
import threading
import time
import weakref
from dataclasses import dataclass

import numpy as np

from samuel.evaluation.outcomes import has_outcomes
from samuel.games import descriptors
from samuel.games import kernels as game_kernels
from samuel.games.base import GameRules, format_score
from samuel.games.game import Game
from samuel.nn.phased import is_phased, phase_networks
from samuel.nn.shape import OUTCOMES, network_of
from samuel.players import PlayerSpecError, SearchPlayer, ZeroPlayer, move_seed, quoted
from samuel.search.alphabeta import MAX_PLY, WIN, WIN_BOUND, Searcher
from samuel.search.plied import PliedSearcher

MIN_SECONDS = 0.01  # a move's search when the ranking's time is spent: depth 1 completes


class AnalysisRefused(ValueError):
    """The position cannot be analysed so: the game is over, or the player does not search."""


@dataclass(frozen=True)
class RankedMove:
    """One move and what it is worth to the side that makes it."""

    move: str  # in the game's notation
    value: float  # the side to move's: expected points with dice, the evaluation's units else
    text: str  # the value in words: "+0.412", "tigers win in 3 plies"
    depth: int  # plies searched for it (with dice: rolls looked ahead, 0 the evaluation)
    line: tuple[str, ...] = ()  # the principal variation, this move first (no dice)
    chances: dict[str, float] | None = None  # with dice and an outcome network: the mover's
    visits: int | None = None  # Samuel Zero's
    forced_plies: int | None = None  # a forced result: plies to the end


@dataclass(frozen=True)
class CubeDecision:
    """The doubling cube's decision before the roll (the game's ``analysis`` part says it)."""

    decision: str  # "no double, take", "double, pass" ...
    no_double: float
    double_take: float
    double_pass: float
    unit: str  # what the three are in: points a game per cube, or chances of winning the match
    available: bool  # whether the side on roll may double at all


@dataclass(frozen=True)
class PositionAnalysis:
    """A position's moves, best first, and (dice to roll) its chances and cube decision."""

    position: str
    side_to_move: str
    player: str
    moves: tuple[RankedMove, ...]
    value: float | None = None  # dice to roll: the position's value to the side to move
    value_depth: int | None = None  # the plies that value looked ahead
    chances: dict[str, float] | None = None  # the side to move's, before its roll
    cube: CubeDecision | None = None
    nodes: int = 0
    seconds: float = 0.0
    runtime: str = "numba"  # what evaluated the network: numba (compiled) or onnx

    @property
    def best(self) -> RankedMove | None:
        return self.moves[0] if self.moves else None

    def find(self, move: str) -> RankedMove | None:
        return next((ranked for ranked in self.moves if ranked.move == move), None)


@dataclass(frozen=True)
class CubeState:
    """The cube as a request gives it: its value, who owns it (0 the side on roll, 1 the other,
    None centred) and the match score (each side's points away, the side on roll's first;
    None: money play)."""

    value: int = 1
    owner: int | None = None
    away: tuple[int, int] | None = None
    crawford: bool = False
    jacoby: bool = True


def chance_names(rules: GameRules) -> tuple[str, ...]:
    """The outcome head's chances in words: ``win``, ``win_gammon``, ``win_backgammon``, then
    ``lose`` ... (a win's classes are the game's own: long nardy's mars and koks)."""
    classes = [name.replace(" ", "_") for _, name in sorted(rules.outcome_classes.items())]
    wins = ["win"] + [f"win_{name}" for name in classes[1:]]
    return (*wins, *(name.replace("win", "lose", 1) for name in wins))


def has_dice(rules: GameRules) -> bool:
    return game_kernels.compiled_game(rules.number).chance_outcomes > 0


def analyse_position(
    game: Game,
    player,
    *,
    keep=None,
    cube: CubeState | None = None,
    runtime: OnnxRuntime | None = None,
) -> PositionAnalysis:
    """``game``'s current position analysed by ``player`` (a :class:`SearchPlayer`, with
    ``plies`` for n-ply in a game with dice, or a :class:`ZeroPlayer`). ``keep`` (a legal
    move) is valued as deeply as the best whatever the move filter says (a record's played
    move). ``runtime``: the network's 0-ply evaluations (a game with dice at 0 plies) run
    through onnxruntime instead of the compiled forward pass (``runtime`` in the answer says
    which ran). Raises :class:`AnalysisRefused` for a finished game or a player that does not
    search."""
    rules = game.rules
    if game.outcome is not None:
        raise AnalysisRefused(
            f"the game is already over in this position: {game.outcome.termination.value}"
        )
    if not isinstance(player, SearchPlayer | ZeroPlayer):
        raise AnalysisRefused(
            f"{quoted(player.spec)} does not search; analysing needs a searching player"
        )
    common = {
        "position": rules.format_position(game.position),
        "side_to_move": rules.sides[rules.side_to_move(game.position)],
        "player": player.spec,
    }
    if has_dice(rules):
        if isinstance(player, ZeroPlayer):
            raise AnalysisRefused(f"Samuel Zero does not play {rules.title}")
        onnx = runtime if runtime is not None and runtime.serves(player) else None
        if game.chance_outcomes():
            return _before_roll(game, player, cube, common, onnx)
        if onnx is not None:
            return _plays_by_onnx(game, player, onnx, common)
        return _plays(game, player, keep, common)
    if isinstance(player, ZeroPlayer):
        return _zero_moves(game, player, common)
    return _searched_moves(game, player, common)


_OUTCOME_WIDTHS: dict[int, tuple[weakref.ref, int]] = {}  # by id, while the array lives


def outcome_width(params: np.ndarray) -> int:
    """How many chances the outcome head of ``params`` (a network, or a network per phase, each
    with as many) gives; 0 without one (a phase without one: none to show). Remembered for the
    array: reading a shape is not free, and a server asks every time."""
    held, width = _OUTCOME_WIDTHS.get(id(params), (None, 0))
    if held is not None and held() is params:
        return width
    networks = phase_networks(params) if is_phased(params) else [params]
    width = 0
    if all(has_outcomes(network) for network in networks):
        width = network_of(networks[0]).head(OUTCOMES).outputs
    key = id(params)
    forget = lambda _: _OUTCOME_WIDTHS.pop(key, None)  # noqa: E731
    _OUTCOME_WIDTHS[key] = (weakref.ref(params, forget), width)
    return width


def _shows_chances(player: SearchPlayer) -> bool:
    """Whether ``player``'s evaluation is a network (or one per phase) with an outcome head."""
    networks = (game_kernels.EVALUATOR_NETWORK, game_kernels.EVALUATOR_PHASED)
    return player.evaluator in networks and outcome_width(player.params) > 0


def _swapped(chances: np.ndarray) -> np.ndarray:
    """Chances seen by the other side: its wins are these losses."""
    half = chances.shape[1] // 2
    return np.concatenate([chances[:, half:], chances[:, :half]], axis=1)


def _certain(points: int, width: int) -> np.ndarray:
    """A finished game's chances to a side that scored ``points`` (negative: lost them)."""
    half = width // 2
    found = np.zeros(width)
    for c in range(min(abs(points), half)):
        found[c if points > 0 else half + c] = 1.0
    return found


def _named(rules: GameRules, row: np.ndarray, names: tuple[str, ...] | None = None) -> dict:
    names = chance_names(rules) if names is None else names
    return {name: round(float(p), 6) for name, p in zip(names, row.tolist(), strict=True)}


def _plays(game: Game, player: SearchPlayer, keep, common: dict) -> PositionAnalysis:
    rules, position = game.rules, game.position
    plies = player.plies or 0
    ranked = plied_searcher(player).rank(
        rules.encode(position),
        player.evaluator,
        player.params,
        plies,
        player.candidates,
        player.threshold,
        move_seed(player.seed, game.ply),
        None if keep is None else rules.move_code(keep),
    )
    if not np.all(np.isfinite(ranked.values)):
        raise PlayerSpecError(f"{quoted(player.spec)}: its evaluation is not a number here")
    moves = [rules.move_from_code(int(code)) for code in ranked.moves]
    chances = None
    if _shows_chances(player):
        # each play's chances as deep as its value looked, the other side's turned to the mover's
        width = outcome_width(player.params)
        theirs = plied_searcher(player).chances(
            ranked.after, player.evaluator, player.params, ranked.plies, width
        )
        chances = _swapped(theirs)
    names = chance_names(rules)
    ranked_moves = tuple(
        RankedMove(
            move=rules.format_move(move),
            value=round(float(value), 6),
            text=format_score(float(value)),
            depth=int(depth),
            chances=None if chances is None else _named(rules, chances[i], names),
        )
        for i, (move, value, depth) in enumerate(
            zip(moves, ranked.values, ranked.plies, strict=True)
        )
    )
    return PositionAnalysis(
        **common, moves=ranked_moves, nodes=ranked.evaluations, seconds=ranked.seconds
    )


def _before_roll(
    game: Game,
    player: SearchPlayer,
    cube: CubeState | None,
    common: dict,
    onnx: OnnxRuntime | None = None,
) -> PositionAnalysis:
    """Dice still to roll: the side on roll's value at the player's plies, its chances (an
    outcome network's, 0 plies) and, in a game with a cube, its cube decision. No moves."""
    rules, position = game.rules, game.position
    started = time.perf_counter()
    state = rules.encode(position)
    plies = player.plies or 0
    mover = rules.side_to_move(position)
    if onnx is not None:
        value = float(onnx.values(rules, player.params, state[None, :], mover)[0])
    else:
        value = plied_searcher(player).value(state, player.evaluator, player.params, plies)
    if not math.isfinite(value):
        raise PlayerSpecError(f"{quoted(player.spec)}: its evaluation is not a number here")
    chances = decision = None
    if _shows_chances(player):
        if onnx is not None:
            chances = onnx.chances(rules, player.params, state[None, :], mover)[0]
        else:
            width = outcome_width(player.params)
            chances = plied_searcher(player).chances(
                state[None, :], player.evaluator, player.params, [plies], width
            )[0]
    part = descriptors()[rules.name].part("analysis")
    if part is None and cube is not None and (cube.value != 1 or cube.away is not None):
        raise AnalysisRefused(f"{rules.title} has no doubling cube")
    if part is not None and chances is not None:
        decision = part.cube_decision(position, chances, cube or CubeState())
    return PositionAnalysis(
        **common,
        moves=(),
        value=round(value, 6),
        value_depth=plies,
        chances=None if chances is None else _named(rules, chances),
        cube=decision,
        seconds=time.perf_counter() - started,
        runtime="numba" if onnx is None else "onnx",
    )


def _plays_by_onnx(
    game: Game, player: SearchPlayer, onnx: OnnxRuntime, common: dict
) -> PositionAnalysis:
    """Every play valued at 0 plies by the network run through onnxruntime: the position each
    leaves evaluated (a play that ends the game: its points), best first."""
    rules, position = game.rules, game.position
    started = time.perf_counter()
    codes, after, ended = plied_searcher(player).plays(rules.encode(position))
    mover = rules.side_to_move(position)
    values = np.where(np.isnan(ended), onnx.values(rules, player.params, after, mover), ended)
    if not np.all(np.isfinite(values)):
        raise PlayerSpecError(f"{quoted(player.spec)}: its evaluation is not a number here")
    chances = None
    if _shows_chances(player):
        chances = onnx.chances(rules, player.params, after, mover)
        for i in np.flatnonzero(~np.isnan(ended)):  # a play that ends the game: certainties
            chances[i] = _certain(int(ended[i]), chances.shape[1])
    order = np.argsort(-values, kind="stable")
    names = chance_names(rules)
    moves = tuple(
        RankedMove(
            move=rules.format_move(rules.move_from_code(int(codes[i]))),
            value=round(float(values[i]), 6),
            text=format_score(float(values[i])),
            depth=0,
            chances=None if chances is None else _named(rules, chances[i], names),
        )
        for i in order
    )
    return PositionAnalysis(
        **common,
        moves=moves,
        nodes=int(np.isnan(ended).sum()),
        seconds=time.perf_counter() - started,
        runtime="onnx",
    )


class OnnxRuntime:
    """The network's evaluations through onnxruntime (``samuel serve --runtime onnx``): an
    onnxruntime session per network, made at its first use and kept while the network lives.
    It serves a network player of a game with dice at 0 plies; everything deeper is searched
    compiled, as without it."""

    def __init__(self) -> None:
        from samuel.nn.onnx_model import check_available

        check_available()  # onnx and onnxruntime are installed: said at start-up, not later
        self._sessions: dict[int, tuple[weakref.ref, object]] = {}
        self._lock = threading.Lock()

    def serves(self, player) -> bool:
        return (
            isinstance(player, SearchPlayer)
            and not player.plies
            and player.evaluator in (game_kernels.EVALUATOR_NETWORK, game_kernels.EVALUATOR_PHASED)
        )

    def _network(self, rules: GameRules, params: np.ndarray):
        from samuel.evaluation.onnx_runtime import onnx_network

        with self._lock:
            held, network = self._sessions.get(id(params), (None, None))
            if held is not None and held() is params:
                return network
            network = onnx_network(rules.number, params)
            key = id(params)
            forget = lambda _: self._sessions.pop(key, None)  # noqa: E731
            self._sessions[key] = (weakref.ref(params, forget), network)
            return network

    def values(self, rules: GameRules, params, states: np.ndarray, mover: int) -> np.ndarray:
        """Each position's value to ``mover`` (the side that played into it)."""
        from samuel.evaluation.onnx_runtime import network_values

        found = network_values(rules.number, self._network(rules, params), states)
        return found.astype(np.float64) * (1 - 2 * mover)

    def chances(self, rules: GameRules, params, states: np.ndarray, mover: int) -> np.ndarray:
        """Each position's outcome chances, ``mover``'s wins first."""
        from samuel.evaluation.onnx_runtime import outcome_predictions as predictions

        found = predictions(rules.number, self._network(rules, params), states)
        found = found.astype(np.float64)
        if mover == 1:
            half = found.shape[1] // 2
            found = np.concatenate([found[:, half:], found[:, :half]], axis=1)
        return found


def plied_searcher(player: SearchPlayer) -> PliedSearcher:
    """The player's n-ply searcher (made once: it owns the buffers)."""
    if not isinstance(player._searcher, PliedSearcher):
        player._searcher = PliedSearcher(player.rules.number)
    return player._searcher


def _zero_moves(game: Game, player: ZeroPlayer, common: dict) -> PositionAnalysis:
    rules = game.rules
    player.forget()  # no tree of another game
    result = player.search(game)
    order = sorted(range(len(result.moves)), key=lambda i: -int(result.visits[i]))
    moves = []
    for i in order:
        if result.visits[i] == 0:
            continue
        value = float(result.values[i])
        moves.append(
            RankedMove(
                move=rules.format_move(rules.move_from_code(result.moves[i])),
                value=round(value, 6),
                text=f"{format_score(value)} (expected result)",
                depth=1,
                visits=int(result.visits[i]),
            )
        )
    return PositionAnalysis(
        **common, moves=tuple(moves), nodes=result.nodes, seconds=result.seconds
    )


def _searched_moves(game: Game, player: SearchPlayer, common: dict) -> PositionAnalysis:
    """Every move of a game without dice, searched to the player's depth less one from the
    position it leaves (its history counting for repetition). A timed player (``time=``)
    first searches the position for its time, to learn how deep; a player's time, if it has
    one, bounds the whole ranking, shared out between the moves still to search."""
    rules = game.rules
    started = time.perf_counter()
    depth = player.depth
    if depth >= MAX_PLY - 1 and player.seconds is not None:  # timed: as deep as it gets
        depth = player.search(game).depth
    deadline = None if player.seconds is None else started + player.seconds
    searcher = player._searcher
    if not isinstance(searcher, Searcher):
        searcher = player._searcher = Searcher(rules.number)
    child = Game(rules, start=game.start, ply_cap=game.ply_cap)
    for move in game.moves:
        child.play(move)
    nodes = 0
    moves = []
    mover = rules.side_to_move(game.position)
    legal = game.legal_moves()
    for index, move in enumerate(legal):
        child.play(move)
        try:
            if child.outcome is not None:
                ranked = _finished(rules, move, child.outcome.result * (1 - 2 * mover), mover)
            else:
                seconds = None
                if deadline is not None:  # the time left, shared by the moves left
                    left = deadline - time.perf_counter()
                    seconds = max(MIN_SECONDS, left / (len(legal) - index))
                found = searcher.search(
                    rules.encode(child.position),
                    child.history_keys(),
                    child.window_start,
                    player.evaluator,
                    player.params,
                    max(1, depth - 1),
                    seconds,
                    move_seed(player.seed, child.ply),
                    None if player.tablebase is None else player.tablebase.layers,
                )
                nodes += found.nodes
                ranked = _from_reply(rules, move, found, mover)
        finally:
            child.undo()
        moves.append(ranked)
    if not all(math.isfinite(m.value) for m in moves):
        raise PlayerSpecError(f"{quoted(player.spec)}: its evaluation is not a number here")
    moves.sort(key=lambda m: -m.value)
    return PositionAnalysis(
        **common,
        moves=tuple(moves),
        nodes=nodes,
        seconds=time.perf_counter() - started,
    )


def _finished(rules: GameRules, move, result: int, mover: int) -> RankedMove:
    """A move that ends the game, ``result`` the mover's (+1 a win, -1 a loss, 0 a draw)."""
    notation = rules.format_move(move)
    if result == 0:
        return RankedMove(notation, 0.0, "a draw at once", 1, (notation,), forced_plies=1)
    who = rules.win_phrases[mover if result > 0 else 1 - mover]
    return RankedMove(
        notation,
        math.copysign(WIN - 1.0, result),
        f"{who} in 1 ply",
        1,
        (notation,),
        forced_plies=1,
    )


def _from_reply(rules: GameRules, move, found, mover: int) -> RankedMove:
    """A move valued by the search of the position it leaves (the reply's view, negated)."""
    notation = rules.format_move(move)
    line = (
        notation,
        *(rules.format_move(rules.move_from_code(m)) for m in found.principal_variation),
    )
    value = -found.score
    plies = found.forced_plies
    if plies is not None and abs(value) > WIN_BOUND:
        plies += 1
        value = math.copysign(WIN - plies, value)
        who = rules.win_phrases[mover if value > 0 else 1 - mover]
        text = f"{who} in {plies} {'ply' if plies == 1 else 'plies'}"
        return RankedMove(notation, value, text, found.depth + 1, line, forced_plies=plies)
    return RankedMove(notation, round(value, 6), format_score(value), found.depth + 1, line)
