"""The persistent components (DynamicItems) on the table and in private replies."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from typing import Any, ClassVar

import discord

from bot.core.engine import Engine
from bot.core.i18n import Words
from bot.core.records import Match
from bot.games.bigcity import ENGINE
from bot.games.bigcity.content import Card
from bot.games.bigcity.views import move_of, streetcar_of, table
from bot.ui.components import offered_values
from bot.ui.items import Click, GameButton, GameItem, GameSelect
from bot.ui.paged import letters
from bot.ui.replies import tell
from bot.ui.screens import show_screen

from .after import after_screen
from .ids import CARD_CODES, CATEGORIES, MAP_CODES, STAMP, Stamp, board, of_kind
from .screens import (
    GROUP_CODE,
    Screen,
    cards_screen,
    confirm_screen,
    hand_screen,
    map_options,
    map_screen,
    offers_screen,
)
from .sending import guard_for, off_loop, preview_of
from .words import cards_words, parse_card, turn_refusal

_ = Words("bot.games.bigcity")

# -- components ------------------------------------------------------------------------


class BigCityItem:
    """What Big City's buttons and menus share: their ids' prefix, the engine, and why
    someone may not act now."""

    prefix: ClassVar[str] = "ch:bc"
    engine: ClassVar[Engine] = ENGINE

    def turn_refusal(self, match: Match, player: str) -> str:
        return turn_refusal(match, player)


class Stamped(BigCityItem):
    """An item tied to a moment of the game by its stamp (``ids.Stamp``): the board
    version, or for answers to a trade, the trade's turn."""

    match_id: int
    kind: str
    num: int

    @property
    def stamp(self) -> Stamp:
        return Stamp(self.match_id, self.kind, self.num)

    def current(self, match: Match) -> bool:
        return self.stamp.holds(match)

    def stale_reason(self) -> str:
        return self.stamp.stale_reason()

    def guard(self) -> dict[str, Any]:
        return guard_for(self.stamp)


class HandButton(BigCityItem, GameButton, template=":hand"):
    """The player's cards, privately, and what they build now."""

    async def on_click(self, click: Click) -> None:
        await reply(click.interaction, click.match,
                    await off_loop(hand_screen, click.match, click.player))


class OpenButton(Stamped, GameButton,
                 template=":" + STAMP + ":c{code:[bksnxdptrw]}{arg:[0-9]{0,4}}"
                                        "[:p{page:[0-9]{1,3}}]"):
    """Opens (or pages) a chooser of one kind of action."""

    turn_only = True
    code: str
    arg: int | None
    page: int | None

    async def on_click(self, click: Click) -> None:
        await reply(click.interaction, click.match,
                    await off_loop(open_screen, click.match, click.player, self.code,
                                   self.arg, self.page or 0))


def open_screen(match: Match, player: str, code: str, arg: int | None,
                page: int) -> Screen | str:
    assert match.state is not None
    step = table(match.state)["step"]
    # answers to a trade only while it runs; the trader's offers (or an exchange instead)
    # only when the answers are in
    if (code == "r") != (step == "trade_offers"):
        return str(CATEGORIES[code].empty)
    if (step == "trade_accept" and code not in "wx") or (code == "w" and step != "trade_accept"):
        return str(CATEGORIES[code].empty)
    if code in MAP_CODES:
        return map_screen(match, player, code, arg, page)
    if code in CARD_CODES:
        return cards_screen(match, player, code)
    if code == "w":
        return offers_screen(match, player)
    found = of_kind(ENGINE.legal(match.state, player), "p")
    if not found:
        return str(CATEGORIES["p"].empty)
    index, la = found[0]
    return confirm_screen(match, board(match), index, la, None)


class PickSelect(Stamped, GameSelect,
                 template=":" + STAMP + ":l{code:[bksn]}{arg:[0-9]{0,4}}:p{page:[0-9]{1,3}}"):
    """A lettered menu of places; a pick asks to confirm (or, for a first streetcar, offers
    a second one)."""

    turn_only = True
    code: str
    arg: int | None
    page: int

    async def on_click(self, click: Click) -> None:
        screen = await off_loop(pick_screen, click.match, click.player, self.stamp, self.code,
                                self.arg, self.page, self.number)
        await reply(click.interaction, click.match, screen)


