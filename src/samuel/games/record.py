"""Game records in a PGN-like text format, for any game behind :class:`GameRules`.

A record is a block of tag lines and then the movetext, which ends with a result token::

    [Game "Tigers & Sheep"]
    [Tigers "alpha-beta"]
    [Sheep "random"]
    [Date "2025.01.31"]
    [Start "T3T/5/5/5/T3T S 20"]
    [Result "*"]

    1. c3 a1-b2 *

The format, every tag and every error are described in ``docs/records.md``.

>>> from samuel.games import get_game
>>> game = Game(get_game("tigers"))
>>> game.play_text("c3")
>>> record = record_from_game(game, {"tigers": "T", "sheep": "S"}, date="2025.01.31")
>>> print(format_record(record).splitlines()[-1])
1. c3 *
>>> [str(move) for move in parse_records(format_record(record))[0].moves]
['c3']
"""

from __future__ import annotations

import datetime
import enum
import os
import re
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass

from samuel.files import read_text, write_atomically
from samuel.games import registry
from samuel.games.base import (
    MAX_MOVE_CHARS,
    GameRules,
    IllegalMoveError,
    NotationError,
    Outcome,
    Result,
    terminations,
)
from samuel.games.game import Game

RESULT_TOKENS: dict[Result | None, str] = {1: "1-0", -1: "0-1", 0: "1/2-1/2", None: "*"}
RESULTS: dict[str, Result | None] = {token: result for result, token in RESULT_TOKENS.items()}
LINE_LENGTH = 80  # movetext lines are wrapped before they pass this many characters

_TAG_LINE = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]$')
_TAG_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_DATE = re.compile(r"^[0-9?]{4}\.[0-9?]{2}\.[0-9?]{2}$")
_TOKEN = re.compile(r"\{|\}|[^\s{}]+")
# ASCII digits only: ``\d`` and ``str.isdigit`` also accept ``"²"`` or ``"٣"``, which ``int``
# refuses.
_MOVE_NUMBER = re.compile(r"^([0-9]+)(\.\.\.|\.)(.*)$")
_PLY_CAP = re.compile(r"[0-9]{1,9}")  # up to 999,999,999 plies: more than any game is long
MAX_RECORDS_BYTES = 256 * 10**6  # over 100,000 games of a few kB, parsed into memory at once
SHOWN = 40  # characters of a bad value or token that an error repeats
# The longest token of movetext outside comments: a move number and a move (at most
# MAX_MOVE_CHARS) written together, "123...15x24x31". A longer one (thousands of digits, which
# ``int`` refuses) is refused before anything reads it. Comments may hold words of any length.
MAX_TOKEN_CHARS = 20 + MAX_MOVE_CHARS


def _shown(text: str) -> str:
    """``text`` quoted for an error, cut to ``SHOWN`` characters (a line may be megabytes)."""
    return repr(text) if len(text) <= SHOWN else f"{text[:SHOWN]!r}..."


def rules_by_title(title: str) -> GameRules:
    """The registered game whose title (``"Tigers & Sheep"``) or registry name (``"tigers"``)
    is ``title``; raises :class:`ValueError` if there is none."""
    for rules in registry().values():
        if title in (rules.title, rules.name):
            return rules
    titles = ", ".join(repr(rules.title) for rules in registry().values())
    raise ValueError(f"unknown game {_shown(title)}; the games are: {titles}")


def rules_by_game_tag(tag: str, value: str) -> GameRules:
    """The registered game whose records name it by ``[tag "value"]`` other than the Game tag:
    PDN's ``[GameType "21"]`` for English draughts (of a PDN game type such as ``21,B,8,8,N1,0``
    only the number counts). Raises :class:`ValueError` if there is none."""
    number = value.split(",")[0].strip()
    for rules in registry().values():
        if (rules.record_format.game_tag, rules.record_format.game_value) == (tag, number):
            return rules
    known = ", ".join(
        repr(rules.record_format.game_value)
        for rules in registry().values()
        if rules.record_format.game_tag == tag
    )
    raise ValueError(f"unknown {tag} {_shown(value)}; the known ones are: {known or 'none'}")


def _game_tags() -> list[str]:
    """The tags, other than Game, that name a registered game (PDN's GameType)."""
    tags = {rules.record_format.game_tag for rules in registry().values()} - {"Game"}
    return sorted(tags)


def _results(rules: GameRules) -> dict[str, Result | None]:
    """The result tokens read for ``rules``: the standard ones and the game's aliases."""
    return {**RESULTS, **rules.record_format.result_aliases}


