"""A full disk, as the players and the admin should meet it.

The database refuses every write while the disk is full. Each refused click is one sentence
to its player, and the log gets one warning a minute saying how many writes were refused,
not a traceback per click: the admin needs to know the disk is full, not where in the code
each write noticed. Nothing is half saved: a write either commits whole or not at all.
"""

from __future__ import annotations

import errno
import logging
import sqlite3
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

SENTENCE = ("The server's disk is full, so your move was not saved; nothing was changed. "
            "The bot's admin can free some space, then play on.")
SQLITE_FULL = 13
PG_DISK_FULL = "53100"  # SQLSTATE disk_full


def is_disk_full(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what caused it) is the database's disk being full."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, sqlite3.Error):
            code = getattr(exc, "sqlite_errorcode", None)
            if isinstance(code, int) and code & 0xFF == SQLITE_FULL:
                return True
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if getattr(exc, "sqlstate", None) == PG_DISK_FULL:  # asyncpg's DiskFullError
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


class DiskFullNotes:
    """One warning a minute, counting the writes refused since the last one."""

    EVERY = 60.0

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._last: float | None = None
        self._refused = 0

    def note(self, what: str) -> None:
        self._refused += 1
        now = self.clock()
        if self._last is not None and now - self._last < self.EVERY:
            return
        log.warning("The disk holding the database is full: %d write(s) refused in the last "
                    "minute (the latest: %s). Players are told their moves were not saved. "
                    "Free some space; nothing else needs doing.", self._refused, what)
        self._last, self._refused = now, 0


NOTES = DiskFullNotes()
