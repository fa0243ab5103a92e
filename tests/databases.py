"""Which database a test's bot, runtime or storage opens: one switch for the whole suite.

Tests name their database by an SQLite path (``tmp_path / "db.sqlite3"``), as a server
admin's DATABASE_PATH would. A test module that runs on both backends says so with
``pytestmark = pytest.mark.usefixtures("backend")`` (the fixture is in conftest.py and is
parametrised over SQLite and PostgreSQL). On PostgreSQL, ``target(path)`` turns each path
into a database of its own on the throwaway server, the same one each time the test asks
for the same path, so a test that restarts its bot on "the same file" reopens the same data.
A test about SQLite itself (its file, its locks, its WAL) carries
``@pytest.mark.sqlite_only("reason")`` and is not collected for PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

BACKENDS = ["sqlite", "postgresql"]

# The reason a whole game whose subject is the channel (tables, pings, pictures), not the
# database, runs on SQLite only (``@pytest.mark.one_database(CHANNEL_ONLY)``).
CHANNEL_ONLY = ("the channel through a whole game does not depend on the database; games with "
                "restarts run on PostgreSQL in test_discord_*.py")


class PgDatabases:
    """The PostgreSQL databases one test has been given, by the SQLite path they stand for."""

    def __init__(self, create: Callable[[], str]) -> None:
        self._create = create
        self.urls: dict[str, str] = {}
        # Every database handed out, in-memory ones included: given back after the test.
        self.made: list[str] = []

    def url(self, path: Path | str) -> str:
        key = str(path)
        if key == ":memory:":
            url = self._create()  # every in-memory database is a new one
            self.made.append(url)
            return url
        if key not in self.urls:
            self.urls[key] = self._create()
            self.made.append(self.urls[key])
        return self.urls[key]


_current: PgDatabases | None = None


def use(databases: PgDatabases | None) -> None:
    global _current
    _current = databases


def backend() -> str:
    return "sqlite" if _current is None else "postgresql"


def target(path: Path | str) -> Path | str:
    """What to open for the database a test calls ``path``: the path itself on SQLite, or
    the URL of its PostgreSQL database."""
    if _current is None or (isinstance(path, str) and path.startswith("postgresql://")):
        return path
    return _current.url(path)


async def query(path: Path | str, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """One statement on the test's database (``?`` placeholders, on either backend), as an
    admin's SQL shell would run it while the bot is stopped; its rows, if any."""
    from bot.core.storage import Job, Storage, fetch_all

    def job() -> Job[list[Any]]:
        rows = yield fetch_all(sql, args)
        return list(rows)

    storage = await Storage.open(target(path))
    try:
        return [tuple(row) for row in await storage.run(job)]
    finally:
        await storage.close()
