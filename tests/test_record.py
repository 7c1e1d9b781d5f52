"""Game records: random games survive format -> parse -> replay, files round-trip atomically,
and every kind of malformed record is rejected with a message that says what is wrong."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from samuel.games import get_game
from samuel.games.base import NotationError, Termination
from samuel.games.draughts.rules import Position as DraughtsPosition
from samuel.games.draughts.rules import Termination as DraughtsTermination
from samuel.games.game import Game
from samuel.games.record import (
    GameRecord,
    format_record,
    parse_records,
    read_records,
    record_from_game,
    replay,
    write_records,
)
from samuel.games.tigers.rules import Termination as TigersTermination

RULES = get_game("tigers")
PLY_CAP = 150


def random_game(seed: int) -> Game:
    """A game of random legal moves. Every third starts from a position reached by random play
    (with either side to move); every fifth stops before its end; every seventh has a ply cap
    of 40, which random games reach (150 they do not)."""
    rng = np.random.default_rng(seed)
    start = RULES.initial_position()
    if seed % 3 == 0:
        walk = Game(RULES)
        for _ in range(rng.integers(1, 40)):
            if walk.outcome is not None:
                break
            moves = walk.legal_moves()
            walk.play(moves[rng.integers(len(moves))])
        if walk.outcome is None:
            start = walk.position
    game = Game(RULES, start, ply_cap=40 if seed % 7 == 0 else PLY_CAP)
    stop = rng.integers(0, 60) if seed % 5 == 0 else PLY_CAP
    while game.outcome is None and game.ply < stop:
        moves = game.legal_moves()
        game.play(moves[rng.integers(len(moves))])
    return game


def record_of(seed: int) -> GameRecord:
    return record_from_game(
        random_game(seed),
        {"tigers": f"random {seed}", "sheep": "random"},
        date="2025.01.31",
        extra_tags={"Round": str(seed)},
    )


@pytest.mark.parametrize("seed", range(200))
def test_random_games_round_trip(seed: int) -> None:
    game = random_game(seed)
    record = record_from_game(game, {"tigers": "random", "sheep": "random"}, date="2025.01.31")
    text = format_record(record)
    assert all(len(line) <= 80 for line in text.splitlines())
    [parsed] = parse_records(text)
    assert parsed == record
    replayed = replay(parsed)
    assert replayed.moves == game.moves
    assert replayed.positions == game.positions
    assert replayed.outcome == game.outcome


def test_the_kinds_of_game_are_covered() -> None:
    games = [random_game(seed) for seed in range(200)]
    assert any(g.outcome is None for g in games)
    assert {g.outcome.termination for g in games if g.outcome} >= {
        TigersTermination.FIVE_CAPTURED,
        Termination.PLY_CAP,
    }
    assert any(RULES.side_to_move(g.start) == 0 for g in games)  # tigers to move: "1... move"


def test_a_tigers_start_begins_with_an_ellipsis() -> None:
    start = RULES.parse_position("T3T/5/2S2/5/T3T T 19")
    game = Game(RULES, start)
    game.play_text("a1-b2")
    game.play_text("d3")
    text = format_record(record_from_game(game, {}, date="2025.01.31"))
    assert "1... a1-b2 2. d3 *" in text
    assert parse_records(text)[0].moves == tuple(game.moves)


def test_many_games_round_trip_through_a_file(tmp_path) -> None:
    records = [record_of(seed) for seed in range(20)]
    path = tmp_path / "games.txt"
    write_records(path, records)
    assert read_records(path) == records
    write_records(path, records[:3])  # overwriting an existing file
    assert read_records(path) == records[:3]
    assert [p.name for p in tmp_path.iterdir()] == ["games.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path) -> None:
    path = tmp_path / "games.txt"
    write_records(path, [record_of(1)])
    before = path.read_text()

    def records():
        yield record_of(2)
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        write_records(path, records())
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["games.txt"]


def test_comments_and_missing_move_numbers_are_read() -> None:
    text = """[Game "Tigers & Sheep"]
