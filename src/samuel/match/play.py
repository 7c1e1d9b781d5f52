"""One game between two players, from a start position to its end."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from samuel.games.base import GameRules
from samuel.games.game import Game
from samuel.players import Player, Resigned


def play_game(
    rules: GameRules,
    players: Mapping[str, Player],
    start=None,
    ply_cap: int | None = None,
    after_move: Callable[[Game, Player], None] | None = None,
    opening: Sequence = (),
    game: Game | None = None,
    dice: np.random.Generator | None = None,
) -> Game:
    """Play until the game ends; ``players`` maps each of ``rules.sides`` to its player.

    ``after_move`` is called after every move (to draw the board, say). A player may raise
    :class:`samuel.players.Resigned` to stop early; the game is then returned unfinished.
    The ``opening`` moves are played first, as part of the game (they count for repetition and
    the ply cap; ``after_move`` is not called for them).

    ``game``, if given, is played on instead of a new game from ``start`` under ``ply_cap``
    (which must then be left out): the caller keeps it, and with it every move played so far,
    whatever a player or ``after_move`` raises (``samuel play`` saves it then).

    In a game with dice, ``dice`` rolls them at each chance node (``Game.roll``): the same
    generator state gives the same rolls, so a match gives both games of a pair the same dice.
    """
    missing = [side for side in rules.sides if side not in players]
    if missing:
        raise ValueError(f"no player for {', '.join(missing)}")
    if game is None:
        game = Game(rules, start=start, ply_cap=ply_cap)
    elif start is not None or ply_cap is not None:
        raise ValueError("give a game to play on, or its start and ply cap, not both")
    for move in opening:
        game.play(move)
    while game.outcome is None:
        if game.chance_outcomes():
            if dice is None:
                raise ValueError(f"{rules.title} is played with dice: give play_game its dice")
            game.roll(dice)
            continue
        player = players[rules.sides[rules.side_to_move(game.position)]]
        try:
            move = player.choose_move(game)
        except Resigned:
            return game
        game.play(move)
        if after_move is not None:
            after_move(game, player)
    return game
