"""The progress bar of a long run: tqdm on standard error, and nothing when no one watches.

tqdm is imported only when a bar is shown, so the core never needs it.
"""

from __future__ import annotations

import sys
from typing import Protocol


class ProgressBar(Protocol):
    def update(self, count: int) -> None: ...
    def set_postfix_str(self, text: str) -> None: ...
    def close(self) -> None: ...


class NoProgressBar:
    """Shows nothing."""

    def update(self, count: int) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(
    total: int, description: str, enabled: bool = True, unit: str = "game"
) -> ProgressBar:
    """A bar counting up to ``total`` on standard error, when ``enabled`` and standard error is
    a terminal; otherwise one that shows nothing."""
    if not enabled or not sys.stderr.isatty():
        return NoProgressBar()
    from tqdm import tqdm

    return tqdm(
        total=total, desc=description, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True
    )