[Result "*"]
{ a comment
  over two lines } c3 {another} a1-b2 2.d3 2... b2-b1 *"""
    [record] = parse_records(text)
    assert [RULES.format_move(m) for m in record.moves] == ["c3", "a1-b2", "d3", "b2-b1"]
    assert record.players == ("?", "?") and record.date == "????.??.??"
    assert record.start == RULES.initial_position()


GOOD_TAGS = '[Game "Tigers & Sheep"]\n[Result "*"]\n'


@pytest.mark.parametrize(
    "text, phrase",
    [
        ('[Result "*"]\n\n1. c3 *', "game 1, line 1: missing Game tag"),
        ('[Game "Chess"]\n[Result "*"]\n\n*', "unknown game 'Chess'"),
        ('[Game "Tigers & Sheep"]\n[Result *]\n\n*', "line 2: malformed tag line"),
        (GOOD_TAGS + '[Result "*"]\n\n*', "line 3: duplicate tag Result"),
        ('[Game "Tigers & Sheep"]\n\n*', "missing Result tag"),
        ('[Game "Tigers & Sheep"]\n[Result "2-0"]\n\n*', "unknown Result '2-0'"),
        (GOOD_TAGS + '[Start "T3T/5/5/5/T3T X 20"]\n\n*', "line 3: bad Start position"),
        (GOOD_TAGS + '[Termination "resigned"]\n\n*', "unknown Termination 'resigned'"),
        (GOOD_TAGS + '[PlyCap "0"]\n\n*', "bad PlyCap '0'"),
        (GOOD_TAGS + '[PlyCap "²"]\n\n*', "bad PlyCap '²'"),  # isdigit(), yet int() refuses
        (GOOD_TAGS + '[PlyCap "٣"]\n\n*', "bad PlyCap"),  # an Arabic-Indic 3
        (GOOD_TAGS + '[PlyCap "' + "9" * 5000 + '"]\n\n*', "bad PlyCap '99999"),  # int() refuses
        ('[Game "Tigers & Sheep"]\n[Result "' + "x" * 10**5 + '"]\n\n*', "unknown Result 'xxx"),
        (GOOD_TAGS + "\n². c3 *", "malformed move token '².'"),
        (GOOD_TAGS + '[Date "31.01.2025"]\n\n*', "malformed Date"),
        (GOOD_TAGS + "\n1. c3 a1-b2\n2. f7 *", "line 5: malformed move token 'f7'"),
        (GOOD_TAGS + "\n1. c3 a1-c2 *", "malformed move token 'a1-c2'"),
        (
            GOOD_TAGS + "\n1. c3 2. a1-b2 *",
            "move number '2.' does not fit: ply 2 is numbered '1...'",
        ),
        (GOOD_TAGS + "\n1. c3 a1-b2 2. d3 { unclosed *", "unclosed comment"),
        (GOOD_TAGS + "\n1. c3 } *", "closes no comment"),
        (GOOD_TAGS + "\n1. c3 a1-b2", "line 4: missing result token"),
        (GOOD_TAGS, "missing result token"),
        (GOOD_TAGS + "\n1. c3 * a1-b2", "'a1-b2' after the result token"),
        (GOOD_TAGS + "\n1. c3 1-0", "the result token 1-0 disagrees with the Result tag *"),
        (
            GOOD_TAGS + "\n1. c3 c3 *",
            "line 4, ply 2 (c3): illegal move: c3 is not legal: it is the tigers' turn",
        ),
        (
            GOOD_TAGS + "\n1. c3\na1-b2 2. b2 *",
            "line 5, ply 3 (b2): illegal move: b2 is not legal: b2 is occupied",
        ),
        (
            '[Game "Tigers & Sheep"]\n[Result "1-0"]\n\n1. c3 a1-b2 1-0',
            "line 4: Result 1-0 disagrees with the moves, which do not end the game",
        ),
        (
            '[Game "Tigers & Sheep"]\n[Result "*"]\n[PlyCap "2"]\n\n1. c3 a1-b2 *',
            "Result * disagrees with the moves, which end 1/2-1/2 (ply cap reached)",
        ),
        (
            '[Game "Tigers & Sheep"]\n[Result "1/2-1/2"]\n[Termination "threefold repetition"]\n'
            '[PlyCap "2"]\n\n1. c3 a1-b2 1/2-1/2',
            "Termination 'threefold repetition' disagrees",
        ),
        (
            '[Game "Tigers & Sheep"]\n[Result "1/2-1/2"]\n[PlyCap "2"]\n\n'
            "1. c3 a1-b2 2. d3 1/2-1/2",
            "ply 3 (d3): a move after the game ended (ply cap reached, ply 2)",
        ),
    ],
)
def test_malformed_records_are_rejected(text: str, phrase: str) -> None:
    with pytest.raises(NotationError, match="^game 1") as error:
        parse_records(text)
    assert phrase in str(error.value)
    assert len(str(error.value)) < 300 and "\n" not in str(error.value)  # one short line


def test_the_error_names_the_game_in_the_file() -> None:
    good = format_record(record_of(7))
    bad = good.replace("[Game ", "[Gmae ")
    first = 2 * len(good.splitlines()) + 3  # two games, each followed by a blank line
    with pytest.raises(NotationError, match=f"^game 3, line {first}: missing Game tag"):
        parse_records("\n".join([good, good, bad]))


def test_a_finished_game_with_a_wrong_result_is_rejected_with_the_replayed_outcome() -> None:
    record = next(r for r in map(record_of, range(50)) if r.result == 1)
    text = format_record(record).replace('"1-0"', '"0-1"')
    text = text.removesuffix("1-0\n") + "0-1\n"
    with pytest.raises(
        NotationError,
        match="Result 0-1 disagrees with the moves, which end 1-0 "
        r"\(enough sheep captured\)",
    ):
        parse_records(text)


def test_a_points_tag_must_agree_with_the_moves() -> None:
    """A win worth more than a point says so in a Points tag (a gammon's 2; Race, the tests'
    dice game, writes them); a Tigers & Sheep win is worth one, so a Points tag there is wrong."""
    record = next(r for r in map(record_of, range(50)) if r.result == 1)
    text = format_record(record)
    assert "[Points" not in text
    with_points = text.replace('[Result "1-0"]', '[Result "1-0"]\n[Points "2"]')
    with pytest.raises(NotationError, match="Points 2 disagrees with the moves, whose winner"):
        parse_records(with_points)
    for bad in ("1", "two", "-2"):
        with pytest.raises(NotationError, match="bad Points"):
            parse_records(text.replace('[Result "1-0"]', f'[Result "1-0"]\n[Points "{bad}"]'))
    assert dataclasses.replace(record, points=2).outcome.score == 2


def test_replay_checks_a_record_built_by_hand() -> None:
    game = random_game(1)
    record = record_from_game(game, {}, date="2025.01.31")
    with pytest.raises(NotationError, match="the result: Result \\* disagrees"):
        replay(dataclasses.replace(record, result=None, termination=None))
    moves = (RULES.parse_move("c3"), RULES.parse_move("c3"))
    with pytest.raises(NotationError, match=r"ply 2 \(c3\): illegal move"):
        replay(GameRecord(RULES, ("?", "?"), "2025.01.31", RULES.initial_position(), moves))


# -- English draughts: PDN that other draughts programs read ---------------------------------

DRAUGHTS = get_game("draughts")


def random_draughts_game(seed: int) -> Game:
    """A game of random legal moves: every third from a position reached by random play (either
    colour to move), every fifth stopped before its end, every seventh under a ply cap of 30."""
    rng = np.random.default_rng(seed)
    start = DRAUGHTS.initial_position()
    if seed % 3 == 0:
        walk = Game(DRAUGHTS)
        for _ in range(rng.integers(1, 40)):
            if walk.outcome is not None:
                break
            moves = walk.legal_moves()
            walk.play(moves[rng.integers(len(moves))])
        if walk.outcome is None:
            start = walk.position
    game = Game(DRAUGHTS, start, ply_cap=30 if seed % 7 == 0 else 400)
    stop = rng.integers(0, 60) if seed % 5 == 0 else 400
    while game.outcome is None and game.ply < stop:
        moves = game.legal_moves()
        game.play(moves[rng.integers(len(moves))])
    return game


@pytest.mark.parametrize("seed", range(60))
def test_random_draughts_games_round_trip(seed: int) -> None:
    game = random_draughts_game(seed)
    record = record_from_game(game, {"black": "random", "white": "?"}, date="2025.01.31")
    text = format_record(record)
    assert all(len(line) <= 80 for line in text.splitlines())
    [parsed] = parse_records(text)
    assert parsed == record
    replayed = replay(parsed)
    assert replayed.moves == game.moves and replayed.positions == game.positions
    assert replayed.outcome == game.outcome


def test_the_kinds_of_draughts_game_are_covered() -> None:
    games = [random_draughts_game(seed) for seed in range(60)]
    ends = {g.outcome.termination for g in games if g.outcome}
    assert ends >= {DraughtsTermination.NO_LEGAL_MOVE, Termination.PLY_CAP}, ends
    assert any(g.outcome is None for g in games)
    assert any(DRAUGHTS.side_to_move(g.start) == 1 for g in games)  # White first: "1..."
    assert any(any(m.jumps > 1 for m in g.moves) for g in games)  # a multiple capture


def test_a_draughts_record_is_pdn() -> None:
    game = Game(DRAUGHTS)
    for move in ("11-15", "22-18", "15x22", "25x18"):
        game.play_text(move)
    record = record_from_game(
        game, {"black": "alice", "white": "bob"}, date="2025.01.31", extra_tags={"Event": "club"}
    )
    assert format_record(record) == (
        '[GameType "21"]\n[Black "alice"]\n[White "bob"]\n[Date "2025.01.31"]\n[Result "*"]\n'
        '[Event "club"]\n\n1. 11-15 22-18 2. 15x22 25x18 *\n'
    )  # the initial position needs no FEN tag
    assert parse_records(format_record(record)) == [record]


def test_a_draughts_record_from_a_set_up_position_has_a_fen_tag() -> None:
    start = DraughtsPosition.parse("W:W18,K27:B6,K23,15")
    game = Game(DRAUGHTS, start)
    game.play_text("18x11")  # White moves first here: the movetext begins "1..."
    game.play_text("23x32")
    text = format_record(record_from_game(game, {}, date="2025.01.31"))
    assert '[SetUp "1"]\n[FEN "W:W18,K27:B6,15,K23"]\n' in text
    assert "\n1... 18x11 2. 23x32 *" in text
    [record] = parse_records(text)
    assert record.start == start and record.moves == tuple(game.moves)


def test_a_finished_draughts_record_says_how_it_ended() -> None:
    game = Game(DRAUGHTS, DraughtsPosition.parse("B:W29:B25,K18"))
    game.play_text("18-22")  # White is blocked: Black, the first player, wins
    text = format_record(record_from_game(game, {}, date="2025.01.31"))
    assert '[Result "1-0"]\n[Termination "the side to move has no legal move"]\n' in text
    assert text.endswith("1. 18-22 1-0\n")
    forty = Game(DRAUGHTS, DraughtsPosition.parse("B:WK29:BK4:Q78"))
    for move in ("4-8", "29-25"):
        forty.play_text(move)
    text = format_record(record_from_game(forty, {}, date="2025.01.31"))
    assert '[Result "1/2-1/2"]\n[Termination "40-move rule' in text
    assert parse_records(text)[0].outcome == forty.outcome


def test_pdn_from_other_programs_is_read() -> None:
    """What PDN writers add: the seven-tag roster, a long GameType, PDN 3.0's scores for a
    result, a game without our Game tag."""
    text = """[Event "Casual"]
