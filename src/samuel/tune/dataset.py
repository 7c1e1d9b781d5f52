"""Labelled positions: every position of many self-play games with the game's result.

``samuel selfplay --games N --out FILE`` plays the games with the compiled self-play of
:mod:`samuel.train.selfplay` (a classic or network player against itself, in parallel, each game
seeded by (run seed, game number) only, so the file is the same on any number of workers) and
writes one ``.npz`` file (NumPy's zip of arrays), atomically. One row per position where a move
was played:

=================  ========  ==============================================================
array              dtype     meaning
=================  ========  ==============================================================
``states``         int64     the kernels' position: tigers mask, sheep mask, in hand, tiger
                             to move (``Position.decode`` turns a row back into a position)
``results``        int8      the game's result, tigers' view: 1, 0 (a draw), -1
``games``          int32     the game's number in the file (0 .. games - 1)
``plies``          int16     the ply of the position in its game (0 is the start)
``random_moves``   bool      the move played there was random (opening plies or epsilon)
``scores``         float32   the search's score there, clamped to -1..1, tigers' view
``config``         str       the :class:`SelfPlayDataConfig` that made the file, as JSON
=================  ========  ==============================================================

Every tuner and trainer reads it with :func:`load_positions`.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from samuel.errors import SamuelError
from samuel.files import write_atomically
from samuel.games import kernels as games
from samuel.games.tigers.rules import RULES, Position
from samuel.seeds import derive_seed
from samuel.train.selfplay import play_selfplay

from .config import SelfPlayDataConfig

DATA_STREAM = 0xDA7A  # keeps these games' seeds apart from training's and matches'
CHUNK = 50  # games per compiled call, so that progress can be shown
STATE_WORDS = games.GAMES[games.TIGERS_AND_SHEEP].state_words  # a row of ``states``: 4 words
ARRAYS = {
    "states": np.int64,
    "results": np.int8,
    "games": np.int32,
    "plies": np.int16,
    "random_moves": np.bool_,
    "scores": np.float32,
}


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

    def subset(self, mask: np.ndarray) -> LabelledPositions:
        """The rows where ``mask`` is true."""
        return LabelledPositions(*(getattr(self, name)[mask] for name in ARRAYS), self.config)


def data_game_seed(seed: int, game: int) -> int:
    """Game ``game``'s seed in the run with seed ``seed``: from these two numbers only."""
    return derive_seed(seed, game, DATA_STREAM)


def selfplay_player(spec: str) -> tuple[int, np.ndarray, int]:
    """The evaluator, parameters and depth of a searching player's spec (raises
    :class:`samuel.players.PlayerSpecError` or :class:`ValueError` for one that cannot play
    reproducible self-play)."""
    from samuel.players import SearchPlayer, make_player

    player = make_player(spec, RULES)
    if not isinstance(player, SearchPlayer):
        raise ValueError(
            f"{spec!r} does not search; self-play needs a classic, network or hybrid player"
        )
    if player.seconds is not None:
        raise ValueError(
            f"{spec!r} searches by time; self-play searches to a depth, so that the "
            "games can be played again"
        )
    if player.epsilon:
        raise ValueError(f"{spec!r} sets epsilon; give self-play's --epsilon instead")
    return player.evaluator, player.params, player.depth


def make_positions(
    config: SelfPlayDataConfig, progress: Callable[[int], None] | None = None
) -> LabelledPositions:
    """Play the games and collect their positions; ``progress(games done)`` after each chunk."""
    evaluator, params, depth = selfplay_player(config.player)
    if config.workers is not None:
        numba.set_num_threads(min(config.workers, numba.config.NUMBA_NUM_THREADS))
    root = Position.initial().encode()
    seeds = np.array([data_game_seed(config.seed, g) for g in range(config.games)], dtype=np.int64)
    rows: dict[str, list[np.ndarray]] = {name: [] for name in ARRAYS}
    for start in range(0, config.games, CHUNK):
        part = play_selfplay(
            games.TIGERS_AND_SHEEP,
            evaluator,
            params,
            root,
            depth,
            config.random_plies,
            config.epsilon,
            config.ply_cap,
            seeds[start : start + CHUNK],
        )
        for g in range(len(part.plies)):
            n = int(part.plies[g])
            rows["states"].append(part.positions[g, :n])
            rows["results"].append(np.full(n, part.results[g]))
            rows["games"].append(np.full(n, start + g))
            rows["plies"].append(np.arange(n))
            rows["random_moves"].append(part.random_moves[g, :n])
            rows["scores"].append(part.scores[g, :n])
        if progress is not None:
            progress(min(config.games, start + CHUNK))
    arrays = {name: np.concatenate(rows[name]).astype(dtype) for name, dtype in ARRAYS.items()}
    arrays["states"] = arrays["states"].reshape(-1, STATE_WORDS)
    return LabelledPositions(**arrays, config=dataclasses.asdict(config))


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


def load_positions(path: str | os.PathLike) -> LabelledPositions:
    """Read a data set; raise :class:`DatasetError` saying what is wrong with a bad one."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as file:
            contents = {name: file[name] for name in file.files}
    except FileNotFoundError:
        raise DatasetError(f"labelled positions file {path} does not exist") from None
    except (OSError, ValueError) as error:  # not a zip, or a damaged one
        raise DatasetError(f"{path} is not a labelled positions file (.npz): {error}") from None
    missing = [name for name in (*ARRAYS, "config") if name not in contents]
    if missing:
        raise DatasetError(
            f"{path} lacks {', '.join(missing)}: not a labelled positions file "
            "(samuel selfplay writes them)"
        )
    count = len(contents["results"])
    for name, dtype in ARRAYS.items():
        shape = (count, STATE_WORDS) if name == "states" else (count,)
        if contents[name].shape != shape or contents[name].dtype != dtype:
            raise DatasetError(
                f"{path}: {name} is {contents[name].dtype}{contents[name].shape}, "
                f"expected {np.dtype(dtype)}{shape}"
            )
    if count == 0:
        raise DatasetError(f"{path} holds no positions")
    if not np.isin(contents["results"], (-1, 0, 1)).all():
        raise DatasetError(f"{path}: results must be 1, 0 or -1")
    config = json.loads(str(contents.pop("config")))
    return LabelledPositions(**contents, config=config)


SPLIT_STREAM = 0x5B17  # keeps the split's random numbers apart from everything else


def split_by_game(game_ids: np.ndarray, validation: float, seed: int) -> np.ndarray:
    """A mask of the positions held out for validation: every position of a random
    ``validation`` share of the games (at least one game, and at least one left to train on),
    so that no game has positions on both sides. The games drawn depend on ``seed`` only."""
    if not 0.0 < validation < 1.0:
        raise ValueError(f"the validation share must be between 0 and 1, not {validation}")
    ids = np.unique(game_ids)
    if len(ids) < 2:
        raise ValueError("splitting by game needs positions from at least two games")
    count = min(len(ids) - 1, max(1, round(validation * len(ids))))
    rng = np.random.default_rng([seed, SPLIT_STREAM])
    held_out = rng.permutation(ids)[:count]
    return np.isin(game_ids, held_out)
