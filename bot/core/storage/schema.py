"""The schema and its numbered migrations, and an SQLite file made ready for them.

``MIGRATIONS`` is the one list of schema steps both databases run (``Dialect`` spells their
types); ``_prepare`` checks an SQLite file is Cityhall's and up to date, upgrading it (after
a copy of it is taken) when it is behind. ``check_file`` looks at the file before SQLite
opens it. PostgreSQL's own preparation is in ``postgres.py``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..records import UNFINISHED
from .jobs import _add_to_totals, _rate_every_result
from .ops import (
    SQLITE,
    Job,
    StorageError,
    describe_error,
    execute,
    fetch_all,
    fetch_one,
    run_sqlite,
)

assert UNFINISHED == ("lobby", "active")  # spelled out in the SQL below

# The name the storage's log lines have always carried (bot.core.storage was one module).
log = logging.getLogger("bot.core.storage")


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

_V4 = """
-- rating seasons: a server's current season is its highest season here, or 1 without a row
-- (/settings ratings reset adds the next one; the old seasons' ratings stay as they were)
CREATE TABLE IF NOT EXISTS rating_seasons (
    guild_id {BIGINT} NOT NULL,
    season INTEGER NOT NULL,
    started_at {REAL} NOT NULL,
    PRIMARY KEY (guild_id, season)
);
-- every player's rating (people by Discord id, each computer level as "cpu:<level>") per
-- server, game and season; rating is the number shown (docs/ratings.md)
CREATE TABLE IF NOT EXISTS ratings (
    guild_id {BIGINT} NOT NULL,
    game TEXT NOT NULL,
    season INTEGER NOT NULL,
    player_id TEXT NOT NULL,
    name TEXT NOT NULL,
    cpu INTEGER NOT NULL,
    mu {REAL} NOT NULL,
    sigma {REAL} NOT NULL,
    rating INTEGER NOT NULL,
    games INTEGER NOT NULL,
    updated_at {REAL} NOT NULL,
    PRIMARY KEY (guild_id, game, season, player_id)
);
CREATE INDEX IF NOT EXISTS ratings_board ON ratings(guild_id, game, season, rating DESC);
-- what each rated game did to each player's rating (place 1 = first; ties share a place);
-- mu, sigma and rating are after the game, before is the rating before it
CREATE TABLE IF NOT EXISTS rating_changes (
    match_id {BIGINT} NOT NULL REFERENCES matches(id),
    player_id TEXT NOT NULL,
    guild_id {BIGINT} NOT NULL,
    game TEXT NOT NULL,
    season INTEGER NOT NULL,
    place INTEGER NOT NULL,
    mu {REAL} NOT NULL,
    sigma {REAL} NOT NULL,
    rating INTEGER NOT NULL,
    before INTEGER NOT NULL,
    finished_at {REAL} NOT NULL,
    PRIMARY KEY (match_id, player_id)
);
CREATE INDEX IF NOT EXISTS rating_changes_by_player
    ON rating_changes(guild_id, player_id, finished_at);
-- /history and /profile page through a server's finished games, newest first
CREATE INDEX IF NOT EXISTS results_by_time ON results(guild_id, finished_at);
CREATE INDEX IF NOT EXISTS results_by_player ON results(guild_id, player_id, finished_at);
"""

_V5 = """
-- No read goes through it (/profile, /history and the totals' recount read results by
-- player or by time, a game's results by its key): a finished game's seats were written
-- to an index nobody used.
DROP INDEX IF EXISTS results_by_guild;
"""

# The SQLite text of each schema (tests build old databases from it).
SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5 = (
    SQLITE.render(sql) for sql in (_V1, _V2, _V3, _V4, _V5))


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


def _v4_rate_finished() -> Job[None]:
    # Every game finished before the upgrade, rated in the order they finished, so /stats
    # shows ratings at once. Shares _rate_every_result (the rebuild's) while the ratings
    # tables keep the shape schema 4 gave them; a migration that changes them must give this
    # step its own copy first.
    yield from _rate_every_result()


MIGRATIONS: list[Migration] = [
    Migration(1, "matches, their moves and results", _V1),
    Migration(2, "states kept beside their matches, finished games archived, and per-player "
                 "totals for /stats", _V2, _v2_move_states_and_archive),
    Migration(3, "a table for the bot's own values, and the state version of every saved game",
              _V3),
    Migration(4, "ratings per server, game and season (every finished game rated in the order "
                 "it finished), and indexes for the history of a server's games", _V4,
              _v4_rate_finished),
    # Finished games archived from now on keep their moves in a compact form and no final
    # state where the moves replay to it (jobs.encode_log, Storage.final_state); games
    # archived before stay as they are and are read as before.
    Migration(5, "smaller finished games: an index no read used is dropped", _V5),
]
SCHEMA_VERSION = MIGRATIONS[-1].number
assert [m.number for m in MIGRATIONS] == list(range(1, SCHEMA_VERSION + 1))
FINISHED = ("over", "ended", "abandoned")
# SQLite's application id (header offset 68) for Cityhall files, "City" in ASCII: lets the
# bot (and `file`) tell its own database from another program's SQLite file.
APPLICATION_ID = 0x43697479
# The tables every Cityhall database has had since schema 1.
CITYHALL_TABLES = frozenset({"matches", "actions", "results"})


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
