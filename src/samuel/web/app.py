"""The web server: one page (``static/``) and a JSON API to play and analyse one game, any game
with a web part (``samuel serve --game``: Tigers & Sheep, draughts, backgammon, long nardy), in
that game's words.

:func:`create_app` builds the FastAPI application; ``samuel serve`` runs it with uvicorn. The
API is described by its OpenAPI schema (``/openapi.json``; no ``/docs`` page, which would load
its scripts from a CDN) and in ``docs/web.md``.

Answers to bad requests say what is wrong, as ``{"detail": "..."}``:

- 400: a malformed move, position or player spec, or a player whose evaluation overflows;
- 404: no game has that id;
- 409: the game's state does not allow it: an illegal move, a finished game, nothing to undo, a
  human's turn for the engine, or the engine is thinking for that game;
- 422: the request body does not fit the schema (a missing field, a number out of range, a
  string too long, not JSON, a side the game does not have);
- 400 ``Invalid host header``: the request's ``Host`` is not one the server answers to (a web
  page elsewhere reaching it by DNS rebinding);
- 413: the body is over :data:`~samuel.web.limits.MAX_BODY_BYTES`;
- 503 with ``Retry-After``: every search slot is taken and the search queue is full.

Engine searches run in worker threads (the compiled search releases the GIL) through a bounded
:class:`~samuel.web.limits.SearchQueue`; everything else runs on the event loop, or for reading
files in a thread of its own, and is quick, so searches never hold up other requests.
"""

from __future__ import annotations

import html
import os
import socket
from collections.abc import Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.to_thread
import numpy as np
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.middleware.trustedhost import TrustedHostMiddleware

from samuel.analysis.models import ModelUnavailable, PipelineModels
from samuel.analysis.positions import AnalysisRefused, OnnxRuntime, has_dice
from samuel.errors import CommandError
from samuel.games import default_game, descriptors, get_game
from samuel.games.base import GameRules, IllegalMoveError, NotationError
from samuel.games.game import Game
from samuel.options import require_tablebase
from samuel.players import (
    DEFAULT_DEPTH,
    SPIEL_PLAYERS,
    EvaluationError,
    PlayerSpec,
    PlayerSpecError,
    tablebase_part,
)
from samuel.web import schemas
from samuel.web.boards import WebGame, web_game
from samuel.web.games import (
    GameBusy,
    GameNotFound,
    GameStore,
    PlayerPool,
    RequestRefused,
    UnknownSide,
    analyse,
    check_player,
    check_sides,
    choose_cube_answer,
    choose_engine_move,
    parse_start,
)
from samuel.web.keys import ApiKeys, KeyRefused, RateLimited
from samuel.web.levels import offered_players
from samuel.web.limits import RETRY_AFTER_SECONDS, BodyLimit, SearchQueue, ServerBusy
from samuel.web.v1 import V1, RecordTooLong, add_v1
from samuel.web.v1_schemas import MAX_RECORD_BYTES

STATIC = Path(__file__).parent / "static"
DEFAULT_ANALYSIS_DEPTH = 6  # as `samuel analyse`
QUICK_DEPTH = 3  # an untimed search this shallow takes milliseconds: it never queues behind others
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")  # what a browser on this machine sends
WILDCARD_BINDS = ("0.0.0.0", "::", "")
RUNTIMES = ("numba", "onnx")  # what evaluates the network (samuel serve --runtime)
DETAIL_LIMIT = 1000  # characters of an error's detail: the longest ones list every player

# Which errors become which answers (see the module's docstring).
STATUS = {
    NotationError: 400,
    PlayerSpecError: 400,
    EvaluationError: 400,  # a player whose weights overflow: no move, said why
    GameNotFound: 404,
    ServerBusy: 503,
    IllegalMoveError: 409,
    RequestRefused: 409,
    GameBusy: 409,
    UnknownSide: 422,
    AnalysisRefused: 400,
    RecordTooLong: 422,
    KeyRefused: 401,
    RateLimited: 429,
    ModelUnavailable: 409,
}
ERRORS = {
    400: {"model": schemas.Problem, "description": "a malformed move, position or player spec"},
    404: {"model": schemas.Problem, "description": "no game has this id"},
    409: {"model": schemas.Problem, "description": "not allowed in the game's state now"},
    422: {"model": schemas.Problem, "description": "the body does not fit the schema"},
    401: {"model": schemas.Problem, "description": "no API key, or an unknown one"},
    429: {"model": schemas.Problem, "description": "over the API key's rate; see Retry-After"},
    503: {"model": schemas.Problem, "description": "the search queue is full; see Retry-After"},
}


