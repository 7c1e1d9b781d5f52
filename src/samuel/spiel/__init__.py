"""Samuel's games in OpenSpiel, and OpenSpiel's bots as Samuel's players (``docs/openspiel.md``).

The optional extra ``samuel[openspiel]``: the only package that imports ``pyspiel`` or
``open_spiel``, and nothing else in Samuel imports it. Importing :mod:`samuel.spiel.game`
registers ``samuel_tigers`` and ``samuel_draughts`` with pyspiel; this package's import does the
same, so that ``import samuel.spiel`` is all a researcher writes before
``pyspiel.load_game("samuel_tigers")``.
"""

from __future__ import annotations

from samuel.spiel.game import (
    GAME_NAMES,
    SpielError,
    load,
    move_actions,
    move_of_actions,
    state_at,
)

__all__ = ["GAME_NAMES", "SpielError", "load", "move_actions", "move_of_actions", "state_at"]
