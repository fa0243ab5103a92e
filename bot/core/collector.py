"""Short garbage-collector pauses on the one event loop every player shares.

Two kinds of objects fill the bot's heap. Most live for good or for a long while: matches
and their states, servers and channels, caches. A few hundred per click die young, many of
them in reference cycles (discord.py's interaction, its response and message, a view and its
items) that only a collection frees. CPython's collector walks every tracked object of the
generation it collects, so:

- young collections are kept small (2,000 allocations): each frees what a dozen clicks left
  in a few milliseconds, where 10,000 took 40-60 ms;
- after a full collection, whatever survived it is frozen (``gc.freeze``): the next full
  collection walks only what became long-lived since, instead of the states of a thousand
  matches again (measured 110 ms of CPU in a soak without this);
- what was frozen and has since died in a cycle (an interaction in flight at that moment)
  cannot be freed while frozen, so once an hour everything is thawed and collected in one
  full pause, then frozen again. Objects that die by reference counting, which includes
  every replaced match state, are freed at once, frozen or not.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import Any

log = logging.getLogger(__name__)

YOUNG = 2_000  # allocations between young collections
MIDDLE = 5  # young collections between middle ones
OLD = 100  # middle collections between full ones (CPython also waits for 25 % growth)
THAW_EVERY = 3600.0  # seconds


class Collector:
    """Installed once the bot has loaded what it keeps (``settle``), then left to run."""

    def __init__(self) -> None:
        self.freezes = 0
        self.thaws = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thawing = False
        self._freeze_pending = False
        self._task: asyncio.Task[None] | None = None

    def settle(self) -> None:
        """Collect and freeze what is loaded now, and set the thresholds (idempotent:
        again after READY freezes the servers and channels it brought)."""
        gc.collect()
        gc.freeze()
        gc.set_threshold(YOUNG, MIDDLE, OLD)
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            gc.callbacks.append(self._after_collection)
            self._task = self._loop.create_task(self._thaw_hourly(), name="cityhall-gc-thaw")

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._after_collection in gc.callbacks:
            gc.callbacks.remove(self._after_collection)
        self._loop = None

    def _after_collection(self, phase: str, info: dict[str, Any]) -> None:
        # Runs inside the collector, in whichever thread allocated: only ask the loop.
        if phase != "stop" or info.get("generation") != 2 or self._thawing:
            return
        loop = self._loop
        if loop is None or self._freeze_pending:
            return
        self._freeze_pending = True
        try:
            loop.call_soon_threadsafe(self._freeze)
        except RuntimeError:  # the loop is closed: the process is ending
            self._freeze_pending = False

    def _freeze(self) -> None:
        self._freeze_pending = False
        gc.freeze()
        self.freezes += 1

    def thaw(self) -> float:
        """Unfreeze, collect everything, freeze again; the pause in seconds."""
        began = time.perf_counter()
        self._thawing = True
        try:
            gc.unfreeze()
            gc.collect()
            gc.freeze()
        finally:
            self._thawing = False
        self.thaws += 1
        return time.perf_counter() - began

    async def _thaw_hourly(self) -> None:
        while True:
            await asyncio.sleep(THAW_EVERY)
            pause = self.thaw()
            log.debug("hourly full collection: %.0f ms", pause * 1000)
