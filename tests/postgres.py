"""A throwaway PostgreSQL server for the tests and benchmarks: ``initdb`` into a temporary folder,
``pg_ctl start`` on a Unix socket there (no TCP port, so nothing outside this machine can reach
it), and a database URL for SQLAlchemy's psycopg driver.

PostgreSQL refuses to run as root: as root, the server's commands run as the ``postgres`` user
(``runuser``), which owns the folder. ``.ci/run`` installs Debian's ``postgresql`` where it is
missing; on CI (``CI`` set) a missing server is a failure, elsewhere the tests that need one
are skipped with the reason.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

SERVER_USER = "postgres"


def server_bin() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: on PATH, or Debian's versioned folder."""
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[4]))
    return Path(folders[-1]) if folders else None


def _as_server_user(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", SERVER_USER, "--", *command]


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """Start a server in a temporary folder; yield the URL of an empty database; stop it and
    delete the folder at the end."""
    binaries = server_bin()
    if binaries is None:
        raise FileNotFoundError("PostgreSQL's initdb and pg_ctl were not found")
    folder = Path(tempfile.mkdtemp(prefix="samuel-pg-"))
    data, sockets = folder / "data", folder / "sockets"
    sockets.mkdir()
    if os.geteuid() == 0:
        user = pwd.getpwnam(SERVER_USER)
        for path in (folder, sockets):
            os.chown(path, user.pw_uid, user.pw_gid)
    role = SERVER_USER if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name

    def run(*command: str) -> None:
        subprocess.run(
            _as_server_user([str(binaries / command[0]), *command[1:]]),
            check=True,
            capture_output=True,
            timeout=120,
        )

    run("initdb", "-D", str(data), "-U", role, "--auth=trust", "-E", "UTF8", "--no-sync")
    options = f"-k {sockets} -c listen_addresses='' -c fsync=off -c max_connections=50"
    run("pg_ctl", "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start")
    try:
        yield f"postgresql+psycopg://{role}@/postgres?host={sockets}"
    finally:
        with contextlib.suppress(subprocess.SubprocessError):
            run("pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def new_database(server_url: str, name: str) -> str:
    """Create database ``name`` on the server; return its URL."""
    from sqlalchemy import create_engine, text

    engine = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return server_url.replace("@/postgres?", f"@/{name}?")
