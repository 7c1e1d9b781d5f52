"""The page's API for the games with dice: the server throws the dice (the same seed, the same
dice), each play's steps, backgammon's money cube (double, take, pass, what a game is worth,
and the refusals), why a click is refused (long nardy's head and six-block rules, backgammon's
bar), and hostile input answered with a 4xx and one clear message."""

from __future__ import annotations

import warnings

import pytest

from samuel.games import get_game
from samuel.games.game import Game
from samuel.web.app import create_app
from samuel.web.dice import dice_for

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.slow
HOST = "testserver"
ENGINE = "net:ply=0"
X_FAR_AHEAD = "AHzfBwB3BwAAAA X -"  # X bears off next turns, O has not reached home: O passes
O_DOUBLES = "4PN9AAB3NwAAAA O -"  # O on roll well ahead in a race: the network doubles, X takes
SIX_BLOCK = "24x5,17x2,16x2,15x2,14x2,13x2/24x15 w 6-1"  # White holds Black's 1-5
ON_THE_BAR = "4HPwATDgc/ABMA X 6-5"  # the start, with a checker of X's put on the bar below


@pytest.fixture(scope="module")
def backgammon():
    with TestClient(create_app(allowed_hosts=[HOST], game="backgammon")) as client:
        yield client


@pytest.fixture(scope="module")
def nardy():
    with TestClient(create_app(allowed_hosts=[HOST], game="nardy")) as client:
        yield client


def new_game(client, **body) -> dict:
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def refused(answer, status: int, phrase: str) -> None:
    assert answer.status_code == status, answer.text
    detail = answer.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and phrase in detail, detail


def test_the_game_says_it_has_dice_and_the_page_draws_it(backgammon, nardy):
    info = backgammon.get("/api/game").json()
    assert (info["dice"], info["cube"], info["ply_cap"]) == (True, True, 1000)
    assert info["squares"][:24] == [str(p) for p in range(1, 25)]
    assert info["squares"][24:] == ["bar-x", "bar-o", "off-x", "off-o"]
    assert info["default_players"] == {"x": "human", "o": ENGINE}
    assert backgammon.get("/v1/game").json()["page"]
    assert "/game/drawing.js" in backgammon.get("/").text
    assert "useDrawing(diceBoard(" in backgammon.get("/game/drawing.js").text
    info = nardy.get("/api/game").json()
    assert (info["dice"], info["cube"]) == (True, False)
    assert info["squares"][24:] == ["off-white", "off-black"]
    players = backgammon.get("/api/players").json()
    assert players["default"] == ENGINE and players["strongest"] == "net:ply=1"


@pytest.mark.parametrize("game", ["backgammon", "nardy"])
def test_the_server_throws_the_dice_by_the_seed(game, backgammon, nardy):
    client = {"backgammon": backgammon, "nardy": nardy}[game]
    engine = {side: ENGINE for side in client.get("/api/game").json()["sides"]}
    first = new_game(client, players=engine, seed=11)
    if first["cube"] is not None:  # an engine on roll decided on the cube, then threw
        assert first["cube"]["decision"] is None
    rules = get_game(game)
    replay = Game(rules)
    thrown = replay.roll(dice_for(11, 0))
    assert first["dice"] == [thrown.high, thrown.low] and first["moves"][0]["roll"]
    assert first["moves"][0]["move"] == str(thrown)
    state = engine_plays(client, first, 6)  # three turns of each side
    repeated = engine_plays(client, new_game(client, players=engine, seed=11), 6)
    assert [m["move"] for m in repeated["moves"]] == [m["move"] for m in state["moves"]]
    other = engine_plays(client, new_game(client, players=engine, seed=12), 6)
    rolls = [m["move"] for m in other["moves"] if m["roll"]]
    assert rolls != [m["move"] for m in state["moves"] if m["roll"]]


def engine_plays(client, state: dict, plays: int) -> dict:
    for _ in range(plays):
        if state["outcome"] is not None:  # two engines: a double passed ends it
            break
        answer = client.post(f"/api/games/{state['id']}/engine-move")
        assert answer.status_code == 200, answer.text
        state = answer.json()
    return state


