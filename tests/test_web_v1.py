"""The versioned analysis API (/v1): ranked moves for every game (checked against the players'
own searches), the dice games' chances and cube, whole records judged, which model answered
(with a pipeline's promotions seen without a restart), API keys with their rates, and hostile
input answered with a 4xx and one clear message."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from samuel.evaluation.networks import random_network, save_network
from samuel.games import get_game
from samuel.games.game import Game
from samuel.games.record import format_record, record_from_game
from samuel.players import make_player
from samuel.web.app import create_app
from samuel.web.keys import ApiKeys

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.slow
HOST = "testserver"
BACKGAMMON_ROLLED = "4HPwATDgc/ABMA X 3-1"  # the start, X to play a 3-1
BACKGAMMON_TO_ROLL = "4HPwATDgc/ABMA X -"


def app_for(game: str, **options):
    return create_app(allowed_hosts=[HOST], game=game, **options)


@pytest.fixture(scope="module")
def backgammon():
    with TestClient(app_for("backgammon")) as client:
        yield client


@pytest.fixture(scope="module")
def tigers():
    with TestClient(app_for("tigers")) as client:
        yield client


def refused(answer, status: int, phrase: str) -> None:
    assert answer.status_code == status, answer.text
    detail = answer.json()["detail"]
    assert isinstance(detail, str) and phrase in detail, detail


# ------------------------------------------------------------------ the games with dice


def test_a_game_the_page_does_not_draw_is_served_by_the_api(monkeypatch):
    import samuel.web.app

    monkeypatch.setattr(samuel.web.app, "page_game", lambda game: None)  # as a game with no web
    with TestClient(app_for("backgammon")) as client:
        page = client.get("/")
        assert page.status_code == 200 and "/v1/analyse" in page.text
        assert not client.get("/v1/game").json()["page"]
        assert "/api/games" not in client.get("/openapi.json").json()["paths"]


def test_the_dice_games_have_the_page_and_the_api(backgammon):
    info = backgammon.get("/v1/game").json()
    assert info["dice"] and info["cube"] and info["page"]
    assert info["chances"] == [
        "win",
        "win_gammon",
        "win_backgammon",
        "lose",
        "lose_gammon",
        "lose_backgammon",
    ]
    paths = backgammon.get("/openapi.json").json()["paths"]
    for path in ("/v1/game", "/v1/players", "/v1/model", "/v1/analyse", "/v1/analyse-record"):
        assert path in paths
    for path in ("/api/games", "/api/games/{game_id}/cube", "/api/games/{game_id}/why-not"):
        assert path in paths  # the page's API, with the dice games' own


@pytest.mark.parametrize("ply", [0, 1])
def test_backgammon_plays_are_ranked_as_the_n_ply_player_chooses(backgammon, ply):
    answer = backgammon.post("/v1/analyse", json={"position": BACKGAMMON_ROLLED, "ply": ply})
    assert answer.status_code == 200, answer.text
    found = answer.json()
    rules = get_game("backgammon")
    game = Game(rules, start=rules.parse_position(BACKGAMMON_ROLLED))
    assert len(found["moves"]) == len(game.legal_moves())
    player = make_player(f"net:ply={ply}", rules)
    result = player.search(game)
    best = found["moves"][0]
    assert best["move"] == rules.format_move(rules.move_from_code(result.best_move))
    assert best["value"] == pytest.approx(result.score, abs=1e-6)
    assert best["error"] == 0 and best["depth"] == ply
    values = [m["value"] for m in found["moves"] if m["depth"] == ply]
    assert values == sorted(values, reverse=True)
    chances = best["chances"]
    assert set(chances) == set(backgammon.get("/v1/game").json()["chances"])
    assert chances["win"] + chances["lose"] == pytest.approx(1.0, abs=0.05)
    # the network is valued by its chances, and each play's chances look as deep as its value:
    # the chances' expected points are the value, at 0 plies and at 1
    for move in found["moves"]:
        wins = sum(p for name, p in move["chances"].items() if name.startswith("win"))
        losses = sum(p for name, p in move["chances"].items() if name.startswith("lose"))
        assert wins - losses == pytest.approx(move["value"], abs=1e-4), move
    assert found["model"]["file"] == "shipped-backgammon.bin"
    assert len(found["model"]["sha256"]) == 64


def test_before_the_roll_backgammon_says_its_chances_and_cube_decision(backgammon):
    money = backgammon.post("/v1/analyse", json={"position": BACKGAMMON_TO_ROLL}).json()
    assert money["moves"] == [] and money["cube"]["decision"] == "no double, take"
    assert money["cube"]["unit"] == "points a game per cube"
    assert money["chances"]["win"] == pytest.approx(0.5, abs=0.1)
    match = backgammon.post(
        "/v1/analyse",
        json={"position": BACKGAMMON_TO_ROLL, "cube": {"value": 1, "away": [1, 5]}},
    ).json()
    assert match["cube"]["unit"] == "chances of winning the match"
    assert 0 <= match["cube"]["no_double"] <= 1
    rolled = backgammon.post(
        "/v1/analyse", json={"position": BACKGAMMON_TO_ROLL, "dice": "6-5"}
    ).json()
    assert rolled["position"].endswith("6-5") and rolled["moves"][0]["move"] == "24/18/13"


def test_long_nardy_is_analysed_and_has_no_cube():
    with TestClient(app_for("nardy")) as client:
        info = client.get("/v1/game").json()
        assert info["dice"] and not info["cube"]
        start = info["start"]
        found = client.post("/v1/analyse", json={"position": start, "dice": "6-5"}).json()
        assert found["moves"] and found["moves"][0]["error"] == 0
        refused(
            client.post(
                "/v1/analyse", json={"position": start, "cube": {"value": 2, "owner": "on_roll"}}
            ),
            400,
            "no doubling cube",
        )


@pytest.mark.parametrize(
    "body, status, phrase",
    [
        ({"position": BACKGAMMON_ROLLED, "dice": "3-1"}, 400, "already rolled"),
        ({"position": BACKGAMMON_TO_ROLL, "dice": "7-1"}, 400, ""),
        ({"position": BACKGAMMON_TO_ROLL, "depth": 3}, 400, "give ply"),
        ({"position": "not a position"}, 400, "not a backgammon position"),
        ({"position": BACKGAMMON_ROLLED, "ply": 3}, 422, "ply"),
        ({"position": BACKGAMMON_TO_ROLL, "cube": {"value": 3}}, 422, "1, 2, 4, 8"),
        ({"position": BACKGAMMON_TO_ROLL, "cube": {"away": [0, 3]}}, 422, "points away"),
        ({"position": BACKGAMMON_ROLLED, "player": "nobody"}, 400, "unknown player"),
        ({"position": BACKGAMMON_ROLLED, "player": "/etc/passwd.bin"}, 400, "weights dir"),
        ({"position": BACKGAMMON_ROLLED, "player": "random"}, 400, "does not search"),
        ({"position": BACKGAMMON_ROLLED, "player": "champion"}, 400, "no pipeline"),
        ({"position": BACKGAMMON_ROLLED, "seed": -1}, 422, "seed"),
    ],
)
def test_bad_backgammon_analyses_are_refused_in_a_line(backgammon, body, status, phrase):
    refused(backgammon.post("/v1/analyse", json=body), status, phrase)


# ------------------------------------------------------------------ games without dice


@pytest.mark.parametrize("game, spec", [("tigers", "classic"), ("draughts", "net")])
def test_every_move_is_searched_and_the_best_is_the_searchs(game, spec):
    rules = get_game(game)
    with TestClient(app_for(game)) as client:
        found = client.post("/v1/analyse", json={"player": spec, "depth": 4}).json()
    start = Game(rules)
    assert len(found["moves"]) == len(start.legal_moves())
    result = make_player(f"{spec}:depth=4", rules).search(start)
    best = found["moves"][0]
    assert best["value"] == pytest.approx(result.score, abs=1e-4)
    assert best["depth"] == 4 and best["line"][0] == best["move"]
    assert [m["error"] for m in found["moves"]] == sorted(m["error"] for m in found["moves"])


def test_a_forced_win_is_said_in_words(tigers):
    forced = "T3T/SSSSS/SSSSS/SSSS1/TS1ST T 0"  # a tiger jumps for the fifth capture
    found = tigers.post("/v1/analyse", json={"position": forced, "depth": 2}).json()
    assert found["moves"][0]["text"] == "tigers win in 1 ply"
    refused(
        tigers.post("/v1/analyse", json={"position": "TSSST/SSSSS/S1SSS/SSSSS/TSSST T 0"}),
        400,
        "already over",
    )
    refused(tigers.post("/v1/analyse", json={"ply": 1}), 400, "no dice")


# ------------------------------------------------------------------ records


def _played_record(game: str, plies: int, spec: str = "classic:depth=2") -> str:
    rules = get_game(game)
    game_ = Game(rules)
    player = make_player(spec, rules, seed=3)
    dice = np.random.default_rng(5)
    while game_.ply < plies and game_.outcome is None:
        if game_.chance_outcomes():
            game_.roll(dice)
        else:
            game_.play(player.choose_move(game_))
    return format_record(record_from_game(game_, players={s: spec for s in rules.sides}))


def test_a_tigers_record_is_judged_move_by_move(tigers):
    record = _played_record("tigers", 12)
    answer = tigers.post(
        "/v1/analyse-record", json={"record": record, "player": "classic", "depth": 2}
    )
    assert answer.status_code == 200, answer.text
    found = answer.json()
    assert found["decisions"] and all(d["error"] >= 0 for d in found["decisions"])
    # the record's moves are classic depth 2's own: judged by it, none is an error
    assert all(d["error"] == pytest.approx(0, abs=1e-9) for d in found["decisions"])
    sides = {s["side"]: s for s in found["summaries"]}
    assert sum(s["decisions"] for s in sides.values()) == len(found["decisions"])


def test_a_backgammon_record_and_match_file_are_judged(backgammon, tmp_path):
    record = _played_record("backgammon", 30, spec="net:ply=0")
    found = backgammon.post("/v1/analyse-record", json={"record": record}).json()
    assert found["decisions"] and all(d["error"] >= 0 for d in found["decisions"])
    # the plays were the shipped net's at 0-ply: judged by it at 0-ply, no error
    assert max(d["error"] for d in found["decisions"]) == pytest.approx(0, abs=1e-6)
    mat = """ 1 point match

 Game 1
 Alice : 0                              Bob : 0
  1) 31: 8/5 6/5                     52: 24/22 13/8
  2) 64: 24/14
