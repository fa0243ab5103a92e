"""A greedy computer player.

Every turn it values each thing it could do and does the best one, or passes:
- a building is worth its points (city hall: the business bonus it opens up, a church 15);
- a park is worth the residences and businesses it may later lift, a factory is placed
  away from its own properties, never on them;
- streetcars are worth the held properties they come to run along;
- a neighbourhood is worth the held properties it brings next to each other;
- an exchange trades cards it cannot use for fresh ones, but only while the game moves:
  after a run of turns in which nobody placed anything it stops exchanging and passes, so
  computer games always end.
It never starts trades; asked to trade, it offers a card it cannot use, or declines.
"""

from __future__ import annotations

import random
from typing import Any

from bot.core.rng import peek
from bot.games.bigcity.city import City
from bot.games.bigcity.content import BUILDINGS, SPECIAL_CARDS, Card, stack_of
from bot.games.bigcity.engine import drawable, rules_of
from bot.games.bigcity.geometry import neighbors, property_cell, segment_json, sides
from bot.games.bigcity.legality import (
    building_sites,
    placement_options,
    special_sites,
    useless_cards,
)
from bot.games.bigcity.scoring import score_building
from bot.games.bigcity.streetcar import streetcar_options
from bot.games.bigcity.trade import open_offers

JSON = dict[str, Any]
Option = tuple[float, JSON]


def patience(state: JSON) -> int:
    """Turns without any placement after which the computer stops exchanging."""
    return 2 * len(state["players"]) + 2


def choose(state: JSON, player: str) -> JSON:
    rng = peek(
        state["seed"], "ai", player, state["turn_number"], state["step"], len(state["buildings"])
    )
    step = state["step"]
    if step == "place":
        return _best(
            _placements(state, player, City(state), state["setup"]["pool"], rng, setup=True)
        )
    if step == "draw":
        return _draws(state, player, rng)
    if step == "trade_offers":
        return _trade_reply(state, player)
    if step == "trade_accept":  # only when a trader timed out: take the first fitting offer
        trade = state["trade"]
        offer = next(iter(open_offers(trade).items()), None)
        if offer is None:
            return {"type": "trade_end"}
        partner, cards = offer
        remaining = [c for c in trade["cards"] if c not in trade["given"]]
        return {"type": "trade_accept", "partner": partner, "give": remaining[: len(cards)]}
    city = City(state)
    hand: list[Card] = state["hands"][player]
    if step == "start" and not state["options"]["must_exchange_useless"]:
        useless = useless_cards(city, hand)
        if useless:
            return {"type": "discard_useless", "cards": useless}
    options: list[Option] = [(0.0, {"type": "pass"})]
    options += _builds(city, hand, rng)
    options += _specials(city, hand, rng)
    options += _streetcars(state, city, hand, rng)
    if city.has_city_hall():
        wanted = sorted({stack_of(c) for c in hand if isinstance(c, int) and not city.in_city(c)})
        unplaced = [n for n in range(1, 9) if n not in city.placed]
        if not wanted and unplaced and len(city.free_properties()) < 4:
            wanted = unplaced[:1]  # open up the city when it is nearly full
        options += _placements(state, player, city, wanted, rng, setup=False)
    options += _exchange(state, city, hand)
    return _best(options)


def _best(options: list[Option]) -> JSON:
    return max(options, key=lambda item: item[0])[1]


def _jitter(rng: random.Random) -> float:
    return rng.random() * 0.01


def _held_free(city: City, hand: list[Card]) -> list[int]:
    return [c for c in hand if isinstance(c, int) and city.is_free(c)]


def _builds(city: City, hand: list[Card], rng: random.Random) -> list[Option]:
    held = _held_free(city, hand)
    options: list[Option] = []
    for building, props in building_sites(city, hand):
        value = float(score_building(city, building, props).points)
        if building == "city_hall":
            # no points, but it opens the game up and doubles businesses next to it
            value = 4.0 + 2.0 * sum(1 for p in held if p in city.adjacent_properties(props[0]))
        options.append(
            (value + _jitter(rng), {"type": "build", "building": building, "properties": props})
        )
    return options