def check_tablebase_game(game: str) -> None:
    """Refuse a tablebase for a game that has none (no ``perfect`` part)."""
    require_tablebase(game)


def check_weights_dir(weights_dir: str | os.PathLike) -> Path:
    """The weights dir, which must be a folder; raises :class:`CommandError` in one line."""
    weights = Path(weights_dir)
    if not weights.is_dir():
        reason = "is not a folder" if weights.exists() else "does not exist"
        raise CommandError(f"--weights-dir {weights} {reason}")
    return weights


def load_server_tablebase(tablebase_dir: str | os.PathLike, rules):
    """The tablebase the server shows and ``perfect`` plays from: it must be the table of the
    game the server plays (a table built with ``samuel tablebase build --captures 1``, say, is
    another game's, whose positions this server's would be read wrongly), as the command line
    checks for ``--tablebase``. Raises :class:`CommandError` in one line."""
    part = tablebase_part(rules)
    if part is None:
        raise CommandError(f"{rules.title} has no tablebase")
    try:
        table = part.load(tablebase_dir)
    except part.TablebaseError as error:
        raise CommandError(str(error)) from None
    wanted = getattr(rules, "captures_to_win", None)
    if table.captures_to_win != wanted:
        won = f"{table.captures_to_win} capture{'s' if table.captures_to_win != 1 else ''}"
        raise CommandError(
            f"--tablebase {os.fspath(tablebase_dir)} is the tablebase of the game won by {won}; "
            f"this server plays {rules.title}, won by {wanted}: give the table "
            "`samuel tablebase build` makes for it"
        )
    return table


def warm_up(rules: GameRules) -> None:
    """Compile (or load from numba's cache) the search before the first visitor waits for it."""
    from samuel.players import make_player

    try:
        player = make_player("classic:depth=2", rules)
    except PlayerSpecError:  # pragma: no cover - a game with no classic evaluation yet
        return
    game = Game(rules)
    if has_dice(rules):  # a game with dice searches after a roll
        game.roll(np.random.default_rng(0))
    player.search(game)
    if has_dice(rules):
        _warm_dice_analysis(rules, game)


def _warm_dice_analysis(rules: GameRules, rolled: Game) -> None:
    """A game with dice: compile the shipped network's 0-ply play and analysis (what the page's
    engine and its analysis panel ask first), so that neither waits minutes for the compiler on
    a fresh install while holding its lock against every other search."""
    from samuel.analysis.positions import analyse_position
    from samuel.players import make_player

    try:
        network = make_player("net:ply=0", rules)
    except PlayerSpecError:  # no network shipped for the game
        return
    network.search(rolled)
    analyse_position(rolled, network)
    analyse_position(Game(rules), network)  # before the roll: its value and chances


def open_pipeline(folder, game: str, db: str | None) -> PipelineModels:
    """The pipeline's registry, read-only; :class:`CommandError` in a line when it is none."""
    try:
        from samuel.pipeline.store import StoreError
    except ImportError as error:
        raise CommandError(
            f"--pipeline needs the pipeline extra ({error}): pip install 'samuel[pipeline]'"
        ) from None
    try:
        return PipelineModels(folder, game, db)
    except ImportError as error:
        raise CommandError(
            f"--pipeline needs the pipeline extra ({error}): pip install 'samuel[pipeline]'"
        ) from None
    except StoreError as error:
        raise CommandError(f"--pipeline {os.fspath(folder)}: {error}") from None


def page_game(game: str) -> WebGame | None:
    """The page's view of ``game``, or None for a game the page does not draw (the server then
    answers the ``/v1`` API alone). Raises ValueError for an unknown game and
    :class:`UnsupportedGameError` for a web part that lacks what the page needs."""
    get_game(game)
    if descriptors()[game].part("web") is None:
        return None
    return web_game(game)


def render_api_page(rules: GameRules) -> str:
    """The page of a server whose game the page does not draw: where the API is."""
    title = html.escape(rules.title)
    return (
        f"<!doctype html><html lang=en><meta charset=utf-8><title>Samuel: {title}</title>"
        f"<h1>Samuel: {title}</h1><p>This server answers the analysis API for {title}: "
        "<code>/v1/game</code>, <code>/v1/players</code>, <code>POST /v1/analyse</code>, "
        "<code>POST /v1/analyse-record</code>, <code>/v1/model</code>; "
        "<a href=/openapi.json>/openapi.json</a> describes them.</p></html>"
    )


