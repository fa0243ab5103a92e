"""The "trade cards" variant: announce, offers, card-for-card deals, or a small exchange."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.engine import IllegalAction
from bot.games.bigcity import ENGINE, GAME
from bot.games.bigcity.content import Card
from bot.games.bigcity.scenario import position

CITY = [(2, (3, 0), 0), (3, (0, 3), 0)]
HANDS: dict[str, list[Card]] = {"ann": [11, 12, 13, 31, 32], "bob": [21, 22, 23, 24, 25], "cy": [33, 34, 35, 36, 37]}


def table(**options: bool) -> dict[str, Any]:
    return position(
        players=["ann", "bob", "cy"],
        neighborhoods=CITY,
        hands=HANDS,
        options={"trade_cards": True, **options},
    )


def refusal(state: dict[str, Any], player: str, action: dict[str, Any]) -> str:
    with pytest.raises(IllegalAction) as caught:
        ENGINE.apply(state, player, action)
    return str(caught.value)


def test_trading_needs_the_variant() -> None:
    state = position(neighborhoods=CITY, hands={"ann": [11, 12, 13, 31, 32]})
    assert (
        refusal(state, "ann", {"type": "trade", "cards": [11]})
        == "Trading cards is not allowed in this game."
    )
    assert not any(a.action["type"] == "trade" for a in ENGINE.legal(state, "ann"))


def test_a_trade_card_for_card_with_one_player() -> None:
    state = table()
    assert (
        refusal(state, "ann", {"type": "trade", "cards": [11, 12, 13]})
        == "You may trade one or two cards."
    )
    state, events = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11, 31], "wants": [2]})
    assert events == [
        {"type": "trade_announced", "player": "ann", "neighborhoods": [1, 3], "wants": [2]}
    ]
    assert ENGINE.to_act(state) == ["bob", "cy"]  # both may answer, in any order
    public = ENGINE.view(state, None)
    assert public["trade"]["neighborhoods"] == [1, 3]
    assert ENGINE.view(state, "ann")["my_trade"] == {"cards": [11, 31], "given": []}
    assert ENGINE.view(state, "bob")["my_trade"] is None
    offers = [a.label for a in ENGINE.legal(state, "bob")]
    assert offers[0] == "Decline the trade" and "Offer 21, 22" in offers
    state, _ = ENGINE.apply(state, "cy", {"type": "trade_decline"})
    assert (
        refusal(state, "bob", {"type": "pass"})
        == "Answer ann's trade first: offer cards or decline."
    )
    state, _ = ENGINE.apply(state, "bob", {"type": "trade_offer", "cards": [21, 22]})
    assert ENGINE.view(state, None)["trade"]["offers"] == {"cy": None, "bob": [2, 2]}
    assert ENGINE.view(state, "bob")["my_trade"] == {"offered": [21, 22]}
    assert ENGINE.to_act(state) == ["ann"]
    labels = [a.label for a in ENGINE.legal(state, "ann")]
    assert "Give 11, 31 for bob's cards from neighborhoods 2 and 2" in labels
    assert "Exchange 11, 12" in labels and "Exchange 11, 12, 13" not in labels
    assert refusal(state, "ann", {"type": "trade_accept", "partner": "bob", "give": [11]}) == (
        "Give 2 of your announced cards for that offer."
    )
    state, events = ENGINE.apply(
        state, "ann", {"type": "trade_accept", "partner": "bob", "give": [31, 11]}
    )
    assert {"type": "traded", "player": "ann", "with": "bob", "count": 2} in events
    assert sorted(state["hands"]["ann"]) == [12, 13, 21, 22, 32]
    assert sorted(state["hands"]["bob"]) == [11, 23, 24, 25, 31]
    assert ENGINE.to_act(state) == ["bob"]  # no cards left the hand: nothing to draw
    assert state["passes"] == 0


def test_one_card_each_with_two_players_then_no_exchange() -> None:
    state = table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11, 31]})
    state, _ = ENGINE.apply(state, "bob", {"type": "trade_offer", "cards": [21]})
    state, _ = ENGINE.apply(state, "cy", {"type": "trade_offer", "cards": [33]})
    state, _ = ENGINE.apply(state, "ann", {"type": "trade_accept", "partner": "cy", "give": [31]})
    assert ENGINE.to_act(state) == ["ann"]  # bob's offer still fits the other card
    assert refusal(state, "ann", {"type": "exchange", "cards": [12]}) == (
        "You traded a card, so you may not exchange the other."
    )
    state, events = ENGINE.apply(
        state, "ann", {"type": "trade_accept", "partner": "bob", "give": [11]}
    )
    assert events[-1] == {"type": "turn", "player": "bob"}
    assert 21 in state["hands"]["ann"] and 33 in state["hands"]["ann"]


def test_a_failed_trade_allows_an_exchange_of_up_to_two_cards() -> None:
    state = table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11]})
    state, _ = ENGINE.apply(state, "bob", {"type": "trade_decline"})
    state, _ = ENGINE.apply(state, "cy", {"type": "trade_decline"})
    assert refusal(state, "ann", {"type": "exchange", "cards": [11, 12, 13]}) == (
        "After a failed trade you may exchange at most 2 cards."
    )
    state, _ = ENGINE.apply(state, "ann", {"type": "exchange", "cards": [11, 12]})
    assert state["step"] == "draw"


def test_a_trade_that_comes_to_nothing_counts_as_a_pass() -> None:
    state = table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11]})
    state, _ = ENGINE.apply(state, "bob", {"type": "trade_offer", "cards": [21]})
    state, _ = ENGINE.apply(state, "cy", {"type": "trade_decline"})
    state, events = ENGINE.apply(state, "ann", {"type": "trade_end"})
    assert state["passes"] == 1
    assert sorted(state["hands"]["ann"]) == HANDS["ann"]
    assert events[-1] == {"type": "turn", "player": "bob"}


def test_the_computer_answers_trades() -> None:
    state = table()
    state, _ = ENGINE.apply(state, "ann", {"type": "trade", "cards": [11]})
    for player in ("bob", "cy"):
        action = GAME.computer.normal(state, player)
        assert action["type"] in ("trade_offer", "trade_decline")
        state, _ = ENGINE.apply(state, player, action)
    state, _ = ENGINE.apply(state, "ann", GAME.computer.normal(state, "ann"))
    assert state["trade"] is None
