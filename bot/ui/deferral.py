"""A click whose answer is slow is acknowledged in time, and answered when the answer is ready.

Discord fails a click ("This interaction failed") that is not answered within 3 s. A move
is answered after it is committed, and a commit can wait: an SQLite file another program
holds locked, a PostgreSQL server catching up. So every click's handler runs with
``answering_in_time``: if it has not answered ``DEFER_AFTER`` seconds after the click reached
the bot (its wait for its turn in a crowd counted: ``arrived``), the click is acknowledged without a visible change (Discord's deferred update, which asks nothing of the
player), and the handler's answer, when it comes, goes out as what it would have been: an
edit of the message clicked (``edit_message``) becomes an edit of that message through the
interaction's webhook, and a new private message (``send_message``) a follow-up.

The handler does not know: ``interaction.response`` is replaced by ``Answer`` for its
duration, which forwards everything to discord.py's own object until the click is deferred.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord

from bot.core.i18n import Words

from .tablehooks import CARRY_TABLE

_ = Words("bot")
_l = _.lazy

log = logging.getLogger(__name__)

# A second of Discord's 3 s left for the deferral itself to arrive. Counted from when Discord
# made the click (``arrived``). 1.5 s was tried: in a restart's crowd it deferred a quarter of the
# first clicks, each then answered by a follow-up, and the extra requests made the crowd
# slower (READY -> every match answered 2.77-3.15 s in four runs, the slowest click within
# 0.15 s of Discord's limit) than at 2 s (2.24-2.71 s, slowest 2.46 s); docs/performance.md.
DEFER_AFTER = 2.0
# Said when the click is slow because the database server is out of reach.
# (The English, which tests look for; said with ``_()`` in the clicker's language.)
DATABASE_BACK_SOON = _l("The database is back in a moment: your click goes through as soon "
                        "as it is, and you will see its answer then.").message

# The keys of send_message / edit_message a follow-up or a webhook edit also takes.
_SEND = ("embed", "embeds", "file", "files", "view", "tts", "ephemeral", "allowed_mentions",
         "suppress_embeds", "silent")
_EDIT = ("content", "embed", "embeds", "attachments", "view", "allowed_mentions")
# Discord's answer to a second acknowledgement of one interaction.
ALREADY_ACKNOWLEDGED = 40060
_ANSWER = "cityhall_answer_message"  # interaction.extras: the follow-up that answered
_ARRIVED = "cityhall_arrived"  # interaction.extras: time.perf_counter() when it reached us
_DOOR = "cityhall_door"  # interaction.extras: its acknowledgement from the queue (bot/ui/door.py)


def arrived(interaction: discord.Interaction, at: float) -> None:
    """Note when Discord made the click (``time.perf_counter()`` less its age by its id,
    else when it reached the bot), before it waited its turn to be routed: Discord's 3 s
    started before the handler did. In a crowd (a restart, a burst) a click can wait a
    second in the gateway's buffer and the queue; its deferral is due that much sooner."""
    interaction.extras[_ARRIVED] = at


def deferred_at_door(interaction: discord.Interaction, acknowledgement: asyncio.Task[bool],
                     ) -> None:
    """The click was acknowledged while it waited for its turn (bot/ui/door.py): its handler
    answers it as a deferred click, once ``acknowledgement`` says Discord took it."""
    interaction.extras[_DOOR] = acknowledgement


async def _door_taken(acknowledgement: asyncio.Future[bool]) -> bool:
    """Whether Discord took the acknowledgement sent from the queue, once it has arrived
    (False if it failed or was cancelled)."""
    try:
        return await asyncio.shield(acknowledgement)
    except asyncio.CancelledError:
        if acknowledgement.cancelled():
            return False
        raise


def waited(interaction: discord.Interaction) -> float:
    """Seconds since the click reached the bot (0.0 where that was not noted)."""
    at = interaction.extras.get(_ARRIVED)
    return 0.0 if at is None else max(0.0, time.perf_counter() - at)


