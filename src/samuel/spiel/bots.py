"""OpenSpiel's bots as Samuel players: ``spiel-mcts`` (OpenSpiel's ``MCTSBot`` with random
rollouts) and ``spiel-ab`` (OpenSpiel's ``minimax.alpha_beta_search`` with Samuel's classic
evaluation at its leaves), for any spec-taking command: play, match, tournament, serve.

A bot is handed Samuel's game, builds the OpenSpiel state of its position and history
(:func:`samuel.spiel.game.state_at`), asks OpenSpiel's algorithm for an action, and keeps asking
while the same player is to move (a draughts multi-jump is one action per jump), then returns
the Samuel move those actions make (:func:`samuel.spiel.game.move_of_actions`).

Every random number ``spiel-mcts`` draws comes from a numpy ``RandomState`` seeded by the
player's seed, the ply and the action's number within the move, so the same seed plays the same
game, on any number of workers; ``spiel-ab`` draws none. This module imports ``open_spiel``
only when a player is built, so that without it a spec says what is missing rather than the
import failing.

A player's work a move is bounded by its spec (simulations and rollouts, or depth), and, where
``seconds`` is set (the server sets its cap, ``samuel.web.specs``), also by time: the MCTS stops
simulating at the deadline (after two simulations at least, so that the root has children to
choose from) and the alpha-beta deepens one action at a time and keeps the deepest search
finished in time (depth 1 always finishes). Untimed, both play exactly as OpenSpiel's own.
"""

from __future__ import annotations

import functools
import importlib
import time
from dataclasses import dataclass, field

import numpy as np

from samuel.evaluation import evaluators
from samuel.evaluation import kernels as evaluation
from samuel.games import get_game
from samuel.games import kernels as game_kernels
from samuel.games.base import GameRules
from samuel.games.game import Game
from samuel.players import DEFAULT_DEPTH, PlayerSpecError, _evaluation, _number, quoted
from samuel.search.alphabeta import WIN
from samuel.seeds import derive_seed

MCTS = "spiel-mcts"
ALPHA_BETA = "spiel-ab"
NAMES = (MCTS, ALPHA_BETA)
SPEC_HELP = (
    f"{MCTS}[:sims=N,uct_c=C,rollouts=R,seed=S] (OpenSpiel's MCTS with random rollouts) | "
    f"{ALPHA_BETA}[:depth=N,weights=FILE.json] (OpenSpiel's alpha-beta, classic evaluation); "
    "both need OpenSpiel: pip install 'samuel[openspiel]'"
)
DEFAULT_SIMULATIONS = 1000  # OpenSpiel's examples' default
DEFAULT_UCT_C = 2.0  # OpenSpiel's examples' default
DEFAULT_ROLLOUTS = 1
# Bounds, so that no spec asks for unbounded work. OpenSpiel's MCTS runs in Python: about 200
# to 350 simulations a second here (one core, one rollout each), so the largest request is
# minutes a move; the tournament of issue 17 asks 10,000 simulations.
MAX_SIMULATIONS = 100_000
MAX_ROLLOUTS = 100
MAX_UCT_C = 1000.0
# OpenSpiel's alpha-beta is plain Python with no move ordering and no tables: depth 6 takes
# about 4 to 6 s a move in Tigers & Sheep's placement phase, and each depth more several times
# that, so 6 is the most a spec may ask.
MAX_AB_DEPTH = 6
# How far ahead the OpenSpiel game ends when Samuel's game has no ply cap (a random rollout must
# end): samuel.match.head_to_head.DEFAULT_PLY_CAP and the adapter's default.
DEFAULT_PLY_CAP = 200
# Samuel's evaluations stay inside ±WIN_BOUND (500); divided by WIN (1000) they lie inside
# ±0.5, strictly between OpenSpiel's loss (-1) and win (+1), so alpha-beta orders them as
# Samuel's search does, and a leaf's value times WIN is Samuel's score.
EVALUATION_SCALE = WIN


def _open_spiel(spec: str):
    """The adapter module, imported now; PlayerSpecError if OpenSpiel is not installed."""
    try:
        spiel_game = importlib.import_module("samuel.spiel.game")
    except ImportError as error:  # open_spiel or pyspiel missing (or broken)
        raise PlayerSpecError(
            f"{quoted(spec)} needs OpenSpiel, which is not installed "
            f"(pip install 'samuel[openspiel]'; {error})"
        ) from None
    return spiel_game


def _registered(rules: GameRules, spec: str) -> None:
    """OpenSpiel knows Samuel's registered games; a variant of one (other rules under the same
    name) is not among them."""
    try:
        registered = get_game(rules.name)
    except ValueError:
        registered = None
    if registered is None or registered.number != rules.number:  # the same compiled rules
        raise PlayerSpecError(
            f"{quoted(spec)}: OpenSpiel plays Samuel's registered games only, not {rules!r}"
        )


class _TimeUp(Exception):
    """The move's deadline passed: the search stops with what it has."""


