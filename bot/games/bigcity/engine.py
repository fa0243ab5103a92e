"""The rules of Big City as pure functions over a JSON state (bot.core.engine contract).

Flow of a game:
- setup: the players place the starting neighbourhoods in turn (``place_neighborhood``);
- play: on a turn a player may first ``discard_useless`` cards, then takes one action
  (``build``, ``special``, ``streetcar``, ``place_neighborhood``, ``exchange``, ``pass``
  or, in the trade variant, ``trade``), then ``draw``s back to a full hand;
- over: every property of all eight neighbourhoods is built on, or all players passed in a row.

docs/bigcity.md documents the action vocabulary, the options and the view.
"""

from __future__ import annotations

import json
from itertools import combinations
from typing import Any

from bot.core.engine import IllegalAction, LegalAction, Result
from bot.core.i18n import Words
from bot.core.rng import draw as rng_draw
from bot.games.bigcity import trade as trading
from bot.games.bigcity.city import City
from bot.games.bigcity.content import (
    BUILDINGS,
    NEIGHBORHOODS,
    SPECIAL_CARDS,
    STREETCARS,
    Card,
    card_label,
    dealt_stacks,
    hand_size,
    is_card,
    piece_title,
    stack_cards,
    starting_neighborhoods,
)
from bot.games.bigcity.geometry import neighborhood_layout, segment_json
from bot.games.bigcity.legality import (
    building_label,
    building_sites,
    placement_options,
    special_sites,
    useless_cards,
)
from bot.games.bigcity.moves import (
    _after_main,
    _build,
    _discard_useless,
    _draw,
    _exchange,
    _fresh_turn,
    _place_neighborhood,
    _special,
    _streetcar,
    _trade,
    _trade_decision,
    _trade_response,
    cards_to_draw,
    drawable,
    result,
    rules_of,
)
from bot.games.bigcity.scoring import score_building
from bot.games.bigcity.streetcar import streetcar_options

JSON = dict[str, Any]
# Refusals are said in the reader's language; the labels of legal moves stay English (the
# cog words its menus itself from the moves).
_ = Words("bot.games.bigcity")
_l = _.lazy

VARIANTS: tuple[str, ...] = (
    "trade_cards",
    "must_exchange_useless",
    "single_streetcar_line",
    "limited_streetcar_line",
    "limited_card_drawing",
)
OPTIONS: tuple[str, ...] = ("stacks", "first_player", *VARIANTS)
MAIN_ACTIONS = ("build", "special", "streetcar", "place_neighborhood", "exchange", "pass", "trade")


# --- new game -----------------------------------------------------------------------------


def new(players: list[str], options: JSON, seed: int) -> JSON:
    """A fresh game: stacks shuffled, hands dealt, neighbourhood 1 in the middle."""
    if not isinstance(players, list) or not 2 <= len(players) <= 5:
        raise IllegalAction(_l("Big City is for 2 to 5 players."))
    if not all(isinstance(p, str) and p for p in players) or len(set(players)) != len(players):
        raise IllegalAction(_l("Every player must be named once."))
    options = dict(options or {})
    for key in options:
        if key not in OPTIONS:
            raise IllegalAction(_l("Big City has no option {key!r}.", key=key))
    variants: JSON = {}
    for key in VARIANTS:
        value = options.get(key, False)
        if not isinstance(value, bool):
            raise IllegalAction(_l("The option {key} is on or off (true or false).", key=key))
        variants[key] = value
    stacked = _stacked_cards(options.get("stacks"))
    state: JSON = {
        "game": "bigcity",
        "seed": seed,
        "rng_draws": 0,
        "players": list(players),
        "options": variants,
        "hand_size": hand_size(len(players)),
        "phase": "setup",
        "step": "place",
        "current": 0,
        "first_player": 0,
        "setup": {"pool": starting_neighborhoods(len(players))[1:], "order": []},
        "neighborhoods": [{"number": 1, "at": [0, 0], "rotation": 0}],
        "buildings": [],
        "streetcars": [],
        "stacks": {},
        "hands": {p: [] for p in players},
        "discard": [],
        "scores": {p: 0 for p in players},
        "passes": 0,
        "quiet_turns": 0,
        "turn_number": 0,
        "turn": _fresh_turn(),
        "trade": None,
        "last_action": None,
        "ended_by": None,
    }
    for number in NEIGHBORHOODS:
        top = stacked.get(number, [])
        rest = [c for c in stack_cards(number) if c not in top]
        rng_draw(state, f"shuffle stack {number}").shuffle(rest)
        state["stacks"][str(number)] = top + rest
    first = options.get("first_player")
    if first is None:
        state["first_player"] = rng_draw(state, "first player").randrange(len(players))
    elif first in players:
        state["first_player"] = players.index(first)
    else:
        raise IllegalAction(_l("The first player {name!r} is not in this game.", name=first))
    for player in players:  # seat by seat, one card from each of stacks 1–5 (or 1–6)
        for number in dealt_stacks(len(players)):
            state["hands"][player].append(state["stacks"][str(number)].pop(0))
    count = len(players)
    first_seat = state["first_player"]
    state["setup"]["order"] = [(first_seat + i) % count for i in range(len(state["setup"]["pool"]))]
    state["current"] = state["setup"]["order"][0]
    return state


