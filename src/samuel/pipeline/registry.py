"""The model registry: each network's file and hash, its status, and the promotion log.

``models.status`` is the one source of truth for "the active model of a game": the search, the
loop and every command read it, and nothing else says which model serves. A promotion is one
transaction: the old champion is retired, the new one made active and the log gets its entry
(who, why, when, the tournament), so the log and the statuses cannot disagree unless someone
edits the store by hand, which :func:`check` finds.

Model files live in the pipeline's folder, ``models/GAME-ID.bin``; the store keeps the path
relative to the folder, so the folder can move.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import socket
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import Connection, Row, func, select, update

from samuel.errors import SamuelError
from samuel.games import get_game
from samuel.games.networks import load_network, save_network

from .schema import Label, Model, Position, Promotion, Tournament, utc_now

MODELS_FOLDER = "models"


class RegistryError(SamuelError):
    """A registry operation that cannot be done: an unknown model, a model in the wrong state."""


def sha256_of(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def who() -> str:
    """The person and machine behind an act, for the log."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = f"uid {os.getuid()}"
    return f"{user}@{socket.gethostname()}"


def register_model(
    connection: Connection,
    folder: Path,
    game: str,
    params: np.ndarray,
    *,
    parent_id: int | None,
    status: str,
    training: dict,
    run_id: int | None,
) -> int:
    """Save ``params`` as a new model's file and register it; return its id. The file is written
    (atomically) inside the registering transaction: if that transaction does not commit, the
    file is an orphan that :func:`check` reports, never a model without its file."""
    model_id = connection.execute(
        Model.__table__.insert().returning(Model.id),
        {
            "game": game,
            "path": "",
            "sha256": "",
            "parent_id": parent_id,
            "status": status,
            "training": training,
            "run_id": run_id,
            "created_at": utc_now(),
        },
    ).scalar_one()
    relative = f"{MODELS_FOLDER}/{game}-{model_id:06d}.bin"
    (folder / MODELS_FOLDER).mkdir(parents=True, exist_ok=True)
    save_network(params, folder / relative, get_game(game).kernel_id)  # atomically
    connection.execute(
        update(Model)
        .where(Model.id == model_id)
        .values(path=relative, sha256=sha256_of(folder / relative))
    )
    return model_id


def get_model(connection: Connection, model_id: int) -> Row:
    row = connection.execute(select(Model.__table__).where(Model.id == model_id)).one_or_none()
    if row is None:
        raise RegistryError(f"no model {model_id} in the registry (samuel pipeline models)")
    return row


def active_model(connection: Connection, game: str, lock: bool = False) -> Row | None:
    """The active model of ``game``, or None before the first. Two active models are an error
    that :func:`check` explains."""
    query = select(Model.__table__).where(Model.game == game, Model.status == "active")
    if lock:
        query = query.with_for_update()
    rows = connection.execute(query).all()
    if len(rows) > 1:
        ids = ", ".join(str(row.id) for row in rows)
        raise RegistryError(
            f"{game} has {len(rows)} active models ({ids}): the store was changed by hand; "
            "`samuel pipeline check` says more, `samuel pipeline promote ID` settles it"
        )
    return rows[0] if rows else None


def model_file(folder: Path, model: Row) -> Path:
    """A model's file: its path in the store, confined to the folder's ``models/`` (a store
    edited by hand must not make the loop read any file it names)."""
    models = (Path(folder) / MODELS_FOLDER).resolve()
    path = (Path(folder) / model.path).resolve()
    if not model.path or path.parent != models:
        raise RegistryError(
            f"model {model.id}: its file {model.path!r} is not in {models} (the store was "
            "changed by hand?)"
        )
    return path


def load_model(folder: Path, model: Row) -> np.ndarray:
    """A model's parameters, after checking its file against the registry's hash."""
    path = model_file(folder, model)
    try:
        digest = sha256_of(path)
    except OSError as error:
        raise RegistryError(f"model {model.id}: cannot read {path}: {error.strerror}") from None
    if digest != model.sha256:
        raise RegistryError(
            f"model {model.id}: {path} does not match the registry's SHA-256 (changed since it was "
            "registered); `samuel pipeline check` lists every such file"
        )
    return load_network(path, get_game(model.game).kernel_id)


def promote(
    connection: Connection,
    model_id: int,
    *,
    who: str,
    why: str,
    tournament_id: int | None = None,
) -> int | None:
    """Make ``model_id`` its game's active model, in the caller's transaction: the champion is
    retired and the log gets an entry. Returns the previous champion's id (None if none)."""
    model = get_model(connection, model_id)
    if model.status == "active":
        raise RegistryError(f"model {model_id} is already the active {model.game} model")
    previous = active_model(connection, model.game, lock=True)
    if previous is not None:
        connection.execute(update(Model).where(Model.id == previous.id).values(status="retired"))
    connection.execute(update(Model).where(Model.id == model_id).values(status="active"))
    connection.execute(
        Promotion.__table__.insert(),
        {
            "game": model.game,
            "model_id": model_id,
            "previous_id": None if previous is None else previous.id,
            "tournament_id": tournament_id,
            "who": who,
            "why": why,
            "at": utc_now(),
        },
    )
    return None if previous is None else previous.id


