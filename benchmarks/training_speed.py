"""Training speed: samples per second of our hand-written network against the same network,
batch size and Adam in PyTorch on the CPU (skipped if PyTorch is not installed:
``pip install torch==2.13.0``).

Both train the game's network (Tigers & Sheep's 58-64-32-1 unless ``--game`` says another) with
Adam (lr 1e-3) on the same samples in batches of 256 (squared error / 2). Ours takes the
positions, encodes their set inputs and runs the sparse forward and backward passes compiled;
PyTorch takes the dense input rows (built once, outside the timing) and runs its own kernels on as
many threads as ours. The samples are made once; each side then trains in
a fresh process of its own, so neither's waiting threads slow the other.

    .venv/bin/python benchmarks/training_speed.py [--samples 131072] [--batch-size 256]
        [--game tigers]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from samuel.evaluation.networks import network_shape, random_network
from samuel.games import get_game
from samuel.nn import network as N
from samuel.train.buffer import Samples
from samuel.train.trainer import Adam, encode, train_epoch


def self_play_samples(game: str, count: int) -> Samples:
    """Real positions: from self-play of the untrained network, targets in -1..1."""
    from samuel.train.config import TrainConfig
    from samuel.train.loop import label_games, self_play

    params = random_network(get_game(game).number, 0x5EED)
    parts = []
    generation = 1
    total = 0
    while total < count:
        parts.extend(self_play(params, TrainConfig(game=game, games=200), generation))
        total = sum(int(p.plies.sum()) for p in parts)
        generation += 1
    pools = label_games(parts, 0.7)
    everything = Samples.concatenate(list(pools.values()), parts[0].positions.shape[2])
    return everything.take(np.arange(count))


def ours(game: str, samples: Samples, batch_size: int, epochs: int) -> float:
    number = get_game(game).number
    params = random_network(number, 1)
    adam = Adam(len(params))
    rng = np.random.default_rng(0)
    warm_up = samples.take(np.arange(batch_size * 4))
    train_epoch(number, params, adam, warm_up, batch_size, 1e-3, rng)
    started = time.perf_counter()
    for _ in range(epochs):
        train_epoch(number, params, adam, samples, batch_size, 1e-3, rng)
    return epochs * len(samples) / (time.perf_counter() - started)


def pytorch(
    game: str, samples: Samples, batch_size: int, epochs: int, threads: int
) -> float | None:
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    e = encode(get_game(game).number, samples)
    rows = range(len(e.counts))
    dense = [N.dense_inputs(e.inputs, e.active[i], e.values[i], e.counts[i]) for i in rows]
    inputs = torch.tensor(np.stack(dense))
    targets = torch.tensor(e.targets).unsqueeze(1)
    # the same layers as ours (random_network's shape): ReLU hidden layers, a tanh value
    widths = (e.inputs, *network_shape(get_game(game).number).hidden)
    layers = []
    for n_in, n_out in zip(widths, widths[1:], strict=False):
        layers += [torch.nn.Linear(n_in, n_out), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(widths[-1], 1), torch.nn.Tanh())
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)

    def epoch() -> None:
        order = torch.randperm(len(targets))
        for start in range(0, len(targets), batch_size):
            batch = order[start : start + batch_size]
            optimiser.zero_grad()
            loss = 0.5 * ((model(inputs[batch]) - targets[batch]) ** 2).mean()
            loss.backward()
            optimiser.step()

    epoch()  # warm up
    started = time.perf_counter()
    for _ in range(epochs):
        epoch()
    return epochs * len(targets) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=131072)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--game", default="tigers", help="the game whose network trains")
    parser.add_argument("--only", choices=("samuel", "pytorch"), help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only is None:
        # Asking numba starts its OpenMP threads; the PyTorch process must not (two OpenMP
        # runtimes in one process slow each other down several times over).
        threads = numba.get_num_threads()
        # Each side in a fresh process: both keep thread pools whose waiting threads would
        # otherwise slow the other down.
        print(
            f"{args.game}: {args.samples} self-play positions, batch {args.batch_size}, "
            f"{args.epochs} epochs, {threads} threads"
        )
        rates = {}
        with tempfile.TemporaryDirectory() as folder:
            data = Path(folder) / "samples.npz"
            samples = self_play_samples(args.game, args.samples)
            np.savez(data, states=samples.states, targets=samples.targets)
            for side in ("samuel", "pytorch"):
                run = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--only",
                        side,
                        "--game",
                        args.game,
                        "--data",
                        str(data),
                        "--batch-size",
                        str(args.batch_size),
                        "--epochs",
                        str(args.epochs),
                        "--threads",
                        str(threads),
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                rates[side] = float(run.stdout.split()[-1]) if run.stdout.strip() else None
        print(f"samuel (numba)    {rates['samuel']:12,.0f} samples/s")
        if rates["pytorch"] is None:
            print("pytorch           not installed (pip install torch==2.13.0); skipped")
        else:
            print(f"pytorch (CPU)     {rates['pytorch']:12,.0f} samples/s")
            print(f"samuel / pytorch  {rates['samuel'] / rates['pytorch']:12.2f}x")
        return
    with np.load(args.data) as data:
        samples = Samples(data["states"], data["targets"])
    if args.only == "samuel":
        print(ours(args.game, samples, args.batch_size, args.epochs))
    else:
        rate = pytorch(args.game, samples, args.batch_size, args.epochs, args.threads)
        print("" if rate is None else rate)


if __name__ == "__main__":
    main()
