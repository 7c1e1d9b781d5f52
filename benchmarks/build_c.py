"""Compiling a benchmark's C program, the same way for every benchmark that times one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def build_c(source: Path, directory: str) -> str:
    """Compile ``source`` into ``directory``; ``-march=native`` if gcc accepts it, else plain
    ``-O2``. Exits with gcc's message if neither works."""
    binary = os.path.join(directory, source.stem)
    for flags in (["-O2", "-march=native"], ["-O2"]):
        done = subprocess.run(
            ["gcc", "-std=c99", *flags, "-o", binary, str(source)], capture_output=True, text=True
        )
        if done.returncode == 0:
            return binary
    sys.exit(f"gcc failed:\n{done.stderr}")
