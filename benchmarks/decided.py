"""Where a Tigers & Sheep match's games were decided, judged by the tablebase.

For each game of a match's records (``samuel match ... --records FILE``) it finds the first
position with the hand empty (where the game enters the table) and the table's value there, for
the player named; then, for every decisive game, each move in the table that changed the
table's value: who played it, the captures then and how soon the position is lost.

    .venv/bin/python benchmarks/decided.py matches/zero-vs-net.txt zero --tablebase tablebase

The first table counts games by the named player's side, the value at the entry (won, drawn,
lost for that player, or "before" for a game over before the hand emptied) and the result. A
decisive result from a drawn entry was decided by a mistake in the movement phase; a result
that differs from the entry's value, by a mistake there too. Needs a built tablebase
(``samuel tablebase build``).
"""

from __future__ import annotations

import argparse
from collections import Counter

from samuel.games.record import read_records, replay
from samuel.games.tigers.tablebase.probe import load_tablebase

WORDS = {1: "won", 0: "drawn", -1: "lost"}


def tigers_value(table, position) -> int:
    """The table's value of a position with the hand empty, for the tigers."""
    outcome, _ = table.value(position)
    return outcome if position.tiger_to_move else -outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", help="a match's game records (--records)")
    parser.add_argument("player", help="the start of the player's name in the records, e.g. zero")
    parser.add_argument("--tablebase", default="tablebase", help="the table (tablebase/)")
    args = parser.parse_args()
    table = load_tablebase(args.tablebase)
    counts: Counter = Counter()
    mistakes = []
    for number, record in enumerate(read_records(args.records)):
        game = replay(record)
        side = "tigers" if record.players[0].startswith(args.player) else "sheep"
        view = 1 if side == "tigers" else -1
        entry, previous = "before", None
        for ply, position in enumerate(game.positions):
            if position.sheep_in_hand:
                continue
            value = tigers_value(table, position)
            if previous is None:
                entry = WORDS[value * view]
            elif value != previous and record.result:
                mover = "tigers" if game.positions[ply - 1].tiger_to_move else "sheep"
                _, plies = table.value(position)
                who = args.player if mover == side else "opponent"
                mistakes.append(
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
    for number, ply, mover, before, after, captured, plies in mistakes:
        print(f"{number:>5} {ply:>4} {mover:>18} {before:>6} {after:>6} {captured:>8} {plies:>6}")
    by_player = Counter(mover for _, _, mover, *_ in mistakes)
    print("\nsuch moves by player:", ", ".join(f"{m} {n}" for m, n in sorted(by_player.items())))


if __name__ == "__main__":
    main()
