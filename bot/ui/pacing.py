"""Keeping under Discord's rate limits before drawing, so the newest state is what goes out.

discord.py already waits when Discord's headers say a route is exhausted, but it waits with
the request in hand: a table drawn before the wait is sent after it, already out of date,
and the next edit follows at once. Waiting here first, then drawing, lets the coalescing in
``Tables`` skip the frames that a channel could not have shown anyway.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Hashable

# Discord's per-channel limits for creating and for editing messages, and its global
# limit per bot, less a margin for what discord.py sends on its own.
CHANNEL_LIMIT = (5, 5.0)
GLOBAL_LIMIT = (45, 1.0)


class Pacer:
    """At most ``limit`` requests per ``per`` seconds for each key (a sliding window)."""

    def __init__(self, limit: int, per: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.per, self.clock = limit, per, clock
        self._stamps: dict[Hashable, deque[float]] = {}
        self._calls = 0

    async def wait(self, key: Hashable) -> None:
        stamps = self._stamps.setdefault(key, deque())
        while True:
            now = self.clock()
            while stamps and stamps[0] <= now - self.per:
                stamps.popleft()
            if len(stamps) < self.limit:
                stamps.append(now)
                self._prune(now)
                return
            await asyncio.sleep(stamps[0] + self.per - now)

    def _prune(self, now: float) -> None:
        # Channels that went quiet (or away) should not keep an entry for ever.
        self._calls += 1
        if self._calls % 1000:
            return
        for key in [k for k, s in self._stamps.items() if not s or s[-1] <= now - self.per]:
            del self._stamps[key]


class ChannelPacing:
    """The limits a channel message goes through: its channel's route, then the bot's."""

    def __init__(self, scale: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        # ``scale`` shortens the windows for a test server that does the same.
        self.channel = Pacer(CHANNEL_LIMIT[0], CHANNEL_LIMIT[1] * scale, clock=clock)
        self.bot = Pacer(GLOBAL_LIMIT[0], GLOBAL_LIMIT[1] * scale, clock=clock)

    async def wait(self, route: str, channel_id: int) -> None:
        await self.channel.wait((route, channel_id))
        await self.bot.wait("global")
