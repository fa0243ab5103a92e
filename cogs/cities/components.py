"""The persistent components (DynamicItems) on the table and in private replies, and the
private answer to a move."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, ClassVar

import discord

from bot.core.engine import JSON, Engine, LegalAction
from bot.core.i18n import Words
from bot.core.records import Match
from bot.games.cities import ENGINE
from bot.games.cities.content import CONTENT
from bot.games.cities.data_words import colour_word, feature_text
from bot.games.cities.state import hood_of
from bot.games.cities.views import PlaceMove, move_of, phase_of, place_move, placing
from bot.ui.items import Click, GameButton, GameItem, GameSelect
from bot.ui.paged import PAGE_SIZE, Choice, page_slice
from bot.ui.screens import button, lettered_menu, show_screen

from .screens import (
    CitiesScreen,
    action_key,
    done_screen,
    focus_keys,
    focus_words,
    hood_screen,
    hoods_screen,
    preview_choice,
)
from .sending import build
from .words import did_words, item_words, spot_label, tile_bounds, turn_refusal

_ = Words("bot.games.cities")

# -- components ---------------------------------------------------------------------------


class CitiesItem:
    """What Cities' buttons and menus share: their ids' prefix, the engine, and why someone
    may not act now."""

    prefix: ClassVar[str] = "ch:ct"
    engine: ClassVar[Engine] = ENGINE

    def turn_refusal(self, match: Match, player: str) -> str:
        return turn_refusal(match, player)


class ActButton(CitiesItem, GameButton, template=":v{version}:a{index:[0-9]{1,4}}"):
    """One legal move by its index: take an item, choose a starting tile, remove a thing."""

    turn_only = True
    version: int
    index: int

    async def on_click(self, click: Click) -> None:
        legal = await click.legal()
        if self.index >= len(legal):
            await click.tell(_("That choice is not available any more."))
            return
        await apply_and_answer(click, legal[self.index].action)


class ChooserItem(CitiesItem):
    """What the chooser's buttons and menu carry: the board, which of the things still to
    place they are for (``focus``, ``screens.focus_keys``) and the menu's page."""

    turn_only = True
    version: int
    focus: int
    page: int


class OpenButton(ChooserItem, GameButton,
                 template=":v{version}:o{focus:[0-9]{1,2}}p{page:[0-9]{1,3}}"):
    """Opens (or pages, or switches) the private chooser of what the player is placing."""

    async def on_click(self, click: Click) -> None:
        screen, pictures = build(click.interaction, chooser, click.match, click.player,
                                 self.focus, self.page)
        await show(click.interaction, click.match, screen, pictures)


class PlaceSelect(ChooserItem, GameSelect,
                  template=":v{version}:s{focus:[0-9]{1,2}}p{page:[0-9]{1,3}}"):
    """The lettered menu of spots: a pick places the thing there."""

    def invalid(self) -> str | None:
        return None if self.read_pick() else bad_pick()

    async def on_click(self, click: Click) -> None:
        legal = await click.legal()
        index, pending = self.number, placing(click.state)
        keys = focus_keys(pending)
        if (index >= len(legal) or not move_of(legal[index].action)["type"].startswith("place_")
                or pending is None  # never, with a place_ move legal
                or (pending["row"] != "tiles"
                    and (self.focus >= len(keys)
                         or action_key(move_of(legal[index].action)) != keys[self.focus]))):
            await click.tell(bad_pick())
            return
        await apply_and_answer(click, legal[index].action)


class HoodButton(CitiesItem, GameButton, template=":hood"):
    """Anyone seated: their own neighbourhood, privately, with their scoring cards."""

    async def on_click(self, click: Click) -> None:
        screen, pictures = build(click.interaction, hood_screen, click.match, click.player)
        await show(click.interaction, click.match, screen, pictures, edit=False)


class HoodsButton(CitiesItem, GameButton, template=":hoods"):
    """Anyone in the channel, seated or watching: every neighbourhood, privately."""

    for_anyone = True

    async def on_click(self, click: Click) -> None:
        screen, pictures = build(click.interaction, hoods_screen, click.match)
        await show(click.interaction, click.match, screen, pictures, edit=False)


def bad_pick() -> str:
    return _("Pick one of the lettered spots in the menu.")


DYNAMIC_ITEMS: tuple[type[GameItem[Any]], ...] = (
    ActButton, OpenButton, PlaceSelect, HoodButton, HoodsButton)


