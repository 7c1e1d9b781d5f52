"""Retrograde analysis of one layer: every position with the hand empty and ``captured`` sheep
captured, both sides to move, solved backwards from the ends of the game.

The two sides of a layer lead into each other (a step keeps the captured count), so they are
solved together; a capture leads into the next layer, already solved (the build goes from the
most captures down), or, with ``captured + 1 == captures_to_win``, ends the game.

The method, level by level (``level`` L assigns the positions ``L`` plies from the end):

- ``initialise`` counts each position's moves that stay in the layer; a position with no move is
  a loss now (code 1). A tigers' position also looks its captures up in the next layer: a capture
  into a lost position for the sheep is a win in that many plies plus one (``external`` holds the
  fastest, flagged ``WIN_FLAG``); captures into won positions for the sheep only bound how long
  the tigers can resist (``external`` holds the longest); a capture into a draw can never be
  refuted, so it counts as a move that never resolves.
- ``propagate`` takes the positions decided at the level before (code ``L``) and walks their
  moves backwards (*unmoves*) to the undecided positions of the other side that lead to them: a
  move into a loss makes the mover's position a win in ``L`` plies; a move into a win uses up one
  of the mover's moves, and when none is left the position is a loss in ``L`` plies (the longest
  resistance, since the levels come in order), unless a capture lets it resist longer.
- ``schedule`` decides the tigers' positions whose captures settle them at this level.

What is never decided is a draw: neither side can force the end. Every kernel is a plain loop
(numba caches no recursion, issue #6061); the two sides of a level run on two threads, each
writing only the other side's arrays, and ``initialise`` runs on every core.
"""

from __future__ import annotations

import numba
import numpy as np

from samuel.bits import lowest_bit, popcount
from samuel.games.tigers.board import FULL, JUMP_COUNT, JUMP_LAND, JUMP_OVER, NEIGHBOURS
from samuel.jit import kernel, parallel_kernel

from .index import decode_index, position_index
from .values import DRAW, LOSS_NOW

WIN_FLAG = 0x8000  # external[]: the plies of a capture's win, not a bound on a loss
DISTANCE = 0x7FFF
CHUNKS = 256  # pieces of a layer handed to the threads of a parallel kernel


@kernel
def _initialise_position(
    index, captured, captures_to_win, tiger_to_move, values, counts, external, next_sheep
):
    """Set one position's starting code, count of unresolved moves and external bound.

    Returns the external distance (0 if none).
    """
    empties = captured + 1
    tigers, empty = decode_index(index, empties)
    sheep = FULL & ~(tigers | empty)
    moves = 0
    rest = empty
    while rest:
        p = lowest_bit(rest)
        rest &= rest - 1
        moves += popcount(NEIGHBOURS[p] & (tigers if tiger_to_move else sheep))
    captures = 0
    draws = 0
    best_win = 0
    loss_bound = 0
    if tiger_to_move:
        rest = empty
        while rest:
            land = lowest_bit(rest)
            rest &= rest - 1
            for k in range(JUMP_COUNT[land]):
                over = JUMP_OVER[land, k]
                origin = JUMP_LAND[land, k]  # jumps run both ways along a line
                if (sheep >> over) & 1 and (tigers >> origin) & 1:
                    captures += 1
                    if captured + 1 >= captures_to_win:
                        child = LOSS_NOW  # the capture wins the game
                    else:
                        child = next_sheep[
                            position_index(
                                tigers ^ (1 << origin) ^ (1 << land),
                                empty ^ (1 << land) ^ (1 << origin) ^ (1 << over),
                                empties + 1,
                            )
                        ]
                    if child == DRAW:
                        draws += 1
                    elif child & 1:  # a loss for the sheep: the tigers win in child plies + 1
                        if best_win == 0 or child < best_win:
                            best_win = child
                    elif child > loss_bound:
                        loss_bound = child
        external[index] = (WIN_FLAG | best_win) if best_win else loss_bound
    counts[index] = moves + draws
    values[index] = LOSS_NOW if moves + captures == 0 else DRAW
    if tiger_to_move:
        return best_win if best_win else loss_bound
    return 0


@parallel_kernel
def initialise(captured, captures_to_win, tiger_to_move, values, counts, external, next_sheep):
    """Fill one side's starting arrays; return the longest external distance (0 if none).

    ``external`` is used only for the tigers' side; ``next_sheep`` holds the codes of the next
    layer's sheep-to-move side (unused when a capture wins the game).
    """
    n = values.shape[0]
    longest = np.zeros(CHUNKS, dtype=np.int64)
    for chunk in numba.prange(CHUNKS):
        for index in range(chunk * n // CHUNKS, (chunk + 1) * n // CHUNKS):
            distance = _initialise_position(
                index,
                captured,
                captures_to_win,
                tiger_to_move,
                values,
                counts,
                external,
                next_sheep,
            )
            if distance > longest[chunk]:
                longest[chunk] = distance
    return longest.max()


@kernel
def propagate(level, empties, frontier, values, counts, external, into_tigers):
    """Walk back from the positions of one side decided ``level - 1`` plies from the end.

    ``frontier`` holds that side's codes; ``values``, ``counts`` and ``external`` are the other
    side's arrays (``external`` only when ``into_tigers``: the tigers moved last). Returns how many
    of the other side's positions it decided (code ``level + 1``).
    """
    new_code = level + 1
    into_loss = (level - 1) % 2 == 0  # the frontier's side to move has lost
    assigned = 0
    for index in range(frontier.shape[0]):
        if frontier[index] != level:
            continue
        tigers, empty = decode_index(index, empties)
        movers = tigers if into_tigers else FULL & ~(tigers | empty)
        rest = empty
        while rest:
            p = lowest_bit(rest)  # the point the piece came from
            rest &= rest - 1
            came = NEIGHBOURS[p] & movers
            while came:
                m = lowest_bit(came)  # where it stands now
                came &= came - 1
                moved = (1 << p) | (1 << m)
                j = position_index(
                    tigers ^ moved if into_tigers else tigers, empty ^ moved, empties
                )
                if values[j] != DRAW:
                    continue
                if into_loss:
                    values[j] = new_code
                    assigned += 1
                    continue
                left = counts[j] - 1
                counts[j] = left
                if left == 0:
                    if into_tigers:
                        bound = external[j]
                        if bound & WIN_FLAG or bound > level:
                            continue  # a capture settles it later (schedule)
                    values[j] = new_code
                    assigned += 1
    return assigned


@kernel
def schedule(level, values, counts, external):
    """Decide the tigers' positions that a capture settles ``level`` plies from the end: a
    capture that wins in ``level`` plies, or the longest capture once every other move is lost."""
    assigned = 0
    for index in range(values.shape[0]):
        bound = external[index]
        if bound == 0 or values[index] != DRAW:
            continue
        if bound & WIN_FLAG:
            if bound & DISTANCE == level:
                values[index] = level + 1
                assigned += 1
        elif bound == level and counts[index] == 0:
            values[index] = level + 1
            assigned += 1
    return assigned
