"""Samuel's games as OpenSpiel games: ``samuel_<name>`` for each registered game that has a
``spiel`` part (``samuel/games/<name>/spiel.py``: its actions), ``samuel_tigers`` and
``samuel_draughts`` today.

Importing this module registers them with ``pyspiel``; ``pyspiel.load_game("samuel_tigers")``
(or ``"samuel_draughts(ply_cap=100)"``) then gives a game whose states are backed by Samuel's
rules and compiled kernels (``docs/openspiel.md``).

Actions (integers, as OpenSpiel wants them) are the game's own, as its ``spiel`` part declares
them (``ACTIONS``: their number, the longest move in actions, each move code's actions, each
action's text):

- Tigers & Sheep (650 distinct): a placement on point ``t`` is ``625 + t``; a step or a jump from
  ``o`` to ``t`` is ``o * 25 + t`` (a jump's captured point is implied). Points are 0..24,
  ``x + 5 * y`` (``a1`` is 0, ``c3`` 12).
- English draughts (128 distinct), as OpenSpiel's own checkers: one action per single step or
  single jump, ``square * 4 + direction`` with ``square`` 0..31 (PDN square - 1) and
  ``direction`` one of :mod:`samuel.games.draughts.board`'s ``UP_LEFT`` (0), ``UP_RIGHT``,
  ``DOWN_LEFT``, ``DOWN_RIGHT`` (3). A capture of several jumps is several actions in a row by
  the same player; the state keeps the position before the move and the path so far, and plays
  Samuel's move when the path is a whole legal move. (A capture must go on while it can, so no
  legal move's path is a proper start of another's.)

A game ends as a Samuel :class:`~samuel.games.game.Game` does: when the position decides it, at
the third occurrence of a position (a draw) or after ``ply_cap`` moves (a draw). A game with
chance nodes (dice) has no ``spiel`` part: the adapter's games are deterministic.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from samuel.errors import SamuelError
from samuel.games import descriptors, get_game
from samuel.games import kernels as game_kernels
from samuel.games.base import GameRules, IllegalMoveError, Outcome, Termination


class SpielError(SamuelError, ValueError):
    """A request the OpenSpiel adapter cannot meet: an unknown game, a bad parameter, a state
    that cannot be made."""


DEFAULT_PLY_CAP = 200  # Samuel's plies (whole moves) before a game is a draw
# OpenSpiel keeps a game's longest length in a C int, and a draughts ply can take 12 actions: a
# million plies, more than any game needs, stays far inside it.
MAX_PLY_CAP = 1_000_000
PREFIX = "samuel_"  # pyspiel's name of a Samuel game: the prefix and Samuel's registry name

Path = tuple[int, ...]  # the actions that make one Samuel move


# -- Actions ----------------------------------------------------------------------------------


def _spiel_actions() -> dict:
    """Each registered game's actions by its registry name, for the games that have a ``spiel``
    part (its ``ACTIONS``: ``num_distinct``, ``longest_move``, ``path(code)``,
    ``is_capture(code)``, ``describe(action, capturing)``, ``describe_path(path)``)."""
    found = {}
    for name, descriptor in descriptors().items():
        part = descriptor.part("spiel")
        if part is not None:
            found[name] = part.ACTIONS
    return found


ACTIONS = _spiel_actions()  # by Samuel's game name
GAME_NAMES = tuple(PREFIX + name for name in ACTIONS)  # the names pyspiel knows them by
# By the game's number in samuel.games.kernels (a variant's rules share its game's actions).
_BY_KERNEL = {descriptors()[name].number: actions for name, actions in ACTIONS.items()}


@dataclass(frozen=True)
class MoveTable:
    """A position's legal moves as action paths: every path's move code, and the actions that
    may follow each proper start of a path (the empty start included). Built once per position
    and shared by the states (and their clones) that stand there."""

    moves: dict[Path, int]  # a whole path -> the kernels' move code
    next: dict[Path, list[int]] = field(default_factory=dict)  # a start -> sorted next actions
    capturing: bool = False  # the moves are captures (draughts' actions then name jumps)

    @classmethod
    def of(cls, rules: GameRules, actions, position) -> MoveTable:
        moves = {actions.path(code): code for code in _move_codes(rules, position)}
        capturing = any(actions.is_capture(code) for code in moves.values())
        if all(len(path) == 1 for path in moves):  # one action a move: the usual case
            return cls(moves, {(): sorted(path[0] for path in moves)}, capturing)
        following: dict[Path, set[int]] = {}
        for path in moves:
            for i in range(len(path)):
                following.setdefault(path[:i], set()).add(path[i])
        return cls(moves, {start: sorted(a) for start, a in following.items()}, capturing)


def _move_codes(rules: GameRules, position) -> list[int]:
    """The kernels' codes of the legal moves: straight from the kernels where the position offers
    them (both games do), which spares making a Move of each."""
    codes = getattr(position, "move_codes", None)
    if codes is not None:
        return codes().tolist()
    return [rules.move_code(move) for move in rules.legal_moves(position)]


def _play(rules: GameRules, position, move):
    """The position after ``move``, known to be legal (it came from the legal moves)."""
    play = getattr(position, "play_unchecked", None)
    return play(move) if play is not None else rules.play(position, move)


# -- The game ---------------------------------------------------------------------------------


def _game_type(name: str, rules: GameRules) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=PREFIX + name,
        long_name=f"Samuel {rules.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"ply_cap": DEFAULT_PLY_CAP},
    )


def _check_ply_cap(ply_cap) -> int:
    if isinstance(ply_cap, bool) or not isinstance(ply_cap, int) or not 1 <= ply_cap <= MAX_PLY_CAP:
        raise SpielError(
            f"ply_cap is a whole number of plies from 1 to {MAX_PLY_CAP:,}, not {ply_cap!r}"
        )
    return ply_cap


class SamuelGame(pyspiel.Game):
    """One of Samuel's games as a pyspiel game; the subclasses name the game."""

    samuel_name: str  # Samuel's registry name

    def __init__(self, params: dict | None = None) -> None:
        params = dict(params or {})
        unknown = set(params) - {"ply_cap"}
        if unknown:
            raise SpielError(
                f"{PREFIX}{self.samuel_name} has the parameter ply_cap only, not "
                f"{', '.join(sorted(unknown))}"
            )
        self.ply_cap = _check_ply_cap(params.get("ply_cap", DEFAULT_PLY_CAP))
        self.rules: GameRules = get_game(self.samuel_name)
        self.actions = ACTIONS[self.samuel_name]
        info = pyspiel.GameInfo(
            num_distinct_actions=self.actions.num_distinct,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.ply_cap * self.actions.longest_move,
        )
        super().__init__(_game_type(self.samuel_name, self.rules), info, {"ply_cap": self.ply_cap})
        self._tables: dict[Hashable, MoveTable] = {}  # by position, a few recent ones
        start = self.rules.initial_position()
        self.initial_standing = _standing(self, start, 0, (self.rules.key(start),))

    def new_initial_state(self) -> SamuelState:
        return SamuelState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return NetworkInputsObserver(self.rules, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)

    def move_table(self, position) -> MoveTable:
        table = self._tables.get(position)
        if table is None:
            if len(self._tables) >= 4096:  # a bounded cache: MCTS revisits its tree's positions
                self._tables.clear()
            table = self._tables[position] = MoveTable.of(self.rules, self.actions, position)
        return table


