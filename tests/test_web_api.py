"""The web server's JSON API: every endpoint, every kind of bad input (with the game unchanged),
independent games, the engine thinking off the event loop, and the OpenAPI schema."""

from __future__ import annotations

import asyncio
import warnings

import httpx
import pytest

from samuel.games.record import parse_records
from samuel.nn.network import random_parameters
from samuel.nn.weights import save_parameters
from samuel.web.app import create_app

with warnings.catch_warnings():  # newer Starlette prefers the httpx2 package; httpx still works
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

FORCED_WIN = "T3T/SSSSS/SSSSS/SSSS1/TS1ST T 0"  # a tiger jumps for the fifth capture
OVER = "TSSST/SSSSS/S1SSS/SSSSS/TSSST T 0"  # the tigers cannot move: the sheep have won
ENDPOINTS = {
    ("get", "/api/players"),
    ("post", "/api/games"),
    ("get", "/api/games/{game_id}"),
    ("delete", "/api/games/{game_id}"),
    ("post", "/api/games/{game_id}/moves"),
    ("post", "/api/games/{game_id}/engine-move"),
    ("post", "/api/games/{game_id}/undo"),
    ("get", "/api/games/{game_id}/record"),
    ("post", "/api/analyse"),
}


TEST_HOST = "testserver"  # TestClient's Host; a real server answers only the hosts it is bound to


def make_app(**options):
    """The application, answering the test client's Host (passed explicitly, as an operator
    passes --allowed-host)."""
    return create_app(allowed_hosts=[TEST_HOST], **options)


@pytest.fixture(scope="module")
def client():
    with TestClient(make_app()) as client:
        yield client


def new_game(client, tigers="classic:depth=2", sheep="human", **more) -> dict:
    answer = client.post("/api/games", json={"players": {"tigers": tigers, "sheep": sheep}, **more})
    assert answer.status_code == 201, answer.text
    return answer.json()


def refused(answer: httpx.Response, status: int, phrase: str) -> None:
    assert answer.status_code == status, answer.text
    detail = answer.json()["detail"]
    assert isinstance(detail, str) and phrase in detail, detail


# ---------------------------------------------------------------- the page and the schema


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for name in ("style.css", "app.js"):
        assert f"/static/{name}" in page.text
        assert client.get(f"/static/{name}").status_code == 200


def test_the_openapi_schema_documents_every_endpoint(client):
    schema = client.get("/openapi.json").json()
    documented = {(method, path) for path, item in schema["paths"].items() for method in item}
    assert ENDPOINTS <= documented
    assert {"GameState", "Search", "Analysis", "Problem"} <= set(schema["components"]["schemas"])
    move = schema["paths"]["/api/games/{game_id}/moves"]["post"]
    assert {"400", "404", "409", "422"} <= set(move["responses"])


# ---------------------------------------------------------------- players


def test_players_lists_classic_levels_and_random(client):
    answer = client.get("/api/players").json()
    specs = [player["spec"] for player in answer["players"]]
    assert {"classic:depth=2", "classic:depth=4", "classic:depth=6", "random"} <= set(specs)
    assert any("time=" in spec for spec in specs)
    assert answer["default"] in specs and answer["strongest"] in specs
    classic = next(p for p in answer["players"] if p["spec"] == "classic:depth=4")
    assert classic["engine"] == "classic" and classic["group"] == "Classic"
    assert next(p for p in answer["players"] if p["spec"] == "random")["engine"] is None


def test_players_offers_the_networks_in_the_weights_dir_that_load(tmp_path):
    save_parameters(random_parameters(1), tmp_path / "gen-001.bin")
    (tmp_path / "broken.bin").write_bytes(b"not a network")
    (tmp_path / "notes.txt").write_text("not weights")
    with TestClient(make_app(weights_dir=tmp_path)) as client:
        levels = client.get("/api/players").json()["players"]
        networks = [p for p in levels if p["group"] == "Network"]
        assert [p["spec"] for p in networks if "gen-001" in p["spec"]]
        assert not [p for p in levels if "broken" in p["spec"] or "notes" in p["spec"]]
        spec = next(p["spec"] for p in networks if "gen-001" in p["spec"])
        game = new_game(client, tigers=f"{spec}:depth=2")
        game = client.post(f"/api/games/{game['id']}/moves", json={"move": "c3"}).json()
        answer = client.post(f"/api/games/{game['id']}/engine-move")
        assert answer.status_code == 200, answer.text
        assert answer.json()["moves"][-1]["search"]["depth"] == 2


