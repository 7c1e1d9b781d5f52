"""Build the tablebase: every layer, most captures first, each written as soon as it is solved.

``build(directory, captures_to_win)`` solves the layers ``captures_to_win - 1`` down to 0 (a
capture leads into a layer already solved) and writes each side of each to its file
(:mod:`samuel.games.tigers.tablebase.files`). A layer whose two files are already there,
whole and for the same rules, is kept, so an interrupted build resumes at the layer it was on;
its checksums are checked first, and a damaged file stops the build (the layers below would be
built on it). ``samuel tablebase build`` runs it through :mod:`samuel.tablebase.build`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from samuel.errors import CommandError
from samuel.files import check_output_folder, file_error
from samuel.progress import ProgressBar, progress_bar

from .counts import LayerCounts, layer_counts
from .files import (
    TablebaseError,
    checksum_ok,
    layer_path,
    open_codes,
    read_header,
    write_layer,
)
from .index import MAX_CAPTURES_TO_WIN, layer_size
from .retrograde import WIN_FLAG, initialise, propagate, schedule
from .values import CODE_DTYPE, LOSS_NOW, MAX_CODE

SIDES = (False, True)  # sheep to move, tigers to move


@dataclass(frozen=True, slots=True)
class LayerResult:
    """One side of one layer, as built or as found on disk."""

    captured: int
    tiger_to_move: bool
    counts: LayerCounts
    seconds: float  # the time to solve the layer (both sides); 0 if it was already built


def _layer_done(directory: Path, captures_to_win: int, captured: int) -> list[LayerResult]:
    """The layer's two results if both files are there, else [] (an interrupted build: the
    layer is solved again). Files that are kept must be whole, for this layer and with the right
    checksum, since the layers below are built on them: else :class:`TablebaseError` names the
    file and says how to rebuild it (files are written atomically, so a bad one is damage, not
    an interruption)."""
    paths = [layer_path(directory, captured, side) for side in SIDES]
    if not all(path.exists() for path in paths):
        return []
    found = []
    for side, path in zip(SIDES, paths, strict=True):
        rebuild = f"delete it and run `samuel tablebase build` again to rebuild layer {captured}"
        header = read_header(path)
        if header.captured != captured or header.tiger_to_move != side:
            raise TablebaseError(
                f"{path} holds the layer of {header.captured} captured, "
                f"{'tigers' if header.tiger_to_move else 'sheep'} to move: {rebuild}"
            )
        if not checksum_ok(path):
            raise TablebaseError(
                f"{path} is damaged: its checksum does not match its contents; {rebuild}"
            )
        found.append(LayerResult(captured, side, header.counts, 0.0))
    return found


def solve_layer(
    captured: int,
    captures_to_win: int,
    next_sheep: np.ndarray | None,
    bar: ProgressBar | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The codes of one layer, ``(sheep to move, tigers to move)``.

    ``next_sheep`` holds the codes of layer ``captured + 1``, sheep to move (None when a capture
    ends the game). ``bar`` counts the passes, one a ply of distance: each costs about the same
    (a sweep over the layer), but how many there are is known only at the end, and the share of
    positions decided says nothing of the time left (the draws are only known at the end), so
    the bar shows that share beside it and estimates no time.
    """
    n = layer_size(captured)
    empties = captured + 1
    values = (np.zeros(n, dtype=CODE_DTYPE), np.zeros(n, dtype=CODE_DTYPE))
    counts = (np.zeros(n, dtype=np.uint8), np.zeros(n, dtype=np.uint8))
    external = np.zeros(n, dtype=np.uint16)
    unused = np.zeros(0, dtype=CODE_DTYPE)
    no_bounds = np.zeros(0, dtype=np.uint16)
    if next_sheep is None:
        next_sheep = unused
    initialise(captured, captures_to_win, 0, values[0], counts[0], no_bounds, next_sheep)
    longest = int(
        initialise(captured, captures_to_win, 1, values[1], counts[1], external, next_sheep)
    )
    if longest >= WIN_FLAG:
        raise OverflowError(f"a capture out of layer {captured} is {longest} plies from the end")
    # Compile (or load) the level kernels here, not in two threads at once.
    propagate(1, empties, unused, unused, np.zeros(0, dtype=np.uint8), no_bounds, True)
    schedule(1, unused, np.zeros(0, dtype=np.uint8), no_bounds)
    decided = sum(int(np.count_nonzero(v == LOSS_NOW)) for v in values)

    def into_tigers(level: int) -> int:
        assigned = propagate(level, empties, values[0], values[1], counts[1], external, True)
        if level <= longest:
            assigned += schedule(level, values[1], counts[1], external)
        return assigned

    level = 1
    with ThreadPoolExecutor(max_workers=2) as pool:
        while True:
            tigers = pool.submit(into_tigers, level)
            sheep = pool.submit(
                propagate, level, empties, values[1], values[0], counts[0], no_bounds, False
            )
            assigned = tigers.result() + sheep.result()
            decided += assigned
            if bar is not None:
                bar.set_postfix_str(f"{decided / (2 * n):.1%} of positions decided", refresh=False)
                bar.update(1)
            if assigned == 0 and level >= longest:
                break
            level += 1
            if level >= MAX_CODE - 1:
                raise OverflowError(f"layer {captured}: distances beyond {MAX_CODE - 2} plies")
    return values


def build(
    directory: str | os.PathLike,
    captures_to_win: int = 5,
    progress: bool = True,
    log: Callable[[str], None] = print,
    bars: Callable[..., ProgressBar] = progress_bar,
) -> list[LayerResult]:
    """Build (or finish building) the tablebase in ``directory``; return every layer's counts,
    layer 0 first, sheep to move before tigers to move. ``bars`` makes each layer's progress bar
    (:func:`samuel.progress.progress_bar`'s arguments)."""
    if not 1 <= captures_to_win <= MAX_CAPTURES_TO_WIN:
        raise CommandError(
            f"the tablebase is built for 1 to {MAX_CAPTURES_TO_WIN} captures to "
            f"win, not {captures_to_win}"
        )
    directory = check_output_folder(directory, "tablebase folder")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise file_error("create the tablebase folder", directory, error) from None
    for path in sorted(directory.glob("captured-*.tb")):
        if read_header(path).captures_to_win != captures_to_win:
            raise TablebaseError(
                f"{path} belongs to the game won by {read_header(path).captures_to_win} "
                f"captures, not {captures_to_win}: build into another directory"
            )
    results: dict[int, list[LayerResult]] = {}
    for captured in range(captures_to_win - 1, -1, -1):
        done = _layer_done(directory, captures_to_win, captured)
        if done:
            log(f"layer {captured} captured: already built")
            results[captured] = done
            continue
        started = time.perf_counter()
        next_sheep = (
            open_codes(layer_path(directory, captured + 1, False))
            if captured + 1 < captures_to_win
            else None
        )
        with bars(
            None, f"layer {captured} captured", enabled=progress, unit="ply", leave=True
        ) as bar:
            values = solve_layer(captured, captures_to_win, next_sheep, bar)
        solved = time.perf_counter() - started
        del next_sheep
        layer = []
        for side in SIDES:
            counts = layer_counts(values[int(side)], captured)
            write_layer(directory, captures_to_win, captured, side, values[int(side)], counts)
            layer.append(LayerResult(captured, side, counts, solved))
        del values
        log(
            f"layer {captured} captured: solved in {solved:.1f} s, counted and written in "
            f"{time.perf_counter() - started - solved:.1f} s"
        )
        results[captured] = layer
    return [result for captured in sorted(results) for result in results[captured]]
