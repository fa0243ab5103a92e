"""Clicks still waiting for their turn are acknowledged at the door.

The bot routes the interactions it reads one per turn of the event loop (bot/app.py
``_gate_interactions``), and each handler acknowledges its own click if it is slow
(bot/ui/deferral.py). A handler cannot acknowledge a click it has not been given: in a
crowd larger than the loop answers in Discord's 3 s (a restart's first clicks on a slow
host: 1,000 clicks at 3-4 ms each), the clicks at the back of the queue would fail
("This interaction failed") before their turn, and their players would click again.

So a component click still queued ``DEFER_AFTER`` after Discord made it is acknowledged
from the queue (Discord's deferred update: nothing changes for the player yet), and routed
as before when its turn comes; its handler then answers as a slow click's does, through
follow-ups and edits (``deferred_at_door``). A click answered in time costs nothing here:
on a fast host no click of a restart's crowd waits that long. Commands and autocompletes
are not acknowledged here: a command's acknowledgement would have to choose between a
public and a private "thinking…" before its handler has said which.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import time
from typing import Any

import aiohttp
import discord
from discord.webhook.async_ import async_context, interaction_response_params

from .deferral import DEFER_AFTER

log = logging.getLogger(__name__)

# A button or menu click; and its acknowledgement that leaves the message as it is for now.
COMPONENT = discord.InteractionType.component.value
DEFERRED_UPDATE = discord.InteractionResponseType.deferred_message_update.value


async def acknowledge(state: Any, data: Any) -> bool:
    """Acknowledge the click ``data`` (a deferred update); True when Discord took it."""
    http = state.http
    try:
        await async_context.get().create_interaction_response(
            int(data["id"]), str(data["token"]),
            # The session discord.py's own Interaction answers through.
            session=http._HTTPClient__session, proxy=http.proxy, proxy_auth=http.proxy_auth,
            params=interaction_response_params(type=DEFERRED_UPDATE))
    except (discord.HTTPException, aiohttp.ClientError, TimeoutError, KeyError,
            ValueError) as exc:
        log.info("Could not acknowledge a click waiting for its turn: %s", exc)
        return False
    except Exception:
        # Whatever else went wrong (a session closing at shutdown), the click is routed
        # when its turn comes and answered as if nothing had been sent.
        log.exception("Could not acknowledge a click waiting for its turn.")
        return False
    return True


def taken(acknowledgement: asyncio.Future[bool]) -> bool | None:
    """Whether Discord took a click's acknowledgement: None while it is on its way."""
    if not acknowledgement.done():
        return None
    return not acknowledgement.cancelled() and acknowledgement.result()


class Door:
    """The component clicks waiting in the queue, by when they are due an acknowledgement."""

    def __init__(self, state: Any) -> None:
        self._state = state
        self._due: list[tuple[float, int, Any]] = []  # (perf_counter due, order, data)
        self._order = itertools.count()
        self._waiting: set[str] = set()  # ids still queued
        self._sent: dict[str, asyncio.Task[bool]] = {}  # ids acknowledged from the queue
        self._timer: asyncio.TimerHandle | None = None
        self._timer_due = 0.0
        self.acknowledged = 0  # clicks acknowledged here (also logged, at INFO)

    def waiting(self, data: Any, began: float) -> None:
        """``data`` joined the queue; Discord made it at ``began`` (``time.perf_counter``)."""
        if int(data.get("type", 0)) != COMPONENT or "id" not in data:
            return
        key = str(data["id"])
        self._waiting.add(key)
        heapq.heappush(self._due, (began + DEFER_AFTER, next(self._order), data))
        if self._timer is None or self._due[0][0] < self._timer_due:
            self._arm()

    def routed(self, data: Any) -> asyncio.Task[bool] | None:
        """``data`` leaves the queue for its handler: its acknowledgement if it got one."""
        key = str(data.get("id"))
        self._waiting.discard(key)
        return self._sent.pop(key, None)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        if not self._due:
            return
        self._timer_due = self._due[0][0]
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(max(0.0, self._timer_due - time.perf_counter()),
                                      self._at_the_door)

    def _at_the_door(self) -> None:
        self._timer = None
        now = time.perf_counter()
        loop = asyncio.get_running_loop()
        before = self.acknowledged
        while self._due and self._due[0][0] <= now:
            _due, _n, data = heapq.heappop(self._due)
            key = str(data["id"])
            if key not in self._waiting or key in self._sent:
                continue  # routed meanwhile: its handler acknowledges it if need be
            self._sent[key] = loop.create_task(acknowledge(self._state, data),
                                               name="cityhall-door")
            self.acknowledged += 1
        if self.acknowledged > before:
            log.info("Acknowledged %d click(s) still waiting for their turn in a crowd; they "
                     "are answered when it comes.", self.acknowledged - before)
        self._arm()
