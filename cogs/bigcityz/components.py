"""The persistent components (DynamicItems): **Place** on the table and the private chooser
it opens, whose ids its menu and buttons carry (a move by its index in ``legal``), and
**Objection** / **No objection**, tied to the city card in play."""

from __future__ import annotations

from typing import Any, ClassVar

import discord

from bot.core.engine import Engine
from bot.core.i18n import Text, Words
from bot.core.records import Match
from bot.games.bigcityz import ENGINE
from bot.games.bigcityz.names import city as city_name
from bot.games.bigcityz.views import BigCityzView, placing_move, seen_by, table
from bot.ui.items import Click, GameButton, GameItem, GameSelect
from bot.ui.screens import Screen, show_screen
from bot.ui.words import name

from .words import action_label, move_text, target_option

_ = Words("bot.games.bigcityz")
_n, _l, _ln, _p = _.plural, _.lazy, _.lazy_plural, _.context


def card_stamp(view: BigCityzView) -> int:
    """Changes with every city drawn: ties an objection to the card it was meant for."""
    return view["piles"]["cities"]


class BigCityzItem:
    """What Big Cityz's buttons and menus share: their ids' prefix and the engine."""

    prefix: ClassVar[str] = "ch:bz"
    engine: ClassVar[Engine] = ENGINE


# -- placing --------------------------------------------------------------------------


class PlaceButton(BigCityzItem, GameButton, template=":v{version}:place"):
    stale = _l("That board is out of date.")  # said when shown, in the clicker's language
    turn_only = True
    version: int

    @classmethod
    def make(cls, match_id: int, version: int) -> PlaceButton:
        return cls.create(discord.ui.Button(label=_("Place"), emoji="📍",
                                            style=discord.ButtonStyle.primary),
                          match_id=match_id, version=version)

    def due(self, match: Match, player: str) -> str | None:
        assert match.state is not None
        mine = seen_by(match.state, player)
        if mine["is_my_turn"]:
            return None
        turn, placing = mine["to_act"], mine["phase"] == "place"
        return (_("It's {player}'s turn to place, not yours.", player=name(match, turn[0]))
                if turn and placing else _("Nobody is placing right now."))

    async def on_click(self, click: Click) -> None:
        await show(click, chooser(click.match, click.player), edit=False)


def chooser(match: Match, player: str) -> Screen:
    """The private choice: a menu of every free square, and Replace / No free square."""
    assert match.state is not None
    view = table(match.state)
    legal = ENGINE.legal(match.state, player)
    moves = [(placing_move(a.action), a.label) for a in legal]
    items: list[discord.ui.Item[Any]] = []
    places = [(i, move) for i, (move, _label) in enumerate(moves) if move["type"] == "place"]
    if places:
        items.append(PlaceSelect.make(match.id, match.version, [
            (i, target_option(view, move)) for i, move in places]))
    for i, (move, label) in enumerate(moves):
        if move["type"] != "place":
            items.append(ActionButton.make(match.id, match.version, i,
                                           action_label(view, move, label)))
    city = city_name(view["city"]) if view["city"] else _("the city")
    if view["replaced_slot"]:
        return Screen(_("Where does **{city}** go? You replaced a board, so it goes on the new "
                        "one.", city=city), items)
    return Screen(_("Where does **{city}** go?", city=city), items)


class ChoiceItem(BigCityzItem):
    """The private chooser's menu and buttons: a move by its index in ``legal``."""

    stale: ClassVar[str | Text | None] = _l("That choice belongs to an earlier board.")
    version: int

    async def choose(self, click: Click, index: int) -> None:
        legal = await click.legal()
        if not 0 <= index < len(legal):
            await click.tell(_("That isn't one of your choices right now."))
            return
        action = legal[index].action
        move = placing_move(action)
        outcome = await click.play(action)
        if outcome is None:
            return
        assert outcome.match.state is not None
        if move["type"] == "replace":
            screen = chooser(outcome.match, click.player)
            screen.text = _("Board {slot} replaced.", slot=move["slot"]) + f"\n{screen.text}"
        else:
            screen = Screen(_("You {placement}.",
                              placement=move_text(table(outcome.match.state), move)))
        await show(click, screen, edit=True)


class PlaceSelect(ChoiceItem, GameSelect, template=":v{version}:pick"):
    @classmethod
    def make(cls, match_id: int, version: int,
             places: list[tuple[int, tuple[str, str]]]) -> PlaceSelect:
        # At most 16 squares and 8 risk fields are ever free, within Discord's 25.
        options = [discord.SelectOption(label=label[:100], value=str(i),
                                        description=description[:100] or None)
                   for i, (label, description) in places[:25]]
        return cls.create(discord.ui.Select(placeholder=_("Put it on…"), options=options,
                                             row=0),
                          match_id=match_id, version=version)

    async def on_click(self, click: Click) -> None:
        await self.choose(click, self.number)


class ActionButton(ChoiceItem, GameButton, template=":v{version}:a{index:[0-9]{1,3}}"):
    """Replace board N / There's no free square: the index of the move in ``legal``."""

    index: int

    @classmethod
    def make(cls, match_id: int, version: int, index: int, label: str) -> ActionButton:
        return cls.create(discord.ui.Button(label=label[:80], row=1,
                                            style=discord.ButtonStyle.secondary),
                          match_id=match_id, version=version, index=index)

    async def on_click(self, click: Click) -> None:
        await self.choose(click, self.index)


# -- objections -----------------------------------------------------------------------


class VetoButton(BigCityzItem, GameButton,
                 template=":c{stamp:[0-9]{1,4}}:{answer:veto|noveto}"):
    """Objection / No objection. Tied to the city card, not the board version, so one
    player's answer does not make the others' buttons outdated."""

    stale = _l("The objections for that city are closed.")
    stale_shows_board = False
    stamp: int
    answer: str

    @classmethod
    def make(cls, match_id: int, stamp: int, answer: str) -> VetoButton:
        label, style = ((_("Objection"), discord.ButtonStyle.danger) if answer == "veto"
                        else (_("No objection"), discord.ButtonStyle.secondary))
        return cls.create(discord.ui.Button(label=label, style=style,
                                            emoji="✋" if answer == "veto" else "👍"),
                          match_id=match_id, stamp=stamp, answer=answer)

    def current(self, match: Match) -> bool:
        if match.state is None:
            return False
        view = table(match.state)
        return view["phase"] == "veto" and card_stamp(view) == self.stamp

    async def on_click(self, click: Click) -> None:
        outcome = await click.play({"type": "veto" if self.answer == "veto" else "no_veto"})
        if outcome is None:
            return
        left = (table(outcome.match.state)["vetoes_left"][click.player]
                if outcome.match.state is not None else 0)
        await click.tell(_n("Objection raised. You have {n} veto marker left.",
                            "Objection raised. You have {n} veto markers left.", left)
                         if self.answer == "veto"
                         else _("No objection from you this time; your markers are kept."))


DYNAMIC_ITEMS: tuple[type[GameItem[Any]], ...] = (
    PlaceButton, PlaceSelect, ActionButton, VetoButton)


async def show(click: Click, screen: Screen, *, edit: bool) -> None:
    """Answer the click with the private screen (``bot.ui.screens.show_screen``): ``edit``
    the chooser it came from, or send a new one."""
    await show_screen(click.interaction, click.match.id, screen, DYNAMIC_ITEMS, None, edit=edit)
