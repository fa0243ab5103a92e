"""A restart's crowd of first clicks is answered before the boards its moves changed.

Every click of the crowd must be answered within Discord's 3 s; a table picture is drawn,
uploaded and paced, work the answers would wait behind on the event loop. So while many
clicks are being answered at once the tables wait (at most ``Tables.CROWD_PATIENCE``),
and then show the newest state. Steady play never makes a crowd (docs/channel.md).
"""

from __future__ import annotations

import asyncio
from collections import deque

from bot.app import CityhallBot


def _bot() -> CityhallBot:
    # Only the click bookkeeping is used here: no Discord connection is needed.
    bot = CityhallBot.__new__(CityhallBot)
    bot._inflight = set()
    bot._arrivals = deque()
    bot._calm = asyncio.Event()
    bot._calm.set()
    return bot


async def test_a_table_waits_while_a_crowd_of_clicks_is_answered_and_goes_when_it_thins() -> None:
    bot = _bot()
    loop = asyncio.get_running_loop()
    clicks = [loop.create_future() for _ in range(CityhallBot.CROWD)]
    for click in clicks:
        bot._track(click)
    table = asyncio.create_task(bot.crowd_passed(patience=30.0))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not table.done()  # the answers first
    clicks[0].set_result(None)  # one answered: fewer than a crowd are left
    await asyncio.wait_for(table, 1.0)


async def test_a_few_clicks_at_once_never_hold_a_table() -> None:
    bot = _bot()
    loop = asyncio.get_running_loop()
    for _ in range(CityhallBot.CROWD - 1):
        bot._track(loop.create_future())
    await asyncio.wait_for(bot.crowd_passed(patience=30.0), 0.5)


async def test_a_crowd_that_never_ends_holds_a_table_only_its_patience() -> None:
    bot = _bot()
    loop = asyncio.get_running_loop()
    for _ in range(CityhallBot.CROWD):
        bot._track(loop.create_future())
    await asyncio.wait_for(bot.crowd_passed(patience=0.05), 1.0)
