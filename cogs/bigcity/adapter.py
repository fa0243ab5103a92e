"""The table: what the shared table code shows for a Big City match."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import discord

from bot.core.i18n import Words
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.bigcity.content import SPECIAL_CARDS
from bot.games.bigcity.views import (
    BigCityView,
    as_json,
    drawing_under_way,
    events,
    move_of,
    table,
    turn_number,
)
from bot.ui.game import GameAdapter, Notice, Picture, fit_description, plain_text
from bot.ui.items import wrap
from bot.ui.words import join_words, mention, name

from .components import DYNAMIC_ITEMS
from .ids import PLAYING_STEPS
from .screens import hand_button, step_items
from .words import (
    RULES,
    VARIANT_NAMES,
    action_words,
    built_words,
    final_line,
    last_move,
    placed_words,
    scores_line,
)

_ = Words("bot.games.bigcity")
_n = _.plural

# -- the table -------------------------------------------------------------------------


class BigCityAdapter(GameAdapter[BigCityView], views=table,
                     colour=discord.Colour.from_rgb(200, 110, 40), rules=RULES):
    def table_content(self, match: Match) -> str:
        view = self.table_view(match)
        variants = [str(VARIANT_NAMES[k]) for k, on in view["options"].items() if on]
        tail = (" · " + _("variants: {variants}", variants=", ".join(variants))
                if variants else "")
        if view["phase"] == "over":
            how = (_("every property of all eight neighborhoods is built on")
                   if view["ended_by"] == "city_complete" else _("everyone passed in a row"))
            return "\n".join((_("**Big City** · final ({how})", how=how),
                              _("Scores: {scores}", scores=scores_line(match, view)),
                              final_line(match, view)))
        lines = []
        turn = view["turn"]
        assert turn is not None  # someone's turn until the game is over
        if view["phase"] == "setup":
            setup = view["setup"]
            assert setup is not None
            pool = join_words([str(n) for n in setup["pool"]])
            lines.append(_("**Big City** · setting up the city") + tail)
            lines.append(_("{who}, place a starting neighborhood ({numbers}): press **Place a "
                           "neighborhood**. **My hand** shows your cards.",
                           who=mention(match, turn), numbers=pool))
            return "\n".join(lines)
        lines.append(_("**Big City** · turn {number}", number=view["turn_number"]) + tail)
        lines.append(_("Scores: {scores}", scores=scores_line(match, view)))
        step = view["step"]
        if step in PLAYING_STEPS:
            trade = view["options"]["trade_cards"]
            if step == "main":
                what = _("now take the turn's action")
            elif view["city_hall"]:
                what = (_("build, play a park or factory, lay streetcars, add a neighborhood, "
                          "exchange cards, trade or pass") if trade
                        else _("build, play a park or factory, lay streetcars, add a "
                               "neighborhood, exchange cards or pass"))
            else:
                what = (_("build, exchange cards, trade or pass (city hall unlocks the rest)")
                        if trade else
                        _("build, exchange cards or pass (city hall unlocks the rest)"))
            lines.append(_("{who}, it's your turn: {what}. **My hand** shows your cards and "
                           "what they build.", who=mention(match, turn), what=what))
        elif step == "draw":
            draw = view["draw"]
            assert draw is not None
            lines.append(_n("{who} draws {n} more card: pick a stack below (at most two from "
                            "one stack per turn).",
                            "{who} draws {n} more cards: pick a stack below (at most two from "
                            "one stack per turn).", draw["cards"], who=mention(match, turn)))
        elif step == "trade_offers":
            running = view["trade"]
            assert running is not None
            waiting = ", ".join(mention(match, p) for p in running["waiting_for"])
            lines.append(_n("{trader} wants to trade {n} card (from neighborhood {numbers}). "
                            "{waiting}: press **Answer the trade** to offer cards or decline.",
                            "{trader} wants to trade {n} cards (from neighborhood {numbers}). "
                            "{waiting}: press **Answer the trade** to offer cards or decline.",
                            len(running["neighborhoods"]), trader=name(match, running["trader"]),
                            numbers=join_words([str(n) for n in running["neighborhoods"]]),
                            waiting=waiting))
        elif step == "trade_accept":
            lines.append(_("{who}, the answers to your trade are in: press **Trade offers** to "
                           "take one, exchange instead, or end the trade.",
                           who=mention(match, turn)))
        last = view["last_action"]
        # A building or a park/factory is already a line of the table's news below, with
        # its points explained: a "Last move" line would say it twice.
        if last and last["type"] not in ("build", "special"):
            lines.append(_("Last move: {move}.", move=last_move(match, last)))
        return "\n".join(lines)

    def turn_in_progress(self, match: Match) -> bool:
        # The action, then "draw back to a full hand", a card a click: one turn. Its news
        # ("Ann built a bank on 41: 5 points.") and the draw ("draws 1 more card") are
        # words at once; the board is drawn when the last card ends the turn.
        return match.state is not None and drawing_under_way(match.state)

    def turn_mark(self, match: Match) -> Hashable:
        return None if match.state is None else turn_number(match.state)

    def picture_description(self, match: Match) -> str:
        view = self.table_view(match)
        city = ", ".join((
            _n("{n} neighborhood placed", "{n} neighborhoods placed", len(view["neighborhoods"])),
            _n("{n} piece built", "{n} pieces built", len(view["buildings"])),
            _n("{n} streetcar laid", "{n} streetcars laid", len(view["streetcars"]))))
        if view["phase"] == "over":
            text = _("Big City, the final city: {city}. Final scores: {scores}. {final}",
                     city=city, scores=scores_line(match, view), final=final_line(match, view))
        elif view["phase"] == "setup":
            turn = view["turn"]
            assert turn is not None
            text = _("Big City city map while setting up: {city}. {name} places a starting "
                     "neighborhood.", city=city, name=name(match, turn))
        else:
            due = ", ".join(name(match, p) for p in view["to_act"]) or _("nobody")
            text = _("Big City city map, turn {number}: {city}. Due now: {due}. Scores: "
                     "{scores}.", number=view["turn_number"], city=city, due=due,
                     scores=scores_line(match, view))
            if last := last_move(match, view["last_action"]):
                text += " " + _("Last move: {move}.", move=last)
        return fit_description(plain_text(text, match))

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        view = self.table_view(match)
        turn = view["to_act"]
        current = turn[0] if turn and view["step"] != "trade_offers" else None
        items = step_items(match, current)
        items.append(hand_button(match))
        return [wrap(item, DYNAMIC_ITEMS) for item in items]

    def options_text(self, match: Match) -> str:
        on = [str(VARIANT_NAMES[k]) for k in VARIANT_NAMES if match.options.get(k)]
        return (_("Variants: {variants}.", variants="; ".join(on)) if on
                else _("Basic rules (no variants)."))

    def done_for_late_player(self, match: Match, outcome: Outcome) -> str | None:
        # A draw is news only once it ends the turn (the cards drawn before it are not).
        action = move_of(outcome.action)
        turn_done = any(e["type"] in ("turn", "game_over") for e in events(outcome.events))
        return action_words(match, action) if action.get("type") != "draw" or turn_done \
            else None

    def notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        notices = self.late_notices(match, outcome)
        for event in events(outcome.events):
            if event["type"] == "built":
                notices.append(Notice("🏗️ " + built_words(
                    name(match, event["player"]), event["building"], event["properties"],
                    event["points"], event["explanation"]), fold=True))
            elif event["type"] == "special_placed":
                card = event["card"]
                icon = "🌳" if SPECIAL_CARDS[card][1] == "park" else "🏭"
                notices.append(Notice(f"{icon} " + placed_words(
                    name(match, event["player"]), card, event["properties"]) + ".", fold=True))
            elif event["type"] == "traded":
                notices.append(Notice("🤝 " + _n(
                    "{name} traded {n} card with {other}.", "{name} traded {n} cards with {other}.",
                    event["count"], name=name(match, event["player"]),
                    other=name(match, event["with"])), fold=True))
            elif event["type"] == "game_over":
                view = self.table_view(match)
                how = (_("Every property of all eight neighborhoods is built on")
                       if event["reason"] == "city_complete" else _("Everyone passed in a row"))
                text = "\n".join((_("🏁 **Big City is over.** {how}.", how=how),
                                  _("Final scores: {scores}", scores=scores_line(match, view)),
                                  final_line(match, view)))
                notices.append(Notice(text, [Picture("final.png", "render_final",
                                                     (self.named_view(match, as_json(view)),))]))
        return notices
