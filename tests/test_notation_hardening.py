"""Issue 38's notation items: text a person types or a file holds that broke the parsers.

- Item 3: a draughts move that mixes a step and a capture (``11-15x19``, ``1-1x5``) was a bare
  ``ValueError`` (too many values to unpack): a 500 from the server, a traceback and a lost
  record from ``samuel play``, a ``ValueError`` from ``parse_records``.
- Item 9: a number past ``int``'s 4,300-digit limit (in a draughts FEN, a move, PDN movetext)
  was a ``ValueError``, and a huge string an error that repeated it whole. Every parser now caps
  the length of what it reads and says so in one short line.
- ``samuel play`` keeps the record of the moves so far whatever stops the game (Ctrl-C, a
  player's failure), and asks again after any notation error.
"""

from __future__ import annotations

import io
import warnings

import pytest

from samuel import cli
from samuel import players as players_module
from samuel.games import get_game
from samuel.games.base import MAX_MOVE_CHARS, MAX_POSITION_CHARS, NotationError
from samuel.games.draughts.rules import Move as DraughtsMove
from samuel.games.draughts.rules import Position as DraughtsPosition
from samuel.games.game import Game
from samuel.games.record import parse_records, read_records
from samuel.games.tigers.rules import Move as TigersMove
from samuel.match.play import play_game
from samuel.players import Resigned
from samuel.web.app import create_app

with warnings.catch_warnings():  # newer Starlette prefers the httpx2 package; httpx still works
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

DRAUGHTS = get_game("draughts")
TIGERS = get_game("tigers")
HUGE = "1" * 5000  # past int's 4,300-digit limit
MIXED = ["11-15x19", "1-1x5", "9x14-18", "22x15-11", "1-5x9x14"]
SHORT_ERROR = 250  # characters: an error about a huge input repeats only a little of it


def pdn(movetext: str, *tags: str) -> str:
    return "\n".join(['[GameType "21"]', *tags, '[Result "*"]', "", movetext, ""])


def one_short_line(error: BaseException) -> str:
    message = str(error)
    assert "\n" not in message and len(message) < SHORT_ERROR, message[:300]
    return message


# --- item 3: a step and a capture mixed --------------------------------------------------------


@pytest.mark.parametrize("text", MIXED)
def test_a_mixed_step_and_capture_is_a_notation_error(text: str) -> None:
    for parse in (DraughtsMove.parse, DRAUGHTS.parse_move, DraughtsPosition.initial().parse_move):
        with pytest.raises(NotationError, match="mixes a step .* and a capture"):
            parse(text)


@pytest.mark.parametrize("text", ["11-15-19", "11--15", "11-x15", "-11-15", "11-15x"])
def test_other_chains_of_squares_are_notation_errors(text: str) -> None:
    with pytest.raises(NotationError, match="is not a move"):
        DraughtsMove.parse(text)


def test_steps_and_captures_still_read() -> None:
    assert str(DraughtsMove.parse(" 11-15 ")) == "11-15"
    assert str(DraughtsMove.parse("15x24x31")) == "15x24x31"
    assert DraughtsPosition.parse("B:W14,16,22:B9,12").parse_move("9x25") == DraughtsMove.parse(
        "9x18x25"
    )


@pytest.mark.parametrize("text", ["١١-١٥", "11-١٥", "۱۵x۲۴"])
def test_draughts_squares_are_ascii_digits(text: str) -> None:
    # \d took any script's digits, which int reads: '١١-١٥' was 11-15.
    with pytest.raises(NotationError, match="is not a move"):
        DraughtsMove.parse(text)
    with pytest.raises(NotationError, match="is not a square"):
        DraughtsPosition.parse("B:W21:B١")


def test_a_record_with_a_mixed_move_is_a_notation_error() -> None:
    with pytest.raises(NotationError, match=r"^game 1, line 4: malformed move token '11-15x19'"):
        parse_records(pdn("1. 11-15x19 *"))


def test_the_server_answers_a_mixed_move_with_400_and_keeps_the_game() -> None:
    app = create_app(game="draughts", allowed_hosts=["testserver"])
    with TestClient(app, raise_server_exceptions=False) as client:
        players = {"black": "human", "white": "random"}
        game = client.post("/api/games", json={"players": players}).json()
        for text in MIXED[:2]:
            answer = client.post(f"/api/games/{game['id']}/moves", json={"move": text})
            assert answer.status_code == 400, answer.text
            assert "mixes a step" in answer.json()["detail"]
        assert client.get(f"/api/games/{game['id']}").json()["moves"] == []


class Keyboard(io.StringIO):
    """Standard input with ``lines``; then Ctrl-C (``KeyboardInterrupt``) or, with ``end`` None,
    the end of the input."""

    def __init__(self, lines: list[str], end: type[BaseException] | None = KeyboardInterrupt):
        super().__init__("".join(line + "\n" for line in lines))
        self.end = end

    def readline(self, *args) -> str:
        line = super().readline(*args)
        if not line and self.end is not None:
            raise self.end
        return line