def _stacked_cards(raw: object) -> dict[int, list[Card]]:
    """The ``stacks`` option: stack number → cards on top of it, top first."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise IllegalAction(_l("The stacks option maps a stack number to a list of its cards."))
    stacked: dict[int, list[Card]] = {}
    for key, cards in raw.items():
        try:
            number = int(key)
        except (TypeError, ValueError):
            raise IllegalAction(_l("There is no stack {key!r}.", key=key)) from None
        if number not in NEIGHBORHOODS:
            raise IllegalAction(_l("There is no stack {key!r}.", key=key))
        if not isinstance(cards, list):
            raise IllegalAction(_l("Stack {number} must be given as a list of cards.",
                                   number=number))
        own = stack_cards(number)
        for card in cards:
            if not is_card(card) or card not in own:
                raise IllegalAction(_l("Card {card!r} is not in stack {number}.", card=card,
                                       number=number))
        if len(set(cards)) != len(cards):
            raise IllegalAction(_l("Stack {number} lists a card twice.", number=number))
        stacked[number] = list(cards)
    return stacked


# --- who acts, what they may do -----------------------------------------------------------


def to_act(state: JSON) -> list[str]:
    if state["phase"] == "over":
        return []
    if state["step"] == "trade_offers":
        return list(state["trade"]["pending"])
    return [state["players"][state["current"]]]


def legal(state: JSON, player: str) -> list[LegalAction]:
    if player not in to_act(state):
        return []
    step = state["step"]
    if step == "place":
        city = City(state)
        return _placement_actions(city, state["setup"]["pool"])
    if step == "draw":
        return [
            LegalAction(
                {"type": "draw", "stacks": [number]},
                f"Draw from stack {number} ({len(state['stacks'][str(number)])} left)",
            )
            for number in drawable(state)
        ]
    if step == "trade_offers":
        return [LegalAction(a, label) for a, label in trading.offer_options(state, player)]
    if step == "trade_accept":
        actions = [LegalAction(a, label) for a, label in trading.accept_options(state)]
        if state["trade"]["deals"] == 0:
            actions.extend(_exchange_actions(state["hands"][player], 2))
        actions.append(LegalAction({"type": "trade_end"}, "End the trade"))
        return actions
    return _turn_actions(state, player)


def _turn_actions(state: JSON, player: str) -> list[LegalAction]:
    city = City(state)
    hand: list[Card] = state["hands"][player]
    actions: list[LegalAction] = []
    if state["step"] == "start" and not state["options"]["must_exchange_useless"]:
        useless = useless_cards(city, hand)
        for size in range(len(useless), 0, -1):
            for cards in combinations(useless, size):
                actions.append(
                    LegalAction(
                        {"type": "discard_useless", "cards": list(cards)},
                        "Discard useless " + ", ".join(card_label(c) for c in cards),
                    )
                )
    sites = building_sites(city, hand)
    scored = [(b, props, score_building(city, b, props).points) for b, props in sites]
    scored.sort(key=lambda item: (-item[2], item[0], item[1]))
    for building, props, points in scored:
        actions.append(
            LegalAction(
                {"type": "build", "building": building, "properties": props},
                f"{building_label(building, props)} ({points} pt{'s' if points != 1 else ''})",
            )
        )
    for card in hand:
        if isinstance(card, str):
            for props in special_sites(city, card):
                actions.append(
                    LegalAction(
                        {"type": "special", "card": card, "properties": props},
                        f"{card_label(card)} on {'+'.join(str(p) for p in props)}",
                    )
                )
    for segments in streetcar_options(city, rules_of(state)):
        words = " and ".join(city.describe_segment(s) for s in segments)
        actions.append(
            LegalAction(
                {"type": "streetcar", "segments": [segment_json(s) for s in segments]},
                f"Streetcar{'s' if len(segments) > 1 else ''} {words}",
            )
        )
    if city.has_city_hall():
        actions.extend(_placement_actions(city, [n for n in NEIGHBORHOODS if n not in city.placed]))
    actions.extend(_exchange_actions(hand, len(hand)))
    if state["options"]["trade_cards"]:
        for size in (1, 2):
            for cards in combinations(hand, size):
                actions.append(
                    LegalAction(
                        {"type": "trade", "cards": list(cards), "wants": []},
                        "Trade " + ", ".join(card_label(c) for c in cards),
                    )
                )
    actions.append(LegalAction({"type": "pass"}, "Pass"))
    return actions


def _placement_actions(city: City, numbers: list[int]) -> list[LegalAction]:
    actions: list[LegalAction] = []
    for number in numbers:
        for (x, y), rotation in placement_options(city, number):
            actions.append(
                LegalAction(
                    {
                        "type": "place_neighborhood",
                        "neighborhood": number,
                        "at": [x, y],
                        "rotation": rotation,
                    },
                    f"Neighborhood {number} at ({x}, {y}), turned {rotation}°",
                )
            )
    return actions


def _exchange_actions(hand: list[Card], most: int) -> list[LegalAction]:
    actions: list[LegalAction] = []
    for size in range(1, min(most, len(hand)) + 1):
        for cards in combinations(hand, size):
            actions.append(
                LegalAction(
                    {"type": "exchange", "cards": list(cards)},
                    "Exchange " + ", ".join(card_label(c) for c in cards),
                )
            )
    return actions


# --- applying an action -------------------------------------------------------------------


def apply(state: JSON, player: str | None, action: JSON) -> tuple[JSON, list[JSON]]:
    if state["phase"] == "over":
        raise IllegalAction(_l("The game is over."))
    if player is None or player not in state["players"]:
        raise IllegalAction(_l("Only a player of this game can do that."))
    if player not in to_act(state):
        raise IllegalAction(_l("It is not your turn."))
    if not isinstance(action, dict):
        raise IllegalAction(_l("That is not a move."))
    kind = action.get("type")
    s: JSON = json.loads(json.dumps(state))
    events: list[JSON] = []
    step = s["step"]
    if step == "place":
        if kind != "place_neighborhood":
            raise IllegalAction(_l("First the starting neighborhoods are placed."))
        _place_neighborhood(s, player, action, events, setup=True)
    elif step == "draw":
        if kind != "draw":
            raise IllegalAction(_l("Finish your turn by drawing cards."))
        _draw(s, player, action, events)
    elif step == "trade_offers":
        _trade_response(s, player, action, events)
    elif step == "trade_accept":
        _trade_decision(s, player, action, events)
    elif kind == "discard_useless":
        _discard_useless(s, player, action, events)
    elif kind == "draw":
        raise IllegalAction(_l("You draw cards only at the end of your turn."))
    elif kind in ("trade_offer", "trade_decline", "trade_accept", "trade_end"):
        raise IllegalAction(_l("There is no trade going on."))
    elif kind in MAIN_ACTIONS:
        if kind == "build":
            _build(s, player, action, events)
        elif kind == "special":
            _special(s, player, action, events)
        elif kind == "streetcar":
            _streetcar(s, player, action, events)
        elif kind == "place_neighborhood":
            _place_neighborhood(s, player, action, events, setup=False)
        elif kind == "exchange":
            _exchange(s, player, action, events, most=None)
        elif kind == "trade":
            _trade(s, player, action, events)
        else:
            s["last_action"] = {"type": "pass", "player": player}
            events.append({"type": "passed", "player": player})
            _after_main(s, player, events, "pass")
    else:
        raise IllegalAction(_l("Unknown action {kind!r}.", kind=kind))
    return s, events


# --- views and result ---------------------------------------------------------------------


def view(state: JSON, viewer: str | None) -> JSON:
    city = City(state)
    outskirts = city.outskirts()
    owner_of = city.occupant
    neighborhoods = []
    properties = []
    for entry in state["neighborhoods"]:
        layout = neighborhood_layout(
            entry["number"], (entry["at"][0], entry["at"][1]), entry["rotation"]
        )
        neighborhoods.append(
            {
                "number": entry["number"],
                "at": list(entry["at"]),
                "rotation": entry["rotation"],
                "cells": [{"property": p, "cell": list(c)} for p, c in layout.items()],
            }
        )
        for prop, cell in layout.items():
            piece = state["buildings"][owner_of[prop]] if prop in owner_of else None
            properties.append(
                {
                    "property": prop,
                    "neighborhood": entry["number"],
                    "cell": list(cell),
                    "building": piece["building"] if piece else None,
                    "piece": owner_of.get(prop),
                    "owner": piece["owner"] if piece else None,
                    "outskirts": prop in outskirts,
                }
            )
    built = {b: 0 for b in BUILDINGS}
    for piece in state["buildings"]:
        if piece["building"] in built:
            built[piece["building"]] += 1
    current = state["players"][state["current"]] if state["phase"] != "over" else None
    public: JSON = {
        "game": "bigcity",
        "players": list(state["players"]),
        "phase": state["phase"],
        "step": state["step"],
        "turn": current,
        "to_act": to_act(state),
        "turn_number": state["turn_number"],
        "options": dict(state["options"]),
        "setup": {
            "pool": list(state["setup"]["pool"]),
            "order": [state["players"][i] for i in state["setup"]["order"]],
        }
        if state["phase"] == "setup"
        else None,
        "neighborhoods": neighborhoods,
        "unplaced_neighborhoods": [n for n in NEIGHBORHOODS if n not in city.placed],
        "properties": properties,
        "buildings": [
            {
                "id": i,
                "building": piece["building"],
                "title": piece_title(piece["building"]),
                "properties": list(piece["properties"]),
                "owner": piece["owner"],
                "points": piece["points"],
                "explanation": piece["explanation"],
            }
            for i, piece in enumerate(state["buildings"])
        ],
        "city_hall": city.has_city_hall(),
        "streetcars": [list(map(list, s)) for s in state["streetcars"]],
        "streetcars_left": STREETCARS - len(state["streetcars"]),
        "buildings_left": {b: BUILDINGS[b][0] - n for b, n in built.items()},
        "parks_and_factories_left": [
            c for c in SPECIAL_CARDS if all(p["building"] != c for p in state["buildings"])
        ],
        "stacks": {n: len(cards) for n, cards in state["stacks"].items()},
        "discard": list(state["discard"]),
        "hand_sizes": {p: len(state["hands"][p]) for p in state["players"]},
        "scores": dict(state["scores"]),
        "passes": state["passes"],
        "last_action": state["last_action"],
        "draw": {"cards": cards_to_draw(state, current), "stacks": drawable(state)}
        if state["step"] == "draw" and current is not None
        else None,
        "trade": trading.public(state["trade"]),
        "ended_by": state["ended_by"],
    }
    final = result(state)
    public["winners"] = final.winners if final else None
    if viewer is not None and viewer in state["players"]:
        hand = list(state["hands"][viewer])
        public["viewer"] = viewer
        public["hand"] = hand
        public["useless"] = useless_cards(city, hand)
        public["my_trade"] = trading.private(state["trade"], viewer)
    return public


def timeout_action(state: JSON) -> tuple[str | None, JSON] | None:
    """None: the runtime lets the computer player act for whoever timed out."""
    return None


class BigCityEngine:
    """The Big City engine: the functions above as the runtime's ``Engine``."""

    name, title = "bigcity", "Big City"
    min_players, max_players = 2, 5
    state_version = 1  # the saved state's shape: raise it with an upgrade step (docs/upgrades.md)
    # Listing the placements of a neighbourhood takes ~20 ms: the bot does it off the loop.
    slow_legal = True

    def new(self, players: list[str], options: JSON, seed: int) -> JSON:
        return new(players, options, seed)

    def to_act(self, state: JSON) -> list[str]:
        return to_act(state)

    def legal(self, state: JSON, player: str) -> list[LegalAction]:
        return legal(state, player)

    def apply(self, state: JSON, player: str | None, action: JSON) -> tuple[JSON, list[JSON]]:
        return apply(state, player, action)

    def view(self, state: JSON, viewer: str | None) -> JSON:
        return view(state, viewer)

    def result(self, state: JSON) -> Result | None:
        return result(state)

    def timeout_action(self, state: JSON) -> tuple[str | None, JSON] | None:
        return timeout_action(state)


ENGINE = BigCityEngine()