[Site "?"]
[Date "2025.01.31"]
[Round "1"]
[Black "Samuel, A."]
[White "Nealey, R."]
[Result "2-0"]
[GameType "21,B,8,8,N1,0"]
[SetUp "1"]
[FEN "B:W29:B25,K18"]

1. 18-22 2-0
"""
    [record] = parse_records(text)
    assert record.rules is DRAUGHTS and record.result == 1
    assert record.players == ("Samuel, A.", "Nealey, R.")
    assert dict(record.extra_tags) == {"Event": "Casual", "Site": "?", "Round": "1"}
    assert record.start == DraughtsPosition.parse("B:W29:B25,K18")


@pytest.mark.parametrize(
    "text, phrase",
    [
        ('[GameType "20"]\n[Result "*"]\n\n*', "GameType tag: unknown GameType '20'"),
        ('[GameType "21"]\n[FEN "B:W:B33"]\n[Result "*"]\n\n*', "bad FEN position"),
        ('[GameType "21"]\n[Result "*"]\n\n1. 11-18 *', "malformed move token '11-18'"),
        ('[GameType "21"]\n[Result "*"]\n\n1. 22-18 *', "illegal move"),
        ('[GameType "21"]\n[Result "1-0"]\n\n1. 11-15 1-0', "Result 1-0 disagrees"),
        ('[Result "*"]\n\n1. 11-15 *', 'missing Game tag, such as [Game "Tigers & Sheep"]'),
    ],
)
def test_malformed_draughts_records_are_rejected(text: str, phrase: str) -> None:
    with pytest.raises(NotationError, match="^game 1") as error:
        parse_records(text)
    assert phrase in str(error.value)


def test_old_tigers_records_still_read() -> None:
    """A record as Samuel wrote it before games had their own terminations."""
    text = """[Game "Tigers & Sheep"]
[Tigers "classic"]
[Sheep "random"]
[Date "2025.01.31"]
[Start "T3T/5/5/5/T3T S 20"]
[Result "1/2-1/2"]
[Termination "ply cap reached"]
[PlyCap "2"]

1. c3 a1-b2 1/2-1/2
"""
    [record] = parse_records(text)
    assert record.termination is Termination.PLY_CAP and record.result == 0
    assert format_record(record) == text
    finished = next(r for r in map(record_of, range(50)) if r.result == 1)
    assert '[Termination "enough sheep captured"]' in format_record(finished)
    assert finished.termination is TigersTermination.FIVE_CAPTURED
