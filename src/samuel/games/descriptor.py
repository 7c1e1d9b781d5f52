"""What a game says of itself before any of its code loads: its names and sides. Each game's
package declares one :class:`GameDescriptor` as ``DESCRIPTOR`` in its ``__init__.py``; the
command line builds its options from these alone, so ``samuel --help`` imports no NumPy or numba,
and a command loads only the rules it plays (:meth:`GameDescriptor.rules`).

It imports nothing but the standard library, and must stay so.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class GameDescriptor:
    """A registered game as the command line and the docs name it. ``rules_module`` holds the
    game's :class:`~samuel.games.base.GameRules` as ``RULES``, which must agree with this (the
    conformance test checks it)."""

    name: str  # the registry name: --game NAME
    number: int  # the game's number (0-255): how compiled code and weights files name it
    title: str  # for people: "Tigers & Sheep"
    sides: tuple[str, str]  # the first player (whose wins are positive), then the second
    side_letters: tuple[str, str]  # the command line's short options: -T/--tigers, -S/--sheep
    first_to_move: int  # the side (0 or 1) that makes the first move of a game
    rules_module: str  # the module whose RULES are the game's rules
    compiled_module: str  # its compiled interface: COMPILED and samuel.games.dispatch.INTERFACE
    # How deep a searching player searches unless told: plies of moves (a throw of the dice is
    # no ply, so a game with dice searches far fewer: each ply averages over every roll).
    default_depth: int = 4
    # The plies (a throw of the dice is one) after which a game is a draw unless told.
    default_ply_cap: int = 200
    # Random plies that open each pair of a match's games, so that pairs differ (a game with
    # dice needs none: the dice vary its games, and random plays would only add noise).
    default_opening_plies: int = 4

    @property
    def package(self) -> str:
        """The game's package, where its rules module is."""
        return self.rules_module.rpartition(".")[0]

    def rules(self):
        """The game's rules (imports its module, and with it the compiled kernels)."""
        return importlib.import_module(self.rules_module).RULES

    def part(self, name: str):
        """The game's module ``name`` (``tuning``, ``web`` ...: what one layer needs of the
        game), or None for a game that has none, which that layer then refuses in a line."""
        module = f"{self.package}.{name}"
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as error:
            if error.name != module:
                raise  # the part exists but something it imports does not
            return None

    def default_players(self) -> dict[str, str]:
        """Who plays each side unless told: you the side that moves first, ``classic`` the
        other."""
        return {
            side: "human" if index == self.first_to_move else "classic"
            for index, side in enumerate(self.sides)
        }
