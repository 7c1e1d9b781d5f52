"""Samuel's backgammon in GNU Backgammon's terms (the PyPI bindings ``gnubg``, the extra
``samuel[gnubg]``): its board, its move tuples, and what its network says of each play of a
roll, with the move filters its own play and analysis use.

gnubg's board is the side not on roll's 25 counts, then the side on roll's, each in its own
numbering (points 1-24, then the bar), as Samuel's ``Position.opponent`` and ``Position.mover``.
Its equities are cubeless money equities (the cube centred): the points the side on roll
expects, a gammon counting 2 and a backgammon 3, as Samuel scores a game. A play is scored as
gnubg's ``findbestmoves`` scores it: minus the equity of the position it leaves, evaluated from
the other side at the same plies (the tests check the two agree).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from samuel.errors import SamuelError

from .rules import RULES, Play, Position

INSTALL = "pip install 'samuel[gnubg]'"
MAX_PLIES = 4  # gnubg's deepest setting ("4ply"); its move filters stop there too

# gnubg's move filters (movefilters.inc): for an evaluation at N plies, one entry per lower ply
# L < N, (accept, extra, threshold) or None where gnubg skips that ply (its accept -1). At ply L
# the candidates left are scored, and kept: the best ``accept``, then up to ``extra`` more while
# within ``threshold`` of the best; the rest keep their lower-ply scores and are out of the
# running. Only these are used here: gnubg's "normal" (its world class level and its analysis
# default) and "large" (supremo, grandmaster, 4ply).
Filter = tuple[int, int, float] | None
NORMAL: tuple[tuple[Filter, ...], ...] = (
    ((0, 8, 0.16),),
    ((0, 8, 0.16), None),
    ((0, 8, 0.16), None, (0, 2, 0.04)),
    ((0, 8, 0.16), None, (0, 2, 0.04), None),
)
LARGE: tuple[tuple[Filter, ...], ...] = (
    ((0, 16, 0.32),),
    ((0, 16, 0.32), None),
    ((0, 16, 0.32), None, (0, 4, 0.08)),
    ((0, 16, 0.32), None, (0, 4, 0.08), None),
)


class GnubgMissingError(SamuelError, ImportError):
    """GNU Backgammon's Python bindings are not installed."""


def load_gnubg():
    """The ``gnubg`` module, imported on first use (each process its own: a match's workers
    build their players from spec strings), or a one-line error saying how to install it."""
    try:
        import gnubg
    except ImportError:
        raise GnubgMissingError(
            f"GNU Backgammon's Python bindings are not installed ({INSTALL})"
        ) from None
    return gnubg


