"""Persistence: matches, their action log, final results and per-player totals.

Durability and isolation: every write (a new lobby, a move, a finished game) is one *job*,
and jobs are executed by one writer thread that owns the only writing connection. The
writer takes whatever jobs are queued, runs each under its own SAVEPOINT inside one
transaction and commits them together (group commit: many moves, one fsync). A job that
fails (a second lobby in a busy channel) rolls back to its own savepoint only, so nothing
one match does can undo or expose another's writes; and a caller is answered only after the
commit that holds its data, so a move answered as accepted survives a kill -9.

Reads go through aiosqlite on a second connection; with WAL they never wait for the writer
and see only committed data.

Finished games are archived: their action log is compressed into one row (``archive``) in
the same transaction as the last move, without the final state when the moves replay to it
(``Storage.final_state``), so a finished game costs under 3.5 KB with its results and
ratings (docs/storage-size.md) and ``replay`` of it still works. ``/stats`` reads ``player_totals``, kept up to
date when a game ends, instead of scanning every result.

Two backends keep the same data (``Storage.open`` picks one): SQLite (the default) and
PostgreSQL (for ``postgresql://`` URLs). What a write does is written once, as a *job*: a
generator that yields the statements it needs (``Op``) and receives their results, so the
SQLite writer thread runs it synchronously and the PostgreSQL backend with ``await``; the
schema and its numbered migrations are one list, rendered for each dialect (``Dialect``).

The package, one job a module:

- ``ops.py``: jobs and their statements (``Op``, ``run_sqlite``), ``Dialect``, the errors;
- ``schema.py``: the schema, its migrations, and an SQLite file checked and upgraded;
- ``jobs.py``: the larger writes (per-player totals, the archive) and a match's SQL;
- ``writer.py``: the SQLite writer thread; ``sqlite.py``: the SQLite backend;
- ``postgres.py``: the PostgreSQL backend, imported (with asyncpg) only for a URL;
- ``store.py``: ``Storage``, what the runtime uses, and the rows it returns.

This module re-exports their public names; ``postgres.py`` is not imported here.
"""

from __future__ import annotations

from .jobs import Forgotten
from .ops import (
    ALL,
    EXECUTE,
    INSERT_ID,
    INTEGRITY_ERRORS,
    MANY,
    ONE,
    POSTGRES,
    SQLITE,
    ChannelBusy,
    DatabaseLost,
    Dialect,
    IntegrityError,
    Job,
    Op,
    StorageError,
    describe_error,
    execute,
    execute_many,
    fetch_all,
    fetch_one,
    insert_id,
    is_database_url,
    run_sqlite,
    url_for_logs,
)
from .schema import (
    APPLICATION_ID,
    CITYHALL_TABLES,
    FINISHED,
    MIGRATIONS,
    SCHEMA_V1,
    SCHEMA_V2,
    SCHEMA_V3,
    SCHEMA_V4,
    SCHEMA_VERSION,
    Migration,
    before_upgrade_path,
    check_file,
    check_identity,
    migrate,
)
from .sqlite import SQLiteBackend
from .store import Backend, LeaderboardRow, RatingChange, RatingRow, ResultRow, Storage
from .writer import OPEN_TIMEOUT, Writer

__all__ = [
    "ALL",
    "APPLICATION_ID",
    "CITYHALL_TABLES",
    "EXECUTE",
    "FINISHED",
    "INSERT_ID",
    "INTEGRITY_ERRORS",
    "MANY",
    "MIGRATIONS",
    "ONE",
    "OPEN_TIMEOUT",
    "POSTGRES",
    "SCHEMA_V1",
    "SCHEMA_V2",
    "SCHEMA_V3",
    "SCHEMA_V4",
    "SCHEMA_VERSION",
    "SQLITE",
    "Backend",
    "ChannelBusy",
    "DatabaseLost",
    "Dialect",
    "Forgotten",
    "IntegrityError",
    "Job",
    "LeaderboardRow",
    "Migration",
    "Op",
    "RatingChange",
    "RatingRow",
    "ResultRow",
    "SQLiteBackend",
    "Storage",
    "StorageError",
    "Writer",
    "before_upgrade_path",
    "check_file",
    "check_identity",
    "describe_error",
    "execute",
    "execute_many",
    "fetch_all",
    "fetch_one",
    "insert_id",
    "is_database_url",
    "migrate",
    "run_sqlite",
    "url_for_logs",
]
