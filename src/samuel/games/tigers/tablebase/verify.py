"""Check a built tablebase: every file's checksum, and every position against its moves.

The consistency pass recomputes each position's code from its children's stored codes and the
rules, and compares: a win in ``d`` plies needs a move into a loss in ``d - 1`` and none into a
faster loss; a loss in ``d`` needs every move to lead to a win, the slowest in ``d - 1`` (a loss
in 0: no move at all); a draw needs a move into a draw and none into a loss. A capture that
completes the win is a move into a loss in 0. If every position passes, the table is exactly
right, by induction on the distance: the ends of the game are judged by the rules themselves,
and each decided position is right if the positions its moves lead to are; a position stored as
a draw that is truly decided would have a child truly decided closer to the end, hence stored
right, which the check would see. ``samuel tablebase verify`` runs it through
:mod:`samuel.tablebase.verify`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from samuel.bits import lowest_bit
from samuel.games.tigers.board import FULL, JUMP_COUNT, JUMP_LAND, JUMP_OVER, NEIGHBOURS
from samuel.jit import kernel, parallel_kernel

from .counts import layer_counts
from .files import (
    TablebaseError,
    checksum_ok,
    find_captures_to_win,
    layer_path,
    open_codes,
    read_header,
)
from .index import MAX_CAPTURES_TO_WIN, decode_index, position_index
from .retrograde import CHUNKS
from .values import DRAW, LOSS_NOW

REPORTED = 8  # wrong positions named per layer


@kernel
def expected_code(index, captured, captures_to_win, tiger_to_move, other_side, next_sheep):
    """The code the rules and the children's stored codes give the position at ``index``.

    ``other_side`` holds the same layer's codes for the other side to move; ``next_sheep`` the
    next layer's, sheep to move (unused when a capture wins the game).
    """
    empties = captured + 1
    tigers, empty = decode_index(index, empties)
    sheep = FULL & ~(tigers | empty)
    movers = tigers if tiger_to_move else sheep
    fastest_loss = 0  # the smallest code of a child lost for its side to move (odd codes)
    slowest_win = 0  # the largest code of a child won for its side to move (even codes)
    draws = 0
    children = 0
    rest = empty
    while rest:
        p = lowest_bit(rest)
        rest &= rest - 1
        came = NEIGHBOURS[p] & movers
        while came:
            m = lowest_bit(came)  # the piece on m steps to p
            came &= came - 1
            moved = (1 << p) | (1 << m)
            child = other_side[
                position_index(tigers ^ moved if tiger_to_move else tigers, empty ^ moved, empties)
            ]
            children += 1
            if child == DRAW:
                draws += 1
            elif child & 1:
                if fastest_loss == 0 or child < fastest_loss:
                    fastest_loss = child
            elif child > slowest_win:
                slowest_win = child
        if tiger_to_move:
            for k in range(JUMP_COUNT[p]):
                over = JUMP_OVER[p, k]
                origin = JUMP_LAND[p, k]
                if (sheep >> over) & 1 and (tigers >> origin) & 1:
                    children += 1
                    if captured + 1 >= captures_to_win:
                        child = LOSS_NOW
                    else:
                        child = next_sheep[
                            position_index(
                                tigers ^ (1 << origin) ^ (1 << p),
                                empty ^ (1 << p) ^ (1 << origin) ^ (1 << over),
                                empties + 1,
                            )
                        ]
                    if child == DRAW:
                        draws += 1
                    elif child & 1:
                        if fastest_loss == 0 or child < fastest_loss:
                            fastest_loss = child
                    elif child > slowest_win:
                        slowest_win = child
    if children == 0:
        return LOSS_NOW
    if fastest_loss:
        return fastest_loss + 1
    if draws:
        return DRAW
    return slowest_win + 1


@parallel_kernel
def _check_layer(codes, captured, captures_to_win, tiger_to_move, other_side, next_sheep, wrong):
    """Count the positions whose stored code is not the expected one; note the first few
    (index, stored, expected) per chunk in ``wrong`` (CHUNKS x REPORTED x 3, -1 where unused)."""
    n = codes.shape[0]
    errors = np.zeros(CHUNKS, dtype=np.int64)
    for chunk in numba.prange(CHUNKS):
        for index in range(chunk * n // CHUNKS, (chunk + 1) * n // CHUNKS):
            expected = expected_code(
                index, captured, captures_to_win, tiger_to_move, other_side, next_sheep
            )
            if codes[index] != expected:
                if errors[chunk] < wrong.shape[1]:
                    wrong[chunk, errors[chunk], 0] = index
                    wrong[chunk, errors[chunk], 1] = codes[index]
                    wrong[chunk, errors[chunk], 2] = expected
                errors[chunk] += 1
    return errors.sum()


@dataclass(frozen=True)
class WrongEntry:
    """A position whose stored code is not what its moves give."""

    captured: int
    tiger_to_move: bool
    index: int
    stored: int
    expected: int


@dataclass(frozen=True)
class VerifyReport:
    """What ``verify`` found; ``ok`` when nothing is wrong."""

    captures_to_win: int
    positions: int
    bad_checksums: tuple[str, ...]
    bad_counts: tuple[str, ...]
    wrong_positions: int
    examples: tuple[WrongEntry, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not (self.bad_checksums or self.bad_counts or self.wrong_positions)


def verify(
    directory: str | os.PathLike, checksums: bool = True, log: Callable[[str], None] = print
) -> VerifyReport:
    """Check every layer file of the tablebase in ``directory``: the checksums, the counts in
    the headers, and every position against its moves (all cores)."""
    directory = Path(directory)
    captures_to_win = find_captures_to_win(directory)
    if not 1 <= captures_to_win <= MAX_CAPTURES_TO_WIN:
        raise TablebaseError(f"{directory}: {captures_to_win} captures to win is not supported")
    bad_checksums: list[str] = []
    bad_counts: list[str] = []
    examples: list[WrongEntry] = []
    wrong_total = 0
    positions = 0
    for captured in range(captures_to_win):
        paths = [layer_path(directory, captured, side) for side in (False, True)]
        headers = [read_header(path) for path in paths]
        for header, path in zip(headers, paths, strict=True):
            if header.captures_to_win != captures_to_win or header.captured != captured:
                raise TablebaseError(f"{path}: the header is for another layer or game")
        codes = [open_codes(path) for path in paths]
        next_sheep = (
            open_codes(layer_path(directory, captured + 1, False))
            if captured + 1 < captures_to_win
            else np.zeros(0, dtype=codes[0].dtype)
        )
        for side in (0, 1):
            path = paths[side]
            if checksums and not checksum_ok(path):
                bad_checksums.append(path.name)
            if layer_counts(codes[side], captured) != headers[side].counts:
                bad_counts.append(path.name)
            wrong = np.full((CHUNKS, REPORTED, 3), -1, dtype=np.int64)
            errors = int(
                _check_layer(
                    codes[side], captured, captures_to_win, side, codes[1 - side], next_sheep, wrong
                )
            )
            positions += len(codes[side])
            wrong_total += errors
            for index, stored, expected in wrong.reshape(-1, 3):
                if index >= 0 and len(examples) < REPORTED:
                    examples.append(
                        WrongEntry(captured, bool(side), int(index), int(stored), int(expected))
                    )
            log(
                f"{path.name}: {len(codes[side]):,} positions, {errors:,} wrong"
                + (
                    ""
                    if not checksums
                    else f", checksum {'bad' if path.name in bad_checksums else 'ok'}"
                )
                + (", header counts wrong" if path.name in bad_counts else "")
            )
    return VerifyReport(
        captures_to_win,
        positions,
        tuple(bad_checksums),
        tuple(bad_counts),
        wrong_total,
        tuple(examples),
    )
