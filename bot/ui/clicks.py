"""How a restart-safe button's click is answered, whatever it does: in time (a slow answer
is acknowledged first, bot/ui/deferral.py), a lost database or a bug as one sentence rather
than "This interaction failed", and the view discord.py rebuilt to route it let go of
(bot/ui/leftovers.py)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from .deferral import answering_in_time
from .expiry import too_late
from .leftovers import let_go_of_view
from .replies import oops, storage_fault, tell

log = logging.getLogger("cityhall")


async def answer_click(interaction: discord.Interaction, item: discord.ui.Item[Any], what: str,
                       handle: Callable[[], Awaitable[None]]) -> None:
    """Run ``handle`` for a click on ``item``; ``what`` names it in the log and in a
    database fault's sentence."""
    try:
        async with answering_in_time(interaction):
            try:
                await handle()
            except Exception as exc:
                if too_late(exc):
                    # Past Discord's 3 s no answer is taken, an apology neither: the player
                    # saw "This interaction failed" (a crowd the loop answered too late).
                    log.warning("%s was answered too late for Discord (over 3 s).",
                                what[:1].upper() + what[1:])
                    return
                if (sentence := storage_fault(exc, what)) is not None:
                    await tell(interaction, sentence)
                    return
                log.exception("%s failed", what)
                await oops(interaction)
    finally:
        let_go_of_view(item)
