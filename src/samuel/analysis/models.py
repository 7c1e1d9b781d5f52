"""Which model gave an answer: the weights file a player spec reads, known by its SHA-256 (the
file's, so that ``sha256sum FILE`` checks it), or by the pipeline registry's id when the player
is a pipeline's active model (:class:`PipelineModels`, ``champion``).
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from samuel.errors import SamuelError
from samuel.evaluation.networks import shipped_network
from samuel.games.base import GameRules
from samuel.players import PlayerSpec

CHAMPION = "champion"  # the player spec naming a pipeline's active model
_DIGESTS: dict[tuple[int, int, int, int], str] = {}  # (device, inode, mtime, size) -> SHA-256
_DIGESTS_KEPT = 256
_lock = threading.Lock()


class ModelUnavailable(SamuelError):
    """The pipeline has no active model now, or its file is not the registered one."""


@dataclass(frozen=True)
class ModelIdentity:
    player: str
    id: int | None = None
    file: str | None = None
    sha256: str | None = None


def file_sha256(path: str | os.PathLike) -> str:
    """The file's SHA-256, remembered while its size and modification time stay the same."""
    info = os.stat(path)
    key = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)  # the file, not its name
    with _lock:
        found = _DIGESTS.get(key)
    if found is not None:
        return found
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    found = digest.hexdigest()
    with _lock:
        if len(_DIGESTS) >= _DIGESTS_KEPT:
            _DIGESTS.clear()
        _DIGESTS[key] = found
    return found


def network_file(spec: PlayerSpec, rules: GameRules) -> Path | None:
    """The one network file ``spec`` plays by (a ``FILE.bin``, ``net=FILE``, the shipped network
    for ``net`` and the hybrid), or None (classic, random, two files)."""
    files = [Path(named.path) for named in spec.files() if named.kind == "network file"]
    if not files and spec.name in ("net", "hybrid"):
        shipped = shipped_network(rules.number)
        files = [] if shipped is None else [Path(shipped)]
    return files[0] if len(files) == 1 else None


def identify(
    spec: str, player, rules: GameRules, model_id: int | None = None, shown: str | None = None
) -> ModelIdentity:
    """Which model ``player`` (made from ``spec``; ``shown`` is how the asker named it) is: its
    network file's name and SHA-256, or with no such file the SHA-256 of its parameters;
    ``model_id`` the registry's id."""
    shown = spec if shown is None else shown
    path = network_file(PlayerSpec.parse(spec), rules)
    if path is not None:
        return ModelIdentity(shown, model_id, path.name, file_sha256(path))
    params = getattr(player, "params", None)
    if isinstance(params, np.ndarray):
        return ModelIdentity(shown, model_id, None, hashlib.sha256(params.tobytes()).hexdigest())
    return ModelIdentity(shown, model_id)


class PipelineModels:
    """A pipeline's registry, read for its game's active model at each question, so that a
    ``samuel pipeline promote`` is seen by the next request without a restart."""

    def __init__(self, folder: str | os.PathLike, game: str, db: str | None = None) -> None:
        from samuel.pipeline.store import Store, database_url

        self.folder = Path(folder)
        self.game = game
        self.store = Store.open(database_url(db, folder), read_only=True, create=False)
        self.models = (self.folder / "models").resolve()

    def active(self) -> tuple[int, Path, str]:
        """The active model's id, file and registered SHA-256; raises
        :class:`ModelUnavailable` when there is none or its file is not the registered one."""
        from samuel.pipeline import registry

        try:
            with self.store.read() as connection:
                model = registry.active_model(connection, self.game)
            path = registry.model_file(self.folder, model) if model is not None else None
        except registry.RegistryError as error:
            raise ModelUnavailable(str(error)) from None
        if model is None:
            raise ModelUnavailable(
                f"the pipeline in {self.folder} has no active {self.game} model yet"
            )
        try:
            digest = file_sha256(path)
        except OSError as error:
            raise ModelUnavailable(registry.missing_file_text(model, path, error)) from None
        if digest != model.sha256:
            raise ModelUnavailable(
                f"model {model.id}: {path.name} does not match the registry's SHA-256"
            )
        return int(model.id), path, digest

    def close(self) -> None:
        self.store.close()
