"""What the web API reads and writes: the JSON bodies, as pydantic models.

Their descriptions become the server's OpenAPI schema (``/openapi.json``). One server plays one
game (``samuel serve --game``); sides, squares, pieces and moves are named in that game's words
(``GET /api/game`` lists them). Every score is from the first player's point of view (the
tigers', Black's), in the game's units (one captured sheep, one man), as everywhere in Samuel; a
forced result is also said in words ("tigers win in 3 plies", "Black wins in 5 plies").
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from samuel.games import descriptors

Side = str  # a side by the game's name for it: "tigers", "sheep"; "black", "white"

MAX_PLY_CAP = 10_000  # a longer game is surely a mistake; repetition ends real games sooner
MAX_SEARCH_SECONDS = 10.0  # no search for the web runs longer; a spec asking more is refused
MAX_SEARCH_DEPTH = 12  # deeper takes seconds to minutes (docs/search.md); the page offers 1-8
# Longest strings read. A Tigers & Sheep position string is at most 34 characters
# ("SSSSS/.../SSSSS T 20"), a draughts FEN at most 109 (24 pieces, all kings on two-digit squares,
# and a 40-move count); a move 5 ("a1xc3"), or in draughts 38 (a capture of 12 jumps, each "x12");
# a spec is a name and a few options, but a path in it may be long.
MAX_POSITION_CHARS = 128
MAX_MOVE_CHARS = 40
MAX_SPEC_CHARS = 300
MAX_ID_CHARS = 64  # game ids are 12 characters
MAX_SQUARE_CHARS = 12  # the longest square's name is "off-white"

# The schema's examples name registered games (by their descriptors, so no game is named here):
# the first, whose first side an engine plays, and the second, where there is one.
_GAMES = tuple(descriptors().values())
_FIRST, _SECOND = _GAMES[0], _GAMES[min(1, len(_GAMES) - 1)]


Spec = Annotated[str, Field(max_length=MAX_SPEC_CHARS)]


def _absent(value) -> bool:
    """A field only some games have is left out of the others' answers (their bodies stay as
    they were), not sent as null."""
    return value is None


# A player spec for each side, by the game's side names: ``human`` for a person, or an engine
# (``GET /api/players`` lists the offered levels; any spec ``samuel match`` takes works).
Players = dict[Side, Spec]


class NewGame(BaseModel):
    """``POST /api/games``: who plays, and from where."""

    players: Players = Field(
        default_factory=dict,
        description="a player spec by side, e.g. {'tigers': 'classic:depth=4', 'sheep': 'human'} "
        "or {'black': 'human', 'white': 'classic:depth=4'}; a side left out gets the game's "
        "default (GET /api/game)",
        examples=[{_FIRST.sides[0]: "classic:depth=4", _FIRST.sides[1]: "human"}],
    )
    start: str = Field(
        "start",
        max_length=MAX_POSITION_CHARS,
        description="a position string in the game's notation, such as 'T3T/5/2S2/5/T3T T 19' "
        "or 'W:W18,K30:B10,14', or 'start'",
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
        description="Tigers & Sheep: a placement 'c3', a step 'a1-b2' or a jump 'a1xc3'; "
        "draughts (PDN): a step '11-15', a capture '15x24x31' (or '15x31' when only one "
        "capture goes from 15 to 31)",
        examples=["c3"],
    )


class CubeRequest(BaseModel):
    """``POST /api/games/{id}/cube``: a person's cube action (backgammon)."""

    action: Literal["roll", "double", "take", "pass"] = Field(
        description="before your roll: 'double' or 'roll' (no double); doubled: 'take' or 'pass'",
        examples=["double"],
    )


class StepSquares(BaseModel):
    """A checker's step on the board's squares."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    from_: str = Field(alias="from", max_length=MAX_SQUARE_CHARS, examples=["13"])
    to: str = Field(max_length=MAX_SQUARE_CHARS, examples=["8"])


class WhyNotRequest(BaseModel):
    """``POST /api/games/{id}/why-not``: why a person's click is refused (a game with dice)."""

    model_config = ConfigDict(populate_by_name=True)

    steps: list[StepSquares] = Field(
        default_factory=list, max_length=4, description="the steps clicked so far this turn"
    )
    from_: str = Field(
        alias="from", max_length=MAX_SQUARE_CHARS, description="the square of the checker clicked"
    )
    to: str | None = Field(
        None,
        max_length=MAX_SQUARE_CHARS,
        description="the square clicked to move it to; null: why it cannot move at all",
    )


