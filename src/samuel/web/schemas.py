"""What the web API reads and writes: the JSON bodies, as pydantic models.

Their descriptions become the server's OpenAPI schema (``/openapi.json``).
Every score is from the tigers' point of view, in units of one captured sheep, as everywhere in
Samuel; a forced result is also said in words ("tigers win in 3 plies").
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator

Side = Literal["tigers", "sheep"]

MAX_PLY_CAP = 10_000  # a longer game is surely a mistake; repetition ends real games sooner
MAX_SEARCH_SECONDS = 10.0  # no search for the web runs longer; a spec asking more is refused
MAX_SEARCH_DEPTH = 12  # deeper takes seconds to minutes (docs/search.md); the page offers 1-8
# Longest strings read. A position string is at most 34 characters ("SSSSS/.../SSSSS T 20"); a
# move 5 ("a1xc3"); a spec is a name and a few options, but a path in it may be long.
MAX_POSITION_CHARS = 80
MAX_MOVE_CHARS = 16
MAX_SPEC_CHARS = 300
MAX_ID_CHARS = 64  # game ids are 12 characters


class Players(BaseModel):
    """A player spec for each side: ``human`` for a person, or an engine (``GET /api/players``
    lists the offered levels; any spec ``samuel match`` takes works)."""

    tigers: str = Field("classic:depth=4", max_length=MAX_SPEC_CHARS, examples=["classic:depth=4"])
    sheep: str = Field("human", max_length=MAX_SPEC_CHARS, examples=["human"])


class NewGame(BaseModel):
    """``POST /api/games``: who plays, and from where."""

    players: Players = Field(default_factory=Players)
    start: str = Field(
        "start",
        max_length=MAX_POSITION_CHARS,
        description="a position string such as 'T3T/5/2S2/5/T3T T 19', or 'start'",
        examples=["start"],
    )
    ply_cap: int | None = Field(
        200, ge=1, le=MAX_PLY_CAP, description="a game this long is a draw; null for none"
    )
    seed: int | None = Field(
        None,
        ge=0,
        le=2**62,
        description="seed of the engines' tie-breaks and random moves; chosen at random if null",
    )


class MoveRequest(BaseModel):
    """``POST /api/games/{id}/moves``: one move in the game's notation."""

    move: str = Field(
        max_length=MAX_MOVE_CHARS,
        description="a placement 'c3', a step 'a1-b2' or a jump 'a1xc3'",
        examples=["c3"],
    )


class EngineMoveRequest(BaseModel):
    """``POST /api/games/{id}/engine-move``: the engine plays for the side to move."""

    player: str | None = Field(
        None,
        max_length=MAX_SPEC_CHARS,
        description="the engine to ask; by default the game's player for the side to move "
        "(which must not be human)",
        examples=[None, "classic:depth=6"],
    )


class UndoRequest(BaseModel):
    """``POST /api/games/{id}/undo``: take back moves."""

    plies: int = Field(1, ge=1, description="how many moves to take back", examples=[1, 2])


class AnalyseRequest(BaseModel):
    """``POST /api/analyse``: search one position, or a game's current position (then the
    game's history counts for repetition). The game is not changed."""

    position: str | None = Field(
        None,
        max_length=MAX_POSITION_CHARS,
        description="a position string or 'start' (the default when no game is given)",
    )
    game_id: str | None = Field(
        None, max_length=MAX_ID_CHARS, description="analyse this game's current position"
    )
    player: str = Field(
        "classic",
        max_length=MAX_SPEC_CHARS,
        description="a searching player spec",
        examples=["classic"],
    )
    depth: int | None = Field(
        None,
        ge=1,
        le=MAX_SEARCH_DEPTH,
        description="search depth; 6 if neither depth nor time is given",
    )
    time: float | None = Field(None, gt=0, le=MAX_SEARCH_SECONDS, description="seconds to search")
    seed: int = Field(0, ge=0, le=2**62, description="tie-break seed")

    @model_validator(mode="after")
    def _one_position(self) -> AnalyseRequest:
        if self.position is not None and self.game_id is not None:
            raise ValueError("give a position or a game_id, not both")
        return self


class Search(BaseModel):
    """What an engine's search found, from the tigers' point of view."""

    player: str = Field(description="the spec of the player that searched")
    move: str = Field(description="the move it chose (the first of the principal variation)")
    score: float = Field(
        description="tigers' view in captured sheep; a forced result is ±(1000 − plies)"
    )
    score_text: str = Field(
        description="the score in words: '+0.350 (tigers' view)' or 'tigers win in 3 plies'"
    )
    forced_winner: Side | None = Field(None, description="who wins by force, if anyone")
    forced_plies: int | None = Field(None, description="plies to the forced end, if any")
    depth: int
    nodes: int
    seconds: float
    nodes_per_second: float
    principal_variation: list[str]


class Analysis(Search):
    """``POST /api/analyse``'s answer: the search of one position."""

    position: str


class Outcome(BaseModel):
    """How a finished game ended."""

    winner: Side | None = Field(description="null for a draw")
    result: int = Field(description="+1 the tigers won, -1 the sheep won, 0 a draw")
    reason: str = Field(examples=["enough sheep captured", "threefold repetition"])
    message: str = Field(examples=["The tigers win: enough sheep captured."])


class PlayedMove(BaseModel):
    """One move of the game, with the engine's search if an engine chose it."""

    ply: int = Field(description="1 for the game's first move")
    side: Side
    move: str
    search: Search | None = None


class TrueValue(BaseModel):
    """The position's value with perfect play, from the tablebase (hand empty only)."""

    result: int = Field(description="tigers' view: 1 the tigers win, -1 the sheep win, 0 a draw")
    plies: int = Field(description="plies to the end with perfect play (0 for a draw)")
    text: str = Field(examples=["tigers win in 13 plies", "a draw with perfect play"])


class GameState(BaseModel):
    """Everything the page needs to draw a game and let a person move."""

    id: str
    position: str = Field(description="the current position string")
    start: str = Field(description="the start position string")
    side_to_move: Side
    tigers: list[str] = Field(description="points with a tiger, e.g. ['a1', 'e1', ...]")
    sheep: list[str] = Field(description="points with a sheep")
    sheep_in_hand: int
    captured: int
    ply: int = Field(description="moves played so far")
    moves: list[PlayedMove]
    legal_moves: list[str] = Field(description="empty once the game is over")
    players: Players
    ply_cap: int | None
    seed: int
    outcome: Outcome | None = Field(description="null while the game goes on")
    thinking: bool = Field(description="an engine is searching for this game now")
    record: str = Field(description="the game record's URL (text, docs/records.md)")
    true_value: TrueValue | None = Field(
        default=None,
        description="with `samuel serve --tablebase DIR`, the perfect-play value once the hand "
        "is empty (docs/tablebase.md); null otherwise",
    )


class PlayerLevel(BaseModel):
    """One player the page offers."""

    spec: str = Field(examples=["classic:depth=4"])
    label: str = Field(examples=["Classic, depth 4"])
    group: str = Field(examples=["Classic", "Network", "Other"])
    engine: str | None = Field(
        description="the spec without depth or time, to which the page adds its own "
        "depth or time; null for a player that does not search"
    )


class PlayerList(BaseModel):
    """``GET /api/players``."""

    players: list[PlayerLevel]
    default: str = Field(description="the spec the page picks first")
    strongest: str = Field(description="the strongest level offered")


class Problem(BaseModel):
    """A 4xx answer: what is wrong, in words."""

    detail: str
