"""Plain minimax to the end of the game, for checking the tablebase on small variants.

Nothing here comes from :mod:`samuel`. A position with the hand empty is a plain tuple
``(tigers, empty, captured, tiger_to_move)`` of frozensets of ``(x, y)`` points (every other
point holds a sheep); its moves follow :mod:`tests.reference.tigers_rules` (its lines; the tests
check that :func:`children` gives the same positions as its ``legal_moves`` and ``apply``).

``Solver(k)`` plays the variant won by ``k`` captures. ``solve(position, horizon)`` is the value
for the side to move if it is forced within ``horizon`` plies, by minimax over every line of play
(memoised: the value of a position to a depth depends on nothing else; a result is remembered
once settled, and is seen only by searches at least as deep as its distance):

- a position with ``k`` sheep captured, or whose side to move has no move, is lost, 0 plies;
- otherwise, to depth ``d``: a win in ``1 + p`` if some move leads to a loss in ``p`` (the least
  such ``p``); a loss in ``1 + p`` if every move leads to a win, the slowest in ``p``; and
  undecided (None) if neither is settled within ``d - 1`` plies of every move.

With a horizon beyond the variant's longest forced result this is the exact value: every win and
loss with its distance, and None exactly for the draws.
"""

from __future__ import annotations

from . import tigers_rules as ref

Value = tuple[int, int] | None  # (outcome +1 win / -1 loss for the side to move, plies)
State = tuple[frozenset, frozenset, int, bool]  # tigers, empty points, captured, tiger to move

POINTS = frozenset(ref.all_points())
NEIGHBOURS = {p: ref.neighbours(p) for p in POINTS}
JUMPS = {  # (over, land) along each line from p that has two more points
    p: [
        ((p[0] + dx, p[1] + dy), (p[0] + 2 * dx, p[1] + 2 * dy))
        for dx, dy in ref.line_directions(p)
        if ref.on_board((p[0] + 2 * dx, p[1] + 2 * dy))
    ]
    for p in POINTS
}


def state_of(position: ref.ReferencePosition) -> State:
    """A reference position with the hand empty as a state."""
    tigers = frozenset(p for p, piece in position.board.items() if piece == ref.TIGER)
    empty = POINTS - frozenset(position.board)
    return tigers, empty, ref.captured(position), position.tiger_to_move


def position_of(state: State) -> ref.ReferencePosition:
    tigers, empty, _, tiger_to_move = state
    board = {p: ref.TIGER if p in tigers else ref.SHEEP for p in POINTS - empty}
    return ref.ReferencePosition(board, 0, tiger_to_move)


def children(state: State, captures_to_win: int) -> list[State]:
    """The states after each legal move (none once ``captures_to_win`` sheep are captured)."""
    tigers, empty, captured, tiger_to_move = state
    if captured >= captures_to_win:
        return []
    result = []
    if tiger_to_move:
        for t in tigers:
            for q in NEIGHBOURS[t]:
                if q in empty:
                    result.append(((tigers - {t}) | {q}, (empty - {q}) | {t}, captured, False))
            for over, land in JUMPS[t]:
                if over not in tigers and over not in empty and land in empty:
                    result.append(
                        ((tigers - {t}) | {land}, (empty - {land}) | {t, over}, captured + 1, False)
                    )
    else:
        for s in POINTS - tigers - empty:
            for q in NEIGHBOURS[s]:
                if q in empty:
                    result.append((tigers, (empty - {q}) | {s}, captured, True))
    return result


class Solver:
    def __init__(self, captures_to_win: int) -> None:
        self.captures_to_win = captures_to_win
        self._decided: dict[State, tuple[int, int]] = {}
        self._undecided_to: dict[State, int] = {}  # the deepest search that settled nothing

    def solve(self, state: State, horizon: int) -> Value:
        if state in self._decided:  # exact, but only seen by a search that deep
            value = self._decided[state]
            return value if value[1] <= horizon else None
        if self._undecided_to.get(state, -1) >= horizon:
            return None
        moves = children(state, self.captures_to_win)
        if not moves:
            self._decided[state] = (-1, 0)
            return self._decided[state]
        if horizon == 0:
            return None
        fastest_loss = None
        slowest_win = 0
        unsettled = False
        for child in moves:
            value = self.solve(child, horizon - 1)
            if value is None:
                unsettled = True
            elif value[0] < 0:
                fastest_loss = value[1] if fastest_loss is None else min(fastest_loss, value[1])
            else:
                slowest_win = max(slowest_win, value[1])
        if fastest_loss is not None:
            result = (1, fastest_loss + 1)
        elif not unsettled:
            result = (-1, slowest_win + 1)
        else:
            self._undecided_to[state] = horizon
            return None
        self._decided[state] = result
        return result
