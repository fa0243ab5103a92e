"""Pictures the bot uploads, let go of as soon as their request is done.

``discord.File`` stubs its file object's ``close`` while discord.py may still retry the
request, and afterwards puts the original back as a bound method in the file object's own
``__dict__``: the ``BytesIO`` then refers to itself, and only a full garbage collection
frees it, with the copy of the picture aiohttp took for the upload (50-75 KB). The bot
freezes what it loads at start and full collections are rare (each pauses every click),
so under steady clicking these copies piled up: the load test's soak grew by about
3.5 MB a minute until they were found (``memray run --native``, 27 Nov 2026).
``Upload.close`` (discord.py calls it when a request is over, sent or failed) closes the
``BytesIO``, which frees its buffer at once, and takes the bound method back out, so the
object itself goes by reference counting too.
"""

from __future__ import annotations

import io

import discord


class Upload(discord.File):
    """A picture (PNG bytes) to attach to a message, freed when its request is over."""

    def __init__(self, png: bytes, filename: str, *, description: str | None = None) -> None:
        super().__init__(io.BytesIO(png), filename, description=description)

    def close(self) -> None:
        super().close()
        vars(self.fp).pop("close", None)
        self.fp.close()
