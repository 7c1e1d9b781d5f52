"""Reading and writing files safely: atomic writes, and reads that open regular files only.

- :func:`write_atomically` writes to a temporary file in the same folder, then renames it over
  the target: a reader sees the old file or the whole new one, never half of one.
- :func:`open_regular` opens a file for reading only if it is a regular file no bigger than a
  limit, checked *before* anything is read: a FIFO, a device (``/dev/zero``) or a folder is
  refused at once instead of hanging or filling memory.
- :func:`describe_os_error` says an ``OSError`` in words instead of ``[Errno 21] ...``.
- :func:`check_output_path` and :func:`check_output_folder` check, before a long piece of work,
  that its output can be written; :func:`save_or_keep` writes it and,
  if that still fails (the disk filled meanwhile), keep it in the system's temporary folder and
  say where: output that took minutes or hours to make is never lost to a late write failure.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from samuel.errors import FileError

REASONS = {
    errno.ENOENT: "it does not exist",
    errno.EISDIR: "it is a folder",
    errno.ENOTDIR: "a part of its path is not a folder",
    errno.EEXIST: "it already exists",
    errno.EACCES: "permission denied",
    errno.EPERM: "the operation is not permitted",
    errno.ENOSPC: "no space is left on the device",
    errno.EROFS: "the file system is read-only",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ELOOP: "it is a loop of symbolic links",
}


def describe_os_error(error: OSError) -> str:
    """The reason an operation failed, in words (``it is a folder``, not ``[Errno 21] ...``)."""
    return REASONS.get(error.errno, error.strerror or str(error))


def file_error(action: str, path: str | os.PathLike, error: OSError) -> FileError:
    """A :class:`FileError` saying ``cannot ACTION PATH: REASON``."""
    return FileError(f"cannot {action} {os.fspath(path)}: {describe_os_error(error)}")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def format_size(size: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def open_regular(path: str | os.PathLike, what: str, max_bytes: int) -> BinaryIO:
    """``path`` opened for binary reading, after checking that it is a regular file of at most
    ``max_bytes``; ``what`` names it in errors ("weights file"). Opening does not block (a FIFO
    with no writer is refused, not waited on). Raises :class:`FileError`."""
    name = os.fspath(path)
    try:
        descriptor = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise file_error(f"read the {what}", name, error) from None
    except ValueError:  # a NUL character, which no path can hold
        raise FileError(f"cannot read the {what} {name!r}: a path cannot hold a NUL") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise FileError(f"the {what} {name} is {_kind(info.st_mode)}, not a regular file")
        if info.st_size > max_bytes:
            raise FileError(
                f"the {what} {name} is {format_size(info.st_size)}, more than a {what} can be "
                f"({format_size(max_bytes)})"
            )
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_regular(path: str | os.PathLike, what: str, max_bytes: int) -> bytes:
    """The bytes of ``path``, checked as :func:`open_regular` checks it."""
    with open_regular(path, what, max_bytes) as file:
        try:
            return file.read(max_bytes + 1)[:max_bytes]
        except OSError as error:
            raise file_error(f"read the {what}", path, error) from None


def read_text(path: str | os.PathLike, what: str, max_bytes: int) -> str:
    """The text of ``path`` (UTF-8), checked as :func:`open_regular` checks it."""
    data = read_regular(path, what, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FileError(
            f"the {what} {os.fspath(path)} is not UTF-8 text (byte {error.start})"
        ) from None


def write_atomically(path: str | os.PathLike, data: bytes | str) -> None:
    """Write ``data`` (text is written as UTF-8 with ``\\n`` line ends) to ``path`` via a
    temporary file in the same folder renamed into place; the folder is created if missing.
    On failure no temporary file is left behind and :class:`FileError` says why."""
    path = Path(path)
    content = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
        )
    except OSError as error:
        raise file_error("write", path, error) from None
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(content)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o644)  # mkstemp makes it private; these files are for sharing
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise file_error("write", path, error) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _check_folder_accepts_files(folder: Path, action: str) -> None:
    """Raise :class:`FileError` ("cannot ACTION: ...") unless new files can be made in ``folder``,
    or in the nearest folder above it that exists when it does not (``write_atomically`` creates
    the missing ones). Tries it with a probe file that it removes at once."""
    existing = folder
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        where = "its folder" if existing == folder else "a part of its path"
        raise FileError(f"cannot {action}: {where}, {existing}, is not a folder")
    try:
        handle, probe = tempfile.mkstemp(dir=existing, prefix=".samuel-check-", suffix=".tmp")
    except OSError as error:
        # mkstemp says "No such file or directory" for a folder that exists but takes no new
        # files (/proc): that reason would mislead, so it is left out.
        reason = "" if error.errno == errno.ENOENT else f" ({describe_os_error(error)})"
        raise FileError(f"cannot {action}: no file can be created in {existing}{reason}") from None
    os.close(handle)
    os.unlink(probe)


def check_output_path(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a :class:`Path`, once checked that the ``what`` ("game record") can be written
    there: it is not a folder, a device or a FIFO, and its folder exists and takes new files, or
    can be created. Call it before the work whose output it is, so that a typo costs nothing.
    Creates nothing and leaves nothing behind. Raises :class:`FileError`."""
    path = Path(path)
    action = f"write the {what} {path}"
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # the folder check says which part is wrong
        mode = None
    except OSError as error:
        raise FileError(f"cannot {action}: {describe_os_error(error)}") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise FileError(f"cannot {action}: it is {_kind(mode)}")
    _check_folder_accepts_files(path.parent, action)
    return path


def check_output_folder(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a :class:`Path`, once checked that the ``what`` ("run folder") can be written
    there: it is a folder that takes new files, or can be created. Creates nothing and leaves
    nothing behind. Raises :class:`FileError`."""
    path = Path(path)
    action = f"write the {what} {path}"
    if os.path.lexists(path) and not path.is_dir():
        raise FileError(f"cannot {action}: it is not a folder")
    _check_folder_accepts_files(path, action)
    return path


def save_or_keep(path: str | os.PathLike, what: str, save: Callable[[Path], None]) -> None:
    """Call ``save(path)``. If that raises ``OSError`` (:class:`FileError` included), call
    ``save`` again on a file of the same name in a new folder of the system's temporary folder,
    and raise a :class:`FileError` that says why ``path`` failed and where the ``what`` is kept
    (or that it could not be kept either). ``save`` must write atomically, so ``path`` is never
    left half written."""
    path = Path(path)
    try:
        save(path)
        return
    except OSError as error:
        failure = (
            str(error) if isinstance(error, FileError) else str(file_error("write", path, error))
        )
    kept = None
    try:
        kept = Path(tempfile.mkdtemp(prefix="samuel-kept-")) / path.name
        save(kept)
    except OSError as error:
        reason = str(error) if isinstance(error, FileError) else describe_os_error(error)
        if kept is not None:
            shutil.rmtree(kept.parent, ignore_errors=True)
        raise FileError(f"{failure}; keeping the {what} elsewhere failed too ({reason})") from None
    raise FileError(f"{failure}; {what} kept in {kept}")
