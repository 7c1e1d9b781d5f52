"""How the server and its page see each game: the squares and the pieces on them, the squares a
move passes, how results are said, and what the page needs to draw the board.

:class:`~samuel.games.base.GameRules` says what a game is; a :class:`WebGame` adds what a page
needs to show it, in words every game shares: a board is a list of ``{square, piece, side}``
(the game's own names: ``a1``, ``tiger``, ``tigers``; ``11``, ``king``, ``black``), and a move
is its notation with its origin, target and path (every square it lands on), so the page
highlights targets and lets a person click a move without knowing the game's rules. A game the
page can draw has one here (:data:`WEB_GAMES`); adding a game means adding one, and a drawing in
``static/app.js``.
"""

from __future__ import annotations

from dataclasses import dataclass

from samuel.errors import UnsupportedGameError
from samuel.games import get_game
from samuel.games.base import GameRules, Outcome
from samuel.games.draughts import rules as draughts
from samuel.games.tigers import rules as tigers
from samuel.web import schemas


@dataclass(frozen=True)
class WebGame:
    """One game as the web app shows it. Subclasses fill in the game's drawing."""

    rules: GameRules
    drawing: str  # which board app.js draws: "tigers" or "draughts"
    squares: tuple[str, ...]  # every square's name, in the game's order
    default_players: tuple[str, str]  # by rules.sides: a person moves first, the engine replies
    win_messages: tuple[str, str]  # by winning side, as a finished game's message opens
    side_phrases: tuple[str, str]  # by side, as a sentence names it ("the tigers", "Black")
    plural_sides: bool  # "the tigers are", "Black is"
    position_example: str  # a position string to show as an example
    position_help: str  # how the position string is written, in a line
    score_unit: str  # what a score of 1.0 is worth
    evaluation_scale: float  # the score the page's bar shows as about three quarters full

    @property
    def name(self) -> str:
        return self.rules.name

    @property
    def record_suffix(self) -> str:
        """The record's file name ends with it: the game's, as ``samuel play`` saves it."""
        return self.rules.record_format.suffix

    def board(self, position) -> list[schemas.Piece]:
        """The pieces on the board, by square in the game's order."""
        raise NotImplementedError

    def move_path(self, move) -> schemas.MovePath:
        """The move's notation and the squares it starts from, passes and takes."""
        raise NotImplementedError

    def parse_move(self, position, text: str):
        """A move in notation, read against ``position`` where the game allows short forms;
        raises :class:`~samuel.games.base.NotationError` for text that is no move (and may raise
        :class:`~samuel.games.base.IllegalMoveError` for a move that is not legal there)."""
        return self.rules.parse_move(text)

    def tigers_fields(self, position) -> dict:
        """Fields of the game state that only this game has (Tigers & Sheep's tallies)."""
        return {}

    def outcome_message(self, outcome: Outcome) -> str:
        """A finished game's end in a sentence: "The tigers win: enough sheep captured."."""
        reason = outcome.termination.value
        if outcome.winner is None:
            return f"A draw: {reason}."
        return f"{self.win_messages[outcome.winner]}: {self.win_reason(outcome)}."

    def win_reason(self, outcome: Outcome) -> str:
        return outcome.termination.value

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
        )


class TigersWeb(WebGame):
    """Tigers & Sheep: 25 points ``a1``-``e5``; pieces ``tiger`` and ``sheep``."""

    def board(self, position: tigers.Position) -> list[schemas.Piece]:
        pieces = []
        for p in range(25):
            if (position.tigers >> p) & 1:
                pieces.append(schemas.Piece(square=self.squares[p], piece="tiger", side="tigers"))
            elif (position.sheep >> p) & 1:
                pieces.append(schemas.Piece(square=self.squares[p], piece="sheep", side="sheep"))
        return pieces

    def move_path(self, move: tigers.Move) -> schemas.MovePath:
        name = tigers.point_name
        origin = None if move.origin is None else name(move.origin)
        target = name(move.target)
        return schemas.MovePath(
            move=str(move),
            origin=origin,
            target=target,
            path=[target] if origin is None else [origin, target],
            captured=[] if move.captured is None else [name(move.captured)],
        )

    def tigers_fields(self, position: tigers.Position) -> dict:
        names = self.squares
        return {
            "tigers": [names[p] for p in range(25) if (position.tigers >> p) & 1],
            "sheep": [names[p] for p in range(25) if (position.sheep >> p) & 1],
            "sheep_in_hand": position.sheep_in_hand,
            "captured": position.captured,
        }


class DraughtsWeb(WebGame):
    """English draughts: squares ``1``-``32`` (docs/rules-draughts.md); pieces ``man`` and ``king``
    of ``black`` and ``white``. A capture's path lists every landing square."""

    def board(self, position: draughts.Position) -> list[schemas.Piece]:
        pieces = []
        for i in range(32):
            bit = 1 << i
            side = "black" if position.black & bit else "white" if position.white & bit else None
            if side is not None:
                piece = "king" if position.kings & bit else "man"
                pieces.append(schemas.Piece(square=str(i + 1), piece=piece, side=side))
        return pieces

    def move_path(self, move: draughts.Move) -> schemas.MovePath:
        return schemas.MovePath(
            move=str(move),
            origin=str(move.origin),
            target=str(move.target),
            path=[str(square) for square in move.squares],
            captured=[str(square) for square in move.captured],
        )

    def parse_move(self, position: draughts.Position, text: str) -> draughts.Move:
        """Also the short form of a capture, ``15x31``, when one legal capture fits it."""
        return position.parse_move(text)

    def win_reason(self, outcome: Outcome) -> str:
        if outcome.termination is draughts.Termination.NO_LEGAL_MOVE and outcome.winner is not None:
            return f"{self.side_phrases[1 - outcome.winner]} has no legal move"
        return outcome.termination.value


WEB_GAMES: dict[str, WebGame] = {
    "tigers": TigersWeb(
        rules=tigers.RULES,
        drawing="tigers",
        squares=tuple(tigers.point_name(p) for p in range(25)),
        default_players=("classic:depth=4", "human"),  # the sheep move first
        win_messages=("The tigers win", "The sheep win"),
        side_phrases=("the tigers", "the sheep"),
        plural_sides=True,
        position_example="T3T/5/2S2/5/T3T T 19",
        position_help="Rows 5 to 1, side to move, sheep in hand.",
        score_unit="captured sheep",
        evaluation_scale=2.5,
    ),
    "draughts": DraughtsWeb(
        rules=draughts.RULES,
        drawing="draughts",
        squares=tuple(str(s) for s in range(1, 33)),
        default_players=("human", "classic:depth=4"),  # Black moves first
        win_messages=("Black wins", "White wins"),
        side_phrases=("Black", "White"),
        plural_sides=False,
        position_example="W:W18,K30:B10,14",
        position_help="PDN FEN: side to move, then White's and Black's squares; K marks a king.",
        score_unit="men",
        evaluation_scale=2.0,
    ),
}


def web_game(name: str) -> WebGame:
    """The web app's view of the registered game ``name``; raises ValueError for an unknown
    game and :class:`UnsupportedGameError` for one the page cannot draw."""
    rules = get_game(name)
    if name not in WEB_GAMES:
        raise UnsupportedGameError(
            f"the web app cannot show {rules.title} yet: its page draws "
            f"{' and '.join(game.rules.title for game in WEB_GAMES.values())}"
        )
    return WEB_GAMES[name]


__all__ = ["WEB_GAMES", "DraughtsWeb", "TigersWeb", "WebGame", "web_game"]