def _side_tag(side: str) -> str:
    return side.capitalize()


def _standard_tags(rules: GameRules) -> tuple[str, ...]:
    sides = tuple(_side_tag(side) for side in rules.sides)
    form = rules.record_format
    game = ("Game",) if form.game_tag == "Game" else ("Game", form.game_tag)
    setup = ("SetUp",) if form.setup_tag else ()
    return (
        *game,
        *sides,
        "Date",
        *setup,
        form.start_tag,
        "Result",
        "Termination",
        "Points",
        "PlyCap",
    )


@dataclass(frozen=True)
class GameRecord:
    """One game as written down: who played, when, from where, the moves and how it ended.

    ``result`` is from the first player's view (+1, -1, 0), or None for an unfinished game;
    ``termination`` is None when the record does not say (always so for an unfinished game).
    A record is only text made data: :func:`replay` checks that the moves are legal and agree
    with the result.
    """

    rules: GameRules
    players: tuple[str, str]  # by rules.sides; "?" for unknown
    date: str  # YYYY.MM.DD, with "?" for unknown digits
    start: Hashable  # the start position
    moves: tuple = ()
    result: Result | None = None
    termination: enum.Enum | None = None  # one of terminations(rules)
    ply_cap: int | None = None
    extra_tags: tuple[tuple[str, str], ...] = ()  # any other tags, in order
    # What the win was worth when more than a point (a gammon's 2: the Points tag), else None.
    points: int | None = None

    def __post_init__(self) -> None:
        if not _DATE.match(self.date):
            raise ValueError(
                f"the date is YYYY.MM.DD (with ? for unknown digits), not {self.date!r}"
            )
        standard = _standard_tags(self.rules)
        for name, _ in self.extra_tags:
            if not _TAG_NAME.match(name) or name in standard:
                raise ValueError(
                    f"{name!r} cannot be an extra tag: tag names are letters, digits "
                    f"and _, and these are standard: {', '.join(standard)}"
                )

    @property
    def outcome(self) -> Outcome | None:
        """The outcome the record claims, when it names both the result and the termination."""
        if self.result is None or self.termination is None:
            return None
        return Outcome.from_result(self.termination, self.result * (self.points or 1))

    @property
    def tags(self) -> dict[str, str]:
        """Every tag as it is written, in order."""
        form = self.rules.record_format
        tags = {form.game_tag: form.game_value}
        for side, player in zip(self.rules.sides, self.players, strict=True):
            tags[_side_tag(side)] = player
        tags["Date"] = self.date
        if form.start_always or self.start != self.rules.initial_position():
            if form.setup_tag:
                tags["SetUp"] = "1"
            tags[form.start_tag] = self.rules.format_position(self.start)
        tags["Result"] = RESULT_TOKENS[self.result]
        if self.termination is not None:
            tags["Termination"] = self.termination.value
        if self.points is not None:
            tags["Points"] = str(self.points)
        if self.ply_cap is not None:
            tags["PlyCap"] = str(self.ply_cap)
        tags.update(self.extra_tags)
        return tags


def record_from_game(
    game: Game,
    players: Mapping[str, str],
    date: datetime.date | str | None = None,
    extra_tags: Mapping[str, str] | None = None,
) -> GameRecord:
    """The record of ``game`` so far. ``players`` maps sides (``"tigers"``) to names, "?" for a
    side left out; ``date`` defaults to today."""
    unknown = set(players) - set(game.rules.sides)
    if unknown:
        raise ValueError(
            f"players are named by side ({', '.join(game.rules.sides)}), "
            f"not {', '.join(sorted(unknown))}"
        )
    if date is None:
        date = datetime.date.today()
    if isinstance(date, datetime.date):
        date = date.strftime("%Y.%m.%d")
    outcome = game.outcome
    return GameRecord(
        rules=game.rules,
        players=tuple(players.get(side, "?") for side in game.rules.sides),
        date=date,
        start=game.start,
        moves=tuple(game.moves),
        result=None if outcome is None else outcome.result,
        termination=None if outcome is None else outcome.termination,
        ply_cap=game.ply_cap,
        extra_tags=tuple((extra_tags or {}).items()),
        points=None if outcome is None or outcome.points == 1 else outcome.points,
    )


def _numbering(rules: GameRules, start) -> int:
    """0 if the start position's side begins a numbered move (the side that moves first in the
    game), 1 if the record begins in the middle of one. Assumes the sides alternate."""
    leader = rules.side_to_move(rules.initial_position())
    return 0 if rules.side_to_move(start) == leader else 1