def test_a_play_lists_its_steps_on_the_boards_squares(backgammon, nardy):
    state = new_game(backgammon, start="4HPwATDgc/ABMA O 6-5")  # O's own 24/13 is X's 1/12
    assert state["side_to_move"] == "o" and state["dice"] == [6, 5]
    run = next(p for p in state["legal_move_paths"] if p["move"] == "24/18/13")
    assert run["steps"] == [
        {"from": "1", "to": "7", "hit": False, "die": 6},
        {"from": "7", "to": "12", "hit": False, "die": 5},
    ]
    assert run["origin"] == "1" and run["target"] == "12" and run["path"] == ["1", "7", "12"]
    counts = {side: 0 for side in ("x", "o")}
    for piece in state["board"]:
        counts[piece["side"]] += piece["count"]
    assert counts == {"x": 15, "o": 15}
    state = new_game(nardy, start="24x14,5x1/24x15 w 6-5")
    bear = [p for p in state["legal_move_paths"] if any(s["to"] == "off-white" for s in p["steps"])]
    assert not bear  # a checker bears off only once all are home
    state = new_game(nardy, start="offx14,2x1/24x15 w 6-5")
    off = state["legal_move_paths"][0]
    assert off["steps"] == [{"from": "2", "to": "off-white", "hit": False, "die": 6}]


def test_a_hit_is_a_step_that_hits_and_the_bar_enters_first(backgammon):
    state = new_game(backgammon, start="4HPwATDgc/ABMA O 2-1", seed=4)
    state = backgammon.post(f"/api/games/{state['id']}/moves", json={"move": "24/23 13/11"})
    state = state.json()  # X on roll: the human is asked about the cube first
    assert state["cube"]["decision"] == "double" and state["dice"] is None
    state = backgammon.post(f"/api/games/{state['id']}/cube", json={"action": "roll"}).json()
    assert state["dice"] is not None and state["cube"]["decision"] is None
    hits = {s["to"] for p in state["legal_move_paths"] for s in p["steps"] if s["hit"]}
    blots = {p["square"] for p in state["board"] if p["side"] == "o" and p["count"] == 1}
    assert hits and hits <= blots == {"1", "2", "14"}  # O's blots: its 24, 23 and 11


def test_x_doubles_and_the_engine_passes_the_game_is_worth_the_cube(backgammon):
    state = new_game(backgammon, start=X_FAR_AHEAD, seed=3)
    assert state["cube"]["decision"] == "double" and state["cube"]["decider"] == "x"
    assert state["dice"] is None and state["legal_moves"] == []
    refused(backgammon.post(f"/api/games/{state['id']}/moves", json={"move": "3/off"}), 409,
            "must double or roll first")  # fmt: skip
    refused(backgammon.post(f"/api/games/{state['id']}/engine-move"), 409, "must double or roll")
    refused(backgammon.post(f"/api/games/{state['id']}/cube", json={"action": "take"}), 409,
            "no double to take")  # fmt: skip
    state = backgammon.post(f"/api/games/{state['id']}/cube", json={"action": "double"}).json()
    actions = [(a["side"], a["action"], a["value"]) for a in state["cube"]["actions"]]
    assert actions == [("x", "double", 2), ("o", "pass", 2)]
    outcome = state["outcome"]
    assert (
        outcome["winner"] == "x"
        and outcome["points"] == 1
        and outcome["reason"] == ("double passed")
    )
    assert outcome["message"] == "X wins: O passed the double (1 point)."
    assert state["legal_moves"] == []
    refused(backgammon.post(f"/api/games/{state['id']}/cube", json={"action": "roll"}), 409,
            "the game is over (double passed)")  # fmt: skip
    refused(backgammon.post(f"/api/games/{state['id']}/engine-move"), 409, "the game is over")
    undone = backgammon.post(f"/api/games/{state['id']}/undo", json={"plies": 1})
    refused(undone, 409, "cannot take back 1 move(s): the game has no moves")


