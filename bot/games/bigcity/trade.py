"""The "trade cards" variant.

"As a new action, a player may choose to trade one or two cards with other players. The
player may trade both cards with a single player or one each with two players ... When two
players agree to a trade, the players trade the cards to each other face down ... If the
player cannot arrange for any trades, he may exchange up to two cards with those in the
stacks ... If the player was only able to trade one card, he may not exchange the other."

The table talk becomes three steps (docs/bigcity.md): the trader announces one or two
cards (everyone sees their neighbourhoods, not their numbers) and may name wanted
neighbourhoods; every other player offers one or two cards or declines; the trader accepts
offers card for card, then ends the trade (or, with no trade made, exchanges up to two
cards with the stacks).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from bot.games.bigcity.content import Card, card_label, stack_of

JSON = dict[str, Any]


def start(state: JSON, trader: str, cards: list[Card], wants: list[int]) -> None:
    """Open a trade on ``state`` (already a copy)."""
    others = [p for p in state["players"] if p != trader]  # they answer in any order
    state["trade"] = {
        "trader": trader,
        "cards": list(cards),
        "wants": sorted(set(wants)),
        "pending": others,
        "offers": {},
        "given": [],
        "accepted": [],
        "deals": 0,
    }


def open_offers(trade: JSON) -> dict[str, list[Card]]:
    """Offers not yet taken that still fit the trader's remaining cards."""
    remaining = len(trade["cards"]) - len(trade["given"])
    return {
        player: cards
        for player, cards in trade["offers"].items()
        if cards and len(cards) <= remaining
    }


def offer_options(state: JSON, player: str) -> list[tuple[JSON, str]]:
    trade = state["trade"]
    hand: list[Card] = state["hands"][player]
    options: list[tuple[JSON, str]] = [({"type": "trade_decline"}, "Decline the trade")]
    for size in range(1, len(trade["cards"]) + 1):
        for cards in combinations(hand, size):
            options.append(
                (
                    {"type": "trade_offer", "cards": list(cards)},
                    "Offer " + ", ".join(card_label(c) for c in cards),
                )
            )
    return options


def accept_options(state: JSON) -> list[tuple[JSON, str]]:
    trade = state["trade"]
    remaining = [c for c in trade["cards"] if c not in trade["given"]]
    options: list[tuple[JSON, str]] = []
    for player, cards in open_offers(trade).items():
        numbers = " and ".join(str(stack_of(c)) for c in cards)
        where = (
            f"card from neighborhood {numbers}"
            if len(cards) == 1
            else f"cards from neighborhoods {numbers}"
        )
        for give in combinations(remaining, len(cards)):
            options.append(
                (
                    {"type": "trade_accept", "partner": player, "give": list(give)},
                    f"Give {', '.join(card_label(c) for c in give)} for {player}'s {where}",
                )
            )
    return options


def public(trade: JSON | None) -> JSON | None:
    """What everyone sees of a trade: neighbourhoods of the cards, never their numbers."""
    if trade is None:
        return None
    return {
        "trader": trade["trader"],
        "neighborhoods": [stack_of(c) for c in trade["cards"]],
        "wants": trade["wants"],
        "waiting_for": list(trade["pending"]),
        "offers": {
            player: ([stack_of(c) for c in cards] if cards else None)
            for player, cards in trade["offers"].items()
        },
        "accepted": list(trade["accepted"]),
        "deals": trade["deals"],
    }


def private(trade: JSON | None, viewer: str) -> JSON | None:
    """The viewer's own side of a trade: the cards they announced or offered."""
    if trade is None:
        return None
    if viewer == trade["trader"]:
        return {"cards": list(trade["cards"]), "given": list(trade["given"])}
    offer = trade["offers"].get(viewer)
    if offer:
        return {"offered": list(offer)}
    return None
