"""What a table message is made of, ready to send or to edit an existing message with: its
text, picture (with alt text), embed and buttons. The lobby and the table build one."""

from __future__ import annotations

from dataclasses import dataclass

import discord

from .game import fit_description
from .replies import NO_MENTIONS
from .uploads import Upload


@dataclass
class TablePayload:
    content: str
    png: bytes | None
    view: discord.ui.View | None
    embed: discord.Embed | None = None
    description: str = ""  # the picture's alt text

    def file(self) -> discord.File | None:
        if self.png is None:
            return None
        return Upload(self.png, "table.png",
                      description=fit_description(self.description) or None)

    def send_kwargs(self) -> dict:
        # A table names whose turn it is but notifies nobody, wherever it is sent (a
        # spectator's /game status included): bot/ui/pings.py does the notifying.
        kwargs: dict = {"content": self.content, "allowed_mentions": NO_MENTIONS}
        if self.embed is not None:
            kwargs["embed"] = self.embed
        if (f := self.file()) is not None:
            kwargs["file"] = f
        if self.view is not None:
            kwargs["view"] = self.view
        return kwargs

    def edit_kwargs(self) -> dict:
        f = self.file()
        return {
            "content": self.content,
            "embed": self.embed,
            "attachments": [] if f is None else [f],
            "view": self.view,
            "allowed_mentions": NO_MENTIONS,
        }
