"""The private reply after a player's own move: what it did, and what comes next."""

from __future__ import annotations

from bot.core.i18n import Words
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.bigcity.saying import title
from bot.games.bigcity.views import events, seen_by
from bot.ui.screens import Screen
from bot.ui.words import join_words, name

from .screens import step_items
from .words import cards_words, final_line, hand_inline, laid_streets, sites, you_built_words

_ = Words("bot.games.bigcity")
_n = _.plural


def result_text(match: Match, player: str, outcome: Outcome) -> str:
    """What the player's own move did, for their private reply."""
    assert outcome.match.state is not None
    lines = []
    for event in events(outcome.events):
        if event["type"] == "built":
            lines.append("🏗️ " + you_built_words(event["building"], event["properties"],
                                                 event["points"], event["explanation"]))
        elif event["type"] == "special_placed":
            lines.append(_("You placed {card} on {sites}.", card=title(event["card"]),
                           sites=sites(event["properties"])))
        elif event["type"] == "streetcars_placed":
            lines.append("🚋 " + _n("You laid {n} streetcar ({streets}).",
                                    "You laid {n} streetcars ({streets}).",
                                    len(event["segments"]), streets=laid_streets(event["where"])))
        elif event["type"] == "neighborhood_placed":
            lines.append(_("You placed neighborhood {number}.", number=event["neighborhood"]))
        elif event["type"] == "exchanged":
            lines.append(_n("You put {n} card back under the stacks.",
                            "You put {n} cards back under the stacks.", event["count"]))
        elif event["type"] == "discarded":
            lines.append(_("You discarded {cards}.", cards=cards_words(event["cards"])))
        elif event["type"] == "drew":
            hand = seen_by(outcome.match.state, player)["hand"]
            count = len(event["stacks"])
            drawn = hand[-count:] if count else []
            lines.append("🃏 " + _("You drew **{cards}** from stack {stacks}.",
                                   cards=cards_words(drawn),
                                   stacks=join_words([str(s) for s in event["stacks"]])))
        elif event["type"] == "passed":
            lines.append(_("You passed."))
        elif event["type"] == "trade_announced":
            lines.append("🤝 " + _("Your trade is announced; the others are answering. You "
                                   "will get a **Trade offers** button on the table."))
        elif event["type"] == "trade_offered":
            lines.append(_("Your offer is made; the trader decides."))
        elif event["type"] == "trade_declined":
            lines.append(_("You declined the trade."))
        elif event["type"] == "traded":
            lines.append("🤝 " + _("You traded with {name}.", name=name(match, event["with"])))
        elif event["type"] == "trade_ended":
            lines.append(_("The trade is over."))
    return "\n".join(lines) or _("Done.")


def after_screen(outcome: Outcome, player: str) -> Screen:
    """The player's private reply after their move: what happened and what comes next."""
    match = outcome.match
    assert match.state is not None
    text = result_text(match, player, outcome)
    view = seen_by(match.state, player)
    if view["phase"] == "over":
        return Screen(text + "\n\n" + _("The game is over. {final}",
                                        final=final_line(match, view)))
    if player in view["to_act"]:
        step = view["step"]
        if step == "draw":
            draw = view["draw"]
            assert draw is not None
            text += "\n" + _n("Draw {n} more card: pick a stack (at most two from one stack "
                              "per turn). Your hand: {hand}.",
                              "Draw {n} more cards: pick a stack (at most two from one stack "
                              "per turn). Your hand: {hand}.", draw["cards"],
                              hand=hand_inline(view))
        elif step == "main":
            text += "\n" + _("Now take your turn's action. Your hand: {hand}.",
                             hand=hand_inline(view))
        elif step == "trade_accept":
            text += "\n" + _("The answers are in.")
        return Screen(text, step_items(match, player, private=True))
    trade = view["trade"]
    if view["step"] == "trade_offers" and trade is not None and trade["trader"] == player:
        return Screen(text)
    return Screen(text + "\n" + _("Your turn is over. Your hand: {hand}.",
                                  hand=hand_inline(view)))
