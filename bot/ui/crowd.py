"""How many clicks are in the bot's hands, so that what can wait lets them go first.

A click must be answered within Discord's 3 s; a private screen's picture that was slow to
draw (bot/ui/later.py) only has to follow. When hundreds of players click at once (the
first clicks after a restart, a burst), every such picture put in meanwhile is an upload
the event loop writes while answers wait: so late pictures wait until the crowd is down
to a few clicks, or ``HOLD_AT_MOST`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib


class ClickCrowd:
    """Clicks received and not yet handled (queued for routing, or their handlers running)."""

    # At or below this many clicks in hand the bot is not in a crowd: a busy server at
    # 100 clicks a second has a handful at any moment.
    QUIET_AT = 16
    # The longest a late picture waits for a crowd to pass.
    HOLD_AT_MOST = 3.0

    def __init__(self) -> None:
        self.in_hand = 0
        self._quiet = asyncio.Event()
        self._quiet.set()

    def hold(self) -> None:
        self.in_hand += 1
        if self.in_hand > self.QUIET_AT:
            self._quiet.clear()

    def release(self) -> None:
        self.in_hand = max(0, self.in_hand - 1)
        if self.in_hand <= self.QUIET_AT:
            self._quiet.set()

    @property
    def quiet(self) -> bool:
        return self._quiet.is_set()

    async def passed(self, at_most: float | None = None) -> None:
        """Return once the crowd is down to ``QUIET_AT`` clicks, or after ``at_most`` s."""
        if self._quiet.is_set():
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.HOLD_AT_MOST if at_most is None else at_most):
                await self._quiet.wait()