def test_a_missing_weights_dir_is_refused(tmp_path):
    with pytest.raises(ValueError, match="not a directory"):
        make_app(weights_dir=tmp_path / "nowhere")


# ---------------------------------------------------------------- games


def test_a_new_game_describes_everything_the_page_draws(client):
    game = new_game(client)
    assert game["position"] == game["start"] == "T3T/5/5/5/T3T S 20"
    assert game["side_to_move"] == "sheep" and game["ply"] == 0 and game["moves"] == []
    assert game["tigers"] == ["a1", "e1", "a5", "e5"] and game["sheep"] == []
    assert (game["sheep_in_hand"], game["captured"]) == (20, 0)
    assert len(game["legal_moves"]) == 21 and "c3" in game["legal_moves"]
    assert game["players"] == {"tigers": "classic:depth=2", "sheep": "human"}
    assert game["outcome"] is None and game["thinking"] is False
    assert game["ply_cap"] == 200 and game["record"] == f"/api/games/{game['id']}/record"
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_a_game_from_a_position_with_a_seed_and_ply_cap(client):
    game = new_game(client, start="T3T/5/2S2/5/T3T T 19", seed=7, ply_cap=5)
    assert (game["side_to_move"], game["sheep_in_hand"], game["sheep"]) == ("tigers", 19, ["c3"])
    assert (game["seed"], game["ply_cap"]) == (7, 5)
    over = new_game(client, start=OVER)
    assert over["outcome"]["winner"] == "sheep" and over["legal_moves"] == []
    assert over["outcome"]["message"] == "The sheep win: the tigers have no legal move."


def test_moves_are_played_in_notation(client):
    game = new_game(client)
    game = client.post(f"/api/games/{game['id']}/moves", json={"move": "c3"}).json()
    game = client.post(f"/api/games/{game['id']}/moves", json={"move": "a1-b2"}).json()
    assert [m["move"] for m in game["moves"]] == ["c3", "a1-b2"]
    assert [m["side"] for m in game["moves"]] == ["sheep", "tigers"]
    assert game["moves"][0] == {"ply": 1, "side": "sheep", "move": "c3", "search": None}
    assert game["position"] == "T3T/5/2S2/1T3/4T S 19"


def test_the_engine_moves_for_the_side_to_move_and_says_what_it_found(client):
    game = new_game(client, tigers="classic:depth=3")
    client.post(f"/api/games/{game['id']}/moves", json={"move": "c3"})
    game = client.post(f"/api/games/{game['id']}/engine-move").json()
    played = game["moves"][-1]
    search = played["search"]
    assert played["side"] == "tigers" and game["ply"] == 2
    assert search["player"] == "classic:depth=3" and search["depth"] == 3
    assert search["move"] == played["move"] == search["principal_variation"][0]
    assert search["nodes"] > 0 and search["forced_winner"] is None
    assert search["score_text"] == f"{search['score']:+.3f} (tigers' view)"


def test_an_engine_can_be_asked_to_move_for_a_human_side_by_name(client):
    game = new_game(client, sheep="human")
    answer = client.post(f"/api/games/{game['id']}/engine-move", json={"player": "random"})
    assert answer.status_code == 200, answer.text
    played = answer.json()["moves"][-1]
    assert played["side"] == "sheep" and played["search"] is None  # random does not search


def test_engine_scores_are_from_the_tigers_view_and_forced_results_in_words(client):
    game = new_game(client, tigers="classic:depth=3", start=FORCED_WIN)
    game = client.post(f"/api/games/{game['id']}/engine-move").json()
    search = game["moves"][-1]["search"]
    assert search["score_text"] == "tigers win in 1 ply"
    assert (search["forced_winner"], search["forced_plies"]) == ("tigers", 1)
    assert search["score"] > 500
    assert game["outcome"] == {
        "winner": "tigers",
        "result": 1,
        "reason": "enough sheep captured",
        "message": "The tigers win: enough sheep captured.",
    }


def test_the_same_seed_gives_the_same_engine_game(client):
    def engine_game(seed: int) -> list[str]:
        game = new_game(client, tigers="classic:depth=2", sheep="random", seed=seed, ply_cap=12)
        while game["outcome"] is None:
            game = client.post(f"/api/games/{game['id']}/engine-move").json()
        return [m["move"] for m in game["moves"]]

    assert engine_game(5) == engine_game(5)


