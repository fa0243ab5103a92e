"""The bot paces itself under Discord's rate limits, so Discord never answers it 429.

Real Discord counts every 429 as an invalid request and blocks a bot's address for an hour
after 10,000 in ten minutes; discord.py's retries are a fallback, not a pace. Busy channels
(tables, pings, notices) together can ask for more than the global 50 requests a second.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from bot.ui.pacing import ChannelPacing, Pacer
from fakediscord import FakeDiscord
from tests.harness import cityhall_bot


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_pacer_hands_out_times_in_order_and_never_more_than_the_limit_per_window() -> None:
    clock = Clock()
    pacer = Pacer(3, 1.0, clock=clock)
    # Seven callers at one instant: three go at once, then three a second later, then one.
    times = [clock.now + pacer.reserve("global") for _ in range(7)]
    assert times == [100.0, 100.0, 100.0, 101.0, 101.0, 101.0, 102.0]
    clock.now = 101.5  # a caller now queues behind those already given a time
    assert clock.now + pacer.reserve("global") == 102.0
    assert pacer.reserve("other") == 0.0  # another key has a window of its own
    clock.now = 110.0  # a quiet key starts afresh
    assert [pacer.reserve("global") for _ in range(3)] == [0.0, 0.0, 0.0]


async def test_many_channels_at_once_stay_under_the_global_limit(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    channels = [fake.channel_id] + [
        (await fake.add_channel(f"table-{i}"))["id"] for i in range(24)]
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        fake.requests.clear()

        async def post(channel_id: str, n: int) -> None:
            await bot.get_partial_messageable(int(channel_id)).send(f"news {n}")

        # 100 messages asked for at one instant: twice the global limit's window.
        await asyncio.gather(*(post(c, n) for c in channels for n in range(4)))
        assert fake.rate_limited == []
        assert all(len([m for m in fake.channel_messages(c) if m.content.startswith("news")]) == 4
                   for c in channels)


async def test_callers_woken_late_together_still_keep_the_window() -> None:
    pacer = Pacer(3, 0.2)
    gone: list[float] = []

    async def caller() -> None:
        await pacer.wait("global")
        gone.append(time.monotonic())

    callers = [asyncio.create_task(caller()) for _ in range(9)]
    await asyncio.sleep(0)  # three go at once; the others are given times 0.2 s and 0.4 s on
    time.sleep(0.39)  # the loop is busy: the 0.2 s timers fire late, next to the 0.4 s ones
    await asyncio.gather(*callers)
    assert len(gone) == 9
    # Never more than three in any 0.2 s, by the times they really went.
    assert all(later - earlier >= 0.2 - 1e-3 for earlier, later in zip(gone, gone[3:], strict=False))


def test_each_process_keeps_to_its_shards_share_of_the_global_limit(tmp_path: Path) -> None:
    from bot.app import CityhallBot
    from bot.core.shards import Shards
    from bot.ui.pacing import GLOBAL_LIMIT
    from tests.harness import settings_for

    fake = FakeDiscord()
    alone = CityhallBot(settings_for(fake, tmp_path / "a.sqlite3"))
    half = CityhallBot(settings_for(fake, tmp_path / "b.sqlite3", shards=Shards.of(4, [0, 1])))
    # Two processes with two shards each spend at most the one bot's limit together.
    assert alone.request_gate.bot.limit == GLOBAL_LIMIT[0]
    assert half.request_gate.bot.limit * 2 <= GLOBAL_LIMIT[0]
    assert half.tables.pacing.bot.limit == half.request_gate.bot.limit


async def test_a_table_never_waits_behind_the_tidying() -> None:
    # After a restart every match's next ping deletes its last one through the channel
    # (the clicks' webhooks are gone): hundreds of deletions at once. A move's table edit
    # asked for after them goes ahead of them, not a queue's length later.
    pacing = ChannelPacing(scale=0.02)
    order: list[str] = []

    async def tidy(n: int) -> None:
        await pacing.tidying("delete", 1000 + n)
        order.append("delete")

    async def table() -> None:
        await pacing.wait("edit", 1)
        order.append("table")

    deletions = [asyncio.create_task(tidy(n)) for n in range(120)]
    await asyncio.sleep(0)  # every deletion has asked for its time
    await asyncio.gather(table(), *deletions)
    # Within the tidying share's first window: 11 of 45 a second.
    assert order.index("table") <= 11
    assert order.count("delete") == 120