class Answer:
    """``interaction.response`` while a handler runs: discord.py's own, until the click is
    deferred for being slow; then the same calls, made as follow-ups and webhook edits."""

    def __init__(self, real: discord.InteractionResponse[Any]):
        # The interaction is reached through discord.py's response (its ``_parent``), not
        # held here as well: a second reference back to it would be one more cycle than
        # bot/ui/leftovers.py cuts, and every click would wait for a full collection.
        self._real = real
        self._lock = asyncio.Lock()  # the deferral and the handler's answer never cross
        self.deferred = False
        self.deferring = False  # the deferral is on its way: it must not be cut short
        self._answered = False

    def _interaction(self) -> discord.Interaction:
        parent: discord.Interaction = self._real._parent
        return parent

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def is_done(self) -> bool:
        return self._answered or self._real.is_done()

    async def defer_if_unanswered(self) -> None:
        async with self._lock:
            if self._real.is_done():
                return
            self.deferring = True
            await self._directly(self._real.defer)  # a component: "deferred update"
            self.deferred = True
        log.info("A click took over %.1f s to answer; it was acknowledged and will be "
                 "answered when ready.", DEFER_AFTER)

    async def _directly(self, call: Any, *args: Any, **kwargs: Any) -> tuple[bool, Any]:
        """``call`` (discord.py's own answer), and whether it answered. Not where Discord
        says the click was acknowledged already: an acknowledgement whose reply never
        reached us (the door's or ``defer_if_unanswered``'s, its connection broken after
        Discord took it; seen in a restart's crowd, 3 Dec) still counts at Discord. The
        click is then answered as a deferred one, instead of failing its handler."""
        try:
            return True, await call(*args, **kwargs)
        except discord.HTTPException as exc:
            if exc.code != ALREADY_ACKNOWLEDGED:
                raise
        log.info("A click was acknowledged by a request whose reply was lost; it is answered "
                 "as a deferred click is (a follow-up, or an edit through the interaction).")
        self.deferred = True
        self._real._response_type = discord.InteractionResponseType.deferred_message_update
        return False, None

    async def send_message(self, content: Any = None, **kwargs: Any) -> Any:
        async with self._lock:
            if (not self.deferred and kwargs.get("ephemeral")
                    and CARRY_TABLE in self._interaction().extras and not self._real.is_done()):
                # A private answer to a click on a table: the click updates the table
                # (deferred, nothing changes yet), so that the table's next edits can go
                # through it (bot/ui/tablehooks.py); the private answer follows.
                await self._directly(self._real.defer)
                self.deferred = True
            if not self.deferred:
                answered, value = await self._directly(self._real.send_message, content,
                                                       **kwargs)
                if answered:
                    return value
            self._answered = True
            sent = await self._interaction().followup.send(
                content if content is not None else discord.utils.MISSING,
                wait=True, **{k: v for k, v in kwargs.items() if k in _SEND})
            self._interaction().extras[_ANSWER] = sent
            return None

    async def edit_message(self, **kwargs: Any) -> Any:
        async with self._lock:
            if not self.deferred:
                answered, value = await self._directly(self._real.edit_message, **kwargs)
                if answered:
                    return value
            self._answered = True
            await self._interaction().edit_original_response(
                **{k: v for k, v in kwargs.items() if k in _EDIT})
            return None

    async def defer(self, **kwargs: Any) -> Any:
        async with self._lock:
            if self.deferred:
                return None  # already acknowledged
            _answered, value = await self._directly(self._real.defer, **kwargs)
            return value


async def edit_answer(interaction: discord.Interaction, **kwargs: Any) -> None:
    """Edit the message that answered the click: the follow-up, when a slow click was
    answered by one, else the interaction's original response."""
    followup = interaction.extras.get(_ANSWER)
    if followup is not None:
        await followup.edit(**kwargs)
    else:
        await interaction.edit_original_response(**kwargs)


@contextlib.asynccontextmanager
async def answering_in_time(interaction: discord.Interaction) -> AsyncIterator[Answer]:
    """Run a click's handler inside: ``DEFER_AFTER`` after the click arrived (``arrived``;
    else after the handler started), unanswered, the click is deferred."""
    real = interaction.response
    if isinstance(real, Answer):  # nested: the outer one watches the clock
        yield real
        return
    answer = Answer(real)
    interaction._cs_response = answer  # type: ignore[attr-defined]  # discord.py's cache slot
    door = interaction.extras.pop(_DOOR, None)
    if door is not None and await _door_taken(door):
        # Acknowledged from the queue: every answer is a follow-up or an edit through the
        # interaction, and discord.py, which did not send it, is told it was sent.
        answer.deferred = True
        real._response_type = discord.InteractionResponseType.deferred_message_update

    async def watch() -> None:
        await asyncio.sleep(max(0.0, DEFER_AFTER - waited(interaction)))
        try:
            await answer.defer_if_unanswered()
            storage = getattr(interaction.client, "storage", None)
            if answer.deferred and storage is not None and storage.unreachable:
                await interaction.followup.send(_(DATABASE_BACK_SOON), ephemeral=True)
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as exc:
            log.info("Could not acknowledge a slow click: %s", exc)

    watcher = asyncio.get_running_loop().create_task(watch(), name="cityhall-defer")
    try:
        yield answer
    finally:
        if answer.deferring:
            await asyncio.shield(watcher)  # an acknowledgement half sent is finished
        else:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
