"""The piece-square tables' score the slow, obvious way: point by point, the tables as a file
holds them (``{kind: {phase: [a number per square]}}``), the phase from its definition in
docs/classic.md. The reference for the tables' kernels of each game's ``classic.py``."""

from __future__ import annotations

import numpy as np

TIGERS_SHEEP = 20
TIGERS_CAPTURES_TO_WIN = 5


def random_tables(kinds: tuple[str, ...], squares: int, seed: int) -> dict:
    """Tables of random weights of about a tenth of a unit."""
    rng = np.random.default_rng(seed)
    return {
        kind: {phase: rng.normal(0.0, 0.1, squares).tolist() for phase in ("opening", "ending")}
        for kind in kinds
    }


def blend(table: dict, square: int, ending: float) -> float:
    return (1.0 - ending) * table["opening"][square] + ending * table["ending"][square]


def tigers_table_score(position, tables: dict) -> float:
    """Tigers' view: each tiger's and each sheep's entry for its point, blended by how far the
    game has gone (half from the sheep placed, half from those captured, at most 1)."""
    placed = TIGERS_SHEEP - position.sheep_in_hand
    ending = min(1.0, placed / TIGERS_SHEEP / 2 + position.captured / TIGERS_CAPTURES_TO_WIN / 2)
    score = 0.0
    for point in range(25):
        if position.tigers >> point & 1:
            score += blend(tables["tiger"], point, ending)
        if position.sheep >> point & 1:
            score += blend(tables["sheep"], point, ending)
    return score


def draughts_table_score(board: dict, tables: dict) -> float:
    """Black's view, from a plain board (:func:`tests.reference.tuning.draughts_board`: PDN
    square ``s`` is ``square_of(s)``): a Black piece reads its own square's entry, a White one,
    negated, the entry of the square the half-turn takes it to (``33 - s``); the game is further
    on by 1/24 for every piece gone from the board."""
    from tests.reference.draughts_rules import square_of

    ending = (24 - len(board)) / 24
    score = 0.0
    for s in range(1, 33):
        piece = board.get(square_of(s))
        if piece is None:
            continue
        table = tables["king" if piece in "BW" else "man"]
        if piece in "bB":
            score += blend(table, s - 1, ending)
        else:
            score -= blend(table, 33 - s - 1, ending)
    return score
