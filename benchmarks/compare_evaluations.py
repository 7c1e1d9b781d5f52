"""The comparison (the seed's Module 8): every evaluation against the original classic one, at the
same search depth, on openings used nowhere else; each score with its 95% range.

Contenders: the hand-written weights themselves (a control: it should score 50%), the
hill-climbed and the gradient-tuned weights, the network alone and the hybrid (classic + scale x
network) at its default scale and, with ``--tuned-scale``, at another. Only the evaluation
differs between the two players of a match, so a difference in score comes from the evaluation.

The openings are ``--opening-plies`` (6) random plies from the match seed (424242): hill
climbing's rounds use 4 plies and its final match 5, training's matches 4, and positions after
openings of different lengths never coincide (``docs/tuning.md``). Every row uses the same
openings.

    .venv/bin/python benchmarks/compare_evaluations.py --depth 3 --games 200 \\
        --hill-climbed tuning/hillclimb/learned.json --gradient-tuned tuning/gradient.json
    .venv/bin/python benchmarks/compare_evaluations.py --game draughts --depth 4 --games 200 \\
        --hill-climbed tuning/draughts/hillclimb/learned.json \\
        --gradient-tuned tuning/draughts/gradient.json --tuned-scale 1

The table is printed as Markdown and, with ``--json``, saved.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from samuel.evaluation.networks import shipped_network
from samuel.games import get_game
from samuel.match.head_to_head import play_match
from samuel.options import game_name

FALLBACK_NETWORK = "runs/{game}/latest.bin"  # when no network is shipped yet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3, help="search depth of both players (3)")
    parser.add_argument("--games", type=int, default=200, help="games per row, even (200)")
    parser.add_argument("--hill-climbed", help="hill-climbed weights (samuel hillclimb)")
    parser.add_argument("--gradient-tuned", help="gradient-tuned weights (samuel tune)")
    parser.add_argument(
        "--network",
        help="network for the network and hybrid rows (the game's shipped one, else "
        f"{FALLBACK_NETWORK.format(game='GAME')})",
    )
    parser.add_argument("--scale", type=float, help="the hybrid's scale (its default)")
    parser.add_argument("--tuned-scale", type=float, help="a second hybrid row at this scale")
    parser.add_argument("--game", type=game_name, default="tigers", help="the game (tigers)")
    parser.add_argument("--opening-plies", type=int, default=6)
    parser.add_argument("--seed", type=int, default=424242)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", help="comma-separated row names to play (all)")
    parser.add_argument("--json", help="where to save the rows as JSON")
    args = parser.parse_args()
    shipped = shipped_network(get_game(args.game).number)
    network = (
        Path(args.network)
        if args.network
        else shipped or Path(FALLBACK_NETWORK.format(game=args.game))
    )

    def hybrid(scale: float | None) -> str:
        options = [] if network == shipped else [f"net={network}"]
        options += [] if scale is None else [f"scale={scale:g}"]
        return ":".join(["hybrid", ",".join(options)]) if options else "hybrid"

    contenders = {
        "hand-written": "classic",
        "hill-climbed": args.hill_climbed and f"classic:weights={args.hill_climbed}",
        "gradient-tuned": args.gradient_tuned and f"classic:weights={args.gradient_tuned}",
        "network alone": "net" if network == shipped else str(network),
        "hybrid": hybrid(args.scale),
        "hybrid (tuned scale)": args.tuned_scale is not None and hybrid(args.tuned_scale) or None,
    }
    wanted = set(args.only.split(",")) if args.only else set(contenders)
    opponent = f"classic:depth={args.depth}"
    print(
        f"Against {opponent}, {args.games} games each, {args.opening_plies}-ply openings from "
        f"seed {args.seed}; {get_game(args.game).title}; network {network}"
    )
    print()
    print("| Evaluation | Spec | Score (95% range) | Elo | W / D / L | Time |")
    print("|---|---|---|---|---|---|")
    rows = []
    for name, spec in contenders.items():
        if spec is None or name not in wanted:
            continue
        spec = f"{spec}:depth={args.depth}"
        started = time.perf_counter()
        result = play_match(
            spec,
            opponent,
            args.games,
            seed=args.seed,
            openings=args.opening_plies,
            workers=args.workers,
            game=args.game,
        )
        s = result.statistics
        seconds = time.perf_counter() - started
        print(
            f"| {name} | `{spec}` | {100 * s.score:.1f}% ({100 * s.score_low:.1f}–"
            f"{100 * s.score_high:.1f}%) | {s.elo:+.0f} ± {s.elo_error:.0f} | "
            f"{s.wins} / {s.draws} / {s.losses} | {seconds:.0f} s |",
            flush=True,
        )
        rows.append(
            {
                "name": name,
                "spec": spec,
                "opponent": opponent,
                "games": result.games,
                "score": s.score,
                "score_low": s.score_low,
                "score_high": s.score_high,
                "elo": s.elo,
                "elo_error": s.elo_error,
                "wins": s.wins,
                "draws": s.draws,
                "losses": s.losses,
                "seconds": seconds,
                "seed": args.seed,
                "opening_plies": args.opening_plies,
                "game": args.game,
            }
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