def _game_class(name: str) -> type[SamuelGame]:
    """The pyspiel game class of Samuel's game ``name``: ``TigersGame`` for ``tigers``."""
    return type(f"{name.title()}Game", (SamuelGame,), {"samuel_name": name})


GAME_CLASSES = {name: _game_class(name) for name in ACTIONS}  # by Samuel's game name


# -- States -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    """Where a state stands: the Samuel position (before the move being made, in a capture), the
    plies played, the keys of the positions since the last irreversible move (for threefold
    repetition), the actions so far of the move being made, and the outcome once the game is
    over. Immutable, so a clone shares it (pyspiel clones a Python state by deep-copying its
    attributes) and serialisation pickles it (pyspiel pickles them)."""

    position: Hashable
    plies: int  # Samuel's plies played, toward the ply cap
    keys: tuple[int, ...]
    path: Path = ()
    outcome: Outcome | None = None

    def __deepcopy__(self, memo) -> Standing:
        return self


def _judge(game: SamuelGame, position, plies: int, keys: tuple[int, ...]) -> Outcome | None:
    """The outcome after a move, as :class:`samuel.games.game.Game` judges it."""
    decided = game.rules.decided_outcome(position)
    if decided is not None:
        return decided
    # A position before an irreversible move cannot occur again, so counting the keys since the
    # last one gives Game's count of every key.
    if keys.count(keys[-1]) >= 3:
        return Outcome(termination=Termination.REPETITION, winner=None)
    if plies >= game.ply_cap:
        return Outcome(termination=Termination.PLY_CAP, winner=None)
    return None


def _standing(game: SamuelGame, position, plies: int, keys: tuple[int, ...]) -> Standing:
    return Standing(position, plies, keys, (), _judge(game, position, plies, keys))


class SamuelState(pyspiel.State):
    """A game in progress, backed by Samuel's rules: see :class:`Standing` for what it holds.

    ``position`` is the Samuel position (before the move being made, in a capture), ``rules``
    Samuel's :class:`~samuel.games.base.GameRules`, ``outcome`` Samuel's outcome (None while the
    game goes on).
    """

    def __init__(self, game: SamuelGame) -> None:
        super().__init__(game)
        self.standing = game.initial_standing

    @property
    def position(self):
        return self.standing.position

    @property
    def plies(self) -> int:
        return self.standing.plies

    @property
    def path(self) -> Path:
        return self.standing.path

    @property
    def outcome(self) -> Outcome | None:
        return self.standing.outcome

    @property
    def rules(self) -> GameRules:
        return self.get_game().rules

    # OpenSpiel's API

    def current_player(self) -> int:
        if self.standing.outcome is not None:
            return pyspiel.PlayerId.TERMINAL
        return self.get_game().rules.side_to_move(self.standing.position)

    def _legal_actions(self, player: int) -> list[int]:
        standing = self.standing
        if standing.outcome is not None:
            return []
        table = self.get_game().move_table(standing.position)
        return list(table.next.get(standing.path, ()))

    def _apply_action(self, action: int) -> None:
        standing, game = self.standing, self.get_game()
        rules = game.rules
        if standing.outcome is not None:
            raise IllegalMoveError(f"action {action} is not legal: the game is over")
        table = game.move_table(standing.position)
        if action not in table.next.get(standing.path, ()):
            raise IllegalMoveError(
                f"action {action} ({self._action_to_string(0, action)}) is not legal in {self}"
            )
        path = standing.path + (action,)
        code = table.moves.get(path)
        if code is None:  # a capture goes on
            self.standing = Standing(standing.position, standing.plies, standing.keys, path)
            return
        move = rules.move_from_code(code)
        position = _play(rules, standing.position, move)
        key = rules.key(position)
        irreversible = rules.is_irreversible(standing.position, move)
        keys = (key,) if irreversible else standing.keys + (key,)
        self.standing = _standing(game, position, standing.plies + 1, keys)

    def _action_to_string(self, player: int, action: int) -> str:
        standing, game = self.standing, self.get_game()
        if not 0 <= action < game.actions.num_distinct:
            return f"{action} (no action: they are 0 to {game.actions.num_distinct - 1})"
        capturing = bool(standing.path) or game.move_table(standing.position).capturing
        return game.actions.describe(action, capturing)

    def is_terminal(self) -> bool:
        return self.standing.outcome is not None

    def returns(self) -> list[float]:
        outcome = self.standing.outcome
        result = 0.0 if outcome is None else float(outcome.result)
        return [result, -result]

    def __str__(self) -> str:
        standing = self.standing
        text = self.get_game().rules.format_position(standing.position)
        if standing.path:
            text += f" after {self.get_game().actions.describe_path(standing.path)}"
        return text


class NetworkInputsObserver:
    """The observation: the input vector of the game's network, Samuel's encoding (58 inputs for
    Tigers & Sheep, which say who is to move; 128 for draughts, seen from the side to move), of
    the state's position (in a capture being made, the position before the move). The string
    is the state's ``str``."""

    def __init__(self, rules: GameRules, params=None) -> None:
        if params:
            raise SpielError(f"the observation takes no parameters, not {params!r}")
        self.rules = rules
        size = game_kernels.GAMES[rules.number & game_kernels.GAME_MASK].network_inputs
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}
        self._active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)
        self._values = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.float32)

    def set_from(self, state: SamuelState, player: int) -> None:
        self.tensor.fill(0.0)
        n = game_kernels.network_inputs(
            self.rules.number, self.rules.encode(state.position), self._active, self._values
        )
        self.tensor[self._active[:n]] = self._values[:n]

    def string_from(self, state: SamuelState, player: int) -> str:
        return str(state)


