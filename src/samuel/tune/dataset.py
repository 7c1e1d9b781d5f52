"""Labelled positions: every position of many self-play games with the game's result.

``samuel selfplay --games N --out FILE`` plays the games with the compiled self-play of
:mod:`samuel.train.selfplay` (a classic or network player against itself, in parallel, each game
seeded by (run seed, game number) only, so the file is the same on any number of workers) and
writes one ``.npz`` file (NumPy's zip of arrays), atomically. One row per position where a move
was played:

=================  ========  ==============================================================
array              dtype     meaning
=================  ========  ==============================================================
``states``         int64     the kernels' position (``Position.decode`` turns a row back into
                             a position): for Tigers & Sheep 4 words, tigers mask, sheep mask,
                             in hand, tiger to move; for draughts 5, black mask, white mask,
                             kings mask, black to move, quiet plies (the 40-move count); for
                             long nardy 4, each side's checkers, the turn and the dice rolled
``results``        int8      the game's result, the first player's view (tigers, Black,
                             White): 1, 0 (a draw), -1; in a game whose wins score more
                             (long nardy), the points: 1 a win, 2 a mars, 3 a koks
``games``          int32     the game's number in the file (0 .. games - 1)
``plies``          int16     the ply of the position in its game (0 is the start)
``random_moves``   bool      the move played there was random (opening plies or epsilon)
``scores``         float32   the search's score there, clamped to -1..1, the first player's view
``config``         str       the :class:`SelfPlayDataConfig` that made the file, as JSON; its
                             ``game`` names the game (a file without one is Tigers & Sheep's)
=================  ========  ==============================================================

Every tuner and trainer reads it with :func:`load_positions`, which trusts nothing in the file:
the rows go into compiled kernels, which do no bounds checks, so every array is checked for its
dtype, shape and values (the game's own checks of a position, counts in range, results and
scores in range) before it is used, and a bad one is named with its first bad row. A file of
another game than the one asked for is refused.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import struct
import tokenize
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from samuel.backends import Backend, LocalBackend
from samuel.errors import CommandError, SamuelError
from samuel.files import FileError, open_regular, write_atomically
from samuel.games import kernels as games
from samuel.games.states import STATE_PROBLEMS
from samuel.seeds import derive_seed
from samuel.train.selfplay import (
    SelfPlayGames,
    SelfPlaySettings,
    play_selfplay,
    play_selfplay_parts,
)

from .config import DEFAULT_GAME, SelfPlayDataConfig
from .games import UNIT, tuning_game

DATA_STREAM = 0xDA7A  # keeps these games' seeds apart from training's and matches'
CHUNK = 50  # games per compiled call, so that progress can be shown
ARRAYS = {
    "states": np.int64,
    "results": np.int8,
    "games": np.int32,
    "plies": np.int16,
    "random_moves": np.bool_,
    "scores": np.float32,
}


# The most positions a file may hold. Tuning keeps every row and its features in memory (about
# 100 bytes a position), so 50 million (about 800,000 games, 80 times the documented run) is
# about 5 GB: larger than any run needs, small enough to be refused before it fills memory.
MAX_POSITIONS = 50_000_000
# A row's bytes in the game with the widest states (draughts: 5 words of 8 bytes).
ROW_BYTES = sum(np.dtype(dtype).itemsize for dtype in ARRAYS.values()) + (games.STATE_SIZE - 1) * 8
MAX_CONFIG_BYTES = 1 << 20  # the config is a few hundred bytes of JSON
# A compressed .npz is no bigger than its arrays stored plainly, plus the zip's headers.
MAX_FILE_BYTES = MAX_POSITIONS * ROW_BYTES + MAX_CONFIG_BYTES + (1 << 20)
NPY_HEADER_BYTES = 10_000  # numpy's own limit on an array's header
# Exceptions that zipfile and numpy raise while decoding damaged bytes. The ``try`` that catches
# them holds only the decoding of the file (whose own checks raise DatasetError, passed on as it
# is), so that a bug elsewhere still shows as one.
DAMAGED = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    OSError,
    ValueError,
    struct.error,
    NotImplementedError,  # a compression method zipfile does not know
    RuntimeError,  # an encrypted member; RecursionError, a header nested too deep
    SyntaxError,  # numpy's parsing of an array's header
    tokenize.TokenError,
)


class DatasetError(SamuelError, ValueError):
    """A labelled-positions file that cannot be used."""


@dataclass(frozen=True)
class LabelledPositions:
    """The rows of a data set (see the module's table): equal-length arrays."""

    states: np.ndarray
    results: np.ndarray
    games: np.ndarray
    plies: np.ndarray
    random_moves: np.ndarray
    scores: np.ndarray
    config: dict

    def __len__(self) -> int:
        return len(self.results)

    @property
    def game(self) -> str:
        """The game's registry name, as the config records it (none: Tigers & Sheep)."""
        return self.config.get("game", DEFAULT_GAME)

    def subset(self, mask: np.ndarray) -> LabelledPositions:
        """The rows where ``mask`` is true."""
        return LabelledPositions(*(getattr(self, name)[mask] for name in ARRAYS), self.config)


def data_game_seed(seed: int, game: int) -> int:
    """Game ``game``'s seed in the run with seed ``seed``: from these two numbers only."""
    return derive_seed(seed, game, DATA_STREAM)


def selfplay_player(spec: str, game: str = DEFAULT_GAME) -> tuple[int, np.ndarray, int]:
    """The evaluator, parameters and depth of a searching player's spec for ``game`` (raises
    :class:`samuel.players.PlayerSpecError` or :class:`ValueError` for one that cannot play
    reproducible self-play)."""
    from samuel.players import SearchPlayer, make_player

    player = make_player(spec, tuning_game(game).rules)
    if not isinstance(player, SearchPlayer):
        raise CommandError(
            f"{spec!r} does not search; self-play needs a classic, network or hybrid player"
        )
    if player.seconds is not None:
        raise CommandError(
            f"{spec!r} searches by time; self-play searches to a depth, so that the "
            "games can be played again"
        )
    if player.epsilon:
        raise CommandError(f"{spec!r} sets epsilon; give self-play's --epsilon instead")
    return player.evaluator, player.params, player.depth


def make_positions(
    config: SelfPlayDataConfig,
    progress: Callable[[int], None] | None = None,
    backend: Backend | None = None,
) -> LabelledPositions:
    """Play the games and collect their positions; ``progress(games done)`` after each chunk.

    The games are played on this machine's threads, or, with a cluster ``backend``
    (:mod:`samuel.backends`), as its units: the same file either way, since a game depends on
    its seed alone."""
    game = tuning_game(config.game)
    evaluator, params, depth = selfplay_player(config.player, config.game)
    if config.workers is not None:
        numba.set_num_threads(min(config.workers, numba.config.NUMBA_NUM_THREADS))
    root = np.asarray(game.rules.encode(game.rules.initial_position()), dtype=np.int64)
    seeds = np.array([data_game_seed(config.seed, g) for g in range(config.games)], dtype=np.int64)
    rows: dict[str, list[np.ndarray]] = {name: [] for name in ARRAYS}
    settings = SelfPlaySettings(
        game=game.number,
        evaluator=evaluator,
        params=params,
        root=root,
        depth=depth,
        random_plies=config.random_plies,
        epsilon=config.epsilon,
        ply_cap=config.ply_cap,
    )
    if backend is None or isinstance(backend, LocalBackend):
        for start in range(0, config.games, CHUNK):
            _add_rows(rows, play_selfplay(settings, seeds[start : start + CHUNK]), start)
            if progress is not None:
                progress(min(config.games, start + CHUNK))
    else:
        start = 0
        for part in play_selfplay_parts(backend, settings, seeds, progress):
            _add_rows(rows, part, start)
            start += len(part.plies)
    arrays = {name: np.concatenate(rows[name]).astype(dtype) for name, dtype in ARRAYS.items()}
    arrays["states"] = arrays["states"].reshape(-1, game.state_words)
    return LabelledPositions(**arrays, config=dataclasses.asdict(config))


def _add_rows(rows: dict[str, list[np.ndarray]], part: SelfPlayGames, start: int) -> None:
    """The positions of ``part``'s games (numbered from ``start``) added to ``rows``."""
    for g in range(len(part.plies)):
        n = int(part.plies[g])
        rows["states"].append(part.positions[g, :n])
        rows["results"].append(np.full(n, part.results[g]))
        rows["games"].append(np.full(n, start + g))
        rows["plies"].append(np.arange(n))
        rows["random_moves"].append(part.random_moves[g, :n])
        rows["scores"].append(part.scores[g, :n])


def save_positions(data: LabelledPositions, path: str | os.PathLike) -> None:
    """Write the data set as a compressed ``.npz``, atomically (never half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        **{name: getattr(data, name) for name in ARRAYS},
        config=np.array(json.dumps(data.config)),
    )
    write_atomically(path, buffer.getvalue())


def load_positions(path: str | os.PathLike, game: str | None = None) -> LabelledPositions:
    """Read a data set of ``game`` (a registry name; None: of any game); raise
    :class:`DatasetError` saying what is wrong with a bad one, or with one of another game.

    Only a regular file of at most ``MAX_FILE_BYTES`` is opened (a FIFO or a folder is refused at
    once), the config is read first (it names the game, and so the states' width), every array's
    header is checked before its data is read (so a header claiming a huge array allocates
    nothing), and the values are checked as :func:`check_positions` says. The messages never
    quote the file's bytes.
    """
    path = Path(path)
    try:
        with open_regular(path, "labelled positions file", MAX_FILE_BYTES) as file:
            contents = _read_arrays(file, path, game)
    except FileError as error:
        raise DatasetError(str(error)) from None
    data = LabelledPositions(**contents)
    problem = check_positions(data)
    if problem is not None:
        raise DatasetError(f"{path}: {problem}")
    return data


def _read_arrays(file, path: Path, game: str | None) -> dict:
    """The arrays of an ``.npz`` (with ``config`` decoded and its game checked against ``game``),
    their dtypes and shapes checked."""
    not_npz = f"{path} is not a labelled positions file (.npz from samuel selfplay)"
    try:
        archive = zipfile.ZipFile(file)
        members = {info.filename: info for info in archive.infolist()}
    except DAMAGED:
        raise DatasetError(f"{not_npz}: it is not a zip file, or a truncated one") from None
    with archive:
        missing = [name for name in (*ARRAYS, "config") if f"{name}.npy" not in members]
        if missing:
            raise DatasetError(
                f"{path} lacks {', '.join(missing)}: not a labelled positions file "
                "(samuel selfplay writes them)"
            )
        contents: dict = {}
        rows = None
        words = tuning_game(DEFAULT_GAME).state_words  # until the config names the game
        for name in ("config", "results", *(name for name in ARRAYS if name != "results")):
            member = members[f"{name}.npy"]
            try:
                with archive.open(member) as stream:
                    contents[name] = _read_array(stream, name, rows, words, path)
            except DatasetError:
                raise
            except DAMAGED:
                raise DatasetError(
                    f"{path}: the array {name} is damaged (a truncated or corrupt file)"
                ) from None
            if name == "config":
                contents[name] = _read_config(contents[name], path, game)
                words = tuning_game(contents[name].get("game", DEFAULT_GAME)).state_words
            if name == "results":
                rows = len(contents[name])
    return contents


def _read_config(text: np.ndarray, path: Path, game: str | None) -> dict:
    """The config decoded from its JSON, naming a game the tuner knows (``game``, if given)."""
    try:
        config = json.loads(str(text))
    except (ValueError, RecursionError):  # RecursionError: nested too deep to decode
        raise DatasetError(f"{path}: config is not JSON") from None
    if not isinstance(config, dict):
        raise DatasetError(f"{path}: config is not a JSON object")
    recorded = config.get("game", DEFAULT_GAME)
    if not isinstance(recorded, str) or recorded not in UNIT:
        raise DatasetError(
            f"{path}: config names no game this program tunes (the games are {', '.join(UNIT)})"
        )
    if game is not None and recorded != game:
        theirs, ours = tuning_game(recorded), tuning_game(game)
        raise DatasetError(
            f"{path} holds positions of {theirs.title}, not {ours.title} (its game is "
            f"--game {theirs.name})"
        )
    return config


def _read_array(stream, name: str, rows: int | None, words: int, path: Path) -> np.ndarray:
    """One ``.npy`` member: its header checked against what ``name`` must be (``rows`` rows,
    once known from ``results``; states of ``words`` words) before exactly its data is read."""
    version = np.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream, NPY_HEADER_BYTES)
    elif version in ((2, 0), (3, 0)):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream, NPY_HEADER_BYTES)
    else:
        raise DatasetError(f"{path}: the array {name} is in an unknown .npy format version")
    if name == "config":
        if shape != () or dtype.kind != "U" or dtype.itemsize > MAX_CONFIG_BYTES:
            raise DatasetError(f"{path}: config is not a string of JSON")
    else:
        expected_dtype = np.dtype(ARRAYS[name])
        count = rows if rows is not None else (shape[0] if len(shape) == 1 else -1)
        expected = (count, words) if name == "states" else (count,)
        if dtype != expected_dtype or shape != expected:
            described = "x".join(str(size) for size in shape) or "a scalar"
            rows_of = "one row" if name != "states" else f"rows of {words}"
            raise DatasetError(
                f"{path}: {name} is {dtype} of shape ({described}), expected "
                f"{expected_dtype} with {rows_of} per position, as many as results has"
            )
        if not 0 < count <= MAX_POSITIONS:
            raise DatasetError(
                f"{path} holds no positions"
                if count == 0
                else f"{path} holds {count:,} positions, more than {MAX_POSITIONS:,}"
            )
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    data = stream.read(size)
    if len(data) != size:
        raise EOFError  # reported as damaged by the caller
    array = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    return np.array(array)  # writable and C-ordered, like every other array of the program


def check_positions(data: LabelledPositions) -> str | None:
    """What is wrong with the first bad row of ``data``, or None if every row is a possible
    position with a result, score and ply in range. Assumes the dtypes and shapes are right
    (:func:`load_positions` checks them)."""
    if data.game not in UNIT:
        return "config names no game this program tunes"
    game = tuning_game(data.game)
    problem = game.state_problem(data.states)
    if problem is not None:
        return problem
    most = game.max_points
    rule = "a result is 1, 0 or -1" if most == 1 else f"a result is -{most} to {most} points"
    checks = (
        ("results", np.abs(data.results.astype(np.int64)) > most, rule),
        ("games", data.games < 0, "a game number is not negative"),
        ("plies", data.plies < 0, "a ply is not negative"),
        ("random_moves", data.random_moves.view(np.uint8) > 1, "a flag is true or false"),
        ("scores", ~(np.abs(data.scores) <= 1.0), "a score is a finite number in -1..1"),
    )
    for name, bad, rule in checks:
        if bad.any():
            return f"{name} row {int(np.argmax(bad))} is out of range ({rule})"
    return None


assert set(UNIT) <= set(STATE_PROBLEMS), "every game the tuner knows checks its states"


SPLIT_STREAM = 0x5B17  # keeps the split's random numbers apart from everything else


def split_by_game(game_ids: np.ndarray, validation: float, seed: int) -> np.ndarray:
    """A mask of the positions held out for validation: every position of a random
    ``validation`` share of the games (at least one game, and at least one left to train on),
    so that no game has positions on both sides. The games drawn depend on ``seed`` only."""
    if not 0.0 < validation < 1.0:
        raise ValueError(f"the validation share must be between 0 and 1, not {validation}")
    ids = np.unique(game_ids)
    if len(ids) < 2:
        raise DatasetError("splitting by game needs positions from at least two games")
    count = min(len(ids) - 1, max(1, round(validation * len(ids))))
    rng = np.random.default_rng([seed, SPLIT_STREAM])
    held_out = rng.permutation(ids)[:count]
    return np.isin(game_ids, held_out)


def load_many(paths: tuple[str, ...], game: str) -> LabelledPositions:
    """The positions of several data sets of ``game`` (games of different players, say) as
    one: each file's games numbered after the previous file's, so that a game stays one game
    when the data is split. The config records each file's (``parts``)."""
    parts = [load_positions(path, game) for path in paths]
    offset = 0
    games_ = []
    for part in parts:
        games_.append(part.games.astype(np.int64) + offset)
        offset += int(part.games.max()) + 1
    if offset > np.iinfo(np.int32).max:
        raise DatasetError("the data sets hold more games than can be numbered")
    arrays = {name: np.concatenate([getattr(part, name) for part in parts]) for name in ARRAYS}
    arrays["games"] = np.concatenate(games_).astype(np.int32)
    config = {
        "game": game,
        "parts": [{"file": str(p), **part.config} for p, part in zip(paths, parts, strict=True)],
    }
    return LabelledPositions(**arrays, config=config)


def unique_positions(states: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct position of ``states`` once, in the order of first appearance, with the
    mean of its targets: a position met in many games (an opening, above all) would otherwise
    weigh as many times, and its games' results are samples of one value."""
    if len(states) == 0:
        return states, targets
    _, first, inverse = np.unique(states, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    sums = np.bincount(inverse, weights=targets)
    counts = np.bincount(inverse)
    order = np.argsort(first, kind="stable")
    return states[first[order]], (sums / counts)[order]


def seen_in(states: np.ndarray, known: np.ndarray) -> np.ndarray:
    """A mask of the rows of ``states`` that are rows of ``known`` too."""
    both = np.concatenate([known, states])
    _, inverse = np.unique(both, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    return np.isin(inverse[len(known) :], inverse[: len(known)])
