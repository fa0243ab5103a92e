"""Big City's moves: reading an action, carrying it out on the state, and the turn's flow
(the main action, the draw, the end of a turn and of the game). ``engine.apply`` checks
whose turn it is and hands each action here; ``legal`` and the computer player read the
turn's state through the helpers at the top.
"""

from __future__ import annotations

import json
from typing import Any

from bot.core.engine import IllegalAction, Result
from bot.core.i18n import Text, Words
from bot.games.bigcity import trade as trading
from bot.games.bigcity.city import City
from bot.games.bigcity.content import (
    NEIGHBORHOODS,
    SPECIAL_CARDS,
    Card,
    is_card,
    stack_of,
)
from bot.games.bigcity.geometry import Segment, normalize_segment, segment_json
from bot.games.bigcity.legality import (
    build_problem,
    placement_problem,
    special_problem,
    useless_cards,
)
from bot.games.bigcity.saying import card_text
from bot.games.bigcity.scoring import score_building
from bot.games.bigcity.streetcar import LineRules, streetcars_problem

JSON = dict[str, Any]
_ = Words("bot.games.bigcity")
_l, _ln = _.lazy, _.lazy_plural


# --- the turn's state ------------------------------------------------------------------


def _fresh_turn() -> JSON:
    return {"drawn": {}, "discarded": False, "gave_cards": False, "main": None, "placed": False}


def rules_of(state: JSON) -> LineRules:
    options = state["options"]
    return LineRules(
        single_line=options["single_streetcar_line"], limited=options["limited_streetcar_line"]
    )


def drawable(state: JSON) -> dict[int, int]:
    """Stack → how many more cards may be drawn from it this turn."""
    allowed: dict[int, int] = {}
    placed = {entry["number"] for entry in state["neighborhoods"]}
    for number in NEIGHBORHOODS:
        if state["options"]["limited_card_drawing"] and number not in placed:
            continue
        left = min(
            2 - state["turn"]["drawn"].get(str(number), 0), len(state["stacks"][str(number)])
        )
        if left > 0:
            allowed[number] = left
    return allowed


def cards_to_draw(state: JSON, player: str) -> int:
    """How many cards the player still draws this turn: back to a full hand when cards left
    it this turn (played, discarded, exchanged), within the stacks and the draw limits."""
    if not state["turn"]["gave_cards"]:
        return 0
    need = state["hand_size"] - len(state["hands"][player])
    return max(0, min(need, sum(drawable(state).values())))


def result(state: JSON) -> Result | None:
    if state["phase"] != "over":
        return None
    scores = dict(state["scores"])
    best = max(scores.values())
    winners = [p for p in state["players"] if scores[p] == best]
    return Result(scores=scores, winners=winners, extra={"ended_by": state["ended_by"]})


# --- parsing ------------------------------------------------------------------------------


def _int(value: object, refusal: Text) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalAction(refusal)
    return value


def _properties(action: JSON) -> list[int]:
    raw = action.get("properties")
    if not isinstance(raw, list) or not raw:
        raise IllegalAction(_l("Say which properties to build on."))
    return sorted(_int(p, _l("A property must be a whole number.")) for p in raw)


def _cards(action: JSON, hand: list[Card]) -> list[Card]:
    raw = action.get("cards")
    if not isinstance(raw, list) or not raw:
        raise IllegalAction(_l("Say which cards."))
    if len(raw) != len({json.dumps(c) for c in raw}):
        raise IllegalAction(_l("Name each card once."))
    for card in raw:
        if not is_card(card):
            raise IllegalAction(_l("There is no card {card!r}.", card=card))
        if card not in hand:
            raise IllegalAction(_l("You do not hold the {card} card.", card=card_text(card)))
    return list(raw)


# --- the actions --------------------------------------------------------------------------


