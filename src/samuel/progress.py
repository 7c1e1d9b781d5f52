"""The progress bar of a long run: tqdm on standard error, and nothing when no one watches.

Every command draws its bars through :func:`progress_bar`, so they look alike and all stay
quiet when standard error is not a terminal (a log file, CI). tqdm is imported only when a bar
is shown, so the core never needs it.
"""

from __future__ import annotations

import sys
from typing import Protocol


class ProgressBar(Protocol):
    total: int | None
    n: int

    def update(self, count: int) -> None: ...
    def set_postfix_str(self, text: str, refresh: bool = True) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> ProgressBar: ...
    def __exit__(self, *exception) -> None: ...


class NoProgressBar:
    """Shows nothing, but counts as a bar does (``n`` of ``total``)."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.n = 0

    def update(self, count: int) -> None:
        self.n += count

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> NoProgressBar:
        return self

    def __exit__(self, *exception) -> None:
        pass


def progress_bar(
    total: int | None,
    description: str,
    enabled: bool = True,
    unit: str = "game",
    leave: bool = False,
    unit_scale: bool = False,
) -> ProgressBar:
    """A bar counting up to ``total`` on standard error, when ``enabled`` and standard error is
    a terminal; otherwise one that shows nothing. ``leave`` keeps the finished bar on screen;
    ``unit_scale`` writes large counts as 1.2M. A ``total`` of None is work of unknown length:
    the bar counts and shows its rate, and makes no estimate of the time left."""
    if not enabled or not sys.stderr.isatty():
        return NoProgressBar(total)
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=description,
        unit=unit,
        unit_scale=unit_scale,
        file=sys.stderr,
        leave=leave,
        dynamic_ncols=True,
    )


class StageProgress:
    """A ``progress(stage, done, total)`` callback for work done in stages: each stage gets a
    bar of its own, opened at its first report and closed when it is done (or by :meth:`close`,
    e.g. on Ctrl-C)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.bar: ProgressBar | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.bar is None:
            self.bar = progress_bar(total, stage, enabled=self.enabled)
        self.bar.update(done - self.bar.n)
        if done >= total:
            self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
