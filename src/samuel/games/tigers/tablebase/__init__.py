"""The Tigers & Sheep tablebase core: perfect play with the hand empty, as tables and lookups.

What only this game has lives with the game. The modules: ``index`` (where a position sits in its
layer), ``values`` (the stored codes), ``retrograde`` (the compiled solver of one layer),
``counts`` (wins, draws and losses, raw and up to symmetry), ``files`` (the layer files),
``probe`` (lookups for people and for the search, which reaches the table through its game's
branch of :func:`samuel.games.kernels.tablebase_result`) and ``sample`` (positions drawn at
random with their exact values and distances, for training). Building, verifying, scoring players
and the ``samuel tablebase`` command sit above, in :mod:`samuel.tablebase`; ``docs/tablebase.md``
describes the method, the files and the figures.
"""
