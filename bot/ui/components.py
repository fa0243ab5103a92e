"""The buttons and menus sent with a message, without discord.py keeping them in memory."""

from __future__ import annotations

from typing import Any, Self

import discord


class Components(discord.ui.View):
    """A message's rows of our DynamicItems.

    discord.py keeps every unfinished view it sends, to route clicks to its callbacks:
    public ones for as long as the process lives, ephemeral ones for 15 minutes, each with
    a task. Ours need none of that, because every item is a DynamicItem that discord.py
    routes by its custom id (which is also why buttons work after a restart). Reporting the
    view as finished keeps discord.py from storing it; the components are sent all the same.
    """

    def __init__(self) -> None:
        super().__init__(timeout=None)

    def is_finished(self) -> bool:
        return True

    def add_item(self, item: discord.ui.Item[Any]) -> Self:
        super().add_item(item)
        # An item points back at its view, which lists the item: a reference cycle that
        # only a garbage collection frees, for every message sent. Nothing reads a sent
        # item's view (discord.py does not keep finished views), so the item forgets it.
        item._update_view(None)
        return self


def ascii_number(text: str, max_digits: int = 9) -> int | None:
    """``text`` as a number if it is 1 to ``max_digits`` ASCII digits, else None.

    ``str.isdigit`` and ``int`` accept far more than a menu we built can send: "²" passes
    ``isdigit`` and then breaks ``int``; "１" (fullwidth) and "٣" (Arabic-Indic) become 1
    and 3. Values and custom ids come from the client, so anything else is a forgery.
    """
    if 0 < len(text) <= max_digits and text.isascii() and text.isdigit():
        return int(text)
    return None


def offered_values(item: discord.ui.Select[Any]) -> list[str] | None:
    """The values picked in ``item``, or None unless each is one of the options the message
    offered (once): Discord enforces that for its own clients, a forged interaction need not.
    """
    offered = {option.value for option in item.options}
    values = list(item.values)
    if not values or len(set(values)) != len(values) or not set(values) <= offered:
        return None
    return values


def one_offered_number(item: discord.ui.Select[Any], max_digits: int = 4) -> int | None:
    """The single number picked in ``item`` if it was offered and is plain ASCII digits."""
    values = offered_values(item)
    if values is None or len(values) != 1:
        return None
    return ascii_number(values[0], max_digits)
