"""Cities' easy and hard computer players (normal is ``ai.py``).

Cities has no hands: the secrets are the decks' and the bag's order and the face-down items
(on the board, or removed unseen at the end of a three-player round). Both levels decide
from :func:`conceal`'s copy, in which every deck's unseen items (its draw pile, its
face-down items on the board and among the removed) are shuffled back into those places,
and the bag is shuffled.

Easy: takes one of the few spaces normal rates best, weighed roughly; places most things
where normal would, but now and then anywhere it may (a slip), and keeps no eye on the
star space's timing.

Hard: normal's judgement, looking ahead: for each of the spaces worth considering it plays
the take and the placements that follow, then the others' turns, its own next turn and the
others' again, everyone as normal would, on several concealed samples. It keeps the take
that leaves its neighbourhood worth most against the best of the others' (normal's own
valuation of each board, averaged over the samples): a space the next player needs is
worth taking, and one that only looks good now is not.
"""

from __future__ import annotations

import random

from bot.core.engine import JSON
from bot.core.levels import EASY, Budget, ai_rng, sequential_halving, sloppy_pick
from bot.core.rng import peek

from . import ai
from .content import CONTENT
from .engine import _HANDLERS, ENGINE
from .state import ROWS, copy_json, ring_points, workers_left

DECK_OF_ROW = {"cards": "scoring_cards", "tiles": "city_tiles", "features": "feature_tiles"}
TAKE_CANDIDATES = 8
TAKE_PLAYOUTS = 40
# Own further turns played out (normal's), each after the others'; 0: its own turn only,
# valued alone. Measured, 2 players (seed 5000, 60 games): 0: 65 %, 1: 83 %, 2: 90 %.
HORIZON = 2


def _deck_of(item: str) -> str:
    if item in CONTENT.cards:
        return "scoring_cards"
    if item in CONTENT.features:
        return "feature_tiles"
    return "city_tiles"


def conceal(state: JSON, player: str, rng: random.Random) -> JSON:
    """``state`` with every unseen item redrawn among the places nobody can see."""
    new: JSON = copy_json(state)
    pools: dict[str, list[str]] = {deck: list(new["decks"][deck]) for deck in DECK_OF_ROW.values()}
    face_down_board: list[tuple[str, int, int]] = []  # (row, slot index, item index)
    for row, deck in DECK_OF_ROW.items():
        for s, slot in enumerate(new["rows"].get(row, [])):
            for i, hidden in enumerate(slot["hidden"]):
                if hidden:
                    pools[deck].append(slot["items"][i])
                    face_down_board.append((row, s, i))
    removed = new["removed"]["face_down"]
    for item in removed:
        pools[_deck_of(item)].append(item)
    for deck in pools:
        pools[deck].sort()  # which items: public (all minus the seen); where: not
        rng.shuffle(pools[deck])
    for deck in DECK_OF_ROW.values():
        size = len(new["decks"][deck])
        new["decks"][deck] = [pools[deck].pop() for _ in range(size)]
    for row, s, i in face_down_board:
        new["rows"][row][s]["items"][i] = pools[DECK_OF_ROW[row]].pop()
    new["removed"]["face_down"] = [pools[_deck_of(item)].pop() for item in removed]
    bag = sorted(new["bag"])
    rng.shuffle(bag)
    new["bag"] = bag
    return new


def level_action(state: JSON, player: str, level: str, budget: Budget) -> JSON:
    engine = ENGINE
    rng = ai_rng(engine, state, player, f"cities {level}")
    seen = conceal(state, player, rng)
    if level == EASY:
        return easy(seen, player, rng)
    return hard(seen, player, rng, budget)