def reject(connection: Connection, model_ids: list[int]) -> None:
    """Mark models rejected (kept in the registry; they can be gated again). The active model
    cannot be rejected: promote another first."""
    for model_id in model_ids:
        model = get_model(connection, model_id)
        if model.status == "active":
            raise RegistryError(
                f"model {model_id} is the active {model.game} model: promote another one first"
            )
    connection.execute(update(Model).where(Model.id.in_(model_ids)).values(status="rejected"))


def list_models(connection: Connection, game: str | None = None) -> list[Row]:
    query = select(Model.__table__).order_by(Model.id)
    if game is not None:
        query = query.where(Model.game == game)
    return list(connection.execute(query))


@dataclass(frozen=True)
class Problem:
    what: str  # a short kind: "file", "hash", "active", "log", "label", "key", "orphan"
    text: str

    @property
    def serious(self) -> bool:
        """An orphan file (left by a run killed while registering a model) harms nothing."""
        return self.what != "orphan"

    def __str__(self) -> str:
        return f"{self.what}: {self.text}"


KEY_CHUNK = 50_000  # positions read at a time by the key check


def _check_keys(connection: Connection) -> list[Problem]:
    """Every position's key against its game, source and state (a chunk of the primary key at a
    time): a state changed outside samuel, or damaged, would slip past the unique index."""
    from .store import STATE_BYTES, stored_keys

    wrong: list[int] = []
    last = 0
    while True:
        rows = connection.execute(
            select(Position.id, Position.game, Position.source, Position.state, Position.key)
            .where(Position.id > last)
            .order_by(Position.id)
            .limit(KEY_CHUNK)
        ).all()
        if not rows:
            break
        last = rows[-1].id
        whole = [row for row in rows if len(row.state) == STATE_BYTES]  # the rest are damaged
        wrong += [row.id for row in rows if len(row.state) != STATE_BYTES]
        wrong += [r.id for r, k in zip(whole, stored_keys(whole), strict=True) if r.key != k]
    if not wrong:
        return []
    first = ", ".join(str(i) for i in sorted(wrong)[:5])
    return [
        Problem(
            "key",
            f"{len(wrong)} positions do not match their keys (ids {first}"
            f"{', ...' if len(wrong) > 5 else ''}): changed outside samuel or damaged",
        )
    ]


def check(connection: Connection, folder: Path) -> list[Problem]:
    """Everything wrong with the store against the files: a missing or changed model file, more
    than one active model of a game, a promotion log that disagrees with the statuses or with
    itself, labels that point at the wrong position, positions whose state does not match their
    key, model files nobody registered."""
    problems: list[Problem] = []
    models = list_models(connection)
    for model in models:
        try:
            path = model_file(folder, model)
        except RegistryError as error:
            problems.append(Problem("file", str(error)))
            continue
        try:
            digest = sha256_of(path)
        except OSError as error:
            problems.append(Problem("file", f"model {model.id}: {path}: {error.strerror}"))
            continue
        if digest != model.sha256:
            problems.append(
                Problem("hash", f"model {model.id}: {path} does not match its SHA-256 (tampered?)")
            )
    games = sorted({model.game for model in models})
    for game in games:
        active = [m.id for m in models if m.game == game and m.status == "active"]
        if len(active) > 1:
            problems.append(Problem("active", f"{game} has {len(active)} active models: {active}"))
        log = connection.execute(
            select(Promotion.__table__).where(Promotion.game == game).order_by(Promotion.id)
        ).all()
        if not log:
            if active:
                problems.append(
                    Problem(
                        "log",
                        f"{game}: model {active[0]} is active but was "
                        "never promoted (no log entry)",
                    )
                )
            continue
        previous = None
        for entry in log:
            if entry.previous_id != previous:
                problems.append(
                    Problem(
                        "log",
                        f"{game}: log entry {entry.id} says model {entry.model_id} replaced "
                        f"{entry.previous_id}, but the entry before it made {previous} active",
                    )
                )
            previous = entry.model_id
        if active and log[-1].model_id not in active:
            problems.append(
                Problem(
                    "log",
                    f"{game}: the log's newest entry makes model {log[-1].model_id} "
                    f"active, but the registry says {active}",
                )
            )
        if not active:
            problems.append(
                Problem(
                    "log",
                    f"{game}: the log names model {log[-1].model_id} "
                    "active, but no model's status is active",
                )
            )
    mismatched = connection.execute(
        select(func.count())
        .select_from(Position)
        .join(Label, Label.id == Position.label_id)
        .where(Label.position_id != Position.id)
    ).scalar_one()
    dangling = connection.execute(
        select(func.count())
        .select_from(Position)
        .outerjoin(Label, Label.id == Position.label_id)
        .where(Position.label_id.is_not(None), Label.id.is_(None))
    ).scalar_one()
    if mismatched or dangling:
        problems.append(
            Problem(
                "label", f"{mismatched + dangling} positions point at a label that is not theirs"
            )
        )
    problems += _check_keys(connection)
    for tournament in connection.execute(select(Tournament.__table__)):
        if tournament.decision not in ("promote", "reject"):
            problems.append(Problem("log", f"tournament {tournament.id} has no decision"))
    registered = {model.path for model in models}
    files = folder / MODELS_FOLDER
    if files.is_dir():
        for path in sorted(files.glob("*.bin")):
            if f"{MODELS_FOLDER}/{path.name}" not in registered:
                problems.append(Problem("orphan", f"{path} is no registered model's file"))
    return problems
