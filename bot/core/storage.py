"""SQLite persistence: matches, their action log, final results and per-player totals.

Durability and isolation: every write (a new lobby, a move, a finished game) is one *job*,
and jobs are executed by one writer thread that owns the only writing connection. The
writer takes whatever jobs are queued, runs each under its own SAVEPOINT inside one
transaction and commits them together (group commit: many moves, one fsync). A job that
fails (a second lobby in a busy channel) rolls back to its own savepoint only, so nothing
one match does can undo or expose another's writes; and a caller is answered only after the
commit that holds its data, so a move answered as accepted survives a kill -9.

Reads go through aiosqlite on a second connection; with WAL they never wait for the writer
and see only committed data.

Finished games are archived: their action log and final state are compressed into one row
(``archive``) in the same transaction as the last move, so a finished game costs a few
kilobytes and ``replay`` of it still works. ``/stats`` reads ``player_totals``, kept up to
date when a game ends, instead of scanning every result.

Two backends keep the same data (``Storage.open`` picks one): this file's SQLite (the
default) and PostgreSQL (``bot/core/postgres.py``, for ``postgresql://`` URLs). What a write
does is written once, as a *job*: a generator that yields the statements it needs (``Op``)
and receives their results, so the SQLite writer thread runs it synchronously and the
PostgreSQL backend with ``await``; the schema and its numbered migrations are one list,
rendered for each dialect (``Dialect``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import queue
import sqlite3
import threading
import time
import zlib
from collections.abc import Awaitable, Callable, Generator, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar
from urllib.parse import urlsplit

import aiosqlite

from . import dbfile
from .records import UNFINISHED, Match, Seat
from .shards import Shards

assert UNFINISHED == ("lobby", "active")  # spelled out in the SQL below

log = logging.getLogger(__name__)

T = TypeVar("T")

# -- jobs: what a write does, for either backend ------------------------------------------

# What a statement's result is taken as: nothing but the rows it changed, one row, all rows,
# the id of the row it inserted, or one statement run for each of many argument tuples.
EXECUTE, ONE, ALL, INSERT_ID, MANY = range(5)


class Op(NamedTuple):
    """One statement a job wants run. ``sql`` uses ``?`` placeholders (numbered for
    PostgreSQL by its backend) and no ``?`` inside string literals. (A tuple: a move's save
    makes three or four of these, and a tuple is made in half a frozen dataclass's time.)"""

    kind: int
    sql: str
    args: Sequence[Any] = ()


# A job yields Ops and receives each one's result (rowcount, a row, rows, an id or None);
# a failed statement is thrown into it. Rows are read by position or by column name.
Job = Generator[Op, Any, T]


def execute(sql: str, args: Sequence[Any] = ()) -> Op:
    return Op(EXECUTE, sql, args)


def fetch_one(sql: str, args: Sequence[Any] = ()) -> Op:
    return Op(ONE, sql, args)


def fetch_all(sql: str, args: Sequence[Any] = ()) -> Op:
    return Op(ALL, sql, args)


def insert_id(sql: str, args: Sequence[Any] = ()) -> Op:
    """An INSERT into ``matches``; its result is the new row's id."""
    return Op(INSERT_ID, sql, args)


def execute_many(sql: str, rows: Sequence[Sequence[Any]]) -> Op:
    return Op(MANY, sql, rows)


class IntegrityError(Exception):
    """PostgreSQL refused a write by a constraint (SQLite raises ``sqlite3.IntegrityError``,
    as it always has)."""


# A unique index or a key refusing a write, whichever backend ran it.
INTEGRITY_ERRORS = (sqlite3.IntegrityError, IntegrityError)


def run_sqlite(conn: sqlite3.Connection, job: Job[T]) -> T:
    """Run a job to its end on an SQLite connection (in the writer thread)."""
    try:
        op = job.send(None)
        while True:
            try:
                kind = op.kind
                if kind == EXECUTE:
                    result: Any = conn.execute(op.sql, op.args).rowcount
                elif kind == ONE:
                    result = conn.execute(op.sql, op.args).fetchone()
                elif kind == ALL:
                    result = conn.execute(op.sql, op.args).fetchall()
                elif kind == INSERT_ID:
                    result = conn.execute(op.sql, op.args).lastrowid
                else:
                    conn.executemany(op.sql, op.args)
                    result = None
            except sqlite3.Error as exc:
                op = job.throw(exc)
            else:
                op = job.send(result)
    except StopIteration as stop:
        return stop.value


@dataclass(frozen=True)
class Dialect:
    """How the shared schema's column types are spelled in one database."""

    name: str
    types: dict[str, str]

    def render(self, template: str) -> str:
        for token, spelling in self.types.items():
            template = template.replace("{" + token + "}", spelling)
        return template


# SQLite's spelling is the schema as Cityhall has always created it (an id column that is
# exactly "INTEGER PRIMARY KEY" is SQLite's rowid). PostgreSQL needs 64-bit columns for
# Discord's ids and double precision for times (its REAL is 4 bytes: whole seconds lost).
SQLITE = Dialect("sqlite", {"ID": "INTEGER PRIMARY KEY AUTOINCREMENT", "BIGINT": "INTEGER",
                            "REAL": "REAL", "BLOB": "BLOB"})
POSTGRES = Dialect("postgresql", {"ID": "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
                                  "BIGINT": "BIGINT", "REAL": "DOUBLE PRECISION",
                                  "BLOB": "BYTEA"})


# Schema versions (PRAGMA user_version; PostgreSQL: the cityhall_schema table): the SQL of
# each numbered migration (MIGRATIONS), with {TYPE} tokens each Dialect spells its own way.
_V1 = """
CREATE TABLE IF NOT EXISTS matches (
    id {ID},
    guild_id {BIGINT} NOT NULL,
    channel_id {BIGINT} NOT NULL,
    game TEXT NOT NULL,
    status TEXT NOT NULL,
    host_id TEXT NOT NULL,
    seats TEXT NOT NULL,
    options TEXT NOT NULL,
    seed {BIGINT} NOT NULL,
    state TEXT,
    version INTEGER NOT NULL DEFAULT 0,
    table_message_id {BIGINT},
    turn_started_at {REAL},
    extra TEXT NOT NULL DEFAULT '{}',
    created_at {REAL} NOT NULL,
    updated_at {REAL} NOT NULL
);
-- one unfinished match per channel or thread, whatever the game
CREATE UNIQUE INDEX IF NOT EXISTS one_match_per_channel
    ON matches(channel_id) WHERE status IN ('lobby', 'active');
CREATE TABLE IF NOT EXISTS actions (
    match_id {BIGINT} NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    player TEXT,
    action TEXT NOT NULL,
    by_computer INTEGER NOT NULL DEFAULT 0,
    at {REAL} NOT NULL,
    PRIMARY KEY (match_id, seq)
);
CREATE TABLE IF NOT EXISTS results (
    match_id {BIGINT} NOT NULL REFERENCES matches(id),
    guild_id {BIGINT} NOT NULL,
    game TEXT NOT NULL,
    player_id TEXT NOT NULL,
    name TEXT NOT NULL,
    cpu INTEGER NOT NULL,
    score INTEGER NOT NULL,
    won INTEGER NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    finished_at {REAL} NOT NULL,
    PRIMARY KEY (match_id, player_id)
);
CREATE INDEX IF NOT EXISTS results_by_guild ON results(guild_id, game);
"""

_V2 = """
-- the restore reads unfinished matches only: an index instead of a scan of every game
CREATE INDEX IF NOT EXISTS unfinished_matches
    ON matches(id) WHERE status IN ('lobby', 'active');
-- the state version the table message shows: after a restart only tables that are behind
-- are re-drawn
ALTER TABLE matches ADD COLUMN table_version INTEGER;
-- the state of a running match lives beside its small matches row, so that rows stay
-- packed densely and a finished game's state leaves whole pages free for the next one
CREATE TABLE IF NOT EXISTS match_states (
    match_id {BIGINT} PRIMARY KEY REFERENCES matches(id),
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS archive (
    match_id {BIGINT} PRIMARY KEY REFERENCES matches(id),
    actions {BLOB} NOT NULL,   -- zlib(JSON [[seq, player, action, by_computer, at], ...])
    state {BLOB}               -- zlib(JSON final state)
);
CREATE TABLE IF NOT EXISTS player_totals (
    guild_id {BIGINT} NOT NULL,
    game TEXT NOT NULL,
    player_id TEXT NOT NULL,
    name TEXT NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    best INTEGER NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (guild_id, game, player_id)
);
CREATE INDEX IF NOT EXISTS player_totals_board
    ON player_totals(guild_id, game, wins DESC, best DESC, games DESC);
"""

_V3 = """
-- the bot's own small values (the hash of the last uploaded command tree); before schema 3
-- it was created on first use, so a database may have it already
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- the engine's state version each saved state was written with: a state saved by an older
-- Cityhall is upgraded by its engine before use. Every state saved so far is version 1.
ALTER TABLE match_states ADD COLUMN state_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE archive ADD COLUMN state_version INTEGER NOT NULL DEFAULT 1;
"""

# The SQLite text of each schema (tests build old databases from it).
SCHEMA_V1, SCHEMA_V2, SCHEMA_V3 = (SQLITE.render(sql) for sql in (_V1, _V2, _V3))


@dataclass(frozen=True)
class Migration:
    """One numbered step of the schema. ``number`` is the schema version the database has
    after it; ``description`` ends the log sentence "Upgrading the database from schema N-1
    to N: ..."; ``sql`` runs first, then ``step`` (data moved or recomputed in Python), in
    one transaction with the version bump, so a failed step leaves the database as it was.

    A step must not call code that changes with later schemas (it would meet tables as they
    were at its own number): give it its own copy of what it needs."""

    number: int
    description: str
    sql: str = ""  # a template: Dialect.render spells its types for each database
    step: Callable[[], Job[None]] | None = None


def _v2_move_states_and_archive() -> Job[None]:
    yield execute("INSERT INTO match_states (match_id, state) SELECT id, state"
                  " FROM matches WHERE state IS NOT NULL")
    yield execute("UPDATE matches SET state=NULL")
    yield from _v2_backfill_totals()
    yield from _v2_archive_finished()


MIGRATIONS: list[Migration] = [
    Migration(1, "matches, their moves and results", _V1),
    Migration(2, "states kept beside their matches, finished games archived, and per-player "
                 "totals for /stats", _V2, _v2_move_states_and_archive),
    Migration(3, "a table for the bot's own values, and the state version of every saved game",
              _V3),
]
SCHEMA_VERSION = MIGRATIONS[-1].number
assert [m.number for m in MIGRATIONS] == list(range(1, SCHEMA_VERSION + 1))
FINISHED = ("over", "ended", "abandoned")
# SQLite's application id (header offset 68) for Cityhall files, "City" in ASCII: lets the
# bot (and `file`) tell its own database from another program's SQLite file.
APPLICATION_ID = 0x43697479
# The tables every Cityhall database has had since schema 1.
CITYHALL_TABLES = frozenset({"matches", "actions", "results"})
# How long opening waits for another program's lock before saying so (start-up must fail
# within seconds, not hang); writes afterwards wait ``busy_timeout``.
OPEN_TIMEOUT = 2.0


class ChannelBusy(Exception):
    """The channel already has an unfinished match (the unique index said so)."""


class DatabaseLost(Exception):
    """The database file was deleted or replaced under the running bot; ``str()`` is the
    sentence for the player whose move was refused."""


class StorageError(Exception):
    """The database cannot be used; ``str(exc)`` names the file and the cause."""


@dataclass(frozen=True)
class LeaderboardRow:
    player_id: str
    name: str
    games: int
    wins: int
    best: int
    extra: dict[str, int] | None = None


@dataclass(frozen=True)
class ResultRow:
    player_id: str
    name: str
    cpu: bool
    score: int
    won: bool
    extra: dict[str, Any]


# -- the writer thread ------------------------------------------------------------------


@dataclass
class _Job:
    work: Callable[[sqlite3.Connection], Any]
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return  # the caller gave up (cancelled); the data is committed all the same
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class Writer:
    """One thread, one connection, every write. Jobs queued while a commit is running are
    committed together by the next one."""

    MAX_BATCH = 256

    def __init__(self, path: str, busy_timeout: float) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="cityhall-db-writer",
                                        daemon=True)
        self._conn: sqlite3.Connection | None = None
        self.commits = 0
        self.closed = False
        # The file the path named at start (device, inode): checked before every commit
        # (bot/core/dbfile.py). ``lost``: it was deleted or replaced; writes stop.
        self._file: tuple[int, int] | None = None
        self.lost = False
        # Called in the writer thread after each commit with its seconds and job count
        # (the metrics endpoint's database write time); must be quick and thread-safe.
        self.observe: Callable[[float, int], None] | None = None

    def start(self) -> None:
        # Open and migrate here, in the caller's thread, so a bad file fails at once.
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=min(OPEN_TIMEOUT, self.busy_timeout))
        try:
            if self.path != ":memory:":
                dbfile.quick_check(conn)
            _prepare(conn, self.path)
            if self.path != ":memory:":
                dbfile.check_recorded(conn, self.path)
                self._file = dbfile.identity(self.path)
            # How long a write waits for another process's lock before it fails.
            conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout * 1000)}")
        except dbfile.DatabaseProblem as exc:
            conn.close()
            raise StorageError(str(exc)) from exc
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        self._thread.start()

    async def submit(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self.closed:
            raise StorageError("The database is closed.")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put(_Job(work, future, loop))
        # A caller cancelled while waiting cancels only this future: the job is queued and
        # runs and commits regardless, and its outcome is then dropped (``_settle``). No
        # shield needed, and none made per save.
        return await future

    def close(self) -> None:
        """Finish every queued job, then close the connection."""
        if self.closed:
            return
        self.closed = True
        self._queue.put(None)
        # The thread closes the connection as it ends; a writer never started has none.
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        conn = self._conn
        assert conn is not None
        try:
            while True:
                first = self._queue.get()
                if first is None:
                    break
                batch = [first]
                stop = False
                while len(batch) < self.MAX_BATCH:
                    try:
                        job = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if job is None:
                        stop = True
                        break
                    batch.append(job)
                self._commit(conn, batch)
                if stop:
                    break
        finally:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.close()

    def _commit(self, conn: sqlite3.Connection, batch: list[_Job]) -> None:
        outcomes: list[tuple[_Job, Any, BaseException | None]] = []
        began = time.perf_counter()
        if self._file is not None and (self.lost or dbfile.identity(self.path) != self._file):
            if not self.lost:
                self.lost = True
                log.error("The database file %s was deleted or replaced while Cityhall was "
                          "running: no more moves are saved (they would go into the old "
                          "file, which is gone). Put the file back or restore a backup, "
                          "then restart Cityhall.", self.path)
            lost = DatabaseLost(dbfile.LOST)
            for job in batch:
                job.loop.call_soon_threadsafe(_settle, job.future, None, lost)
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
            for job in batch:
                conn.execute("SAVEPOINT job")
                try:
                    result = job.work(conn)
                except Exception as exc:  # this job only: the others go on
                    conn.execute("ROLLBACK TO job")
                    conn.execute("RELEASE job")
                    outcomes.append((job, None, exc))
                else:
                    conn.execute("RELEASE job")
                    outcomes.append((job, result, None))
            conn.execute("COMMIT")
        except Exception as exc:
            # The commit itself failed (disk full, locked by another process): nothing in
            # this batch is on disk, and every caller is told so.
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            log.error("database write failed: %s", exc)
            for job in batch:
                job.loop.call_soon_threadsafe(_settle, job.future, None, exc)
            return
        self.commits += 1
        if self.observe is not None:
            with contextlib.suppress(Exception):
                self.observe(time.perf_counter() - began, len(batch))
        for job, result, error in outcomes:
            job.loop.call_soon_threadsafe(_settle, job.future, result, error)


def _prepare(conn: sqlite3.Connection, path: str) -> None:
    # Reading the schema first is what meets another program's lock, and it must happen
    # before anything below changes the file.
    tables = {row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")}
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StorageError(f"it was written by a newer Cityhall (schema {version}; this one "
                           f"knows up to {SCHEMA_VERSION})")
    check_identity(conn, tables)
    if not tables:
        # A new database: 8 KB pages hold three archived games (about 2.5 KB each) where
        # 4 KB pages held one, since a row does not share its page's remainder.
        conn.execute("PRAGMA page_size=8192")
    # WAL keeps readers off the writer's back; FULL sync makes a commit survive a killed
    # process and a power cut alike (one fsync per group of moves).
    if conn.execute("PRAGMA journal_mode=WAL").fetchone()[0].lower() not in ("wal", "memory"):
        raise StorageError("SQLite could not switch it to WAL mode (is the folder writable?)")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    if version < SCHEMA_VERSION:
        migrate(conn, path, version, existing=bool(tables))


def migrate(conn: sqlite3.Connection, path: str, version: int, *, existing: bool) -> None:
    """Apply every migration after ``version``, in order, each in its own transaction.

    An existing database is copied first (``before_upgrade_path``), so an admin who must go
    back to the previous Cityhall has the file as that version left it."""
    if existing:
        # (":memory:" is always new: an in-memory database has no earlier tables to copy.)
        copy = _copy_before_upgrade(conn, path)
        log.info("Upgrading the database %s from schema %d to %d; a copy of it as it was is "
                 "at %s (to go back: stop the bot, put that copy in its place, and run the "
                 "previous Cityhall).", path, version, SCHEMA_VERSION, copy)
    else:
        log.info("Setting up a new database at %s (schema %d).", path, SCHEMA_VERSION)
    for migration in MIGRATIONS:
        if migration.number <= version:
            continue
        if existing:
            log.info("Upgrading the database from schema %d to %d: %s.", migration.number - 1,
                     migration.number, migration.description)
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(SQLITE.render(migration.sql)):
                conn.execute(statement)
            if migration.step is not None:
                run_sqlite(conn, migration.step())
            conn.execute(f"PRAGMA user_version={migration.number}")
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, (sqlite3.Error, StorageError)):
                raise StorageError(f"upgrading it from schema {migration.number - 1} to "
                                   f"{migration.number} failed ({describe_error(exc)}); it "
                                   f"was left at schema {migration.number - 1}") from exc
            raise


def before_upgrade_path(path: str | Path, version: int) -> Path:
    """Where the copy taken before upgrading ``path`` to schema ``version`` goes: beside it,
    ``NAME.before-vN.sqlite3`` (with ``-2``, ``-3``... if an earlier attempt left one)."""
    path = Path(path)
    first = path.with_name(f"{path.name}.before-v{version}.sqlite3")
    candidate, number = first, 1
    while candidate.exists():
        number += 1
        candidate = first.with_name(f"{path.name}.before-v{version}-{number}.sqlite3")
    return candidate


def _copy_before_upgrade(conn: sqlite3.Connection, path: str) -> Path:
    target = before_upgrade_path(path, SCHEMA_VERSION)
    partial = target.with_name(f".{target.name}.partial")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    try:
        copy = sqlite3.connect(partial)
        try:
            # SQLite's backup API: the pages as they are committed, WAL included (a file
            # copy could miss what is still in NAME-wal).
            conn.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            copy.close()
        with open(partial, "rb") as file:
            os.fsync(file.fileno())
        os.replace(partial, target)
    except (sqlite3.Error, OSError) as exc:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
        raise StorageError(f"it needs upgrading, and the copy to take first could not be "
                           f"written to {target} ({describe_error(exc)}); nothing was "
                           f"changed") from exc
    return target


def check_identity(conn: sqlite3.Connection, tables: set[str]) -> None:
    """Refuse another program's SQLite file instead of adding Cityhall's tables to it."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if app_id not in (0, APPLICATION_ID):
        raise StorageError(f"it is another program's SQLite database (application id "
                           f"{app_id:#x}), not Cityhall's")
    missing = CITYHALL_TABLES - tables
    if tables and missing:
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise StorageError(f"it is not a Cityhall database: it has the tables {shown} but "
                           f"not {', '.join(sorted(missing))}")


# SQLite's result codes (sqlite3.Error.sqlite_errorcode & 0xff) in the admin's words.
_CAUSES = {
    3: "the operating system refused access to it",  # SQLITE_PERM
    5: "another program holds a lock on it (is a second Cityhall, or some other tool, "
       "using the same file?)",  # SQLITE_BUSY
    6: "another program holds a lock on it (is a second Cityhall, or some other tool, "
       "using the same file?)",  # SQLITE_LOCKED
    8: "it or its folder is read-only for this user",  # SQLITE_READONLY
    10: "reading or writing it failed (disk error)",  # SQLITE_IOERR
    11: "it is damaged (SQLite says the disk image is malformed)",  # SQLITE_CORRUPT
    13: "the disk is full",  # SQLITE_FULL
    14: "SQLite cannot open the file (a missing or unwritable folder?)",  # SQLITE_CANTOPEN
    26: "it is not an SQLite database",  # SQLITE_NOTADB
}


def describe_error(exc: BaseException) -> str:
    """The cause of a database error in a short clause, for a log sentence."""
    if isinstance(exc, StorageError):
        return str(exc)
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        cause = _CAUSES.get(code & 0xFF) if isinstance(code, int) else None
        if cause is not None:
            return f"{cause} [{exc}]"
        return str(exc)
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


_HEADER = b"SQLite format 3\x00"


def check_file(path: Path) -> None:
    """What can be told about the file before SQLite opens it; StorageError says what is
    wrong in a clause (SQLite itself says only "unable to open" or nothing at all: a file cut
    short opens fine and fails at the first page past its end)."""
    # Storage.open has made the folder (mkdir refuses a file standing in its way).
    folder = path.parent
    # SQLite creates NAME-wal and NAME-shm beside the file (WAL mode): the folder must be
    # writable, not only the file.
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StorageError(f"its folder {folder} is not writable for this user, and SQLite "
                           f"needs to create {path.name}-wal beside it")
    if not path.exists():
        return
    if not path.is_file():
        raise StorageError("it is not a file")
    if not os.access(path, os.R_OK | os.W_OK):
        raise StorageError("the file is not readable and writable for this user")
    size = path.stat().st_size
    if size == 0:
        return  # SQLite treats an empty file as a new database
    with open(path, "rb") as file:
        header = file.read(100)
    if len(header) < 100 or not header.startswith(_HEADER):
        raise StorageError("it is not an SQLite database (its first bytes are not SQLite's "
                           "header)")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    counter_valid = header[24:28] == header[92:96]
    wal = path.with_name(path.name + "-wal")
    wal_empty = not wal.exists() or wal.stat().st_size == 0
    # Only a database without a pending WAL must hold all its pages itself: a checkpoint
    # interrupted by a crash may leave the file short, and SQLite completes it from the WAL.
    if counter_valid and pages and wal_empty and size < pages * page_size:
        raise StorageError(f"it is cut short: its header says {pages * page_size:,} bytes "
                           f"but the file has {size:,} (a copy that did not finish, or a "
                           f"full disk?)")


def _statements(script: str) -> list[str]:
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


# -- frozen copies for migration 2 (see Migration) ---------------------------------------


def _v2_backfill_totals() -> Job[None]:
    # Shares _add_to_totals while player_totals keeps the shape schema 2 gave it; a migration
    # that changes that table must give this step its own copy first.
    rows = yield fetch_all("SELECT match_id, guild_id, game, player_id, name, score, won, extra"
                           " FROM results WHERE cpu=0 ORDER BY finished_at")
    for _match_id, guild_id, game, player_id, name, score, won, extra in rows:
        yield from _add_to_totals(guild_id, game, player_id, name, score, bool(won),
                                  json.loads(extra))


def _v2_archive_finished() -> Job[None]:
    marks = ",".join("?" * len(FINISHED))
    ids = [r[0] for r in (yield fetch_all(
        f"SELECT id FROM matches WHERE status IN ({marks}) AND id NOT IN "
        "(SELECT match_id FROM archive)", FINISHED))]
    for match_id in ids:
        rows = yield fetch_all("SELECT seq, player, action, by_computer, at FROM actions"
                               " WHERE match_id=? ORDER BY seq", (match_id,))
        log_json = json.dumps([[seq, player, json.loads(action), by_computer, at]
                               for seq, player, action, by_computer, at in rows],
                              separators=(",", ":"))
        state = yield fetch_one("SELECT state FROM match_states WHERE match_id=?", (match_id,))
        yield execute("INSERT INTO archive (match_id, actions, state) VALUES (?,?,?)",
                      (match_id, zlib.compress(log_json.encode(), 9),
                       None if state is None else zlib.compress(state[0].encode(), 9)))
        yield execute("DELETE FROM actions WHERE match_id=?", (match_id,))
        yield execute("DELETE FROM match_states WHERE match_id=?", (match_id,))


# -- what the jobs do (in the writer thread, or a PostgreSQL transaction) -------------------


def _add_to_totals(guild_id: int, game: str, player_id: str, name: str, score: int, won: bool,
                   extra: dict[str, Any]) -> Job[None]:
    row = yield fetch_one("SELECT games, wins, best, extra FROM player_totals WHERE guild_id=?"
                          " AND game=? AND player_id=?", (guild_id, game, player_id))
    numbers = {k: v for k, v in extra.items() if isinstance(v, int) and not isinstance(v, bool)}
    if row is None:
        yield execute("INSERT INTO player_totals (guild_id, game, player_id, name, games, wins,"
                      " best, extra) VALUES (?,?,?,?,?,?,?,?)",
                      (guild_id, game, player_id, name, 1, int(won), score, json.dumps(numbers)))
        return
    games, wins, best, old = row
    summed = json.loads(old)
    for key, value in numbers.items():
        summed[key] = summed.get(key, 0) + value
    yield execute("UPDATE player_totals SET name=?, games=?, wins=?, best=?, extra=?"
                  " WHERE guild_id=? AND game=? AND player_id=?",
                  (name, games + 1, wins + int(won), max(best, score), json.dumps(summed),
                   guild_id, game, player_id))


def _recount_totals(guild_id: int, game: str, player_id: str) -> Job[None]:
    """A game's results were written again (a replaced result): count the player afresh."""
    yield execute("DELETE FROM player_totals WHERE guild_id=? AND game=? AND player_id=?",
                  (guild_id, game, player_id))
    for name, score, won, extra in (yield fetch_all(
            "SELECT name, score, won, extra FROM results WHERE guild_id=? AND game=?"
            " AND player_id=? AND cpu=0 ORDER BY finished_at", (guild_id, game, player_id))):
        yield from _add_to_totals(guild_id, game, player_id, name, score, bool(won),
                                  json.loads(extra))


def _archive(match_id: int) -> Job[None]:
    """Fold a finished match's action log and final state into one compressed row."""
    rows = yield fetch_all("SELECT seq, player, action, by_computer, at FROM actions"
                           " WHERE match_id=? ORDER BY seq", (match_id,))
    entries = [[seq, player, json.loads(action), by_computer, at]
               for seq, player, action, by_computer, at in rows]
    old = yield fetch_one("SELECT actions FROM archive WHERE match_id=?", (match_id,))
    if old is not None:
        # Saved again after it was archived (a table message id, say): keep the log.
        entries = json.loads(zlib.decompress(old[0])) + entries
    state = yield fetch_one("SELECT state, state_version FROM match_states WHERE match_id=?",
                            (match_id,))
    state_blob = None if state is None else zlib.compress(state[0].encode(), 9)
    state_version = 1 if state is None else state[1]
    if state_blob is None and old is not None:
        state_blob, state_version = yield fetch_one(
            "SELECT state, state_version FROM archive WHERE match_id=?", (match_id,))
    log_json = json.dumps(entries, separators=(",", ":"))
    yield execute(_UPSERT_ARCHIVE,
                  (match_id, zlib.compress(log_json.encode(), 9), state_blob, state_version))
    yield execute("DELETE FROM actions WHERE match_id=?", (match_id,))
    yield execute("DELETE FROM match_states WHERE match_id=?", (match_id,))


# Upserts both databases know (SQLite 3.24 and later), where SQLite alone had INSERT OR
# REPLACE; the row ends up the same.
_UPSERT_ARCHIVE = (
    "INSERT INTO archive (match_id, actions, state, state_version) VALUES (?,?,?,?)"
    " ON CONFLICT (match_id) DO UPDATE SET actions=excluded.actions, state=excluded.state,"
    " state_version=excluded.state_version")
_UPSERT_STATE = (
    "INSERT INTO match_states (match_id, state, state_version) VALUES (?,?,?)"
    " ON CONFLICT (match_id) DO UPDATE SET state=excluded.state,"
    " state_version=excluded.state_version")
_UPSERT_RESULT = (
    "INSERT INTO results (match_id, guild_id, game, player_id, name, cpu, score, won, extra,"
    " finished_at) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (match_id, player_id) DO UPDATE"
    " SET guild_id=excluded.guild_id, game=excluded.game, name=excluded.name,"
    " cpu=excluded.cpu, score=excluded.score, won=excluded.won, extra=excluded.extra,"
    " finished_at=excluded.finished_at")


_INSERT_MATCH = (
    "INSERT INTO matches (guild_id, channel_id, game, status, host_id, seats, options, seed,"
    " state, version, table_message_id, turn_started_at, extra, created_at, updated_at)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
_UPDATE_MATCH = (
    "UPDATE matches SET guild_id=?, channel_id=?, game=?, status=?, host_id=?, seats=?,"
    " options=?, seed=?, state=?, version=?, table_message_id=?, turn_started_at=?, extra=?,"
    " updated_at=? WHERE id=?")


# -- the backends -------------------------------------------------------------------------


class Backend(Protocol):
    """Where a Storage keeps its data: SQLite here, PostgreSQL in ``bot/core/postgres.py``.

    ``run`` commits one job (made afresh by ``make`` each time it is tried) in a transaction
    of its own or, with SQLite, under its own savepoint in a group commit; it returns only
    after the commit. Reads see committed data only; their SQL uses ``?`` placeholders and
    their rows are read by column name."""

    dialect: Dialect

    @property
    def commits(self) -> int: ...
    def run(self, make: Callable[[], Job[T]]) -> Awaitable[T]: ...
    async def fetch_one(self, sql: str, args: Sequence[Any] = ()) -> Any: ...
    async def fetch_all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]: ...
    async def fetch_small(self, sql: str, args: Sequence[Any] = ()) -> list[Any]: ...
    def observe_writes(self, callback: Callable[[float, int], None] | None) -> None: ...
    async def close(self) -> None: ...


class SQLiteBackend:
    """One writer thread (group commit) and one aiosqlite reader on the same file."""

    dialect = SQLITE

    def __init__(self, writer: Writer, reader: aiosqlite.Connection,
                 quick: sqlite3.Connection | None = None) -> None:
        self.writer = writer
        self.reader = reader
        # Small reads bounded by an index, done on the event loop's own thread (``/stats``).
        # A trip to the reader's thread costs more than such a query when the loop is
        # busy: the thread needs the GIL for every step of the query and gets it only when
        # the loop's thread lets go (every 5 ms of running Python), so a 0.3 ms leaderboard
        # came back after 10-15 ms. (WAL: a read never waits for the writer.)
        self.quick = quick

    @property
    def commits(self) -> int:
        return self.writer.commits

    def run(self, make: Callable[[], Job[T]]) -> Awaitable[T]:
        return self.writer.submit(lambda conn: run_sqlite(conn, make()))

    async def fetch_one(self, sql: str, args: Sequence[Any] = ()) -> Any:
        async with self.reader.execute(sql, args) as cur:
            return await cur.fetchone()

    async def fetch_all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        return list(await self.reader.execute_fetchall(sql, args))

    async def fetch_small(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        """``fetch_all`` on the loop's thread, for a query that reads a few index pages;
        through the reader thread (which can wait) if the file is locked for a moment."""
        if self.quick is not None:
            try:
                return self.quick.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                log.info("A small read went through the database thread: %s", exc)
        return await self.fetch_all(sql, args)

    def observe_writes(self, callback: Callable[[float, int], None] | None) -> None:
        self.writer.observe = callback

    async def close(self) -> None:
        try:
            if self.quick is not None:
                self.quick.close()
            await self.reader.close()
        finally:
            await asyncio.to_thread(self.writer.close)

    @classmethod
    async def open(cls, path: str | Path, *, busy_timeout: float = 10.0) -> SQLiteBackend:
        name = str(path)
        if name != ":memory:":
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StorageError(f"Cannot create the folder for the database {name}: "
                                   f"{exc.strerror or exc}.") from exc
        writer = Writer(name, busy_timeout)

        def start() -> None:
            if name != ":memory:":
                check_file(Path(path))
            writer.start()

        try:
            await asyncio.to_thread(start)
        except (sqlite3.Error, StorageError, OSError) as exc:
            raise StorageError(f"Cannot open the database {name}: {describe_error(exc)}.") \
                from exc
        try:
            reader = await aiosqlite.connect(name, timeout=10.0)
        except BaseException as exc:
            await asyncio.to_thread(writer.close)
            if isinstance(exc, sqlite3.Error):
                raise StorageError(f"Cannot open the database {name}: "
                                   f"{describe_error(exc)}.") from exc
            raise
        reader.row_factory = aiosqlite.Row
        quick = None
        if name != ":memory:":
            try:
                # short busy wait: this runs on the event loop's thread
                quick = sqlite3.connect(name, timeout=0.02, isolation_level=None)
                quick.row_factory = sqlite3.Row
                quick.execute("PRAGMA query_only=ON")
            except sqlite3.Error as exc:
                log.warning("Small reads go through the database thread: %s",
                            describe_error(exc))
                quick = None
        return cls(writer, reader, quick)


def url_for_logs(url: str) -> str:
    """The server and database of a URL without its password, for log sentences."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    port = f":{parts.port}" if parts.port else ""
    user = f"{parts.username}@" if parts.username else ""
    return f"{user}{host}{port}{parts.path or '/'}"


def is_database_url(target: str | Path) -> bool:
    """A ``postgresql://`` (or ``postgres://``) URL rather than an SQLite file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


# -- the storage the runtime uses -----------------------------------------------------------


class Storage:
    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    @classmethod
    async def open(cls, target: str | Path, *, busy_timeout: float = 10.0) -> Storage:
        """Open (creating or upgrading) the database: an SQLite file, or a PostgreSQL server
        for a ``postgresql://`` URL. StorageError names what is wrong in a sentence."""
        if is_database_url(target):
            from .postgres import PostgresBackend  # asyncpg is imported only when used

            return cls(await PostgresBackend.open(str(target)))
        return cls(await SQLiteBackend.open(target, busy_timeout=busy_timeout))

    @property
    def dialect(self) -> Dialect:
        return self._backend.dialect

    @property
    def _writer(self) -> Writer:
        """The SQLite writer (tests look at its queue)."""
        assert isinstance(self._backend, SQLiteBackend)
        return self._backend.writer

    async def close(self) -> None:
        """Commit every queued job and close. SQLite: the WAL is then checkpointed into the
        database file, so the file alone is complete."""
        await self._backend.close()

    def observe_writes(self, callback: Callable[[float, int], None] | None) -> None:
        """``callback(seconds, jobs)`` after every commit (SQLite: in the writer thread)."""
        self._backend.observe_writes(callback)

    @property
    def commits(self) -> int:
        """How many transactions were committed (with SQLite each holds one or more jobs)."""
        return self._backend.commits

    @property
    def unreachable(self) -> bool:
        """PostgreSQL: the server is out of reach now and writes wait for it."""
        return getattr(self._backend, "_outage_since", None) is not None

    async def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """SQLite only: run ``work`` atomically in the writer thread; returns once it is
        committed. Code for both databases uses ``run``."""
        if not isinstance(self._backend, SQLiteBackend):
            raise TypeError("Storage.write takes SQLite work; use Storage.run")
        return await self._backend.writer.submit(work)

    async def run(self, make: Callable[[], Job[T]]) -> T:
        """Commit the job ``make()`` returns; returns its result once it is committed."""
        return await self._backend.run(make)

    # -- matches ----------------------------------------------------------------------

    async def create_match(self, match: Match) -> Match:
        now = time.time()
        columns = _columns(match)

        def insert() -> Job[int]:
            try:
                match_id = yield insert_id(_INSERT_MATCH, (*columns, now, now))
            except INTEGRITY_ERRORS as exc:
                raise ChannelBusy from exc
            assert match_id is not None
            return int(match_id)

        match.id = await self.run(insert)
        match.created_at = now
        return match

    async def save(
        self,
        match: Match,
        *,
        action: dict[str, Any] | None = None,
        player: str | None = None,
        by_computer: bool = False,
        results: Iterable[ResultRow] = (),
    ) -> None:
        """Write the match (and the action that led to it, and final results) atomically."""
        now = time.time()
        columns = _columns(match)
        state_json = None if match.state is None else json.dumps(match.state,
                                                                  separators=(",", ":"))
        action_json = None if action is None else json.dumps(action, separators=(",", ":"))
        rows = list(results)
        finished = match.status in FINISHED
        match_id, version, guild_id, game = match.id, match.version, match.guild_id, match.game
        state_version = match.state_version

        def update() -> Job[None]:
            if (yield execute(_UPDATE_MATCH, (*columns, now, match_id))) != 1:
                raise StorageError(f"match {match_id} is not in the database")
            if state_json is not None:
                yield execute(_UPSERT_STATE, (match_id, state_json, state_version))
            if action_json is not None:
                yield execute("INSERT INTO actions (match_id, seq, player, action, by_computer,"
                              " at) VALUES (?,?,?,?,?,?)",
                              (match_id, version, player, action_json, int(by_computer), now))
            again = rows and (yield fetch_one("SELECT 1 FROM results WHERE match_id=? LIMIT 1",
                                              (match_id,))) is not None
            for row in rows:
                yield execute(_UPSERT_RESULT,
                              (match_id, guild_id, game, row.player_id, row.name, int(row.cpu),
                               row.score, int(row.won), json.dumps(row.extra), now))
                if again and not row.cpu:
                    yield from _recount_totals(guild_id, game, row.player_id)
                elif not row.cpu:
                    yield from _add_to_totals(guild_id, game, row.player_id, row.name,
                                              row.score, row.won, row.extra)
            if finished:
                yield from _archive(match_id)

        await self.run(update)

    async def get(self, match_id: int) -> Match | None:
        row = await self._backend.fetch_one(
            "SELECT m.*, s.state AS live_state, s.state_version AS live_state_version,"
            " a.state AS archived_state, a.state_version AS archived_state_version"
            " FROM matches m LEFT JOIN match_states s ON s.match_id = m.id"
            " LEFT JOIN archive a ON a.match_id = m.id WHERE m.id=?", (match_id,))
        if row is None:
            return None
        state_text, state_version = row["live_state"], row["live_state_version"]
        if state_text is None and row["archived_state"] is not None:
            state_text = zlib.decompress(row["archived_state"]).decode()
            state_version = row["archived_state_version"]
        return _match(row, state_text, state_version)

    async def unfinished(self, shards: Shards | None = None) -> list[Match]:
        """Every unfinished match, or with ``shards`` only those in servers on its shards
        (another process drives the rest, and must be the only one to)."""
        # The literal list lets SQLite use the partial index (a bound parameter would not);
        # the shard condition then filters the few unfinished rows that index yields.
        owned = "" if shards is None or shards.everything else f" AND {shards.sql('m.guild_id')}"
        rows = await self._backend.fetch_all(
            "SELECT m.*, s.state AS live_state, s.state_version AS live_state_version"
            " FROM matches m LEFT JOIN match_states s ON s.match_id = m.id"
            f" WHERE m.status IN ('lobby', 'active'){owned} ORDER BY m.id")
        # Decoding a thousand states is tens of milliseconds: off the event loop.
        return await asyncio.to_thread(
            lambda: [_match(row, row["live_state"], row["live_state_version"]) for row in rows])

    async def actions(self, match_id: int) -> list[tuple[str | None, dict[str, Any]]]:
        rows = await self._backend.fetch_all(
            "SELECT player, action FROM actions WHERE match_id=? ORDER BY seq", (match_id,))
        if rows:
            return [(row["player"], json.loads(row["action"])) for row in rows]
        archived = await self._backend.fetch_one(
            "SELECT actions FROM archive WHERE match_id=?", (match_id,))
        if archived is None:
            return []
        return [(player, action) for _seq, player, action, _cpu, _at
                in json.loads(zlib.decompress(archived["actions"]))]

    async def mark_shown(self, match_id: int, version: int) -> None:
        """The table message now shows ``version`` (only ever moves forward)."""
        def update() -> Job[None]:
            yield execute("UPDATE matches SET table_version=? WHERE id=? AND"
                          " (table_version IS NULL OR table_version < ?)",
                          (version, match_id, version))
        await self.run(update)

    # -- the bot's own small values (e.g. the last synced command tree) -----------------

    async def value(self, key: str) -> str | None:
        row = await self._backend.fetch_one("SELECT value FROM kv WHERE key=?", (key,))
        return None if row is None else str(row["value"])

    async def values_with_prefix(self, prefix: str) -> list[tuple[str, str]]:
        """Every (key, value) whose key starts with ``prefix`` (e.g. all servers' settings)."""
        if self._backend.dialect is POSTGRES:
            rows = await self._backend.fetch_all(
                "SELECT key, value FROM kv WHERE starts_with(key, ?)", (prefix,))
        else:
            # GLOB, not LIKE: the key's "_" or "%" would be wildcards to LIKE.
            pattern = "".join(f"[{c}]" if c in "*?[" else c for c in prefix) + "*"
            try:
                rows = await self._backend.fetch_all(
                    "SELECT key, value FROM kv WHERE key GLOB ?", (pattern,))
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return []
                raise
        return [(str(r["key"]), str(r["value"])) for r in rows]

    async def set_value(self, key: str, value: str) -> None:
        def upsert() -> Job[None]:
            yield execute("INSERT INTO kv(key, value) VALUES (?, ?)"
                          " ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value))
        await self.run(upsert)

    async def delete_values(self, keys: list[str]) -> None:
        def delete() -> Job[None]:
            yield execute_many("DELETE FROM kv WHERE key=?", [(k,) for k in keys])
        if keys:
            await self.run(delete)

    # -- results ----------------------------------------------------------------------

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[LeaderboardRow]:
        return (await self.leaderboards(guild_id, [game], limit))[game]

    async def leaderboards(self, guild_id: int, games: list[str],
                           limit: int = 10) -> dict[str, list[LeaderboardRow]]:
        """The top ``limit`` of each game in one read (``/stats`` shows four games at once),
        at most ``limit`` rows a game through the board index: a small read."""
        boards: dict[str, list[LeaderboardRow]] = {game: [] for game in games}
        if not games:
            return boards
        rows = await self._backend.fetch_small(
            "SELECT game, player_id, name, games, wins, best, extra FROM ("
            " SELECT *, ROW_NUMBER() OVER (PARTITION BY game"
            "  ORDER BY wins DESC, best DESC, games DESC) AS place"
            " FROM player_totals WHERE guild_id=? AND game IN"
            f" ({', '.join('?' * len(games))})) AS ranked"
            " WHERE place <= ? ORDER BY game, place",
            (guild_id, *games, limit),
        )
        for r in rows:
            boards[r["game"]].append(LeaderboardRow(r["player_id"], r["name"], r["games"],
                                                    r["wins"], r["best"],
                                                    json.loads(r["extra"])))
        return boards


def _columns(match: Match) -> tuple[Any, ...]:
    return (
        match.guild_id,
        match.channel_id,
        match.game,
        match.status,
        match.host_id,
        json.dumps([s.to_json() for s in match.seats]),
        json.dumps(match.options),
        match.seed,
        None,  # the state is kept in match_states (or, finished, in archive)
        match.version,
        match.table_message_id,
        match.turn_started_at,
        json.dumps(match.extra),
    )


def _match(row: Any, state_text: str | None, state_version: int | None) -> Match:
    return Match(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        game=row["game"],
        status=row["status"],
        host_id=row["host_id"],
        seats=[Seat.from_json(s) for s in json.loads(row["seats"])],
        options=json.loads(row["options"]),
        seed=row["seed"],
        state=None if state_text is None else json.loads(state_text),
        state_version=state_version or 1,
        version=row["version"],
        table_message_id=row["table_message_id"],
        turn_started_at=row["turn_started_at"],
        table_version=row["table_version"],
        created_at=row["created_at"],
        extra=json.loads(row["extra"]),
    )
