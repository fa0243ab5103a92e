"""Big Cityz's easy and hard computer players (normal is ``ai.py``).

What a player may know: the table (``view``), its own knowledge of the city's facts (drawn
as normal's, per fact, so the three strategies know the same facts at the same knowledge
level) and the deck's base rates. Hidden: the city pile (which cards, in what order), the
statement pile's order, the city card's back, and what the others know. Both levels decide
from :func:`conceal`'s copy, in which the piles are redrawn.

Easy: places on one of its best few squares, weighed roughly, now and then on a hunch; it
never replaces a board unless normal would, and then only half the time; it objects on a
hunch (a lower, wavering confidence bar) and sometimes lets a sure objection go.

Hard: expectimax over sampled worlds. For each place it could take it samples the city's
unknown facts from its beliefs and what each opponent knows (their knowledge level), works
out whether each would object as a normal player would, and scores its own points minus the
opponents' (objections won and lost included). It objects when the placement is wrong with
a probability that beats the marker's worth, judged by Bayes: a placer who knew the fact
would not have placed wrongly.
"""

from __future__ import annotations

import copy
import random

from bot.core.engine import JSON
from bot.core.levels import EASY, Budget, ai_rng, sloppy_pick
from bot.core.rng import peek

from . import ai, content
from .board import (
    RISK_PENALTY,
    RISK_POINTS,
    SLOTS,
    VETO_POINTS,
    risk_right,
    risk_slots,
    square_right,
)

SAMPLES = 64


def conceal(state: JSON, player: str, rng: random.Random) -> JSON:
    """``state`` with the piles redrawn: the city pile from every card not yet seen, the
    statement pile from the boards neither shown nor discarded."""
    new = copy.deepcopy(state)
    seen = {state["current_city"], *state["beside_board"], *state["removed"]}
    for board in state["slots"]:
        seen.update(sq["city"] for sq in board["squares"])
    for fields in state["risk_fields"].values():
        seen.update(fields.values())
    unseen = sorted(cid for cid in content.city_ids() if cid not in seen)
    rng.shuffle(unseen)
    new["city_pile"] = unseen[: len(state["city_pile"])]
    pile = sorted(state["statement_pile"])  # which boards: public; their order: not
    rng.shuffle(pile)
    new["statement_pile"] = pile
    return new


def level_action(state: JSON, player: str, level: str, budget: Budget) -> JSON:
    from .engine import ENGINE

    rng = ai_rng(ENGINE, state, player, f"bigcityz {level}")
    seen = conceal(state, player, rng)
    if seen["phase"] == "veto":
        return easy_veto(seen, player, rng) if level == EASY else hard_veto(seen, player)
    return easy_place(seen, player, rng) if level == EASY else hard_place(seen, player, rng)


# -- easy ------------------------------------------------------------------------------------

def easy_place(state: JSON, player: str, rng: random.Random) -> JSON:
    normal = ai.choose_placement(state, player)
    if normal.get("type") == "replace" and rng.random() < 0.5:
        return normal
    slots = ai._beliefs(state, player)
    score = int(state["scores"][player])
    targets = ai._free_targets(state, state["replaced_slot"])
    if not targets:
        return normal if normal.get("type") != "replace" else {"type": "no_free_square"}
    ranked = sorted(((ai._value(t, slots, score), n) for n, t in enumerate(targets)),
                    key=lambda vn: (-vn[0], vn[1]))
    pick = sloppy_pick(ranked, rng, top=4, spread=1.0, blunder=0.1)
    return dict(targets[pick])


def easy_veto(state: JSON, player: str, rng: random.Random) -> JSON:
    q = ai.p_placement_wrong(state, player)
    if q > 0.99:
        return {"type": "veto" if rng.random() < 0.7 else "no_veto"}
    return {"type": "veto" if q > rng.uniform(0.45, 0.9) else "no_veto"}


# -- hard ------------------------------------------------------------------------------------

def _knowledge(state: JSON, player: str) -> float:
    level = state.get("ai_levels", {}).get(player, "normal")
    return ai.KNOWLEDGE.get(level, ai.KNOWLEDGE["normal"])


def _right(target: JSON, truth: dict[int, bool]) -> bool:
    if "risk" in target:
        a, b = risk_slots(target["risk"])
        return risk_right(target["color"], truth[a], truth[b])
    return square_right(target["color"], truth[target["slot"]])


