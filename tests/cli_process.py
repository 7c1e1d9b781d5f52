"""``samuel`` run as a user runs it: a separate process, its output captured."""

from __future__ import annotations

import subprocess
import sys


def samuel(*args: str, cwd=None) -> subprocess.CompletedProcess:
    """``python -m samuel.cli ARGS`` in ``cwd``, its output as text; at most five minutes."""
    return subprocess.run(
        [sys.executable, "-m", "samuel.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )
