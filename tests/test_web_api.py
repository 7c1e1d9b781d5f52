"""The web server's JSON API: every endpoint, every kind of bad input (with the game unchanged),
independent games, the engine thinking off the event loop, and the OpenAPI schema."""

from __future__ import annotations

import asyncio
import os
import re
import types
import warnings

import httpx
import pytest

from samuel.evaluation.networks import random_network, save_network
from samuel.games.record import parse_records
from samuel.web.app import create_app
from samuel.web.specs import NETWORK_FILE_BYTES as NETWORK_BYTES
from tests import game_numbers

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
    # The game's drawing, from the game's folder (its web part says where).
    from samuel.games.tigers import web

    for name, kind, path in (
        ("drawing.css", "text/css", web.STYLE),
        ("drawing.js", "text/javascript", web.SCRIPT),
    ):
        assert f"/game/{name}" in page.text and path.name == name
        answer = client.get(f"/game/{name}")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith(kind)
        assert answer.content == path.read_bytes()


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
    save_network(random_network(0, 1), tmp_path / "gen-001.bin", 0)
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


def test_players_offers_samuel_zero_with_its_shipped_network(client):
    levels = client.get("/api/players").json()["players"]
    zero = [p for p in levels if p["spec"].startswith("zero")]
    assert [p["spec"] for p in zero] == ["zero:sims=800", "zero:sims=10000"]
    assert all(p["engine"] is None and p["group"] == "Network" for p in zero)
    game = new_game(client, tigers="zero:sims=800")
    game = client.post(f"/api/games/{game['id']}/moves", json={"move": "c3"}).json()
    answer = client.post(f"/api/games/{game['id']}/engine-move")
    assert answer.status_code == 200, answer.text
    last = answer.json()["moves"][-1]
    assert last["side"] == "tigers" and last["move"] in game["legal_moves"]
    search = last["search"]  # the PUCT search, described as an alpha-beta one is
    assert search["player"] == "zero:sims=800" and search["move"] == last["move"]
    assert search["simulations"] == 800 and -1 <= search["expected_result"] <= 1
    assert search["principal_variation"][0] == last["move"] and search["depth"] >= 1


def test_a_missing_weights_dir_is_refused(tmp_path):
    with pytest.raises(ValueError, match="nowhere does not exist"):
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


def test_analyse_with_samuel_zero(client):
    answer = client.post("/api/analyse", json={"position": "start", "player": "zero:sims=300"})
    assert answer.status_code == 200, answer.text
    analysis = answer.json()
    assert analysis["move"] == analysis["principal_variation"][0]
    assert analysis["simulations"] == 300 and analysis["nodes"] > 300
    assert analysis["score"] == analysis["expected_result"]
    assert "(expected result, tigers' view)" in analysis["score_text"]
    assert analysis["depth"] == len(analysis["principal_variation"]) > 1
    forced = client.post(
        "/api/analyse", json={"position": FORCED_WIN, "player": "zero:sims=50"}
    ).json()
    assert forced["score_text"] == "tigers win in 1 ply" and forced["move"] in ("a1xc1", "e1xc1")
    assert forced["forced_winner"] == "tigers" and forced["forced_plies"] == 1
    again = client.post("/api/analyse", json={"position": "start", "player": "zero:sims=300"})
    assert again.json() | {"seconds": 0, "nodes_per_second": 0} == analysis | {
        "seconds": 0,
        "nodes_per_second": 0,
    }  # the same search again: no tree kept from the first


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


@pytest.mark.slow
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


def test_a_lent_zero_player_keeps_no_tree_of_another_game():
    from samuel.games.game import Game
    from samuel.games.tigers.rules import RULES
    from samuel.web.games import PlayerPool, choose_engine_move

    pool, game = PlayerPool(None, size=4), Game(RULES)
    with pool.lend("zero:sims=50", 0) as player:
        game.play(player.choose_move(game))  # the tree now holds the position after it
        assert player.reuse
    choose_engine_move(game, "zero:sims=50", 0, pool)
    with pool.lend("zero:sims=50", 0) as again:
        assert again is player and again.last.reused == 0 and again.last.simulations == 50


class FakeTablebase:
    """Stands in for a built tablebase (the real one takes minutes to build): every position
    with the hand empty is a win for the side to move in 7 plies."""

    captures_to_win = 5  # Tigers & Sheep's table: the server refuses another game's

    def covers(self, position) -> bool:
        return position.sheep_in_hand == 0

    def value(self, position) -> tuple[int, int]:
        return 1, 7


