"""A whole game record judged: every decision (a position where the side to move had more than
one legal move) analysed by a player, the move played valued as deeply as the best, and the
error of each (the best value less the played move's, the mover's view: 0 for the best move),
summed up per side.

Records are Samuel's (``docs/records.md``; PDN for draughts) or, for a game that reads them,
its match files (backgammon's ``.mat``: the game's ``judge`` part lists their decisions).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from samuel.errors import SamuelError
from samuel.games import descriptors
from samuel.games.base import GameRules, NotationError
from samuel.games.game import Game
from samuel.games.record import parse_records, replay

from .positions import AnalysisRefused, analyse_position

WORST_SHOWN = 5
RECORD_FORMATS = ("record", "mat")


@dataclass(frozen=True)
class Judged:
    """One decision: where, who, the move played and the best, their values and the error."""

    game: int  # 1-based, in the file
    ply: int  # 1-based, in its game (a roll of the dice counts)
    side: str
    player: str
    position: str
    played: str
    best: str
    played_value: float
    best_value: float
    depth: int  # plies (with dice: rolls) the played move's value looked ahead

    @property
    def error(self) -> float:
        return max(0.0, self.best_value - self.played_value)


@dataclass(frozen=True)
class SideSummary:
    """One side's decisions summed up."""

    side: str
    player: str
    decisions: int
    total_error: float
    mean_error: float
    worst: tuple[Judged, ...]


@dataclass(frozen=True)
class RecordAnalysis:
    analyser: str
    decisions: tuple[Judged, ...]
    summaries: tuple[SideSummary, ...]
    seconds: float


@dataclass(frozen=True)
class _Decision:
    game_number: int
    game: Game  # at the decision, its history before it
    move: object
    player: str


def decisions_in(rules: GameRules, text: str, form: str = "record") -> Iterator[_Decision]:
    """The decisions of ``text``, a file of ``form`` (``record`` or ``mat``), in order. Raises
    :class:`NotationError` for text that is no such file, or a game's move that is illegal."""
    if form == "mat":
        judge = descriptors()[rules.name].part("judge")
        if judge is None or not hasattr(judge, "decisions_from_text"):
            raise NotationError(f"{rules.title} has no match files (.mat): give a record")
        try:
            found = judge.decisions_from_text(text)
        except SamuelError as error:  # the game's own error for a malformed file
            raise NotationError(str(error)) from None
        for decision in found:
            game = Game(rules, start=decision.position)
            if len(game.legal_moves()) > 1:  # a forced play is no decision
                yield _Decision(decision.game, game, decision.play, decision.player)
        return
    if form != "record":
        raise NotationError(
            f"a record's format is one of {', '.join(RECORD_FORMATS)}, not {form!r}"
        )
    records = parse_records(text, lambda title: _this_game(rules, title))
    if not records:
        raise NotationError("the text holds no game record")
    for number, record in enumerate(records, 1):
        replay(record)  # every move legal, the result agreeing
        game = Game(rules, start=record.start, ply_cap=record.ply_cap)
        for move in record.moves:
            if not game.chance_outcomes() and len(game.legal_moves()) > 1:
                player = record.players[rules.side_to_move(game.position)]
                yield _Decision(number, game.copy(), move, player)
            game.play(move)


def _this_game(rules: GameRules, title: str) -> GameRules:
    from samuel.games.record import rules_by_title

    found = rules_by_title(title)
    if found.name != rules.name:
        raise NotationError(f"the record is of {found.title}, not {rules.title}")
    return found


def analyse_record(
    rules: GameRules,
    text: str,
    player,
    form: str = "record",
    max_decisions: int | None = None,
    checkpoint: Callable[[], None] = lambda: None,
) -> RecordAnalysis:
    """Every decision of the record ``text`` judged by ``player`` (see the module). Raises
    :class:`NotationError` for a malformed record and :class:`AnalysisRefused` for one with
    more than ``max_decisions`` decisions (checked before any is analysed). ``checkpoint`` is
    called between decisions (a server's chance to give up)."""
    started = time.perf_counter()
    decisions = list(decisions_in(rules, text, form))
    if max_decisions is not None and len(decisions) > max_decisions:
        raise AnalysisRefused(
            f"the record has {len(decisions)} decisions; this server judges at most "
            f"{max_decisions} at once"
        )
    judged = []
    for decision in decisions:
        checkpoint()
        game = decision.game
        analysis = analyse_position(game, player, keep=decision.move)
        played = rules.format_move(decision.move)
        mine = analysis.find(played)
        if mine is None:  # the notation differs from the list's (a move's other spelling)
            raise NotationError(f"ply {game.ply + 1}: {played} is not among the legal moves")
        best = analysis.moves[0]
        judged.append(
            Judged(
                game=decision.game_number,
                ply=game.ply + 1,
                side=analysis.side_to_move,
                player=decision.player,
                position=analysis.position,
                played=played,
                best=best.move,
                played_value=mine.value,
                best_value=best.value,
                depth=mine.depth,
            )
        )
    return RecordAnalysis(
        analyser=getattr(player, "spec", "?"),
        decisions=tuple(judged),
        summaries=tuple(_summaries(rules, judged)),
        seconds=time.perf_counter() - started,
    )


def _summaries(rules: GameRules, judged: list[Judged]) -> Iterator[SideSummary]:
    for side in rules.sides:
        mine = [j for j in judged if j.side == side]
        players = dict.fromkeys(j.player for j in mine)
        total = sum(j.error for j in mine)
        yield SideSummary(
            side=side,
            player=" / ".join(players) if players else "?",
            decisions=len(mine),
            total_error=round(total, 6),
            mean_error=round(total / len(mine), 6) if mine else 0.0,
            worst=tuple(
                j for j in sorted(mine, key=lambda j: -j.error)[:WORST_SHOWN] if j.error > 0
            ),
        )


__all__ = [
    "RECORD_FORMATS",
    "AnalysisRefused",
    "Judged",
    "RecordAnalysis",
    "SideSummary",
    "analyse_record",
    "decisions_in",
]
