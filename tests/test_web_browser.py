"""The page in a real browser: Playwright drives Debian's Chromium against `samuel serve`'s app
on a free localhost port, and plays by clicking, as a person would.

Chromium comes from Debian (``apt-get install chromium``; ``.ci/run`` installs it), never from a
browser download. Outside CI the tests skip when it is missing; in CI (``CI=true``) they fail.
Set ``SAMUEL_SCREENSHOTS=DIR`` to keep the screenshots there as well as in pytest's tmp dir.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
IN_CI = os.environ.get("CI") == "true"
WAIT_MS = 20_000  # for one engine reply or page update; they take milliseconds here
MOST_CLICKS = 400  # a guard: a game is at most 200 plies (the ply cap), one or two clicks each


def _need(available: bool, reason: str) -> None:
    if not available:
        if IN_CI:
            pytest.fail(f"{reason}; CI must run the browser tests (.ci/run installs chromium)")
        pytest.skip(reason, allow_module_level=True)


try:
    import uvicorn
    from playwright.sync_api import Page, expect, sync_playwright
except ImportError as error:  # pragma: no cover - the test extra installs both
    _need(False, f"the browser tests need playwright and uvicorn ({error})")


def serve(game: str):
    """`samuel serve --game GAME`'s app on a free localhost port, in a thread: yields its URL."""
    from samuel.web.app import allowed_hosts_for, create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(allowed_hosts=allowed_hosts_for("127.0.0.1"), game=game)  # as `serve` does
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 600  # the app warms its searches up (compiles on a fresh clone)
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def server_url():
    yield from serve("tigers")


@pytest.fixture(scope="module")
def draughts_url():
    yield from serve("draughts")


