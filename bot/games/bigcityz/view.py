"""What people see of a Big Cityz game: the public table and a player's own view, built
from the state without its hidden parts (the current city's facts, the piles' order)."""

from __future__ import annotations

import copy

from bot.core.engine import JSON, Engine

from . import content
from .board import COLORS, RISK_FIELDS, RISK_PENALTY, RISK_POINTS, replaceable_slots, risk_slots


def active_player(state: JSON) -> str:
    player: str = state["players"][state["turn_seat"]]
    return player


def _city_ref(city_id: str | None) -> JSON | None:
    return None if city_id is None else {"id": city_id, "name": content.name(city_id)}


def _waiting(state: JSON) -> list[str]:
    window = state["veto_window"]
    if window is None:
        return []
    answered = set(window["objectors"]) | set(window["declined"])
    return [p for p in window["eligible"] if p not in answered]


def _public_placement(placement: JSON | None) -> JSON | None:
    if placement is None:
        return None
    public = {k: v for k, v in placement.items() if k not in ("city", "free")}
    public["city"] = _city_ref(placement["city"])
    return public


def public_view(engine: Engine, state: JSON, viewer: str | None) -> JSON:
    """What ``viewer`` sees (``None``: the table). The current city's NAME only: its
    facts stay on the hidden back of the card until the reveal."""
    over = state["phase"] == "over"
    window = state["veto_window"]
    replaceable_now = [] if over or state["phase"] == "veto" or state["replaced_slot"] \
        else replaceable_slots(state)
    view: JSON = {
        "game": engine.name,
        "players": list(state["players"]),
        "phase": state["phase"],
        "round": state["round"],
        "turn": None if over else active_player(state),
        "first_player": state["players"][state["first_seat"]],
        "to_act": engine.to_act(state),
        # The current city's NAME only: its facts stay hidden until the reveal.
        "city": _city_ref(state["current_city"]),
        "slots": [
            {
                "slot": board["slot"],
                "statement": board["statement"],
                "text": content.statement(board["statement"])["text"],
                "short": content.SHORT_NAMES[board["statement"]],
                "symbol": content.statement(board["statement"])["symbol"],
                "replaceable": board["slot"] in replaceable_now,
                "squares": [
                    {"color": sq["color"], "points": sq["points"], "city": _city_ref(sq["city"])}
                    for sq in board["squares"]
                ],
            }
            for board in state["slots"]
        ],
        "risk_fields": [
            {"id": risk, "slots": list(risk_slots(risk)), "color": color,
             "points": RISK_POINTS, "penalty": -RISK_PENALTY,
             "city": _city_ref(state["risk_fields"][risk][color])}
            for risk in RISK_FIELDS for color in COLORS
        ],
        "beside_board": [_city_ref(cid) for cid in state["beside_board"]],
        "replaced_slot": state["replaced_slot"],
        "placement": _public_placement(state["placement"]),
        "veto_window": None if window is None else {
            "eligible": list(window["eligible"]),
            "objectors": list(window["objectors"]),
            "declined": list(window["declined"]),
            "waiting": _waiting(state),
        },
        "veto_seconds": state["veto_seconds"],
        "vetoes_left": dict(state["vetoes"]),
        "scores": dict(state["scores"]),
        "turns": dict(state["turns"]),
        "piles": {
            "cities": len(state["city_pile"]),
            "statements": len(state["statement_pile"]),
            # the statement discard pile lies face up
            "statement_discard": list(state["statement_discard"]),
            "removed": len(state["removed"]),
        },
        "end_triggered": state["end_triggered"],
        "last_reveal": copy.deepcopy(state["last_reveal"]),
    }
    if viewer is not None:
        view["me"] = viewer
        view["is_my_turn"] = not over and state["phase"] == "place" \
            and active_player(state) == viewer
        view["can_object"] = viewer in engine.to_act(state) and state["phase"] == "veto"
    result = engine.result(state)
    if result is not None:
        view["winners"] = result.winners
    return view
