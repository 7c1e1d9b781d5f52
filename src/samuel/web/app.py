"""The web server: one page (``static/``) and a JSON API to play and analyse Tigers & Sheep.

:func:`create_app` builds the FastAPI application; ``samuel serve`` runs it with uvicorn. The
API is described by its OpenAPI schema (``/openapi.json``, browsable at ``/docs``) and in
``docs/web.md``.

Answers to bad requests say what is wrong, as ``{"detail": "..."}``:

- 400: a malformed move, position or player spec;
- 404: no game has that id;
- 409: the game's state does not allow it: an illegal move, a finished game, nothing to undo, a
  human's turn for the engine, or the engine is thinking for that game;
- 422: the request body does not fit the schema (a missing field, a number out of range, not
  JSON).

Engine searches run in worker threads (the compiled search releases the GIL), at most
``search_threads`` at once; everything else runs on the event loop and is quick, so one long
search does not hold up other players.
"""

from __future__ import annotations

import os
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel

from samuel.games.base import IllegalMoveError, NotationError
from samuel.games.game import Game
from samuel.games.tigers.rules import RULES
from samuel.players import PlayerSpecError
from samuel.web import schemas
from samuel.web.games import (
    GameBusy,
    GameNotFound,
    GameStore,
    PlayerPool,
    RequestRefused,
    analyse,
    check_player,
    choose_engine_move,
    copy_game,
    parse_start,
)
from samuel.web.levels import offered_players

STATIC = Path(__file__).parent / "static"
DEFAULT_ANALYSIS_DEPTH = 6  # as `samuel analyse`

# Which errors become which answers (see the module's docstring).
STATUS = {
    NotationError: 400,
    PlayerSpecError: 400,
    GameNotFound: 404,
    IllegalMoveError: 409,
    RequestRefused: 409,
    GameBusy: 409,
}
ERRORS = {
    400: {"model": schemas.Problem, "description": "a malformed move, position or player spec"},
    404: {"model": schemas.Problem, "description": "no game has this id"},
    409: {"model": schemas.Problem, "description": "not allowed in the game's state now"},
    422: {"model": schemas.Problem, "description": "the body does not fit the schema"},
}


def warm_up() -> None:
    """Compile (or load from numba's cache) the search before the first visitor waits for it."""
    from samuel.players import make_player

    make_player("classic:depth=2", RULES).search(Game(RULES))


def create_app(
    weights_dir: str | os.PathLike | None = None,
    search_threads: int | None = None,
    max_games: int = 1000,
    tablebase_dir: str | os.PathLike | None = None,
) -> FastAPI:
    """The application. ``weights_dir`` holds the networks offered (``*.bin``) and is the only
    place player specs may read weights from; ``search_threads`` bounds the searches running at
    once (twice the CPUs by default, so a timed search does not wait for others); ``max_games``
    bounds the games kept; ``tablebase_dir`` (a built tablebase, docs/tablebase.md) adds each
    game's perfect-play value once the hand is empty."""
    weights = Path(weights_dir) if weights_dir is not None else None
    if weights is not None and not weights.is_dir():
        raise ValueError(f"the weights dir {weights} is not a directory")
    threads = search_threads or 2 * (os.cpu_count() or 1)
    tablebase = None
    if tablebase_dir is not None:
        from samuel.tablebase.files import TablebaseError
        from samuel.tablebase.probe import load_tablebase

        try:
            tablebase = load_tablebase(tablebase_dir)
        except TablebaseError as error:
            raise ValueError(str(error)) from None
    store = GameStore(max_games, tablebase=tablebase)
    pool = PlayerPool(weights, size=2 * threads)
    limiter: anyio.CapacityLimiter | None = None  # made in the event loop, on first use

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await anyio.to_thread.run_sync(warm_up)
        yield

    async def in_thread(function, *args):
        """Run ``function(*args)`` in a worker thread, at most ``threads`` at once."""
        nonlocal limiter
        if limiter is None:
            limiter = anyio.CapacityLimiter(threads)
        return await anyio.to_thread.run_sync(function, *args, limiter=limiter)

    app = FastAPI(
        title="Samuel",
        summary="Play and analyse Tigers & Sheep (Bagh-Chal) against Samuel's engines.",
        description=(
            "Scores are from the tigers' point of view, in units of one captured sheep; a "
            "forced result is said in words ('tigers win in 3 plies'). Errors answer "
            '`{"detail": "what is wrong"}` (400 malformed input, 404 unknown game, 409 not '
            "allowed now, 422 a body that does not fit the schema)."
        ),
        version="1",
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.weights_dir = weights

    for error_type, status in STATUS.items():
        app.add_exception_handler(error_type, _answer(status))
    app.add_exception_handler(RequestValidationError, _invalid_request)

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/players", response_model=schemas.PlayerList, tags=["players"])
    async def list_players() -> schemas.PlayerList:
        """The players the page offers: classic levels, random, and the networks this server
        can load (the shipped one and each `*.bin` in its weights dir). Any other spec that
        `samuel match` takes works too."""
        return await in_thread(offered_players, weights)

    @app.post(
        "/api/games",
        response_model=schemas.GameState,
        status_code=201,
        responses=ERRORS,
        tags=["games"],
    )
    async def new_game(request: schemas.NewGame) -> Response:
        """Start a game. Nothing moves yet: ask `engine-move` when an engine is to move."""
        start = parse_start(request.start)
        specs = {"tigers": request.players.tigers, "sheep": request.players.sheep}
        for spec in specs.values():
            check_player(spec, weights)
        session = store.create(specs, start, request.ply_cap, request.seed)
        return _json(session.state(), status_code=201)

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
        """Play a move in notation: `c3` (place), `a1-b2` (step), `a1xc3` (jump). A malformed
        move is a 400, an illegal one a 409; either way the game is unchanged."""
        session = store.get(game_id)
        session.play(request.move)
        return _json(session.state())

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
                f"the engine is already thinking for the {session.side_to_move}; wait for its move"
            )
        spec = session.engine_spec(request.player if request else None)  # checked in the thread
        async with session.lock:  # held until the move is played: the game cannot change
            seed = session.seed_for(session.side_to_move)
            move, search = await in_thread(choose_engine_move, session.game, spec, seed, pool)
            session.game.play(move)
            session.searches.append(search)
        return _json(session.state())

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
        return _json(session.state())

    @app.get(
        "/api/games/{game_id}/record",
        response_class=PlainTextResponse,
        responses=ERRORS,
        tags=["games"],
    )
    async def game_record(game_id: str) -> PlainTextResponse:
        """The game so far as a record (text; the format is docs/records.md), to download."""
        session = store.get(game_id)
        return PlainTextResponse(
            session.record(),
            headers={"Content-Disposition": f'attachment; filename="samuel-{game_id}.txt"'},
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
            game = copy_game(store.get(request.game_id).game)
        else:
            game = Game(RULES, start=parse_start(request.position or "start"))
        depth = request.depth or (None if request.time else DEFAULT_ANALYSIS_DEPTH)
        analysis = await in_thread(
            analyse, game, request.player, depth, request.time, request.seed, pool
        )
        return _json(analysis)

    return app


def _json(model: BaseModel, status_code: int = 200) -> Response:
    """``model`` as the answer. FastAPI would check an answer against the route's
    ``response_model`` again; these models were just built and checked, so they skip that."""
    return Response(model.model_dump_json(), status_code=status_code, media_type="application/json")


def _answer(status: int):
    async def handler(request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=status)

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
    return JSONResponse({"detail": "; ".join(problems) or "invalid request"}, status_code=422)
