"""Games registered from outside Samuel: ``$SAMUEL_EXTRA_GAMES`` names their packages
(comma-separated importable names), for a game being written or the tests' race game.

:mod:`samuel.games` registers them after Samuel's own; :mod:`samuel.jit` puts their sources in
the kernel cache's digest, since the dispatch compiles their kernels into everything that calls
it. Both read the variable when they load, so set it before Samuel starts. Standard library only:
the command line's help reads it.
"""

from __future__ import annotations

import os

EXTRA_GAMES = "SAMUEL_EXTRA_GAMES"


def extra_game_packages() -> tuple[str, ...]:
    """The packages ``$SAMUEL_EXTRA_GAMES`` names, in its order."""
    extra = os.environ.get(EXTRA_GAMES, "")
    return tuple(name.strip() for name in extra.split(",") if name.strip())