def play(monkeypatch, tmp_path, lines: list[str], *args: str, end=None) -> tuple[int, object]:
    """``samuel play --game draughts`` in this process with ``lines`` typed; its exit status and
    the record file's path."""
    monkeypatch.setattr("sys.stdin", Keyboard(lines, end))
    path = tmp_path / "game.txt"
    status = cli.main(["play", "--game", "draughts", "-W", "random", "--record", str(path), *args])
    return status, path


def test_play_asks_again_after_a_mixed_move_and_saves_the_game(monkeypatch, tmp_path, capsys):
    status, path = play(monkeypatch, tmp_path, ["11-15x19", "1-1x5", "11-15", "quit"])
    out = capsys.readouterr()
    assert status == 0, out.err
    assert "Traceback" not in out.err
    assert out.out.count("mixes a step ('-') and a capture ('x')") == 2
    [record] = read_records(path)
    assert str(record.moves[0]) == "11-15"


# --- item 9: huge numbers and strings ----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        HUGE + "-15",
        "11-" + HUGE,
        "15x" + HUGE,
        "15x24x" + HUGE,
        HUGE,
        "x" * 10**6,
        "11-15" + " " * 10**5 + "x",
    ],
    ids=lambda text: f"{text[:8]}...{len(text)}",
)
def test_a_huge_draughts_move_is_one_short_notation_error(text: str) -> None:
    for parse in (DraughtsMove.parse, DRAUGHTS.parse_move, DraughtsPosition.initial().parse_move):
        with pytest.raises(NotationError) as error:
            parse(text)
        one_short_line(error.value)


def test_a_short_form_capture_of_huge_squares_is_a_notation_error() -> None:
    # Position.parse_move reads "first x last" itself, before Move.parse.
    with pytest.raises(NotationError, match="too long for a move") as error:
        DraughtsPosition.parse("B:W14,16,22:B9,12").parse_move("9x" + HUGE)
    one_short_line(error.value)


@pytest.mark.parametrize(
    "text",
    [
        "B:W" + HUGE + ":B1",
        "B:W21:B1-" + HUGE,
        "B:W21:BK" + HUGE,
        "B:W21:B1:Q" + HUGE,
        "B:W21:B1," + ",".join(["2"] * 3000),
        "B" * 10**6,
    ],
    ids=lambda text: f"{text[:8]}...{len(text)}",
)
def test_a_huge_draughts_fen_is_one_short_notation_error(text: str) -> None:
    with pytest.raises(NotationError) as error:
        DRAUGHTS.parse_position(text)
    one_short_line(error.value)


@pytest.mark.parametrize(
    "text",
    [
        "T3T/5/5/5/T3T S " + HUGE,
        "T3T/5/5/5/T3T " + "S" * 5000 + " 20",
        "T3T/" + "5/" * 3000 + "T3T S 20",
        "x" * 10**6,
    ],
    ids=lambda text: f"{text[:8]}...{len(text)}",
)
def test_a_huge_tigers_position_is_one_short_notation_error(text: str) -> None:
    with pytest.raises(NotationError) as error:
        TIGERS.parse_position(text)
    one_short_line(error.value)


@pytest.mark.parametrize("text", ["a" + HUGE, "a1-b" + HUGE, "c" * 5000, "a1x" + "c3" * 3000])
def test_a_huge_tigers_move_is_one_short_notation_error(text: str) -> None:
    for parse in (TigersMove.parse, TIGERS.parse_move):
        with pytest.raises(NotationError) as error:
            parse(text)
        one_short_line(error.value)


def test_the_longest_moves_and_positions_are_within_the_caps() -> None:
    longest_capture = "x".join(["1", "10", "19", "28"] * 3 + ["1"])  # 12 jumps, 2-digit squares
    assert len(longest_capture) < MAX_MOVE_CHARS
    kings = ",".join(f"K{square}" for square in range(1, 33))
    assert len(f"W:W{kings}:B{kings}:Q9999") < MAX_POSITION_CHARS
    with pytest.raises(NotationError, match="at most 12"):  # read, then refused for its length
        DraughtsMove.parse("x".join(["1", "10"] * 7 + ["1"]))


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(pdn(f"1. {HUGE}-15 *"), id="move origin"),
        pytest.param(pdn(f"1. 11-{HUGE} *"), id="move target"),
        pytest.param(pdn(f"1. 11x{HUGE} *"), id="capture"),
        pytest.param(pdn(f"{HUGE}. 11-15 *"), id="move number"),
        pytest.param(pdn(f"{HUGE}.11-15 *"), id="move number and move"),
        pytest.param(pdn(f"1. 11-15 {HUGE}... 22-18 *"), id="second move number"),
        pytest.param(pdn("*", f'[FEN "B:W{HUGE}:B1"]'), id="FEN square"),
        pytest.param(pdn("*", '[SetUp "1"]', f'[FEN "B:W21:B1:Q{HUGE}"]'), id="FEN count"),
        pytest.param(pdn("*", f'[PlyCap "{HUGE}"]'), id="PlyCap"),
        pytest.param(pdn("*", f'[GameType "{HUGE}"]'), id="GameType"),
        pytest.param(pdn("*", f'[Date "{HUGE}"]'), id="Date"),
        pytest.param(pdn("*", f'[Result "{HUGE}"]'), id="Result"),
        pytest.param(pdn("*", f'[Termination "{HUGE}"]'), id="Termination"),
    ],
)
def test_a_huge_number_in_a_pdn_record_is_one_short_notation_error(text: str) -> None:
    with pytest.raises(NotationError, match=r"^game 1, line \d+: ") as error:
        parse_records(text)
    one_short_line(error.value)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            f'[Game "Tigers & Sheep"]\n[Start "T3T/5/5/5/T3T S {HUGE}"]\n[Result "*"]\n\n*\n',
            id="Start",
        ),
        pytest.param(f'[Game "Tigers & Sheep"]\n[Result "*"]\n\n1. a{HUGE} *\n', id="move"),
        pytest.param(
            f'[Game "Tigers & Sheep"]\n[Result "*"]\n\n1. c3 {HUGE}... a1-b2 *\n',
            id="move number",
        ),
    ],
)
def test_a_huge_number_in_a_tigers_record_is_one_short_notation_error(text: str) -> None:
    with pytest.raises(NotationError, match=r"^game 1, line \d+: ") as error:
        parse_records(text)
    one_short_line(error.value)