for _name, _game in GAME_CLASSES.items():
    pyspiel.register_game(_game_type(_name, get_game(_name)), _game)


# -- For Samuel's players -----------------------------------------------------------------------


def load(game: str | None = None, ply_cap: int = DEFAULT_PLY_CAP) -> pyspiel.Game:
    """The pyspiel game of Samuel's game ``game`` (its registry name: ``tigers``, ``draughts``;
    None: the first registered game that OpenSpiel knows), a draw after ``ply_cap`` plies."""
    if game is None and ACTIONS:
        game = next(iter(ACTIONS))
    if game not in ACTIONS:
        known = ", ".join(name for name in descriptors() if name in ACTIONS)
        raise SpielError(f"OpenSpiel knows no Samuel game {game!r}; the games are: {known}")
    return pyspiel.load_game(PREFIX + game, {"ply_cap": _check_ply_cap(ply_cap)})


def state_at(
    spiel_game: pyspiel.Game, position, plies: int = 0, history: Iterable = ()
) -> SamuelState:
    """A state of ``spiel_game`` (from :func:`load`) at the Samuel ``position``, with ``plies``
    plies already played (they count toward the ply cap) and ``history`` the positions before it
    since the game's start, oldest first, or their keys (``rules.key``), for the repetition rule.

    Its OpenSpiel history is empty: it starts where it stands.
    """
    if not isinstance(spiel_game, SamuelGame):
        raise SpielError(f"{spiel_game!r} is not one of Samuel's games in OpenSpiel")
    if isinstance(plies, bool) or not isinstance(plies, int) or plies < 0:
        raise SpielError(f"plies is a whole number, at least 0, not {plies!r}")
    rules = spiel_game.rules
    try:
        text = rules.format_position(position)
    except (AttributeError, TypeError, ValueError) as error:
        raise SpielError(f"{position!r} is not a {rules.title} position") from error
    if rules.parse_position(text) != position:
        raise SpielError(f"{text} is not a {rules.title} position of the standard game")
    try:
        keys = tuple(
            int(key) if isinstance(key, int | np.integer) else rules.key(key) for key in history
        )
    except (AttributeError, TypeError, ValueError) as error:
        raise SpielError(
            f"the history holds {rules.title} positions or their keys, not {history!r}"
        ) from error
    state = spiel_game.new_initial_state()
    state.standing = _standing(spiel_game, position, plies, keys + (rules.key(position),))
    return state


