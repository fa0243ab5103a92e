"""``python -m bot migrate-db --from sqlite:///FILE --to postgresql://…``: move up.

Copies every table of Cityhall's SQLite database (every match, running ones included, its
state, action log, archive and results, the /stats totals, the server settings and the
bot's stored values) into an empty PostgreSQL database in one transaction, then counts the
rows of each table on both sides. It reads the SQLite file read-only in one snapshot, and
changes nothing in it: the file stays the way back.

It refuses, with a sentence, when the source cannot be opened or is not a Cityhall
database, when its schema is not this Cityhall's (start this Cityhall on it once first, or
update Cityhall), and when the target already holds rows. A second run finds the target
holding exactly the source's rows and says the copy is already made; ``--replace`` empties
a target that holds something else first.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from bot.core.storage import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    Storage,
    StorageError,
    describe_error,
    is_database_url,
    url_for_logs,
)

# Parents before the rows that refer to them (foreign keys are checked on every insert).
ORDER = ["matches", "match_states", "actions", "results", "archive", "player_totals", "kv",
         "rating_seasons", "ratings", "rating_changes"]


class MigrateError(Exception):
    """Nothing was copied (or the copy was rolled back); the text says why, in a sentence."""


@dataclass(frozen=True)
class Outcome:
    counts: dict[str, int]  # rows per table, the same on both sides
    copied: bool  # False: the target already held exactly these rows


def sqlite_path(source: str) -> Path:
    """``sqlite:///relative.sqlite3``, ``sqlite:////absolute/path`` or a plain path."""
    if source.startswith("sqlite://"):
        rest = source[len("sqlite://"):]
        if not rest.startswith("/"):
            raise MigrateError(f"{source} is not an SQLite URL: write sqlite:///FILE (three "
                               f"slashes, then the path).")
        return Path(rest[1:])  # sqlite:////srv/x: the path is /srv/x
    if "://" in source:
        raise MigrateError(f"--from must be an SQLite file (sqlite:///FILE), not {source}.")
    return Path(source)


