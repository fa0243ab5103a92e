"""Big Cityz's easy and hard computer players (normal is ``ai.py``).

What a player may know: the table (``view``), its own knowledge of the city's facts (drawn
as normal's, per fact, so the three strategies know the same facts at the same knowledge
level) and the deck's base rates. Hidden: the city pile (which cards, in what order), the
statement pile's order, the city card's back, and what the others know. Both levels decide
from :func:`conceal`'s copy, in which the piles are redrawn.

Easy: places on one of its best few squares, weighed roughly, now and then on a hunch; it
never replaces a board unless normal would, and then only half the time; it objects on a
hunch (a lower, wavering confidence bar) and sometimes lets a sure objection go.

Hard: knows more cities than the table's computer knowledge (every fact normal would know,
and ``RECALL`` of the ones normal would not: 9 facts in 10 at normal knowledge), and
reasons better about what it still does not know: an unknown fact is judged from the facts
it knows by the deck's pairwise statistics (a city of a million usually has an
international airport), where normal takes the bare base rate. Its knowledge is a memory
like normal's: drawn once per (game, player, city, statement), whatever happens in the
game, so it is its own private information, never a look at a card it is not entitled to
(docs/computer-players.md, "Big Cityz: hard knows more"). It places by normal's rule on
those beliefs; once someone has 20 points it plays its best places, each replacement and "no free square" to the end of the
game in sampled worlds (``playout``) and keeps the one that wins most often: near the end
the margin no longer matters, only passing the leader. It objects when the placement is
wrong with a probability that beats the marker's worth, judged by Bayes: a placer who knew
the facts would not have placed wrongly.
"""

from __future__ import annotations

import copy
import math
import random
from functools import cache, lru_cache

from bot.core.engine import JSON
from bot.core.levels import EASY, Budget, ai_rng, sequential_halving, sloppy_pick
from bot.core.rng import peek

from . import ai, content, playout
from .board import (
    VETO_POINTS,
)
from .engine import ENGINE

TEMPER = 0.75  # naive Bayes' evidence, scaled down (measured: 0.5-1.0 about equal)
SEARCH_FROM = 20  # hard searches once someone has this many points: the last 2-3 rounds
CANDIDATES = 5  # places played out: the greedy one and the next best by expected points,
RISKS = 2  # the risk fields most likely right, and the surest square
PLAYOUTS = 256
# Of the facts the table's computer knowledge leaves unknown, the share a hard computer
# knows as well: 0.75 -> 0.9, 0.55 -> 0.82, 0.9 -> 0.96. With equal knowledge no strategy
# measured wins 65 % against normal (even an omniscient one wins 76 %), so in a trivia game
# "hard" also means knowing more, as a player would expect (docs/computer-players.md).
RECALL = 0.6
MARGIN = 0.02  # a point of final margin beside a win, to tell equal chances apart


def conceal(state: JSON, player: str, rng: random.Random) -> JSON:
    """``state`` with the piles redrawn: the city pile from every card not yet seen, the
    statement pile from the boards neither shown nor discarded."""
    new = copy.deepcopy(state)
    unseen = _unseen(state)
    rng.shuffle(unseen)
    new["city_pile"] = unseen[: len(state["city_pile"])]
    pile = sorted(state["statement_pile"])  # which boards: public; their order: not
    rng.shuffle(pile)
    new["statement_pile"] = pile
    return new


def level_action(state: JSON, player: str, level: str, budget: Budget) -> JSON:
    rng = ai_rng(ENGINE, state, player, f"bigcityz {level}")
    seen = conceal(state, player, rng)
    if seen["phase"] == "veto":
        return easy_veto(seen, player, rng) if level == EASY else hard_veto(seen, player)
    return easy_place(seen, player, rng) if level == EASY else hard_place(seen, player, rng, budget)


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

@lru_cache(maxsize=1)
def _pair_counts() -> tuple[tuple[tuple[tuple[int, ...], ...], ...], ...]:
    """For statements i and j, how many of the 200 cards have i false/true and j false/true:
    count[i][j][i true?][j true?]."""
    cards = list(playout.truths().values())
    n = len(playout.statements())
    return tuple(tuple(
        tuple(tuple(sum(1 for card in cards if card[i] == a and card[j] == b)
                    for b in (False, True)) for a in (False, True))
        for j in range(n)) for i in range(n))