def test_the_engine_doubles_and_x_takes_then_the_cube_is_xs(backgammon):
    state = new_game(backgammon, start=O_DOUBLES, seed=5, players={"x": "human", "o": ENGINE})
    cube = state["cube"]
    assert (cube["offered_by"], cube["decision"], cube["decider"]) == ("o", "take", "x")
    refused(backgammon.post(f"/api/games/{state['id']}/cube", json={"action": "double"}), 409,
            "must take or pass the double first")  # fmt: skip
    refused(backgammon.post(f"/api/games/{state['id']}/engine-move"), 409, "take or pass")
    state = backgammon.post(f"/api/games/{state['id']}/cube", json={"action": "take"}).json()
    assert (state["cube"]["value"], state["cube"]["owner"]) == (2, "x")
    assert state["dice"] is not None and state["side_to_move"] == "o"  # O threw, and plays
    refused(backgammon.post(f"/api/games/{state['id']}/cube", json={"action": "double"}), 409,
            "the dice are already thrown")  # fmt: skip
    state = backgammon.post(f"/api/games/{state['id']}/engine-move").json()
    assert state["side_to_move"] == "x" and state["cube"]["decision"] == "double"  # X owns it
    state = backgammon.post(f"/api/games/{state['id']}/cube", json={"action": "roll"}).json()
    assert state["dice"] is not None and state["cube"]["decision"] is None
    while state["outcome"] is None:  # to the end: the points are the cube times the kind
        if state["cube"]["decision"]:
            action = "roll" if state["cube"]["decision"] == "double" else "take"
            answer = backgammon.post(f"/api/games/{state['id']}/cube", json={"action": action})
        elif state["side_to_move"] == "x":
            answer = backgammon.post(
                f"/api/games/{state['id']}/moves", json={"move": state["legal_moves"][0]}
            )
        else:
            answer = backgammon.post(f"/api/games/{state['id']}/engine-move")
        assert answer.status_code == 200, answer.text
        state = answer.json()
    kinds = {"all fifteen checkers borne off": 1}
    points = state["outcome"]["points"]
    assert state["outcome"]["reason"] in kinds and points % state["cube"]["value"] == 0
    assert points // state["cube"]["value"] in (1, 2, 3)


def test_nothing_to_double_in_long_nardy(nardy):
    state = new_game(nardy, seed=2)
    assert state["cube"] is None and state["dice"] is not None
    refused(nardy.post(f"/api/games/{state['id']}/cube", json={"action": "double"}), 409,
            "Long nardy has no doubling cube")  # fmt: skip


def test_undo_throws_the_same_dice_again(nardy):
    state = new_game(nardy, seed=9)
    dice = state["dice"]
    state = nardy.post(f"/api/games/{state['id']}/moves", json={"move": state["legal_moves"][0]})
    state = nardy.post(f"/api/games/{state.json()['id']}/engine-move").json()
    assert state["ply"] == 5  # White threw and played, Black threw and played, White threw
    state = nardy.post(f"/api/games/{state['id']}/undo", json={"plies": 4}).json()
    assert state["ply"] == 1 and state["dice"] == dice  # taken back to White's play, same roll


def why(client, state, **body):
    return client.post(f"/api/games/{state['id']}/why-not", json=body)


def test_a_refused_click_is_explained_in_long_nardys_words(nardy):
    state = new_game(nardy, start=SIX_BLOCK)
    six = why(nardy, state, **{"from": "24", "to": "18"}).json()["reason"]
    assert six.startswith("The six-block rule") and "Black checker" in six
    head = why(nardy, state, steps=[{"from": "24", "to": "23"}], **{"from": "24"}).json()
    assert head["reason"].startswith("The head rule: one checker may leave the head")
    assert "6-6, 4-4 or 3-3" in head["reason"]
    start = new_game(nardy, start="24x15/24x15 w 3-3")  # two may leave the head, not three
    steps = [{"from": "24", "to": "21"}, {"from": "24", "to": "21"}]
    assert (
        why(nardy, start, steps=steps, **{"from": "24"})
        .json()["reason"]
        .startswith("The head rule")
    )
    assert why(nardy, state, **{"from": "5"}).json()["reason"] == (
        "You have no checker on your point 5 to move."
    )


