"""The table: what the shared table code shows for a Big City match."""

from __future__ import annotations

from typing import Any

import discord

from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.bigcity.content import SPECIAL_CARDS
from bot.games.bigcity.views import BigCityView, as_json, events, move_of, table
from bot.ui.game import GameAdapter, Notice, Picture, fit_description, plain_text
from bot.ui.items import wrap
from bot.ui.words import join_words, mention, name, plural

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

# -- the table -------------------------------------------------------------------------


class BigCityAdapter(GameAdapter[BigCityView], views=table,
                     colour=discord.Colour.from_rgb(200, 110, 40), rules=RULES):
    def table_content(self, match: Match) -> str:
        view = self.table_view(match)
        variants = [VARIANT_NAMES[k] for k, on in view["options"].items() if on]
        tail = f" · variants: {', '.join(variants)}" if variants else ""
        if view["phase"] == "over":
            how = ("every property of all eight neighborhoods is built on"
                   if view["ended_by"] == "city_complete" else "everyone passed in a row")
            return (f"**Big City** · final ({how})\nScores: {scores_line(match, view)}\n"
                    f"{final_line(match, view)}")
        lines = []
        turn = view["turn"]
        assert turn is not None  # someone's turn until the game is over
        if view["phase"] == "setup":
            setup = view["setup"]
            assert setup is not None
            pool = join_words([str(n) for n in setup["pool"]])
            lines.append(f"**Big City** · setting up the city{tail}")
            lines.append(f"{mention(match, turn)}, place a starting neighborhood ({pool}): "
                         "press **Place a neighborhood**. **My hand** shows your cards.")
            return "\n".join(lines)
        lines.append(f"**Big City** · turn {view['turn_number']}{tail}")
        lines.append(f"Scores: {scores_line(match, view)}")
        step = view["step"]
        if step in PLAYING_STEPS:
            trade = ", trade" if view["options"]["trade_cards"] else ""
            if view["city_hall"]:
                what = ("build, play a park or factory, lay streetcars, add a neighborhood, "
                        f"exchange cards{trade} or pass")
            else:
                what = f"build, exchange cards{trade} or pass (city hall unlocks the rest)"
            if step == "main":
                what = "now take the turn's action"
            lines.append(f"{mention(match, turn)}, it's your turn: {what}. **My hand** shows "
                         "your cards and what they build.")
        elif step == "draw":
            draw = view["draw"]
            assert draw is not None
            need = draw["cards"]
            lines.append(f"{mention(match, turn)} draws {plural(need, 'more card')}: pick a "
                         "stack below (at most two from one stack per turn).")
        elif step == "trade_offers":
            running = view["trade"]
            assert running is not None
            waiting = ", ".join(mention(match, p) for p in running["waiting_for"])
            lines.append(f"{name(match, running['trader'])} wants to trade "
                         f"{plural(len(running['neighborhoods']), 'card')} (from neighborhood "
                         f"{join_words([str(n) for n in running['neighborhoods']])}). "
                         f"{waiting}: press **Answer the trade** to offer cards or decline.")
        elif step == "trade_accept":
            lines.append(f"{mention(match, turn)}, the answers to your trade are in: press "
                         "**Trade offers** to take one, exchange instead, or end the trade.")
        last = view["last_action"]
        # A building or a park/factory is already a line of the table's news below, with
        # its points explained: a "Last move" line would say it twice.
        if last and last["type"] not in ("build", "special"):
            lines.append(f"Last move: {last_move(match, last)}.")
        return "\n".join(lines)

    def picture_description(self, match: Match) -> str:
        view = self.table_view(match)
        city = (f"{plural(len(view['neighborhoods']), 'neighborhood')} placed, "
                f"{plural(len(view['buildings']), 'piece')} built, "
                f"{plural(len(view['streetcars']), 'streetcar')} laid")
        if view["phase"] == "over":
            text = (f"Big City, the final city: {city}. Final scores: "
                    f"{scores_line(match, view)}. {final_line(match, view)}")
        elif view["phase"] == "setup":
            turn = view["turn"]
            assert turn is not None
            text = (f"Big City city map while setting up: {city}. {name(match, turn)} "
                    "places a starting neighborhood.")
        else:
            due = ", ".join(name(match, p) for p in view["to_act"]) or "nobody"
            text = (f"Big City city map, turn {view['turn_number']}: {city}. Due now: {due}. "
                    f"Scores: {scores_line(match, view)}.")
            if last := last_move(match, view["last_action"]):
                text += f" Last move: {last}."
        return fit_description(plain_text(text, match))

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        view = self.table_view(match)
        turn = view["to_act"]
        current = turn[0] if turn and view["step"] != "trade_offers" else None
        items = step_items(match, current)
        items.append(hand_button(match))
        return [wrap(item, DYNAMIC_ITEMS) for item in items]

    def options_text(self, match: Match) -> str:
        on = [VARIANT_NAMES[k] for k in VARIANT_NAMES if match.options.get(k)]
        return ("Variants: " + "; ".join(on) + ".") if on else "Basic rules (no variants)."

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
                notices.append(Notice(f"{icon} {name(match, event['player'])} "
                                      f"{placed_words(card, event['properties'])}.", fold=True))
            elif event["type"] == "traded":
                notices.append(Notice(f"🤝 {name(match, event['player'])} traded "
                                      f"{plural(event['count'], 'card')} with "
                                      f"{name(match, event['with'])}.", fold=True))
            elif event["type"] == "game_over":
                view = self.table_view(match)
                how = ("Every property of all eight neighborhoods is built on"
                       if event["reason"] == "city_complete" else "Everyone passed in a row")
                text = (f"🏁 **Big City is over.** {how}.\nFinal scores: "
                        f"{scores_line(match, view)}\n{final_line(match, view)}")
                notices.append(Notice(text, [Picture("final.png", "render_final",
                                                     (self.named_view(match, as_json(view)),))]))
        return notices
