"""The table: what the shared table code shows for a Big Cityz match — the city to place (by
name only; its facts stay in the engine until the reveal), **Place** or the objection
buttons with the window's closing time — and the notices of a timeout or a reveal."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import Any

import discord

from bot.core.i18n import Words
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.bigcityz import ENGINE
from bot.games.bigcityz.names import city as city_name
from bot.games.bigcityz.views import BigCityzView, as_json, move_of, reveals, table
from bot.ui.game import LEVEL_WORDS, GameAdapter, Notice, Picture
from bot.ui.words import final_line, mention, name

from .components import PlaceButton, VetoButton, card_stamp
from .words import (
    FOOTER_TEXT,
    RULES_TEXT,
    knowledge_words,
    late_move_words,
    placement_text,
    reveal_text,
)

_ = Words("bot.games.bigcityz")
_n, _l, _ln, _p = _.plural, _.lazy, _.lazy_plural, _.context


class _Said(Mapping[str, str]):
    """Level words said in the language current when they are read (the lobby's menu is
    built in the reader's language), whether the shared ones are Text or plain strings."""

    def __init__(self, words: Mapping[str, object]) -> None:
        self._words = dict(words)

    def __getitem__(self, key: str) -> str:
        return str(self._words[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._words)

    def __len__(self) -> int:
        return len(self._words)


class BigCityzAdapter(GameAdapter[BigCityzView], views=table,
                      colour=discord.Colour.from_rgb(214, 120, 40), rules=RULES_TEXT):
    # A hard Big Cityz computer also knows more cities (bot/games/bigcityz/levels.RECALL).
    level_words = _Said({**LEVEL_WORDS,
                         "hard": _l("Knows more cities than normal and thinks ahead")})

    rules_footer = FOOTER_TEXT  # said in the reader's language where it is sent

    def due_words(self, match: Match) -> tuple[str, str]:
        if match.state is not None and ENGINE.timeout_action(match.state) is not None:
            # the objection window: nobody has a move to make, only a say
            return _("object to the placement, or let it stand,"), _("objections close")
        return super().due_words(match)

    def table_content(self, match: Match) -> str:
        view = self.table_view(match)
        head = _("**Big Cityz** · round {round}", round=view["round"])
        city = city_name(view["city"]) if view["city"] else ""
        if view["phase"] == "place":
            turn = view["turn"]
            assert turn is not None  # someone places until the game is over
            if view["replaced_slot"]:
                ask = _("🏙️ **{city}** — {player}, where does it go (on the new board)? "
                        "Press **Place**.", city=city, player=mention(match, turn))
            else:
                ask = _("🏙️ **{city}** — {player}, where does it go? Press **Place**.",
                        city=city, player=mention(match, turn))
            return f"{head}\n{ask}"
        if view["phase"] == "veto":
            placement = view["placement"]
            assert placement is not None  # the objections are to a placement
            waiting = ", ".join(mention(match, p) for p in view["to_act"]) or _("nobody")
            deadline = int((match.turn_started_at or time.time()) + view["veto_seconds"])
            placed = _("🏙️ **{city}** — {player} {placement}.", city=city,
                       player=name(match, placement["player"]),
                       placement=placement_text(placement))
            # ``{deadline:d}``: a Discord timestamp takes the plain digits
            close = _("Objections close <t:{deadline:d}:R>. Waiting for: {waiting}.",
                      deadline=deadline, waiting=waiting)
            return f"{head}\n{placed}\n{close}"
        return _("**Big Cityz** · final") + f"\n{final_line(match, view)}"

    def picture_description(self, match: Match) -> str:
        view = self.table_view(match)
        city = city_name(view["city"]) if view["city"] else ""
        if city and view["phase"] != "over":
            what = _("Big Cityz boards, round {round}; the city in play: {city}",
                     round=view["round"], city=city)
        else:
            what = _("Big Cityz boards, round {round}", round=view["round"])
        reveal = view["last_reveal"]
        last = ""
        if reveal:
            placer, placed = match.name_of(reveal["player"]), city_name(reveal["city"])
            last = (_("{player} placed {city}, right", player=placer, city=placed)
                    if reveal["right"]
                    else _("{player} placed {city}, wrong", player=placer, city=placed))
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
        knowledge = knowledge_words(match.options.get("ai_level", "normal"))
        return _("Objection window: {seconds} s · computer knowledge: {knowledge}",
                 seconds=seconds, knowledge=knowledge)

    def stats_suffix(self, extra: dict[str, int]) -> str:
        raised = extra.get("objections", 0)
        if not raised:
            return ""
        return _n(", {n} objection ({justified} justified)",
                  ", {n} objections ({justified} justified)", raised,
                  justified=extra.get("objections_justified", 0))

    def done_for_late_player(self, match: Match, outcome: Outcome) -> str | None:
        return late_move_words(move_of(outcome.action))

    def notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        notices = self.late_notices(match, outcome)
        shown = reveals(outcome.events)
        if shown:
            named = self.named_view(match, as_json(self.table_view(match)))
            # A reveal is the news of its round: its words in the table's text and its
            # picture beside the board, so a round leaves no message of its own.
            notices += [Notice(reveal_text(match, event),
                               [Picture("reveal.png", "render_reveal", (named,))], fold=True)
                        for event in shown]
        if notices:
            view = self.table_view(match)
            if view["phase"] == "over":
                notices[-1].text += "\n" + final_line(match, view)
        return notices
