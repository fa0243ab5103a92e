"""The count of clicks in the bot's hands (bot/ui/crowd.py): what waits for a crowd to
pass waits no longer than it must, nor forever."""

from __future__ import annotations

import asyncio
import time

from bot.ui.crowd import ClickCrowd


def test_a_crowd_passes_when_it_is_down_to_a_few_clicks_or_after_the_longest_hold() -> None:
    async def run() -> None:
        crowd = ClickCrowd()
        await asyncio.wait_for(crowd.passed(), 0.1)  # no crowd: at once
        for _ in range(crowd.QUIET_AT + 1):
            crowd.hold()
        assert not crowd.quiet
        waiting = asyncio.ensure_future(crowd.passed(at_most=10))
        await asyncio.sleep(0.05)
        assert not waiting.done()
        crowd.release()  # down to QUIET_AT
        await asyncio.wait_for(waiting, 0.5)
        assert crowd.quiet

        for _ in range(5):
            crowd.hold()
        began = time.monotonic()
        await crowd.passed(at_most=0.2)  # a crowd that does not pass: not held forever
        assert 0.15 <= time.monotonic() - began < 2
        for _ in range(1000):
            crowd.release()
        assert crowd.in_hand == 0 and crowd.quiet

    asyncio.run(run())