def gnubg_board(position: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """gnubg's board: the side not on roll's 25 counts, then the side on roll's."""
    return position.opponent, position.mover


def gnubg_steps(move: tuple[int, ...]) -> list[tuple[int, int]]:
    """The steps of gnubg's move tuple: (from, to) pairs in the mover's numbering, 25 the bar, 0
    off, one a die. The bindings end the tuple at its first 0, so a move off loses its 0 and
    every step after it: a tuple of odd length tells the steps up to its first move off."""
    pairs = list(move) + [0] * (len(move) % 2)
    return list(zip(pairs[::2], pairs[1::2], strict=True))


def gnubg_move(play: Play) -> tuple[int, ...]:
    """gnubg's move tuple of ``play``, in full (from, to, from, to ...; 25 the bar, 0 off), as
    ``gnubg.movetupletostring`` reads it."""
    return tuple(point for start, to, _ in play.steps for point in (start, to))


def after_gnubg_move(position: Position, move: tuple[int, ...]) -> Position:
    """The position gnubg's move tuple leaves (of what it tells: see :func:`gnubg_steps`),
    played here step by step, a checker landing on a lone opponent checker hitting it. Raises
    ValueError for a step that cannot be made."""
    mine, theirs = list(position.mover), list(position.opponent)
    for start, to in gnubg_steps(move):
        if not 0 <= to < start <= 25 or mine[start - 1] == 0:
            raise ValueError(f"gnubg's move {move} has a step {start}/{to} with no checker")
        mine[start - 1] -= 1
        if to > 0:
            if theirs[24 - to] == 1:
                theirs[24 - to] = 0
                theirs[24] += 1
            if theirs[24 - to]:
                raise ValueError(f"gnubg's move {move} lands on a made point {to}")
            mine[to - 1] += 1
    x, o = (mine, theirs) if position.x_to_move else (theirs, mine)
    return Position(tuple(x), tuple(o), not position.x_to_move, None)


def play_of_move(
    position: Position, move: tuple[int, ...], listed: Iterable[tuple[int, ...]] = ()
) -> Play:
    """Samuel's legal play that gnubg's move tuple stands for, found by the position it leaves
    (never by text: the bindings cut a tuple at its first move off). A cut tuple stands for a
    play with those steps that leaves a position no whole tuple of ``listed`` (the roll's other
    tuples, as ``findbestmoves`` gives them) leaves; where several would, the tuple does not say
    which, and this raises ValueError."""
    plays = RULES.plays(position)
    if len(move) % 2 == 0:
        child = after_gnubg_move(position, move)
        for play, reached in plays.items():
            if reached == child:
                return play
        raise ValueError(f"gnubg's move {move} is no legal play of {position}")
    named = {after_gnubg_move(position, other) for other in listed if len(other) % 2 == 0}
    steps = gnubg_steps(move)
    fitting = [
        play for play, child in plays.items() if _has_steps(play, steps) and child not in named
    ]
    if len(fitting) != 1:
        raise ValueError(f"gnubg's cut move {move} stands for {len(fitting)} plays of {position}")
    return fitting[0]


def _has_steps(play: Play, steps: list[tuple[int, int]]) -> bool:
    """Whether ``play`` makes each of ``steps`` (as many times as they are listed)."""
    left = [(start, to) for start, to, _ in play.steps]
    for step in steps:
        if step not in left:
            return False
        left.remove(step)
    return True


@dataclass(frozen=True)
class Scored:
    """A play as gnubg scored it: its cubeless money equity for the side that made it, and the
    plies it was scored at (below the asked-for plies where a move filter dropped it)."""

    play: Play
    equity: float
    plies: int


@dataclass
class Evaluator:
    """gnubg's network at one setting: ``plies`` deep, ``noise`` the standard deviation of the
    noise gnubg adds to each of its outputs, ``prune`` its pruning networks for the plies below,
    ``filters`` its move filters (:data:`NORMAL` or :data:`LARGE`).

    The noise is gnubg's deterministic noise (``eval_context``'s deterministic flag, which
    gnubg's own levels set): a hash of the board evaluated, not a random draw, so the same
    position always gets the same noise and a game is reproducible whatever the seed (gnubg's
    other noise comes from a generator seeded by the clock, which no seed here can reach)."""

    plies: int = 0
    noise: float = 0.0
    prune: bool = True
    filters: tuple[tuple[Filter, ...], ...] = NORMAL

    def __post_init__(self) -> None:
        if not 0 <= self.plies <= MAX_PLIES:
            raise ValueError(f"gnubg evaluates 0 to {MAX_PLIES} plies deep, not {self.plies}")
        self._gnubg = None
        self._contexts: dict[int, dict] = {}

    def _context(self, plies: int) -> dict:
        if self._gnubg is None:
            self._gnubg = load_gnubg()
            self._cube = self._gnubg.cube_info()  # money play, the cube centred, cubeless
        if plies not in self._contexts:
            # the bindings' order: cubeful, plies, deterministic, prune, noise
            self._contexts[plies] = self._gnubg.eval_context(
                0, plies, 1, int(self.prune), float(self.noise)
            )
        return self._contexts[plies]

    def equity_after(self, child: Position, plies: int) -> float:
        """The equity of the play that left ``child``, for the side that made it."""
        context = self._context(plies)
        return -float(self._gnubg.evaluate(gnubg_board(child), self._cube, context)[5])

    def chances(self, position: Position) -> list[float]:
        """The six chances of the side on roll in ``position`` (dice to roll) at ``plies``, as
        Samuel's outcome networks give them: win, gammon, backgammon, then the same lost."""
        found = self._gnubg_chances(position)
        return [found[0], found[1], found[2], 1.0 - found[0], found[3], found[4]]

    def _gnubg_chances(self, position: Position):
        context = self._context(self.plies)
        return self._gnubg.evaluate(gnubg_board(position), self._cube, context)

    def score(self, position: Position, keep: Play | None = None) -> list[Scored]:
        """Every legal play of ``position`` (dice rolled) scored as gnubg's move filters
        have it, best first: those that pass every filter at ``plies``, then the rest at the
        plies where they dropped out. ``keep`` (a play made, being judged) passes every
        filter, as gnubg's analysis keeps the play it judges."""
        plays = RULES.plays(position)
        scores = {play: self.equity_after(child, 0) for play, child in plays.items()}
        scored_at = dict.fromkeys(plays, 0)
        running = list(plays)
        if self.plies > 0 and len(plays) > 1:
            levels = self.filters[self.plies - 1]
            for level, rule in enumerate(levels):
                if rule is None:
                    continue
                if level > 0:
                    for play in running:
                        scores[play] = self.equity_after(plays[play], level)
                        scored_at[play] = level
                running = _filtered(running, scores, rule, keep)
            for play in running:
                scores[play] = self.equity_after(plays[play], self.plies)
                scored_at[play] = self.plies
        top = set(running)
        order = sorted(plays, key=lambda play: (play not in top, -scores[play]))
        return [Scored(play, scores[play], scored_at[play]) for play in order]


def _filtered(
    running: list[Play], scores: dict[Play, float], rule: tuple[int, int, float], keep
) -> list[Play]:
    """The plays a move filter keeps (see :data:`NORMAL`), best first, and ``keep``."""
    accept, extra, threshold = rule
    ranked = sorted(running, key=lambda play: -scores[play])
    count = min(len(ranked), accept)
    limit = min(len(ranked), count + extra)
    while count < limit and scores[ranked[count]] >= scores[ranked[0]] - threshold:
        count += 1
    kept = ranked[: max(count, 1)]
    if keep is not None and keep in running and keep not in kept:
        kept.append(keep)
    return kept