@cache
def _pairs(without: str) -> tuple[tuple[tuple[float, float], ...], ...]:
    """For statements i and j, log P(j as it is | i true) / P(j as it is | i false), for j
    false and true: how much a known fact moves the odds of another (the deck's public
    statistics, with one imagined card of each kind so that no ratio is infinite). Counted
    without the city in play: its hidden back must not sway the judgement of its facts."""
    own = playout.truths()[without]
    counts = _pair_counts()
    table = []
    for i, row_counts in enumerate(counts):
        row = []
        for j, cell in enumerate(row_counts):
            count = [[1 + cell[a][b] - (own[i] == a and own[j] == b) for b in (0, 1)]
                     for a in (0, 1)]
            false, true = (math.log((count[1][v] / sum(count[1])) / (count[0][v] / sum(count[0])))
                           for v in (0, 1))
            row.append((false, true))
        table.append(tuple(row))
    return tuple(table)


def hard_chance(state: JSON, player: str) -> float:
    """How likely a hard computer knows a fact: the table's knowledge, and ``RECALL`` of
    the rest."""
    base = _knowledge(state, player)
    return base + (1 - base) * RECALL


def hard_knows(state: JSON, player: str, city_id: str, statement_id: str) -> bool:
    """Whether a hard computer knows this fact: whatever normal would know (``ai.knows``)
    and, of the rest, what it ``recalls``."""
    return (ai.knows(state, player, city_id, statement_id)
            or recalls(state, player, city_id, statement_id))


def recalls(state: JSON, player: str, city_id: str, statement_id: str) -> bool:
    """The hard computer's memory beyond normal's: ``RECALL`` of the facts, drawn once per
    game, player, city and statement (independently of ``ai.knows``' draw)."""
    return peek(state["seed"], "recalls", player, city_id, statement_id).random() < RECALL


def hard_beliefs(state: JSON, player: str) -> list[float]:
    """This player's belief in each of the city's twelve statements (``playout``'s order).

    A fact it knows (``hard_knows``) is certain. One it does not know is judged from the
    facts it does know, as someone who has seen the deck would: a city of a million has an
    airport, a high one is rarely on the coast. Naive Bayes over the deck's pairwise
    statistics, its evidence tempered (the facts are not independent, and plain naive Bayes
    is overconfident)."""
    city = state["current_city"]
    ids = playout.statements()
    real = playout.truths()[city]
    known = {n: real[n] for n, sid in enumerate(ids) if hard_knows(state, player, city, sid)}
    pairs = _pairs(city)
    beliefs = []
    for i, share in enumerate(playout.shares(without=city)):
        if i in known:
            beliefs.append(1.0 if known[i] else 0.0)
            continue
        odds = math.log(share / (1 - share))
        odds += TEMPER * sum(pairs[i][j][v] for j, v in known.items())
        beliefs.append(1 / (1 + math.exp(-odds)))
    return beliefs


def hard_place(state: JSON, player: str, rng: random.Random, budget: Budget) -> JSON:
    """Normal's rule on better beliefs; near the end, the move that wins most often."""
    table = playout.table_of(state)
    belief = hard_beliefs(state, player)
    me = state["players"].index(player)
    table.knowledge[me] = hard_chance(state, player)  # its own later turns, in play-outs
    replaced = state["replaced_slot"]
    if replaced is not None:
        greedy = playout.best_on_board(table, replaced - 1, belief)
    else:
        greedy = playout.normal_move(table, belief, table.scores[me])
    if max(table.scores) < SEARCH_FROM:
        return playout.action_of(table, greedy)
    return _search(state, player, rng, budget, table, belief, greedy)


