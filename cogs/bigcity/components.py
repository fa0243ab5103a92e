"""The persistent components (DynamicItems) on the table and in private replies."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import re
from typing import Any

import discord

from bot.core.records import Match
from bot.games.bigcity import ENGINE
from bot.games.bigcity.content import Card
from bot.ui.components import offered_values, one_offered_number
from bot.ui.paged import letters
from bot.ui.play import guarded, play, seated
from bot.ui.replies import tell

from .ids import CARD_CODES, CATEGORIES, MAP_CODES, MATCH, STAMP, Stamp, board, of_kind, stamp_from
from .screens import (
    GROUP_CODE,
    Screen,
    after_screen,
    cards_screen,
    confirm_screen,
    hand_screen,
    map_options,
    map_screen,
    offers_screen,
)
from .sending import fresh, guard_for, off_loop, reply, show
from .words import cards_words, parse_card, turn_refusal

# -- components ------------------------------------------------------------------------


class HandButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=MATCH + r":hand"):
    """The player's cards, privately, and what they build now."""

    def __init__(self, item: discord.ui.Button[Any]) -> None:
        super().__init__(item)
        found = self.template.fullmatch(self.custom_id)
        assert found is not None
        self.match_id = int(found["match"])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> HandButton:
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.match_id)
        if found is None:
            return
        match, player = found
        await reply(interaction, match, await off_loop(hand_screen, match, player))


class OpenButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=MATCH + STAMP + r":c(?P<code>[bksnxdptrw])(?P<arg>[0-9]{0,4})"
                                          r"(?::p(?P<page>[0-9]{1,3}))?"):
    """Opens (or pages) a chooser of one kind of action."""

    def __init__(self, item: discord.ui.Button[Any]) -> None:
        super().__init__(item)
        found = self.template.fullmatch(self.custom_id)
        assert found is not None
        self.stamp = stamp_from(found)
        self.code = found["code"]
        self.arg = int(found["arg"]) if found["arg"] else None
        self.page = int(found["page"] or 0)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> OpenButton:
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.stamp.match_id)
        if found is None:
            return
        match, player = found
        if not await fresh(interaction, match, self.stamp):
            return
        assert match.state is not None
        if player not in ENGINE.to_act(match.state):
            await tell(interaction, turn_refusal(match, player))
            return
        await reply(interaction, match, await off_loop(open_screen, match, player, self.code,
                                                       self.arg, self.page))


def open_screen(match: Match, player: str, code: str, arg: int | None,
                page: int) -> Screen | str:
    assert match.state is not None
    step = match.state["step"]
    # answers to a trade only while it runs; the trader's offers (or an exchange instead)
    # only when the answers are in
    if (code == "r") != (step == "trade_offers"):
        return CATEGORIES[code].empty
    if (step == "trade_accept" and code not in "wx") or (code == "w" and step != "trade_accept"):
        return CATEGORIES[code].empty
    if code in MAP_CODES:
        return map_screen(match, player, code, arg, page)
    if code in CARD_CODES:
        return cards_screen(match, player, code)
    if code == "w":
        return offers_screen(match, player)
    found = of_kind(ENGINE.legal(match.state, player), "p")
    if not found:
        return CATEGORIES["p"].empty
    index, la = found[0]
    return confirm_screen(match, board(match), index, la, None)


class PickSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                 template=MATCH + STAMP + r":l(?P<code>[bksn])(?P<arg>[0-9]{0,4})"
                                          r":p(?P<page>[0-9]{1,3})"):
    """A lettered menu of places; a pick asks to confirm (or, for a first streetcar, offers
    a second one)."""

    def __init__(self, item: discord.ui.Select[Any]) -> None:
        super().__init__(item)
        found = self.template.fullmatch(self.custom_id)
        assert found is not None
        self.stamp = stamp_from(found)
        self.code = found["code"]
        self.arg = int(found["arg"]) if found["arg"] else None
        self.page = int(found["page"])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> PickSelect:
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.stamp.match_id)
        if found is None:
            return
        match, player = found
        index = one_offered_number(self.item)
        if index is None:
            await tell(interaction, "Pick one of the choices in the menu.")
            return
        if not await fresh(interaction, match, self.stamp):
            return
        assert match.state is not None
        if player not in ENGINE.to_act(match.state):
            await tell(interaction, turn_refusal(match, player))
            return
        screen = await off_loop(pick_screen, match, player, self.stamp, self.code, self.arg,
                                self.page, index)
        await reply(interaction, match, screen)


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
        return "That is not one of the choices."
    la = legal[index]
    if code == "s" and arg is None and any(
            len(other.action["segments"]) == 2
            and la.action["segments"][0] in other.action["segments"]
            for _i, other in of_kind(legal, "s")):
        return map_screen(match, player, "s", index, 0)
    back = f"{stamp.base}:c{code}{'' if arg is None else arg}:p{page}"
    return confirm_screen(match, stamp, index, la, back, letters(position))


class GroupSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                  template=MATCH + STAMP + r":gn:p(?P<page>[0-9]{1,3})"):
    """The first of a neighbourhood's two choices: which one, on which side of the city; a
    pick opens the lettered places there."""

    def __init__(self, item: discord.ui.Select[Any]) -> None:
        super().__init__(item)
        found = self.template.fullmatch(self.custom_id)
        assert found is not None
        self.stamp = stamp_from(found)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> GroupSelect:
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.stamp.match_id)
        if found is None:
            return
        match, player = found
        code = one_offered_number(self.item)
        if code is None or code < GROUP_CODE:
            await tell(interaction, "Pick one of the choices in the menu.")
            return
        if not await fresh(interaction, match, self.stamp):
            return
        assert match.state is not None
        if player not in ENGINE.to_act(match.state):
            await tell(interaction, turn_refusal(match, player))
            return
        await reply(interaction, match, await off_loop(map_screen, match, player, "n", code, 0))


class CardSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                 template=MATCH + STAMP + r":m(?P<code>[xdtr])"):
    """Cards picked from the hand (exchange, discard, trade, an offer); then confirm."""

    def __init__(self, item: discord.ui.Select[Any]) -> None:
        super().__init__(item)
        found = self.template.fullmatch(self.custom_id)
        assert found is not None
        self.stamp = stamp_from(found)
        self.code = found["code"]

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> CardSelect:
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.stamp.match_id)
        if found is None:
            return
        match, player = found
        values = offered_values(self.item) or []
        cards = [c for c in map(parse_card, values) if c is not None]
        if not values or len(cards) != len(values):
            await tell(interaction, "Pick cards from your hand in the menu.")
            return
        if not await fresh(interaction, match, self.stamp):
            return
        assert match.state is not None
        if player not in ENGINE.to_act(match.state):
            await tell(interaction, turn_refusal(match, player))
            return
        await reply(interaction, match, await off_loop(cards_confirm, match, player,
                                                       self.stamp, self.code, cards))


def cards_confirm(match: Match, player: str, stamp: Stamp, code: str,
                  cards: list[Card]) -> Screen | str:
    """After cards were picked from the hand: confirm the move they make."""
    assert match.state is not None
    wanted = sorted(str(c) for c in cards)
    legal = ENGINE.legal(match.state, player)
    index = next((i for i, la in of_kind(legal, code)
                  if "cards" in la.action
                  and sorted(str(c) for c in la.action["cards"]) == wanted), None)
    if index is None:
        return {
            "x": f"You can't exchange {cards_words(cards)} now.",
            "d": f"Only useless cards can be discarded, and not {cards_words(cards)} now.",
            "t": "You may offer one or two of your cards in trade.",
            "r": "Offer one card, or as many as the trader announced.",
        }[code]
    return confirm_screen(match, stamp, index, legal[index], f"{stamp.base}:c{code}")


class ActionButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=MATCH + STAMP + r":a(?P<index>[0-9]{1,4})"):
    """Make the move at this index of the player's legal moves, at this version."""

    def __init__(self, item: discord.ui.Button[Any]) -> None:
        super().__init__(item)
        found = self.template.fullmatch(self.custom_id)
        assert found is not None
        self.stamp = stamp_from(found)
        self.index = int(found["index"])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ActionButton:
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.stamp.match_id)
        if found is None:
            return
        match, player = found
        if not await fresh(interaction, match, self.stamp):
            return
        assert match.state is not None
        legal = await asyncio.to_thread(ENGINE.legal, match.state, player)
        if not legal:
            await tell(interaction, turn_refusal(match, player))
            return
        if self.index >= len(legal):
            await tell(interaction, "That choice is not available.")
            return
        outcome = await play(interaction, match, player, legal[self.index].action,
                             **guard_for(self.stamp))
        if outcome is None:
            return
        mine = dataclasses.replace(outcome, match=copy.copy(outcome.match))
        await show(interaction, outcome.match, await asyncio.to_thread(after_screen, mine, player))


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    HandButton, OpenButton, PickSelect, GroupSelect, CardSelect, ActionButton)
