"""The Big Cityz computer player.

Knowledge: a computer player of level easy / normal / hard knows each fact of a city with
chance 0.55 / 0.75 / 0.9. Whether it knows a given fact is drawn once per (seed, player,
city, statement) with ``peek``, so the same game always gives it the same knowledge and a
harder level knows everything an easier one would. What it does not know it guesses with the
deck's base rate: how often the statement is true among the other 199 cards (counting the
city's own card would let its hidden back sway the guess).

Placing: every legal square, risk field and "There's no free square" is valued by expected
points under those beliefs (a risk field's -2 counts only as far as the score can drop).
Replacing: worth it when the best square of an average board from the draw pile (whose
boards are known, their order is not) beats the best placement now by a margin.
Objecting: its belief that the placement is wrong, tempered by the thought that the placer
may know the answer, must reach a confidence threshold, lower near the end of the game when
unused markers are worth nothing.
"""

from __future__ import annotations

import itertools
from typing import Any

from bot.core.engine import JSON
from bot.core.rng import peek

from . import content
from .board import (
    RISK_PENALTY,
    RISK_POINTS,
    SLOTS,
    WINNING_SCORE,
    free_targets,
    point_squares,
    replaceable_slots,
    risk_right,
    risk_slots,
    square_right,
)

KNOWLEDGE = {"easy": 0.55, "normal": 0.75, "hard": 0.9}
REPLACE_MARGIN = 0.5  # replacing empties squares for everyone; it must pay clearly
PLACER_KNOWS = 0.5  # how likely an objector thinks the placer knew the answer
OBJECT_AT = 0.8  # confidence needed to spend one of two veto markers
OBJECT_AT_ENDGAME = 0.6
ENDGAME_SCORE = WINNING_SCORE - 8


def knows(state: JSON, player: str, city_id: str, statement_id: str) -> bool:
    level = state.get("ai_levels", {}).get(player, "normal")
    chance = KNOWLEDGE.get(level, KNOWLEDGE["normal"])
    return peek(state["seed"], "knows", player, city_id, statement_id).random() < chance


def belief(state: JSON, player: str, city_id: str, statement_id: str) -> float:
    """The computer's probability that the statement is true of the city."""
    if knows(state, player, city_id, statement_id):
        return 1.0 if content.truth(city_id, statement_id) else 0.0
    return content.share(statement_id, without=city_id)


def _beliefs(state: JSON, player: str) -> dict[int, float]:
    city = state["current_city"]
    return {b["slot"]: belief(state, player, city, b["statement"]) for b in state["slots"]}


def _p_right(target: JSON, slots: dict[int, float]) -> float:
    """Chance a place action is right, given beliefs per slot (independent statements)."""
    if "risk" in target:
        a, b = risk_slots(target["risk"])
        if target["color"] == "green":
            return slots[a] * slots[b]
        return (1 - slots[a]) * (1 - slots[b])
    p = slots[target["slot"]]
    return p if target["color"] == "green" else 1 - p


def p_no_free_square(free: list[JSON], slots: dict[int, float]) -> float:
    """Chance that none of the free squares would be right, by enumerating the 16 ways the
    four boards' statements can come out."""
    total = 0.0
    for outcome in itertools.product((True, False), repeat=len(SLOTS)):
        truth = dict(zip(SLOTS, outcome, strict=True))
        weight = 1.0
        for slot in SLOTS:
            weight *= slots[slot] if truth[slot] else 1 - slots[slot]
        if weight == 0:
            continue
        if not any(_right_under(t, truth) for t in free):
            total += weight
    return total


def _right_under(target: JSON, truth: dict[int, bool]) -> bool:
    if "risk" in target:
        a, b = risk_slots(target["risk"])
        return risk_right(target["color"], truth[a], truth[b])
    return square_right(target["color"], truth[target["slot"]])


def risk_ev(p: float, score: int) -> float:
    # "If a playing piece is still on the starting position, nothing happens."
    return p * RISK_POINTS - (1 - p) * min(RISK_PENALTY, score)


def _free_targets(state: JSON, only_slot: int | None = None) -> list[JSON]:
    """Free places; after a replacement only the new board's point squares."""
    targets = free_targets(state)
    if only_slot is None:
        return targets
    return [t for t in targets if t.get("slot") == only_slot]


def _value(target: JSON, slots: dict[int, float], score: int) -> float:
    p = _p_right(target, slots)
    if "risk" in target:
        return risk_ev(p, score)
    return p * int(target["points"])


def _new_board_value(state: JSON, player: str) -> float:
    """Expected best square on a board from the statement draw pile. The computer knows
    which boards are in the pile (all but the four shown and the face-up discards), not
    their order, so it averages over them."""
    shown = {b["statement"] for b in state["slots"]} | set(state["statement_discard"])
    pile = [sid for sid in content.statement_ids() if sid not in shown]
    if not pile:
        return 0.0
    city = state["current_city"]
    total = 0.0
    for sid in pile:
        p = belief(state, player, city, sid)
        total += max((p if color == "green" else 1 - p) * points
                     for color, points in point_squares(sid))
    return total / len(pile)


def choose_placement(state: JSON, player: str) -> JSON:
    slots = _beliefs(state, player)
    score = int(state["scores"][player])
    rng = peek(state["seed"], "place", player, state["current_city"], state["replaced_slot"])
    candidates: list[tuple[float, float, JSON]] = []
    replaced = state["replaced_slot"]
    for target in _free_targets(state, replaced):
        candidates.append((_value(target, slots, score), rng.random(), target))
    if replaced is None:
        best_now = max((c[0] for c in candidates), default=float("-inf"))
        can_replace = replaceable_slots(state)
        if can_replace:
            fresh = _new_board_value(state, player)
            if fresh > best_now + REPLACE_MARGIN:
                # Take off the board whose squares are worth least to us now.
                def worth(slot: int) -> tuple[float, float]:
                    mine = [c[0] for c in candidates if c[2].get("slot") == slot]
                    return (max(mine, default=0.0), rng.random())

                return {"type": "replace", "slot": min(can_replace, key=worth)}
        else:
            p = p_no_free_square(free_targets(state), slots)
            candidates.append((risk_ev(p, score), rng.random(), {"type": "no_free_square"}))
    best = max(candidates, key=lambda c: (c[0], c[1]))
    return dict(best[2])


def p_placement_wrong(state: JSON, player: str) -> float:
    """The objector's own belief that the current placement is wrong."""
    placement = state["placement"]
    slots = _beliefs(state, player)
    if placement["kind"] == "no_free_square":
        return 1 - p_no_free_square(placement["free"], slots)
    target: dict[str, Any] = {k: placement[k] for k in ("slot", "risk", "color") if k in placement}
    return 1 - _p_right(target, slots)


def choose_veto(state: JSON, player: str) -> JSON:
    q = p_placement_wrong(state, player)
    # The placement itself is evidence: the placer may have known. Odds of "wrong" shrink
    # by the chance the placer guessed rather than knew.
    wrong, right = q * (1 - PLACER_KNOWS), 1 - q
    confidence = wrong / (wrong + right) if wrong + right > 0 else 0.0
    endgame = max(state["scores"].values()) >= ENDGAME_SCORE or \
        len(state["city_pile"]) < 2 * len(state["players"])
    threshold = OBJECT_AT_ENDGAME if endgame else OBJECT_AT
    return {"type": "veto" if confidence >= threshold else "no_veto"}


def choose_action(state: JSON, player: str) -> JSON:
    """The normal level's move: a veto decision in a veto window, otherwise a placement."""
    if state["phase"] == "veto":
        return choose_veto(state, player)
    return choose_placement(state, player)
