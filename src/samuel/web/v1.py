"""The versioned analysis API, ``/v1``: a position's moves ranked with their values (and for a
game with dice its chances and cube decision), a whole record's decisions judged, and which
model answered. Every registered game, whether or not the page draws it. docs/web.md has the
endpoints; the server's OpenAPI document (``/openapi.json``) describes them.

Searches go through the server's search queue (a 503 with ``Retry-After`` when it is full), a
player's files are confined as every spec's (:mod:`samuel.web.specs`), and with
``--api-keys FILE`` each request needs a key and keeps to its rate (:mod:`samuel.web.keys`).
With ``--pipeline DIR`` the player ``champion`` is the pipeline's active model, looked up at
each request, so a ``samuel pipeline promote`` is answered by the next one.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, replace
from pathlib import Path

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.responses import Response

from samuel.analysis.models import CHAMPION, PipelineModels, identify
from samuel.analysis.positions import (
    AnalysisRefused,
    CubeState,
    OnnxRuntime,
    PositionAnalysis,
    analyse_position,
    chance_names,
    has_dice,
    plied_searcher,
)
from samuel.analysis.records import analyse_record
from samuel.games import descriptors
from samuel.games.base import GameRules, IllegalMoveError, NotationError
from samuel.games.game import Game
from samuel.players import PlayerSpec, PlayerSpecError, SearchPlayer, quoted
from samuel.web import v1_schemas as api
from samuel.web.games import PlayerPool, parse_start
from samuel.web.keys import ApiKeys, request_key
from samuel.web.levels import offered_players
from samuel.web.limits import SearchQueue
from samuel.web.schemas import MAX_SPEC_CHARS, PlayerList

DEFAULT_DEPTH = 4  # every move of a position is searched to one less: deep enough, quick
QUICK_DEPTH = 3
OWNERS = {"centred": None, "on_roll": 0, "opponent": 1}


class RecordTooLong(RuntimeError):
    """A record's analysis ran past :data:`~samuel.web.v1_schemas.MAX_RECORD_SECONDS`."""


@dataclass
class V1:
    """What the API's answers need: the game, the players, the queue and the registry."""

    rules: GameRules
    pool: PlayerPool
    searches: SearchQueue
    weights_dir: Path | None
    pipeline: PipelineModels | None = None
    keys: ApiKeys | None = None
    page: bool = True  # whether the page draws the game
    runtime: OnnxRuntime | None = None  # --runtime onnx

    @functools.cached_property
    def default_player(self) -> str:
        if self.pipeline is not None:
            return CHAMPION
        return "net" if _has_network(self.rules) else "classic"

    def resolve(self, spec: str) -> tuple[str, int | None]:
        """The spec to make (``champion`` becomes the active model's file) and the registry's
        id of that model, or None."""
        parsed = PlayerSpec.parse(spec)
        if parsed.name != CHAMPION:
            return spec, None
        if self.pipeline is None:
            raise PlayerSpecError(
                f"{quoted(CHAMPION)} is a pipeline's active model, and this server has no "
                "pipeline (samuel serve --pipeline DIR)"
            )
        model_id, path, _ = self.pipeline.active()
        return str(PlayerSpec(str(path), parsed.options)), model_id


def _has_network(rules: GameRules) -> bool:
    from samuel.evaluation.networks import shipped_network

    return shipped_network(rules.number) is not None


