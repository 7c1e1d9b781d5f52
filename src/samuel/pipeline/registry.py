"""The model registry: each network's file and hash, its status, and the promotion log.

``models.status`` is the one source of truth for "the active model of a game": the search, the
loop and every command read it, and nothing else says which model serves. A promotion is one
transaction: the old champion is retired, the new one made active and the log gets its entry
(who, why, when, the tournament), so the log and the statuses cannot disagree unless someone
edits the store by hand, which :func:`check` finds.

Model files live in the pipeline's folder, ``models/GAME-ID.bin``; the store keeps the path
relative to the folder, so the folder can move. The store *owns* the files it registers: a file
in ``models/`` that no model of the store names (another pipeline's, whose store was lost or
emptied) is never overwritten; ``samuel pipeline run`` refuses such a folder
(:func:`foreign_files`) and :func:`check` lists them.

**A model's file is put in place once its registration has committed.** It is written first
under a hidden name beside its place (``models/.GAME-ID.bin.runRUN.pending``), and its hash
registered with it; when the transaction commits the file is linked to its place (never over
another file), and when it does not the pending file is deleted. A run killed in between
leaves either a pending file whose registration never committed (hidden, harmless) or a
registered model whose file is still pending, which the next load of the model puts in place
(:func:`load_model`; :func:`check` reports it as a note).
"""

from __future__ import annotations

import errno
import getpass
import hashlib
import os
import socket
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import Connection, Row, func, select, update

from samuel.errors import SamuelError
from samuel.evaluation.networks import load_network_or_phases, save_any_network
from samuel.files import describe_os_error
from samuel.games import get_game

from .schema import Label, Model, Position, Promotion, Tournament, utc_now
from .store import StoreError, after_transaction

