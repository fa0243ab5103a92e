"""The table: what the shared table code shows for a Cityscape match — its text, alt text,
block-height buttons and "My goals" — and the notices of a timeout or a round's scoring."""

from __future__ import annotations

from typing import Any

import discord

from bot.core.i18n import Words
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.cityscape.views import CityscapeView, as_json, events, move, table
from bot.ui.game import GameAdapter, Notice, Picture, said_name
from bot.ui.words import final_line, mention

from .components import GoalsButton, HeightButton
from .words import RULES_TEXT, built_by_words, late_move_words, scored_words

_ = Words("bot.games.cityscape")
_n = _.plural


class CityscapeAdapter(GameAdapter[CityscapeView], views=table,
                       colour=discord.Colour.from_rgb(64, 120, 200),
                       rules=RULES_TEXT):  # said where it is sent
    def table_content(self, match: Match) -> str:
        view = self.table_view(match)
        head = _("**Cityscape** · round {round} of {rounds}", round=view["round"],
                 rounds=view["rounds"])
        if view["phase"] == "goals":
            waiting = ", ".join(mention(match, p) for p in view["to_act"])
            return _("{head} · secret goals\nPress **My goals** to choose yours privately. "
                     "Waiting for: {waiting}.", head=head, waiting=waiting)
        if view["phase"] == "building":
            turn = view["turn"]
            assert turn is not None  # someone builds while the round is building
            return _("{head} · block {block} of 25\n"
                     "{player}, it's your turn: pick a block height below.", head=head,
                     block=view["placed"] + 1, player=mention(match, turn))
        return _("**Cityscape** · final\n{winners}", winners=final_line(match, view))

    def picture_description(self, match: Match) -> str:
        view = self.table_view(match)
        what = _("Cityscape city, round {round} of {rounds}: {placed} of 25 blocks built",
                 round=view["round"], rounds=view["rounds"], placed=view["placed"])
        built = view["last_build"]
        last = ""
        if built:
            seat = match.seat(built["player"])
            # The stored name, a computer's "(computer)" said in the reader's language.
            who = said_name(seat) if seat else built["player"]
            last = built_by_words(who, built)
        return self.board_words(match, what, last)

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        view = self.table_view(match)
        items: list[discord.ui.Item[Any]] = []
        if view["phase"] == "building":
            for h in (1, 2, 3, 4, 5):
                items.append(HeightButton.make(match.id, match.version, h,
                                               left=view["blocks_left"][str(h)], row=0))
        items.append(GoalsButton.make(match.id, row=1))
        return items

    def options_text(self, match: Match) -> str:
        rounds = match.options.get("rounds")
        return (_n("{n} round", "{n} rounds", rounds) if rounds
                else _("Rounds: one per player (four with two players)"))

    def done_for_late_player(self, match: Match, outcome: Outcome) -> str | None:
        return late_move_words(move(outcome.action))

    def notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        notices = self.late_notices(match, outcome)
        for event in events(outcome.events):
            if event["type"] != "round_scored":
                continue
            view = self.table_view(match)
            over = view["phase"] == "over"
            notices.append(Notice(scored_words(match, event, view, over), [Picture(
                f"round-{event['round']}.png", "render_scoring",
                (self.named_view(match, as_json(view)), event["round"]))]))
        return notices
