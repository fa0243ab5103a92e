"""The "trade cards" variant, step by step: who answers, what each player is offered to do,
and what everyone (and each player alone) sees of the trade.

Rulebook, "Trade cards": "The player announces that he has cards to trade and tells the
others what neighborhood or neighborhoods the cards are from. He may also indicate which
neighborhoods he is interested in. The player may not mention specific property numbers,
however. The other players may offer a card or cards ... They may also not mention
specific property numbers."
"""

from __future__ import annotations

from typing import Any

from bot.games.bigcity import ENGINE
from bot.games.bigcity.content import Card
from bot.games.bigcity.scenario import position

CITY = [(2, (3, 0), 0), (3, (0, 3), 0)]
HANDS: dict[str, list[Card]] = {
    "ann": [11, 12, 31],
    "bob": [21, "lincoln_park", 22],
    "cy": [33, 34],
}


def table(current: str = "ann") -> dict[str, Any]:
    return position(
        players=["ann", "bob", "cy"],
        neighborhoods=CITY,
        hands=HANDS,
        options={"trade_cards": True},
        current=current,
    )


def act(state: dict[str, Any], player: str, action: dict[str, Any]) -> dict[str, Any]:
    state, _ = ENGINE.apply(state, player, action)
    return state


def choices(state: dict[str, Any], player: str) -> list[tuple[dict[str, Any], str]]:
    return [(a.action, a.label) for a in ENGINE.legal(state, player)]


def test_everyone_but_the_trader_answers_in_seating_order() -> None:
    state = act(table(current="bob"), "bob", {"type": "trade", "cards": [21]})
    assert ENGINE.to_act(state) == ["ann", "cy"]
    assert ENGINE.view(state, None)["trade"]["waiting_for"] == ["ann", "cy"]
    state = act(state, "cy", {"type": "trade_decline"})
    assert ENGINE.to_act(state) == ["ann"]
    assert ENGINE.view(state, None)["trade"]["waiting_for"] == ["ann"]


def test_what_everyone_sees_of_an_announced_trade() -> None:
    # "tells the others what neighborhood or neighborhoods the cards are from. He may also
    # indicate which neighborhoods he is interested in" -- never the property numbers.
    state = act(table(), "ann", {"type": "trade", "cards": [31, 11], "wants": [5, 2, 5]})
    assert ENGINE.view(state, "cy")["trade"] == {
        "trader": "ann",
        "neighborhoods": [3, 1],
        "wants": [2, 5],
        "waiting_for": ["bob", "cy"],
        "offers": {},
        "accepted": [],
        "deals": 0,
    }
    assert ENGINE.view(state, "ann")["my_trade"] == {"cards": [31, 11], "given": []}
    assert ENGINE.view(state, "cy")["my_trade"] is None
    assert ENGINE.view(state, None)["trade"]["wants"] == [2, 5]


def test_with_one_card_announced_each_other_player_may_offer_one_card() -> None:
    state = act(table(), "ann", {"type": "trade", "cards": [12]})
    assert choices(state, "bob") == [
        ({"type": "trade_decline"}, "Decline the trade"),
        ({"type": "trade_offer", "cards": [21]}, "Offer 21"),
        ({"type": "trade_offer", "cards": ["lincoln_park"]}, "Offer Lincoln Park"),
        ({"type": "trade_offer", "cards": [22]}, "Offer 22"),
    ]
    assert ENGINE.legal(state, "ann") == []  # the trader waits for the answers


def test_with_two_cards_announced_offers_may_be_one_or_two_cards() -> None:
    state = act(table(), "ann", {"type": "trade", "cards": [11, 12]})
    assert choices(state, "bob") == [
        ({"type": "trade_decline"}, "Decline the trade"),
        ({"type": "trade_offer", "cards": [21]}, "Offer 21"),
        ({"type": "trade_offer", "cards": ["lincoln_park"]}, "Offer Lincoln Park"),
        ({"type": "trade_offer", "cards": [22]}, "Offer 22"),
        ({"type": "trade_offer", "cards": [21, "lincoln_park"]}, "Offer 21, Lincoln Park"),
        ({"type": "trade_offer", "cards": [21, 22]}, "Offer 21, 22"),
        ({"type": "trade_offer", "cards": ["lincoln_park", 22]}, "Offer Lincoln Park, 22"),
    ]


def test_offers_show_their_neighbourhoods_to_all_and_their_cards_to_the_offerer() -> None:
    state = act(table(), "ann", {"type": "trade", "cards": [11, 31]})
    state = act(state, "cy", {"type": "trade_decline"})
    state = act(state, "bob", {"type": "trade_offer", "cards": ["lincoln_park", 21]})
    trade = ENGINE.view(state, "ann")["trade"]
    assert trade["offers"] == {"cy": None, "bob": [2, 2]}
    assert trade["waiting_for"] == []
    assert ENGINE.view(state, "bob")["my_trade"] == {"offered": ["lincoln_park", 21]}
    assert ENGINE.view(state, "cy")["my_trade"] is None  # cy declined: nothing of theirs


