"""What every game offers the rest of Samuel: the small interface search, players, matches and
training are written against, and the outcome of a game as data.

A game module provides a :class:`GameRules` object; :mod:`samuel.games` registers it by name. The
compiled side of the same interface is :mod:`samuel.games.kernels`.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from samuel.errors import SamuelError

Result = int  # the first player's view: +1 a win, -1 a loss, 0 a draw
Side = int  # 0 the first player (whose wins are positive), 1 the second


class Termination(enum.Enum):
    """The ways any game can end, which depend on its history rather than on one position. Each
    game adds its own ways, an enum of its own that its rules name as ``terminations`` (for Tigers
    & Sheep, :class:`samuel.games.tigers.rules.Termination`); their texts differ from these."""

    REPETITION = "threefold repetition"
    PLY_CAP = "ply cap reached"


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """The end of a game: why it ended, who won and how many points.

    ``termination`` is one of :class:`Termination` or one of the game's own reasons;
    ``winner`` is the side that won (0 the first player, 1 the second) or None for a draw;
    ``points`` what the win is worth (1 a plain win; a game that scores more, such as a gammon's
    2, says which class each count is: :attr:`GameRules.outcome_classes`). Keyword-only, so that
    no call can mix up a winner side with a result.

    >>> outcome = Outcome(termination=Termination.PLY_CAP, winner=None)
    >>> outcome.result, outcome.is_draw
    (0, True)
    """

    termination: enum.Enum
    winner: Side | None
    points: int = 1

    def __post_init__(self) -> None:
        side = isinstance(self.winner, int) and not isinstance(self.winner, bool)
        if not (self.winner is None or (side and self.winner in (0, 1))):
            raise ValueError(f"the winner is side 0, side 1 or None (a draw), not {self.winner!r}")
        if not isinstance(self.termination, enum.Enum):
            raise TypeError(f"a termination is an enum member, not {self.termination!r}")
        if isinstance(self.points, bool) or not isinstance(self.points, int) or self.points < 1:
            raise ValueError(f"a win is worth a whole number of points, not {self.points!r}")

    @property
    def result(self) -> Result:
        """The result from the first player's point of view: +1 a win, -1 a loss, 0 a draw."""
        return 0 if self.winner is None else 1 - 2 * self.winner

    @property
    def score(self) -> int:
        """The first player's points: ``result`` times what the win is worth (0 a draw)."""
        return self.result * self.points

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    @classmethod
    def from_result(cls, termination: enum.Enum, result: Result) -> Outcome:
        """The outcome whose :attr:`score` (first player's points, as the kernels give it) is
        ``result``: +1, 0 or -1 for most games, ±2 for a gammon ..."""
        if isinstance(result, bool) or not isinstance(result, int | np.integer):
            raise ValueError(f"a result is a whole number of points, not {result!r}")
        if result == 0:
            return cls(termination=termination, winner=None)
        return cls(termination=termination, winner=int(result < 0), points=abs(int(result)))


def terminations(rules: GameRules) -> tuple[enum.Enum, ...]:
    """Every way a game of ``rules`` can end: the game's own, then the shared ones."""
    return (*rules.terminations, *Termination)


@dataclass(frozen=True)
class RecordFormat:
    """How a game's records (:mod:`samuel.games.record`, ``docs/records.md``) name the game and
    its start, where games differ: Samuel's own tags for Tigers & Sheep, PDN's for draughts, so
    that other draughts programs read them. Positions and moves are written in the game's
    notation (``format_position``, ``format_move``); the players' tags are the ``sides``,
    capitalised.
    """

    game_tag: str  # the tag that names the game: "Game", or PDN's "GameType"
    game_value: str  # its value: the title, or PDN's game type number ("21")
    start_tag: str  # the tag of the start position: "Start", or PDN's "FEN"
    start_always: bool = True  # write the start tag for the initial position too
    setup_tag: bool = False  # write [SetUp "1"] with the start tag, as PGN and PDN ask
    result_aliases: Mapping[str, Result] = field(default_factory=dict)  # more tokens, read only
    suffix: str = ".txt"  # a record file's name ends with it: ".pdn" for PDN, which tools look for
    # What joins the words of a move written with spaces into one token of the movetext
    # (backgammon's "24/23 13/10" is written 24/23,13/10); no game's move has it otherwise.
    word_joiner: str = ","


class NotationError(SamuelError, ValueError):
    """Text that does not describe a point, move, position or game record."""


# The longest text the games' parsers read, checked before anything else is done with it: far
# more than any move (a draughts capture of 12 jumps is 38 characters) or position (a draughts
# FEN of 24 kings, ``:Q`` count and spaces, about 150) needs, and far less than the 4,300
# digits past which ``int`` refuses a number. So a huge input is refused in one short line, not
# with a ValueError from ``int`` or a message that repeats megabytes.
MAX_MOVE_CHARS = 100
MAX_POSITION_CHARS = 300
SHOWN_CHARS = 40  # characters of an over-long text that its error repeats


def shown(text: str) -> str:
    """``text`` quoted for an error, cut to :data:`SHOWN_CHARS` characters."""
    return repr(text) if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]!r}..."


