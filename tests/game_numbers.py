"""The registered games' numbers, for the tests that hand the kernels a game (tests may name
games; code outside a game's folder reaches it through the registry)."""

from __future__ import annotations

from samuel.games import get_game
from samuel.games.tigers.compiled import variant_number as tigers_and_sheep  # noqa: F401

TIGERS = get_game("tigers").number  # Tigers & Sheep, the standard game (five captures win)
DRAUGHTS = get_game("draughts").number  # English draughts
