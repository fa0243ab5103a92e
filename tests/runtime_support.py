"""One way to open a runtime on a SQLite file, for the runtime and storage tests.

Every runtime in those tests is made by `open_runtime`, so a change to how a Runtime is
built (its constructor, its storage) is made here once. The `runtimes` fixture closes
every database it opened: a leaked aiosqlite thread would hang pytest at exit.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot.core.records import Seat
from bot.core.runtime import Runtime
from bot.core.storage import Storage
from bot.games import GAMES
from tests import databases

ANN, BOB, CY = Seat("1", "Ann"), Seat("2", "Bob"), Seat("3", "Cy")
GUILD, CHANNEL = 10, 20


def said(sentence: str) -> str:
    """A ``pytest.raises(match=...)`` pattern for exactly this sentence to the player."""
    return "^" + re.escape(sentence) + "$"


def starts(sentence: str) -> str:
    """A ``pytest.raises(match=...)`` pattern for a message beginning with ``sentence``."""
    return "^" + re.escape(sentence)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def open_runtime(path: Path, clock: Clock | None = None) -> Runtime:
    """A runtime on the database at ``path`` with every unfinished match loaded, as after
    a (re)start of the bot. Turns last 60 seconds."""
    runtime = Runtime(await Storage.open(databases.target(path)), GAMES, clock=clock or Clock(), turn_seconds=60)
    await runtime.load()
    return runtime


async def close_runtime(runtime: Runtime) -> None:
    await runtime.storage.close()


OpenRuntime = Callable[..., Awaitable[Runtime]]


@pytest.fixture
async def runtimes(tmp_path: Path) -> AsyncIterator[OpenRuntime]:
    """``await runtimes()`` opens a runtime on ``tmp_path/db.sqlite3`` (or ``path=``);
    each call is a separate "process" on the same file. All are closed afterwards."""
    opened: list[Runtime] = []

    async def open_one(path: Path | None = None, clock: Clock | None = None) -> Runtime:
        runtime = await open_runtime(path or tmp_path / "db.sqlite3", clock)
        opened.append(runtime)
        return runtime

    yield open_one
    for runtime in opened:
        await close_runtime(runtime)


@pytest.fixture
async def storages(tmp_path: Path) -> AsyncIterator[Callable[..., Awaitable[Storage]]]:
    """``await storages()`` opens storage on ``tmp_path/db.sqlite3`` (or ``path=``); all are
    closed afterwards."""
    opened: list[Storage] = []

    async def open_one(path: Path | None = None) -> Storage:
        storage = await Storage.open(databases.target(path or tmp_path / "db.sqlite3"))
        opened.append(storage)
        return storage

    yield open_one
    for storage in opened:
        await storage.close()


BACKENDS = databases.BACKENDS
OpenStorage = Callable[..., Awaitable[Storage]]


@asynccontextmanager
async def storage_opener(backend: str, tmp_path: Path,
                         request: pytest.FixtureRequest) -> AsyncIterator[OpenStorage]:
    """``await open_one(path)`` opens storage on ``backend``. With PostgreSQL each path stands
    for a database of its own (made on first use; ``":memory:"`` is always a new one), so a
    test opening the same path twice reopens the same data, as with SQLite."""
    opened: list[Storage] = []
    urls: dict[str, str] = {}

    async def open_one(path: Path | str | None = None) -> Storage:
        target: str | Path = path or tmp_path / "db.sqlite3"
        if backend == "postgresql":
            server = request.getfixturevalue("pg_server")
            key = str(target)
            if key not in urls or key == ":memory:":
                urls[key] = server.create_database()
            target = urls[key]
        storage = await Storage.open(target)
        opened.append(storage)
        return storage

    try:
        yield open_one
    finally:
        for storage in opened:
            await storage.close()
