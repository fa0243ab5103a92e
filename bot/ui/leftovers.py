"""What a click leaves in memory, and how it is let go of without a garbage collection.

Every object a click makes that sits in a reference cycle is freed only by the garbage
collector. Under load a click is still in flight when the young collections run, so its
cycles are promoted and wait for a full collection, which then frees tens of thousands of
objects at once and walks every long-lived one: a pause of 100-300 ms that every player in
every channel waits through. Three kinds of cycle come with each click, and each is cut
here so that reference counting frees the click as soon as it is done:

- **The message the click came from.** Discord sends a component click with the whole
  message: for a table, its embed, its picture and twenty-odd buttons. discord.py turns all
  of it into objects, then rebuilds a View from the message to route a DynamicItem.
  ``trim_click`` keeps what the bot reads of that message (its id, its flags, the clicked
  component in its row; no embeds, attachments, mentions or the metadata of the command it
  answered) before discord.py parses it.
- **The view a DynamicItem is routed through.** Its items point back at it;
  ``let_go_of_view`` empties it once the item's callback is done.
- **The interaction and its response**, which point at each other (and at the message
  ``original_response`` cached). ``Leftovers`` holds each interaction whose handlers are
  done until nothing but those cycles holds it (a picture still being sent for it, say),
  then cuts them.
"""

from __future__ import annotations

import asyncio
import sys
from collections import deque
from typing import Any

import discord

COMPONENT = discord.InteractionType.component.value  # a button or menu click
ACTION_ROW = discord.ComponentType.action_row.value
COMPONENTS_V2 = discord.MessageFlags.components_v2.flag
# A click's own work (its answer, a picture that follows) is done within seconds; one
# still held by something else after a minute (a traceback, say) is left to the collector
# rather than kept here, where it could not be freed at all.
GIVE_UP_SECONDS = 60.0
SWEEP_SECONDS = 1.0


def trim_click(data: dict[str, Any]) -> None:
    """Cut a component click's message down to what routing and the handlers read, in
    place. Anything unexpected is left as it came; so are Discord's newer layout
    components (flag ``IS_COMPONENTS_V2``), which Cityhall does not send and whose nesting
    is not a list of rows."""
    if data.get("type") != COMPONENT:
        return
    message = data.get("message")
    inner = data.get("data")
    if not isinstance(message, dict) or not isinstance(inner, dict):
        return
    flags = message.get("flags")
    if isinstance(flags, int) and flags & COMPONENTS_V2:
        return
    rows = message.get("components")
    if not isinstance(rows, list):
        return
    if not all(isinstance(row, dict) and row.get("type") == ACTION_ROW
               and isinstance(row.get("components"), list) for row in rows):
        return
    custom_id = inner.get("custom_id")
    kept: list[dict[str, Any]] = []
    for row in rows:
        clicked = [c for c in row["components"]
                   if isinstance(c, dict) and c.get("custom_id") == custom_id]
        if clicked:
            kept.append({**row, "components": clicked[:1]})
            break
    message["components"] = kept
    message["embeds"] = []
    message["attachments"] = []
    message["mentions"] = []
    message["mention_roles"] = []
    # Who answered which command with this message: the click carries its own user.
    message.pop("interaction_metadata", None)
    message.pop("interaction", None)


def let_go_of_view(item: discord.ui.Item[Any]) -> None:
    """After a DynamicItem's callback: empty the view discord.py rebuilt from the message
    to route it (nothing reads it afterwards), so it and its items are freed at once."""
    view = item.view
    if isinstance(view, discord.ui.View):
        view.clear_items()
    item._update_view(None)


class Leftovers:
    """Interactions whose handlers are done, until nothing else holds them."""

    def __init__(self) -> None:
        self._waiting: deque[tuple[float, discord.Interaction]] = deque()
        self._timer: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        return len(self._waiting)

    def add(self, interaction: discord.Interaction) -> None:
        if not COUNTING_WORKS:
            return  # left to the collector, as discord.py leaves it
        loop = asyncio.get_running_loop()
        self._waiting.append((loop.time(), interaction))
        if self._timer is None:
            self._timer = loop.call_later(SWEEP_SECONDS, self._sweep)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._waiting.clear()

    def _sweep(self) -> None:
        self._timer = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        still: deque[tuple[float, discord.Interaction]] = deque()
        while self._waiting:
            since, interaction = self._waiting.popleft()
            if not cut_if_unused(interaction) and now - since < GIVE_UP_SECONDS:
                still.append((since, interaction))
        self._waiting = still
        if still:
            self._timer = loop.call_later(SWEEP_SECONDS, self._sweep)


def cut_if_unused(interaction: discord.Interaction) -> bool:
    """Cut the interaction's own cycles if nothing but them (and the caller) holds it;
    True when cut. Something else holding it (a picture still being sent, a traceback)
    may yet use its response, whose state (answered or not) must then stay as it is."""
    cycles = 0
    response = getattr(interaction, "_cs_response", None)
    if response is not None:
        cycles += 1  # the response's _parent
    original = getattr(interaction, "_original_response", None)
    if original is not None and getattr(original._state, "_interaction", None) is interaction:
        cycles += 1  # the cached message's state
    # Counted by getrefcount besides the cycles: its own argument, this function's
    # parameter and the caller's variable (the deque entry it was popped from is gone).
    if sys.getrefcount(interaction) > 3 + cycles:
        return False
    interaction._original_response = None
    if response is not None:
        # discord.py caches the response in this slot; the next read would make a new one.
        delattr(interaction, "_cs_response")
    return True


class _Probe:
    """The two self-referencing slots of discord.Interaction, for the check below."""

    __slots__ = ("_cs_response", "_original_response")

    def __init__(self) -> None:
        self._original_response = None
        self._cs_response = _ProbeResponse(self)


class _ProbeResponse:
    def __init__(self, parent: _Probe) -> None:
        self._parent = parent


def _counting_works() -> bool:
    """Whether this interpreter counts references as ``cut_if_unused`` expects: it must
    refuse an object something else holds, and cut it once nothing does. Otherwise (an
    interpreter that counts differently) nothing is cut."""
    probe: Any = _Probe()
    holder = [probe]
    refused = not cut_if_unused(probe) and hasattr(probe, "_cs_response")
    holder.clear()
    return refused and cut_if_unused(probe) and not hasattr(probe, "_cs_response")


COUNTING_WORKS = _counting_works()