def test_long_words_in_comments_and_long_player_names_are_read() -> None:
    name = "a player named at length " * 100
    [record] = parse_records(pdn("{ " + HUGE + " } 1. 11-15 *", f'[Black "{name}"]'))
    assert record.players[0] == name and str(record.moves[0]) == "11-15"


def test_play_asks_again_after_a_huge_move(monkeypatch, tmp_path, capsys):
    status, path = play(monkeypatch, tmp_path, [HUGE + "-15", "11-15", "quit"])
    out = capsys.readouterr()
    assert status == 0, out.err
    assert "too long for a move" in out.out
    [record] = read_records(path)
    assert str(record.moves[0]) == "11-15"


def test_play_refuses_a_huge_start_position_in_one_line(tmp_path, capsys):
    start = "B:W" + HUGE + ":B1"
    record = str(tmp_path / "g.txt")
    status = cli.main(["play", "--game", "draughts", "--start", start, "--record", record])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and len(err) < 2 * SHORT_ERROR


# --- the record of a game that something stops -----------------------------------------------


def test_ctrl_c_during_play_keeps_the_moves_so_far(monkeypatch, tmp_path, capsys):
    status, path = play(monkeypatch, tmp_path, ["11-15"], end=KeyboardInterrupt)
    out = capsys.readouterr()
    assert status == 130, out.err
    assert f"game record saved to {path}" in out.out
    [record] = read_records(path)
    assert str(record.moves[0]) == "11-15" and len(record.moves) == 2 and record.result is None


class Failing:
    """A player that plays ``moves`` first moves of ``player`` and then fails as a bug would."""

    def __init__(self, player, moves: int) -> None:
        self.player, self.moves, self.spec = player, moves, player.spec

    def choose_move(self, game):
        if self.moves == 0:
            raise RuntimeError("a bug in a player")
        self.moves -= 1
        return self.player.choose_move(game)


def test_a_failing_player_does_not_lose_the_record(monkeypatch, tmp_path, capsys):
    make_player = players_module.make_player

    def failing_white(spec, rules, **options):
        player = make_player(spec, rules, **options)
        return Failing(player, 2) if spec == "random:seed=3" else player

    monkeypatch.setattr(players_module, "make_player", failing_white)
    path = tmp_path / "game.txt"
    args = ["play", "--game", "draughts", "-B", "random", "-W", "random:seed=3"]
    with pytest.raises(RuntimeError, match="a bug in a player"):  # a bug still shows as one
        cli.main([*args, "--record", str(path)])
    assert f"game record saved to {path}" in capsys.readouterr().out
    [record] = read_records(path)
    assert len(record.moves) == 5 and record.result is None  # B, W, B, W, B: then White failed


def test_play_game_keeps_the_game_it_is_given_whatever_a_player_raises() -> None:
    game = Game(DRAUGHTS)
    random = players_module.make_player("random", DRAUGHTS, seed=1)
    players = {"black": random, "white": Failing(random, 1)}
    with pytest.raises(RuntimeError):
        play_game(DRAUGHTS, players, game=game)
    assert game.ply == 3
    with pytest.raises(ValueError, match="not both"):
        play_game(DRAUGHTS, players, game=game, ply_cap=10)


def test_a_human_is_asked_again_after_any_of_the_projects_errors() -> None:
    answers = iter(["11-15x19", HUGE, "22-18", "11-15"])
    said: list[str] = []
    human = players_module.HumanPlayer(read=lambda _: next(answers), write=said.append)
    assert str(human.choose_move(Game(DRAUGHTS))) == "11-15"
    assert len(said) == 3 and all("type 'moves'" in line for line in said)
    human = players_module.HumanPlayer(read=lambda _: "quit", write=said.append)
    with pytest.raises(Resigned):
        human.choose_move(Game(DRAUGHTS))