def test_undo_takes_back_moves_and_their_searches(client):
    game = new_game(client)
    for move in ("c3", "a1-b2", "d4"):
        client.post(f"/api/games/{game['id']}/moves", json={"move": move})
    game = client.post(f"/api/games/{game['id']}/undo").json()
    assert [m["move"] for m in game["moves"]] == ["c3", "a1-b2"]
    game = client.post(f"/api/games/{game['id']}/undo", json={"plies": 2}).json()
    assert game["ply"] == 0 and game["position"] == "T3T/5/5/5/T3T S 20"
    finished = new_game(client, start=FORCED_WIN)
    client.post(f"/api/games/{finished['id']}/moves", json={"move": "a1xc1"})
    game = client.post(f"/api/games/{finished['id']}/undo").json()
    assert game["outcome"] is None and game["ply"] == 0  # taking back a win reopens the game


def test_the_record_downloads_as_text_and_reads_back(client):
    game = new_game(client, start=FORCED_WIN)
    client.post(f"/api/games/{game['id']}/moves", json={"move": "a1xc1"})
    answer = client.get(f"/api/games/{game['id']}/record")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    assert "attachment" in answer.headers["content-disposition"]
    [record] = parse_records(answer.text)
    assert [str(m) for m in record.moves] == ["a1xc1"] and record.result == 1
    assert record.players == ("classic:depth=2", "human")


def test_a_deleted_game_is_gone(client):
    game = new_game(client)
    assert client.delete(f"/api/games/{game['id']}").status_code == 204
    refused(client.get(f"/api/games/{game['id']}"), 404, "no game")


def test_games_are_independent(client):
    first, second = new_game(client), new_game(client, tigers="random")
    assert first["id"] != second["id"]
    client.post(f"/api/games/{first['id']}/moves", json={"move": "c3"})
    client.post(f"/api/games/{second['id']}/moves", json={"move": "a2"})
    client.post(f"/api/games/{first['id']}/undo")
    assert client.get(f"/api/games/{first['id']}").json()["ply"] == 0
    second = client.get(f"/api/games/{second['id']}").json()
    assert [m["move"] for m in second["moves"]] == ["a2"]
    assert second["players"]["tigers"] == "random"


def test_the_store_drops_the_game_left_alone_longest():
    with TestClient(make_app(max_games=2)) as client:
        oldest, middle = new_game(client), new_game(client)
        client.get(f"/api/games/{oldest['id']}")  # used again: now the middle one is oldest
        new_game(client)
        assert client.get(f"/api/games/{oldest['id']}").status_code == 200
        refused(client.get(f"/api/games/{middle['id']}"), 404, "no game")


# ---------------------------------------------------------------- analysis


def test_analyse_a_position(client):
    answer = client.post("/api/analyse", json={"position": "start", "depth": 3})
    assert answer.status_code == 200, answer.text
    analysis = answer.json()
    assert analysis["position"] == "T3T/5/5/5/T3T S 20" and analysis["depth"] == 3
    assert analysis["move"] == analysis["principal_variation"][0]
    forced = client.post("/api/analyse", json={"position": FORCED_WIN}).json()
    assert forced["score_text"] == "tigers win in 1 ply" and forced["move"] == "a1xc1"
    timed = client.post("/api/analyse", json={"time": 0.05, "player": "classic"}).json()
    assert timed["depth"] >= 1 and timed["seconds"] < 5


def test_analyse_defaults_to_depth_6_from_the_start(client):
    analysis = client.post("/api/analyse", json={}).json()
    assert (analysis["position"], analysis["depth"]) == ("T3T/5/5/5/T3T S 20", 6)


def test_analyse_a_games_position_changes_nothing(client):
    game = new_game(client)
    client.post(f"/api/games/{game['id']}/moves", json={"move": "c3"})
    analysis = client.post("/api/analyse", json={"game_id": game["id"], "depth": 2}).json()
    assert analysis["position"] == "T3T/5/2S2/5/T3T T 19"
    assert client.get(f"/api/games/{game['id']}").json()["ply"] == 1


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("body", "status", "phrase"),
    [
        ({"start": "T3T/5/5/5 S 20"}, 400, "5 rows"),
        ({"start": "TTT2/5/5/5/T3T S 20"}, 400, "exactly 4 tigers"),
        ({"start": "T3T/5/5/5/T3T X 20"}, 400, "side to move"),
        ({"players": {"tigers": "wizard"}}, 400, "unknown player"),
        ({"players": {"sheep": "classic:depth=zero"}}, 400, "depth must be"),
        ({"players": {"tigers": "classic:colour=red"}}, 400, "unknown option"),
        ({"players": {"tigers": "classic:weights=/etc/passwd"}}, 400, "weights dir"),
        ({"players": {"tigers": "/tmp/evil.bin"}}, 400, "weights dir"),
        ({"players": {"tigers": 3}}, 422, "players.tigers"),
        ({"ply_cap": 0}, 422, "ply_cap"),
        ({"seed": -1}, 422, "seed"),
    ],
)
def test_a_bad_new_game_is_refused_with_the_reason(client, body, status, phrase):
    refused(client.post("/api/games", json=body), status, phrase)