def test_the_true_value_is_shown_once_the_hand_is_empty(monkeypatch):
    from samuel.games.tigers import perfect

    monkeypatch.setattr(perfect, "load", lambda directory: FakeTablebase())
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


# ---------------------------------------------------------------- a server safe to leave running

NETWORK_SPECS = ("{path}", "hybrid:net={path}", "{path}:depth=2")


@pytest.fixture
def folders(tmp_path):
    """A weights dir with a network, a tablebase dir, and next to them files a visitor must not
    reach: a secret, a network outside, a folder."""
    weights, outside = tmp_path / "weights", tmp_path / "outside"
    weights.mkdir()
    outside.mkdir()
    (tmp_path / "tablebase").mkdir()
    save_network(random_network(0, 1), weights / "gen-001.bin", 0)
    save_network(random_network(0, 2), outside / "stolen.bin", 0)
    (outside / "secret.bin").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (outside / "secret.json").write_text('{"weights": "root:x:0:0"}')
    return tmp_path


def spec_refused(client, spec: str, phrase: str) -> str:
    """The detail of the 400 that starting a game with ``spec`` gets."""
    answer = client.post("/api/games", json={"players": {"tigers": spec}})
    refused(answer, 400, phrase)
    detail = answer.json()["detail"]
    assert "root:" not in detail and "\n" not in detail  # never a file's contents
    return detail


def test_spec_files_outside_the_weights_dir_are_never_read(folders):
    weights = folders / "weights"
    with TestClient(make_app(weights_dir=weights)) as client:
        for path in (folders / "outside" / "secret.bin", folders / "outside" / "stolen.bin"):
            for template in NETWORK_SPECS:
                spec_refused(client, template.format(path=path), "not in this server's weights")
        for spec in (
            f"classic:weights={folders / 'outside' / 'secret.json'}",
            f"classic:weights={weights}/../outside/secret.json",
            "hybrid:net=/etc/passwd",
            "hybrid:net=/dev/zero",
            "/dev/zero.bin",
        ):
            spec_refused(client, spec, "not in this server's weights dir")
        # Whether a file outside exists is not told either.
        missing = spec_refused(client, f"{folders}/outside/none.bin", "not in")
        existing = spec_refused(client, f"{folders}/outside/stolen.bin", "not in")
        # (the quoted path may be cut short; what is said of it must be the same)
        assert missing.rsplit(" is not in", 1)[1] == existing.rsplit(" is not in", 1)[1]
        # The network inside is played, however its path is written.
        for spec in (f"{weights}/gen-001.bin", f'hybrid:net="{weights}/gen-001.bin"'):
            assert new_game(client, tigers=spec)["players"]["tigers"] == spec
    with TestClient(make_app()) as client:  # no weights dir: no file at all
        spec_refused(client, f"{weights}/gen-001.bin", "this server has no weights dir")


def test_a_fifo_a_device_or_a_huge_file_in_the_weights_dir_is_refused_unread(folders):
    weights = folders / "weights"
    os.mkfifo(weights / "pipe.bin")  # opening it would wait for a writer for ever
    (weights / "zero.bin").symlink_to("/dev/zero")  # reading it would fill memory
    with open(weights / "huge.bin", "wb") as sparse:  # 2 GB, no disk used
        sparse.truncate(2 * 10**9)
    (weights / "folder.bin").mkdir()
    (weights / "passwd.bin").write_bytes(b"root:x:0:0" + bytes(NETWORK_BYTES - 10))
    with TestClient(make_app(weights_dir=weights)) as client:
        for template in NETWORK_SPECS:
            spec_refused(client, template.format(path=weights / "pipe.bin"), "not a regular file")
            spec_refused(client, template.format(path=weights / "folder.bin"), "not a regular")
            spec_refused(client, template.format(path=weights / "zero.bin"), "not in this server")
            spec_refused(client, template.format(path=weights / "huge.bin"), "more than one can")
            spec_refused(client, template.format(path=weights / "passwd.bin"), "TSNN")
        spec_refused(client, f"classic:weights={weights}/pipe.bin", "not a regular file")
        offered = [p["spec"] for p in client.get("/api/players").json()["players"]]
        assert [spec for spec in offered if "weights" in spec] == [
            f"hybrid:net={weights}/gen-001.bin",
            f"{weights}/gen-001.bin",
        ]


def test_a_symlink_out_of_the_weights_dir_is_refused_and_one_within_is_followed(folders):
    weights = folders / "weights"
    (weights / "escape.bin").symlink_to(folders / "outside" / "stolen.bin")
    (weights / "latest.bin").symlink_to(weights / "gen-001.bin")
    (weights / "loop.bin").symlink_to(weights / "loop.bin")
    with TestClient(make_app(weights_dir=weights)) as client:
        for template in NETWORK_SPECS:
            spec_refused(client, template.format(path=weights / "escape.bin"), "not in this")
            spec_refused(client, template.format(path=weights / "loop.bin"), "")
        new_game(client, tigers=f"{weights}/latest.bin:depth=1")
        spec_refused(client, f"{weights}/gen\0.bin", "")  # a NUL byte is a 400, not a 500


def test_a_tablebase_outside_the_servers_is_refused(folders, monkeypatch):
    from samuel.games.tigers import perfect

    monkeypatch.setattr(perfect, "load", lambda directory: FakeTablebase())
    with TestClient(make_app(tablebase_dir=folders / "tablebase")) as client:
        for folder in ("/root", "/etc", folders / "outside", "/nowhere"):
            for name in ("classic", "perfect"):
                spec_refused(client, f"{name}:tablebase={folder}", "not in this server's tablebase")
        spec_refused(client, f"classic:tablebase={folders}/tablebase/../outside", "not in")
    with TestClient(make_app()) as client:
        spec_refused(client, "perfect", "this server has none")
        spec_refused(client, f"classic:tablebase={folders}/tablebase", "has no tablebase dir")


def test_a_request_for_another_host_is_refused():
    with TestClient(make_app()) as client:
        assert client.get("/api/players").status_code == 200
        for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example"):
            answer = client.get("/api/players", headers={"host": host})
            assert answer.status_code == 400 and answer.text == "Invalid host header"
    with TestClient(create_app(), base_url="http://127.0.0.1:8000") as client:  # the default
        assert client.get("/api/players").status_code == 200
        for host in ("localhost", "localhost:8000", "[::1]:8000", "127.0.0.1"):
            assert client.get("/api/players", headers={"host": host}).status_code == 200
        assert client.get("/", headers={"host": "evil.example"}).status_code == 400


def test_the_hosts_answered_are_those_of_the_address_bound():
    from samuel.web.app import allowed_hosts_for

    assert allowed_hosts_for("127.0.0.1") == ["127.0.0.1", "localhost", "[::1]"]
    assert allowed_hosts_for("::1") == ["127.0.0.1", "localhost", "[::1]", "::1"]
    assert allowed_hosts_for("192.168.1.5", ["Samuel.lan"]) == ["192.168.1.5", "samuel.lan"]
    assert allowed_hosts_for("fe80::1") == ["[fe80::1]"]
    assert "localhost" in allowed_hosts_for("0.0.0.0")


def test_a_large_body_is_refused_before_it_is_read(client):
    body = b'{"move": "' + b"c" * 10_000_000 + b'"}'
    answer = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    refused(answer, 413, "over 16384 bytes")

    def chunks():  # no Content-Length: the body arrives in chunks
        for _ in range(100):
            yield b"x" * 1000

    refused(client.post("/api/games", content=chunks()), 413, "over 16384 bytes")
    assert len(client.post("/api/games", content=chunks()).text) < 200


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/games", {"players": {"tigers": "classic:depth=2," + "x" * 10_000}}, "tigers"),
        ("/api/games", {"start": "T3T/5/5/5/T3T S 20" + " " * 5000}, "start"),
        ("/api/analyse", {"position": "S" * 5000}, "position"),
        ("/api/analyse", {"player": "c" * 5000}, "player"),
        ("/api/analyse", {"game_id": "g" * 5000}, "game_id"),
    ],
)
def test_long_strings_are_refused_with_a_short_message(client, path, body, field):
    answer = client.post(path, json=body)
    refused(answer, 422, f"{field}: String should have at most")
    assert len(answer.text) < 200


def test_errors_repeat_at_most_a_little_of_the_input(client):
    spec = "wizard" + "z" * 290
    detail = spec_refused(client, spec, "unknown player")
    assert "296 characters" in detail and "z" * 100 not in detail
    game = new_game(client)
    detail = client.post(f"/api/games/{game['id']}/moves", json={"move": "z" * 16}).json()
    answer = client.get("/api/games/" + "n" * 5000)
    refused(answer, 404, "5000 characters")
    assert len(answer.text) < 300 and detail


@pytest.mark.parametrize(
    "spec",
    [
        '"',
        '""',
        '"":depth=2',
        "classic:=",
        "classic:,,,:::",
        'classic:weights=""',
        'classic:"depth"=2',
        "classic:depth=1e999",
        "classic:time=nan",
        "classic:time=inf",
        "classic:seed=-1",
        "classic:depth=" + "9" * 250,
        "hybrid:scale=1e400",
        "\x00",
        "classic:weights=\x00",
        "élan:depth=２",
        "net:tablebase=.",
        "../../../../etc/passwd.bin",
        "perfect:tablebase=/",
        "human:seed=1",
    ],
)
def test_no_spec_makes_the_server_fail(client, spec):
    answer = client.post("/api/games", json={"players": {"tigers": spec}})
    assert answer.status_code in (201, 400), answer.text
    game = new_game(client, tigers="random")
    for path, body in (
        (f"/api/games/{game['id']}/engine-move", {"player": spec}),
        ("/api/analyse", {"player": spec}),
    ):
        answer = client.post(path, json=body)
        assert answer.status_code in (200, 400, 409), answer.text
        if answer.status_code != 200:
            assert "\n" not in answer.json()["detail"]


def test_searches_deeper_or_longer_than_the_caps_are_refused(client):
    from samuel.web.schemas import MAX_SEARCH_DEPTH, MAX_SEARCH_SECONDS
    from samuel.web.specs import player_for

    spec_refused(client, "classic:depth=30", f"depth {MAX_SEARCH_DEPTH} at most")
    spec_refused(client, "classic:time=100", f"{MAX_SEARCH_SECONDS:g} s a move at most")
    game = new_game(client, sheep="human")
    moves = f"/api/games/{game['id']}/engine-move"
    refused(client.post(moves, json={"player": "classic:depth=13"}), 400, "at most")
    refused(client.post("/api/analyse", json={"depth": MAX_SEARCH_DEPTH + 1}), 422, "depth")
    refused(client.post("/api/analyse", json={"time": MAX_SEARCH_SECONDS + 1}), 422, "time")
    refused(client.post("/api/analyse", json={"player": "classic:depth=20"}), 400, "at most")
    assert player_for(f"classic:depth={MAX_SEARCH_DEPTH}", None).seconds == MAX_SEARCH_SECONDS
    assert player_for("classic:time=0.5", None).seconds == 0.5


@pytest.mark.anyio
async def test_a_full_search_queue_refuses_at_once_and_cheap_requests_go_on(monkeypatch):
    import threading

    import anyio

    import samuel.web.app as web_app

    release = threading.Event()

    def held_analysis(game, spec, depth, *more):  # lasts until the test lets it end, if deep
        if depth > 3:
            release.wait(timeout=30)
        return analyse(game, spec, depth, *more)

    analyse = web_app.analyse
    monkeypatch.setattr(web_app, "analyse", held_analysis)
    app = make_app(search_threads=1, waiting_searches=1)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=f"http://{TEST_HOST}") as client:
        game = (await client.post("/api/games", json={})).json()
        body = {"position": "start", "depth": 5}
        answers = []
        async with anyio.create_task_group() as group:

            async def search():
                answers.append(await client.post("/api/analyse", json=body))

            group.start_soon(search)
            group.start_soon(search)  # one runs, one waits
            try:
                with anyio.fail_after(10):
                    while app.state.searches.admitted < 2:
                        await anyio.sleep(0.01)
                with anyio.fail_after(10):  # a guard against a hang, not a timing threshold
                    full = await client.post("/api/analyse", json=body)
                    refused(full, 503, "busy")
                    assert full.headers["retry-after"].isdigit()
                    hint = {"player": "classic:depth=4"}
                    engine = await client.post(f"/api/games/{game['id']}/engine-move", json=hint)
                    refused(engine, 503, "busy")
                    state = (await client.get(f"/api/games/{game['id']}")).json()
                    assert state["ply"] == 0 and not state["thinking"]  # the game is unchanged
                    moved = await client.post(f"/api/games/{game['id']}/moves", json={"move": "c3"})
                    assert moved.status_code == 200
                    assert (await client.get("/api/players")).status_code == 200
                    assert (await client.post("/api/games", json={})).status_code == 201
                    # A quick search has its own lane: it does not wait behind deep ones.
                    quick = await client.post("/api/analyse", json={"depth": 1})
                    assert quick.status_code == 200 and quick.json()["depth"] == 1
                assert not answers  # the held searches are still held
            finally:
                release.set()
        assert [answer.status_code for answer in answers] == [200, 200]
        assert app.state.searches.admitted == 0


@pytest.mark.anyio
async def test_one_client_cannot_push_out_the_games_of_others():
    app = make_app(max_games=10, max_games_per_client=3)

    def client_at(address: str) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=app, client=(address, 40000))
        return httpx.AsyncClient(transport=transport, base_url=f"http://{TEST_HOST}")

    async with client_at("10.0.0.1") as player, client_at("10.0.0.66") as flood:
        mine = [(await player.post("/api/games", json={})).json()["id"] for _ in range(3)]
        theirs = [(await flood.post("/api/games", json={})).json()["id"] for _ in range(50)]
        for game_id in mine:
            assert (await player.get(f"/api/games/{game_id}")).status_code == 200
        kept = [(await flood.get(f"/api/games/{g}")).status_code == 200 for g in theirs]
        assert kept == [False] * 47 + [True] * 3  # the flood lost its own oldest games
        another = (await player.post("/api/games", json={})).json()["id"]
        assert (await player.get(f"/api/games/{mine[0]}")).status_code == 404
        assert (await player.get(f"/api/games/{another}")).status_code == 200


@pytest.mark.parametrize(
    ("spec", "depth", "seconds", "quick"),
    [
        ("random", None, None, True),
        ("classic:depth=2", None, None, True),
        ("classic", 3, None, True),
        ("classic", None, None, False),  # depth 4, make_player's default
        ("classic:depth=2", None, 0.5, False),
        ("classic:depth=2,time=0.1", None, None, False),
        ("classic:depth=nope", None, None, False),
        ("wizard:", None, None, False),
        ("zero:net=z.bin,sims=10", None, None, False),  # a PUCT search is never counted quick
    ],
)
def test_quick_searches_are_told_from_the_rest(spec, depth, seconds, quick):
    from samuel.web.app import is_quick

    assert is_quick(spec, depth, seconds) is quick


def test_no_page_loads_scripts_from_elsewhere(client):
    assert client.get("/docs").status_code == 404
    assert client.get("/redoc").status_code == 404
    assert client.get("/openapi.json").status_code == 200
    page = client.get("/").text + client.get("/static/app.js").text
    assert "cdn" not in page.lower() and "https://" not in page


# ---------------------------------------------------------------- English draughts (--game)

DRAUGHTS_START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
CAPTURES = "B:W6,7,14,15,23,24:B1,2"  # 1x10x17, 1x10x19x26, 1x10x19x28, 2x9x18x27, 2x11x18x27
BLACK_WINS = "B:W19:B15"  # 15x24 takes White's last piece


@pytest.fixture(scope="module")
def draughts():
    with TestClient(make_app(game="draughts")) as client:
        yield client


def new_draughts(client, black="human", white="classic:depth=2", **more) -> dict:
    answer = client.post("/api/games", json={"players": {"black": black, "white": white}, **more})
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_draughts_the_page_and_the_game_are_named(draughts, client):
    assert "<title>Samuel · English draughts</title>" in draughts.get("/").text
    assert 'data-game="draughts"' in draughts.get("/").text
    assert "<title>Samuel · Tigers &amp; Sheep</title>" in client.get("/").text
    info = draughts.get("/api/game").json()
    assert (info["name"], info["title"], info["drawing"]) == (
        "draughts",
        "English draughts",
        "draughts",
    )
    assert info["sides"] == ["black", "white"] and info["first_to_move"] == "black"
    assert info["squares"] == [str(square) for square in range(1, 33)]
    assert info["start"] == DRAUGHTS_START and info["view"] == "Black's view"
    assert info["default_players"] == {"black": "human", "white": "classic:depth=4"}
    assert info["record_suffix"] == ".pdn"
    tigers = client.get("/api/game").json()
    assert tigers["sides"] == ["tigers", "sheep"] and tigers["first_to_move"] == "sheep"
    assert "English draughts" in draughts.get("/openapi.json").json()["info"]["summary"]