def pick_screen(match: Match, player: str, stamp: Stamp, code: str, arg: int | None,
                page: int, index: int) -> Screen | str:
    """After a pick in a lettered menu: confirm it, or for a first streetcar that can get a
    second one, the menu of pairs."""
    assert match.state is not None
    legal = ENGINE.legal(match.state, player)
    options = map_options(match.state, legal, code, arg)
    if isinstance(options, str):
        return options
    position = next((k for k, (i, _la) in enumerate(options) if i == index), None)
    if position is None:
        return _("That is not one of the choices.")
    la = legal[index]
    if code == "s" and arg is None and any(
            len(streetcar_of(other.action)["segments"]) == 2
            and streetcar_of(la.action)["segments"][0] in streetcar_of(other.action)["segments"]
            for _i, other in of_kind(legal, "s")):
        return map_screen(match, player, "s", index, 0)
    back = f"{stamp.base}:c{code}{'' if arg is None else arg}:p{page}"
    return confirm_screen(match, stamp, index, la, back, letters(position))


class GroupSelect(Stamped, GameSelect, template=":" + STAMP + ":gn:p{page:[0-9]{1,3}}"):
    """The first of a neighbourhood's two choices: which one, on which side of the city; a
    pick opens the lettered places there."""

    turn_only = True
    page: int

    def read_pick(self) -> bool:
        return super().read_pick() and self.number >= GROUP_CODE

    async def on_click(self, click: Click) -> None:
        await reply(click.interaction, click.match,
                    await off_loop(map_screen, click.match, click.player, "n", self.number, 0))


class CardSelect(Stamped, GameSelect, template=":" + STAMP + ":m{code:[xdtr]}"):
    """Cards picked from the hand (exchange, discard, trade, an offer); then confirm."""

    turn_only = True
    code: str
    cards: list[Card]

    def invalid(self) -> str | None:
        return None if self.read_pick() else _("Pick cards from your hand in the menu.")

    def read_pick(self) -> bool:
        values = offered_values(self.item) or []
        self.cards = [c for c in map(parse_card, values) if c is not None]
        return bool(values) and len(self.cards) == len(values)

    async def on_click(self, click: Click) -> None:
        await reply(click.interaction, click.match,
                    await off_loop(cards_confirm, click.match, click.player, self.stamp,
                                   self.code, self.cards))


def cards_confirm(match: Match, player: str, stamp: Stamp, code: str,
                  cards: list[Card]) -> Screen | str:
    """After cards were picked from the hand: confirm the move they make."""
    assert match.state is not None
    wanted = sorted(str(c) for c in cards)
    legal = ENGINE.legal(match.state, player)
    index = next((i for i, la in of_kind(legal, code)
                  if "cards" in (move := move_of(la.action))
                  and sorted(str(c) for c in move["cards"]) == wanted), None)
    if index is None:
        if code == "x":
            return _("You can't exchange {cards} now.", cards=cards_words(cards))
        if code == "d":
            return _("Only useless cards can be discarded, and not {cards} now.",
                     cards=cards_words(cards))
        if code == "t":
            return _("You may offer one or two of your cards in trade.")
        return _("Offer one card, or as many as the trader announced.")
    return confirm_screen(match, stamp, index, legal[index], f"{stamp.base}:c{code}")


class ActionButton(Stamped, GameButton, template=":" + STAMP + ":a{index:[0-9]{1,4}}"):
    """Make the move at this index of the player's legal moves, at this version."""

    index: int

    async def on_click(self, click: Click) -> None:
        legal = await click.legal()
        if not legal:
            await click.tell(turn_refusal(click.match, click.player))
            return
        if self.index >= len(legal):
            await click.tell(_("That choice is not available."))
            return
        outcome = await click.play(legal[self.index].action)
        if outcome is None:
            return
        mine = dataclasses.replace(outcome, match=copy.copy(outcome.match))
        await show(click.interaction, outcome.match,
                   await asyncio.to_thread(after_screen, mine, click.player))


DYNAMIC_ITEMS: tuple[type[GameItem[Any]], ...] = (
    HandButton, OpenButton, PickSelect, GroupSelect, CardSelect, ActionButton)


# -- sending a screen --------------------------------------------------------------------


async def show(interaction: discord.Interaction, match: Match, screen: Screen) -> None:
    """Show a screen privately: edit the private message it was asked from, or send one."""
    await show_screen(interaction, match.id, screen, DYNAMIC_ITEMS,
                      preview_of(interaction, match, screen))


async def reply(interaction: discord.Interaction, match: Match, screen: Screen | str) -> None:
    """A screen, or the sentence that says why there is none."""
    if isinstance(screen, str):
        await tell(interaction, screen)
    else:
        await show(interaction, match, screen)
