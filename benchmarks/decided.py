"""Where a Tigers & Sheep match's games were decided, judged by the tablebase.

For each game of a match's records (``samuel match ... --records FILE``) it finds the first
position with the hand empty (where the game enters the table) and the table's value there, for
the player named; then, for every decisive game, each move in the table that changed the
table's value: who played it, the captures then and how soon the position is lost.

    .venv/bin/python benchmarks/decided.py zero-net.txt zero --tablebase tablebase
    .venv/bin/python benchmarks/decided.py zero-net.txt zero --network runs/z4/gen-030.bin
    .venv/bin/python benchmarks/decided.py zero-net.txt zero --ask zero:sims=4000 net:depth=6
    .venv/bin/python benchmarks/decided.py zero-net.txt zero --exposed zero:sims=4000 net:depth=6

The first table counts games by the named player's side, the value at the entry (won, drawn,
lost for that player, or "before" for a game over before the hand emptied) and the result. A
decisive result from a drawn entry was decided by a mistake in the movement phase.

The named player's *losing tiger moves* are the moves its tigers played that turned a drawn
position into a lost one, in any game. ``--network FILE`` (Zero networks) prints each network's
mean value of the positions before and after them, for the tigers (the network alone, no
search). ``--ask SPEC...`` takes the first such move of each game the named player lost, asks
each player for its move in the position before it, and counts how often it keeps the draw.

The tigers are *exposed* where the position is drawn, they are to move and one of their moves
loses. The count of such positions on each player's tigers says how often each walked (or was
led) into them; ``--exposed SPEC...`` asks each player in every one and counts its losing moves.
Needs a built tablebase (``samuel tablebase build``).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

import numpy as np

from samuel.errors import SamuelError
from samuel.evaluation.networks import load_zero_network
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.games.game import Game
from samuel.games.record import read_records, replay
from samuel.games.tigers.tablebase.probe import load_tablebase
from samuel.nn import zero
from samuel.players import make_player

WORDS = {1: "won", 0: "drawn", -1: "lost"}


def tigers_value(table, position) -> int:
    """The table's value of a position with the hand empty, for the tigers."""
    outcome, _ = table.value(position)
    return outcome if position.tiger_to_move else -outcome


def network_value(params: np.ndarray, position) -> float:
    """A Zero network's value of a position (the network alone), for the tigers."""
    game = get_game("tigers").number
    active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
    values = np.zeros(games.MAX_SET_INPUTS, dtype=np.float32)
    state = position.encode()
    count = games.zero_network_inputs(game, state, active, values)
    value, _ = zero.zero_forward(
        params,
        active,
        values,
        count,
        np.zeros(games.move_room(game), dtype=np.int64),
        0,
        np.zeros(games.move_room(game), dtype=np.float32),
        np.zeros(zero.forward_scratch(params), dtype=np.float32),
        False,
    )
    return float(value) * games.network_sign(game, state)


def game_at(rules, record, ply: int) -> Game:
    """The record's game as it stood before its move at ``ply`` (its history included)."""
    game = Game(rules, record.start, ply_cap=record.ply_cap)
    for move in record.moves[:ply]:
        game.play(move)
    return game