def _search(state: JSON, player: str, rng: random.Random, budget: Budget,
            table: playout.Table, belief: list[float], greedy: playout.Move) -> JSON:
    """The greedy move, the other places worth most now, each replacement and "no free
    square" when allowed, each played to the end of the game in sampled worlds (the same
    worlds for every candidate); the one that wins most often."""
    me = state["players"].index(player)
    replaced = state["replaced_slot"]
    if replaced is not None:
        places = [("square", replaced - 1, i) for i in range(4)
                  if not table.taken[replaced - 1][i]]
    else:
        places = playout.free_moves(table)
    score = table.scores[me]
    by_value = sorted(places, key=lambda m: -playout.value(table, m, belief, score))
    # Near the end the best bet is not always the best expectation: a risk field can be the
    # only way to pass the leader, and the surest square the way to stay ahead.
    by_chance = sorted(places, key=lambda m: -playout.p_right(table, m, belief))
    risks = [m for m in by_chance if m[0] == "risk"][:RISKS]
    surest = [m for m in by_chance if m[0] == "square"][:1]
    moves: list[playout.Move] = []
    for move in [greedy, *by_value[: CANDIDATES - 1], *risks, *surest]:
        if move not in moves:
            moves.append(move)
    if replaced is None:
        slots = [s for s in range(4) if playout.replaceable(table, s)]
        moves += [("replace", s, -1) for s in slots if ("replace", s, -1) != greedy]
        if not slots and greedy[0] != "none":
            moves.append(("none", -1, -1))
    city = state["current_city"]
    ids = playout.statements()
    known = [hard_knows(state, player, city, sid) for sid in ids]
    shares = playout.shares(without=city)
    unseen = _unseen(state)
    key = rng.getrandbits(64)
    worlds: dict[int, tuple[playout.World, list[int]]] = {}

    def world(sample: int) -> tuple[playout.World, list[int]]:
        if sample not in worlds:
            draw = peek(key, sample)
            cities = list(unseen)
            draw.shuffle(cities)
            truth = tuple(draw.random() < p for p in belief)
            first = [known if seat == me else [draw.random() < table.knowledge[seat] for _ in ids]
                     for seat in range(len(table.scores))]
            statements = sorted(table.statement_pile)
            draw.shuffle(statements)
            worlds[sample] = (playout.World(cities[: table.pile_left], truth, table.knowledge,
                                            f"{key}:{sample}", first, shares), statements)
        return worlds[sample]

    def play(move: playout.Move, sample: int) -> float:
        w, statements = world(sample)
        t = table.copy()
        t.statement_pile = list(statements)
        draw = peek(key, sample, "play")
        beliefs = [w.beliefs(0, seat) for seat in range(len(t.scores))]
        if move[0] == "replace":
            playout.replace(t, move[1], draw)
            move = playout.best_on_board(t, move[1], belief)
        playout.resolve(t, me, move, w.cities[0], beliefs)
        playout.finish(t, w, 1, draw, len(w.cities))
        return _result(t, me)

    return playout.action_of(table, sequential_halving(moves, play, budget, PLAYOUTS))


def _unseen(state: JSON) -> list[str]:
    """The cards not seen yet (the city pile and the box), in a fixed order."""
    seen = {state["current_city"], *state["beside_board"], *state["removed"]}
    for board in state["slots"]:
        seen.update(sq["city"] for sq in board["squares"])
    for fields in state["risk_fields"].values():
        seen.update(fields.values())
    return sorted(cid for cid in content.city_ids() if cid not in seen)


def _result(t: playout.Table, me: int) -> float:
    """A win (a shared one: its share) and, to tell equal chances apart, a little margin."""
    best_other = max(s for seat, s in enumerate(t.scores) if seat != me)
    mine = t.scores[me]
    win = 1.0 if mine > best_other else 0.0
    if mine == best_other:
        win = 1.0 / sum(1 for s in t.scores if s == mine)
    return win + MARGIN * (mine - best_other)


def hard_veto(state: JSON, player: str) -> JSON:
    """Object when the placement is likely enough wrong. The placement itself is evidence:
    a placer who knew every fact involved would have been right, so it is wrong only in the
    worlds where it guessed (Bayes). A marker kept is worth a sure objection later."""
    table = playout.table_of(state)
    table.pile_left = len(state["city_pile"])
    placement = state["placement"]
    belief = hard_beliefs(state, player)
    if placement["kind"] == "no_free_square":
        free = [playout.move_of(table, t) for t in placement["free"]]
        wrong = 1 - playout.p_no_free_square_given(table, belief, free)
    else:
        move = playout.move_of(table, {"type": "place", **{
            k: placement[k] for k in ("slot", "risk", "color", "points") if k in placement}})
        q = 1 - playout.p_right(table, move, belief)
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


def _knowledge(state: JSON, player: str) -> float:
    level = state.get("ai_levels", {}).get(player, "normal")
    return ai.KNOWLEDGE.get(level, ai.KNOWLEDGE["normal"])