def test_draughts_players_are_what_make_player_makes_for_draughts(tmp_path):
    tigers = game_numbers.TIGERS
    save_network(random_network(tigers, 1), tmp_path / "gen-001.bin", tigers)  # not draughts'
    with TestClient(make_app(game="draughts", weights_dir=tmp_path)) as client:
        answer = client.get("/api/players").json()
        specs = [player["spec"] for player in answer["players"]]
        assert {"classic:depth=2", "classic:depth=4", "classic:depth=6", "random"} <= set(specs)
        # The shipped draughts network, alone and in the hybrid; the Tigers file is not offered.
        networks = [p["spec"] for p in answer["players"] if p["group"] == "Network"]
        assert networks == ["hybrid", "net"]
        assert answer["default"] == "classic:depth=4" and answer["strongest"] == "hybrid"
        made = client.post("/api/games", json={"players": {"white": "net:depth=2"}})
        assert made.status_code == 201, made.text
        refused(
            client.post("/api/games", json={"players": {"white": str(tmp_path / "gen-001.bin")}}),
            400,
            "Tigers",
        )


def test_draughts_a_new_game_describes_the_board_in_the_games_words(draughts):
    game = new_draughts(draughts)
    assert game["game"] == "draughts"
    assert game["position"] == game["start"] == DRAUGHTS_START
    assert game["side_to_move"] == "black" and game["ply"] == 0 and game["last_move"] is None
    assert game["board"][0] == {"square": "1", "piece": "man", "side": "black"}
    assert game["board"][-1] == {"square": "32", "piece": "man", "side": "white"}
    assert [p["square"] for p in game["board"]] == [str(s) for s in [*range(1, 13), *range(21, 33)]]
    assert game["legal_moves"] == ["9-13", "10-14", "11-15", "12-16", "9-14", "10-15", "11-16"]
    assert game["legal_move_paths"][2] == {
        "move": "11-15",
        "origin": "11",
        "target": "15",
        "path": ["11", "15"],
        "captured": [],
    }
    assert [game[field] for field in ("tigers", "sheep", "sheep_in_hand", "captured")] == [None] * 4
    assert game["players"] == {"black": "human", "white": "classic:depth=2"}
    default = draughts.post("/api/games", json={}).json()
    assert default["players"] == {"black": "human", "white": "classic:depth=4"}
    only_white = draughts.post("/api/games", json={"players": {"white": "random"}}).json()
    assert only_white["players"] == {"black": "human", "white": "random"}


def test_draughts_moves_in_pdn_with_a_multi_jump_and_its_short_form(draughts):
    game = new_draughts(draughts, start=CAPTURES)
    paths = {path["move"]: path for path in game["legal_move_paths"]}
    assert sorted(paths) == ["1x10x17", "1x10x19x26", "1x10x19x28", "2x11x18x27", "2x9x18x27"]
    assert paths["1x10x19x28"] == {
        "move": "1x10x19x28",
        "origin": "1",
        "target": "28",
        "path": ["1", "10", "19", "28"],
        "captured": ["6", "15", "24"],
    }
    game = draughts.post(f"/api/games/{game['id']}/moves", json={"move": "1x10x19x28"}).json()
    assert game["moves"] == [{"ply": 1, "side": "black", "move": "1x10x19x28", "search": None}]
    assert game["last_move"]["captured"] == ["6", "15", "24"]
    assert game["position"] == "W:W7,14,23:B2,28" and game["side_to_move"] == "white"
    again = new_draughts(draughts, start=CAPTURES)
    played = draughts.post(f"/api/games/{again['id']}/moves", json={"move": "1x28"}).json()
    assert played["moves"][0]["move"] == "1x10x19x28"  # the short form, when one capture fits


@pytest.mark.parametrize(
    ("start", "move", "status", "phrase"),
    [
        ("start", "c3", 400, "is not a move"),
        ("start", "11-16-20", 400, "is not a move"),
        ("start", "11-20", 400, "not diagonal neighbours"),
        ("start", "33-29", 400, "33"),
        ("start", "22-18", 409, "Black has no piece on 22"),
        ("B:W30:B14", "14-10", 409, "a man moves forward only"),
        ("start", "7-11", 409, "11 is occupied"),
        (CAPTURES, "1-5", 409, "captures are compulsory"),
        (CAPTURES, "1x10", 409, "the captures from 1 are"),
        (CAPTURES, "2x27", 400, "ambiguous"),
        (CAPTURES, "1x32", 409, "no capture goes from 1 to 32"),
    ],
)
def test_draughts_a_bad_move_is_refused_and_changes_nothing(draughts, start, move, status, phrase):
    game = new_draughts(draughts, start=start)
    refused(draughts.post(f"/api/games/{game['id']}/moves", json={"move": move}), status, phrase)
    assert draughts.get(f"/api/games/{game['id']}").json() == game


