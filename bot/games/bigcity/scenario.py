"""Mid-game positions built by hand, for tests, examples and the Discord harness.

``position`` starts a real game with ``new`` and then lays out the city, the pieces, the
streetcars and the hands it is given, moving every card it touches so the 72 cards stay
conserved (built-on properties' cards go to the discard pile, hands are taken from the
stacks). Pieces are scored as the engine would score them, in the order given.
"""

from __future__ import annotations

from typing import Any

from bot.games.bigcity.city import City
from bot.games.bigcity.content import SPECIAL_CARDS, Card, stack_of
from bot.games.bigcity.engine import new
from bot.games.bigcity.geometry import normalize_segment, segment_json
from bot.games.bigcity.scoring import score_building

JSON = dict[str, Any]

Placement = tuple[int, tuple[int, int], int]
"""(neighbourhood, at, rotation)"""


def _take(state: JSON, card: Card) -> None:
    """Remove a card from wherever it is (stacks, hands, discard pile)."""
    for pile in [*state["stacks"].values(), *state["hands"].values(), state["discard"]]:
        if card in pile:
            pile.remove(card)
            return
    raise ValueError(f"card {card!r} is nowhere")


def position(
    players: list[str] | None = None,
    neighborhoods: list[Placement] | None = None,
    pieces: list[tuple[str, list[int], str]] | None = None,
    streetcars: list[list[list[int]]] | None = None,
    hands: dict[str, list[Card]] | None = None,
    options: JSON | None = None,
    current: str | None = None,
    seed: int = 1,
) -> JSON:
    """A game in its play phase with the given city.

    ``neighborhoods`` lists the placed neighbourhoods besides neighbourhood 1 (which is
    always at (0, 0), unrotated); ``pieces`` are (building or park/factory card,
    properties, owner); ``hands`` replace the players' hands (the others keep theirs,
    refilled from the stacks if the pieces or the given hands took some of their cards).
    """
    players = players or ["ann", "bob"]
    state = new(players, dict(options or {}), seed)
    state["phase"] = "play"
    state["step"] = "start"
    state["setup"] = {"pool": [], "order": []}
    state["turn_number"] = 1
    state["neighborhoods"] = [{"number": 1, "at": [0, 0], "rotation": 0}] + [
        {"number": n, "at": [at[0], at[1]], "rotation": r} for n, at, r in neighborhoods or []
    ]
    for building, props, owner in pieces or []:
        city = City(state)
        score = score_building(city, building, sorted(props))
        if building in SPECIAL_CARDS:
            _take(state, building)
            state["discard"].append(building)
        else:
            for prop in props:
                _take(state, prop)
                state["discard"].append(prop)
        state["buildings"].append(
            {
                "building": building,
                "properties": sorted(props),
                "owner": owner,
                "points": score.points,
                "explanation": score.explanation,
            }
        )
        state["scores"][owner] += score.points
    for raw in streetcars or []:
        segment = normalize_segment(raw)
        if segment is None:
            raise ValueError(f"not a street: {raw!r}")
        state["streetcars"].append(segment_json(segment))
    for player, cards in (hands or {}).items():
        for card in state["hands"][player]:
            state["stacks"][str(stack_of(card))].append(card)
        state["hands"][player] = []
        for card in cards:
            _take(state, card)
            state["hands"][player].append(card)
    # players who lost cards to the pieces or to the given hands fill up from the stacks
    for player in players:
        if player in (hands or {}):
            continue
        for number in range(8, 0, -1):
            stack = state["stacks"][str(number)]
            while stack and len(state["hands"][player]) < state["hand_size"]:
                state["hands"][player].append(stack.pop(0))
    state["current"] = players.index(current) if current else 0
    return state