@functools.cache
def _timed_mcts_bot():
    """OpenSpiel's ``MCTSBot``, which stops at ``deadline`` (``time.perf_counter()``'s; None:
    never) as well as after ``max_simulations``. A simulation is cut only before it starts,
    never half backed up, and never before the root has children (its second simulation adds
    them), so the best child is chosen from a consistent tree."""
    from open_spiel.python.algorithms import mcts

    class TimedMCTSBot(mcts.MCTSBot):
        deadline: float | None = None
        root = None  # the last search's root: its explore_count is the simulations run

        def mcts_search(self, state):
            self.root = None
            try:
                self.root = super().mcts_search(state)
            except _TimeUp:
                pass  # self.root is the tree searched so far
            return self.root

        def _apply_tree_policy(self, root, state):
            self.root = root
            late = self.deadline is not None and time.perf_counter() >= self.deadline
            if late and root.children:
                raise _TimeUp
            return super()._apply_tree_policy(root, state)

    return TimedMCTSBot


def _random_state(seed: int, ply: int, step: int) -> np.random.RandomState:
    """The generator of one action: from the player's seed, the ply and the action's number in
    the move, never from the worker or the clock."""
    word = derive_seed(seed, ply, step)
    return np.random.RandomState([word & 0xFFFFFFFF, word >> 32])


@dataclass
class SpielPlayer:
    """What both bots share: the OpenSpiel game, the state of Samuel's game, and the actions
    of one move. Subclasses choose one action (:meth:`choose_action`)."""

    rules: GameRules
    seed: int = 0
    spec: str = MCTS
    seconds: float | None = None  # the most a move may take (None: bounded by its work only)
    _deadline: float | None = field(default=None, repr=False)  # the move's, while it is chosen
    _adapter: object = field(default=None, repr=False)
    _loaded: tuple = field(default=(None, None), repr=False)  # (ply cap, pyspiel.Game)

    def __post_init__(self) -> None:
        _registered(self.rules, self.spec)
        self._adapter = _open_spiel(self.spec)

    def spiel_game(self, game: Game):
        """The OpenSpiel game under ``game``'s ply cap; for a game without one, a cap
        ``DEFAULT_PLY_CAP`` plies ahead (a random rollout must end)."""
        cap = game.ply + DEFAULT_PLY_CAP if game.ply_cap is None else game.ply_cap
        if self._loaded[0] != cap:
            self._loaded = (cap, self._adapter.load(self.rules.name, ply_cap=cap))
        return self._loaded[1]

    def state(self, game: Game):
        """The OpenSpiel state of ``game``: its position, its ply and the positions before it
        (for repetition)."""
        return self._adapter.state_at(
            self.spiel_game(game),
            game.position,
            plies=game.ply,
            # the keys of the positions before it that could still recur
            history=[int(key) for key in game.history_keys()[game.window_start : -1]],
        )

    def actions(self, game: Game) -> list[int]:
        """The actions of this player's move in ``game``: one, or a draughts capture's jumps."""
        started = time.perf_counter()
        self._deadline = None if self.seconds is None else started + self.seconds
        state = self.state(game)
        mover = state.current_player()
        actions: list[int] = []
        while not state.is_terminal() and state.current_player() == mover:
            action = self.choose_action(state, game.ply, len(actions))
            actions.append(action)
            state.apply_action(action)
        return actions

    def choose_move(self, game: Game):
        return self._adapter.move_of_actions(self.rules, game.position, self.actions(game))

    def choose_action(self, state, ply: int, step: int) -> int:
        raise NotImplementedError


@dataclass
class MCTSPlayer(SpielPlayer):
    """OpenSpiel's ``MCTSBot`` (UCT, solving proven wins and losses) with
    ``RandomRolloutEvaluator``: ``simulations`` playouts of the tree a move, each leaf valued
    by ``rollouts`` random games to the end."""

    simulations: int = DEFAULT_SIMULATIONS
    uct_c: float = DEFAULT_UCT_C
    rollouts: int = DEFAULT_ROLLOUTS
    # the simulations run for the last action chosen (fewer than ``simulations`` when the time
    # ran out, or the root was solved)
    last_simulations: int | None = field(default=None, repr=False)

    def choose_action(self, state, ply: int, step: int) -> int:
        from open_spiel.python.algorithms import mcts

        random_state = _random_state(self.seed, ply, step)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=random_state)
        bot = _timed_mcts_bot()(
            state.get_game(),
            self.uct_c,
            self.simulations,
            evaluator,
            random_state=random_state,
        )
        bot.deadline = self._deadline
        action = int(bot.step(state))
        self.last_simulations = bot.root.explore_count
        return action


