"""GNU Backgammon as the judge of the plays in a .mat file (``samuel analyse --game backgammon
FILE.mat [--ply N]``), or of any list of decisions: each play made where the roll gave a choice,
against gnubg's best play of the roll.

A decision is judged as gnubg's own analysis judges a checker play (``show analysis`` in gnubg
1.07): every legal play scored at N plies (2 by default; cubeless money equity, the cube
centred), through gnubg's "large" move filter, its analysis default (the plays scored at 0
plies, the best and up to 15 more within 0.32 of it go on to 2 plies; at 3 plies and more the
best and up to 3 more within 0.08 at 2 plies go on; the play made always goes on). The error is
the best play's equity less the play made's, in millipoints (thousandths of a point); a blunder
here is an error above 0.080 (gnubg 1.07 marks a play doubtful above 0.030, bad above 0.060,
very bad above 0.120). A forced play (a roll with one legal play, a pass among them) is no
decision: gnubg's error rate per move counts the unforced moves only, and so do the means here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from samuel.files import read_text
from samuel.games.base import IllegalMoveError

from .gnubg_bridge import LARGE, MAX_PLIES, Evaluator
from .mat import MAX_MAT_BYTES, MatFileError, MatMatch, read_mat
from .notation import position_id
from .rules import RULES, Play, Position

DEFAULT_PLIES = 2
BLUNDER = 0.080  # an error above this, in points of equity, is a blunder
MILLI = 1000
WORST_SHOWN = 5


@dataclass(frozen=True)
class Decision:
    """A play to judge: the position with its dice rolled, and the play made."""

    position: Position
    play: Play
    player: str = ""  # who made it (a .mat file's name for its side)
    game: int = 1  # which game of the match (1-based)


@dataclass(frozen=True)
class Judgement:
    """gnubg's word on one decision, equities in points for the side that played."""

    decision: Decision
    best: Play
    best_equity: float
    equity: float  # of the play made

    @property
    def error(self) -> float:
        return self.best_equity - self.equity

    @property
    def millipoints(self) -> float:
        return MILLI * self.error


def judge(decisions: Iterable[Decision], plies: int = DEFAULT_PLIES) -> list[Judgement]:
    """gnubg's judgement of each decision with a choice (more than one legal play); forced ones
    are left out. Raises :class:`IllegalMoveError` for a play that is not legal."""
    if not 0 <= plies <= MAX_PLIES:
        raise ValueError(f"gnubg judges at 0 to {MAX_PLIES} plies, not {plies}")
    evaluator = Evaluator(plies=plies, noise=0.0, prune=True, filters=LARGE)
    judged = []
    for decision in decisions:
        position = decision.position
        if len(RULES.legal_moves(position)) < 2:
            continue
        play = RULES.resolve(position, decision.play)
        scored = evaluator.score(position, keep=play)
        made = next(s for s in scored if s.play == play)
        judged.append(Judgement(decision, scored[0].play, scored[0].equity, made.equity))
    return judged


@dataclass(frozen=True)
class PlayerReport:
    """One player's judged decisions, summed up."""

    player: str
    judgements: tuple[Judgement, ...]

    @property
    def decisions(self) -> int:
        return len(self.judgements)

    @property
    def total(self) -> float:
        """The errors summed, in millipoints."""
        return sum(j.millipoints for j in self.judgements)

    @property
    def mean(self) -> float:
        """Millipoints per decision with a choice (gnubg's error rate per unforced move)."""
        return self.total / self.decisions if self.decisions else 0.0

    @property
    def blunders(self) -> int:
        return sum(1 for j in self.judgements if j.error > BLUNDER)

    @property
    def blunder_share(self) -> float:
        return self.blunders / self.decisions if self.decisions else 0.0

    def worst(self, count: int = WORST_SHOWN) -> list[Judgement]:
        ranked = sorted(self.judgements, key=lambda j: -j.error)
        return [j for j in ranked[:count] if j.error > 0]


def reports(judgements: Sequence[Judgement]) -> list[PlayerReport]:
    """A report per player, in the order they first played."""
    players = dict.fromkeys(j.decision.player for j in judgements)
    return [
        PlayerReport(name, tuple(j for j in judgements if j.decision.player == name))
        for name in players
    ]


def player_name(match: MatMatch, side: int) -> str:
    """A side's player as the reports name it: its name in the file and its colour, so that two
    players of the same name stay apart."""
    return f"{match.names[side]} ({'XO'[side]})"


def decisions_of(match: MatMatch) -> list[Decision]:
    """Every play of every game of ``match``, replayed from the start (each checked legal)."""
    decisions = []
    for number, game in enumerate(match.games, 1):
        position = RULES.initial_position()
        for index, turn in enumerate(game.turns, 1):
            where = f"game {number}, turn {index} ({turn.text().strip()})"
            if position.winner() is not None:
                raise MatFileError(f"{where}: the game is already over")
            if position.x_to_move != (turn.side == 0):
                # the side to roll first is the one whose turn the file gives first
                if index > 1:
                    raise MatFileError(f"{where}: it is not this side's turn")
                position = Position(position.x, position.o, turn.side == 0, None)
            rolled = RULES.play(position, turn.roll)
            try:
                play = RULES.resolve(rolled, turn.play)
            except IllegalMoveError as error:
                raise MatFileError(f"{where}: {error}") from None
            decisions.append(Decision(rolled, play, player_name(match, turn.side), number))
            position = RULES.play(rolled, play)
    return decisions


def decisions_from_text(text: str) -> list[Decision]:
    """Every play of the .mat file's ``text`` (the analysis service's records); raises
    :class:`MatFileError` saying what is wrong."""
    if len(text.encode()) > MAX_MAT_BYTES:
        raise MatFileError(f"a .mat file is at most {MAX_MAT_BYTES:,} bytes")
    return decisions_of(read_mat(text))


def judge_file(path: str | os.PathLike, plies: int = DEFAULT_PLIES) -> list[Judgement]:
    """gnubg's judgement of every decision of the .mat file ``path``."""
    text = read_text(path, ".mat file", MAX_MAT_BYTES)
    try:
        match = read_mat(text)
    except MatFileError as error:
        raise MatFileError(f"{os.fspath(path)}: {error}") from None
    return judge(decisions_of(match), plies)


def describe(report: PlayerReport, plies: int) -> list[str]:
    """A player's report as lines of text."""
    lines = [
        f"{report.player}: {report.decisions} decisions judged at {plies} plies, "
        f"{report.mean:.1f} millipoints per decision (total {report.total:.0f}), "
        f"blunders (error > {MILLI * BLUNDER:.0f}) {report.blunders} "
        f"({100 * report.blunder_share:.1f}%)"
    ]
    for j in report.worst():
        position = j.decision.position
        lines.append(
            f"  {j.millipoints:6.0f}  {position_id(position.mover, position.opponent)} "
            f"{'X' if position.x_to_move else 'O'} {position.dice}: played {j.decision.play}, "
            f"best {j.best}"
        )
    return lines


def analyse(path: str, plies: int | None = None, write: Callable[[str], None] = print) -> None:
    """``samuel analyse --game backgammon FILE.mat``: each player's report."""
    plies = DEFAULT_PLIES if plies is None else plies
    if not 0 <= plies <= MAX_PLIES:
        raise MatFileError(f"--ply: gnubg judges at 0 to {MAX_PLIES} plies, not {plies}")
    judgements = judge_file(path, plies)
    write(f"file       {path}")
    write("judge      GNU Backgammon, cubeless money equity, move filter 'large'")
    for report in reports(judgements):
        for line in describe(report, plies):
            write(line)
