"""The table: what the shared table code shows for a Cities match, and its take buttons."""

from __future__ import annotations

from typing import Any

import discord

from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.cities import ENGINE
from bot.games.cities.content import CONTENT
from bot.games.cities.views import CitiesView, Row, events, move_of, phase_of, placing, table
from bot.ui.game import GameAdapter, Notice, Picture
from bot.ui.items import wrap
from bot.ui.screens import button, named_view
from bot.ui.words import mention, name, plural

from .components import DYNAMIC_ITEMS, ActButton, HoodButton, HoodsButton, OpenButton
from .words import (
    PENDING_WORDS,
    RULES,
    breakdown_lines,
    final_line,
    item_words,
    scores_line,
    took_words,
)

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
    items: list[discord.ui.Item[Any]] = []
    for i, la in enumerate(legal):
        action = move_of(la.action)
        if action["type"] == "choose_start_tile":
            tile = action["tile"]
            items.append(button(f"Start with {tile} · {CONTENT.tiles[tile].label()}",
                                ActButton.on(match, index=i), style=discord.ButtonStyle.primary,
                                row=0))
        elif action["type"] == "take":
            row = action["row"]
            emoji = "⭐" if la.label.startswith("Star") else ROW_EMOJI[row]
            items.append(button(la.label, ActButton.on(match, index=i),
                                style=discord.ButtonStyle.primary, row=ROW_INDEX[row],
                                emoji=emoji))
    return items


# -- the table ----------------------------------------------------------------------------


class CitiesAdapter(GameAdapter[CitiesView], views=table,
                    colour=discord.Colour.from_rgb(70, 150, 90), rules=RULES):
    def table_content(self, match: Match) -> str:
        view = self.table_view(match)
        head = f"**Cities** · {view['city']['name']}"
        if view["variant"] == "3x5":
            head += " · long variant (3×5)"
        if view["phase"] == "over":
            return f"{head} · final\n{final_line(match, view)}\nScores: {scores_line(match, view)}"
        if view["phase"] == "start_tiles":
            due = view["to_act"][0]
            return (f"{head} · setup\n{mention(match, due)}, choose your starting tile below "
                    "(in reverse turn order).")
        turn = view["turn"]
        assert turn is not None  # someone is on turn in play
        lines = [f"{head} · round {view['round']} of {view['rounds']}"]
        pending = view["pending"]
        if pending is not None:
            lines.append(f"{mention(match, turn)} is placing the {PENDING_WORDS[pending['row']]} "
                         "they took — **Place…** opens the chooser again if it was closed.")
        else:
            left = view["workers_left"].get(turn, {})
            rows = [r for r in ROWS if left.get(r, 0) > 0]
            lines.append(f"{mention(match, turn)}, it's your turn: take one item below "
                         f"(workers left in: {', '.join(rows) or 'no row'}).")
        lines.append(f"Scores so far: {scores_line(match, view)}")
        return "\n".join(lines)

    def picture_description(self, match: Match) -> str:
        view = self.table_view(match)
        what = f"Cities market and neighbourhoods, {view['city']['name']}"
        if view["phase"] == "play":
            what += f", round {view['round']} of {view['rounds']}"
        return self.board_words(match, what)

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        assert match.state is not None
        items: list[discord.ui.Item[Any]] = []
        if phase_of(match.state) in ("start_tiles", "play"):
            pending = placing(match.state)
            if pending is None:
                items.extend(take_items(match))
            else:
                items.append(button(f"Place… ({PENDING_WORDS[pending['row']]})",
                                    OpenButton.on(match, focus=0, page=0),
                                    style=discord.ButtonStyle.primary,
                                    emoji="📍", row=0))
        items.append(button("My neighbourhood", HoodButton.on(match),
                            style=discord.ButtonStyle.success, emoji="🏙️", row=4))
        items.append(button("Neighbourhoods", HoodsButton.on(match),
                            style=discord.ButtonStyle.secondary, emoji="🗺️", row=4))
        return [wrap(item, DYNAMIC_ITEMS) for item in items]

    def options_text(self, match: Match) -> str:
        city = match.options.get("city") or "chosen at random"
        text = f"City board: {city}"
        if match.options.get("variant") == "3x5":
            text += "\nLong two-player variant: 7 rounds on a 3×5 neighbourhood"
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
            did = f" (it took {took_words(took)})" if took else ""
            notices.append(Notice(f"⏰ {name(match, player)} ran out of time, so the computer "
                                  f"player finished their turn for them{did}.", fold=True))
        elif took is not None:
            # What the last player took is the one thing the table cannot show afterwards
            # (the space is simply empty): say it in the table's text.
            notices.append(Notice(f"{name(match, str(took['player']))} took "
                                  f"{took_words(took)}.", fold=True))
        claims = [e for e in reported if e["type"] == "achievement_claimed"]
        if claims:
            who = str(claims[0]["player"])
            got = ", ".join(f"**{e['name']}** ({e['vp']} VP)" for e in claims)
            named, names = named_view(ENGINE, match)
            notices.append(Notice(f"🏅 {name(match, who)} claimed {got}.", [Picture(
                "neighbourhood.png", "render_neighbourhood", (named, names.get(who, who)))]))
        for event in reported:
            if event["type"] == "round_ended" and view["phase"] != "over":
                lines = [f"**Round {event['round']} is over.** {name(match, event['first_player'])} "
                         f"has the star and starts round {event['round'] + 1}."]
                shown = [item_words(r["row"], r["item"]) for r in event["removed"] if "row" in r]
                hidden = sum(1 for r in event["removed"] if "face_down" in r)
                if shown or hidden:
                    gone = shown + ([plural(hidden, "face-down item")] if hidden else [])
                    lines.append("Removed from the game: " + ", ".join(gone) + ".")
                notices.append(Notice("\n".join(lines)))
            elif event["type"] == "game_over":
                lines = ["**Cities is over — the final scoring:**", *breakdown_lines(match, view),
                         final_line(match, view)]
                final_view, _ = named_view(ENGINE, match)
                notices.append(Notice("\n".join(lines)[:2000],
                                      [Picture("final.png", "render_final", (final_view,))]))
        return notices