def _place_neighborhood(
    s: JSON, player: str, action: JSON, events: list[JSON], setup: bool
) -> None:
    number = _int(action.get("neighborhood"), _l("The neighborhood must be a whole number."))
    at = action.get("at")
    if not isinstance(at, list) or len(at) != 2:
        raise IllegalAction(_l("Say where to place the neighborhood."))
    coordinate = _l("A coordinate must be a whole number.")
    x, y = _int(at[0], coordinate), _int(at[1], coordinate)
    rotation = _int(action.get("rotation", 0), _l("The rotation must be a whole number."))
    city = City(s)
    if setup:
        if number not in s["setup"]["pool"]:
            raise IllegalAction(_l(
                "Neighborhood {number} is not one of the starting neighborhoods left "
                "({numbers}).", number=number, numbers=", ".join(map(str, s["setup"]["pool"]))
            ))
    elif not city.has_city_hall():
        raise IllegalAction(_l("New neighborhoods can only be added after city hall."))
    problem = placement_problem(city, number, (x, y), rotation)
    if problem:
        raise IllegalAction(problem.text)
    s["neighborhoods"].append({"number": number, "at": [x, y], "rotation": rotation})
    event = {
        "type": "neighborhood_placed",
        "player": player,
        "neighborhood": number,
        "at": [x, y],
        "rotation": rotation,
    }
    events.append(event)
    s["last_action"] = dict(event, type="place_neighborhood")
    if setup:
        s["setup"]["pool"].remove(number)
        s["setup"]["order"].pop(0)
        if s["setup"]["order"]:
            s["current"] = s["setup"]["order"][0]
        else:
            s["phase"] = "play"
            s["step"] = "start"
            s["current"] = s["first_player"]
            s["turn_number"] = 1
            s["turn"] = _fresh_turn()
            events.append({"type": "turn", "player": s["players"][s["current"]]})
        return
    _after_main(s, player, events, "place_neighborhood", placed=True)


def _build(s: JSON, player: str, action: JSON, events: list[JSON]) -> None:
    building = action.get("building")
    if not isinstance(building, str):
        raise IllegalAction(_l("Say which building."))
    props = _properties(action)
    city = City(s)
    hand: list[Card] = s["hands"][player]
    problem = build_problem(city, hand, building, props)
    if problem:
        raise IllegalAction(problem.text)
    score = score_building(city, building, props)
    for prop in props:
        hand.remove(prop)
        s["discard"].append(prop)
    s["turn"]["gave_cards"] = True
    piece = {
        "building": building,
        "properties": props,
        "owner": player,
        "points": score.points,
        "explanation": score.explanation,
    }
    s["buildings"].append(piece)
    s["scores"][player] += score.points
    event = {
        "type": "built",
        "player": player,
        **{k: piece[k] for k in ("building", "properties", "points", "explanation")},
    }
    events.append(event)
    s["last_action"] = dict(event, type="build")
    _after_main(s, player, events, "build", placed=True)


def _special(s: JSON, player: str, action: JSON, events: list[JSON]) -> None:
    card = action.get("card")
    if not isinstance(card, str) or card not in SPECIAL_CARDS:
        raise IllegalAction(_l("Say which park or factory card to play."))
    hand: list[Card] = s["hands"][player]
    if card not in hand:
        raise IllegalAction(_l("You do not hold the {card} card.", card=card_text(card)))
    props = _properties(action)
    city = City(s)
    problem = special_problem(city, card, props)
    if problem:
        raise IllegalAction(problem.text)
    hand.remove(card)
    s["discard"].append(card)
    s["turn"]["gave_cards"] = True
    score = score_building(city, card, props)
    s["buildings"].append(
        {
            "building": card,
            "properties": props,
            "owner": player,
            "points": score.points,
            "explanation": score.explanation,
        }
    )
    event = {"type": "special_placed", "player": player, "card": card, "properties": props}
    events.append(event)
    s["last_action"] = dict(event, type="special")
    _after_main(s, player, events, "special", placed=True)


def _streetcar(s: JSON, player: str, action: JSON, events: list[JSON]) -> None:
    raw = action.get("segments")
    if not isinstance(raw, list) or not raw:
        raise IllegalAction(_l("Say where the streetcars go."))
    segments: list[Segment] = []
    for item in raw:
        segment = normalize_segment(item)
        if segment is None:
            raise IllegalAction(_l("A streetcar covers one street between two neighbouring corners."))
        segments.append(segment)
    city = City(s)
    problem = streetcars_problem(city, segments, rules_of(s))
    if problem:
        raise IllegalAction(problem.text)
    placed = [segment_json(seg) for seg in segments]
    s["streetcars"].extend(placed)
    words = [city.describe_segment(seg) for seg in segments]
    event = {"type": "streetcars_placed", "player": player, "segments": placed, "where": words}
    events.append(event)
    s["last_action"] = dict(event, type="streetcar")
    _after_main(s, player, events, "streetcar", placed=True)


