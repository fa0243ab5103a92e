"""Big City in Discord: /bigcity new and rules, the table's buttons and the private choosers.

A turn, for the player whose turn it is:

- the table shows one button per kind of action (Build, Park or factory, Streetcar,
  Neighborhood, Exchange, Discard useless, Trade, Pass) and **My hand**; each opens a private
  chooser. Where the choices are places (building sites, streets, neighbourhood positions)
  the chooser shows a picture with a letter on each place and a menu of the same letters,
  paged past 25; a pick shows that one choice and asks to confirm. A neighbourhood takes
  two short menus: which one and on which side of the city, then its lettered places there;
- cards are picked from the hand with a multi-select (exchange, discard, trade);
- the draw is one card at a time, a button per stack the rules allow, on the table and in
  the private reply, which names the card drawn.

Custom ids carry no server memory: ``ch:bc:<match>:v<version>:a<index>`` is the index of the
move in ``ENGINE.legal(state, player)``, exact because at one version the list is the same;
a click at another version is stale and answered with the current board. Answers to a trade
(several players at once) are stamped with the trade's turn (``t<turn>``) instead, so one
player's answer does not make the others' menus stale.

The package keeps the sections the single module had: ``ids`` (custom ids, the kinds of
action), ``words`` (sentences), ``screens`` (private replies, where a neighbourhood may go),
``after`` (the reply after a player's own move), ``sending``, ``adapter`` (the table),
``components`` (the DynamicItems) and ``commands`` (slash commands); the private-screen kit
it shares with Cities is ``bot/ui/screens.py``. It reads the game only through the typed
views of ``bot/games/bigcity/views.py`` (``table``, ``seen_by``), never a raw state key.
discord.py loads it as the extension ``cogs.bigcity`` through ``setup``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.games.bigcity import ENGINE

from .adapter import BigCityAdapter
from .commands import BigCity, defaults, new_options
from .components import DYNAMIC_ITEMS, cards_confirm, open_screen, pick_screen
from .ids import CATEGORIES, Stamp, board, of_kind, trade_stamp
from .screens import Screen, cards_screen, hand_screen, map_screen, neighborhood_groups, step_items
from .words import RULES, VARIANT_NAMES, built_words, final_line, last_move, scores_line

if TYPE_CHECKING:
    from bot.app import CityhallBot

# Names tests, /settings and scripts import from ``cogs.bigcity``.
__all__ = [
    "CATEGORIES", "DYNAMIC_ITEMS", "RULES", "VARIANT_NAMES", "BigCity", "BigCityAdapter",
    "Screen", "Stamp", "board", "built_words", "cards_confirm", "cards_screen", "final_line",
    "hand_screen", "last_move", "map_screen", "neighborhood_groups", "new_options", "of_kind",
    "open_screen", "pick_screen", "scores_line", "setup", "step_items", "trade_stamp",
]


async def setup(bot: CityhallBot) -> None:
    await bot.add_game(BigCityAdapter(ENGINE), DYNAMIC_ITEMS, BigCity, defaults)
