"""The evaluation layer: the evaluators the searches take (classic, network, hybrid, moves-left:
:mod:`.kernels`), the check of their parameters (:mod:`.evaluators`), and networks checked
against their game (:mod:`.networks`). It sits above the games and the networks, which know
nothing of it, and below the searches.
"""
