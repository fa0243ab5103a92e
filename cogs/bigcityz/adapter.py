"""The table: what the shared table code shows for a Big Cityz match — the city to place (by
name only; its facts stay in the engine until the reveal), **Place** or the objection
buttons with the window's closing time — and the notices of a timeout or a reveal."""

from __future__ import annotations

import time
from types import MappingProxyType
from typing import Any

import discord

from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.bigcityz import ENGINE
from bot.games.bigcityz.views import BigCityzView, as_json, move_of, reveals, table
from bot.ui.game import LEVEL_WORDS, GameAdapter, Notice, Picture
from bot.ui.words import final_line, mention, name, plural

from .components import PlaceButton, VetoButton, card_stamp
from .words import FOOTER, KNOWLEDGE_WORDS, RULES, late_move_words, placement_text, reveal_text


class BigCityzAdapter(GameAdapter[BigCityzView], views=table,
                      colour=discord.Colour.from_rgb(214, 120, 40), rules=RULES):
    rules_footer = FOOTER
    # A hard Big Cityz computer also knows more cities (bot/games/bigcityz/levels.RECALL).
    level_words = MappingProxyType(
        {**LEVEL_WORDS, "hard": "Knows more cities than normal and thinks ahead"})

    def due_words(self, match: Match) -> tuple[str, str]:
        if match.state is not None and ENGINE.timeout_action(match.state) is not None:
            # the objection window: nobody has a move to make, only a say
            return "object to the placement, or let it stand,", "objections close"
        return super().due_words(match)

    def table_content(self, match: Match) -> str:
        view = self.table_view(match)
        head = f"**Big Cityz** · round {view['round']}"
        city = view["city"]["name"] if view["city"] else ""
        if view["phase"] == "place":
            turn = view["turn"]
            assert turn is not None  # someone places until the game is over
            replaced = " (on the new board)" if view["replaced_slot"] else ""
            return (f"{head}\n🏙️ **{city}** — {mention(match, turn)}, where does it "
                    f"go{replaced}? Press **Place**.")
        if view["phase"] == "veto":
            placement = view["placement"]
            assert placement is not None  # the objections are to a placement
            waiting = ", ".join(mention(match, p) for p in view["to_act"]) or "nobody"
            deadline = int((match.turn_started_at or time.time()) + view["veto_seconds"])
            return (f"{head}\n🏙️ **{city}** — {name(match, placement['player'])} "
                    f"{placement_text(placement)}.\nObjections close <t:{deadline}:R>."
                    f" Waiting for: {waiting}.")
        return f"**Big Cityz** · final\n{final_line(match, view)}"

    def picture_description(self, match: Match) -> str:
        view = self.table_view(match)
        city = view["city"]["name"] if view["city"] else ""
        what = f"Big Cityz boards, round {view['round']}"
        if city and view["phase"] != "over":
            what += f"; the city in play: {city}"
        reveal = view["last_reveal"]
        last = (f"{match.name_of(reveal['player'])} placed {reveal['city']['name']}"
                f", {'right' if reveal['right'] else 'wrong'}") if reveal else ""
        return self.board_words(match, what, last)

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        view = self.table_view(match)
        if view["phase"] == "place":
            return [PlaceButton.make(match.id, match.version)]
        if view["phase"] == "veto":
            stamp = card_stamp(view)
            return [VetoButton.make(match.id, stamp, "veto"),
                    VetoButton.make(match.id, stamp, "noveto")]
        return []

    def options_text(self, match: Match) -> str:
        seconds = match.options.get("veto_seconds", 20)
        knowledge = KNOWLEDGE_WORDS.get(match.options.get("ai_level", "normal"), "normal")
        return f"Objection window: {seconds} s · computer knowledge: {knowledge}"

    def stats_suffix(self, extra: dict[str, int]) -> str:
        raised = extra.get("objections", 0)
        if not raised:
            return ""
        return (f", {plural(raised, 'objection')} "
                f"({extra.get('objections_justified', 0)} justified)")

    def done_for_late_player(self, match: Match, outcome: Outcome) -> str | None:
        return late_move_words(move_of(outcome.action))

    def notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        notices = self.late_notices(match, outcome)
        shown = reveals(outcome.events)
        if shown:
            named = self.named_view(match, as_json(self.table_view(match)))
            notices += [Notice(reveal_text(match, event),
                               [Picture("reveal.png", "render_reveal", (named,))])
                        for event in shown]
        if notices:
            view = self.table_view(match)
            if view["phase"] == "over":
                notices[-1].text += "\n" + final_line(match, view)
        return notices