def _would_object(state: JSON, target: JSON, beliefs: dict[int, float]) -> bool:
    """Normal's objection rule for ``objector`` with the beliefs it has in this world."""
    slots_involved = [target["slot"]] if "slot" in target else list(risk_slots(target["risk"]))
    p_right = 1.0
    for slot in slots_involved:
        p = beliefs[slot]
        wants_true = target["color"] == "green"
        p_right *= p if wants_true else 1 - p
    q = 1 - p_right
    wrong, right = q * (1 - ai.PLACER_KNOWS), 1 - q
    confidence = wrong / (wrong + right) if wrong + right > 0 else 0.0
    endgame = max(state["scores"].values()) >= ai.ENDGAME_SCORE or \
        len(state["city_pile"]) < 2 * len(state["players"])
    return confidence >= (ai.OBJECT_AT_ENDGAME if endgame else ai.OBJECT_AT)


def _sample_world(state: JSON, player: str, mine: dict[int, float],
                  draw: random.Random) -> tuple[dict[int, bool], dict[str, dict[int, float]]]:
    """The four statements' truth as this player believes, and each opponent's beliefs
    (a fact it knows is certain, the rest at the deck's base rate)."""
    truth = {slot: draw.random() < mine[slot] for slot in SLOTS}
    statements = {b["slot"]: b["statement"] for b in state["slots"]}
    others: dict[str, dict[int, float]] = {}
    for other in state["players"]:
        if other == player or state["vetoes"][other] == 0:
            continue
        k = _knowledge(state, other)
        others[other] = {
            slot: (1.0 if truth[slot] else 0.0) if draw.random() < k
            else content.share(statements[slot])
            for slot in SLOTS
        }
    return truth, others


def _outcome(state: JSON, player: str, target: JSON, truth: dict[int, bool],
             others: dict[str, dict[int, float]]) -> float:
    """Own points minus the average opponent's, in one world."""
    right = _right(target, truth)
    score = int(state["scores"][player])
    if "risk" in target:
        own = RISK_POINTS if right else -min(RISK_PENALTY, score)
    else:
        own = int(target["points"]) if right else 0
    theirs = 0.0
    for other, beliefs in others.items():
        if _would_object(state, target, beliefs):
            theirs += -min(VETO_POINTS, int(state["scores"][other])) if right else VETO_POINTS
    opponents = max(1, len(state["players"]) - 1)
    return own - theirs / opponents


def hard_place(state: JSON, player: str, rng: random.Random) -> JSON:
    normal = ai.choose_placement(state, player)
    if normal.get("type") in ("replace", "no_free_square"):
        return normal
    mine = ai._beliefs(state, player)
    targets = ai._free_targets(state, state["replaced_slot"])
    key = rng.getrandbits(64)
    worlds = [_sample_world(state, player, mine, peek(key, n)) for n in range(SAMPLES)]
    best: tuple[float, int] | None = None
    choice = normal
    for number, target in enumerate(targets):
        value = sum(_outcome(state, player, target, truth, others)
                    for truth, others in worlds) / SAMPLES
        if best is None or (value, -number) > best:
            best, choice = (value, -number), target
    return dict(choice)


def hard_veto(state: JSON, player: str) -> JSON:
    placement = state["placement"]
    q = ai.p_placement_wrong(state, player)
    if placement["kind"] == "no_free_square":
        wrong = q
    else:
        # Bayes: a placer who knew every fact involved would have been right, so the
        # placement is wrong only in worlds where it guessed.
        facts = 1 if placement["kind"] == "square" else 2
        guessed = (1 - _knowledge(state, placement["player"])) ** facts
        wrong = q * guessed / (q * guessed + (1 - q)) if q < 1 else 1.0
    score = int(state["scores"][player])
    gain = wrong * VETO_POINTS - (1 - wrong) * min(VETO_POINTS, score)
    # What a marker kept is worth: a sure objection later (about one placement in six is
    # wrong where we know better), fading as the game runs out.
    left = len(state["city_pile"]) / max(1, len(state["players"]))
    markers = int(state["vetoes"][player])
    endgame = max(state["scores"].values()) >= ai.ENDGAME_SCORE
    keep = 0.0 if endgame else min(1.0, left / (4 * markers)) * 2.4
    return {"type": "veto" if gain > keep else "no_veto"}