def test_a_body_that_is_not_json_is_refused(client):
    answer = client.post(
        "/api/games", content=b"{nope", headers={"content-type": "application/json"}
    )
    refused(answer, 422, "not valid JSON")


@pytest.mark.parametrize(
    ("body", "status", "phrase"),
    [
        ({"move": "zz"}, 400, "is not a move"),
        ({"move": "f6"}, 400, "is not a point"),
        ({"move": "a1-c1"}, 400, "not joined"),
        ({"move": "a1"}, 409, "occupied"),
        ({"move": "a1-b2"}, 409, "not legal"),
        ({"move": ""}, 400, "is not a move"),
        ({}, 422, "move: Field required"),
        ({"move": 12}, 422, "move"),
        (None, 422, "JSON body"),
    ],
)
def test_a_bad_move_is_refused_and_changes_nothing(client, body, status, phrase):
    game = new_game(client)
    refused(client.post(f"/api/games/{game['id']}/moves", json=body), status, phrase)
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_no_move_after_the_game_is_over(client):
    game = new_game(client, start=OVER)
    refused(client.post(f"/api/games/{game['id']}/moves", json={"move": "a1-b1"}), 409, "over")
    refused(client.post(f"/api/games/{game['id']}/engine-move"), 409, "over")
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_bad_engine_requests_are_refused_and_change_nothing(client):
    game = new_game(client, tigers="classic:depth=2", sheep="human")
    moves = f"/api/games/{game['id']}/engine-move"
    refused(client.post(moves), 409, "played by a human")
    refused(client.post(moves, json={"player": "wizard"}), 400, "unknown player")
    refused(client.post(moves, json={"player": "human"}), 400, "not an engine")
    refused(client.post(moves, json={"player": ["classic"]}), 422, "player")
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_bad_undo_requests_are_refused_and_change_nothing(client):
    game = new_game(client)
    refused(client.post(f"/api/games/{game['id']}/undo"), 409, "no moves")
    game = client.post(f"/api/games/{game['id']}/moves", json={"move": "c3"}).json()
    refused(client.post(f"/api/games/{game['id']}/undo", json={"plies": 2}), 409, "only 1")
    refused(client.post(f"/api/games/{game['id']}/undo", json={"plies": 0}), 422, "plies")
    assert client.get(f"/api/games/{game['id']}").json() == game


@pytest.mark.parametrize(
    ("body", "status", "phrase"),
    [
        ({"position": "T3T/5/5/5/T3T S"}, 400, "three fields"),
        ({"position": "start", "player": "random"}, 400, "does not search"),
        ({"position": "start", "player": "human"}, 400, "does not search"),
        ({"position": "start", "player": "wizard"}, 400, "unknown player"),
        ({"position": OVER}, 409, "already over"),
        ({"game_id": "no-such-game"}, 404, "no game"),
        ({"position": "start", "game_id": "x"}, 422, "not both"),
        ({"depth": 0}, 422, "depth"),
        ({"time": -1}, 422, "time"),
    ],
)
def test_bad_analysis_requests_are_refused(client, body, status, phrase):
    refused(client.post("/api/analyse", json=body), status, phrase)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/api/games/nope", None),
        ("delete", "/api/games/nope", None),
        ("post", "/api/games/nope/moves", {"move": "c3"}),
        ("post", "/api/games/nope/engine-move", None),
        ("post", "/api/games/nope/undo", None),
        ("get", "/api/games/nope/record", None),
    ],
)
def test_an_unknown_game_id_is_a_404(client, method, path, body):
    answer = client.request(method, path, json=body)
    refused(answer, 404, "there is no game 'nope'")


# ---------------------------------------------------------------- the engine off the event loop


