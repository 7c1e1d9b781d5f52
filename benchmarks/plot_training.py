"""Plot a training run over the generations, from its ``gen-NNN.json`` files: the match scores,
and, for a run with the moves-left head, its plies-left error; for a Zero run (``samuel
zero-train``), its policy's cross-entropy and value's error after training.

    .venv/bin/python benchmarks/plot_training.py runs/main docs/training-run.png

Needs matplotlib (``pip install matplotlib``); it only reads what ``samuel train`` or ``samuel
zero-train`` saved.
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

    matches, plies, losses = [], [], []
    for path in sorted(args.run_dir.glob("gen-*.json")):
        report = json.loads(path.read_text())["report"]
        if report["vs_classic"] is not None:
            matches.append((report["generation"], report["vs_previous"], report["vs_classic"]))
        if report.get("plies_after") is not None:  # older records have no plies columns
            plies.append((report["generation"], report["plies_before"], report["plies_after"]))
        if "policy_after" in report:  # a Zero run
            losses.append((report["generation"], report["policy_after"], report["value_after"]))
    if not matches and not plies and not losses:
        raise SystemExit(f"no generation in {args.run_dir} played matches or has a moves-left head")
    kinds = (("matches", matches), ("plies", plies), ("losses", losses))
    panels = [panel for panel, rows in kinds if rows]
    figure, axes = plt.subplots(
        len(panels), 1, figsize=(8, 4.5 * len(panels)), dpi=110, squeeze=False
    )
    for panel, ax in zip(panels, axes[:, 0], strict=True):
        if panel == "matches":
            generations, previous, classic = zip(*matches, strict=True)
            ax.plot(generations, [100 * s for s in classic], "o-", label="vs classic (same depth)")
            ax.plot(
                generations,
                [100 * s for s in previous],
                "s--",
                alpha=0.7,
                label="vs the previous matched generation",
            )
            ax.axhline(50, color="grey", linewidth=0.8)
            ax.set_ylabel("score, % of points")
            ax.set_ylim(0, 100)
        elif panel == "losses":
            generations, policy, value = zip(*losses, strict=True)
            ax.plot(generations, policy, "-", label="policy cross-entropy, after training")
            ax.plot(generations, value, "-", label="value squared error, after training")
            ax.set_ylabel("loss on the replay window")
            ax.set_ylim(bottom=0)
        else:
            generations, before, after = zip(*plies, strict=True)
            ax.plot(generations, before, "-", alpha=0.7, label="before training")
            ax.plot(generations, after, "-", label="after training")
            ax.set_ylabel("plies-left error, plies (mean |error|)")
            ax.set_ylim(bottom=0)
        ax.set_xlabel("generation")
        ax.grid(alpha=0.3)
        ax.legend()
    axes[0, 0].set_title(f"Self-play training: {args.run_dir.name}")
    figure.tight_layout()
    figure.savefig(args.out)
    print(f"wrote {args.out} ({len(matches)} matched generations, {len(plies)} with the head)")


if __name__ == "__main__":
    main()
