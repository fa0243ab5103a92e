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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import queue
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from .records import UNFINISHED, Match, Seat

assert UNFINISHED == ("lobby", "active")  # spelled out in the SQL below

log = logging.getLogger(__name__)

T = TypeVar("T")

# Schema versions (PRAGMA user_version). Each step runs once, in order, in one transaction.
SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    game TEXT NOT NULL,
    status TEXT NOT NULL,
    host_id TEXT NOT NULL,
    seats TEXT NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER NOT NULL,
    state TEXT,
    version INTEGER NOT NULL DEFAULT 0,
    table_message_id INTEGER,
    turn_started_at REAL,
    extra TEXT NOT NULL DEFAULT '{}',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
-- one unfinished match per channel or thread, whatever the game
CREATE UNIQUE INDEX IF NOT EXISTS one_match_per_channel
    ON matches(channel_id) WHERE status IN ('lobby', 'active');
CREATE TABLE IF NOT EXISTS actions (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    player TEXT,
    action TEXT NOT NULL,
    by_computer INTEGER NOT NULL DEFAULT 0,
    at REAL NOT NULL,
    PRIMARY KEY (match_id, seq)
);
CREATE TABLE IF NOT EXISTS results (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    guild_id INTEGER NOT NULL,
    game TEXT NOT NULL,
    player_id TEXT NOT NULL,
    name TEXT NOT NULL,
    cpu INTEGER NOT NULL,
    score INTEGER NOT NULL,
    won INTEGER NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    finished_at REAL NOT NULL,
    PRIMARY KEY (match_id, player_id)
);
CREATE INDEX IF NOT EXISTS results_by_guild ON results(guild_id, game);
"""

SCHEMA_V2 = """
-- the restore reads unfinished matches only: an index instead of a scan of every game
CREATE INDEX IF NOT EXISTS unfinished_matches
    ON matches(id) WHERE status IN ('lobby', 'active');
