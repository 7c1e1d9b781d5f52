"""What the page needs of a game with dice, shared by backgammon's and long nardy's web parts:
each play's checker steps on the board's squares with the die each step uses, and why a step a
person clicks is refused, in words, found from the game's own legal plays.

A game's web part describes its board by a :class:`DiceBoard`: how a side's own point (1-24, the
bar 25, off 0) is named on the board, whose numbering is the first player's. Its steps are the
rules' ``(start, to[, hit])`` in the mover's numbering; a step's die is ``start - to``, or for
bearing off any die at least that (the plays do not say which, so it is matched here).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import permutations

from samuel.games.base import IllegalMoveError, NotationError, shown

BAR, OFF = 25, 0  # a side's bar and tray as points of its own numbering

# Why a step is refused though the checker may make it: the rules about the whole play.
BOTH_DICE = "You must use both dice if you can: after that step the other die cannot be played."
ALL_DICE = "You must play as many of the dice as you can: after that step fewer can be played."
HIGHER_DIE = "The higher die if only one can be played: only the {high} may be played here."


@dataclass(frozen=True)
class DiceBoard:
    """A board of 24 points, the first player's numbering naming them, and each side's bar (if
    the game has one) and tray: ``square(side, point)`` is the board's name of ``side``'s own
    point (25 the bar, 0 off), ``point(side, square)`` the reverse (None: not ``side``'s)."""

    sides: tuple[str, str]
    other_point: Callable[[int], int]  # the first player's point p as the second's number
    has_bar: bool

    @property
    def squares(self) -> tuple[str, ...]:
        bars = tuple(f"bar-{side}" for side in self.sides) if self.has_bar else ()
        return (*(str(p) for p in range(1, 25)), *bars, *(f"off-{side}" for side in self.sides))

    def square(self, side: int, point: int) -> str:
        if point == BAR:
            return f"bar-{self.sides[side]}"
        if point == OFF:
            return f"off-{self.sides[side]}"
        return str(point if side == 0 else self.other_point(point))

    def point(self, side: int, square: str) -> int | None:
        if square == f"bar-{self.sides[side]}" and self.has_bar:
            return BAR
        if square == f"off-{self.sides[side]}":
            return OFF
        if square.isdigit() and 1 <= int(square) <= 24:
            return int(square) if side == 0 else self.other_point(int(square))
        return None

    def pieces(self, counts, off) -> list[dict]:
        """The checkers, a stack a square: ``{square, piece, side, count}`` in the board's
        order, from each side's counts on its own points 1, 2 ... (backgammon's 25th its bar)
        and its checkers borne ``off``."""
        stacks = {}
        for side in (0, 1):
            for point, count in enumerate(counts[side], start=1):
                if count:
                    stacks[self.square(side, point)] = (side, count)
            if off[side]:
                stacks[self.square(side, OFF)] = (side, off[side])
        return [
            {"square": square, "piece": "checker", "side": self.sides[side], "count": count}
            for square in self.squares
            if square in stacks
            for side, count in [stacks[square]]
        ]

    def read(self, side: int, square: str) -> int:
        """``side``'s own point of a board square; NotationError naming the board's squares."""
        point = self.point(side, square) if isinstance(square, str) else None
        if point is None:
            name = self.sides[side]
            bar = f", its bar (bar-{name})" if self.has_bar else ""
            raise NotationError(
                f"{shown(str(square))} is no square of the {name} side: the points are "
                f"1-24{bar} and its tray (off-{name})"
            )
        return point


def dice_of(roll) -> list[int]:
    """The dice a roll plays: two, or four of a double."""
    return [roll.high] * 4 if roll.is_double else [roll.high, roll.low]


def step_dice(steps, roll) -> list[int]:
    """The die each step uses (the steps in a play's order): exact for a move, at least the
    distance for bearing off, so that together they are the roll's dice."""
    dice = dice_of(roll)
    for order in dict.fromkeys(permutations(dice, len(steps))):
        if all(
            die == step[0] - step[1] or (step[1] == OFF and die >= step[0])
            for die, step in zip(order, steps, strict=True)
        ):
            return list(order)
    return [step[0] - step[1] for step in steps]  # pragma: no cover - every legal play fits


def move_path(board: DiceBoard, move, position, mover: int) -> dict:
    """A play (or a roll) as the page clicks it: its notation, its steps on the board's squares
    with their dice and hits, and (as every game's moves) its origin, target, path and the
    squares it hits."""
    if not hasattr(move, "steps"):  # a roll of the dice
        return {"move": str(move), "origin": None, "target": "", "path": [], "captured": []}
    dice = step_dice(move.steps, position.dice) if position.dice is not None else []
    steps = [
        {
            "from": board.square(mover, step[0]),
            "to": board.square(mover, step[1]),
            "hit": bool(step[2]) if len(step) > 2 else False,
            "die": die,
        }
        for step, die in zip(move.steps, dice or [0] * len(move.steps), strict=True)
    ]
    path = [steps[0]["from"], *(step["to"] for step in steps)] if steps else []
    return {
        "move": str(move),
        "origin": steps[0]["from"] if steps else None,
        "target": steps[-1]["to"] if steps else "",
        "path": path,
        "captured": [step["to"] for step in steps if step["hit"]],
        "steps": steps,
    }


def refusal(
    rules,
    board: DiceBoard,
    position,
    done: list[tuple[str, str]],
    origin: str,
    target: str | None,
    local: Callable[[object, list, int, int], str | None],
) -> str:
    """Why the person to play cannot move the checker on ``origin`` (to ``target``, or by any
    die left when None) after the steps ``done`` (board squares), in a sentence. ``local(position,
    done, start, die)`` is the game's reason a checker may not make that one step (blocked, the
    bar first, bearing off, its own rules), None when it may; a step it allows but no legal play
    holds breaks a rule about the whole play (both dice, the higher die). Raises NotationError
    for squares that are not the mover's, IllegalMoveError when nothing is to be played or the
    steps are no legal play's start."""
    if position.dice is None:
        raise IllegalMoveError("there is no roll to play: the dice are still to be thrown")
    mover = rules.side_to_move(position)
    steps = [(board.read(mover, a), board.read(mover, b)) for a, b in done]
    start = board.read(mover, origin)
    end = None if target is None else board.read(mover, target)
    if start == OFF:
        raise NotationError("a checker borne off moves no more: click a checker on the board")
    plays = [play for play in rules.legal_moves(position) if _holds(play, steps)]
    if not plays:
        raise IllegalMoveError(
            f"the steps {_said(steps)} are the start of no legal play with {position.dice}"
        )
    left = _dice_left(plays[0], steps, position.dice)
    if not left:
        return "Every die is played: undo a step to change them."
    if end is not None:
        if end >= start:
            return "A checker only moves forward, towards its home and off."
        wanted = start - end
        fitting = [d for d in left if d == wanted or (end == OFF and d > wanted)]
        if not fitting:
            return (
                f"No die you have left moves that checker {wanted} points "
                f"(dice left: {', '.join(map(str, sorted(left, reverse=True)))})."
            )
        die = min(fitting)
        why = local(position, steps, start, die)
        if why is None and any(_holds(play, [*steps, (start, end)]) for play in plays):
            return "That step is legal: click the checker, then the point it goes to."
        return why or _whole_play(plays, steps, position.dice, die)
    dice = sorted(set(left), reverse=True)
    reasons = [local(position, steps, start, die) for die in dice]
    if all(reasons):
        return " ".join(dict.fromkeys(reasons))
    if any(_holds(play, [*steps, (start, max(start - d, OFF))]) for play in plays for d in dice):
        return "That checker can move: click it, then the point it goes to."
    die = next(d for d, r in zip(dice, reasons, strict=True) if not r)
    return _whole_play(plays, steps, position.dice, die)


def _holds(play, steps: list[tuple[int, int]]) -> bool:
    """Whether ``play``'s steps include ``steps`` (as many of each)."""
    have = Counter(step[:2] for step in play.steps)
    return not Counter(steps) - have


def _dice_left(play, steps: list[tuple[int, int]], roll) -> list[int]:
    """The roll's dice that ``steps`` (the start of ``play``) have not used, by the dice
    ``play`` gives them."""
    left = Counter(dice_of(roll))
    rest = Counter(steps)
    for step, die in zip(play.steps, step_dice(play.steps, roll), strict=True):
        if rest[step[:2]]:
            rest[step[:2]] -= 1
            left[die] -= 1
    return sorted(left.elements(), reverse=True)


def _whole_play(plays, steps, roll, die: int) -> str:
    """Why a step the checker may make is no legal play's: a rule about the whole turn."""
    most = max(len(play.steps) for play in plays)  # every legal play moves as many
    if not roll.is_double and most == 1 and die != roll.high:
        return HIGHER_DIE.format(high=roll.high)
    return ALL_DICE if roll.is_double else BOTH_DICE


def _said(steps: list[tuple[int, int]]) -> str:
    return " ".join(f"{a}/{'off' if b == OFF else b}" for a, b in steps) or "(none)"
