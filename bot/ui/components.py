"""The buttons and menus sent with a message, without discord.py keeping them in memory."""

from __future__ import annotations

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