def _read_source(path: Path) -> tuple[dict[str, list[str]], dict[str, list[tuple[Any, ...]]],
                                      int]:
    """Every table's columns and rows, read in one snapshot, and the highest match id ever
    handed out (a deleted match's id is not given again)."""
    if not path.is_file():
        raise MigrateError(f"There is no SQLite database at {path}; nothing to copy.")
    try:
        conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True, timeout=10)
    except sqlite3.Error as exc:
        raise MigrateError(f"Cannot open {path}: {describe_error(exc)}.") from exc
    with contextlib.closing(conn):
        try:
            conn.execute("BEGIN")  # one snapshot, even if the bot were still writing
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table'"
                " AND name NOT LIKE 'sqlite_%'")}
            if app_id not in (0, APPLICATION_ID) or "matches" not in tables:
                raise MigrateError(f"{path} is not a Cityhall database.")
            if version != SCHEMA_VERSION:
                newer = version > SCHEMA_VERSION
                raise MigrateError(
                    f"{path} has schema {version} and this Cityhall writes schema "
                    f"{SCHEMA_VERSION}: "
                    + ("update Cityhall first." if newer else
                       "start this Cityhall on it once (it upgrades the file, keeping a "
                       "copy), stop it, then migrate."))
            unknown = tables - set(ORDER)
            if unknown:
                raise MigrateError(f"{path} has tables this Cityhall does not know "
                                   f"({', '.join(sorted(unknown))}); nothing was copied.")
            columns: dict[str, list[str]] = {}
            rows: dict[str, list[tuple[Any, ...]]] = {}
            for table in ORDER:
                cursor = conn.execute(f"SELECT * FROM {table}")
                columns[table] = [d[0] for d in cursor.description]
                rows[table] = [tuple(r) for r in cursor.fetchall()]
            top = 0
            if "sqlite_sequence" in {r[0] for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type='table'")}:
                found = conn.execute(
                    "SELECT seq FROM sqlite_sequence WHERE name='matches'").fetchone()
                top = int(found[0]) if found else 0
            conn.execute("ROLLBACK")
        except sqlite3.Error as exc:
            raise MigrateError(f"Cannot read {path}: {describe_error(exc)}.") from exc
    top = max([top, *(int(r[0]) for r in rows["matches"])])
    return columns, rows, top


def _converter(pg_type: str) -> Any:
    # SQLite keeps whatever a value was written as (an int in a REAL column); asyncpg wants
    # each value in its column's Python type.
    if pg_type in ("bigint", "integer", "smallint"):
        return int
    if pg_type in ("double precision", "real"):
        return float
    if pg_type == "bytea":
        return bytes
    return str


async def _migrate(path: Path, url: str, *, replace: bool) -> Outcome:
    import asyncpg

    columns, rows, top = _read_source(path)
    counts = {table: len(rows[table]) for table in ORDER}
    where = url_for_logs(url)
    try:
        # Opening through Storage creates the schema on an empty database, and refuses a
        # database of another program or of another schema in its own words.
        storage = await Storage.open(url)
        await storage.close()
    except StorageError as exc:
        raise MigrateError(f"Cannot use the target {where}: {exc}.") from exc
    try:
        conn = await asyncpg.connect(url)
    except (OSError, asyncpg.PostgresError) as exc:
        raise MigrateError(f"Cannot connect to the target {where}: {exc}.") from exc
    try:
        version = await conn.fetchval("SELECT version FROM cityhall_schema")
        if version != SCHEMA_VERSION:
            raise MigrateError(f"The target {where} has schema {version} and the source "
                               f"{SCHEMA_VERSION}; nothing was copied.")
        held = {table: int(await conn.fetchval(f"SELECT COUNT(*) FROM {table}"))
                for table in ORDER}
        if any(held.values()):
            if held == counts:
                return Outcome(counts, copied=False)
            if not replace:
                shown = ", ".join(f"{n:,} {t}" for t, n in held.items() if n)
                raise MigrateError(f"The target {where} is not empty ({shown}); nothing was "
                                   f"copied. Point --to at a new database, or add --replace "
                                   f"to delete what it holds first.")
        types = {(r["table_name"], r["column_name"]): r["data_type"] for r in await conn.fetch(
            "SELECT table_name, column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = current_schema()")}
        async with conn.transaction():
            if any(held.values()):
                await conn.execute(f"TRUNCATE {', '.join(ORDER)}")
            for table in ORDER:
                names = columns[table]
                convert = [_converter(types[(table, name)]) for name in names]
                records = [_convert(row, convert) for row in rows[table]]
                if records:
                    await conn.copy_records_to_table(table, records=records, columns=names)
            # The next match must get an id above every copied one.
            await conn.execute("SELECT setval(pg_get_serial_sequence('matches', 'id'), $1,"
                               " $2)", max(top, 1), top > 0)
        after = {table: int(await conn.fetchval(f"SELECT COUNT(*) FROM {table}"))
                 for table in ORDER}
        if after != counts:
            wrong = ", ".join(f"{t}: {after[t]:,} of {counts[t]:,}" for t in ORDER
                              if after[t] != counts[t])
            raise MigrateError(f"The copy in {where} does not hold every row ({wrong}).")
        return Outcome(counts, copied=True)
    except asyncpg.PostgresError as exc:
        raise MigrateError(f"Copying into {where} failed and was rolled back: {exc}.") from exc
    finally:
        await conn.close()


def _convert(row: Sequence[Any], convert: list[Any]) -> tuple[Any, ...]:
    return tuple(None if value is None else fn(value) for value, fn in zip(row, convert, strict=True))


def url_to_set(url: str) -> str:
    """``url`` as the bot takes it in DATABASE_URL, its password (never printed) replaced by
    the word PASSWORD: the scheme, user, server, database and options it was given."""
    parts = urlsplit(url)
    user = parts.username or ""
    if parts.password is not None:
        user += ":PASSWORD"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address
    port = f":{parts.port}" if parts.port else ""
    query = "&".join(f"{k}=PASSWORD" if k == "password" else f"{k}={v}"
                     for k, v in parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit(("postgresql", f"{user}@{host}{port}" if user else f"{host}{port}",
                       parts.path, query, ""))


def migrate(source: str, target: str, *, replace: bool = False) -> Outcome:
    path = sqlite_path(source)
    if not is_database_url(target):
        raise MigrateError(f"--to must be a PostgreSQL URL (postgresql://USER@HOST/DATABASE), "
                           f"not {target}.")
    return asyncio.run(_migrate(path, target, replace=replace))


def main(source: str, target: str, *, replace: bool = False) -> int:
    try:
        outcome = migrate(source, target, replace=replace)
    except MigrateError as exc:
        print(exc)
        return 1
    width = max(len(t) for t in ORDER)
    for table in ORDER:
        print(f"{table:<{width}}  {outcome.counts[table]:>10,}")
    where = url_for_logs(target)
    if outcome.copied:
        setting = url_to_set(target)
        print(f"Copied into {where}; every table holds as many rows as in the source. Set "
              f"DATABASE_URL={setting}" + (" (with the password in place of PASSWORD)"
                                           if "PASSWORD" in setting else "") +
              " and start the bot.")
    else:
        print(f"{where} already holds as many rows in every table as the source: the copy "
              f"was made before; nothing was changed.")
    return 0