def judge(args: argparse.Namespace) -> None:
    table = load_tablebase(args.tablebase)
    rules = get_game("tigers")
    counts: Counter = Counter()
    changes = []
    losing = []  # (record, ply before the move, first in a game the player lost)
    exposed = []  # (record, ply, whose tigers): drawn, the tigers to move, a move loses
    for number, record in enumerate(read_records(args.records)):
        if record.rules.name != rules.name:
            raise SamuelError(f"{args.records}: game {number + 1} is not Tigers & Sheep")
        game = replay(record)
        side = "tigers" if record.players[0].startswith(args.player) else "sheep"
        view = 1 if side == "tigers" else -1
        entry, previous, first = "before", None, True
        for ply, position in enumerate(game.positions):
            if position.sheep_in_hand:
                continue
            value = tigers_value(table, position)
            if value == 0 and position.tiger_to_move and ply < len(record.moves):
                outcomes = [outcome for _, outcome, _ in table.move_values(position)]
                if min(outcomes) < 0:
                    who = args.player if side == "tigers" else "opponent"
                    exposed.append((record, ply, who))
            if previous is None:
                entry = WORDS[value * view]
            elif value != previous:
                mover = "tigers" if game.positions[ply - 1].tiger_to_move else "sheep"
                if mover == side == "tigers" and (previous, value) == (0, -1):
                    losing.append((record, ply - 1, first and record.result == -1))
                    first = False
                if record.result:
                    _, plies = table.value(position)
                    who = args.player if mover == side else "opponent"
                    changes.append(
                        (number, ply, f"{mover} ({who})", WORDS[previous * view],
                         WORDS[value * view], position.captured, plies)
                    )  # fmt: skip
            previous = value
        result = {1: "win", 0: "draw", -1: "loss"}[record.result * view]
        counts[(side, entry, result)] += 1
    print(f"{args.player}'s games: side, value at the table's entry, result")
    print(f"{'side':>6} {'entry':>6} {'result':>6} {'games':>6}")
    for (side, entry, result), n in sorted(counts.items()):
        print(f"{side:>6} {entry:>6} {result:>6} {n:>6}")
    print(f"\nmoves that changed the table's value in decisive games ({args.player}'s view)")
    print(f"{'game':>5} {'ply':>4} {'played by':>18} {'from':>6} {'to':>6} {'captured':>8} "
          f"{'plies':>6}")  # fmt: skip
    for number, ply, mover, before, after, captured, plies in changes:
        print(f"{number:>5} {ply:>4} {mover:>18} {before:>6} {after:>6} {captured:>8} {plies:>6}")
    by_player = Counter(mover for _, _, mover, *_ in changes)
    print("\nsuch moves by player:", ", ".join(f"{m} {n}" for m, n in sorted(by_player.items())))

    print(f"\n{len(losing)} losing tiger moves by {args.player} (drawn into lost), in any game")
    for path in args.network:
        params = load_zero_network(path, get_game("tigers").number)
        pairs = [replay(record).positions[ply : ply + 2] for record, ply, _ in losing]
        before = [network_value(params, a) for a, _ in pairs]
        after = [network_value(params, b) for _, b in pairs]
        print(f"{path}: mean value for the tigers {np.mean(before):+.2f} before them, "
              f"{np.mean(after):+.2f} after")  # fmt: skip
    asked = [(record, ply) for record, ply, first in losing if first]
    if args.ask:
        print(f"{len(asked)} positions before the first of them in each game {args.player} lost")
    for spec in args.ask:
        keeps = 0
        for record, ply in asked:
            game = game_at(rules, record, ply)
            move = make_player(spec, rules=rules, seed=1).choose_move(game)
            keeps += tigers_value(table, game.position.play(move)) >= 0
        print(f"{spec}: keeps the draw in {keeps} of {len(asked)}")

    games_by_side = Counter(side for side, _, _ in counts.elements())
    by_tigers = Counter(who for _, _, who in exposed)
    print(f"\ndrawn positions where the tigers to move had a move that loses: {len(exposed)}")
    for who, side in ((args.player, "tigers"), ("opponent", "sheep")):
        print(f"  {who}'s tigers: {by_tigers[who]} in {games_by_side[side]} games")
    for spec in args.exposed:
        gives: Counter = Counter()  # by whose tigers stood there
        for record, ply, who in exposed:
            game = game_at(rules, record, ply)
            move = make_player(spec, rules=rules, seed=ply).choose_move(game)
            gives[who] += tigers_value(table, game.position.play(move)) < 0
        total = sum(gives.values())
        print(f"{spec}: plays a losing move in {total} of them "
              f"({100 * total / max(1, len(exposed)):.1f}%); in {args.player}'s "
              f"{gives[args.player]}, in the opponent's {gives['opponent']}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", help="a match's game records (--records)")
    parser.add_argument("player", help="the start of the player's name in the records, e.g. zero")
    parser.add_argument("--tablebase", default="tablebase", help="the table (tablebase/)")
    parser.add_argument("--network", nargs="*", default=[], metavar="FILE", help="Zero networks")
    parser.add_argument("--ask", nargs="*", default=[], metavar="SPEC", help="player specs")
    parser.add_argument(
        "--exposed", nargs="*", default=[], metavar="SPEC",
        help="player specs asked in every drawn position where the tigers had a losing move",
    )  # fmt: skip
    args = parser.parse_args()
    try:
        judge(args)
    except (SamuelError, OSError) as error:
        sys.exit(f"decided.py: {error}")


if __name__ == "__main__":
    main()