def add_v1(app: FastAPI, v1: V1, errors: dict) -> None:
    """The ``/v1`` routes, on ``app``."""

    async def check_key(request: Request) -> None:
        if v1.keys is not None:
            v1.keys.admit(request_key(request.headers))

    router = APIRouter(prefix="/v1", tags=["v1"], dependencies=[Depends(check_key)])
    rules = v1.rules
    info = api.ServedGame(
        name=rules.name,
        title=rules.title,
        sides=list(rules.sides),
        dice=has_dice(rules),
        cube=descriptors()[rules.name].part("analysis") is not None,
        chances=list(chance_names(rules)) if has_dice(rules) else [],
        start=rules.format_position(rules.initial_position()),
        move_help=rules.move_help,
        default_player=v1.default_player,
        page=v1.page,
    )

    @router.get("/game", response_model=api.ServedGame)
    async def game() -> api.ServedGame:
        """The game this server analyses: its sides, whether it has dice and a cube, the names
        of its chances, its start position and the default player."""
        return info

    @router.get("/players", response_model=PlayerList)
    async def players() -> PlayerList:
        """The players offered (any searching spec works), with `champion` first when the
        server runs with `--pipeline`."""
        import anyio.to_thread

        offered = await anyio.to_thread.run_sync(offered_players, v1.weights_dir, rules)
        if v1.pipeline is not None:
            from samuel.web.schemas import PlayerLevel

            champion = PlayerLevel(
                spec=CHAMPION, label="The pipeline's active model", group="Network", engine=None
            )
            offered.players.insert(0, champion)
            offered.default = CHAMPION
        return offered

    @router.get("/model", response_model=api.AnsweringModel, responses=errors)
    async def model(
        player: str | None = Query(None, max_length=MAX_SPEC_CHARS),
    ) -> Response:
        """Which model a player spec is now (the default player's if none is given): the
        registry's id for `champion`, the weights file's name and SHA-256."""
        spec = player or v1.default_player
        found = await v1.searches.run(_identify, v1, spec, quick=True)
        return _json(found)

    @router.post("/analyse", response_model=api.PositionAnalysis, responses=errors)
    async def analyse(request: api.PositionRequest) -> Response:
        """A position's moves, best first, each with its value to the side to move (with dice:
        expected points, and an outcome network's chances); with the dice still to roll, the
        position's value, chances and cube decision instead. `model` says which answered."""
        quick = _quick(rules, request.depth, request.ply)
        return _json(await v1.searches.run(_analyse, v1, request, quick=quick))

    @router.post("/analyse-record", response_model=api.RecordAnalysis, responses=errors)
    async def analyse_a_record(request: api.RecordRequest) -> Response:
        """Every decision of a game record (Samuel's records, PDN for draughts; with format
        `mat` a backgammon match file) judged: the best move, the error of the move played,
        and each side's summary."""
        return _json(await v1.searches.run(_record, v1, request))

    app.include_router(router)


def _quick(rules: GameRules, depth: int | None, ply: int | None) -> bool:
    if has_dice(rules):
        return not ply
    return (depth or DEFAULT_DEPTH) <= QUICK_DEPTH


def _json(model) -> Response:
    return Response(model.model_dump_json(), media_type="application/json")


def _identify(v1: V1, spec: str) -> api.AnsweringModel:
    made, model_id = v1.resolve(spec)
    with v1.pool.lend(made, 0, rules=v1.rules) as player:
        found = identify(made, player, v1.rules, model_id, shown=spec)
    return _read(api.AnsweringModel, found)


def _lend(v1: V1, spec: str, seed: int, depth: int | None):
    made, model_id = v1.resolve(spec)
    return made, model_id, v1.pool.lend(made, seed, depth=depth, rules=v1.rules)


def _with_plies(player, rules: GameRules, ply: int | None):
    """With dice, the player at the request's n-ply (its own spec's, else 0)."""
    if has_dice(rules) and isinstance(player, SearchPlayer):
        plies = ply if ply is not None else (player.plies or 0)
        plied_searcher(player)  # made once, kept by the lent player for the next request
        return replace(player, plies=plies)
    return player


def _game_at(rules: GameRules, position: str, dice: str | None) -> Game:
    game = Game(rules, start=parse_start(position, rules))
    if dice is None:
        return game
    if not game.chance_outcomes():
        raise NotationError("the position's dice are already rolled (or the game is over)")
    roll = rules.parse_move(dice)
    rolls = [outcome for outcome, _ in game.chance_outcomes()]
    if roll not in rolls:
        raise NotationError(f"{dice!r} is not a roll of {rules.title}'s dice (write it as 3-1)")
    game.play(roll)
    return game


