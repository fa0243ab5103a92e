"""The private reply after a player's own move: what it did, and what comes next."""

from __future__ import annotations

from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.bigcity.views import events, seen_by
from bot.ui.screens import Screen
from bot.ui.words import join_words, name, plural

from .screens import step_items
from .words import built_words, cards_words, final_line, hand_inline, laid_words, placed_words


def result_text(match: Match, player: str, outcome: Outcome) -> str:
    """What the player's own move did, for their private reply."""
    assert outcome.match.state is not None
    lines = []
    for event in events(outcome.events):
        if event["type"] == "built":
            lines.append("🏗️ " + built_words("You", event["building"], event["properties"],
                                             event["points"], event["explanation"]))
        elif event["type"] == "special_placed":
            lines.append(f"You {placed_words(event['card'], event['properties'])}.")
        elif event["type"] == "streetcars_placed":
            lines.append(f"🚋 You {laid_words(event['segments'], event['where'])}.")
        elif event["type"] == "neighborhood_placed":
            lines.append(f"You placed neighborhood {event['neighborhood']}.")
        elif event["type"] == "exchanged":
            lines.append(f"You put {plural(event['count'], 'card')} back under the stacks.")
        elif event["type"] == "discarded":
            lines.append(f"You discarded {cards_words(event['cards'])}.")
        elif event["type"] == "drew":
            hand = seen_by(outcome.match.state, player)["hand"]
            count = len(event["stacks"])
            drawn = hand[-count:] if count else []
            lines.append(f"🃏 You drew **{cards_words(drawn)}** from stack "
                         f"{join_words([str(s) for s in event['stacks']])}.")
        elif event["type"] == "passed":
            lines.append("You passed.")
        elif event["type"] == "trade_announced":
            lines.append("🤝 Your trade is announced; the others are answering. You will get "
                         "a **Trade offers** button on the table.")
        elif event["type"] == "trade_offered":
            lines.append("Your offer is made; the trader decides.")
        elif event["type"] == "trade_declined":
            lines.append("You declined the trade.")
        elif event["type"] == "traded":
            lines.append(f"🤝 You traded with {name(match, event['with'])}.")
        elif event["type"] == "trade_ended":
            lines.append("The trade is over.")
    return "\n".join(lines) or "Done."


def after_screen(outcome: Outcome, player: str) -> Screen:
    """The player's private reply after their move: what happened and what comes next."""
    match = outcome.match
    assert match.state is not None
    text = result_text(match, player, outcome)
    view = seen_by(match.state, player)
    if view["phase"] == "over":
        return Screen(f"{text}\n\nThe game is over. {final_line(match, view)}")
    if player in view["to_act"]:
        step = view["step"]
        if step == "draw":
            draw = view["draw"]
            assert draw is not None
            text += (f"\nDraw {plural(draw['cards'], 'more card')}: pick a stack (at most two "
                     f"from one stack per turn). Your hand: {hand_inline(view)}.")
        elif step == "main":
            text += f"\nNow take your turn's action. Your hand: {hand_inline(view)}."
        elif step == "trade_accept":
            text += "\nThe answers are in."
        return Screen(text, step_items(match, player, private=True))
    trade = view["trade"]
    if view["step"] == "trade_offers" and trade is not None and trade["trader"] == player:
        return Screen(text)
    return Screen(f"{text}\nYour turn is over. Your hand: {hand_inline(view)}.")
