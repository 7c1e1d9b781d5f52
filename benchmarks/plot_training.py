"""Plot a training run over the generations, from its ``gen-NNN.json`` files: the match scores,
and, for a run with the moves-left head, its plies-left error; for a Zero run (``samuel
zero-train``), its policy's cross-entropy and value's error after training.

    .venv/bin/python benchmarks/plot_training.py runs/main docs/training-run.png
    .venv/bin/python benchmarks/plot_training.py runs/zero runs/zero-d1 docs/images/zero-run.png

Several folders are one run continued in the next (``--from`` the last one's network): each
folder's generations are numbered on from the folder before, and a line marks where it starts.

Needs matplotlib (``pip install matplotlib``); it only reads what ``samuel train`` or ``samuel
zero-train`` saved.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dirs", type=Path, nargs="+", metavar="run_dir")
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    if not args.run_dirs:
        parser.error("name at least one run folder")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matches, plies, losses, starts = [], [], [], []
    offset, depth = 0, None
    for run_dir in args.run_dirs:
        last = offset
        if offset:
            starts.append(offset)
        for path in sorted(run_dir.glob("gen-*.json")):
            record = json.loads(path.read_text())
            report = record["report"]
            depth = record.get("config", {}).get("classic_depth", depth)
            generation = offset + report["generation"]
            last = max(last, generation)
            if report["vs_classic"] is not None:
                matches.append((generation, report["vs_previous"], report["vs_classic"]))
            if report.get("plies_after") is not None:  # older records have no plies columns
                plies.append((generation, report["plies_before"], report["plies_after"]))
            if "policy_after" in report:  # a Zero run
                losses.append((generation, report["policy_after"], report["value_after"]))
        offset = last
    names = " + ".join(run_dir.name for run_dir in args.run_dirs)
    if not matches and not plies and not losses:
        raise SystemExit(f"no generation in {names} played matches or has a moves-left head")
    # A Zero run's matches search by simulations against classic at its --classic-depth.
    classic_label = f"vs classic:depth={depth}" if losses else "vs classic (same depth)"
    kinds = (("matches", matches), ("plies", plies), ("losses", losses))
    panels = [panel for panel, rows in kinds if rows]
    figure, axes = plt.subplots(
        len(panels), 1, figsize=(8, 4.5 * len(panels)), dpi=110, squeeze=False
    )
    for panel, ax in zip(panels, axes[:, 0], strict=True):
        if panel == "matches":
            generations, previous, classic = zip(*matches, strict=True)
            ax.plot(generations, [100 * s for s in classic], "o-", label=classic_label)
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
        for start in starts:
            ax.axvline(start, color="grey", linestyle=":", linewidth=1)
        ax.set_xlabel("generation")
        ax.grid(alpha=0.3)
        ax.legend()
    axes[0, 0].set_title(f"Self-play training: {names}")
    figure.tight_layout()
    figure.savefig(args.out)
    print(f"wrote {args.out} ({len(matches)} matched generations, {len(plies)} with the head)")


if __name__ == "__main__":
    main()