@pytest.mark.parametrize(
    ("body", "status", "phrase"),
    [
        ({"players": {"tigers": "human"}}, 422, "'tigers' is no side of English draughts"),
        ({"players": {"black": 3}}, 422, "players.black"),
        ({"players": {"white": "perfect"}}, 400, "'perfect' plays from the Tigers & Sheep"),
        ({"players": {"white": "wizard"}}, 400, "unknown player"),
        ({"start": "T3T/5/5/5/T3T S 20"}, 400, "is not a position"),
        ({"start": "B:W1:B2,3"}, 400, "a white man on 1"),
        ({"start": "B:W21:B21"}, 400, "square 21 is used twice"),
    ],
)
def test_draughts_a_bad_new_game_is_refused_with_the_reason(draughts, body, status, phrase):
    refused(draughts.post("/api/games", json=body), status, phrase)


def test_draughts_engine_moves_and_scores_are_from_blacks_view(draughts):
    game = new_draughts(draughts, white="classic:depth=3")
    draughts.post(f"/api/games/{game['id']}/moves", json={"move": "11-15"})
    game = draughts.post(f"/api/games/{game['id']}/engine-move").json()
    played = game["moves"][-1]
    search = played["search"]
    assert played["side"] == "white" and game["side_to_move"] == "black" and game["ply"] == 2
    assert search["player"] == "classic:depth=3" and search["depth"] == 3
    assert search["move"] == played["move"] == search["principal_variation"][0]
    assert all(re.fullmatch(r"\d+([-x]\d+)+", move) for move in search["principal_variation"])
    assert search["score_text"] == f"{search['score']:+.3f} (Black's view)"
    refused(draughts.post(f"/api/games/{game['id']}/engine-move"), 409, "Black is played by")


def test_draughts_a_forced_result_and_the_end_of_the_game_in_words(draughts):
    game = new_draughts(draughts, black="classic:depth=3", start=BLACK_WINS)
    game = draughts.post(f"/api/games/{game['id']}/engine-move").json()
    search = game["moves"][-1]["search"]
    assert search["score_text"] == "Black wins in 1 ply" and search["score"] > 500
    assert (search["forced_winner"], search["forced_plies"]) == ("black", 1)
    assert game["legal_moves"] == [] and game["legal_move_paths"] == []
    assert game["outcome"] == {
        "winner": "black",
        "result": 1,
        "reason": "the side to move has no legal move",
        "message": "Black wins: White has no legal move.",
    }
    refused(draughts.post(f"/api/games/{game['id']}/moves", json={"move": "24-19"}), 409, "over")
    white = new_draughts(draughts, white="random", start="W:W19:B15")
    white = draughts.post(f"/api/games/{white['id']}/engine-move").json()
    assert white["outcome"]["message"] == "White wins: Black has no legal move."
    assert white["outcome"]["result"] == -1


def test_draughts_analysis_in_pdn(draughts):
    answer = draughts.post("/api/analyse", json={"depth": 4})
    assert answer.status_code == 200, answer.text
    analysis = answer.json()
    assert analysis["position"] == DRAUGHTS_START and analysis["depth"] == 4
    assert analysis["move"] in ["9-13", "10-14", "11-15", "12-16", "9-14", "10-15", "11-16"]
    assert analysis["score_text"].endswith("(Black's view)")
    forced = draughts.post("/api/analyse", json={"position": BLACK_WINS, "depth": 2}).json()
    assert (forced["move"], forced["score_text"]) == ("15x24", "Black wins in 1 ply")
    game = new_draughts(draughts, start=CAPTURES)
    mine = draughts.post("/api/analyse", json={"game_id": game["id"], "depth": 3}).json()
    assert mine["position"] == CAPTURES and "x" in mine["move"]
    refused(draughts.post("/api/analyse", json={"position": "T3T/5/5/5/T3T S 20"}), 400, "not a")


