"""Keeping under Discord's rate limits, so that Discord never has to answer 429.

Two gates, each a sliding window that hands out send times in order of asking:

- **Before drawing** (``ChannelPacing``: its channel, then the bot's): a table waits for
  its turn first and is drawn after, from the newest saved state, so the coalescing in ``Tables``
  skips the frames the channel could not have shown anyway. discord.py would wait too (it
  reads Discord's headers), but with the request in hand: a table drawn before the wait is
  sent after it, already out of date.
- **Right before the request** (``RequestGate``, every request of the bot's HTTP client):
  the bot's global limit and each channel's message limits. Drawing takes a variable time
  (a picture waits for a render worker), so requests paced before drawing can arrive
  bunched; counted here they cannot. Interaction answers do not pass this way (discord.py
  sends them through its webhook adapter) and Discord does not count them globally.

Real Discord counts every 429 as an invalid request and blocks a bot's address for an hour
after 10,000 of them in ten minutes; each also keeps a request, picture and all, waiting
in the bot. Hence margins under Discord's figures rather than discord.py's retries.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

# Discord's per-channel limits for creating and for editing messages, and its global
# limit per bot (50 a second), less a margin for what discord.py sends on its own.
CHANNEL_LIMIT = (5, 5.0)
GLOBAL_LIMIT = (45, 1.0)
# A request paced here reaches Discord a little later, by a varying amount; Discord's
# windows open at the first request they see. A channel's window a few percent longer than
# Discord's keeps the sixth message out of a window opened late.
CHANNEL_MARGIN = 1.04
_CHANNEL_ROUTE = re.compile(r"/channels/\{channel_id\}/messages(/\{message_id\})?$")


class Pacer:
    """At most ``limit`` requests per ``per`` seconds for each key (a sliding window).

    Each caller is given the earliest time that keeps every window of ``per`` seconds at
    ``limit`` or fewer, counting the callers ahead of it, and sleeps until then: first
    come, first served, with one timer per waiting caller and nobody woken to find the
    window still full. A caller cancelled while waiting leaves its time unused. A loop
    that was busy wakes several of them late and at once, so the times they really go at
    are counted too, and a caller waits again rather than make a window too full."""

    def __init__(self, limit: int, per: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.per, self.clock = limit, per, clock
        self._times: dict[Hashable, deque[float]] = {}
        self._gone: dict[Hashable, deque[float]] = {}
        self._calls = 0

    def reserve(self, key: Hashable) -> float:
        """Seconds to wait before this request may go (0.0: at once), counted as sent then."""
        now = self.clock()
        times = self._times.get(key)
        if times is None:
            times = self._times[key] = deque(maxlen=self.limit)
        at = max(now, times[-1]) if times else now  # never ahead of an earlier caller
        if len(times) == self.limit:
            at = max(at, times[0] + self.per)  # the oldest of the last ``limit`` must age out
        times.append(at)
        self._prune(now)
        return at - now

    async def wait(self, key: Hashable) -> None:
        delay = self.reserve(key)
        if delay > 0:
            await asyncio.sleep(delay)
        gone = self._gone.get(key)
        if gone is None:
            gone = self._gone[key] = deque(maxlen=self.limit)
        while len(gone) == self.limit and (now := self.clock()) < gone[0] + self.per:
            await asyncio.sleep(gone[0] + self.per - now)
        gone.append(self.clock())

    def _prune(self, now: float) -> None:
        # Channels that went quiet (or away) should not keep an entry for ever.
        self._calls += 1
        if self._calls % 1000:
            return
        for key in [k for k, t in self._times.items() if not t or t[-1] <= now - self.per]:
            del self._times[key]
            self._gone.pop(key, None)


def global_share(share: float = 1.0) -> int:
    """This process's part of the bot's global limit. Discord counts it per bot, across
    every process and shard, and processes do not tell each other what they spend: each
    keeps to the share of the shards it owns (``share``: owned / all)."""
    return max(1, int(GLOBAL_LIMIT[0] * share))


# Tidying up (deleting a turn ping that was replaced) waits in a queue of its own, with a
# quarter of the bot's global share. After a restart the clicks' webhooks are gone, so every
# match's next ping deletes the last one through the channel: ~350 deletions in the load
# test's restart, queued with the tables' edits, held every move's picture back 5-8 s.
TIDY_SHARE = 0.25


class ChannelPacing:
    """The wait before a channel message is drawn: its channel's route, then the bot's."""

    def __init__(self, scale: float = 1.0, clock: Callable[[], float] = time.monotonic,
                 share: float = 1.0) -> None:
        # ``scale`` shortens the windows for a test server that does the same.
        self.channel = Pacer(CHANNEL_LIMIT[0], CHANNEL_LIMIT[1] * scale, clock=clock)
        self.bot = Pacer(global_share(share), GLOBAL_LIMIT[1] * scale, clock=clock)
        self.tidy = Pacer(max(1, int(global_share(share) * TIDY_SHARE)), GLOBAL_LIMIT[1] * scale,
                          clock=clock)

    async def tidying(self, route: str, channel_id: int) -> None:
        """The wait before a request nobody is waiting for (a replaced ping's deletion): its
        channel's window, then the tidying queue, never ahead of a table or a ping. The
        last gate (``RequestGate``) still counts it in the bot's global limit."""
        await self.channel.wait((route, channel_id))
        await self.tidy.wait("global")

    async def wait(self, route: str, channel_id: int, *, counts_globally: bool = True) -> None:
        """``counts_globally`` false: a request Discord leaves out of the bot's global limit
        (an edit through a click's token), which waits for its channel's window only."""
        await self.channel.wait((route, channel_id))
        if counts_globally:
            await self.bot.wait("global")


class RequestGate:
    """The last wait before a request leaves: the bot's global limit, and the message
    routes of its channel. ``install`` puts it in front of discord.py's HTTP client."""

    def __init__(self, scale: float = 1.0, clock: Callable[[], float] = time.monotonic,
                 share: float = 1.0) -> None:
        self.bot = Pacer(global_share(share), GLOBAL_LIMIT[1] * scale, clock=clock)
        self.channel = Pacer(CHANNEL_LIMIT[0], CHANNEL_LIMIT[1] * scale * CHANNEL_MARGIN,
                             clock=clock)

    async def wait(self, method: str, path: str, channel_id: int | None) -> None:
        if path.startswith(("/interactions/", "/webhooks/{webhook_id}/{webhook_token}")):
            return  # interaction answers: outside the global limit, per interaction
        if channel_id is not None and _CHANNEL_ROUTE.match(path):
            await self.channel.wait((method, channel_id))
        await self.bot.wait("global")

    def install(self, http: Any) -> None:
        """Wrap ``http.request`` (a ``discord.http.HTTPClient``): discord.py offers no
        hook before a request, and every REST call it makes goes through that method."""
        send: Callable[..., Awaitable[Any]] = http.request

        async def request(route: Any, *args: Any, **kwargs: Any) -> Any:
            await self.wait(route.method, route.path, route.channel_id)
            return await send(route, *args, **kwargs)

        http.request = request
        bound_buckets(http)


# discord.py keeps a rate-limit bucket for each channel and route, and each time it makes
# a new one while it holds 256 or more, it walks them all to drop those idle for five
# minutes: with 10,000 channels every channel's first message after a restart walked
# thousands (6 % of the bot's CPU, more the more channels). Here the walk happens only
# when the buckets have doubled since the last one, and drops those idle a minute.
BUCKET_IDLE = 60.0
BUCKETS_BEFORE_PRUNING = 256


def bound_buckets(http: Any) -> None:
    """Make ``http`` (a ``discord.http.HTTPClient``) prune its buckets as said above."""
    buckets = getattr(http, "_buckets", None)
    if not isinstance(buckets, dict) or not hasattr(http, "_try_clear_expired_ratelimits"):
        return  # another discord.py: left as it is
    next_walk = BUCKETS_BEFORE_PRUNING

    def prune() -> None:
        nonlocal next_walk
        if len(buckets) < next_walk:
            return
        now = asyncio.get_running_loop().time()  # the clock the buckets keep
        for key in [key for key, bucket in buckets.items() if _idle(bucket, now)]:
            del buckets[key]
        next_walk = max(BUCKETS_BEFORE_PRUNING, 2 * len(buckets))

    http._try_clear_expired_ratelimits = prune


def _idle(bucket: Any, now: float) -> bool:
    """Nothing sent through it for ``BUCKET_IDLE``, nothing waiting, no limit running."""
    try:
        return (now - bucket._last_request >= BUCKET_IDLE and bucket.outgoing == 0
                and not bucket._pending_requests
                and (bucket.expires is None or bucket.expires <= now))
    except AttributeError:
        return bool(bucket.is_inactive())