MODELS_FOLDER = "models"
ABLATIONS_FOLDER = "ablations"  # `samuel pipeline ablate`'s networks
MAX_ID = 2**31 - 1  # ids are 32-bit integers (PostgreSQL's integer): a larger one names nothing
PENDING = ".pending"  # the suffix of a model file written but not yet in its place
QUICK_CHECK_LIMIT = 100  # SQLite's quick_check stops after this many problems


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
    under a pending name inside the registering transaction and put in its place once that
    commits (the module's docstring); a file already at its place is never overwritten (it is
    another pipeline's: :class:`RegistryError`)."""
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
    final = Path(folder) / relative
    (Path(folder) / MODELS_FOLDER).mkdir(parents=True, exist_ok=True)
    if os.path.lexists(final):
        raise _taken(model_id, final)
    pending = final.with_name(f".{final.name}.run{run_id}{PENDING}")
    save_any_network(params, pending, get_game(game).number)  # atomically
    connection.execute(
        update(Model).where(Model.id == model_id).values(path=relative, sha256=sha256_of(pending))
    )

    def committed() -> None:
        _put_in_place(pending, final, model_id)

    def rolled_back() -> None:
        try:
            pending.unlink(missing_ok=True)
        except OSError:
            pass  # a hidden pending file harms nothing

    if not after_transaction(connection, committed, rolled_back):
        committed()  # not in Store.write: in place at once, as the caller's transaction goes on
    return model_id


def _taken(model_id: int, final: Path) -> RegistryError:
    return RegistryError(
        f"cannot register model {model_id}: {final} exists and no model of the store owns it "
        "(another pipeline's file?); move it away (`samuel pipeline check` lists such files)"
    )


def _put_in_place(pending: Path, final: Path, model_id: int) -> None:
    """Move a model's pending file to its place, never over another file."""
    try:
        os.link(pending, final)  # fails if ``final`` exists: nothing is overwritten
    except FileExistsError:
        raise _taken(model_id, final) from None
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        if os.path.lexists(final):  # a file system without hard links
            raise _taken(model_id, final) from None
        os.replace(pending, final)
        return
    pending.unlink()


def _pending_files(final: Path) -> list[Path]:
    return sorted(final.parent.glob(f".{final.name}.run*{PENDING}"))


def _recover(final: Path, model: Row) -> bool:
    """Put a registered model's pending file in place (a run was killed after the registration
    committed, before the file was moved); True if it did."""
    for pending in _pending_files(final):
        try:
            if sha256_of(pending) != model.sha256:
                continue
            _put_in_place(pending, final, model.id)
        except (OSError, RegistryError):
            continue
        return True
    return False


def get_model(connection: Connection, model_id: int) -> Row:
    row = None
    if 0 < model_id <= MAX_ID:  # a larger number would not even fit the query
        row = connection.execute(select(Model.__table__).where(Model.id == model_id)).one_or_none()
    if row is None:
        raise RegistryError(f"no model {model_id} in the registry (samuel pipeline models)")
    return row


def get_tournament(connection: Connection, tournament_id: int) -> Row:
    row = None
    if 0 < tournament_id <= MAX_ID:
        row = connection.execute(
            select(Tournament.__table__).where(Tournament.id == tournament_id)
        ).one_or_none()
    if row is None:
        raise RegistryError(f"no tournament {tournament_id} in the store (samuel pipeline status)")
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


def missing_file_text(model: Row, path: Path, error: OSError) -> str:
    """What a model file that cannot be read means, in words: which model, which file, why,
    and what follows."""
    if isinstance(error, FileNotFoundError):
        what = {
            "active": "the loop cannot run or gate against it until it is restored",
            "candidate": "it cannot be gated or promoted until it is restored",
            "rejected": "it cannot be gated again or promoted until it is restored",
            "retired": "it cannot be promoted again until it is restored",
        }.get(model.status, "it cannot be used until it is restored")
        return (
            f"model {model.id} ({model.game}, {model.status}): its file {model.path} is missing "
            f"({path}); {what} (from a backup: the registry has its SHA-256)"
        )
    return (
        f"model {model.id} ({model.game}, {model.status}): cannot read its file {path}: "
        f"{describe_os_error(error)}"
    )


def load_model(folder: Path, model: Row) -> np.ndarray:
    """A model's parameters, after checking its file against the registry's hash (a file still
    pending is put in place first: the module's docstring)."""
    path = model_file(folder, model)
    try:
        digest = sha256_of(path)
    except FileNotFoundError as error:
        if not _recover(path, model):
            raise RegistryError(missing_file_text(model, path, error)) from None
        digest = sha256_of(path)
    except OSError as error:
        raise RegistryError(missing_file_text(model, path, error)) from None
    if digest != model.sha256:
        raise RegistryError(
            f"model {model.id}: {path} does not match the registry's SHA-256 (changed since it was "
            "registered); `samuel pipeline check` lists every such file"
        )
    return load_network_or_phases(path, get_game(model.game).number)


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
    if tournament_id is not None:
        tournament = get_tournament(connection, tournament_id)
        if model_id not in (tournament.candidate_id, tournament.champion_id):
            raise RegistryError(
                f"tournament {tournament_id} was model {tournament.candidate_id} against "
                f"{tournament.champion_id}: model {model_id} did not play in it"
            )
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
    # a short kind: "file", "hash", "active", "log", "label", "key", "orphan", "pending"
    what: str
    text: str

    @property
    def serious(self) -> bool:
        """A model file still pending (a run killed as it registered the model) is put in place
        by the next load of the model: a note, not a problem."""
        return self.what != "pending"

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
    key, model files nobody registered. A SQLite file that is damaged (SQLite's own
    ``quick_check`` of every page and index) raises :class:`StoreError` before the rest."""
    if connection.dialect.name == "sqlite":
        said = [str(row[0]) for row in connection.exec_driver_sql("PRAGMA quick_check")]
        if said != ["ok"]:
            damage = [
                line.strip()
                for text in said
                for line in text.splitlines()
                if line.strip() and not line.startswith("***")  # "*** in database main ***"
            ] or ["(no detail)"]
            first = "".join(c if c.isprintable() else "?" for c in damage[0])[:200]
            raise StoreError(
                f"the store is damaged: SQLite's quick_check finds {len(damage)}"
                f"{' or more' if len(damage) >= QUICK_CHECK_LIMIT else ''} problem(s), "
                f"the first: {first}; restore it from a backup"
            )
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
            pending = (
                [p for p in _pending_files(path) if _same_hash(p, model.sha256)]
                if isinstance(error, FileNotFoundError)
                else []
            )
            if pending:
                problems.append(
                    Problem(
                        "pending",
                        f"model {model.id}: its file is still {pending[0]} (a run was killed as "
                        f"it registered the model); the next run or command that loads the model "
                        f"puts it in place at {path}",
                    )
                )
            else:
                problems.append(Problem("file", missing_file_text(model, path, error)))
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
    for path in foreign_files(folder, {model.path for model in models}):
        problems.append(Problem("orphan", orphan_text(folder, path)))
    return problems


def _same_hash(path: Path, sha256: str) -> bool:
    try:
        return sha256_of(path) == sha256
    except OSError:
        return False


def orphan_text(folder: Path, path: Path) -> str:
    """What a file the store does not own means, for ``check``."""
    return (
        f"{path} is in the pipeline's folder, but no model of the store owns it (another "
        f"pipeline's, whose store was lost or replaced?): `samuel pipeline run` refuses the "
        f"folder {folder} until it is moved away"
    )


def _visible(folder: Path) -> list[Path]:
    """The entries of ``folder`` but the hidden ones (pending and temporary files), sorted."""
    try:
        entries = list(folder.iterdir())
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        return [folder]
    return sorted(p for p in entries if not p.name.startswith("."))


def foreign_files(folder: Path, registered: set[str] | None) -> list[Path]:
    """The pipeline output in ``folder`` that a store with the models ``registered`` (their
    paths; None: a store that holds no pipeline) does not own: every entry of ``models/`` that
    is no registered model's file, and, when the store holds no pipeline, the ablations'
    networks too. Hidden files (pending, temporary) are left out."""
    folder = Path(folder)
    known = registered or set()
    found = [
        path
        for path in _visible(folder / MODELS_FOLDER)
        if f"{MODELS_FOLDER}/{path.name}" not in known
    ]
    if registered is None:
        found += _visible(folder / ABLATIONS_FOLDER)
    return found
