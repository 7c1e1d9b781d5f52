"""The games Samuel can play, by name. Each offers :class:`samuel.games.base.GameRules`."""

from __future__ import annotations

from samuel.games.base import GameRules


def registry() -> dict[str, GameRules]:
    """Every registered game by name (imported on first use, so the core stays light)."""
    from samuel.games.draughts.rules import RULES as draughts
    from samuel.games.tigers.rules import RULES as tigers

    return {tigers.name: tigers, draughts.name: draughts}


def get_game(name: str) -> GameRules:
    games = registry()
    if name not in games:
        raise ValueError(f"unknown game {name!r}; the games are: {', '.join(games)}")
    return games[name]
