"""``samuel tablebase``: build, verify and probe the Tigers & Sheep tablebase, and score players
against it.

The table itself (index, codes, solver, counts, files, lookups) is the game's own and lives in
:mod:`samuel.games.tigers.tablebase`; this package holds what works on it from above: ``build``,
``verify``, ``score`` (players measured against the table; it plays games, so it sits above
:mod:`samuel.players` and :mod:`samuel.match`, and nothing below imports it) and ``commands``.
``docs/tablebase.md`` describes the method, the files and the figures.
"""
