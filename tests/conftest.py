"""Fixtures shared by several test files: the pipeline's two databases.

``database_url`` runs a test once on SQLite (a file in the test's folder) and once on a real
PostgreSQL server (started once for the session by tests/postgres.py, a fresh database per
test). Without a server the PostgreSQL runs are skipped, except on CI, where they fail.
"""

from __future__ import annotations

import itertools
import os

import pytest

_databases = itertools.count()


def pytest_collection_modifyitems(config, items):
    """The ``postgres`` tier: every test that runs on the PostgreSQL server (the ``postgresql``
    run of ``database_url``, or the server itself)."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_server = callspec is not None and callspec.params.get("database_url") == "postgresql"
        if on_server or "postgres_server_url" in item.fixturenames:
            item.add_marker(pytest.mark.postgres)


@pytest.fixture(scope="session")
def postgres_server_url():
    from tests.postgres import postgres_server, server_bin

    if server_bin() is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is not installed: .ci/run installs Debian's postgresql")
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    with postgres_server() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite'}"
    from tests.postgres import new_database

    server = request.getfixturevalue("postgres_server_url")
    return new_database(server, f"test_{os.getpid()}_{next(_databases)}")