def render_page(web: WebGame) -> str:
    """The page, naming the game in its title and heading (before any script runs)."""
    title = html.escape(web.rules.title)
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    page = page.replace("{{title}}", title).replace("{{game}}", html.escape(web.name))
    return page.replace("{{position_example}}", html.escape(web.position_example))


def allowed_hosts_for(bind: str, extra: Sequence[str] = ()) -> list[str]:
    """The ``Host`` names a server bound to ``bind`` answers to: the loopback names for a
    loopback address, the address itself otherwise (for every interface, the loopback names
    and this machine's name), and ``extra``. A port is never part of a name."""
    if bind in ("localhost", "::1") or bind.startswith("127."):
        hosts = [*LOOPBACK_HOSTS, bind]
    elif bind in WILDCARD_BINDS:
        hosts = [*LOOPBACK_HOSTS, socket.gethostname()]
    else:
        hosts = [f"[{bind}]" if ":" in bind else bind]
    hosts += [f"[{host}]" if ":" in host and not host.startswith("[") else host for host in extra]
    return list(dict.fromkeys(host.lower() for host in hosts))


def create_app(
    weights_dir: str | os.PathLike | None = None,
    search_threads: int | None = None,
    max_games: int = 1000,
    tablebase_dir: str | os.PathLike | None = None,
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    waiting_searches: int | None = None,
    max_games_per_client: int = 100,
    game: str | None = None,
    pipeline_dir: str | os.PathLike | None = None,
    api_keys: ApiKeys | None = None,
    pipeline_db: str | None = None,
    runtime: str = "numba",
) -> FastAPI:
    """The application. ``weights_dir`` holds the networks offered (``*.bin``) and is the only
    folder player specs may read networks and weights from; ``search_threads`` bounds the
    searches running at once (twice the CPUs by default, so a timed search does not wait for
    others) and ``waiting_searches`` those waiting for a turn (as many by default; past that a
    search is refused with 503); ``max_games`` bounds the games kept, ``max_games_per_client``
    those one remote address created; ``tablebase_dir`` (a built tablebase,
    docs/tablebase.md) adds each game's perfect-play value once the hand is empty, and is the
    only tablebase specs may name (Tigers & Sheep only). ``allowed_hosts`` are the ``Host``
    names answered (see :func:`allowed_hosts_for`); any other gets a 400. ``game`` is the one
    game the server plays, a registry name (the first registered by default; a game the page
    cannot draw is served by the ``/v1`` API alone). ``pipeline_dir``: a pipeline whose active
    model the player ``champion`` is (and whose models specs may read); ``api_keys``: the keys
    ``/v1`` requests need (:mod:`samuel.web.keys`), none by default; ``runtime``: ``onnx`` runs
    the network's 0-ply evaluations of a game with dice through onnxruntime."""
    if runtime not in RUNTIMES:
        raise CommandError(f"--runtime is one of {', '.join(RUNTIMES)}, not {runtime!r}")
    game = default_game() if game is None else game
    rules = get_game(game)
    web = page_game(game)
    if tablebase_dir is not None:
        check_tablebase_game(game)
    weights = check_weights_dir(weights_dir) if weights_dir is not None else None
    threads = search_threads or 2 * (os.cpu_count() or 1)
    searches = SearchQueue(threads, threads if waiting_searches is None else waiting_searches)
    tablebase = None
    tablebase_path = Path(tablebase_dir) if tablebase_dir is not None else None
    if tablebase_dir is not None:
        tablebase = load_server_tablebase(tablebase_dir, rules)
    pipeline = None
    if pipeline_dir is not None:
        pipeline = open_pipeline(pipeline_dir, rules.name, pipeline_db)
    pool = PlayerPool(
        weights,
        size=2 * threads,
        tablebase_dir=tablebase_path,
        models_dir=None if pipeline is None else pipeline.models,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await anyio.to_thread.run_sync(warm_up, rules)
        yield
        searches.close()
        if pipeline is not None:
            pipeline.close()

    async def reading_files(function, *args):
        """``function(*args)``, which reads files, off the event loop (not in the search queue:
        it is quick, and must not wait behind searches)."""
        return await anyio.to_thread.run_sync(function, *args)

    app = FastAPI(
        title="Samuel",
        summary=f"Play and analyse {rules.title} against Samuel's engines.",
        description=(
            f"This server analyses {rules.title}. The versioned API (/v1) ranks a position's "
            "moves with their values to the side to move (with dice: expected points, the "
            "chances and the cube decision), judges whole records and says which model "
            "answered. "
            + (
                f"The page's API (/api) plays games; its scores are from the "
                f"{rules.view_phrase.removesuffix(' view')} point of view, in "
                f"{web.score_unit}. "
                if web is not None
                else ""
            )
            + 'Errors answer `{"detail": "what is wrong"}` (400 malformed input, 401 no or an '
            "unknown API key, 404 unknown game, 409 not allowed now, 413 a body too large, "
            "422 a body that does not fit the schema, 429 over the key's rate, 503 the search "
            "queue is full)."
        ),
        version="1",
        lifespan=lifespan,
        docs_url=None,  # Swagger UI and ReDoc load their scripts from a CDN: not offline
        redoc_url=None,
    )
    app.state.searches = searches
    app.state.weights_dir = weights
    app.state.game = web
    # Added last, so it runs first: a request for another host is refused before its body is read.
    app.add_middleware(BodyLimit, larger={"/v1/analyse-record": MAX_RECORD_BYTES + 4096})
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts), www_redirect=False)

    for error_type, status in STATUS.items():
        app.add_exception_handler(error_type, _answer(status))
    app.add_exception_handler(RequestValidationError, _invalid_request)
    onnx = None
    if runtime == "onnx":
        try:
            onnx = OnnxRuntime()
        except ImportError as error:
            raise CommandError(f"--runtime onnx: {error}") from None
    v1 = V1(rules, pool, searches, weights, pipeline, api_keys, page=web is not None, runtime=onnx)
    add_v1(app, v1, ERRORS)
    if web is None:

        @app.get("/", include_in_schema=False)
        async def api_only() -> HTMLResponse:
            return HTMLResponse(render_api_page(rules))

        return app
    store = GameStore(max_games, tablebase=tablebase, per_client=max_games_per_client, web=web)
    _add_page(app, web, store, pool, searches, weights, tablebase_path, reading_files)
    return app


