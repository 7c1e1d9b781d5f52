"""How the server and its page see each game: the squares and the pieces on them, the squares a
move passes, how results are said, and what the page needs to draw the board.

:class:`~samuel.games.base.GameRules` says what a game is; a :class:`WebGame` adds what a page
needs to show it, in words every game shares: a board is a list of ``{square, piece, side}``
(the game's own names: ``a1``, ``tiger``, ``tigers``; ``11``, ``king``, ``black``), and a move
is its notation with its origin, target and path (every square it lands on), so the page
highlights targets and lets a person click a move without knowing the game's rules.

A game the page can draw has a ``web`` part, ``samuel/games/<game>/web.py`` (plain data and
functions: the games sit below the server, so it imports nothing of it), which
:func:`web_game` finds through the registry:

- ``DRAWING`` (which board the page draws: ``GET /api/game`` says it), ``SQUARES``,
  ``DEFAULT_PLAYERS``, ``WIN_MESSAGES``, ``SIDE_PHRASES``, ``PLURAL_SIDES``,
  ``POSITION_EXAMPLE``, ``POSITION_HELP``, ``SCORE_UNIT``, ``EVALUATION_SCALE``: the fields of
  :class:`WebGame` of the same names;
- ``SCRIPT`` and ``STYLE``: the page's drawing of the board, its JavaScript (which hands
  ``static/app.js`` the drawing by ``useDrawing``) and its CSS, served as ``/game/drawing.js``
  and ``/game/drawing.css``;
- ``board(position)``: the pieces, as ``{square, piece, side}`` dicts by square in the game's
  order; ``move_path(move)``: a move as a ``{move, origin, target, path, captured}`` dict;
- and where the game needs them, ``parse_move(position, text)`` (a move read against the
  position, for short forms), ``extra_fields(position)`` (fields of the game state only this
  game has) and ``win_reason(outcome, side_phrases)`` (a win's reason in words).

A game with dice (its start is a chance node) also has ``PLY_CAP`` (a new game's default: its
turns are a roll and a play) and ``why_not(position, done, origin, target)`` (why a step a person
clicks is refused, in words); its ``move_path(move, position)`` reads the position the move is
played in (whose numbering its steps are in), and a move's path lists its ``steps``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from samuel.errors import UnsupportedGameError
from samuel.games import default_game, descriptors, get_game
from samuel.games.base import GameRules, Outcome
from samuel.web import schemas

# What a game's web part must have, as WebGame's fields of the same names in lower case.
PART_DATA = (
    "DRAWING",
    "SQUARES",
    "DEFAULT_PLAYERS",
    "WIN_MESSAGES",
    "SIDE_PHRASES",
    "PLURAL_SIDES",
    "POSITION_EXAMPLE",
    "POSITION_HELP",
    "SCORE_UNIT",
    "EVALUATION_SCALE",
    "SCRIPT",
    "STYLE",
)
PART_FUNCTIONS = ("board", "move_path")


@dataclass(frozen=True)
class WebGame:
    """One game as the web app shows it: its rules and its ``web`` part (:func:`web_game`)."""

    rules: GameRules
    part: ModuleType  # the game's web part: its functions
    drawing: str  # which board the page draws (GET /api/game says it)
    squares: tuple[str, ...]  # every square's name, in the game's order
    default_players: tuple[str, str]  # by rules.sides: a person moves first, the engine replies
    win_messages: tuple[str, str]  # by winning side, as a finished game's message opens
    side_phrases: tuple[str, str]  # by side, as a sentence names it ("the tigers", "Black")
    plural_sides: bool  # "the tigers are", "Black is"
    position_example: str  # a position string to show as an example
    position_help: str  # how the position string is written, in a line
    score_unit: str  # what a score of 1.0 is worth
    evaluation_scale: float  # the score the page's bar shows as about three quarters full
    script: Path  # the page's drawing of the board (JavaScript, served as /game/drawing.js)
    style: Path  # and its look (CSS, served as /game/drawing.css)
    dice: bool = False  # the game throws dice: the server throws them (web/dice.py)
    cube: ModuleType | None = None  # the game's cube_game part: the page's games use the cube
    ply_cap: int = 200  # a new game's, unless asked: a game that long is a draw

    @classmethod
    def of(cls, rules: GameRules, part: ModuleType) -> WebGame:
        """``rules``' game as its web ``part`` shows it; :class:`UnsupportedGameError` naming
        what the part lacks."""
        lacking = [name for name in PART_DATA + PART_FUNCTIONS if not hasattr(part, name)]
        if lacking:
            raise UnsupportedGameError(
                f"the web app cannot show {rules.title}: its web part ({part.__name__}) has no "
                f"{', '.join(lacking)}"
            )
        data = {name.lower(): getattr(part, name) for name in PART_DATA}
        dice = bool(rules.chance_outcomes(rules.initial_position()))
        if dice and not hasattr(part, "why_not"):
            raise UnsupportedGameError(
                f"the web app cannot show {rules.title}: its web part ({part.__name__}) has no "
                "why_not, which a game with dice needs"
            )
        cube = descriptors()[rules.name].part("cube_game") if dice else None
        ply_cap = getattr(part, "PLY_CAP", cls.ply_cap)
        return cls(rules=rules, part=part, dice=dice, cube=cube, ply_cap=ply_cap, **data)

    @property
    def name(self) -> str:
        return self.rules.name

    @property
    def record_suffix(self) -> str:
        """The record's file name ends with it: the game's, as ``samuel play`` saves it."""
        return self.rules.record_format.suffix

    def board(self, position) -> list[schemas.Piece]:
        """The pieces on the board, by square in the game's order."""
        return [schemas.Piece(**piece) for piece in self.part.board(position)]

    def move_path(self, move, position=None) -> schemas.MovePath:
        """The move's notation and the squares it starts from, passes and takes (with dice,
        its steps: ``position`` is the one it is played in)."""
        if self.dice:
            return schemas.MovePath(**self.part.move_path(move, position))
        return schemas.MovePath(**self.part.move_path(move))

    def why_not(self, position, done: list[tuple[str, str]], origin: str, target: str | None):
        """Why a person's step from ``origin`` (to ``target``) after ``done`` is refused."""
        return self.part.why_not(position, done, origin, target)

    def parse_move(self, position, text: str):
        """A move in notation, read against ``position`` where the game allows short forms;
        raises :class:`~samuel.games.base.NotationError` for text that is no move (and may raise
        :class:`~samuel.games.base.IllegalMoveError` for a move that is not legal there)."""
        parse = getattr(self.part, "parse_move", None)
        return self.rules.parse_move(text) if parse is None else parse(position, text)

    def extra_fields(self, position) -> dict:
        """Fields of the game state that only this game has (Tigers & Sheep's tallies)."""
        fields = getattr(self.part, "extra_fields", None)
        return {} if fields is None else fields(position)

    def outcome_message(self, outcome: Outcome, points: int | None = None) -> str:
        """A finished game's end in a sentence: "The tigers win: enough sheep captured.";
        a game played for ``points`` says them: "X wins: O passed the double (2 points)."."""
        reason = outcome.termination.value
        if outcome.winner is None:
            return f"A draw: {reason}."
        worth = "" if points is None else f" ({points} point{'s' * (points != 1)})"
        return f"{self.win_messages[outcome.winner]}: {self.win_reason(outcome)}{worth}."

    def win_reason(self, outcome: Outcome) -> str:
        reason = getattr(self.part, "win_reason", None)
        if reason is None:
            return outcome.termination.value
        return reason(outcome, self.side_phrases)

    def info(self) -> schemas.GameInfo:
        rules = self.rules
        start = rules.initial_position()
        return schemas.GameInfo(
            name=rules.name,
            title=rules.title,
            drawing=self.drawing,
            sides=list(rules.sides),
            side_phrases=list(self.side_phrases),
            first_to_move=rules.sides[rules.side_to_move(start)],
            squares=list(self.squares),
            start=rules.format_position(start),
            default_players=dict(zip(rules.sides, self.default_players, strict=True)),
            move_help=rules.move_help,
            position_example=self.position_example,
            position_help=self.position_help,
            view=rules.view_phrase,
            score_unit=self.score_unit,
            evaluation_scale=self.evaluation_scale,
            record_suffix=self.record_suffix,
            dice=self.dice,
            cube=self.cube is not None,
            ply_cap=self.ply_cap,
        )


def web_game(name: str) -> WebGame:
    """The web app's view of the registered game ``name`` (from its ``web`` part); raises
    ValueError for an unknown game and :class:`UnsupportedGameError` for one the page cannot
    draw."""
    rules = get_game(name)
    part = descriptors()[name].part("web")
    if part is None:
        drawn = [game.title for game in descriptors().values() if game.part("web") is not None]
        raise UnsupportedGameError(
            f"the web app cannot show {rules.title} yet: its page draws {' and '.join(drawn)}"
        )
    return WebGame.of(rules, part)


def default_web() -> WebGame:
    """The web app's view of the default game (the first registered)."""
    return web_game(default_game())


__all__ = ["WebGame", "default_web", "web_game"]
