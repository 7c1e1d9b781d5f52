"""``samuel tablebase``: build, verify and probe a game's tablebase, and score players against it.

The table itself (index, codes, solver, checker, counts, files, lookups) is the game's own and
lives in its package, which offers it to the rest of Samuel as its ``perfect`` part (Tigers &
Sheep's: :mod:`samuel.games.tigers.perfect`, over :mod:`samuel.games.tigers.tablebase`); this
package holds what works on it from above: ``build``, ``verify``, ``score`` (players measured
against the table; it plays games, so it sits above :mod:`samuel.players` and
:mod:`samuel.match`, and nothing below imports it) and ``commands``. ``docs/tablebase.md``
describes the method, the files and the figures.
"""

from __future__ import annotations


def tablebase_game(game: str | None = None):
    """``(descriptor, perfect)``: the game called ``game`` (the default game if None) and its
    ``perfect`` part, whose tablebase these commands work on; a CommandError in one line for a
    game without one."""
    from samuel.errors import CommandError
    from samuel.games import default_game, descriptors

    descriptor = descriptors()[default_game() if game is None else game]
    perfect = descriptor.part("perfect")
    if perfect is None:
        raise CommandError(f"{descriptor.title} has no tablebase (its package has no perfect part)")
    return descriptor, perfect
