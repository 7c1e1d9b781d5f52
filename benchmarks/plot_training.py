"""Plot a training run's match scores over the generations, from its ``gen-NNN.json`` files.

    .venv/bin/python benchmarks/plot_training.py runs/main docs/training-run.png

Needs matplotlib (``pip install matplotlib``); it only reads what ``samuel train`` saved.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = []
    for path in sorted(args.run_dir.glob("gen-*.json")):
        report = json.loads(path.read_text())["report"]
        if report["vs_classic"] is not None:
            rows.append((report["generation"], report["vs_previous"], report["vs_classic"]))
    if not rows:
        raise SystemExit(f"no generation in {args.run_dir} played matches")
    generations, previous, classic = zip(*rows, strict=True)
    figure, axes = plt.subplots(figsize=(8, 4.5), dpi=110)
    axes.plot(generations, [100 * s for s in classic], "o-", label="vs classic (same depth)")
    axes.plot(
        generations,
        [100 * s for s in previous],
        "s--",
        alpha=0.7,
        label="vs the previous matched generation",
    )
    axes.axhline(50, color="grey", linewidth=0.8)
    axes.set_xlabel("generation")
    axes.set_ylabel("score, % of points")
    axes.set_ylim(0, 100)
    axes.set_title(f"Self-play training: {args.run_dir.name}")
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(args.out)
    print(f"wrote {args.out} ({len(rows)} matched generations)")


if __name__ == "__main__":
    main()