def _analyse(v1: V1, request: api.PositionRequest) -> api.PositionAnalysis:
    rules = v1.rules
    if has_dice(rules) and request.depth is not None:
        raise AnalysisRefused(f"{rules.title} is analysed by n-ply: give ply, not depth")
    if not has_dice(rules) and (request.ply is not None or request.dice or request.cube):
        raise AnalysisRefused(f"{rules.title} has no dice: give depth (no ply, dice or cube)")
    game = _game_at(rules, request.position, request.dice)
    cube = None
    if request.cube is not None:
        given = request.cube
        cube = CubeState(given.value, OWNERS[given.owner], given.away, given.crawford, given.jacoby)
    spec = request.player or v1.default_player
    depth = None if has_dice(rules) else request.depth or DEFAULT_DEPTH
    made, model_id, lent = _lend(v1, spec, request.seed, depth)
    with lent as player:
        analysis = analyse_position(
            game, _with_plies(player, rules, request.ply), cube=cube, runtime=v1.runtime
        )
        found = identify(made, player, rules, model_id, shown=spec)
    return _answer(rules, analysis, _read(api.AnsweringModel, found))


def _answer(
    rules: GameRules, analysis: PositionAnalysis, model: api.AnsweringModel
) -> api.PositionAnalysis:
    best = analysis.moves[0].value if analysis.moves else 0.0
    moves = [
        api.RankedMove(
            move=m.move,
            value=m.value,
            text=m.text,
            depth=m.depth,
            error=round(max(0.0, best - m.value), 6),
            line=list(m.line),
            chances=m.chances,
            visits=m.visits,
        )
        for m in analysis.moves
    ]
    cube = None
    if analysis.cube is not None:
        cube = api.CubeDecision(**analysis.cube.__dict__)
    return api.PositionAnalysis(
        game=rules.name,
        position=analysis.position,
        side_to_move=analysis.side_to_move,
        moves=moves,
        value=analysis.value,
        chances=analysis.chances,
        cube=cube,
        nodes=analysis.nodes,
        seconds=round(analysis.seconds, 6),
        runtime=analysis.runtime,
        model=model,
    )


def _record(v1: V1, request: api.RecordRequest) -> api.RecordAnalysis:
    rules = v1.rules
    if has_dice(rules) and request.depth is not None:
        raise AnalysisRefused(f"{rules.title} is analysed by n-ply: give ply, not depth")
    if not has_dice(rules) and request.ply is not None:
        raise AnalysisRefused(f"{rules.title} has no dice: give depth, not ply")
    spec = request.player or v1.default_player
    depth = None if has_dice(rules) else request.depth or DEFAULT_DEPTH
    deadline = time.monotonic() + api.MAX_RECORD_SECONDS

    def checkpoint() -> None:
        if time.monotonic() > deadline:
            raise RecordTooLong(
                f"the record's analysis ran past {api.MAX_RECORD_SECONDS:g} s, this server's "
                "limit: ask a shallower analysis or send fewer games"
            )

    made, model_id, lent = _lend(v1, spec, request.seed, depth)
    with lent as player:
        found = analyse_record(
            rules,
            request.record,
            _with_plies(player, rules, request.ply),
            request.format,
            api.MAX_RECORD_DECISIONS,
            checkpoint,
        )
        identity = identify(made, player, rules, model_id, shown=spec)
    return api.RecordAnalysis(
        game=rules.name,
        decisions=[_read(api.JudgedDecision, j) for j in found.decisions],
        summaries=[_read(api.SideSummary, s) for s in found.summaries],
        seconds=round(found.seconds, 6),
        model=_read(api.AnsweringModel, identity),
    )


def _read(model, found):
    """``model`` filled from the attributes of ``found`` (the analysis' own dataclasses)."""
    return model.model_validate(found, from_attributes=True)


__all__ = ["V1", "AnalysisRefused", "IllegalMoveError", "RecordTooLong", "add_v1"]
