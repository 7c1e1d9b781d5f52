"""Analysis for people and services: a position's moves ranked with their values
(:mod:`~samuel.analysis.positions`), a whole game record's decisions judged
(:mod:`~samuel.analysis.records`), and which model gave the answer
(:mod:`~samuel.analysis.models`). Every registered game, by any searching player; the server's
``/v1`` API (``samuel serve``, docs/web.md) answers with these.
"""