def _specials(city: City, hand: list[Card], rng: random.Random) -> list[Option]:
    held = set(_held_free(city, hand))
    options: list[Option] = []
    for card in hand:
        if not isinstance(card, str):
            continue
        kind = SPECIAL_CARDS[card][1]
        for props in special_sites(city, card):
            if held & set(props):
                continue  # never bury its own properties
            around = city.neighbors_of_group(props)
            mine = sum(1 for p in around if p in held)
            others = sum(1 for p in around if city.is_free(p) and p not in held)
            # worth a cheap building: parks lift its own future buildings, factories spoil
            # the properties others hold
            if kind == "park":
                value = 2.5 + 1.0 * mine - 0.1 * others
            else:
                value = 2.5 - 1.0 * mine + 0.25 * others
            options.append(
                (value + _jitter(rng), {"type": "special", "card": card, "properties": props})
            )
    return options


def _streetcars(state: JSON, city: City, hand: list[Card], rng: random.Random) -> list[Option]:
    if not city.has_city_hall():
        return []
    waiting = {
        p: set(sides(city.cell_of[p]))
        for p in _held_free(city, hand)
        if not city.streetcar_along([p])
    }
    if not waiting:
        return []
    options: list[Option] = []
    for segments in streetcar_options(city, rules_of(state)):
        gained = sum(1 for along in waiting.values() if any(s in along for s in segments))
        if gained:
            value = 1.5 * gained - 0.2 * (len(segments) - 1)
            options.append(
                (
                    value + _jitter(rng),
                    {"type": "streetcar", "segments": [segment_json(s) for s in segments]},
                )
            )
    return options


def _placements(
    state: JSON, player: str, city: City, numbers: list[int], rng: random.Random, setup: bool
) -> list[Option]:
    hand: list[Card] = state["hands"][player]
    held_cells = {city.cell_of[p] for p in _held_free(city, hand)}
    options: list[Option] = []
    for number in numbers:
        mine = [c for c in hand if isinstance(c, int) and stack_of(c) == number]
        for at, rotation in placement_options(city, number):
            pairs = sum(
                1
                for p in mine
                for n in neighbors(property_cell(p, at, rotation))
                if n in held_cells
            )
            value = (0.5 if setup else 1.0) + 0.5 * len(mine) + 2.0 * pairs
            options.append(
                (
                    value + _jitter(rng),
                    {
                        "type": "place_neighborhood",
                        "neighborhood": number,
                        "at": list(at),
                        "rotation": rotation,
                    },
                )
            )
    return options


def _dead_cards(city: City, hand: list[Card]) -> list[Card]:
    """Cards the computer cannot hope to play soon."""
    singles_left = any(
        BUILDINGS[b][0] > sum(1 for p in city.pieces if p["building"] == b)
        for b in ("single_residence", "single_business")
    )
    held = set(_held_free(city, hand))
    dead: list[Card] = []
    for card in hand:
        if isinstance(card, str):
            continue
        if not city.in_city(card):
            unusable = not city.has_city_hall()
        elif not city.is_free(card):
            unusable = True
        else:
            unusable = not singles_left and not any(
                n in held for n in city.adjacent_properties(card)
            )
        if unusable:
            dead.append(card)
    return dead


def _exchange(state: JSON, city: City, hand: list[Card]) -> list[Option]:
    if state["quiet_turns"] >= patience(state):
        return []
    dead = _dead_cards(city, hand)
    if not dead:
        return []
    if not drawable(state):
        return []
    return [(0.2 + 0.1 * len(dead), {"type": "exchange", "cards": dead})]


def _draws(state: JSON, player: str, rng: random.Random) -> JSON:
    city = City(state)
    hand: list[Card] = state["hands"][player]
    held = set(_held_free(city, hand))
    allowed = drawable(state)
    value: dict[int, float] = {}
    for number in allowed:
        if number in city.placed:
            free = [p for p in city.free_properties() if p // 10 == number and p not in hand]
            v = 0.2 + (1.0 if free else 0.0)
            if any(n in held for p in free for n in city.adjacent_properties(p)):
                v += 0.5
            special = next((c for c, info in SPECIAL_CARDS.items() if info[0] == number), None)
            if special and all(p["building"] != special for p in city.pieces):
                v += 0.2
        else:
            v = 0.4 if city.has_city_hall() else 0.1
        value[number] = v + _jitter(rng)
    # one card at a time, as the legal moves offer it: each card is seen before the next
    drawn = state["turn"]["drawn"]
    best = max(allowed, key=lambda n: value[n] - 0.3 * drawn.get(str(n), 0))
    return {"type": "draw", "stacks": [best]}


def _trade_reply(state: JSON, player: str) -> JSON:
    dead = _dead_cards(City(state), state["hands"][player])
    if dead:
        return {"type": "trade_offer", "cards": dead[:1]}
    return {"type": "trade_decline"}
