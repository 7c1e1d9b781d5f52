"""Load on the analysis API: many clients asking `samuel serve --game backgammon` for 0-ply and
2-ply analyses at once. Prints figures; not a test.

    .venv/bin/python benchmarks/analysis_load.py [--clients 50] [--seconds 60]
        [--two-ply 0.1] [--pause 0] [--ramp 0] [--settled 10] [--positions 200] [--seed 1]

It starts `samuel serve --game backgammon` on a free loopback port (a search queue long enough
that no client is refused: a 503 would count as an error), makes ``--positions`` rolled
positions by seeded random play, then runs ``--clients`` clients at once for ``--seconds``:
each asks ``POST /v1/analyse`` for a position, ``ply`` 2 with probability ``--two-ply`` and 0
otherwise, and asks again as soon as it has its answer (``--pause 0``: the server saturated,
so the latency is the clients' number over the throughput) or after a pause of ``--pause``
seconds on average (exponential, seeded: people reading their answers). The clients start
together, or one after another over ``--ramp`` seconds. It reports requests a second, each
kind's latency (median, p99, max) over the whole run and apart for the answers to requests
sent in the first ``--settled`` seconds and after them (while every client asks 0-ply at first,
before its first 2-ply parks it for seconds, the server is as saturated as with 0-ply alone),
every error, and the server's memory (resident set) after the warm-up, at its largest and at
the end. The clients run in this
process (asyncio and aiohttp, whose parser is compiled: httpx took 7 ms of CPU a request here, so
the clients' own loop, not the server, set the pace), on the same machine: on a machine of few
cores they take CPU from the server, so the figures are a floor. It prints the CPU the server
and the clients used. aiohttp is in the `bench` extra (`.venv/bin/pip install -e '.[bench]'`).
Everything stays on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import numpy as np

HOST = "127.0.0.1"
GOAL_P99_ZERO_PLY = 0.100  # seconds: the goal for 0-ply answers


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def positions(count: int, seed: int) -> list[str]:
    """Rolled positions from seeded random games (every one with a play to choose)."""
    from samuel.games import get_game
    from samuel.games.game import Game

    rules = get_game("backgammon")
    dice = np.random.default_rng(seed)
    found: list[str] = []
    while len(found) < count:
        game = Game(rules)
        while game.outcome is None and len(found) < count:
            if game.chance_outcomes():
                game.roll(dice)
                continue
            moves = game.legal_moves()
            if len(moves) > 1:
                found.append(rules.format_position(game.position))
            game.play(moves[int(dice.integers(len(moves)))])
    return found


def resident_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user and system, every thread)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def latency(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = np.sort(np.array(values))
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"median {1000 * np.median(ordered):7.1f} ms  p99 {1000 * p99:7.1f} ms  "
        f"max {1000 * ordered[-1]:7.1f} ms  ({len(ordered):,} answers)"
    )


async def run(args: argparse.Namespace) -> int:
    port = free_port()
    samuel = Path(sys.executable).with_name("samuel")
    command = [str(samuel), "serve", "--game", "backgammon", "--host", HOST, "--port", str(port)]
    command += ["--search-queue", str(4 * args.clients)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    connector = aiohttp.TCPConnector(limit=args.clients)
    timeout = aiohttp.ClientTimeout(total=120)
    try:
        async with aiohttp.ClientSession(
            f"http://{HOST}:{port}", connector=connector, timeout=timeout
        ) as client:
            await wait_until_up(client, server)
            chosen = positions(args.positions, args.seed)
            for ply in (0, 2):  # each kind compiled and warm before the clock starts
                body = {"position": chosen[0], "ply": ply}
                async with client.post("/v1/analyse", json=body) as answer:
                    answer.raise_for_status()
                    await answer.read()
            memory = [resident_mib(server.pid)]
            times: dict[int, list[float]] = {0: [], 2: []}
            sent: dict[int, list[float]] = {0: [], 2: []}  # when, from the start
            errors: list[str] = []
            deadline = time.monotonic() + args.seconds
            began = time.perf_counter()

            async def one_client(number: int) -> None:
                draws = np.random.default_rng([args.seed, number])
                await asyncio.sleep(args.ramp * number / args.clients)
                while time.monotonic() < deadline:
                    ply = 2 if draws.random() < args.two_ply else 0
                    body = {"position": chosen[int(draws.integers(len(chosen)))], "ply": ply}
                    started = time.perf_counter()
                    try:
                        async with client.post("/v1/analyse", json=body) as answer:
                            text = await answer.text()
                            status = answer.status
                    except (aiohttp.ClientError, TimeoutError) as error:
                        errors.append(repr(error))
                        continue
                    if status != 200:
                        errors.append(f"{status} {text[:200]}")
                        continue
                    times[ply].append(time.perf_counter() - started)
                    sent[ply].append(started - began)
                    if args.pause > 0:
                        await asyncio.sleep(draws.exponential(args.pause))

            async def watch_memory() -> None:
                while time.monotonic() < deadline:
                    await asyncio.sleep(1.0)
                    memory.append(resident_mib(server.pid))

            started = time.perf_counter()
            cpu = cpu_seconds(server.pid)
            clients_cpu = cpu_seconds(os.getpid())
            await asyncio.gather(watch_memory(), *(one_client(i) for i in range(args.clients)))
            elapsed = time.perf_counter() - started
            cpu = cpu_seconds(server.pid) - cpu
            clients_cpu = cpu_seconds(os.getpid()) - clients_cpu
    finally:
        server.terminate()
        server.wait(timeout=30)
    answered = len(times[0]) + len(times[2])
    pause = f", a pause of {args.pause} s on average after each answer" if args.pause else ""
    print(
        f"{args.clients} clients for {elapsed:.1f} s, {args.two_ply:.0%} of requests at 2-ply"
        + pause
    )
    print(f"requests/s  {answered / elapsed:,.1f} ({answered:,} answered, {len(errors)} errors)")
    print(
        f"server CPU  {cpu / elapsed:.2f} CPUs busy, "
        f"{1000 * cpu / max(1, answered):.2f} ms a request on average; the clients "
        f"{clients_cpu / elapsed:.2f} CPUs"
    )
    for ply in (0, 2):
        print(f"{ply}-ply       {latency(times[ply])}")
        at = np.array(sent[ply])
        early = [t for t, when in zip(times[ply], at, strict=True) if when < args.settled]
        late = [t for t, when in zip(times[ply], at, strict=True) if when >= args.settled]
        print(f"  first {args.settled:g} s  {latency(early)}")
        print(f"  after     {latency(late)}")
    print(
        f"memory      {memory[0]:.0f} MiB after the warm-up, {max(memory):.0f} MiB at most, "
        f"{memory[-1]:.0f} MiB at the end"
    )
    for error in errors[:5]:
        print(f"error       {error}")
    zero = sorted(times[0])
    if zero:
        p99 = zero[min(len(zero) - 1, int(0.99 * len(zero)))]
        met = "met" if p99 < GOAL_P99_ZERO_PLY else "not met"
        print(f"goal        0-ply p99 under {1000 * GOAL_P99_ZERO_PLY:.0f} ms: {met} (whole run)")
    return 1 if errors else 0


async def wait_until_up(client: aiohttp.ClientSession, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 300  # a fresh clone compiles the search first
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server stopped: {server.stderr.read()}")
        try:
            async with client.get("/v1/game") as answer:
                if answer.status == 200:
                    return
        except aiohttp.ClientConnectionError:
            pass
        await asyncio.sleep(0.2)
    raise SystemExit("the server did not start within 300 s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--two-ply", type=float, default=0.1, help="share of 2-ply requests")
    parser.add_argument(
        "--pause", type=float, default=0.0, help="a client's mean pause after an answer (s)"
    )
    parser.add_argument(
        "--ramp", type=float, default=0.0, help="seconds over which the clients start"
    )
    parser.add_argument(
        "--settled", type=float, default=10.0, help="seconds reported apart at the start"
    )
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
