"""What the versioned analysis API (``/v1``) reads and writes, as pydantic models.

Unlike ``/api`` (the page's, in the first player's view), every value here is the **side to
move's**, so that moves rank by value and an error is the best value less the move's: expected
points (cubeless) in a game with dice, the evaluation's units otherwise (a forced result is
``±(1000 - plies)``, said in words in ``text``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator

from samuel.web.schemas import MAX_POSITION_CHARS, MAX_SEARCH_DEPTH, MAX_SPEC_CHARS

MAX_API_PLIES = 2  # n-ply for dice: 3 takes minutes a position (samuel.search.plied)
MAX_RECORD_BYTES = 1 << 20  # a long match file is a few hundred kilobytes
MAX_RECORD_DECISIONS = 2000  # a few long backgammon matches; each 0-ply decision is milliseconds
MAX_RECORD_SECONDS = 60.0  # a record's whole analysis; past that it is refused
MAX_DICE_CHARS = 8
MAX_CUBE = 1 << 12


class Cube(BaseModel):
    """The doubling cube and the match score (a game with a cube)."""

    value: int = Field(1, ge=1, le=MAX_CUBE, description="1, 2, 4 ... the cube's value")
    owner: Literal["centred", "on_roll", "opponent"] = Field(
        "centred", description="who may double next: both (centred), the side on roll, the other"
    )
    away: tuple[int, int] | None = Field(
        None,
        description="a match: the points each side still needs, the side on roll's first "
        "(e.g. [3, 5]); none for money play",
    )
    crawford: bool = Field(False, description="this is the Crawford game of a match")
    jacoby: bool = Field(
        True,
        description="money play's Jacoby rule (gammons count single while the cube is centred)",
    )

    @model_validator(mode="after")
    def _valid(self) -> Cube:
        if self.value & (self.value - 1):
            raise ValueError(f"the cube is 1, 2, 4, 8 ..., not {self.value}")
        if self.away is not None and not all(1 <= away <= 64 for away in self.away):
            raise ValueError("each side is 1 to 64 points away in a match")
        if self.crawford and (self.away is None or 1 not in self.away):
            raise ValueError("the Crawford game is a match's, with a side 1 point away")
        return self


class PositionRequest(BaseModel):
    """``POST /v1/analyse``: one position, and for a game with dice the roll and the cube."""

    position: str = Field(
        "start",
        max_length=MAX_POSITION_CHARS,
        description="a position in the game's notation (GET /v1/game gives an example), or 'start'",
    )
    dice: str | None = Field(
        None,
        max_length=MAX_DICE_CHARS,
        description="a game with dice: the roll to play (e.g. '3-1') when the position's dice "
        "are still to roll; without it such a position gets its value, chances and cube decision",
    )
    player: str | None = Field(
        None,
        max_length=MAX_SPEC_CHARS,
        description="a searching player spec (GET /v1/players); the server's default if left out",
    )
    depth: int | None = Field(
        None, ge=1, le=MAX_SEARCH_DEPTH, description="a game without dice: search depth"
    )
    ply: int | None = Field(
        None, ge=0, le=MAX_API_PLIES, description="a game with dice: n-ply (0 the evaluation)"
    )
    cube: Cube | None = Field(None, description="a game with a cube, its dice to roll")
    seed: int = Field(0, ge=0, le=2**62, description="tie-break seed")


class RecordRequest(BaseModel):
    """``POST /v1/analyse-record``: a whole game record, every decision judged."""

    record: str = Field(
        max_length=MAX_RECORD_BYTES,
        description="the record's text: Samuel's game records (PDN for draughts), or with "
        "format 'mat' a match file (.mat) of a game that has them",
    )
    format: Literal["record", "mat"] = Field("record", description="the record's kind")
    player: str | None = Field(None, max_length=MAX_SPEC_CHARS, description="the judge's spec")
    depth: int | None = Field(None, ge=1, le=MAX_SEARCH_DEPTH, description="no dice: depth")
    ply: int | None = Field(None, ge=0, le=MAX_API_PLIES, description="dice: n-ply")
    seed: int = Field(0, ge=0, le=2**62, description="tie-break seed")


class AnsweringModel(BaseModel):
    """Which model answered."""

    player: str = Field(description="the player spec that analysed")
    id: int | None = Field(
        None, description="the pipeline registry's model id (a server run with --pipeline)"
    )
    file: str | None = Field(None, description="the weights file's name")
    sha256: str | None = Field(
        None, description="the weights file's SHA-256 (or, with no file, the parameters')"
    )


class RankedMove(BaseModel):
    move: str = Field(description="in the game's notation")
    value: float = Field(description="the side to move's value of this move")
    text: str = Field(description="the value in words")
    depth: int = Field(description="plies searched (with dice: rolls looked ahead)")
    error: float = Field(description="the best move's value less this one's (0 for the best)")
    line: list[str] = Field(default_factory=list, description="principal variation (no dice)")
    chances: dict[str, float] | None = Field(
        None, description="with dice and an outcome network: the mover's chances, 0-ply"
    )
    visits: int | None = Field(None, description="Samuel Zero's visits")


class CubeDecision(BaseModel):
    decision: str = Field(description="'no double, take', 'double, take', 'double, pass' ...")
    no_double: float
    double_take: float
    double_pass: float
    unit: str = Field(description="what the three values are in")
    available: bool = Field(description="whether the side on roll may double at all")


class PositionAnalysis(BaseModel):
    """``POST /v1/analyse``'s answer."""

    game: str
    position: str
    side_to_move: str
    moves: list[RankedMove] = Field(description="best first; none while the dice are to roll")
    value: float | None = Field(None, description="dice to roll: the position's value")
    chances: dict[str, float] | None = Field(None, description="dice to roll: the chances")
    cube: CubeDecision | None = None
    nodes: int = Field(description="positions searched or evaluated")
    seconds: float
    runtime: Literal["numba", "onnx"] = Field(
        description="what evaluated the network: Samuel's compiled pass, or onnxruntime (a "
        "server run with --runtime onnx, for a network player of a game with dice at 0-ply)"
    )
    model: AnsweringModel


class JudgedDecision(BaseModel):
    game: int
    ply: int
    side: str
    player: str
    position: str
    played: str
    best: str
    played_value: float
    best_value: float
    error: float
    depth: int


class SideSummary(BaseModel):
    side: str
    player: str
    decisions: int
    total_error: float
    mean_error: float
    worst: list[JudgedDecision]


class RecordAnalysis(BaseModel):
    """``POST /v1/analyse-record``'s answer: every decision, then each side's summary."""

    game: str
    decisions: list[JudgedDecision]
    summaries: list[SideSummary]
    seconds: float
    model: AnsweringModel


class ServedGame(BaseModel):
    """``GET /v1/game``."""

    name: str
    title: str
    sides: list[str]
    dice: bool
    cube: bool
    chances: list[str] = Field(description="the names of an outcome network's chances")
    start: str
    move_help: str
    default_player: str
    page: bool = Field(description="whether this server's page draws the game")
