"""Match openings: a few random moves from the start, the same for both games of a pair.

Two deterministic players would play the same game every time, so each pair of games starts
from a short random opening. The opening of pair ``p`` comes from a generator seeded by
(match seed, ``p``) alone, so it does not depend on which worker plays it or in what order.

>>> from samuel.games import get_game
>>> rules = get_game("tigers")
>>> config = parse_opening_plies("2-6")
>>> config
OpeningConfig(min_plies=2, max_plies=6)
>>> moves = opening_moves(rules, config, seed=1, pair=0)
>>> 2 <= len(moves) <= 6 and moves == opening_moves(rules, config, seed=1, pair=0)
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from samuel.errors import CommandError
from samuel.games.base import GameRules
from samuel.games.game import Game

MAX_OPENING_PLIES = 40  # longer "openings" would be random games, not openings
OPENING_STREAM = 0x0BE1  # keeps the openings' random numbers apart from the players'


@dataclass(frozen=True)
class OpeningConfig:
    """How long the random openings are: a length drawn uniformly from min_plies..max_plies."""

    min_plies: int = 4  # the seed's training matches use 4 random plies
    max_plies: int = 4

    def __post_init__(self) -> None:
        if not 0 <= self.min_plies <= self.max_plies <= MAX_OPENING_PLIES:
            raise CommandError(
                f"opening plies must satisfy 0 <= low <= high <= {MAX_OPENING_PLIES}, "
                f"not {self.min_plies}-{self.max_plies}"
            )

    def __str__(self) -> str:
        if self.min_plies == self.max_plies:
            return str(self.min_plies)
        return f"{self.min_plies}-{self.max_plies}"


def parse_opening_plies(text: str) -> OpeningConfig:
    """``"4"`` (exactly 4 plies) or ``"2-6"`` (2 to 6); raises :class:`ValueError` otherwise."""
    low, sep, high = text.strip().partition("-")
    try:
        plies = (int(low), int(high) if sep else int(low))
    except ValueError:
        raise CommandError(
            f"opening plies are a number or a range such as 2-6, not {text!r}"
        ) from None
    return OpeningConfig(*plies)


def as_opening_config(
    openings: OpeningConfig | int | tuple[int, int] | str | None, game: str
) -> OpeningConfig:
    """An :class:`OpeningConfig` from itself, a fixed length, a (low, high) range or text; None
    is the game's own (its descriptor's ``default_opening_plies``)."""
    if openings is None:
        from samuel.games import descriptors

        openings = descriptors()[game].default_opening_plies
    if isinstance(openings, OpeningConfig):
        return openings
    if isinstance(openings, str):
        return parse_opening_plies(openings)
    if isinstance(openings, int):
        return OpeningConfig(openings, openings)
    low, high = openings
    return OpeningConfig(low, high)


def opening_moves(rules: GameRules, config: OpeningConfig, seed: int, pair: int) -> tuple:
    """The opening of pair ``pair`` in the match with seed ``seed``: random legal moves from the
    initial position. A move that would end the game is never chosen; if every move would, the
    opening stops there, shorter than drawn (it cannot happen in the first plies of Tigers &
    Sheep)."""
    rng = np.random.default_rng([seed & 0xFFFFFFFFFFFFFFFF, pair, OPENING_STREAM])
    length = int(rng.integers(config.min_plies, config.max_plies + 1))
    return random_moves(rules, rules.initial_position(), length, rng)


def random_moves(rules: GameRules, start, plies: int, rng: np.random.Generator) -> tuple:
    """``plies`` random legal moves from ``start``, never one that ends the game (fewer if every
    move would); at a chance node the dice are rolled with ``rng`` (a roll counts as a ply)."""
    game = Game(rules, start=start)
    for _ in range(plies):
        if game.chance_outcomes():
            game.roll(rng)
            continue
        moves = game.legal_moves()
        while moves:
            game.play(moves.pop(int(rng.integers(len(moves)))))
            if game.outcome is None:
                break
            game.undo()
        else:
            break
    return tuple(game.moves)
