"""The games Samuel can play, by name.

Each game's package declares a :class:`~samuel.games.descriptor.GameDescriptor` (its names and
sides, light: no NumPy, no kernels) and its rules, a :class:`samuel.games.base.GameRules`, which
load only when asked for. :func:`descriptors` reads the first, :func:`registry` the second.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from samuel.plugins import extra_game_packages

if TYPE_CHECKING:
    from samuel.games.base import GameRules
    from samuel.games.descriptor import GameDescriptor

# Every registered game's package, in the order commands list them.
GAME_PACKAGES = (
    "samuel.games.tigers",
    "samuel.games.draughts",
    "samuel.games.backgammon",
    "samuel.games.nardy",
)


def game_packages() -> tuple[str, ...]:
    """Every registered game's package: Samuel's own, then those ``$SAMUEL_EXTRA_GAMES`` names
    (a game kept outside Samuel: one being written, or the tests' race game; set it before the
    kernels load, :mod:`samuel.jit`)."""
    return GAME_PACKAGES + extra_game_packages()


def descriptors() -> dict[str, GameDescriptor]:
    """Every registered game's descriptor by name (imports no game's rules or kernels)."""
    found = (importlib.import_module(package).DESCRIPTOR for package in game_packages())
    return {descriptor.name: descriptor for descriptor in found}


def registry() -> dict[str, GameRules]:
    """Every registered game's rules by name (imported on first use, so the core stays light)."""
    return {name: descriptor.rules() for name, descriptor in descriptors().items()}


def get_game(name: str) -> GameRules:
    """The rules of the game named ``name``; ValueError listing the games for an unknown one.
    Loads that game's rules only."""
    games = descriptors()
    if name not in games:
        raise ValueError(f"unknown game {name!r}; the games are: {', '.join(games)}")
    return games[name].rules()


def descriptor_of(game: int) -> GameDescriptor:
    """The descriptor of the game numbered ``game`` (a variant's number names its game in the low
    8 bits); ValueError for a number no registered game has."""
    base = int(game) & 255
    for descriptor in descriptors().values():
        if descriptor.number == base:
            return descriptor
    known = ", ".join(f"{d.number} ({d.name})" for d in descriptors().values())
    raise ValueError(f"no game has number {base}; the games are: {known}")


def default_game() -> str:
    """The game a command plays unless told: the first registered."""
    return next(iter(descriptors()))


def require_part(game: str, part: str, what: str, why: str) -> None:
    """Refuse ``what`` (a command, or a part of one) for a game whose package has no module
    ``part`` (:meth:`~samuel.games.descriptor.GameDescriptor.part`), in one line naming the games
    that have one and saying ``why`` (``{games}`` in it becomes their titles): for the parts of
    Samuel that only some games have."""
    from samuel.errors import UnsupportedGameError

    games = descriptors()
    if games[game].part(part) is None:
        having = " and ".join(d.title for d in games.values() if d.part(part) is not None)
        raise UnsupportedGameError(
            f"{what} works for {having} only so far, not {games[game].title}: "
            + why.format(games=having)
        )