@pytest.mark.anyio
async def test_while_the_engine_thinks_the_game_cannot_change_and_others_go_on():
    app = make_app()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=f"http://{TEST_HOST}") as client:
        players = {"tigers": "classic:time=1", "sheep": "human"}
        game = (await client.post("/api/games", json={"players": players})).json()
        other = (await client.post("/api/games", json={})).json()
        url = f"/api/games/{game['id']}"
        await client.post(f"{url}/moves", json={"move": "c3"})
        thinking = asyncio.create_task(client.post(f"{url}/engine-move"))
        for _ in range(200):
            state = (await client.get(url)).json()
            if state["thinking"]:
                break
            await asyncio.sleep(0.01)
        assert state["thinking"] and state["ply"] == 1
        refused(await client.post(f"{url}/moves", json={"move": "a1-b2"}), 409, "thinking")
        refused(await client.post(f"{url}/undo"), 409, "thinking")
        refused(await client.post(f"{url}/engine-move"), 409, "already thinking")
        refused(await client.delete(url), 409, "thinking")
        # Another game is served at once meanwhile.
        answer = await client.post(f"/api/games/{other['id']}/moves", json={"move": "b2"})
        assert answer.status_code == 200 and not thinking.done()
        done = (await thinking).json()
        assert done["ply"] == 2 and not done["thinking"]
        assert done["moves"][-1]["search"]["player"] == players["tigers"]
        assert done["moves"][-1]["side"] == "tigers"


@pytest.mark.anyio
async def test_many_games_at_once_stay_independent():
    app = make_app()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=f"http://{TEST_HOST}") as client:

        async def play(seed: int) -> list[str]:
            body = {
                "players": {"tigers": "classic:depth=2", "sheep": "random"},
                "seed": seed,
                "ply_cap": 16,
            }
            game = (await client.post("/api/games", json=body)).json()
            while game["outcome"] is None:
                answer = await client.post(f"/api/games/{game['id']}/engine-move")
                assert answer.status_code == 200, answer.text
                game = answer.json()
            return [m["move"] for m in game["moves"]]

        together = await asyncio.gather(*(play(seed) for seed in (1, 2, 1, 2, 3)))
        assert together[0] == together[2] and together[1] == together[3]
        assert together[0] == await play(1)  # alone or among others, the same game


def test_engines_lent_again_play_as_new_ones_and_keep_their_own_seed(tmp_path):
    from samuel.games.game import Game
    from samuel.games.tigers.rules import RULES
    from samuel.web.games import PlayerPool, choose_engine_move

    pool, game = PlayerPool(None, size=4), Game(RULES)
    first = [choose_engine_move(game, "classic:depth=3", seed, pool)[0] for seed in range(6)]
    again = [choose_engine_move(game, "classic:depth=3", seed, pool)[0] for seed in range(6)]
    assert first == again and len(set(first)) > 1  # the seed breaks ties at the root
    fixed = {choose_engine_move(game, "random:seed=3", seed, pool)[0] for seed in range(6)}
    assert len(fixed) == 1


class FakeTablebase:
    """Stands in for a built tablebase (the real one takes minutes to build): every position
    with the hand empty is a win for the side to move in 7 plies."""

    def covers(self, position) -> bool:
        return position.sheep_in_hand == 0

    def value(self, position) -> tuple[int, int]:
        return 1, 7


def test_the_true_value_is_shown_once_the_hand_is_empty(monkeypatch):
    import samuel.tablebase.probe as probe

    monkeypatch.setattr(probe, "load_tablebase", lambda directory: FakeTablebase())
    with TestClient(make_app(tablebase_dir="tablebase")) as client:
        placing = new_game(client, start="T3T/5/2S2/5/T3T S 19")
        assert placing["true_value"] is None  # sheep still in hand
        moving = new_game(client, start="SSSSS/SSSSS/TSSSS/STSSS/1TSST S 0")
        assert moving["true_value"] == {"result": -1, "plies": 7, "text": "sheep win in 7 plies"}
        tigers = new_game(client, start="SSSSS/SSSSS/TSSSS/STSSS/1TSST T 0")
        assert tigers["true_value"]["text"] == "tigers win in 7 plies"
    with TestClient(make_app()) as client:
        assert new_game(client, start="SSSSS/SSSSS/TSSSS/STSSS/1TSST S 0")["true_value"] is None


def test_a_missing_tablebase_is_refused_when_the_server_starts(tmp_path):
    with pytest.raises(ValueError, match="tablebase"):
        make_app(tablebase_dir=tmp_path / "nothing")
