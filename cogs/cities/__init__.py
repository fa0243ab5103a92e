"""Cities in Discord: /cities new and rules, the table's take buttons and the private choosers.

A turn, for the player whose turn it is:

- the table shows one button per item or group they may take (one click takes it), a row of
  buttons per board row, **My neighbourhood** for everyone seated and **Neighbourhoods**
  (every player's, privately) for anyone in the channel;
- taking a city tile, feature tiles or building pieces opens a private chooser: a preview of
  the player's neighbourhood with every legal spot lettered A, B, C… (a tile's rotations
  each get their own letter), a menu of the same letters (paged past 25) and **Remove it**
  where the rules allow; the chooser moves on to the next thing to place until the turn is
  over. If the chooser was closed, the table's **Place…** button opens it again;
- at setup, the players due choose their starting tile on the table, in reverse turn order.

Custom ids carry no server memory: ``ch:ct:<match>:v<version>:a<index>`` is the index of the
move in ``ENGINE.legal(state, player)``, exact because at one version the list is the same;
a click at another version is stale and answered with the current board.
``…:o<focus>p<page>`` opens the chooser for the ``focus``-th distinct item still to place at
that page, ``…:s<focus>p<page>`` is its menu (the values are legal-move indices).

The package keeps the sections the single module had: ``words`` (the rules, sentences, and
where things go in the picture's words), ``screens`` (private replies), ``sending`` (their
pictures), ``adapter`` (the table and its take buttons), ``components`` (the DynamicItems,
with the chooser whose ids they carry) and ``commands`` (slash commands); the private-screen
kit it shares with Big City is ``bot/ui/screens.py``. discord.py loads it as the extension
``cogs.cities`` through ``setup``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.games.cities import ENGINE

from .adapter import CitiesAdapter
from .commands import CITY_ORDER, Cities, defaults, new_options
from .components import DYNAMIC_ITEMS, ActButton, HoodButton, HoodsButton, OpenButton, PlaceSelect
from .words import RULES, final_line

if TYPE_CHECKING:
    from bot.app import CityhallBot

# Names tests, /settings and scripts import from ``cogs.cities``.
__all__ = [
    "CITY_ORDER", "DYNAMIC_ITEMS", "RULES", "ActButton", "Cities", "CitiesAdapter",
    "HoodButton", "HoodsButton", "OpenButton", "PlaceSelect", "final_line", "new_options",
    "setup",
]


async def setup(bot: CityhallBot) -> None:
    await bot.add_game(CitiesAdapter(ENGINE), DYNAMIC_ITEMS, Cities, defaults)
