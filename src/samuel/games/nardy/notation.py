"""Long nardy's notation: plays as backgammon writes them (``24/18 24/21``, ``13/7(2)``,
``3/off``) in the mover's numbering, and positions in one line (``24x15/24x15 w``).

A play here is its steps, one a die, each ``(start, to)`` with to 0 for off (``board.py`` packs a
step into 10 bits). Written, a checker's steps are chained (``24/18/13``: one checker on with
both dice) and equal chains are counted (``13/7(2)``), so the text names every step: reading it
back gives the same steps. A segment that spans more than one die (``24/13``) is read too, as one
step, which the rules then match to a legal play by the position it leaves.

A position is each side's checkers in its own numbering, White's then Black's, joined by ``/``:
``POINTxCOUNT`` items from its point 24 down, joined by commas, and ``offxN`` for those borne
off; then the side on roll, ``w`` or ``b``; then, once rolled, its dice (``3-1``). The start is
``24x15/24x15 w``.
"""

from __future__ import annotations

import re

from samuel.games.base import MAX_MOVE_CHARS, NotationError, check_length, shown

from .board import CHECKERS, FROM_SHIFT, MAX_STEPS, POINT_MASK, POINTS

Step = tuple[int, int]  # (start 1-24, to 0-23)

_CHAIN = re.compile(r"(2[0-4]|1[0-9]|[1-9])((?:/(?:off|2[0-4]|1[0-9]|[0-9]))+)(?:\(([1-4])\))?")
_LINK = re.compile(r"/(off|\d+)")
_ITEM = re.compile(r"(off|\d{1,2})x(\d{1,2})")
PASS_TEXT = "pass"
SIDE_LETTERS = ("w", "b")  # the side on roll in a position's text: White, Black


def step_value(step: Step) -> int:
    """The step's 10-bit value (``board.py``): plays sort their steps by it, largest first."""
    start, to = step
    return (start << FROM_SHIFT) | to


def step_of(value: int) -> Step:
    return (value >> FROM_SHIFT) & POINT_MASK, value & POINT_MASK


def sorted_steps(steps) -> tuple[Step, ...]:
    """Steps in a play's order: by value, largest first (the compiled side's order)."""
    return tuple(sorted(steps, key=step_value, reverse=True))


def _point(point: int) -> str:
    return "off" if point == 0 else str(point)


def format_steps(steps: tuple[Step, ...]) -> str:
    """``24/18/13 6/4(2)``: each checker's steps chained, equal chains counted; ``pass`` for
    none."""
    if not steps:
        return PASS_TEXT
    rest = list(steps)
    chains: list[str] = []
    while rest:
        start, to = rest.pop(0)
        text = f"{start}/{_point(to)}"
        while to > 0:  # the same checker on, if one of the steps left goes on from here
            follow = next((s for s in rest if s[0] == to), None)
            if follow is None:
                break
            rest.remove(follow)
            to = follow[1]
            text += f"/{_point(to)}"
        chains.append(text)
    written: list[str] = []
    for chain in dict.fromkeys(chains):  # in order of first appearance
        count = chains.count(chain)
        written.append(chain if count == 1 else f"{chain}({count})")
    return " ".join(written)


def parse_steps(text: str) -> tuple[Step, ...]:
    """The steps of a play's text, sorted; a segment that spans more than one die (``24/13``)
    stays one step, for the rules to match by the position it leaves."""
    text = text.strip().lower()
    if text == PASS_TEXT:
        return ()
    if not text:
        raise NotationError("an empty play: write its checkers' moves (24/18 24/21), or pass")
    steps: list[Step] = []
    for token in text.split():
        match = _CHAIN.fullmatch(token)
        if not match:
            raise NotationError(
                f"{shown(token)} is not a checker's move: write start/end in the mover's "
                "numbering (points 1-24, off), (2) for two checkers: 24/18 24/21, 13/7(2), 3/off"
            )
        start = int(match.group(1))
        chain = []
        for link in _LINK.finditer(match.group(2)):
            to = 0 if link.group(1) == "off" else int(link.group(1))
            if not 0 <= to < start:
                raise NotationError(
                    f"{shown(token)}: a checker moves from a higher point to a lower one "
                    f"(towards off), not from {start} to {_point(to)}"
                )
            chain.append((start, to))
            start = to
            if to == 0 and link.end() != len(match.group(2)):
                raise NotationError(f"{shown(token)}: a checker borne off moves no further")
        steps.extend(chain * int(match.group(3) or 1))
    if len(steps) > MAX_STEPS:
        raise NotationError(
            f"{shown(text)} moves {len(steps)} times; a roll plays at most four dice"
        )
    return sorted_steps(steps)


def check_move_text(text: str) -> str:
    """``text`` stripped, if it is short enough for a move (base.check_length)."""
    return check_length(text, "a move", MAX_MOVE_CHARS)


# -- positions ------------------------------------------------------------------------------------


def format_side(counts: tuple[int, ...]) -> str:
    """One side's checkers: ``24x13,19x1,13x1``, its points from 24 down, then ``offxN``."""
    items = [f"{p}x{counts[p - 1]}" for p in range(POINTS, 0, -1) if counts[p - 1]]
    off = CHECKERS - sum(counts)
    if off:
        items.append(f"offx{off}")
    return ",".join(items)


def parse_side(text: str, name: str) -> tuple[int, ...]:
    """One side's 24 counts from its text (``name``, White or Black, for the errors); a
    NotationError saying what is wrong: bad syntax, a point named twice, a count other than
    fifteen."""
    counts = [0] * POINTS
    off = 0
    seen = set()
    for item in text.split(","):
        match = _ITEM.fullmatch(item)
        if not match:
            raise NotationError(
                f"{shown(item)} in {name}'s checkers is not POINTxCOUNT: a point 1-24 or off, "
                "x, and 1-15 checkers, as 24x15 or offx3"
            )
        where, count = match.group(1), int(match.group(2))
        if where != "off":
            where = str(int(where))
            if not 1 <= int(where) <= POINTS:
                raise NotationError(f"{name}'s checkers name point {where}; the points are 1-24")
        if count == 0:
            raise NotationError(f"{shown(item)} in {name}'s checkers: name only points it holds")
        if where in seen:
            named = "off" if where == "off" else f"point {where}"
            raise NotationError(f"{name}'s checkers name {named} twice")
        seen.add(where)
        if where == "off":
            off = count
        else:
            counts[int(where) - 1] = count
    total = sum(counts) + off
    if total != CHECKERS:
        raise NotationError(
            f"{name} has {total} checkers (on the board and off); a side has {CHECKERS}"
        )
    return tuple(counts)