@dataclass
class AlphaBetaPlayer(SpielPlayer):
    """OpenSpiel's ``minimax.alpha_beta_search`` to ``depth`` actions, its leaves valued by
    Samuel's classic evaluation divided by :data:`EVALUATION_SCALE` (a win is 1, a loss -1).

    For Tigers & Sheep an action is a move, so its best value times ``EVALUATION_SCALE`` is
    Samuel's own search's score at the same depth (when no result is forced: Samuel scores a
    forced result by its distance, OpenSpiel as ±1). For draughts an action is one step or one
    jump, so a capture of several jumps spends several of the depth's actions; a leaf in the
    middle of a capture is valued as the mover's best way to finish it.
    """

    spec: str = ALPHA_BETA
    depth: int = DEFAULT_DEPTH
    params: np.ndarray | None = None  # the classic weights (default: the game's own)
    last_value: float | None = field(default=None, repr=False)  # the root's, its mover's view
    last_depth: int | None = field(default=None, repr=False)  # the last action's search's depth
    _scratch: np.ndarray = field(default=None, repr=False)
    _active: np.ndarray = field(default=None, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.params is None:
            self.params = self.rules.classic_weights()
        classic = game_kernels.EVALUATOR_CLASSIC
        self.params = evaluators.check_params(self.rules.number, classic, self.params)
        size = evaluators.scratch_size(self.rules.number, classic, self.params)
        self._scratch = np.zeros(size, dtype=np.float32)
        self._active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)

    def evaluate(self, position) -> float:
        """Samuel's classic evaluation of ``position`` (not over), the first player's view, in
        the evaluation's units."""
        return float(
            evaluation.evaluate(
                self.rules.number,
                game_kernels.EVALUATOR_CLASSIC,
                self.params,
                self.rules.encode(position),
                self._scratch,
                self._active,
            )
        )

    def value(self, state, player: int) -> float:
        """The value for ``player`` of a state at the depth's end that is not over, in
        OpenSpiel's range: the classic evaluation scaled into (-0.5, 0.5). A state in the
        middle of a draughts capture is finished first: its mover picks the best end."""
        if state.path:  # the jumps so far of a capture being made
            mover = state.current_player()
            values = []
            for action in state.legal_actions():
                child = state.clone()
                child.apply_action(action)
                values.append(
                    child.player_return(player)
                    if child.is_terminal()
                    else self.value(child, player)
                )
            return max(values) if mover == player else min(values)
        sign = 1.0 if player == 0 else -1.0
        return sign * self.evaluate(state.position) / EVALUATION_SCALE

    def choose_action(self, state, ply: int, step: int) -> int:
        from open_spiel.python.algorithms import minimax

        player = state.current_player()
        deadline = self._deadline

        def search(depth: int, timed: bool):
            def leaf_value(leaf) -> float:
                if timed and time.perf_counter() >= deadline:
                    raise _TimeUp
                return self.value(leaf, player)

            return minimax.alpha_beta_search(
                state.get_game(),
                state=state,
                value_function=leaf_value,
                maximum_depth=depth,
                maximizing_player_id=player,
            )

        if deadline is None:
            value, action = search(self.depth, False)
            self.last_depth = self.depth
        else:  # deeper and deeper until the time is up; depth 1 always finishes
            value, action = search(1, False)
            self.last_depth = 1
            for depth in range(2, self.depth + 1):
                try:
                    value, action = search(depth, True)
                except _TimeUp:
                    break
                self.last_depth = depth
        if step == 0:
            self.last_value = float(value)
        return int(action)


def spiel_player(
    name: str,
    options: dict[str, str],
    rules: GameRules,
    spec: str,
    seed: int = 0,
    depth: int | None = None,
) -> SpielPlayer:
    """The OpenSpiel player ``name`` (one of :data:`NAMES`) with the spec's ``options``, which
    it takes out of the dict (what is left is unknown to it). ``seed`` and ``depth`` are
    defaults the options override. Raises :class:`PlayerSpecError` for a bad option or value,
    and when OpenSpiel is not installed."""
    if name == MCTS:
        simulations = _number(options, "sims", int, spec, 1, MAX_SIMULATIONS)
        uct_c = _number(options, "uct_c", float, spec, 0.0, MAX_UCT_C)
        rollouts = _number(options, "rollouts", int, spec, 1, MAX_ROLLOUTS)
        return MCTSPlayer(
            rules=rules,
            seed=seed,
            spec=spec,
            simulations=DEFAULT_SIMULATIONS if simulations is None else simulations,
            uct_c=DEFAULT_UCT_C if uct_c is None else uct_c,
            rollouts=DEFAULT_ROLLOUTS if rollouts is None else rollouts,
        )
    if name == ALPHA_BETA:
        spec_depth = _number(options, "depth", int, spec, 1, MAX_AB_DEPTH)
        if spec_depth is None and depth is not None and not 1 <= depth <= MAX_AB_DEPTH:
            raise PlayerSpecError(
                f"{quoted(spec)}: OpenSpiel's alpha-beta searches to depth {MAX_AB_DEPTH} at "
                f"most, not {depth}"
            )
        _, weights = _evaluation("classic", options, rules)  # pops weights=
        return AlphaBetaPlayer(
            rules=rules,
            seed=seed,
            spec=spec,
            depth=spec_depth or depth or DEFAULT_DEPTH,
            params=weights,
        )
    raise PlayerSpecError(f"unknown OpenSpiel player {quoted(name)}; they are: {SPEC_HELP}")