def _exchange(s: JSON, player: str, action: JSON, events: list[JSON], most: int | None) -> None:
    hand: list[Card] = s["hands"][player]
    cards = _cards(action, hand)
    if most is not None and len(cards) > most:
        raise IllegalAction(_l("After a failed trade you may exchange at most {n} cards.",
                               n=most))
    for card in cards:
        hand.remove(card)
        s["stacks"][str(stack_of(card))].append(card)  # face down at the bottom of its stack
    s["turn"]["gave_cards"] = True
    event = {
        "type": "exchanged",
        "player": player,
        "count": len(cards),
        "stacks": [stack_of(c) for c in cards],
    }
    events.append(event)
    s["last_action"] = dict(event, type="exchange")
    _after_main(s, player, events, "exchange")


def _discard_useless(s: JSON, player: str, action: JSON, events: list[JSON]) -> None:
    if s["options"]["must_exchange_useless"]:
        raise IllegalAction(_l("In this game useless cards must be exchanged, not discarded."))
    if s["step"] != "start":
        raise IllegalAction(_l("Useless cards can only be discarded at the start of your turn."))
    hand: list[Card] = s["hands"][player]
    cards = _cards(action, hand)
    useless = useless_cards(City(s), hand)
    for card in cards:
        if isinstance(card, str):
            raise IllegalAction(_l("The {card} card is not useless.", card=card_text(card)))
        if card not in useless:
            raise IllegalAction(_l(
                "Property {property} is not under a park or factory, so its card is not "
                "useless.", property=card))
    for card in cards:
        hand.remove(card)
        s["discard"].append(card)
    s["turn"]["discarded"] = True
    s["turn"]["gave_cards"] = True
    s["step"] = "main"
    event = {"type": "discarded", "player": player, "cards": cards}
    events.append(event)
    s["last_action"] = dict(event, type="discard_useless")


def _draw(s: JSON, player: str, action: JSON, events: list[JSON]) -> None:
    raw = action.get("stacks")
    if not isinstance(raw, list) or not raw:
        raise IllegalAction(_l("Say which stacks to draw from."))
    need = cards_to_draw(s, player)
    if len(raw) > need:
        raise IllegalAction(_ln("You draw only {n} more card.", "You draw only {n} more cards.",
                                need))
    placed = {entry["number"] for entry in s["neighborhoods"]}
    drawn: list[int] = []
    for item in raw:
        number = _int(item, _l("A stack must be a whole number."))
        if number not in NEIGHBORHOODS:
            raise IllegalAction(_l("There is no stack {number}.", number=number))
        if s["options"]["limited_card_drawing"] and number not in placed:
            raise IllegalAction(_l(
                "In this game you draw only from placed neighborhoods; {number} is not placed.",
                number=number))
        if not s["stacks"][str(number)]:
            raise IllegalAction(_l("Stack {number} is empty.", number=number))
        if s["turn"]["drawn"].get(str(number), 0) >= 2:
            raise IllegalAction(_l("You may draw at most two cards from stack {number} in a "
                                   "turn.", number=number))
        s["hands"][player].append(s["stacks"][str(number)].pop(0))
        s["turn"]["drawn"][str(number)] = s["turn"]["drawn"].get(str(number), 0) + 1
        drawn.append(number)
    events.append({"type": "drew", "player": player, "stacks": drawn})
    if cards_to_draw(s, player) == 0:
        _end_turn(s, events)


def _trade(s: JSON, player: str, action: JSON, events: list[JSON]) -> None:
    if not s["options"]["trade_cards"]:
        raise IllegalAction(_l("Trading cards is not allowed in this game."))
    cards = _cards(action, s["hands"][player])
    if len(cards) > 2:
        raise IllegalAction(_l("You may trade one or two cards."))
    wants_raw = action.get("wants", [])
    if not isinstance(wants_raw, list):
        raise IllegalAction(_l("Name the wanted neighborhoods as a list."))
    wants = [_int(w, _l("A neighborhood must be a whole number.")) for w in wants_raw]
    if any(w not in NEIGHBORHOODS for w in wants):
        raise IllegalAction(_l("Wanted neighborhoods are numbered 1 to 8."))
    trading.start(s, player, cards, wants)
    s["step"] = "trade_offers"
    event = {
        "type": "trade_announced",
        "player": player,
        "neighborhoods": [stack_of(c) for c in cards],
        "wants": sorted(set(wants)),
    }
    events.append(event)
    s["last_action"] = dict(event, type="trade")