def _move_number(ply_index: int, offset: int) -> str:
    """``'3.'`` for a move that begins numbered move 3, ``'3...'`` for one that ends it."""
    number, second = divmod(ply_index + offset, 2)
    return f"{number + 1}{'...' if second else '.'}"


def move_number(rules: GameRules, start, ply_index: int) -> str:
    """The number a record gives ply ``ply_index`` (0: the first played) of a game from
    ``start``: ``'3.'`` where it begins numbered move 3, ``'3...'`` where it ends it. The
    terminal numbers the moves it shows so, as the record does."""
    return _move_number(ply_index, _numbering(rules, start))


def _quote(value: str) -> str:
    if "\n" in value or "\r" in value:
        raise ValueError(f"a tag value must be one line, not {value!r}")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_record(record: GameRecord) -> str:
    """The record as text: tag lines, a blank line, the movetext wrapped at about 80 characters
    and ending with the result token, and a final newline."""
    rules = record.rules
    offset = _numbering(rules, record.start)
    units = []
    for i, move in enumerate(record.moves):
        # a move written in words (backgammon's "24/23 13/10") is one token, its words joined
        text = rules.format_move(move).replace(" ", rules.record_format.word_joiner)
        number = _move_number(i, offset)
        units.append(f"{number} {text}" if i == 0 or not number.endswith("...") else text)
    units.append(RESULT_TOKENS[record.result])
    lines = [""]
    for unit in units:
        if lines[-1] and len(lines[-1]) + 1 + len(unit) > LINE_LENGTH:
            lines.append("")
        lines[-1] = f"{lines[-1]} {unit}" if lines[-1] else unit
    tag_lines = [f"[{name} {_quote(value)}]" for name, value in record.tags.items()]
    return "\n".join([*tag_lines, "", *lines]) + "\n"


def replay(record: GameRecord) -> Game:
    """Play the record's moves from its start under its ply cap, checking every move's legality,
    and check that its result (and termination, if given) agree with how the moves end.

    Returns the game; raises :class:`NotationError` naming the ply and what is wrong.
    """
    return _replay(
        record,
        lambda i: (
            f"ply {i + 1} ({record.rules.format_move(record.moves[i])})"
            if i < len(record.moves)
            else "the result"
        ),
    )


def _replay(record: GameRecord, where: Callable[[int], str]) -> Game:
    """:func:`replay`, with ``where(i)`` saying where ply ``i`` is written (``i`` = the number of
    moves for the result)."""
    game = Game(record.rules, record.start, record.ply_cap)
    for i, move in enumerate(record.moves):
        if game.outcome is not None:
            raise NotationError(
                f"{where(i)}: a move after the game ended "
                f"({game.outcome.termination.value}, ply {game.ply})"
            )
        try:
            game.play(move)
        except IllegalMoveError as error:
            raise NotationError(f"{where(i)}: illegal move: {error}") from None
    outcome, claimed = game.outcome, RESULT_TOKENS[record.result]
    if outcome is None and record.result is not None:
        raise NotationError(
            f"{where(game.ply)}: Result {claimed} disagrees with the moves, which "
            "do not end the game (an unfinished game's result is *)"
        )
    if outcome is None and record.termination is not None:
        raise NotationError(
            f"{where(game.ply)}: Termination {record.termination.value!r} "
            "disagrees with the moves, which do not end the game"
        )
    if outcome is not None and outcome.result != record.result:
        raise NotationError(
            f"{where(game.ply)}: Result {claimed} disagrees with the moves, which "
            f"end {RESULT_TOKENS[outcome.result]} ({outcome.termination.value})"
        )
    if outcome is not None and (record.points or 1) != outcome.points:
        raise NotationError(
            f"{where(game.ply)}: Points {record.points or 1} disagrees with the moves, whose "
            f"winner scores {outcome.points}"
        )
    if outcome is not None and record.termination not in (None, outcome.termination):
        raise NotationError(
            f"{where(game.ply)}: Termination {record.termination.value!r} "
            f"disagrees with the moves, which end by "
            f"{outcome.termination.value!r}"
        )
    return game


def parse_records(
    text: str, rules_lookup: Callable[[str], GameRules] = rules_by_title
) -> list[GameRecord]:
    """Every record in ``text``, each replayed to check it (see :func:`replay`).

    ``rules_lookup`` maps the Game tag to the rules. Any malformed record raises
    :class:`NotationError` naming the game (1-based), the line and what is wrong.
    """
    records = []
    for number, (tag_lines, move_lines) in enumerate(_split_records(text), 1):
        records.append(_parse_record(number, tag_lines, move_lines, rules_lookup))
    return records


