"""One asyncio lock per key (a match), there only while someone holds it or waits for it.

A lock kept per match for the life of the process is two objects the garbage collector
walks at every full collection, for every match that ever moved; and remembering to drop
it when the match ends is easy to get wrong. Here the lock is made by the first who wants
it and dropped by the last who lets go.
"""

from __future__ import annotations

import asyncio
from types import TracebackType


class _Entry:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0  # holding or waiting


class KeyedLocks:
    def __init__(self) -> None:
        self._entries: dict[int, _Entry] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __call__(self, key: int) -> Held:
        """``async with locks(key):`` holds the key's lock."""
        return Held(self, key)

    def locked(self, key: int) -> bool:
        entry = self._entries.get(key)
        return entry is not None and entry.lock.locked()

    def _enter(self, key: int) -> _Entry:
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry()
        entry.users += 1
        return entry

    def _leave(self, key: int, entry: _Entry) -> None:
        entry.users -= 1
        if entry.users == 0 and self._entries.get(key) is entry:
            del self._entries[key]


class Held:
    __slots__ = ("_entry", "_key", "_locks")

    def __init__(self, locks: KeyedLocks, key: int) -> None:
        self._locks = locks
        self._key = key
        self._entry: _Entry | None = None

    async def __aenter__(self) -> None:
        entry = self._locks._enter(self._key)
        try:
            await entry.lock.acquire()
        except BaseException:
            self._locks._leave(self._key, entry)  # cancelled while waiting
            raise
        self._entry = entry

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        entry = self._entry
        assert entry is not None
        self._entry = None
        entry.lock.release()
        self._locks._leave(self._key, entry)