def test_draughts_undo(draughts):
    game = new_draughts(draughts, white="random")
    draughts.post(f"/api/games/{game['id']}/moves", json={"move": "11-15"})
    game = draughts.post(f"/api/games/{game['id']}/engine-move").json()
    assert game["ply"] == 2
    back = draughts.post(f"/api/games/{game['id']}/undo", json={"plies": 2}).json()
    assert back["ply"] == 0 and back["position"] == DRAUGHTS_START and back["moves"] == []
    refused(draughts.post(f"/api/games/{game['id']}/undo"), 409, "no moves")


def test_draughts_the_record_is_pdn_and_reads_back(draughts):
    game = new_draughts(draughts, black="human", white="random", start=BLACK_WINS)
    draughts.post(f"/api/games/{game['id']}/moves", json={"move": "15x24"})
    answer = draughts.get(f"/api/games/{game['id']}/record")
    assert answer.status_code == 200
    assert answer.headers["content-disposition"].endswith(f'filename="samuel-{game["id"]}.pdn"')
    assert '[GameType "21"]' in answer.text and f'[FEN "{BLACK_WINS}"]' in answer.text
    [record] = parse_records(answer.text)
    assert record.rules.name == "draughts"
    assert [str(m) for m in record.moves] == ["15x24"] and record.result == 1
    assert record.players == ("human", "random")
    game = new_draughts(draughts, white="random")
    for move in ("11-15", "23-19", "8-11"):
        draughts.post(f"/api/games/{game['id']}/moves", json={"move": move})
    [record] = parse_records(draughts.get(f"/api/games/{game['id']}/record").text)
    assert [str(m) for m in record.moves] == ["11-15", "23-19", "8-11"] and record.result is None
    assert record.start == record.rules.initial_position()


def test_draughts_serves_no_tablebase_and_other_games_not_at_all(tmp_path):
    from samuel.errors import UnsupportedGameError

    with pytest.raises(UnsupportedGameError, match="--tablebase works for Tigers & Sheep only"):
        make_app(game="draughts", tablebase_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        make_app(game="chess")


def test_a_game_without_a_web_part_gets_the_analysis_api_alone(monkeypatch):
    from samuel.errors import UnsupportedGameError
    from samuel.games.descriptor import GameDescriptor

    part = GameDescriptor.part

    def no_draughts_page(descriptor, name):
        return None if (descriptor.name, name) == ("draughts", "web") else part(descriptor, name)

    monkeypatch.setattr(GameDescriptor, "part", no_draughts_page)
    with TestClient(make_app(game="draughts")) as client:
        assert "/v1/analyse" in client.get("/").text
        assert client.get("/v1/game").json()["page"] is False
        assert client.post("/api/games", json={}).status_code in (404, 405)
    empty = types.ModuleType("samuel.games.draughts.web")  # a web part with nothing in it
    monkeypatch.setattr(GameDescriptor, "part", lambda descriptor, name: empty)
    with pytest.raises(UnsupportedGameError) as refused:
        make_app(game="draughts")
    assert str(refused.value).startswith(
        "the web app cannot show English draughts: its web part (samuel.games.draughts.web) has "
        "no DRAWING, SQUARES, "
    ) and str(refused.value).endswith(", board, move_path")


def test_draughts_draws_its_own_board(draughts):
    drawing = draughts.get("/game/drawing.js").text
    assert "useDrawing(DRAUGHTS)" in drawing and "a capture is compulsory" in drawing
    assert ".draughts-piece" in draughts.get("/game/drawing.css").text


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_samuel_serve_game_draughts_serves_draughts(monkeypatch, capsys):
    import uvicorn

    from samuel import cli

    served = {}

    def run(server, sockets=None):  # instead of serving: what it would serve, and where
        served.update(app=server.config.app, ports=[s.getsockname()[1] for s in sockets])
        server.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
    # uvicorn's logging set-up closes the handlers already there, among them absl's (OpenSpiel
    # imports it) writing to pytest's captured standard error: it is not what is tested here.
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda config: None)
    port = free_port()
    assert cli.main(["serve", "--game", "draughts", "--port", str(port)]) in (0, None)
    assert served["ports"] == [port] and served["app"].state.game.name == "draughts"
    assert f"http://127.0.0.1:{port}/" in capsys.readouterr().out