def _split_records(text: str) -> list[tuple[list[tuple[int, str]], list[tuple[int, str]]]]:
    """Split text into (tag lines, movetext lines), each a list of (line number, line). A record
    starts at the first line, or at a tag line after movetext (outside a comment)."""
    records: list[tuple[list[tuple[int, str]], list[tuple[int, str]]]] = []
    in_movetext = in_comment = False
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        is_tag = line.startswith("[") and not in_comment
        if not records or (is_tag and in_movetext):
            records.append(([], []))
            in_movetext = False
        if is_tag and not in_movetext:
            records[-1][0].append((number, line))
            continue
        in_movetext = True
        records[-1][1].append((number, line))
        for char in line:
            in_comment = (char != "}") if in_comment else (char == "{")
    return records


def _parse_record(
    game_number: int,
    tag_lines: list[tuple[int, str]],
    move_lines: list[tuple[int, str]],
    rules_lookup: Callable[[str], GameRules],
) -> GameRecord:
    """One record from its lines, replayed to check it."""

    def fail(line: int, what: str) -> NotationError:
        return NotationError(f"game {game_number}, line {line}: {what}")

    first_line = (tag_lines or move_lines)[0][0]
    tags = _parse_tags(tag_lines, fail)
    game_tags = [tag for tag in _game_tags() if tag in tags]
    if "Game" in tags:
        line, title = tags.pop("Game")
        try:
            rules = rules_lookup(title)
        except (KeyError, ValueError) as error:
            raise fail(line, f"Game tag: {error}") from None
    elif game_tags:
        line, value = tags[game_tags[0]]
        try:
            rules = rules_by_game_tag(game_tags[0], value)
        except ValueError as error:
            raise fail(line, f"{game_tags[0]} tag: {error}") from None
    else:
        examples = " or ".join(
            f'[{rules.record_format.game_tag} "{rules.record_format.game_value}"]'
            for rules in registry().values()
        )
        raise fail(first_line, f"missing Game tag, such as {examples}")
    form = rules.record_format
    tags.pop(form.game_tag, None)
    if form.setup_tag:
        tags.pop("SetUp", None)
    players = tuple(tags.pop(_side_tag(side), (0, "?"))[1] for side in rules.sides)
    line, date = tags.pop("Date", (0, "????.??.??"))
    if not _DATE.match(date):
        raise fail(
            line, f"malformed Date {_shown(date)}: write YYYY.MM.DD, with ? for unknown digits"
        )
    start = rules.initial_position()
    if form.start_tag in tags:
        line, value = tags.pop(form.start_tag)
        try:
            start = rules.parse_position(value)
        except NotationError as error:
            raise fail(line, f"bad {form.start_tag} position: {error}") from None
    if "Result" not in tags:
        raise fail(first_line, 'missing Result tag, such as [Result "*"]')
    line, value = tags.pop("Result")
    results = _results(rules)
    if value not in results:
        raise fail(line, f"unknown Result {_shown(value)}: the results are {', '.join(results)}")
    result = results[value]
    termination = None
    if "Termination" in tags:
        line, value = tags.pop("Termination")
        by_value = {t.value: t for t in terminations(rules)}
        if value not in by_value:
            raise fail(
                line,
                f"unknown Termination {_shown(value)}: the terminations are "
                f"{', '.join(repr(v) for v in by_value)}",
            )
        termination = by_value[value]
    ply_cap = None
    if "PlyCap" in tags:
        line, value = tags.pop("PlyCap")
        if not _PLY_CAP.fullmatch(value) or int(value) < 1:
            raise fail(
                line,
                f"bad PlyCap {_shown(value)}: it is a whole number of plies from 1 to 999999999",
            )
        ply_cap = int(value)
    points = None
    if "Points" in tags:
        line, value = tags.pop("Points")
        if not _PLY_CAP.fullmatch(value) or int(value) < 2 or result in (None, 0):
            raise fail(
                line,
                f"bad Points {_shown(value)}: what a win is worth beyond a point, a whole "
                "number from 2, for a won game",
            )
        points = int(value)

    moves, lines_of_moves, (result_line, token) = _parse_movetext(
        rules, _numbering(rules, start), move_lines, (move_lines or tag_lines)[-1][0], fail
    )
    if results[token] != result:
        raise fail(
            result_line,
            f"the result token {token} disagrees with the Result tag {RESULT_TOKENS[result]}",
        )
    record = GameRecord(
        rules=rules,
        players=players,
        date=date,
        start=start,
        moves=tuple(moves),
        result=result,
        termination=termination,
        ply_cap=ply_cap,
        extra_tags=tuple((name, value) for name, (_, value) in tags.items()),
        points=points,
    )

    def where(i: int) -> str:
        if i == len(moves):
            return f"game {game_number}, line {result_line}"
        return (
            f"game {game_number}, line {lines_of_moves[i]}, ply {i + 1} "
            f"({rules.format_move(moves[i])})"
        )

    _replay(record, where)
    return record