@pytest.fixture(scope="module")
def browser():
    _need(CHROMIUM.exists(), f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_page(browser, url: str):
    """A fresh browser page at ``url``, once it has its game; yields it, then checks that the
    page raised no error."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    page.wait_for_selector("#opponent option", state="attached")
    page.wait_for_function("() => localStorage.getItem('samuel.game') !== null")
    yield page
    context.close()
    assert not errors, f"the page raised: {errors}"


@pytest.fixture
def page(browser, server_url):
    yield from open_page(browser, server_url)


@pytest.fixture
def draughts_page(browser, draughts_url):
    yield from open_page(browser, draughts_url)


def screenshot(page: Page, path: Path) -> None:
    page.screenshot(path=path, full_page=True)
    keep = os.environ.get("SAMUEL_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)


def start_game(page: Page, you: str, opponent: str, strength: str = "") -> None:
    page.locator(f'input[name="you"][value="{you}"]').check(force=True)
    page.select_option("#opponent", opponent)
    if strength:
        page.select_option("#strength", strength)
    before = page.evaluate("() => localStorage.getItem('samuel.game')")
    page.click("#new-game")
    page.wait_for_function("(id) => localStorage.getItem('samuel.game') !== id", arg=before)
    wait_for_turn(page)


def wait_for_turn(page: Page) -> None:
    """Until it is the person's turn or the game is over (not while a move is on its way)."""
    page.wait_for_selector('body[data-status="your-turn"], body[data-status="over"]')


def play_one_move(page: Page) -> None:
    """Click the first legal move: a placement, or the first movable piece and its first target;
    then wait until the move (and the engine's reply) are on the board."""
    ply = int(page.get_attribute("body", "data-ply"))
    if page.locator(".point.target").count() == 0:
        page.locator(".point.movable").first.click()
        expect(page.locator(".point.selected")).to_have_count(1)
    page.locator(".point.target").first.click()
    page.wait_for_function(
        "(ply) => Number(document.body.dataset.ply) > ply && "
        "['your-turn', 'over'].includes(document.body.dataset.status)",
        arg=ply,
    )


def game_state(page: Page) -> dict:
    return page.evaluate(
        "async () => (await fetch('/api/games/' + localStorage.getItem('samuel.game'))).json()"
    )


def test_a_whole_game_by_clicking_against_the_engine(page: Page, tmp_path: Path):
    start_game(page, "sheep", "classic:depth=2", strength="depth=1")
    for _ in range(MOST_CLICKS):
        if page.get_attribute("body", "data-status") == "over":
            break
        play_one_move(page)
    state = game_state(page)
    assert state["outcome"] is not None, "the game did not end"
    status = page.inner_text("#status")
    assert status == f"Game over. {state['outcome']['message']}"
    assert re.fullmatch(r"Game over\. (The (tigers|sheep) win|A draw): .+\.", status)
    assert state["players"] == {"tigers": "classic:depth=1", "sheep": "human"}
    plies = page.locator("#moves .ply").all_inner_texts()
    assert plies == [played["move"] for played in state["moves"]]
    assert len(plies) == state["ply"] > 0
    assert page.inner_text("#engine-depth") == "1"  # the engine's last search is shown
    assert page.inner_text("#engine-pv")
    screenshot(page, tmp_path / "web-game-over.png")
    assert (tmp_path / "web-game-over.png").stat().st_size > 10_000


def test_samuel_zeros_search_is_shown_as_an_expected_result(page: Page, tmp_path: Path):
    start_game(page, "sheep", "zero:sims=800")
    play_one_move(page)
    state = game_state(page)
    search = state["moves"][-1]["search"]
    assert search["player"] == "zero:sims=800" and search["simulations"] == 800
    score = page.inner_text("#engine-score")
    assert score == search["score_text"] and "(expected result, tigers' view)" in score
    assert page.inner_text("#engine-pv").split()[0] == search["move"]
    # the bar shows the expected result itself: -1 empties it, +1 fills it
    width = page.evaluate("() => document.getElementById('bar-first').style.width")
    assert float(width.rstrip("%")) == pytest.approx(50 + 50 * search["expected_result"], abs=0.1)
    screenshot(page, tmp_path / "web-zero.png")


def test_bad_input_is_explained_and_changes_nothing(page: Page, tmp_path: Path):
    start_game(page, "sheep", "random")
    play_one_move(page)
    before = game_state(page)
    page.fill("#position", "TTT2/5/5/5/T3T S 20")
    page.click("#setup-form button")
    expect(page.locator("#message")).to_contain_text("exactly 4 tigers")
    assert game_state(page)["id"] == before["id"]
    assert page.locator("#moves .ply").count() == before["ply"] == 2

    page.fill("#position", "T3T/5/2S2/5/T3T T 19")  # a good one starts a game from it;
    page.click("#setup-form button")  # the random tigers move at once
    page.wait_for_function("() => document.body.dataset.ply === '1'")
    wait_for_turn(page)
    assert game_state(page)["start"] == "T3T/5/2S2/5/T3T T 19"


def test_undo_flip_and_the_phone_layout(page: Page, tmp_path: Path):
    page.set_viewport_size({"width": 390, "height": 844})
    start_game(page, "tigers", "random")  # the random sheep open; then it is the tigers' turn
    assert page.get_attribute("body", "data-ply") == "1"
    play_one_move(page)
    assert page.get_attribute("body", "data-ply") == "3"
    page.click("#undo")  # takes back the sheep's reply and the tiger's move
    page.wait_for_function("() => document.body.dataset.ply === '1'")
    a5_before = page.locator('[data-point="a5"]').bounding_box()
    page.click("#flip")
    a5_after = page.locator('[data-point="a5"]').bounding_box()
    assert a5_after["y"] > a5_before["y"]  # the fifth row went to the bottom
    page.click("#flip")
    box = page.locator("#board").bounding_box()
    assert box["width"] <= 390 and box["width"] > 300  # the board fills a phone's width
    screenshot(page, tmp_path / "web-phone.png")


def test_the_page_works_with_the_host_check_on(browser, server_url: str):
    """The server answers only the names of the address it is bound to: the page works at
    127.0.0.1 (every test here) and at localhost, while a request naming another host, as a page
    elsewhere would send after DNS rebinding, is refused."""
    port = urlsplit(server_url).port
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(f"http://localhost:{port}/")
    page.wait_for_selector("#opponent option", state="attached")
    page.wait_for_function("() => localStorage.getItem('samuel.game') !== null")
    start_game(page, "sheep", "random")
    play_one_move(page)
    assert game_state(page)["ply"] == 2
    context.close()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/api/players", headers={"Host": f"evil.example:{port}"})
    answer = connection.getresponse()
    assert (answer.status, answer.read()) == (400, b"Invalid host header")


# ---------------------------------------------------------------- English draughts


def wait_for_ply_after(page: Page, ply: int) -> None:
    page.wait_for_function(
        "(ply) => Number(document.body.dataset.ply) > ply && "
        "['your-turn', 'over'].includes(document.body.dataset.status)",
        arg=ply,
    )


def play_one_draughts_move(page: Page) -> None:
    """Pick up the first piece that can move and click its first target (a capture's next
    landing square or its last) until a move is played, picking the first move the chooser
    offers if it asks; then wait for the engine's reply."""
    ply = int(page.get_attribute("body", "data-ply"))
    page.locator(".point.movable").first.click()
    expect(page.locator(".point.selected")).to_have_count(1)
    for _ in range(12):  # at most a landing square a jump
        page.locator(".point.target").first.click()
        if page.locator("#chooser").is_visible():
            page.locator("#chooser .choice").first.click()
        if int(page.get_attribute("body", "data-ply")) > ply or page.get_attribute(
            "body", "data-status"
        ) in ("sending", "thinking", "waiting", "over"):
            break
    wait_for_ply_after(page, ply)


def square_box(page: Page, square: int) -> dict:
    return page.locator(f'[data-point="{square}"]').bounding_box()


def test_draughts_a_whole_game_by_clicking_against_the_engine(draughts_page: Page, tmp_path):
    page = draughts_page
    assert page.title() == "Samuel · English draughts"
    assert page.inner_text("h1") == "Samuel English draughts"
    labels = page.locator(".segmented span").all_inner_texts()
    assert labels == ["Black", "White", "Both", "Watch"]  # Black moves first
    start_game(page, "black", "classic:depth=2", strength="depth=1")
    assert page.locator(".point").count() == 32
    assert page.locator(".draughts-piece.black.man").count() == 12
    assert page.locator(".draughts-piece.white.man").count() == 12
    numbers = page.locator(".square-number").all_text_contents()
    assert sorted(map(int, numbers)) == list(range(1, 33))
    # PDN's numbering from White's side: 1 on the top row (b8), 32 on the bottom (g1), 29 at a1.
    one, four, twenty_nine = square_box(page, 1), square_box(page, 4), square_box(page, 29)
    assert one["y"] < twenty_nine["y"] and twenty_nine["x"] < one["x"] < four["x"]
    movable = sorted(
        int(s)
        for s in page.locator(".point.movable").evaluate_all(
            "nodes => nodes.map(node => node.dataset.point)"
        )
    )
    assert movable == [9, 10, 11, 12]
    page.click('[data-point="11"]')
    targets = page.locator(".point.target").evaluate_all(
        "nodes => nodes.map(node => node.dataset.point)"
    )
    assert sorted(map(int, targets)) == [15, 16]
    page.click('[data-point="15"]')
    wait_for_ply_after(page, 0)
    assert page.locator("#moves .ply").all_inner_texts()[0] == "11-15"
    assert page.inner_text("#engine-depth") == "1"
    assert "Black's view" in page.inner_text("#engine-score")
    screenshot(page, tmp_path / "web-draughts-opening.png")
    for _ in range(MOST_CLICKS):
        if page.get_attribute("body", "data-status") == "over":
            break
        play_one_draughts_move(page)
    state = game_state(page)
    assert state["game"] == "draughts" and state["outcome"] is not None, "the game did not end"
    status = page.inner_text("#status")
    assert status == f"Game over. {state['outcome']['message']}"
    assert re.fullmatch(r"Game over\. ((Black|White) wins|A draw): .+\.", status)
    assert state["players"] == {"black": "human", "white": "classic:depth=1"}
    plies = page.locator("#moves .ply").all_inner_texts()
    assert plies == [played["move"] for played in state["moves"]]
    assert len(plies) == state["ply"] > 2
    assert any("x" in move for move in plies)  # captures were clicked (and played)
    screenshot(page, tmp_path / "web-draughts-game-over.png")
    assert (tmp_path / "web-draughts-game-over.png").stat().st_size > 10_000


def test_draughts_a_capture_by_its_landing_squares_the_chooser_undo_and_flip(
    draughts_page: Page, tmp_path
):
    page = draughts_page
    start_game(page, "black", "random")
    page.fill("#position", "B:W6,7,14,15,23,24:B1,2")  # 1x10x17, 1x10x19x26, 1x10x19x28, ...
    page.click("#setup-form button")
    page.wait_for_function(
        "() => document.getElementById('current-position')"
        ".textContent.startsWith('B:W6,7,14,15,23,24:B1,2')"
    )
    wait_for_turn(page)
    assert "captures are compulsory" in page.inner_text("#status")

    def targets() -> list[int]:
        squares = page.locator(".point.jump-target").evaluate_all(
            "nodes => nodes.map(node => node.dataset.point)"
        )
        return sorted(map(int, squares))

    page.click('[data-point="1"]')
    assert targets() == [10, 17, 26, 28]  # the next landing square and where each capture ends
    page.click('[data-point="10"]')  # three captures go on from 10
    assert targets() == [17, 19, 26, 28]
    assert "go on jumping" in page.inner_text("#status")
    page.click('[data-point="19"]')
    assert targets() == [26, 28]
    page.click('[data-point="28"]')  # one capture fits: it is played
    wait_for_ply_after(page, 0)
    state = game_state(page)
    assert state["moves"][0]["move"] == "1x10x19x28" and state["ply"] == 2  # random replied
    assert page.locator(".captured-mark").count() == len(state["last_move"]["captured"])

    page.click("#undo")  # your capture and the reply
    page.wait_for_function("() => document.body.dataset.ply === '0'")
    page.click('[data-point="2"]')
    page.click('[data-point="27"]')  # two captures go from 2 to 27: the chooser asks
    expect(page.locator("#chooser")).to_be_visible()
    choices = page.locator("#chooser .choice").all_inner_texts()
    assert choices == ["2x9x18x27", "2x11x18x27"]
    screenshot(page, tmp_path / "web-draughts-chooser.png")
    page.locator("#chooser .choice", has_text="2x11x18x27").click()
    wait_for_ply_after(page, 0)
    assert game_state(page)["moves"][0]["move"] == "2x11x18x27"

    page.click("#undo")
    page.wait_for_function("() => document.body.dataset.ply === '0'")
    page.click('[data-point="1"]')
    page.click('[data-point="19"]')  # a landing square skipped: 10 is the only way to 19
    assert targets() == [26, 28]
    page.click('[data-point="26"]')
    wait_for_ply_after(page, 0)
    assert game_state(page)["moves"][0]["move"] == "1x10x19x26"

    top = square_box(page, 1)["y"]
    page.click("#flip")
    assert square_box(page, 1)["y"] > top  # Black's side went to the bottom
    page.click("#flip")
    record = page.evaluate(
        "async () => (await fetch(document.getElementById('download').href)).text()"
    )
    assert '[GameType "21"]' in record and "1. 1x10x19x26 " in record
    assert page.get_attribute("#download", "download").endswith(".pdn")

    page.set_viewport_size({"width": 390, "height": 844})
    box = page.locator("#board").bounding_box()
    assert 300 < box["width"] <= 390  # the board fills a phone's width
    screenshot(page, tmp_path / "web-draughts-phone.png")


# ---------------------------------------------------------------- the games with dice

BACKGAMMON_SEED = 16  # with these dice X, clicking its first legal play each turn, hits,
# enters from the bar and bears off, and the network doubles it (tests/test_web_dice.py's search)
SIX_BLOCK = "24x5,17x2,16x2,15x2,14x2,13x2/24x15 w 6-1"  # White holds Black's 1-5: 24/18 is
# refused by the six-block rule, and after 24/23 a second checker off the head by the head rule


@pytest.fixture(scope="module")
def backgammon_url():
    yield from serve("backgammon")


@pytest.fixture(scope="module")
def nardy_url():
    yield from serve("nardy")


def resume_game(page: Page, body: dict) -> dict:
    """Start a game through the API (a seed the page does not ask for) and open it."""
    state = page.evaluate(
        "async (body) => (await fetch('/api/games', {method: 'POST', headers: "
        "{'Content-Type': 'application/json'}, body: JSON.stringify(body)})).json()",
        body,
    )
    page.evaluate("(id) => localStorage.setItem('samuel.game', id)", state["id"])
    page.reload()
    page.wait_for_function("(id) => app.game && app.game.id === id", arg=state["id"])
    wait_for_turn(page)
    return state


def play_dice_turn(page: Page, double: bool = False) -> None:
    """Answer the cube if asked (double if ``double``, else roll; take a double), else click the
    first legal play's steps, each its checker then its point; then wait for the engine."""
    ply = int(page.get_attribute("body", "data-ply"))
    state = game_state(page)
    cube = state["cube"]
    if cube and cube["decision"]:
        button = "#take" if cube["decision"] == "take" else "#double" if double else "#roll"
        page.click(button)
        page.wait_for_function(
            "(ply) => Number(document.body.dataset.ply) > ply || "
            "(app.game.cube && app.game.cube.decision === null) || "
            "document.body.dataset.status === 'over'",
            arg=ply,
        )
        wait_for_turn(page)
        return
    play = state["legal_move_paths"][0]
    if not play["steps"]:
        page.click("#no-play")
    for step in play["steps"]:
        page.click(f'[data-point="{step["from"]}"]')
        page.click(f'[data-point="{step["to"]}"]')
        if page.get_attribute("body", "data-status") != "your-turn":
            break  # the steps so far made the play: it is on its way
    wait_for_ply_after(page, ply)


def shot(folder: Path) -> bool:
    return (folder / "web-backgammon.png").exists()


def test_backgammon_a_whole_game_by_clicking_against_the_engine(browser, backgammon_url, tmp_path):
    page = next(open_page(browser, backgammon_url))
    assert page.title() == "Samuel · Backgammon"
    assert page.locator(".point").count() == 28  # 24 points, two bars, two trays
    resume_game(page, {"players": {"x": "human", "o": "net:ply=0"}, "seed": BACKGAMMON_SEED})
    state = game_state(page)  # no double before the first move: the dice are thrown at once
    assert state["cube"]["decision"] is None and state["dice"] is not None
    expect(page.locator(".die")).to_have_count(2 if state["dice"][0] != state["dice"][1] else 4)
    turns = 0
    for _ in range(MOST_CLICKS):
        if page.get_attribute("body", "data-status") == "over":
            break
        state = game_state(page)
        if turns >= 12 and len(state["legal_moves"]) > 3 and not shot(tmp_path):
            # the analysis panel ranks this roll's plays: one click made, the screenshot taken
            ranked = page.locator(f'#ranked[data-position="{state["position"]}"] li')
            expect(ranked).to_have_count(min(8, len(state["legal_moves"])))
            first = state["legal_move_paths"][0]["steps"][0]
            page.click(f'[data-point="{first["from"]}"]')
            screenshot(page, tmp_path / "web-backgammon.png")
            page.click(f'[data-point="{first["from"]}"]')  # put it down again
        play_dice_turn(page)
        turns += 1
    state = game_state(page)
    assert state["outcome"] is not None, "the game did not end"
    mine = [m["move"] for m in state["moves"] if m["side"] == "x" and not m["roll"]]
    assert any("*" in move for move in mine), "X hit no blot"
    assert any(move.startswith("bar/") for move in mine), "X entered no checker from the bar"
    assert any("/off" in move for move in mine), "X bore off no checker"
    actions = [(a["side"], a["action"]) for a in state["cube"]["actions"]]
    assert ("o", "double") in actions and ("x", "take") in actions  # the page asked X
    outcome = state["outcome"]
    assert outcome["points"] % state["cube"]["value"] == 0
    assert page.inner_text("#status") == f"Game over. {outcome['message']}"
    assert f"({outcome['points']} points)" in outcome["message"]
    assert (tmp_path / "web-backgammon.png").stat().st_size > 10_000


def test_nardy_a_whole_game_with_its_head_and_six_block_rules_explained(
    browser, nardy_url, tmp_path
):
    page = next(open_page(browser, nardy_url))
    assert page.title() == "Samuel · Long nardy"
    assert page.locator(".point").count() == 26  # 24 points and two trays: no bar
    page.select_option("#opponent", "net:ply=0")
    page.fill("#position", SIX_BLOCK)
    page.click("#setup-form button")
    page.wait_for_function("() => app.game && app.game.start.startsWith('24x5,17x2')")
    wait_for_turn(page)
    page.click('[data-point="24"]')
    page.click('[data-point="18"]')  # a sixth point in a row, and no Black checker past them
    expect(page.locator("#message")).to_contain_text("The six-block rule")
    page.click('[data-point="24"]')
    page.click('[data-point="23"]')  # a step of the play: kept while the die left is played
    assert page.evaluate("() => app.partial.length") == 1
    page.click('[data-point="24"]')  # a second checker off the head
    expect(page.locator("#message")).to_contain_text("The head rule")
    screenshot(page, tmp_path / "web-nardy.png")
    page.click('[data-point="17"]')
    page.click('[data-point="11"]')  # the 6 left: the play 24/23 17/11
    wait_for_ply_after(page, 0)
    assert game_state(page)["moves"][0]["move"] == "24/23 17/11"
    for _ in range(MOST_CLICKS):
        if page.get_attribute("body", "data-status") == "over":
            break
        play_dice_turn(page)
    state = game_state(page)
    assert state["outcome"] is not None and state["outcome"]["points"] in (1, 2, 3)
    assert page.inner_text("#status") == f"Game over. {state['outcome']['message']}"
    assert (tmp_path / "web-nardy.png").stat().st_size > 10_000
