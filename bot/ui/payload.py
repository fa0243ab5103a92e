"""What a table message is made of, ready to send or to edit an existing message with: its
text, picture (with alt text), embed and buttons. The lobby and the table build one."""

from __future__ import annotations

from dataclasses import dataclass, field

import discord

from .game import fit_description
from .replies import NO_MENTIONS
from .uploads import Upload


@dataclass(frozen=True)
class Drawn:
    """A picture drawn for a message: its PNG, file name and alt text (an ``Upload`` is made
    of it for each send, since a sent one lets go of its bytes)."""

    png: bytes
    filename: str
    description: str = ""

    def upload(self) -> Upload:
        return Upload(self.png, self.filename, description=self.description or None)


@dataclass
class TablePayload:
    content: str
    png: bytes | None
    view: discord.ui.View | None
    embed: discord.Embed | None = None
    description: str = ""  # the picture's alt text
    # pictures shown beside the board (the latest news's: a Big Cityz reveal)
    extras: list[Drawn] = field(default_factory=list)
    # An edit that changes the words and buttons only: the message keeps its pictures
    # (a turn in progress, docs/channel.md).
    keeps_pictures: bool = False

    def file(self) -> discord.File | None:
        if self.png is None:
            return None
        return Upload(self.png, "table.png",
                      description=fit_description(self.description) or None)

    def files(self) -> list[discord.File]:
        table = self.file()
        if table is None:
            return []
        return [table, *(extra.upload() for extra in self.extras)]

    def send_kwargs(self) -> dict:
        # A table names whose turn it is but notifies nobody, wherever it is sent (a
        # spectator's /game status included): bot/ui/pings.py does the notifying.
        kwargs: dict = {"content": self.content, "allowed_mentions": NO_MENTIONS}
        if self.embed is not None:
            kwargs["embed"] = self.embed
        files = self.files()
        if len(files) == 1:
            kwargs["file"] = files[0]
        elif files:
            kwargs["files"] = files
        if self.view is not None:
            kwargs["view"] = self.view
        return kwargs

    def edit_kwargs(self) -> dict:
        kwargs = {
            "content": self.content,
            "embed": self.embed,
            "attachments": self.files(),
            "view": self.view,
            "allowed_mentions": NO_MENTIONS,
        }
        if self.keeps_pictures:
            del kwargs["attachments"]  # left out, Discord keeps what the message has
        return kwargs
