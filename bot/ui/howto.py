"""How to play, on every game's table: one click shows the game's short rules (what the
lobby's How to play and ``/<game> rules`` show), only to whoever clicked, seated or
watching, and the table stays as it is.

The button is a DynamicItem whose custom id carries only the match (``ch:howto:<match>``),
so it answers after a restart like the lobby's buttons. Each game's adapter lays out its own
table buttons; ``with_how_to_play`` adds this one to a row that has room, the way discord.py
lays rows out (a message holds at most five rows of five buttons, a menu filling a row).
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord

from bot.core.i18n import Words
from bot.core.records import ACTIVE, Match

from .deferral import answering_in_time
from .leftovers import let_go_of_view
from .lobby import send_rules_of
from .replies import oops, storage_fault, tell

if TYPE_CHECKING:
    from bot.app import CityhallBot

_ = Words("bot")

log = logging.getLogger(__name__)

ROWS = 5  # Discord's rows of components in a message
ROW_WIDTH = 5  # buttons in a row (a menu takes a whole row)


class HowToPlay(discord.ui.DynamicItem[discord.ui.Button[Any]],
                template=r"ch:howto:(?P<match>[0-9]{1,15})"):
    def __init__(self, match_id: int, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(
            label=_("How to play"), emoji="📖", style=discord.ButtonStyle.secondary, row=row,
            custom_id=f"ch:howto:{match_id}"))
        self.match_id = match_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> HowToPlay:
        return cls(int(match["match"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        # A bug becomes an apology, a slow answer is acknowledged in time, and the view
        # discord.py rebuilt to route the click is let go of (as for the lobby's buttons).
        try:
            async with answering_in_time(interaction):
                try:
                    await self._handle(interaction)
                except Exception as exc:
                    if (sentence := storage_fault(exc, "How to play")) is not None:
                        await tell(interaction, sentence)
                        return
                    log.exception("How to play failed")
                    await oops(interaction)
        finally:
            let_go_of_view(self)

    async def _handle(self, interaction: discord.Interaction) -> None:
        bot: CityhallBot = interaction.client  # type: ignore[assignment]
        match = bot.runtime.get(self.match_id) or await bot.storage.get(self.match_id)
        if match is None or match.game not in bot.adapters:
            await tell(interaction, _("I don't know that game any more; /help lists "
                                      "Cityhall's games."))
            return
        if match.status != ACTIVE:
            await tell(interaction, _("This game is over. /{command} rules shows how it is "
                                      "played.", command=match.game))
            return
        await send_rules_of(interaction, bot.adapters[match.game])


def with_how_to_play(match: Match,
                     items: list[discord.ui.Item[Any]]) -> list[discord.ui.Item[Any]]:
    """A running match's table items (its adapter's ``table_items``) with How to play added
    in a row that has room (``free_row``). A finished match's table has no buttons, and a
    table whose five rows are full keeps just its own (the lobby and ``/<game> rules`` still
    show the rules)."""
    if match.status != ACTIVE:
        return items
    row = free_row(items)
    if row is None:
        return items
    return [*items, HowToPlay(match.id, row=row)]


def free_row(items: list[discord.ui.Item[Any]]) -> int | None:
    """The row where one more button fits after ``items``, laid out as discord.py lays them
    (an item with a row goes there; one without takes the first row with room): beside the
    bottom row's buttons, else on a row of its own below them, else in another row with
    room; None when every row is full (or the items do not fit at all)."""
    widths = [0] * ROWS
    for item in items:
        row = item.row
        if row is None:
            row = next((r for r in range(ROWS) if widths[r] + item.width <= ROW_WIDTH), None)
        if row is None or widths[row] + item.width > ROW_WIDTH:
            return None
        widths[row] += item.width
    used = [r for r in range(ROWS) if widths[r]]
    last = used[-1] if used else -1
    candidates = [*used[-1:], *range(last + 1, ROWS), *reversed(used[:-1]), *range(last)]
    return next((r for r in candidates if widths[r] < ROW_WIDTH), None)