def _trade_response(s: JSON, player: str, action: JSON, events: list[JSON]) -> None:
    trade = s["trade"]
    kind = action.get("type")
    if kind == "trade_decline":
        trade["offers"][player] = None
        events.append({"type": "trade_declined", "player": player})
    elif kind == "trade_offer":
        cards = _cards(action, s["hands"][player])
        if len(cards) > len(trade["cards"]):
            raise IllegalAction(_ln("{trader} trades only {n} card.",
                                    "{trader} trades only {n} cards.", len(trade["cards"]),
                                    trader=trade["trader"]))
        trade["offers"][player] = cards
        events.append(
            {
                "type": "trade_offered",
                "player": player,
                "neighborhoods": [stack_of(c) for c in cards],
            }
        )
    else:
        raise IllegalAction(_l("Answer {trader}'s trade first: offer cards or decline.",
                               trader=trade["trader"]))
    trade["pending"].remove(player)
    if not trade["pending"]:
        s["step"] = "trade_accept"


def _trade_decision(s: JSON, player: str, action: JSON, events: list[JSON]) -> None:
    trade = s["trade"]
    kind = action.get("type")
    if kind == "exchange":
        if trade["deals"]:
            raise IllegalAction(_l("You traded a card, so you may not exchange the other."))
        s["trade"] = None
        _exchange(s, player, action, events, most=2)
        return
    if kind == "trade_end":
        passed = trade["deals"] == 0
        s["trade"] = None
        events.append({"type": "trade_ended", "player": player, "deals": trade["deals"]})
        # a trade that came to nothing changes nothing: it counts as a pass for the game end
        _after_main(s, player, events, "pass" if passed else "trade")
        return
    if kind != "trade_accept":
        raise IllegalAction(_l("Accept an offer or end the trade."))
    partner = action.get("partner")
    offers = trading.open_offers(trade)
    if not isinstance(partner, str) or partner not in offers:
        raise IllegalAction(_l("That player has no open offer."))
    give_raw = action.get("give")
    remaining = [c for c in trade["cards"] if c not in trade["given"]]
    if not isinstance(give_raw, list) or len(give_raw) != len(offers[partner]):
        raise IllegalAction(_l("Give {n} of your announced cards for that offer.",
                               n=len(offers[partner])))
    if len({json.dumps(c) for c in give_raw}) != len(give_raw) or any(
        c not in remaining for c in give_raw
    ):
        raise IllegalAction(_l("Give cards you announced for this trade and have not traded yet."))
    take = offers[partner]
    mine: list[Card] = s["hands"][player]
    theirs: list[Card] = s["hands"][partner]
    for card in give_raw:
        mine.remove(card)
        theirs.append(card)
    for card in take:
        theirs.remove(card)
        mine.append(card)
    trade["given"].extend(give_raw)
    trade["offers"][partner] = None
    trade["accepted"].append(partner)
    trade["deals"] += 1
    events.append({"type": "traded", "player": player, "with": partner, "count": len(take)})
    if not trading.open_offers(trade):
        s["trade"] = None
        events.append({"type": "trade_ended", "player": player, "deals": trade["deals"]})
        _after_main(s, player, events, "trade")


# --- turn flow ----------------------------------------------------------------------------


def _after_main(s: JSON, player: str, events: list[JSON], kind: str, placed: bool = False) -> None:
    """The main action of the turn is done: end the game, or go on to the draw."""
    s["turn"]["main"] = kind
    s["turn"]["placed"] = placed
    s["passes"] = s["passes"] + 1 if kind == "pass" else 0
    if City(s).complete():
        _finish(s, events, "city_complete")
        return
    if cards_to_draw(s, player) > 0:
        s["step"] = "draw"
        return
    _end_turn(s, events)


def _end_turn(s: JSON, events: list[JSON]) -> None:
    s["quiet_turns"] = 0 if s["turn"]["placed"] else s["quiet_turns"] + 1
    if s["passes"] >= len(s["players"]):
        _finish(s, events, "all_passed")
        return
    s["current"] = (s["current"] + 1) % len(s["players"])
    s["step"] = "start"
    s["turn"] = _fresh_turn()
    s["turn_number"] += 1
    events.append({"type": "turn", "player": s["players"][s["current"]]})


def _finish(s: JSON, events: list[JSON], reason: str) -> None:
    s["phase"] = "over"
    s["step"] = "over"
    s["ended_by"] = reason
    final = result(s)
    assert final is not None
    events.append(
        {"type": "game_over", "reason": reason, "scores": final.scores, "winners": final.winners}
    )