def _add_page(app, web, store, pool, searches, weights, tablebase_path, reading_files) -> None:
    """The page and its API (``/api``): play and analyse a game the page draws."""
    rules = web.rules
    app.state.store = store
    page_html = render_page(web)

    @app.get("/", include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse(page_html)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # The page's drawing of this game's board, from the game's folder (boards.WebGame).
    drawing_script, drawing_style = web.script.read_bytes(), web.style.read_bytes()

    @app.get("/game/drawing.js", include_in_schema=False)
    async def drawing_js() -> Response:
        return Response(drawing_script, media_type="text/javascript")

    @app.get("/game/drawing.css", include_in_schema=False)
    async def drawing_css() -> Response:
        return Response(drawing_style, media_type="text/css")

    info = web.info()

    async def settled(session, status_code: int = 200) -> Response:
        """The game's state once the server has done its part of a game with dice: the engines'
        cube decisions (in the search queue: they read the network), then the dice thrown when
        due (web/dice.py). A person's decision waits for the person."""
        while (question := session.cube_question()) is not None:
            if session.is_human(question.side) or session.thinking:
                break
            async with session.lock:  # the game cannot change while the engine decides
                side = rules.sides[question.side]
                spec, seed = session.players[side], session.seed_for(side)
                yes = await searches.run(
                    choose_cube_answer, session.game, spec, seed, pool, session.cube, question,
                    quick=True,
                )  # fmt: skip
                session.answer_cube(question, yes)
        session.roll_if_due()
        return _json(session.state(), status_code=status_code)

    @app.get("/api/game", response_model=schemas.GameInfo, tags=["game"])
    async def game_info() -> Response:
        """The game this server plays: its title, sides, squares, notation, and how its scores
        are said."""
        return _json(info)

    @app.get("/api/players", response_model=schemas.PlayerList, tags=["players"])
    async def list_players() -> schemas.PlayerList:
        """The players the page offers for the server's game: classic levels, random, and the
        networks this server can load for it (the shipped one and each `*.bin` in its weights
        dir). Any other spec that `samuel match` takes works too."""
        return await reading_files(offered_players, weights, rules)

    @app.post(
        "/api/games",
        response_model=schemas.GameState,
        status_code=201,
        responses=ERRORS,
        tags=["games"],
    )
    async def new_game(request: schemas.NewGame, http: Request) -> Response:
        """Start a game. Nothing moves yet: ask `engine-move` when an engine is to move. A
        client (a remote address) that already has `max_games_per_client` games loses the one
        it left alone longest."""
        specs = check_sides(request.players, web)
        start = parse_start(request.start, rules)
        for spec in specs.values():
            await reading_files(check_player, spec, weights, tablebase_path, rules)
        client = http.client.host if http.client else ""
        ply_cap = request.ply_cap if "ply_cap" in request.model_fields_set else web.ply_cap
        session = store.create(specs, start, ply_cap, request.seed, client=client)
        return await settled(session, status_code=201)

    @app.get(
        "/api/games/{game_id}",
        response_model=schemas.GameState,
        responses=ERRORS,
        tags=["games"],
    )
    async def get_game(game_id: str) -> Response:
        """The game as it stands (also while the engine thinks for it: `thinking` is true)."""
        return _json(store.get(game_id).state())

    @app.delete("/api/games/{game_id}", status_code=204, responses=ERRORS, tags=["games"])
    async def delete_game(game_id: str) -> Response:
        """Forget a game."""
        store.delete(game_id)
        return Response(status_code=204)

    @app.post(
        "/api/games/{game_id}/moves",
        response_model=schemas.GameState,
        responses=ERRORS,
        tags=["games"],
    )
    async def make_move(game_id: str, request: schemas.MoveRequest) -> Response:
        """Play a move in the game's notation: Tigers & Sheep `c3` (place), `a1-b2` (step),
        `a1xc3` (jump); draughts `11-15` (step), `15x24x31` (capture; `15x31` when only one
        capture goes from 15 to 31). A malformed move is a 400, an illegal one a 409; either
        way the game is unchanged."""
        session = store.get(game_id)
        session.play(request.move)
        return await settled(session)

    @app.post(
        "/api/games/{game_id}/engine-move",
        response_model=schemas.GameState,
        responses=ERRORS,
        tags=["games"],
    )
    async def engine_move(
        game_id: str, request: schemas.EngineMoveRequest | None = None
    ) -> Response:
        """The engine plays for the side to move (the game's player for that side, or
        `player`); its search is in the new last move's `search`. While it thinks, requests
        that would change this game get a 409."""
        session = store.get(game_id)
        if session.thinking:
            raise GameBusy(
                f"the engine is already thinking for {session.who(session.side_to_move)}; "
                "wait for its move"
            )
        spec = session.engine_spec(request.player if request else None)  # checked in the thread
        async with session.lock:  # held until the move is played: the game cannot change
            seed = session.seed_for(session.side_to_move)
            move, search = await searches.run(
                choose_engine_move, session.game, spec, seed, pool, quick=is_quick(spec)
            )
            session.game.play(move)
            session.searches.append(search)
        return await settled(session)

    @app.post(
        "/api/games/{game_id}/undo",
        response_model=schemas.GameState,
        responses=ERRORS,
        tags=["games"],
    )
    async def undo(game_id: str, request: schemas.UndoRequest | None = None) -> Response:
        """Take back the last `plies` moves (1 by default)."""
        session = store.get(game_id)
        session.undo(request.plies if request else 1)
        return await settled(session)

    if web.dice:
        _add_dice(app, web, store, settled)

    @app.get(
        "/api/games/{game_id}/record",
        response_class=PlainTextResponse,
        responses=ERRORS,
        tags=["games"],
    )
    async def game_record(game_id: str) -> PlainTextResponse:
        """The game so far as a record (text; the format is docs/records.md: PDN for
        draughts), to download."""
        session = store.get(game_id)
        name = f"samuel-{game_id}{web.record_suffix}"
        return PlainTextResponse(
            session.record(), headers={"Content-Disposition": f'attachment; filename="{name}"'}
        )

    @app.post(
        "/api/analyse",
        response_model=schemas.Analysis,
        responses=ERRORS,
        tags=["analysis"],
    )
    async def analyse_position(request: schemas.AnalyseRequest) -> Response:
        """Search a position (or a game's current position, its history counting for
        repetition) and say the best move, score, principal variation and nodes. Changes
        nothing."""
        if request.game_id is not None:
            game = store.get(request.game_id).game.copy()
        else:
            game = Game(rules, start=parse_start(request.position or "start", rules))
        depth = request.depth or (None if request.time else DEFAULT_ANALYSIS_DEPTH)
        quick = is_quick(request.player, depth, request.time)
        analysis = await searches.run(
            analyse, game, request.player, depth, request.time, request.seed, pool, quick=quick
        )
        return _json(analysis)


def _add_dice(app, web, store, settled) -> None:
    """The routes only a game with dice has: the cube (refused for a game without one) and
    why a click is refused."""

    @app.post(
        "/api/games/{game_id}/cube",
        response_model=schemas.GameState,
        responses=ERRORS,
        tags=["games"],
    )
    async def cube(game_id: str, request: schemas.CubeRequest) -> Response:
        """A person's cube action (backgammon). Before your throw (`cube.decision` is
        `double`): `double` (the engine takes or passes at once) or `roll`; doubled (`take`):
        `take` or `pass` (a pass ends the game). The server then throws the dice."""
        session = store.get(game_id)
        session.cube_action(request.action)
        return await settled(session)

    @app.post(
        "/api/games/{game_id}/why-not",
        response_model=schemas.WhyNot,
        responses=ERRORS,
        tags=["games"],
    )
    async def why_not(game_id: str, request: schemas.WhyNotRequest) -> Response:
        """Why a person's click is refused, in a sentence, from the game's legal plays: the
        checker on `from` moved (to `to`, or by any die left) after the `steps` clicked so far
        this turn (the board's squares, as `legal_move_paths` name them)."""
        session = store.get(game_id)
        game = session.game
        if session.outcome is not None or not game.legal_moves():
            raise RequestRefused("there is no play to make now")
        done = [(step.from_, step.to) for step in request.steps]
        reason = web.why_not(game.position, done, request.from_, request.to)
        return _json(schemas.WhyNot(reason=reason))


def is_quick(spec: str, depth: int | None = None, seconds: float | None = None) -> bool:
    """Whether ``spec`` (with the request's ``depth`` and ``seconds``) asks for a quick search:
    no search at all, or an untimed one to :data:`QUICK_DEPTH` at most. Only a guess for
    queueing: the spec is checked, and may be refused, when its player is made."""
    try:
        parsed = PlayerSpec.parse(spec)
        if parsed.name in ("random", "human"):
            return True
        if parsed.name in SPIEL_PLAYERS:  # OpenSpiel's bots run in Python: never milliseconds
            return False
        if parsed.name == "zero":  # a PUCT search of hundreds of network evaluations
            return False
        if seconds is not None or parsed.get("time") is not None:
            return False
        spec_depth = parsed.get("depth")
        searched = int(spec_depth) if spec_depth else depth or DEFAULT_DEPTH
        return searched <= QUICK_DEPTH
    except (PlayerSpecError, ValueError):
        return False


def _json(model: BaseModel, status_code: int = 200) -> Response:
    """``model`` as the answer. FastAPI would check an answer against the route's
    ``response_model`` again; these models were just built and checked, so they skip that."""
    return Response(model.model_dump_json(), status_code=status_code, media_type="application/json")


def _answer(status: int):
    async def handler(request: Request, error: Exception) -> JSONResponse:
        detail = " ".join(str(error).split())[:DETAIL_LIMIT]  # one line, however it was made
        headers = None
        if status == 503:
            headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
        elif status == 429:
            headers = {"Retry-After": str(getattr(error, "retry_after", RETRY_AFTER_SECONDS))}
        elif status == 401:
            headers = {"WWW-Authenticate": "Bearer"}
        return JSONResponse({"detail": detail}, status_code=status, headers=headers)

    return handler


async def _invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
    """A body that does not fit the schema, said in one line: ``move: Field required``."""
    problems = []
    for problem in error.errors():
        kind, message = problem.get("type", ""), str(problem.get("msg", "invalid"))
        where = ".".join(str(part) for part in problem.get("loc", ()) if part != "body")
        if kind == "json_invalid":
            problems.append(f"the body is not valid JSON ({problem.get('ctx', {}).get('error')})")
        elif kind == "missing" and not where:
            problems.append("the request needs a JSON body")
        else:
            message = message.removeprefix("Value error, ")
            problems.append(f"{where}: {message}" if where else message)
    detail = "; ".join(problems)[:DETAIL_LIMIT] or "invalid request"
    return JSONResponse({"detail": detail}, status_code=422)
