"""The players the page offers for the server's game: classic levels, random, the networks
that :func:`samuel.players.make_player` can load for that game (the shipped one, the shipped
Samuel Zero network, and each ``*.bin`` in the weights dir) and, where OpenSpiel is installed,
its MCTS.

A candidate is offered only if ``make_player`` accepts its spec for the game, so the list always
holds just what this version of Samuel can play: network players (for draughts too) appear as
soon as ``make_player`` knows them, with no change here.
"""

from __future__ import annotations

from pathlib import Path

from samuel.games.base import GameRules
from samuel.players import PlayerSpec, PlayerSpecError
from samuel.web import schemas
from samuel.web.specs import default_rules, player_for

# (spec, label): depth 2 answers at once; 4 is quick and fair; 6 still answers well within a
# second on a laptop; the timed levels go as deep as their time allows.
CLASSIC_LEVELS = (
    ("classic:depth=2", "Classic, depth 2 (easy)"),
    ("classic:depth=4", "Classic, depth 4"),
    ("classic:depth=6", "Classic, depth 6"),
    ("classic:time=1", "Classic, 1 s per move"),
    ("classic:time=3", "Classic, 3 s per move"),
)
DEFAULT = "classic:depth=4"
STRONGEST_CLASSIC = "classic:time=3"

# The networks shipped with Samuel, most wanted first: the hybrid (classic + network) played best
# in the course this project follows (its Module 8), so it leads once it exists.
SHIPPED_NETWORKS = (
    ("hybrid", "Hybrid: classic + the shipped network"),
    ("net", "The shipped network"),
)
# The specs a weights file may be played by (the file's option, or None for the player's name);
# each one make_player accepts is offered.
WEIGHTS_FILE_SPECS = (
    ("hybrid", "net", "Hybrid: classic + {name}"),
    (None, None, "Network {name}"),
)
WEIGHTS_PATTERN = "*.bin"
# Samuel Zero with its shipped network (docs/zero.md), where the game has one: 800 simulations
# answer in about 5 ms, 10,000 (the most the server plays: web.specs.MAX_ZERO_SIMULATIONS) in
# about 60. They take no depth, so the page adds none (engine None).
ZERO_LEVELS = (
    ("zero:sims=800", "Samuel Zero, 800 simulations"),
    ("zero:sims=10000", "Samuel Zero, 10,000 simulations"),
)
# OpenSpiel's MCTS (samuel.spiel.bots), offered where OpenSpiel is installed: 100 simulations
# answer in under half a second, 1,000 (the most the server plays: web.specs.MAX_SPIEL_ROLLOUTS)
# in a few. They take no depth or time, so the page adds none (engine None).
SPIEL_LEVELS = (
    ("spiel-mcts:sims=100", "OpenSpiel MCTS, 100 simulations"),
    ("spiel-mcts:sims=1000", "OpenSpiel MCTS, 1,000 simulations"),
)


# A game with dice searches by expectimax over the rolls: a network at 0-ply (its evaluation
# of each play) answers at once, 1-ply (every reply roll) in about a second; classic's depth 2
# is its 1-ply. They are n-ply levels of their own, so the page adds no depth (engine None).
DICE_LEVELS = (
    ("net:ply=0", "The shipped network, 0-ply", "Network"),
    ("net:ply=1", "The shipped network, 1-ply", "Network"),
    ("classic:depth=2", "Classic, 1-ply", "Classic"),
)


def _dice_players(weights_dir: Path | None, rules: GameRules) -> schemas.PlayerList:
    levels = [
        schemas.PlayerLevel(spec=spec, label=label, group=group, engine=None)
        for spec, label, group in DICE_LEVELS
        if _accepted(spec, weights_dir, rules)
    ]
    other = [schemas.PlayerLevel(spec="random", label="Random moves", group="Other", engine=None)]
    networks = [level.spec for level in levels if level.group == "Network"]
    return schemas.PlayerList(
        players=[*levels, *other],
        default=networks[0] if networks else "random",
        strongest=networks[-1] if networks else "random",
    )


def _accepted(spec: str, weights_dir: Path | None, rules: GameRules) -> bool:
    try:
        player_for(spec, weights_dir, rules=rules)
    except PlayerSpecError:
        return False
    return True


def offered_players(weights_dir: Path | None, rules: GameRules | None = None) -> schemas.PlayerList:
    """Every player the page can offer now for ``rules``' game (the default game's by default),
    in the order it lists them."""
    rules = default_rules() if rules is None else rules
    if rules.chance_outcomes(rules.initial_position()):  # a game with dice: its n-ply levels
        return _dice_players(weights_dir, rules)
    networks: list[schemas.PlayerLevel] = []
    for spec, label in SHIPPED_NETWORKS:
        if _accepted(spec, weights_dir, rules):
            networks.append(
                schemas.PlayerLevel(spec=spec, label=label, group="Network", engine=spec)
            )
    networks += [
        schemas.PlayerLevel(spec=spec, label=label, group="Network", engine=None)
        for spec, label in ZERO_LEVELS
        if _accepted(spec, weights_dir, rules)
    ]
    files = (
        sorted(weights_dir.glob(WEIGHTS_PATTERN)) if weights_dir and weights_dir.is_dir() else []
    )
    for path in files:
        labels_taken = set()
        for name, option, label_template in WEIGHTS_FILE_SPECS:
            named = PlayerSpec(name, ((option, str(path)),)) if name else PlayerSpec(str(path))
            spec = str(named)  # quoted where the path holds a separator
            label = label_template.format(name=path.name)
            if label not in labels_taken and _accepted(spec, weights_dir, rules):
                labels_taken.add(label)
                networks.append(
                    schemas.PlayerLevel(spec=spec, label=label, group="Network", engine=spec)
                )
    classic = [
        schemas.PlayerLevel(spec=spec, label=label, group="Classic", engine="classic")
        for spec, label in CLASSIC_LEVELS
    ]
    if not _accepted("classic", weights_dir, rules):  # a game with no classic evaluation yet
        classic = []
    spiel = [
        schemas.PlayerLevel(spec=spec, label=label, group="OpenSpiel", engine=None)
        for spec, label in SPIEL_LEVELS
        if _accepted(spec, weights_dir, rules)
    ]
    other = [schemas.PlayerLevel(spec="random", label="Random moves", group="Other", engine=None)]
    shipped = [level for level in networks if level.spec in dict(SHIPPED_NETWORKS)]
    return schemas.PlayerList(
        players=[*classic, *networks, *spiel, *other],
        default=DEFAULT if classic else "random",
        strongest=shipped[0].spec if shipped else STRONGEST_CLASSIC if classic else "random",
    )