def _takes(state: JSON, player: str) -> list[tuple[float, JSON]]:
    """Every space it may take, valued as normal ranks rows (lead over the runner-up plus
    most of the best's worth), best first."""
    mind = ai.Mind(state, player)
    ranked: list[tuple[float, JSON]] = []
    for row in ROWS:
        if workers_left(state, player, row) <= 0:
            continue
        worths = sorted(mind.slot_worths(row), key=lambda w: (-w[0], w[1]))
        for n, (worth, slot) in enumerate(worths):
            runner_up = worths[1][0] if n == 0 and len(worths) > 1 else worths[0][0]
            lead = worth - runner_up if n == 0 else worth - worths[0][0]
            ranked.append((ai.LEAD_WEIGHT * lead + ai.BEST_WEIGHT * worth,
                           {"type": "take", "row": row, "slot": slot}))
    ranked.sort(key=lambda r: -r[0])
    return ranked


def easy(state: JSON, player: str, rng: random.Random) -> JSON:
    engine = ENGINE
    if state["phase"] == "start_tiles" or state["pending"] is not None:
        if rng.random() < 0.35:
            moves = [m.action for m in engine.legal(state, player)]
            places = [m for m in moves if not m["type"].startswith("discard")]
            return dict(rng.choice(places or moves))
        return ai.choose_action(engine, state, player)
    ranked = _takes(state, player)
    pick: JSON = sloppy_pick(ranked, rng, top=4, spread=2.5, blunder=0.2)
    return pick


def _step(state: JSON, player: str, action: JSON) -> JSON:
    """``engine.apply`` of a move due now, made on ``state`` itself: the copy ``apply``
    makes is a good part of a play-out's cost, and a play-out's state is its own."""
    _HANDLERS[action["type"]](ENGINE, state, player, action, [])
    return state


def _finish_turn(state: JSON, player: str, *, owned: bool = False) -> JSON:
    """Play normal's placements after a take until the turn is over (on ``state`` itself
    when ``owned``: nobody else holds it)."""
    engine = ENGINE
    if not owned:
        state = copy_json(state)
    while state.get("pending") is not None and player in engine.to_act(state) \
            and engine.result(state) is None:
        state = _step(state, player, ai.choose_action(engine, state, player))
    return state


def hard(state: JSON, player: str, rng: random.Random, budget: Budget) -> JSON:
    engine = ENGINE
    if state["phase"] == "start_tiles" or state["pending"] is not None:
        return ai.choose_action(engine, state, player)
    ranked = _takes(state, player)
    candidates = [move for _, move in ranked[:TAKE_CANDIDATES]]
    key = rng.getrandbits(64)
    # The worth of the neighbourhood it ends with, by normal's own valuation (score now
    # plus the fading hopes), minus the best other neighbourhood's.
    samples: dict[int, JSON] = {}

    def playout(move: JSON, sample: int) -> float:
        world = samples.get(sample)
        if world is None:
            world = samples[sample] = conceal(state, player, peek(key, sample))
        after, _ = engine.apply(world, player, move)
        after = _finish_turn(after, player, owned=True)
        if HORIZON == 0:
            return _worth(after, player)
        after = _play_on(after, player, HORIZON - 1, owned=True)
        return _margin(after, player)

    with ai.memo():
        chosen: JSON = sequential_halving(candidates, playout, budget, TAKE_PLAYOUTS)
    return chosen


def _play_on(state: JSON, player: str, turns: int, *, owned: bool = False) -> JSON:
    """Play on as normal would (or to the end of the game): the others' turns until
    ``player``'s; then, ``turns`` times, its own turn and the others' after it (on
    ``state`` itself when ``owned``)."""
    engine = ENGINE
    if not owned:
        state = copy_json(state)
    mine = 0
    while engine.result(state) is None:
        acting = engine.to_act(state)
        if not acting:
            break
        who = acting[0]
        if who == player and state.get("pending") is None:
            if mine == turns:
                break
            mine += 1
        state = _step(state, who, ai.choose_action(engine, state, who))
    return state


def _margin(state: JSON, player: str) -> float:
    """Its neighbourhood's worth less the best other's."""
    others = [_worth(state, p) for p in state["players"] if p != player]
    return _worth(state, player) - max(others)


def _worth(state: JSON, player: str) -> float:
    """Achievement points won plus every term of normal's valuation, each once."""
    rings = sum(v for _, v in ring_points(state, player))
    return rings + ai.Mind(state, player).worth()