def test_the_trader_chooses_which_announced_cards_go_for_each_offer() -> None:
    state = act(table(), "ann", {"type": "trade", "cards": [11, 31]})
    state = act(state, "bob", {"type": "trade_offer", "cards": ["lincoln_park"]})
    state = act(state, "cy", {"type": "trade_offer", "cards": [33, 34]})
    trade_choices = [c for c in choices(state, "ann") if c[0]["type"] == "trade_accept"]
    assert trade_choices == [
        (
            {"type": "trade_accept", "partner": "bob", "give": [11]},
            "Give 11 for bob's card from neighborhood 2",
        ),
        (
            {"type": "trade_accept", "partner": "bob", "give": [31]},
            "Give 31 for bob's card from neighborhood 2",
        ),
        (
            {"type": "trade_accept", "partner": "cy", "give": [11, 31]},
            "Give 11, 31 for cy's cards from neighborhoods 3 and 3",
        ),
    ]
    # "If the player cannot arrange for any trades, he may exchange up to two cards": with
    # no deal made yet the exchange is still on offer, next to ending the trade.
    others = [c for c in choices(state, "ann") if c[0]["type"] != "trade_accept"]
    assert ({"type": "exchange", "cards": [11, 12]}, "Exchange 11, 12") in others
    assert others[-1] == ({"type": "trade_end"}, "End the trade")


def test_once_one_card_is_traded_a_two_card_offer_no_longer_fits() -> None:
    # "The player may trade both cards with a single player or one each with two players."
    state = act(table(), "ann", {"type": "trade", "cards": [11, 31]})
    state = act(state, "bob", {"type": "trade_offer", "cards": [21]})
    state = act(state, "cy", {"type": "trade_offer", "cards": [33, 34]})
    state, events = ENGINE.apply(
        state, "ann", {"type": "trade_accept", "partner": "bob", "give": [31]}
    )
    # cy's two cards cannot be matched by ann's one remaining card: the trade is over
    assert {"type": "trade_ended", "player": "ann", "deals": 1} in events
    assert state["trade"] is None
    assert sorted(state["hands"]["ann"], key=str) == sorted([11, 12, 21], key=str)
    assert sorted(state["hands"]["cy"]) == [33, 34]


def test_after_one_deal_the_other_card_can_still_go_but_not_be_exchanged() -> None:
    # "If the player was only able to trade one card, he may not exchange the other."
    state = act(table(), "ann", {"type": "trade", "cards": [11, 31]})
    state = act(state, "bob", {"type": "trade_offer", "cards": [21]})
    state = act(state, "cy", {"type": "trade_offer", "cards": [33]})
    state = act(state, "ann", {"type": "trade_accept", "partner": "cy", "give": [11]})
    assert ENGINE.view(state, "bob")["trade"] == {
        "trader": "ann",
        "neighborhoods": [1, 3],
        "wants": [],
        "waiting_for": [],
        "offers": {"bob": [2], "cy": None},
        "accepted": ["cy"],
        "deals": 1,
    }
    assert ENGINE.view(state, "ann")["my_trade"] == {"cards": [11, 31], "given": [11]}
    assert choices(state, "ann") == [
        (
            {"type": "trade_accept", "partner": "bob", "give": [31]},
            "Give 31 for bob's card from neighborhood 2",
        ),
        ({"type": "trade_end"}, "End the trade"),
    ]
    state, events = ENGINE.apply(state, "ann", {"type": "trade_end"})
    assert {"type": "trade_ended", "player": "ann", "deals": 1} in events
    assert state["passes"] == 0  # a trade was made: not a pass
    assert sorted(state["hands"]["ann"]) == [12, 31, 33]
    assert sorted(state["hands"]["bob"], key=str) == sorted([21, 22, "lincoln_park"], key=str)
    assert ENGINE.view(state, "ann")["trade"] is None
    assert ENGINE.view(state, "ann")["my_trade"] is None


def test_declines_leave_no_offer_to_accept() -> None:
    state = act(table(), "ann", {"type": "trade", "cards": [12]})
    state = act(state, "bob", {"type": "trade_decline"})
    state = act(state, "cy", {"type": "trade_offer", "cards": [34]})
    accepts = [c for c in choices(state, "ann") if c[0]["type"] == "trade_accept"]
    assert accepts == [
        (
            {"type": "trade_accept", "partner": "cy", "give": [12]},
            "Give 12 for cy's card from neighborhood 3",
        )
    ]
