"""The table: what the shared table code shows for a Cities match, and its take buttons."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import discord

from bot.core.i18n import Words
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.cities import ENGINE
from bot.games.cities.content import CONTENT
from bot.games.cities.data_words import city_name
from bot.games.cities.views import (
    CitiesView,
    Row,
    events,
    move_of,
    phase_of,
    placing,
    table,
    turn_of,
)
from bot.ui.game import GameAdapter, Notice, Picture
from bot.ui.items import wrap
from bot.ui.screens import button, named_view
from bot.ui.words import mention, name

from .components import DYNAMIC_ITEMS, ActButton, HoodButton, HoodsButton, OpenButton
from .words import (
    RULES_TEXT,
    achievement_name,
    breakdown_lines,
    final_line,
    item_words,
    pending_words,
    row_words,
    scores_line,
    take_label,
    took_words,
)

_ = Words("bot.games.cities")
_n = _.plural

ROW_EMOJI = {"cards": "🃏", "tiles": "🧱", "features": "🌳", "pieces": "🏢"}
ROW_INDEX = {"cards": 0, "tiles": 1, "features": 2, "pieces": 3}
ROWS: tuple[Row, ...] = ("cards", "tiles", "features", "pieces")


def take_items(match: Match) -> list[discord.ui.Item[Any]]:
    """One button per take (or starting tile) the player due may choose, on the table."""
    assert match.state is not None
    due = ENGINE.to_act(match.state)
    if not due:
        return []
    legal = ENGINE.legal(match.state, due[0])
    rows = table(match.state)["rows"]
    items: list[discord.ui.Item[Any]] = []
    for i, la in enumerate(legal):
        action = move_of(la.action)
        if action["type"] == "choose_start_tile":
            tile = action["tile"]
            items.append(button(_("Start with {tile} · {layout}", tile=tile,
                                  layout=CONTENT.tiles[tile].label()),
                                ActButton.on(match, index=i), style=discord.ButtonStyle.primary,
                                row=0))
        elif action["type"] == "take":
            row = action["row"]
            slot: Mapping[str, Any] = rows[row][action["slot"] - 1]
            emoji = "⭐" if slot.get("star") else ROW_EMOJI[row]
            items.append(button(take_label(row, slot), ActButton.on(match, index=i),
                                style=discord.ButtonStyle.primary, row=ROW_INDEX[row],
                                emoji=emoji))
    return items


# -- the table ----------------------------------------------------------------------------


class CitiesAdapter(GameAdapter[CitiesView], views=table,
                    colour=discord.Colour.from_rgb(70, 150, 90),
                    rules=RULES_TEXT):  # said where it is sent
    def table_content(self, match: Match) -> str:
        view = self.table_view(match)
        head = _("**Cities** · {city}", city=city_name(view["city"]["name"]))
        if view["variant"] == "3x5":
            head = _("{head} · long variant (3×5)", head=head)
        if view["phase"] == "over":
            return _("{head} · final\n{final}\nScores: {scores}", head=head,
                     final=final_line(match, view), scores=scores_line(match, view))
        if view["phase"] == "start_tiles":
            due = view["to_act"][0]
            return _("{head} · setup\n{who}, choose your starting tile below (in reverse turn "
                     "order).", head=head, who=mention(match, due))
        turn = view["turn"]
        assert turn is not None  # someone is on turn in play
        lines = [_("{head} · round {round} of {rounds}", head=head, round=view["round"],
                   rounds=view["rounds"])]
        pending = view["pending"]
        if pending is not None:
            lines.append(_("{who} is placing the {what} they took — **Place…** opens the "
                           "chooser again if it was closed.", who=mention(match, turn),
                           what=pending_words(pending["row"])))
        else:
            left = view["workers_left"].get(turn, {})
            rows = [row_words(r) for r in ROWS if left.get(r, 0) > 0]
            lines.append(_("{who}, it's your turn: take one item below (workers left in: "
                           "{rows}).", who=mention(match, turn),
                           rows=", ".join(rows) or _("no row")))
        lines.append(_("Scores so far: {scores}", scores=scores_line(match, view)))
        return "\n".join(lines)

    def turn_in_progress(self, match: Match) -> bool:
        # "Each turn, the active player takes an item (or group of items) from the board"
        # and places it: the take's news line and "is placing…" say it in words; the
        # board is drawn once everything taken is used.
        return (match.state is not None and phase_of(match.state) == "play"
                and placing(match.state) is not None)

    def turn_mark(self, match: Match) -> Hashable:
        return None if match.state is None else turn_of(match.state)

    def picture_description(self, match: Match) -> str:
        view = self.table_view(match)
        city = city_name(view["city"]["name"])
        what = (_("Cities market and neighbourhoods, {city}, round {round} of {rounds}",
                  city=city, round=view["round"], rounds=view["rounds"])
                if view["phase"] == "play"
                else _("Cities market and neighbourhoods, {city}", city=city))
        return self.board_words(match, what)

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        assert match.state is not None
        items: list[discord.ui.Item[Any]] = []
        if phase_of(match.state) in ("start_tiles", "play"):
            pending = placing(match.state)
            if pending is None:
                items.extend(take_items(match))
            else:
                items.append(button(_("Place… ({what})", what=pending_words(pending["row"])),
                                    OpenButton.on(match, focus=0, page=0),
                                    style=discord.ButtonStyle.primary,
                                    emoji="📍", row=0))
        items.append(button(_("My neighbourhood"), HoodButton.on(match),
                            style=discord.ButtonStyle.success, emoji="🏙️", row=4))
        items.append(button(_("Neighbourhoods"), HoodsButton.on(match),
                            style=discord.ButtonStyle.secondary, emoji="🗺️", row=4))
        return [wrap(item, DYNAMIC_ITEMS) for item in items]

    def options_text(self, match: Match) -> str:
        city = match.options.get("city")
        text = _("City board: {city}", city=city_name(city) if city else _("chosen at random"))
        if match.options.get("variant") == "3x5":
            text += "\n" + _("Long two-player variant: 7 rounds on a 3×5 neighbourhood")
        return text

    def notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        notices: list[Notice] = []
        view = self.table_view(match)
        player = outcome.player
        reported = events(outcome.events)
        turn_over = player is not None and (
            view["turn"] != player or view["phase"] == "over"
            or any(e["type"] == "round_ended" for e in reported))
        took = next((e for e in reported if e["type"] == "took"), None)
        if outcome.timed_out and player is not None and turn_over:
            notices.append(Notice(
                _("⏰ {name} ran out of time, so the computer player finished their turn for "
                  "them (it took {what}).", name=name(match, player), what=took_words(took))
                if took else
                _("⏰ {name} ran out of time, so the computer player finished their turn for "
                  "them.", name=name(match, player)), fold=True))
        elif took is not None:
            # What the last player took is the one thing the table cannot show afterwards
            # (the space is simply empty): say it in the table's text.
            notices.append(Notice(_("{name} took {what}.", name=name(match, str(took["player"])),
                                    what=took_words(took)), fold=True))
        claims = [e for e in reported if e["type"] == "achievement_claimed"]
        if claims:
            who = str(claims[0]["player"])
            got = ", ".join(_("**{name}** ({vp} VP)", name=achievement_name(e["name"]),
                                vp=e["vp"]) for e in claims)
            named, names = named_view(ENGINE, match)
            notices.append(Notice(_("🏅 {name} claimed {got}.", name=name(match, who), got=got),
                                  [Picture(
                "neighbourhood.png", "render_neighbourhood", (named, names.get(who, who)))]))
        for event in reported:
            if event["type"] == "round_ended" and view["phase"] != "over":
                lines = [_("**Round {round} is over.** {name} has the star and starts round "
                           "{next}.", round=event["round"], name=name(match, event["first_player"]),
                           next=event["round"] + 1)]
                shown = [item_words(r["row"], r["item"]) for r in event["removed"] if "row" in r]
                hidden = sum(1 for r in event["removed"] if "face_down" in r)
                if shown or hidden:
                    gone = shown + ([_n("{n} face-down item", "{n} face-down items", hidden)]
                                    if hidden else [])
                    lines.append(_("Removed from the game: {items}.", items=", ".join(gone)))
                notices.append(Notice("\n".join(lines)))
            elif event["type"] == "game_over":
                lines = [_("**Cities is over — the final scoring:**"), *breakdown_lines(match, view),
                         final_line(match, view)]
                final_view, _names = named_view(ENGINE, match)
                notices.append(Notice("\n".join(lines)[:2000],
                                      [Picture("final.png", "render_final", (final_view,))]))
        return notices

