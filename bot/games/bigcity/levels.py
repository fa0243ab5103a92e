"""Big City's easy and hard computer players (normal is ``ai.py``).

Secrets: the other players' hands and the stacks' order. Both levels decide from
:func:`conceal`'s copy, in which each stack's unseen cards (its pile and the others' cards
drawn from it: draws are made from a named stack in full view, so which stack a card came
from is known) are shuffled back into those places.

Easy: takes one of normal's best few moves, weighed roughly, and now and then any of them
(it forgets to build, passes, or lays a streetcar where it earns little); it draws from a
stack at random one time in three.

Hard: normal's best few main-step options, plus its best streetcar and its best park or
factory when those are not among them (normal values them low, so they would otherwise never
be looked at). Each is played out on concealed samples (the same samples for every
candidate): the move and the rest of the turn by normal, then every other player's turn by
normal, then (``HORIZON`` 2) its own next turn by normal, so a streetcar laid now is worth
the doubled building it allows next turn, and a move that hands the next player points is
worth less. Value = its points gained minus the most any other player gained, plus 0.3 ×
what its hand may still build. Sequential halving over the play-outs.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from bot.core.engine import JSON
from bot.core.levels import EASY, Budget, ai_rng, sequential_halving, sloppy_pick
from bot.core.rng import peek
from bot.games.bigcity import ai
from bot.games.bigcity.city import City
from bot.games.bigcity.content import Card, stack_of
from bot.games.bigcity.engine import ENGINE, drawable
from bot.games.bigcity.legality import useless_cards

CANDIDATES = 6
PLAYOUTS = 24
HORIZON = 2  # 0: own turn only; 1: and the others' turns; 2: and its own next turn


def conceal(state: JSON, player: str, rng: random.Random) -> JSON:
    """``state`` with the others' hands and the stacks redrawn, stack by stack."""
    new: JSON = json.loads(json.dumps(state))
    places: dict[str, list[tuple[str, int]]] = {}  # stack -> (holder, index)
    pools: dict[str, list[Card]] = {}
    for number, pile in new["stacks"].items():
        pools.setdefault(number, []).extend(pile)
        places.setdefault(number, []).extend(("stack", i) for i in range(len(pile)))
    for other, hand in new["hands"].items():
        if other == player:
            continue
        for i, card in enumerate(hand):
            number = str(stack_of(card))
            pools.setdefault(number, []).append(card)
            places.setdefault(number, []).append((other, i))
    for number, pool in pools.items():
        pool.sort(key=str)
        rng.shuffle(pool)
        for (holder, i), card in zip(places[number], pool, strict=True):
            if holder == "stack":
                new["stacks"][number][i] = card
            else:
                new["hands"][holder][i] = card
    return new


def main_options(state: JSON, player: str, rng: random.Random) -> list[tuple[float, JSON]]:
    """Normal's options in its main step, valued as normal values them, best first."""
    city = City(state)
    hand: list[Card] = state["hands"][player]
    options: list[tuple[float, JSON]] = [(0.0, {"type": "pass"})]
    options += ai._builds(city, hand, rng)
    options += ai._specials(city, hand, rng)
    options += ai._streetcars(state, city, hand, rng)
    if city.has_city_hall():
        wanted = sorted({stack_of(c) for c in hand if isinstance(c, int) and not city.in_city(c)})
        unplaced = [n for n in range(1, 9) if n not in city.placed]
        if not wanted and unplaced and len(city.free_properties()) < 4:
            wanted = unplaced[:1]
        options += ai._placements(state, player, city, wanted, rng, setup=False)
    options += ai._exchange(state, city, hand)
    options.sort(key=lambda o: -o[0])
    return options


def _main_step(state: JSON, player: str) -> bool:
    if state["phase"] != "play" or state["step"] not in ("start", "main"):
        return False
    # Normal first discards useless cards when the rules leave it the choice.
    return not (state["step"] == "start" and not state["options"]["must_exchange_useless"]
                and useless_cards(City(state), state["hands"][player]))


def level_action(state: JSON, player: str, level: str, budget: Budget) -> JSON:
    rng = ai_rng(ENGINE, state, player, f"bigcity {level}")
    seen = conceal(state, player, rng)
    if level == EASY:
        return easy(seen, player, rng)
    return hard(seen, player, rng, budget)


def easy(state: JSON, player: str, rng: random.Random) -> JSON:
    if state["phase"] == "play" and state["step"] == "draw" and rng.random() < 1 / 3:
        return {"type": "draw", "stacks": [rng.choice(sorted(drawable(state)))]}
    if not _main_step(state, player):
        return ai.choose(state, player)
    options = main_options(state, player, rng)
    pick: JSON = sloppy_pick(options, rng, top=4, spread=2.0, blunder=0.1)
    return pick


def _hand_hope(state: JSON, player: str) -> float:
    """What the cards in hand may still build, by normal's values of its options now."""
    city = City(state)
    hand: list[Card] = state["hands"][player]
    hope = sum(max(0.0, v) for v, _ in ai._builds(city, hand, random.Random(0)))
    return 0.3 * hope


def candidates(options: list[tuple[float, JSON]]) -> list[JSON]:
    """Normal's best options, then its best streetcar and park or factory if left out."""
    chosen = [move for _, move in options[:CANDIDATES]]
    for kind in ("streetcar", "special"):
        best = next((move for _, move in options if move["type"] == kind), None)
        if best is not None and best not in chosen:
            chosen.append(best)
    return chosen


def hard(state: JSON, player: str, rng: random.Random, budget: Budget,
         horizon: int = HORIZON) -> JSON:
    if not _main_step(state, player):
        return ai.choose(state, player)
    moves = candidates(main_options(state, player, rng))
    key = rng.getrandbits(64)
    worlds: dict[int, JSON] = {}
    start = dict(state["scores"])
    others = [p for p in state["players"] if p != player]
    mover = state["current"]

    def play_while(after: JSON, going_on: Callable[[JSON], bool], most: int) -> JSON:
        # ``most`` only guards against a loop; a turn or a round never needs that many moves.
        for _ in range(most):
            if ENGINE.result(after) is not None or not going_on(after):
                break
            actor = ENGINE.to_act(after)[0]
            after, _ = ENGINE.apply(after, actor, ai.choose(after, actor))
        return after

    def own_turn(s: JSON) -> bool:
        return player in ENGINE.to_act(s) and s["current"] == mover

    def playout(move: JSON, sample: int) -> float:
        world = worlds.get(sample)
        if world is None:
            world = worlds[sample] = conceal(state, player, peek(key, sample))
        after, _ = ENGINE.apply(world, player, move)
        after = play_while(after, own_turn, 12)
        if horizon >= 1:
            after = play_while(after, lambda s: s["current"] != mover, 60)
        if horizon >= 2:
            after = play_while(after, lambda s: s["current"] == mover, 20)
        own = after["scores"][player] - start[player] + _hand_hope(after, player)
        return own - max(after["scores"][p] - start[p] for p in others)

    chosen: JSON = sequential_halving(moves, playout, budget, PLAYOUTS)
    return chosen
