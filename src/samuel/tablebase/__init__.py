"""Perfect play with the hand empty: a retrograde tablebase of every movement-phase position.

``docs/tablebase.md`` describes the method, the files and the figures. The modules: ``index``
(where a position sits in its layer), ``values`` (the stored codes), ``retrograde`` (the compiled
solver of one layer), ``counts`` (wins, draws and losses, raw and up to symmetry), ``files`` (the
layer files), ``build``, ``verify``, ``probe`` (lookups for people and for the search), ``score``
(players measured against the table) and ``commands`` (``samuel tablebase``).
"""