def check_length(text: str, what: str, limit: int) -> str:
    """``text`` stripped of surrounding white space, if it is at most ``limit`` characters;
    otherwise :class:`NotationError` saying so (``what`` names the kind of text: "a move",
    "a position") and repeating only the first :data:`SHOWN_CHARS` characters.

    >>> check_length(" 11-15 ", "a move", MAX_MOVE_CHARS)
    '11-15'
    """
    if not isinstance(text, str):
        raise TypeError(f"{what} is text, not {type(text).__name__}")
    stripped = text.strip()
    if len(stripped) > limit:
        raise NotationError(
            f"{shown(stripped)} is too long for {what}: {len(stripped):,} characters, "
            f"and {what} is at most {limit}"
        )
    return stripped


def format_score(score: float) -> str:
    """A score with its sign and three decimals; one that rounds to zero is ``+0.000``, never
    ``-0.000`` (a tiny negative score reads as a loss that is not there).

    >>> format_score(-0.0002), format_score(-1.25), format_score(0.5)
    ('+0.000', '-1.250', '+0.500')
    """
    text = f"{score:+.3f}"
    return "+0.000" if text == "-0.000" else text


class IllegalMoveError(SamuelError, ValueError):
    """A well-formed move that the rules do not allow in the position."""


class GameRules(Protocol):
    """The rules of one game, behind one small interface.

    Positions are immutable and hashable; moves are immutable values. ``encode`` gives the
    compiled kernels' form of a position and ``move_code``/``move_from_code`` that of a move.
    """

    name: str  # the registry name, e.g. "tigers"
    title: str  # for people, e.g. "Tigers & Sheep"
    number: int  # the game's number (its descriptor's; a variant's bits above): the kernels' name
    # The key identifies the first key_words words of encode(): positions with the same key have
    # those words equal, and differ at most in the words after (counters the key leaves out,
    # such as draughts' 40-move count).
    key_words: int
    sides: tuple[str, str]  # the first player (wins are positive) and the second
    symmetry_count: int
    terminations: type[enum.Enum]  # the game's own ways to end (the shared: Termination)
    record_format: RecordFormat  # how its game records name it and its start
    # What a win of so many points is called: {1: "win"}, or {1: "single game", 2: "gammon"}.
    outcome_classes: Mapping[int, str]
    side_letters: tuple[str, str]  # the command line's short per-side options: -T, -S
    win_phrases: tuple[str, str]  # by side, as results are said: "tigers win"
    view_phrase: str  # whose view scores take, for people: "tigers' view"
    move_help: str  # how to type a move, for the terminal's prompt
    max_perft_depth: int  # the deepest perft the command line runs (the counts' int64 bound)

    def initial_position(self) -> Hashable: ...
    def legal_moves(self, position) -> list: ...  # none at a chance node
    # At a chance node (dice to roll): its outcomes, each with its probability (they sum to 1);
    # at any other position, none. An outcome is played like a move and has a code like one.
    def chance_outcomes(self, position) -> list[tuple[object, float]]: ...
    def play(self, position, move): ...  # a move, or a chance node's outcome
    def side_to_move(self, position) -> int:  # 0 for the first player, 1 for the second
        ...
    def decided_outcome(self, position) -> Outcome | None: ...
    def is_irreversible(self, position, move) -> bool: ...
    def key(self, position) -> int: ...
    def encode(self, position) -> np.ndarray: ...
    def move_code(self, move) -> int: ...
    def move_from_code(self, code: int): ...
    def transform_position(self, position, symmetry: int): ...
    def transform_move(self, move, symmetry: int): ...
    def parse_position(self, text: str): ...
    def format_position(self, position) -> str: ...
    def parse_move(self, text: str): ...
    def format_move(self, move) -> str: ...
    def draw_board(self, position) -> str: ...
    def classic_weights(self, path: str | None = None) -> np.ndarray: ...
    def perft(self, position, depth: int) -> int: ...  # leaf positions, compiled


class PositionRules:
    """The :class:`GameRules` methods that only ask the position or the move, for a game whose
    ``Position`` has ``key``, ``encode()``, ``decided_outcome()`` and ``transformed(symmetry)``
    and whose ``Move`` has ``code``, ``transformed(symmetry)``, ``str(move)`` (its notation),
    ``Move.parse(text)`` and ``Move.from_code(code)`` (``Move`` named by the class attribute
    ``move_type``)."""

    move_type: type
    outcome_classes: Mapping[int, str] = {1: "win"}  # noqa: RUF012  (read only)

    def chance_outcomes(self, position) -> list[tuple[object, float]]:
        return []  # a game without chance

    def decided_outcome(self, position) -> Outcome | None:
        return position.decided_outcome()

    def key(self, position) -> int:
        return position.key

    def encode(self, position) -> np.ndarray:
        return position.encode()

    def move_code(self, move) -> int:
        return move.code

    def move_from_code(self, code: int):
        return self.move_type.from_code(code)

    def transform_position(self, position, symmetry: int):
        return position.transformed(symmetry)

    def transform_move(self, move, symmetry: int):
        return move.transformed(symmetry)

    def parse_move(self, text: str):
        return self.move_type.parse(text)

    def format_move(self, move) -> str:
        return str(move)