-- the state version the table message shows: after a restart only tables that are behind
-- are re-drawn
ALTER TABLE matches ADD COLUMN table_version INTEGER;
-- the state of a running match lives beside its small matches row, so that rows stay
-- packed densely and a finished game's state leaves whole pages free for the next one
CREATE TABLE IF NOT EXISTS match_states (
    match_id INTEGER PRIMARY KEY REFERENCES matches(id),
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS archive (
    match_id INTEGER PRIMARY KEY REFERENCES matches(id),
    actions BLOB NOT NULL,   -- zlib(JSON [[seq, player, action, by_computer, at], ...])
    state BLOB               -- zlib(JSON final state)
);
CREATE TABLE IF NOT EXISTS player_totals (
    guild_id INTEGER NOT NULL,
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

SCHEMA_VERSION = 2
FINISHED = ("over", "ended", "abandoned")


class ChannelBusy(Exception):
    """The channel already has an unfinished match (the unique index said so)."""


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

    def start(self) -> None:
        # Open and migrate here, in the caller's thread, so a bad file fails at once.
        # How long a write waits for another process's lock before it fails.
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=self.busy_timeout)
        try:
            _prepare(conn)
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
        # Shielded: a caller cancelled while waiting must not leave the outcome unknown to
        # the others; the job runs and commits regardless.
        return await asyncio.shield(future)

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
        for job, result, error in outcomes:
            job.loop.call_soon_threadsafe(_settle, job.future, result, error)


def _prepare(conn: sqlite3.Connection) -> None:
    # WAL keeps readers off the writer's back; FULL sync makes a commit survive a killed
    # process and a power cut alike (one fsync per group of moves).
    if conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
        # A new database: 8 KB pages hold three archived games (about 2.5 KB each) where
        # 4 KB pages held one, since a row does not share its page's remainder.
        conn.execute("PRAGMA page_size=8192")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StorageError(f"it was written by a newer Cityhall (schema {version}; this one "
                           f"knows up to {SCHEMA_VERSION})")
    if version < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if version < 1:
                for statement in _statements(SCHEMA_V1):
                    conn.execute(statement)
            if version < 2:
                for statement in _statements(SCHEMA_V2):
                    conn.execute(statement)
                conn.execute("INSERT INTO match_states (match_id, state) SELECT id, state"
                             " FROM matches WHERE state IS NOT NULL")
                conn.execute("UPDATE matches SET state=NULL")
                _backfill_totals(conn)
                _archive_finished(conn)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _statements(script: str) -> list[str]:
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _backfill_totals(conn: sqlite3.Connection) -> None:
    rows = conn.execute("SELECT match_id, guild_id, game, player_id, name, score, won, extra"
                        " FROM results WHERE cpu=0 ORDER BY finished_at").fetchall()
    for _match_id, guild_id, game, player_id, name, score, won, extra in rows:
        _add_to_totals(conn, guild_id, game, player_id, name, score, bool(won),
                       json.loads(extra))


def _archive_finished(conn: sqlite3.Connection) -> None:
    marks = ",".join("?" * len(FINISHED))
    ids = [r[0] for r in conn.execute(
        f"SELECT id FROM matches WHERE status IN ({marks}) AND id NOT IN "
        "(SELECT match_id FROM archive)", FINISHED)]
    for match_id in ids:
        _archive(conn, match_id)


# -- what the jobs do (in the writer thread) ----------------------------------------------


def _add_to_totals(conn: sqlite3.Connection, guild_id: int, game: str, player_id: str,
                   name: str, score: int, won: bool, extra: dict[str, Any]) -> None:
    row = conn.execute("SELECT games, wins, best, extra FROM player_totals WHERE guild_id=?"
                       " AND game=? AND player_id=?", (guild_id, game, player_id)).fetchone()
    numbers = {k: v for k, v in extra.items() if isinstance(v, int) and not isinstance(v, bool)}
    if row is None:
        conn.execute("INSERT INTO player_totals (guild_id, game, player_id, name, games, wins,"
                     " best, extra) VALUES (?,?,?,?,?,?,?,?)",
                     (guild_id, game, player_id, name, 1, int(won), score, json.dumps(numbers)))
        return
    games, wins, best, old = row
    summed = json.loads(old)
    for key, value in numbers.items():
        summed[key] = summed.get(key, 0) + value
    conn.execute("UPDATE player_totals SET name=?, games=?, wins=?, best=?, extra=?"
                 " WHERE guild_id=? AND game=? AND player_id=?",
                 (name, games + 1, wins + int(won), max(best, score), json.dumps(summed),
                  guild_id, game, player_id))


def _recount_totals(conn: sqlite3.Connection, guild_id: int, game: str, player_id: str) -> None:
    """A game's results were written again (a replaced result): count the player afresh."""
    conn.execute("DELETE FROM player_totals WHERE guild_id=? AND game=? AND player_id=?",
                 (guild_id, game, player_id))
    for name, score, won, extra in conn.execute(
            "SELECT name, score, won, extra FROM results WHERE guild_id=? AND game=?"
            " AND player_id=? AND cpu=0 ORDER BY finished_at", (guild_id, game, player_id)
    ).fetchall():
        _add_to_totals(conn, guild_id, game, player_id, name, score, bool(won), json.loads(extra))


def _archive(conn: sqlite3.Connection, match_id: int) -> None:
    """Fold a finished match's action log and final state into one compressed row."""
    rows = conn.execute("SELECT seq, player, action, by_computer, at FROM actions"
                        " WHERE match_id=? ORDER BY seq", (match_id,)).fetchall()
    entries = [[seq, player, json.loads(action), by_computer, at]
               for seq, player, action, by_computer, at in rows]
    old = conn.execute("SELECT actions FROM archive WHERE match_id=?", (match_id,)).fetchone()
    if old is not None:
        # Saved again after it was archived (a table message id, say): keep the log.
        entries = json.loads(zlib.decompress(old[0])) + entries
    state = conn.execute("SELECT state FROM match_states WHERE match_id=?",
                         (match_id,)).fetchone()
    state_blob = None if state is None else zlib.compress(state[0].encode(), 9)
    if state_blob is None and old is not None:
        state_blob = conn.execute("SELECT state FROM archive WHERE match_id=?",
                                  (match_id,)).fetchone()[0]
    log_json = json.dumps(entries, separators=(",", ":"))
    conn.execute("INSERT OR REPLACE INTO archive (match_id, actions, state) VALUES (?,?,?)",
                 (match_id, zlib.compress(log_json.encode(), 9), state_blob))
    conn.execute("DELETE FROM actions WHERE match_id=?", (match_id,))
    conn.execute("DELETE FROM match_states WHERE match_id=?", (match_id,))


_INSERT_MATCH = (
    "INSERT INTO matches (guild_id, channel_id, game, status, host_id, seats, options, seed,"
    " state, version, table_message_id, turn_started_at, extra, created_at, updated_at)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
_UPDATE_MATCH = (
    "UPDATE matches SET guild_id=?, channel_id=?, game=?, status=?, host_id=?, seats=?,"
    " options=?, seed=?, state=?, version=?, table_message_id=?, turn_started_at=?, extra=?,"
    " updated_at=? WHERE id=?")


# -- the storage the runtime uses -----------------------------------------------------------


class Storage:
    def __init__(self, writer: Writer, reader: aiosqlite.Connection) -> None:
        self._writer = writer
        self._db = reader

    @classmethod
    async def open(cls, path: str | Path, *, busy_timeout: float = 10.0) -> Storage:
        """Open (creating or upgrading) the database; StorageError names what is wrong."""
        name = str(path)
        if name != ":memory:":
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StorageError(f"Cannot create the folder for {name}: "
                                   f"{exc.strerror or exc}.") from exc
        writer = Writer(name, busy_timeout)
        try:
            await asyncio.to_thread(writer.start)
        except (sqlite3.Error, StorageError, OSError) as exc:
            raise StorageError(f"Cannot open the database {name}: {exc}.") from exc
        try:
            reader = await aiosqlite.connect(name, timeout=10.0)
        except BaseException:
            await asyncio.to_thread(writer.close)
            raise
        reader.row_factory = aiosqlite.Row
        return cls(writer, reader)

    async def close(self) -> None:
        try:
            await self._db.close()
        finally:
            await asyncio.to_thread(self._writer.close)

    @property
    def commits(self) -> int:
        """How many transactions the writer committed (each holds one or more jobs)."""
        return self._writer.commits

    async def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` atomically in the writer thread; returns once it is committed."""
        return await self._writer.submit(work)

    # -- matches ----------------------------------------------------------------------

    async def create_match(self, match: Match) -> Match:
        now = time.time()
        columns = _columns(match)

        def insert(conn: sqlite3.Connection) -> int:
            try:
                cursor = conn.execute(_INSERT_MATCH, (*columns, now, now))
            except sqlite3.IntegrityError as exc:
                raise ChannelBusy from exc
            assert cursor.lastrowid is not None
            return cursor.lastrowid

        match.id = await self.write(insert)
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

        def update(conn: sqlite3.Connection) -> None:
            cursor = conn.execute(_UPDATE_MATCH, (*columns, now, match_id))
            if cursor.rowcount != 1:
                raise StorageError(f"match {match_id} is not in the database")
            if state_json is not None:
                conn.execute("INSERT OR REPLACE INTO match_states (match_id, state)"
                             " VALUES (?,?)", (match_id, state_json))
            if action_json is not None:
                conn.execute("INSERT INTO actions (match_id, seq, player, action, by_computer,"
                             " at) VALUES (?,?,?,?,?,?)",
                             (match_id, version, player, action_json, int(by_computer), now))
            again = rows and conn.execute("SELECT 1 FROM results WHERE match_id=? LIMIT 1",
                                          (match_id,)).fetchone() is not None
            for row in rows:
                conn.execute("INSERT OR REPLACE INTO results (match_id, guild_id, game,"
                             " player_id, name, cpu, score, won, extra, finished_at)"
                             " VALUES (?,?,?,?,?,?,?,?,?,?)",
                             (match_id, guild_id, game, row.player_id, row.name, int(row.cpu),
                              row.score, int(row.won), json.dumps(row.extra), now))
                if again and not row.cpu:
                    _recount_totals(conn, guild_id, game, row.player_id)
                elif not row.cpu:
                    _add_to_totals(conn, guild_id, game, row.player_id, row.name, row.score,
                                   row.won, row.extra)
            if finished:
                _archive(conn, match_id)

        await self.write(update)

    async def get(self, match_id: int) -> Match | None:
        async with self._db.execute(
            "SELECT m.*, s.state AS live_state, a.state AS archived_state FROM matches m"
            " LEFT JOIN match_states s ON s.match_id = m.id"
            " LEFT JOIN archive a ON a.match_id = m.id WHERE m.id=?", (match_id,)
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        state_text = row["live_state"]
        if state_text is None and row["archived_state"] is not None:
            state_text = zlib.decompress(row["archived_state"]).decode()
        return _match(row, state_text)

    async def unfinished(self) -> list[Match]:
        # The literal list lets SQLite use the partial index (a bound parameter would not).
        async with self._db.execute(
            "SELECT m.*, s.state AS live_state FROM matches m"
            " LEFT JOIN match_states s ON s.match_id = m.id"
            " WHERE m.status IN ('lobby', 'active') ORDER BY m.id"
        ) as cur:
            rows = await cur.fetchall()
        # Decoding a thousand states is tens of milliseconds: off the event loop.
        return await asyncio.to_thread(lambda: [_match(row, row["live_state"]) for row in rows])

    async def actions(self, match_id: int) -> list[tuple[str | None, dict[str, Any]]]:
        async with self._db.execute(
            "SELECT player, action FROM actions WHERE match_id=? ORDER BY seq", (match_id,)
        ) as cur:
            rows = await cur.fetchall()
        if rows:
            return [(row["player"], json.loads(row["action"])) for row in rows]
        async with self._db.execute("SELECT actions FROM archive WHERE match_id=?",
                                    (match_id,)) as cur:
            archived = await cur.fetchone()
        if archived is None:
            return []
        return [(player, action) for _seq, player, action, _cpu, _at
                in json.loads(zlib.decompress(archived["actions"]))]

    async def mark_shown(self, match_id: int, version: int) -> None:
        """The table message now shows ``version`` (only ever moves forward)."""
        def update(conn: sqlite3.Connection) -> None:
            conn.execute("UPDATE matches SET table_version=? WHERE id=? AND"
                         " (table_version IS NULL OR table_version < ?)",
                         (version, match_id, version))
        await self.write(update)

    # -- results ----------------------------------------------------------------------

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[LeaderboardRow]:
        async with self._db.execute(
            "SELECT player_id, name, games, wins, best, extra FROM player_totals"
            " WHERE guild_id=? AND game=? ORDER BY wins DESC, best DESC, games DESC LIMIT ?",
            (guild_id, game, limit),
        ) as cur:
            rows = await cur.fetchall()
        return [
            LeaderboardRow(r["player_id"], r["name"], r["games"], r["wins"], r["best"],
                           json.loads(r["extra"]))
            for r in rows
        ]


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


def _match(row: Any, state_text: str | None) -> Match:
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
        version=row["version"],
        table_message_id=row["table_message_id"],
        turn_started_at=row["turn_started_at"],
        table_version=row["table_version"],
        created_at=row["created_at"],
        extra=json.loads(row["extra"]),
    )
