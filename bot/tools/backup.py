"""``python -m bot backup FILE``: a consistent copy of the database, while the bot runs.

A plain ``cp`` of a WAL database copies a file whose latest commits are still in the
``-wal`` file beside it (and may catch it mid-write). SQLite's online backup API reads one
snapshot through SQLite's own locking instead; in WAL mode the bot keeps writing meanwhile.
The copy is written beside FILE under a temporary name and renamed into place when
complete, so FILE is never a half-written backup, and it is a single file (journal mode
DELETE): copy it anywhere, and restore it by putting it where DATABASE_PATH points.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.core.storage import StorageError, check_identity, describe_error


class BackupError(Exception):
    """The backup was not made; the text says why, in a sentence."""


@dataclass(frozen=True)
class Backup:
    source: Path
    target: Path
    games: int
    unfinished: int
    size: int


def backup(source: Path, target: Path, *, force: bool = False) -> Backup:
    source, target = source.resolve(), target.resolve()
    if target == source:
        raise BackupError(f"{target} is the database itself; name another file.")
    if target.exists() and not force:
        raise BackupError(f"{target} already exists; add --force to replace it.")
    if not source.is_file():
        raise BackupError(f"There is no database at {source} (DATABASE_PATH); nothing to "
                          f"back up.")
    try:
        # `backup backups/cityhall-$(date +%F).sqlite3` on a first night: the folder is made.
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackupError(f"Could not make the folder {target.parent}: "
                          f"{describe_error(exc)}.") from exc
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        _copy(source, partial)
        os.replace(partial, target)
    except (sqlite3.Error, StorageError, OSError) as exc:
        raise BackupError(f"Could not back up {source} to {target}: "
                          f"{describe_error(exc)}.") from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    with contextlib.closing(sqlite3.connect(f"file:{target}?mode=ro", uri=True)) as copy:
        games, unfinished = copy.execute(
            "SELECT COUNT(*), COUNT(*) FILTER (WHERE status IN ('lobby', 'active'))"
            " FROM matches").fetchone()
    return Backup(source, target, games, unfinished, target.stat().st_size)


def _copy(source: Path, partial: Path) -> None:
    # mode=rw: never create a database where there was none.
    src = sqlite3.connect(f"file:{source}?mode=rw", uri=True, timeout=10.0)
    try:
        tables = {row[0] for row in src.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")}
        if not tables:
            raise StorageError("it has no tables: it is not a Cityhall database yet")
        check_identity(src, tables)
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
        dst = sqlite3.connect(partial)
        try:
            # All pages in one step: one read snapshot, which in WAL mode never holds up the
            # bot's writer (a stepwise copy would restart whenever the bot commits).
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            verdict = dst.execute("PRAGMA integrity_check").fetchone()[0]
            if verdict != "ok":
                raise StorageError(f"the copy failed SQLite's integrity check ({verdict})")
        finally:
            dst.close()
        with open(partial, "rb") as file:
            os.fsync(file.fileno())
    finally:
        src.close()


def main(file: str, *, force: bool = False, database: str | None = None) -> int:
    from bot.config import ConfigError, database_path, database_path_from_env

    try:
        source = Path(database_path(database) if database else database_path_from_env())
    except ConfigError as exc:
        print(f"Cannot back up: {exc}")
        return 1
    if not database and os.environ.get("DATABASE_URL", "").strip():
        print("DATABASE_URL is set: the games are on that PostgreSQL server, not in an SQLite "
              "file. Back it up with pg_dump (e.g. pg_dump -Fc -f cityhall.dump \"$DATABASE_URL\").")
        return 1
    try:
        made = backup(source, Path(file), force=force)
    except BackupError as exc:
        print(exc)
        return 1
    print(f"Backed up {made.source} to {made.target}: {made.games:,} game(s), "
          f"{made.unfinished:,} of them unfinished, {made.size / 1024:,.0f} KB; integrity "
          f"check ok.")
    return 0
