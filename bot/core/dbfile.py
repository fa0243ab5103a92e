"""The SQLite file under a running bot: is it the one the games are in, and is it whole?

- At start, ``PRAGMA quick_check``: a damaged page anywhere (not only the header, which
  ``storage.check_file`` reads) is one sentence and exit 74, before anything is written.
- Each database has an id, kept in it (kv ``cityhall:database_id``) and beside it
  (``NAME.id``). A start that finds a new, empty database where the file beside says games
  were kept refuses: the file was deleted or replaced, and carrying on would hide every game
  behind an empty one. Deleting ``NAME.id`` says "start afresh"; restoring a backup brings
  the same id back.
- While running, the writer checks before every commit that the path still names the file
  it opened (device and inode): a file deleted or replaced under it would swallow every
  later move. Writes then stop, with one log line and a sentence to each player.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import uuid
from pathlib import Path

log = logging.getLogger(__name__)

ID_KEY = "cityhall:database_id"
LOST = ("The bot's database file was deleted or replaced while it was running, so your "
        "move was not saved. The bot's admin has been told.")


class DatabaseProblem(Exception):
    """What is wrong with the file, in a clause for "Cannot open the database NAME: …"."""


def quick_check(conn: sqlite3.Connection) -> None:
    rows = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
    if rows != ["ok"]:
        # One line for the log: the findings without SQLite's "*** in database main ***".
        found = [line.strip() for row in rows for line in str(row).splitlines()
                 if line.strip() and not line.startswith("***")]
        shown = "; ".join(found[:2]) + (f" (and {len(found) - 2} more)" if len(found) > 2
                                        else "")
        raise DatabaseProblem(f"it is damaged (SQLite's check found: {shown}); restore the "
                              "latest backup")


def identity(path: str) -> tuple[int, int] | None:
    """The file the path names now (device, inode), or None if there is none."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def id_file(path: str) -> Path:
    return Path(path + ".id")


def check_recorded(conn: sqlite3.Connection, path: str) -> str:
    """The database's id, made on its first start; refuses a new, empty database where the
    id file beside it says games were kept (``DatabaseProblem``)."""
    beside = id_file(path)
    try:
        recorded = beside.read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        recorded = None
    row = conn.execute("SELECT value FROM kv WHERE key = ?", (ID_KEY,)).fetchone()
    own = row[0] if row is not None else None
    if own is None:
        has_games = conn.execute("SELECT EXISTS (SELECT 1 FROM matches)").fetchone()[0]
        if recorded is not None and not has_games:
            raise DatabaseProblem(
                f"it is a new, empty database, but {beside.name} beside it says Cityhall's "
                f"games were kept here (database {recorded}): was the file deleted or "
                f"replaced? Put it back or restore the latest backup; to start afresh on "
                f"purpose, delete {beside}")
        own = uuid.uuid4().hex
        conn.execute("INSERT INTO kv (key, value) VALUES (?, ?)", (ID_KEY, own))
    if recorded != own:
        if recorded is not None:
            log.info("The database %s is another Cityhall database than the last one here "
                     "(%s, was %s): a restored backup or a moved file.", path, own, recorded)
        _write_id(beside, own)
    return own


def _write_id(beside: Path, own: str) -> None:
    partial = beside.with_name(beside.name + ".partial")
    try:
        partial.write_text(own + "\n", encoding="utf-8")
        os.replace(partial, beside)
    except OSError as exc:
        # Only the guard against a replaced file is missing; the games are fine.
        log.warning("Could not write %s (%s): a deleted database would not be noticed at the "
                    "next start.", beside, exc.strerror or exc)