def _parse_tags(
    tag_lines: list[tuple[int, str]], fail: Callable[[int, str], NotationError]
) -> dict[str, tuple[int, str]]:
    """Each tag's (line number, value), in order."""
    tags: dict[str, tuple[int, str]] = {}
    for line_number, line in tag_lines:
        match = _TAG_LINE.match(line)
        if not match:
            raise fail(line_number, f'malformed tag line {_shown(line)}: write [Name "value"]')
        name, value = match.group(1), re.sub(r"\\(.)", r"\1", match.group(2))
        if name in tags:
            raise fail(line_number, f"duplicate tag {name}")
        tags[name] = (line_number, value)
    return tags


def _parse_movetext(
    rules: GameRules,
    offset: int,
    move_lines: list[tuple[int, str]],
    last_line: int,
    fail: Callable[[int, str], NotationError],
) -> tuple[list, list[int], tuple[int, str]]:
    """The moves (checked for form, not legality), the line of each and the result token's
    (line, token). Comments are skipped; move numbers, where given, must fit the ply."""
    moves: list = []
    lines_of_moves: list[int] = []
    results = _results(rules)
    result: tuple[int, str] | None = None
    number: tuple[int, str] | None = None  # a move number waiting for its move
    in_comment = False
    line_number = last_line
    for line_number, line in move_lines:
        for token in _TOKEN.findall(line):
            if in_comment or token == "{":
                in_comment = token != "}"
                continue
            if result is not None:
                raise fail(line_number, f"{_shown(token)} after the result token {result[1]}")
            if token == "}":
                raise fail(line_number, "a '}' that closes no comment")
            if token in results:
                result = (line_number, token)
                continue
            if len(token) > MAX_TOKEN_CHARS:
                raise fail(
                    line_number,
                    f"token {_shown(token)} is too long: {len(token):,} characters, and a move "
                    f"with its number is at most {MAX_TOKEN_CHARS}",
                )
            match = _MOVE_NUMBER.match(token)
            if match:
                number = (line_number, match.group(1) + match.group(2))
                token = match.group(3)
                if not token:
                    continue
            expected = _move_number(len(moves), offset)
            if number is not None and number[1] != expected:
                raise fail(
                    number[0],
                    f"move number {_shown(number[1])} does not fit: ply "
                    f"{len(moves) + 1} is numbered {expected!r}",
                )
            number = None
            try:
                words = token.replace(rules.record_format.word_joiner, " ")
                moves.append(rules.parse_move(words))
            except NotationError as error:
                raise fail(line_number, f"malformed move token {_shown(token)}: {error}") from None
            lines_of_moves.append(line_number)
    if in_comment:
        raise fail(line_number, "unclosed comment: a '{' without its '}'")
    if result is None:
        raise fail(
            line_number, "missing result token at the end of the moves (1-0, 0-1, 1/2-1/2 or *)"
        )
    return moves, lines_of_moves, result


def write_records(path: str | os.PathLike, records: Iterable[GameRecord]) -> None:
    """Write the records to ``path``, separated by blank lines, atomically: into a temporary
    file in the same directory, then renamed over ``path``, so a reader sees the old file or the
    whole new one, and a failure leaves no temporary file behind."""
    write_atomically(path, "\n".join(format_record(record) for record in records))


def read_records(
    path: str | os.PathLike, rules_lookup: Callable[[str], GameRules] = rules_by_title
) -> list[GameRecord]:
    """Every record in the file at ``path`` (see :func:`parse_records`). Only a regular UTF-8
    file of at most ``MAX_RECORDS_BYTES`` is read: anything else raises
    :class:`samuel.errors.FileError` (a FIFO or a folder at once, without waiting)."""
    return parse_records(read_text(path, "records file", MAX_RECORDS_BYTES), rules_lookup)


__all__ = [
    "RESULTS",
    "RESULT_TOKENS",
    "GameRecord",
    "format_record",
    "parse_records",
    "read_records",
    "record_from_game",
    "replay",
    "rules_by_title",
    "write_records",
]