def move_actions(rules: GameRules, position, move) -> list[int]:
    """The actions that make Samuel's ``move`` in ``position`` (one, or one per jump of a
    draughts capture); raises :class:`IllegalMoveError` if the move is not legal there."""
    actions = _actions_of(rules)
    try:
        code = rules.move_code(move)
    except (AttributeError, TypeError) as error:
        raise SpielError(f"{move!r} is not a {rules.title} move") from error
    if code not in {rules.move_code(m) for m in rules.legal_moves(position)}:
        raise IllegalMoveError(
            f"{rules.format_move(move)} is not legal in {rules.format_position(position)}"
        )
    return list(actions.path(code))


def move_of_actions(rules: GameRules, position, actions: Sequence[int]):
    """The Samuel move that ``actions`` make in ``position``; raises :class:`IllegalMoveError`
    (a ValueError) if they are not exactly one legal move's."""
    table = MoveTable.of(rules, _actions_of(rules), position)
    path = tuple(int(a) for a in actions)
    code = table.moves.get(path)
    if code is None:
        raise IllegalMoveError(
            f"actions {list(path)} are not one legal move in {rules.format_position(position)}"
        )
    return rules.move_from_code(code)


def _actions_of(rules: GameRules):
    actions = _BY_KERNEL.get(getattr(rules, "number", -1) & game_kernels.GAME_MASK)
    if actions is None:
        raise SpielError(f"OpenSpiel has no actions for {rules!r}")
    return actions
