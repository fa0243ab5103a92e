"""What an admin reads when the bot opens its database, and the bot's own small values.

`tests/test_start_failures.py` runs the whole bot in a child process for each refusal; these
tests open the same kinds of files in this process (`Storage.open`), so that the mutation
run, which sees only this process, checks the sentences too. Real files in a temporary
folder throughout.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import shutil
import sqlite3
import stat
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.core.records import ACTIVE, LOBBY, OVER, Match, Seat
from bot.core.storage import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    Storage,
    StorageError,
    before_upgrade_path,
    check_file,
    describe_error,
)
from bot.core.storage import schema as schema_module
from bot.core.storage import sqlite as sqlite_module
from bot.core.storage import writer as writer_module

from .runtime_support import storages

__all__ = ["storages"]  # the fixture, used by name

OpenStorage = Callable[..., Awaitable[Storage]]
SCHEMA_2 = Path(__file__).parent / "fixtures" / "upgrade-schema2.sqlite3"
LOCKED = ("another program holds a lock on it (is a second Cityhall, or some other tool, "
          "using the same file?)")


def _schema_of(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _lobby(channel: int) -> Match:
    return Match(id=0, guild_id=1, channel_id=channel, game="cityscape", status=LOBBY,
                 host_id="1", seats=[Seat("1", "Ann")], options={"note": "x" * 3000},
                 seed=channel)


def _sqlite_error(code: int, message: str) -> sqlite3.Error:
    # Python sets these two on every error SQLite reports; set by hand here for result codes
    # a test cannot bring about (a failing disk).
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code
    return error


# -- the sentence of each kind of failure -----------------------------------------------------


def test_database_errors_are_told_in_the_admins_words(tmp_path: Path) -> None:
    path = tmp_path / "cityhall.sqlite3"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE t (x INTEGER)")
        conn.commit()
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as reader, \
            pytest.raises(sqlite3.Error) as read_only:
        reader.execute("INSERT INTO t VALUES (1)")
    assert describe_error(read_only.value) == ("it or its folder is read-only for this user "
                                               "[attempt to write a readonly database]")
    # An extended result code (here SQLITE_IOERR_SHORT_READ, 522) is read by its primary
    # code, 10: the admin hears about the disk, not a number.
    assert describe_error(_sqlite_error(522, "disk I/O error")) == \
        "reading or writing it failed (disk error) [disk I/O error]"
    assert describe_error(_sqlite_error(5, "database is locked")) == \
        f"{LOCKED} [database is locked]"
    # A code without a sentence of its own, and an error with no code, say what SQLite said.
    assert describe_error(_sqlite_error(1, "no such table: matches")) == "no such table: matches"
    assert describe_error(sqlite3.OperationalError("no such column: x")) == "no such column: x"


def test_system_errors_are_told_by_the_systems_own_words() -> None:
    full = OSError(errno.ENOSPC, "No space left on device", "/srv/cityhall.sqlite3")
    assert describe_error(full) == "No space left on device"  # not "[Errno 28] ...: '/srv/...'"
    assert describe_error(OSError("the copy was cut short")) == "the copy was cut short"
    assert describe_error(StorageError("it is not a file")) == "it is not a file"
    assert describe_error(ValueError("a bad path")) == "a bad path"


# -- files the bot refuses to open ----------------------------------------------------------------


async def test_a_file_that_is_not_sqlite_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "cityhall.sqlite3"
    path.write_text("DISCORD_TOKEN=oops, this is the .env file\n" * 20)
    with pytest.raises(StorageError) as refused:
        await Storage.open(path)
    assert str(refused.value) == (f"Cannot open the database {path}: it is not an SQLite "
                                  f"database (its first bytes are not SQLite's header).")
    assert path.read_text().startswith("DISCORD_TOKEN=oops")


async def test_a_folder_where_the_database_should_be_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cityhall.sqlite3"
    path.mkdir()
    with pytest.raises(StorageError, match=r"cityhall\.sqlite3: it is not a file\.$"):
        await Storage.open(path)


async def test_an_empty_file_becomes_a_new_database(
        tmp_path: Path, storages: OpenStorage, caplog: pytest.LogCaptureFixture) -> None:
    # `touch cityhall.sqlite3` before the first start is harmless.
    path = tmp_path / "cityhall.sqlite3"
    path.touch()
    caplog.set_level(logging.INFO, logger="bot.core.storage")
    storage = await storages(path)
    match = await storage.create_match(_lobby(5))
    assert (await storage.get(match.id)) is not None
    assert _schema_of(path) == SCHEMA_VERSION
    # The admin reads that a new database was made, not that one was upgraded.
    assert [r.getMessage() for r in caplog.records if r.name == "bot.core.storage"] == [
        f"Setting up a new database at {path} (schema {SCHEMA_VERSION})."]


async def test_a_database_cut_short_is_refused_but_one_waiting_on_its_wal_opens(
        tmp_path: Path, storages: OpenStorage) -> None:
    path = tmp_path / "cityhall.sqlite3"
    storage = await Storage.open(path)
    for channel in range(40):
        await storage.create_match(_lobby(channel))
    await storage.close()
    whole = path.stat().st_size
    with open(path, "rb") as file:
        page_size = int.from_bytes(file.read(18)[16:18], "big")
    assert whole > 4 * page_size
    # One page short is already short: a copy that stopped at the very end.
    shutil.copyfile(path, tmp_path / "whole.sqlite3")
    with open(path, "r+b") as file:
        file.truncate(whole - page_size)
    with pytest.raises(StorageError) as refused:
        await Storage.open(path)
    assert str(refused.value) == (
        f"Cannot open the database {path}: it is cut short: its header says {whole:,} bytes "
        f"but the file has {whole - page_size:,} (a copy that did not finish, or a full "
        f"disk?).")
    # An empty WAL beside it has nothing to complete the file with: still refused.
    Path(f"{path}-wal").touch()
    with pytest.raises(StorageError, match="it is cut short"):
        check_file(path)
    # The same file with the WAL a crash left beside it is SQLite's to complete, not refused.
    # (This WAL holds nothing: check_file only asks whether one is pending.)
    Path(f"{path}-wal").write_bytes(b"\0" * 32)
    check_file(path)
    # And the whole file, exactly as long as its header says, opens with everything in it.
    shutil.copyfile(tmp_path / "whole.sqlite3", path)
    Path(f"{path}-wal").unlink()
    storage = await storages(path)
    assert len(await storage.unfinished()) == 40


def test_a_database_of_64_kb_pages_is_measured_by_its_own_page_size(tmp_path: Path) -> None:
    # SQLite writes 65,536-byte pages as "1" in the header (the field holds 16 bits only).
    path = tmp_path / "big-pages.sqlite3"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA page_size=65536")
        conn.execute("CREATE TABLE t (x)")
        conn.executemany("INSERT INTO t VALUES (?)", [("x" * 10_000,) for _ in range(20)])
        conn.commit()
    whole = path.stat().st_size
    assert whole > 3 * 65536
    check_file(path)
    with open(path, "r+b") as file:
        file.truncate(whole - 65536)
    with pytest.raises(StorageError) as refused:
        check_file(path)
    assert str(refused.value).startswith(
        f"it is cut short: its header says {whole:,} bytes but the file has {whole - 65536:,} ")


def test_a_huge_database_cut_short_is_refused_too(tmp_path: Path) -> None:
    # Over 16 million pages the page count fills all four bytes of its header field. A sparse
    # file stands in for the database (nothing past the header is read).
    path = tmp_path / "huge.sqlite3"
    pages = 2**24 + 1
    header = bytearray(100)
    header[:16] = b"SQLite format 3\x00"
    header[16:18] = (512).to_bytes(2, "big")
    header[24:28] = header[92:96] = (7).to_bytes(4, "big")  # the count is current
    header[28:32] = pages.to_bytes(4, "big")
    with open(path, "wb") as file:
        file.write(header)
        file.truncate((pages - 1) * 512)
    with pytest.raises(StorageError, match="it is cut short"):
        check_file(path)
    with open(path, "r+b") as file:
        file.truncate(pages * 512)
    check_file(path)


async def test_a_folder_or_file_the_bot_user_cannot_write_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As the `cityhall` user would see them (the tests may run as root, whom permissions do
    # not stop): the owner's bits decide.
    def as_the_owner(path: Any, mode: int, **kwargs: Any) -> bool:
        bits = os.stat(path).st_mode
        needed = ((os.R_OK, stat.S_IRUSR), (os.W_OK, stat.S_IWUSR), (os.X_OK, stat.S_IXUSR))
        return all(bits & bit for flag, bit in needed if mode & flag)

    monkeypatch.setattr(schema_module.os, "access", as_the_owner)
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "cityhall.sqlite3"
    folder.chmod(0o555)
    try:
        with pytest.raises(StorageError) as refused:
            await Storage.open(path)
    finally:
        folder.chmod(0o755)
    assert str(refused.value) == (
        f"Cannot open the database {path}: its folder {folder} is not writable for this user, "
        f"and SQLite needs to create cityhall.sqlite3-wal beside it.")
    path.write_bytes(b"")
    path.chmod(0o444)
    with pytest.raises(StorageError) as refused:
        await Storage.open(path)
    assert str(refused.value) == (
        f"Cannot open the database {path}: the file is not readable and writable for this "
        "user.")


async def test_another_programs_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    notes = tmp_path / "notes.sqlite3"
    with contextlib.closing(sqlite3.connect(notes)) as conn:
        for table in ("notes", "people", "places", "tags", "todo", "words"):
            conn.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY)")
        conn.commit()
    with pytest.raises(StorageError) as refused:
        await Storage.open(notes)
    assert str(refused.value) == (
        f"Cannot open the database {notes}: it is not a Cityhall database: it has the tables "
        f"notes, people, places, tags, todo, ... but not actions, matches, results.")
    # Five tables are all named, with no "..." (here one of them is Cityhall's own name).
    few = tmp_path / "few.sqlite3"
    with contextlib.closing(sqlite3.connect(few)) as conn:
        for table in ("matches", "notes", "people", "places", "tags"):
            conn.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY)")
        conn.commit()
    with pytest.raises(StorageError) as refused:
        await Storage.open(few)
    assert str(refused.value) == (
        f"Cannot open the database {few}: it is not a Cityhall database: it has the tables "
        f"matches, notes, people, places, tags but not actions, results.")
    # A program that marks its files (SQLite's application id) is refused by the mark alone.
    marked = tmp_path / "photos.sqlite3"
    with contextlib.closing(sqlite3.connect(marked)) as conn:
        conn.execute("PRAGMA application_id=1196446541")  # 0x4750534d
        conn.commit()
    with pytest.raises(StorageError, match=r"photos\.sqlite3: it is another program's SQLite "
                       r"database \(application id 0x4750534d\), not Cityhall's\.$"):
        await Storage.open(marked)
    with contextlib.closing(sqlite3.connect(notes)) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
        mark = conn.execute("PRAGMA application_id").fetchone()[0]
    assert len(tables) == 6 and "matches" not in tables and journal == "delete" and mark == 0


async def test_a_file_system_without_write_ahead_logs_is_refused_in_a_sentence(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Some network shares cannot hold SQLite's shared memory: SQLite then keeps the old
    # journal mode, and the bot must not run on without the log its durability relies on.
    class NoWal(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
            if sql.upper() == "PRAGMA JOURNAL_MODE=WAL":
                return super().execute("SELECT 'delete'")
            return super().execute(sql, *args)

    connect = sqlite3.connect

    def on_the_share(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        return connect(database, *args, **kwargs, factory=NoWal)

    monkeypatch.setattr(writer_module.sqlite3, "connect", on_the_share)
    path = tmp_path / "cityhall.sqlite3"
    with pytest.raises(StorageError) as refused:
        await Storage.open(path)
    assert str(refused.value) == (
        f"Cannot open the database {path}: SQLite could not switch it to WAL mode (is the "
        "folder writable?).")


async def test_a_database_of_a_newer_cityhall_is_refused_unchanged(tmp_path: Path,
                                                                   storages: OpenStorage) -> None:
    path = tmp_path / "cityhall.sqlite3"
    await storages(path)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
        conn.commit()
    with pytest.raises(StorageError, match=rf"it was written by a newer Cityhall \(schema "
                       rf"{SCHEMA_VERSION + 1}; this one knows up to {SCHEMA_VERSION}\)\.$"):
        await Storage.open(path)
    assert _schema_of(path) == SCHEMA_VERSION + 1


async def test_a_cityhall_database_is_marked_as_cityhalls(tmp_path: Path,
                                                          storages: OpenStorage) -> None:
    path = tmp_path / "cityhall.sqlite3"
    await storages(path)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert conn.execute("PRAGMA page_size").fetchone()[0] == 8192
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_a_write_waits_out_another_programs_short_lock_and_lands(
        tmp_path: Path, storages: OpenStorage) -> None:
    # A backup tool or an admin's `sqlite3` shell may hold the write lock for a moment: the
    # bot's next write waits for it (up to its busy timeout) instead of failing the move.
    path = tmp_path / "cityhall.sqlite3"
    storage = await storages(path)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        asyncio.get_running_loop().call_later(0.5, other.execute, "ROLLBACK")
        match = await storage.create_match(_lobby(3))
    finally:
        other.close()
    assert await storage.get(match.id) is not None


async def test_how_long_the_bot_waits_for_another_programs_lock(
        tmp_path: Path, storages: OpenStorage, monkeypatch: pytest.MonkeyPatch) -> None:
    # A file locked by a second Cityhall must be refused within seconds at start-up (the
    # admin waits for that sentence); afterwards reads and writes wait out a backup's lock
    # for up to 10 seconds (writes: the busy timeout asked for).
    waits: list[float] = []
    connect = sqlite3.connect

    def noted(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        waits.append(kwargs.get("timeout", 5.0))  # 5 s: sqlite3's own default
        return connect(database, *args, **kwargs)

    def write_wait(conn: sqlite3.Connection) -> int:
        return int(conn.execute("PRAGMA busy_timeout").fetchone()[0])

    monkeypatch.setattr(sqlite_module.sqlite3, "connect", noted)
    # The first connection reads the schema first, so it is the one that meets a lock;
    # the second is the readers'; the third makes /stats's small reads on the event loop's
    # thread, which must never hold the loop for long (it hands a locked read to the
    # readers' thread instead).
    storage = await storages(tmp_path / "a.sqlite3")
    assert waits == [2.0, 10.0, 0.02]
    assert await storage.write(write_wait) == 10_000
    waits.clear()
    quick = await Storage.open(tmp_path / "b.sqlite3", busy_timeout=0.5)
    try:
        assert waits == [0.5, 10.0, 0.02]
        assert await quick.write(write_wait) == 500
    finally:
        await quick.close()


async def test_a_reader_that_cannot_open_is_refused_and_leaves_no_writer_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The writer opened the file, then the readers' connection could not (the process ran
    # out of file descriptors, say): the admin gets the cause, and no thread keeps the file.
    async def out_of_descriptors(*args: Any, **kwargs: Any) -> Any:
        raise _sqlite_error(14, "unable to open database file")

    before = set(threading.enumerate())
    monkeypatch.setattr(sqlite_module.aiosqlite, "connect", out_of_descriptors)
    path = tmp_path / "cityhall.sqlite3"
    with pytest.raises(StorageError) as refused:
        await Storage.open(path)
    assert str(refused.value) == (
        f"Cannot open the database {path}: SQLite cannot open the file (a missing or "
        "unwritable folder?) [unable to open database file].")
    # (The event loop's own worker threads, "asyncio_N", come and go as it pleases.)
    assert [t.name for t in set(threading.enumerate()) - before
            if not t.name.startswith("asyncio_")] == []
    # The writer checkpointed and let go of the file: it opens again at once.
    monkeypatch.undo()
    storage = await Storage.open(path)
    await storage.close()
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0


# -- the copy taken before an upgrade ---------------------------------------------------------


def test_each_upgrade_attempt_keeps_its_own_copy(tmp_path: Path) -> None:
    path = tmp_path / "cityhall.sqlite3"
    first = tmp_path / "cityhall.sqlite3.before-v3.sqlite3"
    assert before_upgrade_path(path, 3) == first
    first.touch()
    assert before_upgrade_path(str(path), 3) == tmp_path / "cityhall.sqlite3.before-v3-2.sqlite3"
    (tmp_path / "cityhall.sqlite3.before-v3-2.sqlite3").touch()
    assert before_upgrade_path(path, 3) == tmp_path / "cityhall.sqlite3.before-v3-3.sqlite3"
    assert before_upgrade_path(path, 4) == tmp_path / "cityhall.sqlite3.before-v4.sqlite3"


async def test_an_upgrade_first_copies_the_database_as_it_was(tmp_path: Path,
                                                              storages: OpenStorage) -> None:
    path = tmp_path / "cityhall.sqlite3"
    shutil.copyfile(SCHEMA_2, path)
    storage = await storages(path)
    assert _schema_of(path) == SCHEMA_VERSION
    copy = tmp_path / f"cityhall.sqlite3.before-v{SCHEMA_VERSION}.sqlite3"
    assert sorted(p.name for p in tmp_path.iterdir() if "before" in p.name) == [copy.name]
    assert _schema_of(copy) == 2
    with contextlib.closing(sqlite3.connect(f"file:{copy}?mode=ro", uri=True)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        ids = {r[0] for r in conn.execute("SELECT id FROM matches")}
    assert ids == {m.id for m in await storage.unfinished()} | {1, 2, 3}


async def test_an_upgrade_whose_copy_cannot_be_written_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cityhall.sqlite3"
    shutil.copyfile(SCHEMA_2, path)
    connect = sqlite3.connect

    def full_disk(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        # The disk fills up before the copy's first byte: SQLite cannot even create it.
        if str(database).endswith(".partial"):
            raise OSError(errno.ENOSPC, "No space left on device", str(database))
        return connect(database, *args, **kwargs)

    monkeypatch.setattr(schema_module.sqlite3, "connect", full_disk)
    with pytest.raises(StorageError) as refused:
        await Storage.open(path)
    copy = tmp_path / f"cityhall.sqlite3.before-v{SCHEMA_VERSION}.sqlite3"
    assert str(refused.value) == (
        f"Cannot open the database {path}: it needs upgrading, and the copy to take first "
        f"could not be written to {copy} (No space left on device); nothing was changed.")
    monkeypatch.undo()
    assert _schema_of(path) == 2
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith("cityhall.sqlite3")
            or "before" in p.name] == []  # no copy, no half-written copy


# -- the bot's own values (command tree hashes, server settings) ------------------------------


@pytest.mark.usefixtures("backend")  # both databases
async def test_the_bots_own_values_are_kept_across_a_restart(tmp_path: Path,
                                                             storages: OpenStorage) -> None:
    path = tmp_path / "cityhall.sqlite3"
    storage = await storages(path)
    assert await storage.value("commands:global") is None
    await storage.set_value("commands:global", "abc123")
    await storage.set_value("commands:global", "def456")  # the tree changed: uploaded again
    await storage.set_value("commands:guild:7", "0a0a")
    again = await storages(path)
    assert await again.value("commands:global") == "def456"
    assert await again.value("commands:guild:7") == "0a0a"
    assert await again.value("commands:guild:8") is None


@pytest.mark.usefixtures("backend")  # both databases
async def test_values_are_listed_by_their_exact_prefix(storages: OpenStorage) -> None:
    # Server settings live under one prefix; "_" and "*" in it are letters, not wildcards.
    storage = await storages()
    for key, value in (("settings_1", "a"), ("settings_22", "b"), ("settingsX1", "c"),
                       ("set*1", "d"), ("setX1", "e"), ("other", "f"), ("up^1", "g"),
                       ("up1", "h")):
        await storage.set_value(key, value)
    assert sorted(await storage.values_with_prefix("settings_")) == \
        [("settings_1", "a"), ("settings_22", "b")]
    assert await storage.values_with_prefix("set*") == [("set*1", "d")]
    assert await storage.values_with_prefix("up^") == [("up^1", "g")]
    assert await storage.values_with_prefix("nothing") == []


@pytest.mark.usefixtures("backend")  # both databases
async def test_values_deleted_stay_gone_after_a_restart_and_the_rest_stay(
        tmp_path: Path, storages: OpenStorage) -> None:
    # The turn pings remember each ping message, so that a restart can still tidy it away,
    # and forget it once it is deleted: a forgotten one must not come back.
    path = tmp_path / "cityhall.sqlite3"
    storage = await storages(path)
    for key in ("ping:1", "ping:2", "ping:3", "settings_1"):
        await storage.set_value(key, f"value of {key}")
    await storage.delete_values(["ping:1", "ping:3"])
    await storage.delete_values([])
    again = await storages(path)
    assert await again.values_with_prefix("ping:") == [("ping:2", "value of ping:2")]
    assert await again.value("settings_1") == "value of settings_1"


async def test_a_small_read_refused_by_a_lock_goes_through_the_database_thread(
        tmp_path: Path, storages: OpenStorage, caplog: pytest.LogCaptureFixture) -> None:
    """/stats reads on the loop's own thread; when that connection is refused (another
    program locking the file for a moment), the same rows come by the reader thread, which
    can wait, and the log says so once, without a traceback."""
    storage = await storages(tmp_path / "cityhall.sqlite3")
    await storage.set_value("settings_1", "a")
    backend = storage._backend
    assert isinstance(backend, sqlite_module.SQLiteBackend) and backend.quick is not None
    quick = backend.quick

    class Refusing:
        def execute(self, sql: str, args: Any = ()) -> Any:
            raise sqlite3.OperationalError("database is locked")

        def close(self) -> None:
            quick.close()

    sql = "SELECT key, value FROM kv WHERE key >= ? ORDER BY key"
    expected = [tuple(row) for row in await backend.fetch_all(sql, ("s",))]
    assert expected == [("settings_1", "a")]
    backend.quick = Refusing()  # type: ignore[assignment]
    with caplog.at_level(logging.INFO, logger="bot.core.storage"):
        rows = await backend.fetch_small(sql, ("s",))
    assert [tuple(row) for row in rows] == expected
    said = [r for r in caplog.records if "through the database thread" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.INFO and not said[0].exc_info
    assert said[0].getMessage() == ("A small read went through the database thread: "
                                    "database is locked")


@pytest.mark.usefixtures("backend")  # both databases
async def test_every_commit_is_reported_to_the_metrics(storages: OpenStorage) -> None:
    storage = await storages()
    seen: list[tuple[float, int]] = []
    storage.observe_writes(lambda seconds, jobs: seen.append((seconds, jobs)))
    began = time.perf_counter()
    await storage.create_match(_lobby(1))
    await storage.set_value("k", "v")
    within = time.perf_counter() - began
    assert [jobs for _seconds, jobs in seen] == [1, 1]
    # Each commit's own time: never more than the two writes took together.
    assert all(0 <= seconds <= within for seconds, _jobs in seen)
    storage.observe_writes(None)
    await storage.set_value("k", "w")
    assert len(seen) == 2


# -- the state version saved with each game -------------------------------------------------------


async def test_a_games_state_version_is_kept_while_it_runs_and_once_it_is_over(
        tmp_path: Path, storages: OpenStorage) -> None:
    # A state saved by an engine at version 2 must read back as 2, running or archived:
    # read as 1, the engine would "upgrade" it again on the next start.
    path = tmp_path / "cityhall.sqlite3"
    storage = await storages(path)
    match = await storage.create_match(_lobby(7))
    match.status, match.version, match.state, match.state_version = ACTIVE, 1, {"turn": 1}, 2
    await storage.save(match)
    again = await storages(path)
    assert [(m.id, m.state_version) for m in await again.unfinished()] == [(match.id, 2)]
    match.status, match.version, match.state = OVER, 2, {"turn": 2}
    await again.save(match, action={"type": "last"}, player="1", results=[])
    archived = await again.get(match.id)
    assert archived is not None and archived.state == {"turn": 2}
    assert archived.state_version == 2


async def test_small_reads_go_through_the_database_thread_when_their_own_connection_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    # Small reads (a lookup per click) have a connection of their own on the event loop's
    # thread; where it cannot be opened the bot says so once and reads through the reader
    # thread instead: slower, nothing lost.
    real_connect = sqlite3.connect

    def connect(name: str, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if kwargs.get("timeout") == 0.02:  # the small reads' own connection
            raise sqlite3.OperationalError("unable to open database file")
        return real_connect(name, *args, **kwargs)

    monkeypatch.setattr(sqlite_module.sqlite3, "connect", connect)
    caplog.set_level("WARNING", logger="bot.core.storage")
    storage = await Storage.open(tmp_path / "cityhall.sqlite3")
    try:
        await storage.set_value("k", "v")
        assert await storage.value("k") == "v"
    finally:
        await storage.close()
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert said == ["Small reads go through the database thread: unable to open database file"]