# -- the chooser, and the private answers ------------------------------------------------


def chooser(match: Match, player: str, focus: int, page: int) -> CitiesScreen | str:
    """Where the thing being placed may go, lettered, with Remove it where allowed. Here,
    beside the components whose ids its buttons and menu carry."""
    assert match.state is not None
    pending = placing(match.state)
    if phase_of(match.state) != "play" or pending is None or pending["player"] != player:
        return _("You have nothing to place right now.")
    legal = ENGINE.legal(match.state, player)
    keys = focus_keys(pending)
    row = pending["row"]
    focus = min(max(focus, 0), len(keys) - 1)
    key = keys[focus]
    mine: list[tuple[int, LegalAction, PlaceMove]] = []
    discard: int | None = None
    for i, la in enumerate(legal):
        action = move_of(la.action)
        if row != "tiles" and action_key(action) != key:
            continue
        if action["type"].startswith("discard"):
            discard = i
        else:
            mine.append((i, la, place_move(la.action)))
    items: list[discord.ui.Item[Any]] = []
    preview: list[JSON] = []
    rest = list(pending["items"])
    rest.remove(key)
    text = _("**Place {what}.**", what=focus_words(row, key))
    if rest:
        text += " " + _("Then: {items}.", items=", ".join(item_words(row, i) for i in rest))
    if mine:
        hood = hood_of(match.state, player)
        tile_id = pending["items"][0] if row == "tiles" else None
        labels = []
        for pos, (_i, _la, place) in enumerate(mine):
            # a tile's spots widen the picture: its lot words follow the page's picture
            on_page = page_slice(len(mine), pos // PAGE_SIZE)
            spots = [mine[k][2] for k in on_page] if row == "tiles" else []
            extra = [(int(spot["at"][0]), int(spot["at"][1]))
                     for spot in spots if spot["type"] == "place_tile"]
            labels.append(spot_label(hood, place, tile_bounds(hood, extra), tile_id))
        choices = [Choice(str(i), label) for (i, _la, _p), label in zip(mine, labels, strict=True)]
        menu, preview = lettered_menu(
            choices, [la.action for _i, la, _p in mine], page, mark=preview_choice,
            select_id=lambda p: PlaceSelect.on(match, focus=focus, page=p),
            page_id=lambda p: OpenButton.on(match, focus=focus, page=p),
            placeholder=_("Choose a lettered spot"))
        items.extend(menu)
        text += " " + (_("The picture letters every spot it may go (each rotation of the tile "
                         "has its own letter); pick the same letter in the menu.")
                       if row == "tiles" else
                       _("The picture letters every spot it may go; pick the same letter in "
                         "the menu."))
    else:
        text += " " + _("It has no legal spot in your neighbourhood, so it can only be removed.")
    extra_row = 2
    if discard is not None:
        items.append(button(_("Remove it"), ActButton.on(match, index=discard),
                            style=discord.ButtonStyle.danger, emoji="🗑️", row=extra_row))
    for k, other in enumerate(keys):
        if k != focus:
            label = (_("Place the {feature} first", feature=feature_text(CONTENT.features[other]))
                     if row == "features" else
                     _("Place the {colour} first", colour=colour_word(other)))
            items.append(button(label, OpenButton.on(match, focus=k, page=0), row=extra_row))
    return CitiesScreen(text, items, preview or None, hood_of=None if preview else player,
                        player=player)


async def show(interaction: discord.Interaction, match: Match, screen: CitiesScreen | str,
               pictures: Awaitable[list[discord.File]] | None, *,
               edit: bool | None = None) -> None:
    """Show a screen privately: edit the private message it came from, or send a new one."""
    if isinstance(screen, str):
        screen = CitiesScreen(screen)
    await show_screen(interaction, match.id, screen, DYNAMIC_ITEMS, pictures, edit=edit)


async def apply_and_answer(click: Click, action: JSON) -> None:
    outcome = await click.play(action)
    if outcome is None:
        return
    interaction, player = click.interaction, click.player
    after = outcome.match
    assert after.state is not None
    pending = placing(after.state)
    if phase_of(after.state) == "play" and pending is not None and pending["player"] == player:
        screen, pictures = build(interaction, chooser, after, player, 0, 0)
        if isinstance(screen, CitiesScreen):
            screen.text = " ".join([*did_words(player, outcome), screen.text])
    else:
        screen, pictures = build(interaction, done_screen, after, player, outcome)
    await show(interaction, after, screen, pictures)

