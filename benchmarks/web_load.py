"""Load check for `samuel serve`: many games asking for engine moves at once, and how fast a
cheap request (get a game's state) is answered meanwhile. Prints figures; not a test.

    .venv/bin/python benchmarks/web_load.py [--games 50] [--depth 3] [--ply-cap 60]
    .venv/bin/python benchmarks/web_load.py --busy 12   # a full search queue

With ``--busy N`` it checks the bounded search queue instead: N engine moves of
``classic:time=2`` at once on a server with the default queue, then a depth-1 analysis and a
game's state; it prints each answer's status and time.

It starts `samuel serve` on a free loopback port, measures `GET /api/games/{id}` alone (the
baseline), then plays ``--games`` games at once, both sides engines at ``--depth``, each game
asking for its next engine move as soon as the last one came back, while a probe asks for a
spare game's state every 10 ms. Everything stays on 127.0.0.1 and stops after ``--limit``
seconds at most. Last, it checks in this process that a search in a thread lets Python run
(the compiled search releases the GIL).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

HOST = "127.0.0.1"
PROBE_INTERVAL = 0.01  # seconds between two probes of the cheap request
BASELINE_REQUESTS = 300


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def start_server(port: int, queue: int | None) -> subprocess.Popen:
    samuel = Path(sys.executable).with_name("samuel")
    command = [str(samuel), "serve", "--host", HOST, "--port", str(port)]
    if queue is not None:
        command += ["--search-queue", str(queue)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


async def wait_until_up(client: httpx.AsyncClient, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120  # a fresh clone compiles the search first
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server stopped: {server.stderr.read()}")
        try:
            if (await client.get("/api/players")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.1)
    raise SystemExit("the server did not start within 120 s")


def milliseconds(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (
        f"median {1000 * statistics.median(ordered):7.2f} ms   p95 {1000 * p95:7.2f} ms   "
        f"max {1000 * ordered[-1]:7.2f} ms   ({len(ordered)} requests)"
    )


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used so far (Linux), user and system; NaN elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def probe(port: int, game_id: str, stop, answers) -> None:
    """In its own process, so that the load's client does not delay it: get a game's state
    ``BASELINE_REQUESTS`` times alone, then every ``PROBE_INTERVAL`` until ``stop`` is set."""
    connection = http.client.HTTPConnection(HOST, port, timeout=60)

    def get() -> float:
        started = time.perf_counter()
        connection.request("GET", f"/api/games/{game_id}")
        answer = connection.getresponse()
        answer.read()
        if answer.status != 200:
            raise SystemExit(f"get state answered {answer.status}")
        return time.perf_counter() - started

    answers.put([get() for _ in range(BASELINE_REQUESTS)])
    loaded = []
    while not stop.is_set():
        loaded.append(get())
        time.sleep(PROBE_INTERVAL)
    answers.put(loaded)


async def load(args: argparse.Namespace, client: httpx.AsyncClient, port: int, pid: int) -> None:
    spare = (await client.post("/api/games", json={})).json()["id"]
    processes = multiprocessing.get_context("spawn")
    stop, answers = processes.Event(), processes.Queue()
    prober = processes.Process(target=probe, args=(port, spare, stop, answers))
    prober.start()
    baseline = await asyncio.to_thread(answers.get)

    engine = f"classic:depth={args.depth}"
    body = {"players": {"tigers": engine, "sheep": engine}, "ply_cap": args.ply_cap}
    errors: list[str] = []
    engine_times: list[float] = []
    deadline = time.monotonic() + args.limit

    async def play(number: int) -> int:
        answer = await client.post("/api/games", json={**body, "seed": number})
        if answer.status_code != 201:
            errors.append(f"new game: {answer.status_code} {answer.text}")
            return 0
        game = answer.json()
        moves = 0
        while game["outcome"] is None and time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                answer = await client.post(f"/api/games/{game['id']}/engine-move")
            except httpx.HTTPError as error:
                errors.append(f"engine move: {error!r}")
                return moves
            if answer.status_code != 200:
                errors.append(f"engine move: {answer.status_code} {answer.text}")
                return moves
            engine_times.append(time.perf_counter() - started)
            game = answer.json()
            moves += 1
        return moves

    server_before, client_before = cpu_seconds(pid), time.process_time()
    started = time.perf_counter()
    moves = await asyncio.gather(*(play(n) for n in range(args.games)))
    wall = time.perf_counter() - started
    server_cpu = cpu_seconds(pid) - server_before
    client_cpu = time.process_time() - client_before
    stop.set()
    loaded = await asyncio.to_thread(answers.get)
    prober.join()
    requests = len(engine_times) + len(loaded) + args.games

    print(
        f"{args.games} games at once, both sides classic depth {args.depth}, "
        f"ply cap {args.ply_cap}; {os.cpu_count()} CPUs for server, load and probe"
    )
    print(f"engine moves      {sum(moves):,} in {wall:.1f} s: {sum(moves) / wall:,.0f} per second")
    print(f"errors            {len(errors)}" + (f": {errors[:3]}" if errors else ""))
    print(f"engine-move       {milliseconds(engine_times)}")
    print(f"get state, idle   {milliseconds(baseline)}")
    print(f"get state, loaded {milliseconds(loaded)}")
    print(
        f"server CPU        {server_cpu:.1f} s: {1000 * server_cpu / requests:.2f} ms a request, "
        f"{server_cpu / wall:.2f} CPUs on average (the load's client: {client_cpu / wall:.2f})"
    )


async def busy(count: int, client: httpx.AsyncClient) -> None:
    """``count`` timed engine moves at once, then a quick analysis and a state: the first fill
    the search queue; the last two must not wait behind them."""
    players = {"tigers": "classic:time=2", "sheep": "human"}
    games = []
    for _ in range(count):
        game = (await client.post("/api/games", json={"players": players})).json()
        await client.post(f"/api/games/{game['id']}/moves", json={"move": "c3"})
        games.append(game["id"])

    async def timed(request) -> tuple[int, float, str]:
        started = time.perf_counter()
        answer = await request
        retry = answer.headers.get("retry-after")
        return (
            answer.status_code,
            time.perf_counter() - started,
            f" Retry-After {retry}" * bool(retry),
        )

    moves = [asyncio.create_task(timed(client.post(f"/api/games/{g}/engine-move"))) for g in games]
    await asyncio.sleep(0.3)  # the moves are in
    analysis = await timed(client.post("/api/analyse", json={"depth": 1}))
    state = await timed(client.get(f"/api/games/{games[0]}"))
    print(f"{count} engine moves of classic:time=2 at once; {os.cpu_count()} CPUs")
    print(f"depth-1 analysis  {analysis[0]} in {1000 * analysis[1]:.0f} ms")
    print(f"get state         {state[0]} in {1000 * state[1]:.0f} ms")
    for status, seconds, retry in sorted(await asyncio.gather(*moves)):
        print(f"engine move       {status} after {seconds:.2f} s{retry}")


def gil_check() -> None:
    """Whether searches in threads run at the same time as Python and as each other."""
    from samuel.games.game import Game
    from samuel.games.tigers.rules import RULES
    from samuel.players import make_player

    make_player("classic:depth=2", RULES).search(Game(RULES))  # compile or load the cache
    game = Game(RULES)
    game.play_text("c3")

    def spin(seconds: float) -> int:
        count, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            count += 1
        return count

    alone = spin(0.3)
    thread = threading.Thread(target=make_player("classic:depth=9", RULES).search, args=(game,))
    thread.start()
    beside = spin(0.3)
    thread.join()
    print(
        f"GIL check         a Python loop beside a search thread ran at {beside / alone:.0%} "
        "of its speed alone (0% would mean the search holds the GIL)"
    )

    cpu: list[float] = []

    def search() -> None:
        player = make_player("classic:depth=10", RULES)
        started = time.thread_time()
        player.search(game)
        cpu.append(time.thread_time() - started)

    threads = [threading.Thread(target=search) for _ in range(2)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    print(
        f"two searches      in two threads used {sum(cpu):.2f} s of CPU in {wall:.2f} s: "
        f"{sum(cpu) / wall:.2f} CPUs (above 1: they ran at the same time)"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="games at once (50)")
    parser.add_argument("--depth", type=int, default=3, help="engine depth (3)")
    parser.add_argument("--ply-cap", type=int, default=60, help="plies per game at most (60)")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds at most (120)")
    parser.add_argument("--busy", type=int, metavar="N", help="check a full search queue instead")
    args = parser.parse_args()
    port = free_port()
    # For the load, every game's search may wait (none is refused); --busy uses the default.
    server = start_server(port, None if args.busy else args.games)
    limits = httpx.Limits(
        max_connections=args.games + 10, max_keepalive_connections=args.games + 10
    )
    try:
        async with httpx.AsyncClient(
            base_url=f"http://{HOST}:{port}", timeout=60, limits=limits, trust_env=False
        ) as client:
            await wait_until_up(client, server)
            if args.busy:
                await busy(args.busy, client)
            else:
                await load(args, client, port, server.pid)
    finally:
        server.terminate()
        server.wait(timeout=10)
    if not args.busy:
        gil_check()


if __name__ == "__main__":
    asyncio.run(main())