class WhyNot(BaseModel):
    """Why a click is refused, in a sentence."""

    reason: str = Field(examples=["The head rule: one checker may leave the head ..."])


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
    """What an engine's search found, from the first player's point of view."""

    player: str = Field(description="the spec of the player that searched")
    move: str = Field(description="the move it chose (the first of the principal variation)")
    score: float = Field(
        description="the first player's view (the tigers', Black's) in the game's units "
        "(captured sheep, men); a forced result is ±(1000 − plies). A zero player's is its "
        "expected result, -1 to 1"
    )
    score_text: str = Field(
        description="the score in words: '+0.350 (tigers' view)', 'tigers win in 3 plies', "
        "'-1.030 (Black's view)', 'White wins in 7 plies'"
    )
    forced_winner: Side | None = Field(None, description="who wins by force, if anyone")
    forced_plies: int | None = Field(None, description="plies to the forced end, if any")
    depth: int = Field(description="plies searched; a zero player's: its principal variation's")
    nodes: int
    seconds: float
    nodes_per_second: float
    principal_variation: list[str]
    expected_result: float | None = Field(
        None,
        description="a zero player's (PUCT) value of the position, -1 to 1, in the first "
        "player's view; null for an alpha-beta player",
    )
    simulations: int | None = Field(
        None, description="a zero player's simulations below the root; null for alpha-beta"
    )


class Analysis(Search):
    """``POST /api/analyse``'s answer: the search of one position."""

    position: str


class Outcome(BaseModel):
    """How a finished game ended."""

    winner: Side | None = Field(description="null for a draw")
    result: int = Field(
        description="+1 the first player (the tigers, Black) won, -1 the second, 0 a draw"
    )
    reason: str = Field(examples=["enough sheep captured", "threefold repetition"])
    message: str = Field(
        examples=["The tigers win: enough sheep captured.", "White wins: Black has no legal move."]
    )
    points: int | None = Field(
        None,
        exclude_if=_absent,
        description="a game with dice: what the win is worth (backgammon: the cube's value "
        "times 1, a gammon 2 or a backgammon 3; long nardy: a win 1, a mars 2, a koks 3)",
    )


class PlayedMove(BaseModel):
    """One move of the game, with the engine's search if an engine chose it."""

    ply: int = Field(description="1 for the game's first move")
    side: Side
    move: str
    search: Search | None = None
    roll: bool | None = Field(
        None, exclude_if=_absent, description="a game with dice: a throw (the server's)"
    )


class TrueValue(BaseModel):
    """The position's value with perfect play, from the tablebase (hand empty only)."""

    result: int = Field(description="tigers' view: 1 the tigers win, -1 the sheep win, 0 a draw")
    plies: int = Field(description="plies to the end with perfect play (0 for a draw)")
    text: str = Field(examples=["tigers win in 13 plies", "a draw with perfect play"])


class Piece(BaseModel):
    """A piece on the board, in the game's words."""

    square: str = Field(description="its square: 'a1'-'e5', or draughts' '1'-'32'")
    piece: str = Field(description="'tiger' or 'sheep'; 'man' or 'king'", examples=["man"])
    side: Side = Field(description="whose it is", examples=[_SECOND.sides[0]])
    count: int | None = Field(
        None,
        exclude_if=_absent,
        description="a game with dice: the checkers stacked there (a piece is a stack)",
    )


