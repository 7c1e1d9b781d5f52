"""Expert positions for a game with dice: the positions of games between two strong players
(backgammon: GNU Backgammon at its world-class level against itself), played on this machine's
processes or on the run's backend. Only the positions are kept, with the dice to roll
(:mod:`.dice`): their labels come from Samuel's own rollouts, like every other source's.

Each game rolls its own dice (not a match's duplicate dice: two copies of one deterministic
player would play a pair's two games alike). The players are two player specs (``--experts
FIRST,SECOND``; by default the game's ``pipeline`` part's ``EXPERT_PLAYERS``), in which
``{champion}`` stands for the cycle's champion network file (long nardy, which has no outside
expert, plays its champion at 1 ply against the classic evaluation at 1 ply).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from samuel.backends import Backend, LocalBackend
from samuel.games import descriptors, get_game
from samuel.match.play import play_game
from samuel.players import PlayerSpec, make_player
from samuel.seeds import derive_seed

from .dice import to_roll
from .sources import PositionBatch, _batch

CHAMPION = "{champion}"  # the cycle's champion network file, in an expert spec
PLAYER_STREAM, DICE_STREAM = 0xE4E1, 0xE4E2  # a game's players' seeds, and its dice's


def expert_specs(game: str, experts: str | None) -> tuple[str, str]:
    """The two expert players' specs: ``experts`` ("FIRST,SECOND"; one spec plays itself) or the
    game's own; ValueError for a game without experts or a bad list."""
    if experts is None:
        default = getattr(descriptors()[game].part("pipeline"), "EXPERT_PLAYERS", ())
        if not default:
            raise ValueError(f"{get_game(game).title} has no expert players: name them (--experts)")
        first, second = default
        return first, second
    specs = [spec.strip() for spec in _split_specs(experts)]
    if len(specs) == 1:
        specs *= 2
    if len(specs) != 2 or not all(specs):
        raise ValueError(f"--experts is one or two player specs, comma-separated, not {experts!r}")
    return specs[0], specs[1]


def _split_specs(text: str) -> list[str]:
    """Split at the commas between specs, not those inside a spec's options (after a colon,
    options go NAME=VALUE: a comma followed by such a pair stays in the spec)."""
    parts: list[str] = []
    for piece in text.split(","):
        if parts and "=" in piece and ":" in parts[-1] and ":" not in piece.split("=")[0]:
            parts[-1] += "," + piece
        else:
            parts.append(piece)
    return parts


def with_champion(spec: str, champion: Path) -> str:
    """The spec with ``{champion}`` made the champion's file (quoted as a spec needs)."""
    if CHAMPION not in spec:
        return spec
    if spec.partition(":")[0] != CHAMPION:
        raise ValueError(f"{CHAMPION} names a player, not part of one: {spec!r}")
    parsed = PlayerSpec.parse(spec.replace(CHAMPION, "net", 1))
    return str(PlayerSpec(str(champion), parsed.options))


def check_experts(game: str, experts: str | None) -> None:
    """Raise ValueError for specs that name no player of the game (before a cycle runs)."""
    from samuel.players import make_player

    rules = get_game(game)
    for spec in expert_specs(game, experts):
        make_player(spec.replace(CHAMPION, "net", 1), rules)


def _chunks(count: int, parts: int) -> list[range]:
    """``range(count)`` cut into at most ``parts`` runs of consecutive numbers."""
    size = -(-count // max(1, parts))
    return [range(i, min(count, i + size)) for i in range(0, count, size)] if count else []


def _expert_games(shared: tuple, numbers: range) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A unit: games ``numbers`` of the batch, played here: (states, game numbers, plies) of
    every position where a play was made."""
    game, first, second, seed = shared
    rules = get_game(game)
    width = len(rules.encode(rules.initial_position()))
    states, games, plies = [], [], []
    for number in numbers:
        # The first expert takes the game's first side in even games, the second in odd ones.
        specs = (first, second) if number % 2 == 0 else (second, first)
        players = {
            side: make_player(spec, rules, seed=derive_seed(seed, number, index, PLAYER_STREAM))
            for index, (side, spec) in enumerate(zip(rules.sides, specs, strict=True))
        }
        dice = np.random.default_rng(derive_seed(seed, number, DICE_STREAM))
        played = play_game(rules, players, dice=dice, ply_cap=descriptors()[game].default_ply_cap)
        for ply, position in enumerate(played.positions[:-1]):
            if not rules.chance_outcomes(position):  # a play was made here, not a roll
                states.append(rules.encode(position))
                games.append(number)
                plies.append(ply)
    return (
        np.array(states, dtype=np.int64).reshape(-1, width),
        np.array(games, dtype=np.int64),
        np.array(plies, dtype=np.int32),
    )


def expert_positions(
    game: str,
    first: str,
    second: str,
    games: int,
    seed: int,
    workers: int = 1,
    backend: Backend | None = None,
) -> PositionBatch:
    """Every position where a play was made in ``games`` games between the players ``first``
    and ``second`` (specs; each takes the first side in every other game), game ``g`` rolling
    its dice and seeding its players from ``derive_seed(seed, g, ...)`` alone: the same batch
    on any backend and any number of workers. Each position once, with the dice to roll."""
    if games < 1:
        raise ValueError(f"the number of expert games must be at least 1, not {games}")
    shared = (game, first, second, int(seed))
    if backend is None or isinstance(backend, LocalBackend):
        backend = LocalBackend(max(1, min(workers, games)))
        parts = _chunks(games, backend.workers)
    else:
        parts = backend.parts(games)
    done = backend.run(_expert_games, parts, shared)
    states, numbers, plies = (np.concatenate([part[i] for part in done]) for i in range(3))
    return to_roll(game, _batch(states, numbers, plies))
