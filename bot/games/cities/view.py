"""What the table shows: the public view of a Cities state.

Cities has no private hands: scoring cards are kept face up, a face-down item is revealed
to all when taken. So every viewer sees the same table; what nobody sees is the order of
the decks and the bag, and the face-down items still on the board (shown as
``{"face_down": true}``) or removed unseen at the end of a three-player round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.core.engine import JSON

from .content import COLOURS, CONTENT
from .neighbourhood import Neighbourhood
from .state import ROWS, breakdown_of, city_of, limit_of, score_of, workers_left

if TYPE_CHECKING:
    from .engine import CitiesEngine

FACE_DOWN: JSON = {"face_down": True}


def item_view(row: str, item: str) -> JSON:
    if row == "cards":
        card = CONTENT.cards[item]
        return {"id": card.id, "name": card.name, "vp": card.vp, "text": card.text, "counting": card.counting}
    if row == "tiles":
        tile = CONTENT.tiles[item]
        return {"id": tile.id, "rows": list(tile.rows), "label": tile.label()}
    if row == "features":
        feature = CONTENT.features[item]
        shown: JSON = {"id": feature.id, "background": feature.background, "kind": feature.kind}
        if feature.art:
            shown["art"] = feature.art
        return shown
    return {"color": item}


def neighbourhood_view(data: JSON, hood: Neighbourhood | None = None) -> JSON:
    hood = hood or Neighbourhood.from_state(data)
    spaces = []
    for space in hood.spaces():
        feature = hood.features.get(space)
        building = hood.buildings.get(space)
        spaces.append({
            "space": [space[0], space[1]],
            "type": hood.kinds[space],
            "feature": item_view("features", feature.id) if feature else None,
            "building": {"color": building[0], "height": building[1]} if building else None,
        })
    height, width = hood.size()
    r0, _, c0, _ = hood.tile_bounds()
    return {
        "tiles": [dict(t) for t in data["tiles"]],
        "size": [height, width],
        "top_left": [r0, c0],
        "spaces": spaces,
    }


def _row_view(state: JSON, row: str) -> list[JSON]:
    slots = []
    for slot in state["rows"][row]:
        shown: JSON = {
            "slot": slot["slot"],
            "taken_by": slot["taken_by"],
            "items": [
                dict(FACE_DOWN) if hidden else item_view(row, item)
                for item, hidden in zip(slot["items"], slot["hidden"], strict=True)
            ],
        }
        if slot.get("star"):
            shown["star"] = True
            shown["open"] = bool(state["star_on_board"])
        slots.append(shown)
    return slots


def public_view(engine: CitiesEngine, state: JSON, viewer: str | None) -> JSON:
    players = state["players"]
    n = len(players)
    city = city_of(state)
    pending = state["pending"]
    removed = state["removed"]
    # In seat order (the state lists them in the order the starting tiles were chosen).
    hoods = {p: Neighbourhood.from_state(state["neighbourhoods"][p]) for p in players if p in state["neighbourhoods"]}
    view: JSON = {
        "game": "cities",
        "title": "Cities",
        "viewer": viewer,
        "phase": state["phase"],
        "round": state["round"],
        "rounds": state["rounds"],
        "variant": state["variant"],
        "limit": list(limit_of(state)),
        "players": list(players),
        "first_player": state["first_player"],
        "turn": state["turn"],
        "to_act": engine.to_act(state),
        "city": {
            "name": city.name,
            "code": city.code,
            "board_side": city.board_side,
            "achievements": [
                {
                    "id": a.id, "name": a.display_name, "tier": a.tier, "text": a.text,
                    "rings": [
                        {"vp": vp, "player": holder}
                        for vp, holder in zip(a.ring_values(n), state["rings"][a.id], strict=True)
                    ],
                }
                for a in city.achievements
            ],
        },
        "star": {
            "holder": state["first_player"],
            "on_board": bool(state["star_on_board"]) and state["phase"] == "play",
            "taken_by": state["star_taken_by"],
        },
        "rows": {row: _row_view(state, row) for row in ROWS} if state["rows"]["cards"] else {},
        "workers_left": {
            p: {row: workers_left(state, p, row) for row in ROWS} if state["phase"] == "play" else {}
            for p in players
        },
        "neighbourhoods": {p: neighbourhood_view(state["neighbourhoods"][p], h) for p, h in hoods.items()},
        "cards_held": {p: [item_view("cards", c) for c in state["cards_held"][p]] for p in players},
        "bag": {c: state["bag"].count(c) for c in COLOURS},
        "decks": {deck: len(ids) for deck, ids in state["decks"].items()},
        "removed": {
            "scoring_cards": list(removed["scoring_cards"]),
            "city_tiles": list(removed["city_tiles"]),
            "feature_tiles": list(removed["feature_tiles"]),
            "pieces": dict(removed["pieces"]),
            "face_down": len(removed["face_down"]),
        },
        "pending": None if pending is None else {
            "player": pending["player"],
            "row": pending["row"],
            "items": [item_view(pending["row"], i) for i in pending["items"]],
        },
        "scores": {p: score_of(state, p, hoods[p]) for p in hoods},
    }
    if state["phase"] == "start_tiles":
        view["start_tiles"] = [item_view("tiles", t) for t in state["start_tiles"]]
        view["start_tile_order"] = list(state["start_tile_order"])
    if state["phase"] == "over":
        breakdowns = {p: breakdown_of(state, p, hoods[p]) for p in players}
        result: Any = engine.result(state)
        view["breakdown"] = breakdowns
        view["winners"] = result.winners
    return view