"""
    answer = backgammon.post("/v1/analyse-record", json={"record": mat, "format": "mat"})
    assert answer.status_code == 200, answer.text
    judged = answer.json()
    assert {d["player"] for d in judged["decisions"]} == {"Alice (O)", "Bob (X)"}
    refused(
        backgammon.post("/v1/analyse-record", json={"record": "1) 31: 8/9", "format": "mat"}),
        400,
        "",
    )
    refused(
        backgammon.post("/v1/analyse-record", json={"record": "x" * (2 << 20)}),
        413,
        "request body is over",
    )


# ------------------------------------------------------------------ which model, keys


def test_the_model_is_the_weights_files_digest(tmp_path, tigers):
    rules = get_game("tigers")
    path = tmp_path / "mine.bin"
    save_network(random_network(rules.number, 4), path, rules.number)
    import hashlib

    with TestClient(app_for("tigers", weights_dir=tmp_path)) as client:
        found = client.get("/v1/model", params={"player": str(path)}).json()
    assert found["file"] == "mine.bin"
    assert found["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert tigers.get("/v1/model", params={"player": "classic"}).json()["file"] is None


def test_the_pipelines_active_model_answers_and_a_promotion_is_seen_at_once(tmp_path):
    from samuel.pipeline import registry
    from samuel.pipeline.store import Store, database_url

    rules = get_game("tigers")
    store = Store.open(database_url(None, tmp_path), command="test")
    try:
        ids = []
        for seed in (1, 2):
            with store.write() as connection:
                ids.append(
                    registry.register_model(
                        connection,
                        tmp_path,
                        "tigers",
                        random_network(rules.number, seed),
                        parent_id=None,
                        status="candidate",
                        training={},
                        run_id=store.run_id,
                    )
                )
        with store.write() as connection:
            registry.promote(connection, ids[0], who="test", why="first")
        with TestClient(app_for("tigers", pipeline_dir=tmp_path)) as client:
            first = client.post("/v1/analyse", json={"depth": 2}).json()
            assert first["model"]["id"] == ids[0] and first["model"]["player"] == "champion"
            with store.write() as connection:
                registry.promote(connection, ids[1], who="test", why="better")
            second = client.post("/v1/analyse", json={"depth": 2}).json()
            assert second["model"]["id"] == ids[1]
            assert second["model"]["sha256"] != first["model"]["sha256"]
            assert client.get("/v1/players").json()["default"] == "champion"
    finally:
        store.close()


def test_api_keys_are_needed_and_keep_to_their_rate(tmp_path):
    keys = tmp_path / "keys"
    keys.write_text("# operator's keys\nabcdefghijklmnop0123 2\nqrstuvwxyzABCDEF4567\n")
    with TestClient(app_for("tigers", api_keys=ApiKeys.load(keys))) as client:
        refused(client.get("/v1/game"), 401, "needs a key")
        refused(client.get("/v1/game", headers={"X-API-Key": "wrongwrongwrong123"}), 401, "not")
        bearer = {"Authorization": "Bearer abcdefghijklmnop0123"}
        assert client.get("/v1/game", headers=bearer).status_code == 200
        assert client.get("/v1/game", headers=bearer).status_code == 200
        limited = client.get("/v1/game", headers=bearer)
        refused(limited, 429, "2 requests a minute")
        assert int(limited.headers["Retry-After"]) >= 1
        other = {"X-API-Key": "qrstuvwxyzABCDEF4567"}  # its own bucket
        assert client.get("/v1/game", headers=other).status_code == 200
        assert client.get("/").status_code == 200  # the page needs no key


@pytest.mark.parametrize(
    "text, phrase",
    [
        ("short 5\n", "a line is a key"),
        ("abcdefghijklmnop0123 0\n", "the rate is 1"),
        ("abcdefghijklmnop0123\nabcdefghijklmnop0123\n", "given twice"),
        ("# nothing\n", "holds no key"),
    ],
)
def test_a_bad_keys_file_is_refused_in_a_line(tmp_path, text, phrase):
    from samuel.errors import CommandError

    keys = tmp_path / "keys"
    keys.write_text(text)
    with pytest.raises(CommandError, match=phrase):
        ApiKeys.load(keys)


def test_samuel_serve_answers_the_api_for_backgammon_with_keys(tmp_path):
    """The real command, in its own process: backgammon's page and API, keys for /v1."""
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    keys = tmp_path / "keys"
    keys.write_text("operator-key-0123456789\n")
    command = [sys.executable, "-m", "samuel.cli", "serve", "--game", "backgammon"]
    command += ["--port", str(port), "--api-keys", str(keys)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "open http://127.0.0.1" in server.stdout.readline()
        assert "The /v1 API needs one of the 1 keys" in server.stdout.readline()
        url = f"http://127.0.0.1:{port}/v1/analyse"
        body, key = {"position": BACKGAMMON_ROLLED}, {"X-API-Key": "operator-key-0123456789"}
        for _ in range(6000):  # the server warms its searches up (a fresh clone compiles)
            try:
                answer = httpx.post(url, json=body, headers=key)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert answer.status_code == 200, answer.text
        assert answer.json()["moves"][0]["error"] == 0
        assert httpx.post(url, json=body).status_code == 401
    finally:
        server.terminate()
        server.wait(timeout=30)


# ------------------------------------------------------------------ --runtime onnx


def _rolled_positions(game: str, count: int, seed: int) -> list[str]:
    rules = get_game(game)
    dice = np.random.default_rng(seed)
    found, game_ = [], Game(rules)
    while len(found) < count:
        if game_.outcome is not None:
            game_ = Game(rules)
        elif game_.chance_outcomes():
            game_.roll(dice)
        else:
            moves = game_.legal_moves()
            if len(moves) > 1:
                found.append(rules.format_position(game_.position))
            game_.play(moves[int(dice.integers(len(moves)))])
    return found


@pytest.mark.parametrize("game", ["backgammon", "nardy"])
def test_the_onnx_runtime_gives_the_same_analysis_as_the_default(game):
    pytest.importorskip("onnxruntime")
    positions = _rolled_positions(game, 12, seed=7)
    with TestClient(app_for(game)) as default, TestClient(app_for(game, runtime="onnx")) as onnx:
        for position in positions:
            body = {"position": position, "ply": 0}
            mine, theirs = (
                default.post("/v1/analyse", json=body),
                onnx.post("/v1/analyse", json=body),
            )
            assert mine.status_code == theirs.status_code == 200, (mine.text, theirs.text)
            mine, theirs = mine.json(), theirs.json()
            assert (mine["runtime"], theirs["runtime"]) == ("numba", "onnx")
            by_move = {m["move"]: m for m in theirs["moves"]}
            assert set(by_move) == {m["move"] for m in mine["moves"]}
            for move in mine["moves"]:
                other = by_move[move["move"]]
                assert other["value"] == pytest.approx(move["value"], abs=1e-5)
                for name, chance in (move["chances"] or {}).items():
                    assert other["chances"][name] == pytest.approx(chance, abs=1e-5)
            assert theirs["moves"][0]["value"] == pytest.approx(mine["moves"][0]["value"], abs=1e-5)
        start = default.get("/v1/game").json()["start"]
        mine = default.post("/v1/analyse", json={"position": start}).json()
        theirs = onnx.post("/v1/analyse", json={"position": start}).json()
        assert theirs["runtime"] == "onnx" and theirs["value"] == pytest.approx(
            mine["value"], abs=1e-5
        )
        assert theirs["cube"] == mine["cube"] or game == "backgammon"
        deeper = onnx.post("/v1/analyse", json={"position": positions[0], "ply": 1}).json()
        assert deeper["runtime"] == "numba"  # n-ply is searched compiled


def test_an_unknown_runtime_is_refused():
    from samuel.errors import CommandError

    with pytest.raises(CommandError, match="--runtime is one of numba, onnx"):
        app_for("backgammon", runtime="gpu")


# ------------------------------------------------------------------ the same from the command line


def test_samuel_analyse_moves_ranks_as_the_api(backgammon, capsys):
    from samuel import cli

    assert cli.main(["analyse", "--game", "backgammon", BACKGAMMON_ROLLED, "--player", "net",
                     "--moves", "3"]) in (0, None)  # fmt: skip
    printed = capsys.readouterr().out.splitlines()
    found = backgammon.post("/v1/analyse", json={"position": BACKGAMMON_ROLLED}).json()
    ranked = [line.split()[1:3] for line in printed if line[:4].strip().rstrip(".").isdigit()]
    assert [" ".join(words) for words in ranked] == [m["move"] for m in found["moves"][:3]]
    assert cli.main(["analyse", "--game", "backgammon", BACKGAMMON_TO_ROLL, "--player", "net",
                     "--moves", "3"]) in (0, None)  # fmt: skip
    assert "cube       no double, take" in capsys.readouterr().out
