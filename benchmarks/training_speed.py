"""Training speed: samples per second of our hand-written network against the same network,
batch size and Adam in PyTorch on the CPU (skipped if PyTorch is not installed:
``pip install torch==2.13.0``).

Both train the 52-64-32-1 network with Adam (lr 1e-3) on the same samples in batches of 256
(squared error / 2). Ours takes the positions as bitboards and runs the sparse forward and backward
passes compiled; PyTorch takes the dense 52-input rows (built once, outside the timing) and runs
its own kernels on as many threads as ours.

    .venv/bin/python benchmarks/training_speed.py [--samples 131072] [--batch-size 256]
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from samuel.nn import network as N
from samuel.train.buffer import Samples
from samuel.train.trainer import Adam, train_epoch


def self_play_samples(count: int) -> Samples:
    """Real positions: from self-play of the untrained network, targets in -1..1."""
    from samuel.train.config import TrainConfig
    from samuel.train.loop import label_games, self_play

    params = N.random_parameters(0x5EED)
    parts = []
    generation = 1
    total = 0
    while total < count:
        parts.extend(self_play(params, TrainConfig(games=200), generation))
        total = sum(int(p.plies.sum()) for p in parts)
        generation += 1
    pools = label_games(parts, 0.7)
    everything = Samples.concatenate(list(pools.values()), 4)
    return everything.take(np.arange(count))


def ours(samples: Samples, batch_size: int, epochs: int) -> float:
    params = N.random_parameters(1)
    adam = Adam()
    rng = np.random.default_rng(0)
    train_epoch(params, adam, samples.take(np.arange(batch_size * 4)), batch_size, 1e-3, rng)
    started = time.perf_counter()
    for _ in range(epochs):
        train_epoch(params, adam, samples, batch_size, 1e-3, rng)
    return epochs * len(samples) / (time.perf_counter() - started)


def pytorch(samples: Samples, batch_size: int, epochs: int, threads: int) -> float | None:
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    inputs = torch.tensor(np.stack([N.encode_inputs(*map(int, s)) for s in samples.states]))
    targets = torch.tensor(samples.targets).unsqueeze(1)
    model = torch.nn.Sequential(
        torch.nn.Linear(N.INPUTS, N.HIDDEN1),
        torch.nn.ReLU(),
        torch.nn.Linear(N.HIDDEN1, N.HIDDEN2),
        torch.nn.ReLU(),
        torch.nn.Linear(N.HIDDEN2, 1),
        torch.nn.Tanh(),
    )
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
    args = parser.parse_args()
    threads = numba.get_num_threads()
    samples = self_play_samples(args.samples)
    print(
        f"{len(samples)} self-play positions, batch {args.batch_size}, {args.epochs} epochs, "
        f"{threads} threads"
    )
    mine = ours(samples, args.batch_size, args.epochs)
    print(f"samuel (numba)    {mine:12,.0f} samples/s")
    theirs = pytorch(samples, args.batch_size, args.epochs, threads)
    if theirs is None:
        print("pytorch           not installed (pip install torch==2.13.0); skipped")
    else:
        print(f"pytorch (CPU)     {theirs:12,.0f} samples/s")
        print(f"samuel / pytorch  {mine / theirs:12.2f}x")


if __name__ == "__main__":
    main()