def test_a_refused_click_is_explained_in_backgammons_words(backgammon):
    state = new_game(backgammon, start="4HPwATDgc/ABMA X 6-5")
    assert why(backgammon, state, **{"from": "6", "to": "1"}).json()["reason"] == (
        "That die cannot be played there: your point 1 is held by O."
    )
    bar = new_game(backgammon, start=_with_x_on_the_bar())
    reason = why(backgammon, bar, **{"from": "13", "to": "10"}).json()["reason"]
    assert reason.startswith("Enter from the bar first")
    off = why(backgammon, state, **{"from": "6", "to": "off-x"}).json()["reason"]
    assert off.startswith("You may bear off only once all your checkers are in your home board")
    higher = new_game(backgammon, start=_only_one_die())
    reason = why(backgammon, higher, **{"from": "24", "to": "23"}).json()["reason"]
    assert reason.startswith("The higher die if only one can be played")


def _with_x_on_the_bar() -> str:
    from samuel.games.backgammon.rules import START, Position, Roll, format_position

    x = list(START)
    x[23] -= 1  # one of X's back checkers hit: on its bar
    x[24] += 1
    return format_position(Position(tuple(x), START, True, Roll(3, 1)))


def _only_one_die() -> str:
    """X's last checker, on its 24-point, may play the 6 or the 1 but not both (O holds X's
    17-point, where both lead): it must play the 6."""
    from samuel.games.backgammon.rules import Position, Roll, format_position

    x, o = [0] * 25, [0] * 25
    x[23] = 1  # the other fourteen are borne off
    o[7], o[5] = 2, 13  # O's 8-point is X's 17
    return format_position(Position(tuple(x), tuple(o), True, Roll(6, 1)))


@pytest.mark.parametrize(
    "body, status, phrase",
    [
        ({"from": "zz"}, 400, "'zz' is no square of the x side"),
        ({"from": "bar-o"}, 400, "no square of the x side"),
        ({"from": "off-x"}, 400, "a checker borne off moves no more"),
        ({"from": "24", "to": "99"}, 400, "'99' is no square"),
        ({"steps": [{"from": "3", "to": "1"}], "from": "24"}, 409, "start of no legal play"),
        ({"steps": [{"from": "1", "to": "2"}] * 5, "from": "1"}, 422, "steps"),
        ({"from": "x" * 40}, 422, "from"),
        ({}, 422, "from: Field required"),
    ],
)
def test_hostile_click_questions_are_refused_in_a_line(backgammon, body, status, phrase):
    state = new_game(backgammon, start="4HPwATDgc/ABMA X 6-5")
    refused(why(backgammon, state, **body), status, phrase)


def test_hostile_cube_actions_and_ids_are_refused_in_a_line(backgammon):
    state = new_game(backgammon, start="4HPkASjgc/ABMA X -")  # X's second turn: it may double
    refused(backgammon.post(f"/api/games/{state['id']}/cube", json={"action": "redouble"}), 422,
            "action: Input should be 'roll', 'double', 'take' or 'pass'")  # fmt: skip
    refused(backgammon.post(f"/api/games/{state['id']}/cube", json={}), 422, "action")
    refused(backgammon.post("/api/games/nope/cube", json={"action": "roll"}), 404, "no game")
    refused(backgammon.post("/api/games/nope/why-not", json={"from": "1"}), 404, "no game")
    refused(backgammon.post(f"/api/games/{state['id']}/moves", json={"move": "3-1"}), 409,
            "must double or roll first")  # fmt: skip
    rolled = backgammon.post(f"/api/games/{state['id']}/cube", json={"action": "roll"}).json()
    refused(backgammon.post(f"/api/games/{state['id']}/moves", json={"move": "6-6"}), 409,
            "not a roll to throw here")  # fmt: skip
    refused(backgammon.post(f"/api/games/{state['id']}/moves", json={"move": "24/1"}), 409,
            "not legal")  # fmt: skip
    assert backgammon.get(f"/api/games/{state['id']}").json()["ply"] == rolled["ply"]


def test_nobody_doubles_before_the_first_move_of_a_game_from_the_start(backgammon):
    state = new_game(backgammon, seed=2)  # the opening throw decides who moves first
    assert state["cube"]["decision"] is None and state["dice"] is not None
    refused(backgammon.post(f"/api/games/{state['id']}/cube", json={"action": "double"}), 409,
            "the dice are already thrown")  # fmt: skip