class Step(BaseModel):
    """One checker's step of a play (a game with dice), on the board's squares."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    from_: str = Field(alias="from", description="the square it leaves: a point, or the bar")
    to: str = Field(description="the square it reaches: a point, or the side's tray (off)")
    hit: bool = Field(description="it hits a blot (backgammon), which goes to its bar")
    die: int = Field(description="the die it uses")


class MovePath(BaseModel):
    """A move and the squares it concerns, so a page can let a person click it."""

    move: str = Field(description="in the game's notation", examples=["15x24x31"])
    origin: str | None = Field(description="the square it starts from; null for a placement")
    target: str = Field(description="the square it ends on")
    path: list[str] = Field(
        description="the origin (if any) and every square it lands on, in order",
        examples=[["15", "24", "31"]],
    )
    captured: list[str] = Field(description="the squares of the pieces it takes, in order")
    steps: list[Step] | None = Field(
        None,
        exclude_if=_absent,
        description="a game with dice: the play's checker steps, in an order they can be made",
    )


class CubeActionView(BaseModel):
    ply: int = Field(description="the ply before whose roll it happened")
    side: Side
    action: str = Field(examples=["double", "take", "pass"])
    value: int = Field(description="the cube's value the double offers")


class CubeView(BaseModel):
    """The doubling cube of a money game (backgammon)."""

    value: int = Field(description="1, 2, 4 ...")
    owner: Side | None = Field(description="who may redouble; null while it is centred")
    offered_by: Side | None = Field(description="a double waiting for its answer")
    decision: Literal["double", "take"] | None = Field(
        description="what a person must say now: 'double' (double or roll, before the roll) or "
        "'take' (take or pass the double offered); null when nobody is asked"
    )
    decider: Side | None = Field(description="the side that must say it")
    jacoby: bool = Field(description="money play's Jacoby rule: no gammons while centred")
    actions: list[CubeActionView]


class GameState(BaseModel):
    """Everything the page needs to draw a game and let a person move."""

    id: str
    game: str = Field(description="the game's registry name: 'tigers' or 'draughts'")
    position: str = Field(description="the current position string")
    start: str = Field(description="the start position string")
    side_to_move: Side = Field(description="by the game's side names")
    board: list[Piece] = Field(description="every piece on the board, by square")
    tigers: list[str] | None = Field(
        None, description="Tigers & Sheep: points with a tiger, e.g. ['a1', 'e1', ...]"
    )
    sheep: list[str] | None = Field(None, description="Tigers & Sheep: points with a sheep")
    sheep_in_hand: int | None = Field(None, description="Tigers & Sheep only")
    captured: int | None = Field(None, description="Tigers & Sheep: sheep captured")
    ply: int = Field(description="moves played so far")
    moves: list[PlayedMove]
    legal_moves: list[str] = Field(description="in notation; empty once the game is over")
    legal_move_paths: list[MovePath] = Field(
        description="the legal moves (in the same order) with their squares"
    )
    last_move: MovePath | None = Field(description="the move that led here, null at the start")
    players: Players = Field(description="a player spec by side")
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
    dice: list[int] | None = Field(
        None, description="a game with dice: the dice thrown for the play to make; null before"
    )
    cube: CubeView | None = Field(None, description="backgammon: the doubling cube")


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


class GameInfo(BaseModel):
    """``GET /api/game``: the game this server plays, in the words its pages use."""

    name: str = Field(examples=[_SECOND.name])
    title: str = Field(examples=["English draughts"])
    drawing: str = Field(
        description="which board the page draws: 'tigers', 'draughts', 'backgammon', 'nardy'"
    )
    sides: list[Side] = Field(
        description="the first player (whose view scores take), then the second"
    )
    side_phrases: list[str] = Field(description="each side as a sentence names it")
    first_to_move: Side = Field(description="who moves first from the start")
    squares: list[str] = Field(description="every square's name, in the game's order")
    start: str = Field(description="the start position string")
    default_players: Players
    move_help: str
    position_example: str
    position_help: str
    view: str = Field(description="whose view scores take, in words", examples=["Black's view"])
    score_unit: str = Field(description="what a score of 1 is worth", examples=["men"])
    evaluation_scale: float = Field(description="a score that is a clear advantage")
    record_suffix: str = Field(description="the record file's suffix", examples=[".pdn"])
    dice: bool = Field(False, description="the game throws dice (the server throws them)")
    cube: bool = Field(False, description="the game has the doubling cube")
    ply_cap: int | None = Field(200, description="a new game's ply cap unless asked")


class Problem(BaseModel):
    """A 4xx answer: what is wrong, in words."""

    detail: str
