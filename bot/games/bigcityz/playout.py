"""A fast copy of Big Cityz for hard's play-outs: the rules on small lists, normal's
choices on sampled knowledge.

Hard looks ahead by playing the game to its end many times from what it sees (the board,
the scores, the markers left) and a sample of what it does not: the order of the city and
statement piles (from the cards not yet seen), the unknown facts of the city it holds (from
the deck's base rates), and what every player knows of every city (drawn at each player's
knowledge level). Every player in a play-out, hard included, then plays as normal does
(``ai.choose_placement`` and ``ai.choose_veto``), on the beliefs its sampled knowledge
gives. The engine's own ``apply`` copies the whole state on every move; a play-out of a
dozen turns here costs about a millisecond, so a few hundred fit in a move's budget.

Statements are numbered by ``content.statement_ids()``; slots 0-3 are boards 1-4 and risk
field ``r`` lies between slots ``r`` and ``(r + 1) % 4`` (``RISK_FIELDS``' order).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache, lru_cache

from bot.core.engine import JSON

from . import ai, content
from .board import (
    RISK_FIELDS,
    RISK_PENALTY,
    RISK_POINTS,
    VETO_POINTS,
    WINNING_SCORE,
    point_squares,
)

GREEN, RED = 0, 1
COLOUR = ("green", "red")
RISK_PAIRS = tuple((int(a) - 1, int(b) - 1) for a, b in (r.split("-") for r in RISK_FIELDS))
# The risk fields touching slot s: the one it opens (s) and the one it closes (s - 1).
ADJACENT = tuple((s, (s - 1) % 4) for s in range(4))


@lru_cache(maxsize=1)
def statements() -> tuple[str, ...]:
    return tuple(content.statement_ids())


@cache
def shares(without: str | None = None) -> tuple[float, ...]:
    """Each statement's share of true cards in the deck, ``without`` the city in play (see
    ``content.share``)."""
    return tuple(content.share(sid, without=without) for sid in statements())


@lru_cache(maxsize=1)
def squares() -> tuple[tuple[tuple[int, int], ...], ...]:
    """Each statement's four point squares as (colour, points), the engine's order."""
    return tuple(tuple((COLOUR.index(c), p) for c, p in point_squares(sid))
                 for sid in statements())


@lru_cache(maxsize=1)
def truths() -> dict[str, tuple[bool, ...]]:
    """Every card's twelve facts (public deck data: the cards in the box are known, which
    one is where is not)."""
    return {cid: tuple(content.truth(cid, sid) for sid in statements())
            for cid in content.city_ids()}


# A move in a play-out: ("square", slot, square index), ("risk", risk, colour),
# ("replace", slot, -1): replace and then place on the new board as normal would,
# ("none", -1, -1): "There's no free square".
Move = tuple[str, int, int]


@dataclass
class Table:
    """The public board and scores, as small lists (seat numbers for players)."""

    slot_stmt: list[int]
    taken: list[list[bool]]  # slot -> its four squares
    risk_taken: list[list[bool]]  # risk -> (green, red)
    scores: list[int]
    vetoes: list[int]
    knowledge: list[float]  # chance a seat knows a fact
    turn: int
    first: int
    end_triggered: bool
    pile_left: int  # cities still in the pile (the one in hand not counted)
    statement_pile: list[int]
    discard: list[int]

    def copy(self) -> Table:
        return Table(list(self.slot_stmt), [list(t) for t in self.taken],
                     [list(r) for r in self.risk_taken], list(self.scores), list(self.vetoes),
                     self.knowledge, self.turn, self.first, self.end_triggered,
                     self.pile_left, list(self.statement_pile), list(self.discard))


def table_of(state: JSON) -> Table:
    index = {sid: n for n, sid in enumerate(statements())}
    players = state["players"]
    return Table(
        slot_stmt=[index[b["statement"]] for b in state["slots"]],
        taken=[[sq["city"] is not None for sq in b["squares"]] for b in state["slots"]],
        risk_taken=[[state["risk_fields"][r][c] is not None for c in COLOUR] for r in RISK_FIELDS],
        scores=[int(state["scores"][p]) for p in players],
        vetoes=[int(state["vetoes"][p]) for p in players],
        knowledge=[ai.KNOWLEDGE.get(state.get("ai_levels", {}).get(p, "normal"),
                                    ai.KNOWLEDGE["normal"]) for p in players],
        turn=state["turn_seat"],
        first=state["first_seat"],
        end_triggered=bool(state["end_triggered"]),
        pile_left=len(state["city_pile"]),
        statement_pile=[index[s] for s in state["statement_pile"]],
        discard=[index[s] for s in state["statement_discard"]],
    )


# -- the rules ---------------------------------------------------------------------------------

def replaceable(t: Table, slot: int) -> bool:
    on_board = sum(t.taken[slot])
    if on_board >= 3:
        return True
    if on_board < 2:
        return False
    return sum(t.risk_taken[r][0] + t.risk_taken[r][1] for r in ADJACENT[slot]) >= 2


def replace(t: Table, slot: int, rng: random.Random) -> None:
    t.discard.append(t.slot_stmt[slot])
    t.slot_stmt[slot] = t.statement_pile.pop(0)
    t.taken[slot] = [False, False, False, False]
    for r in ADJACENT[slot]:
        t.risk_taken[r] = [False, False]
    if not t.statement_pile:
        pile = list(t.discard)
        rng.shuffle(pile)
        t.statement_pile, t.discard = pile, []


def right(t: Table, move: Move, truth: tuple[bool, ...], free: list[Move]) -> bool:
    kind, a, b = move
    if kind == "square":
        colour = squares()[t.slot_stmt[a]][b][0]
        return truth[t.slot_stmt[a]] == (colour == GREEN)
    if kind == "risk":
        x, y = RISK_PAIRS[a]
        want = b == GREEN
        return truth[t.slot_stmt[x]] == want and truth[t.slot_stmt[y]] == want
    return not any(right(t, m, truth, []) for m in free)


def free_moves(t: Table) -> list[Move]:
    moves: list[Move] = [("square", s, i) for s in range(4) for i in range(4) if not t.taken[s][i]]
    moves += [("risk", r, c) for r in range(4) for c in (GREEN, RED) if not t.risk_taken[r][c]]
    return moves


def occupy(t: Table, move: Move) -> None:
    kind, a, b = move
    if kind == "square":
        t.taken[a][b] = True
    elif kind == "risk":
        t.risk_taken[a][b] = True


# -- normal's choices on given beliefs ---------------------------------------------------------

def p_right(t: Table, move: Move, belief: list[float]) -> float:
    kind, a, b = move
    if kind == "square":
        p = belief[t.slot_stmt[a]]
        return p if squares()[t.slot_stmt[a]][b][0] == GREEN else 1 - p
    x, y = RISK_PAIRS[a]
    p, q = belief[t.slot_stmt[x]], belief[t.slot_stmt[y]]
    return p * q if b == GREEN else (1 - p) * (1 - q)


def value(t: Table, move: Move, belief: list[float], score: int) -> float:
    p = p_right(t, move, belief)
    if move[0] == "square":
        return p * squares()[t.slot_stmt[move[1]]][move[2]][1]
    return p * RISK_POINTS - (1 - p) * min(RISK_PENALTY, score)


def p_no_free_square(t: Table, belief: list[float]) -> float:
    """``ai.p_no_free_square`` on the table: none of the free places right."""
    return p_no_free_square_given(t, belief, free_moves(t))


def fresh_board_value(t: Table, belief: list[float]) -> float:
    """``ai._new_board_value``: the best square of an average board from the pile."""
    shown = set(t.slot_stmt) | set(t.discard)
    pile = [s for s in range(len(statements())) if s not in shown]
    if not pile:
        return 0.0
    total = 0.0
    for s in pile:
        p = belief[s]
        total += max((p if c == GREEN else 1 - p) * pts for c, pts in squares()[s])
    return total / len(pile)


def normal_move(t: Table, belief: list[float], score: int,
                margin: float = ai.REPLACE_MARGIN) -> Move:
    """``ai.choose_placement`` (ties to the first place rather than a coin)."""
    best: Move | None = None
    best_value = float("-inf")
    for move in free_moves(t):
        v = value(t, move, belief, score)
        if v > best_value:
            best, best_value = move, v
    slots = [s for s in range(4) if replaceable(t, s)]
    if slots:
        if fresh_board_value(t, belief) > best_value + margin:
            def worth(slot: int) -> float:
                return max((value(t, ("square", slot, i), belief, score)
                            for i in range(4) if not t.taken[slot][i]), default=0.0)
            return ("replace", min(slots, key=worth), -1)
    else:
        p = p_no_free_square(t, belief)
        v = p * RISK_POINTS - (1 - p) * min(RISK_PENALTY, score)
        if v > best_value:
            return ("none", -1, -1)
    assert best is not None
    return best


def best_on_board(t: Table, slot: int, belief: list[float]) -> Move:
    """After replacing: the new board's square worth most."""
    return max((("square", slot, i) for i in range(4)),
               key=lambda m: (p_right(t, m, belief) * squares()[t.slot_stmt[slot]][m[2]][1],
                              -m[2]))


def objects(t: Table, move: Move, belief: list[float], free: list[Move]) -> bool:
    """``ai.choose_veto`` for an objector with these beliefs."""
    if move[0] == "none":
        q = 1 - p_no_free_square_given(t, belief, free)
    else:
        q = 1 - p_right(t, move, belief)
    wrong, fine = q * (1 - ai.PLACER_KNOWS), 1 - q
    confidence = wrong / (wrong + fine) if wrong + fine > 0 else 0.0
    endgame = max(t.scores) >= ai.ENDGAME_SCORE or t.pile_left < 2 * len(t.scores)
    return confidence >= (ai.OBJECT_AT_ENDGAME if endgame else ai.OBJECT_AT)


def p_no_free_square_given(t: Table, belief: list[float], free: list[Move]) -> float:
    """By the 16 ways the four boards can come out. A board with a free square of each
    colour is always right somewhere, which is the usual case."""
    colours: list[set[int]] = [set() for _ in range(4)]
    for kind, a, b in free:
        if kind == "square":
            colours[a].add(squares()[t.slot_stmt[a]][b][0])
    if any(len(c) == 2 for c in colours):
        return 0.0
    total = 0.0
    for mask in range(16):
        truth = [bool(mask >> s & 1) for s in range(4)]
        weight = 1.0
        for s in range(4):
            p = belief[t.slot_stmt[s]]
            weight *= p if truth[s] else 1 - p
        if weight == 0:
            continue
        full = [False] * len(statements())
        for s in range(4):
            full[t.slot_stmt[s]] = truth[s]
        if not any(right(t, m, tuple(full), []) for m in free):
            total += weight
    return total


# -- one turn and the rest of the game ---------------------------------------------------------

class World:
    """One sample of everything hidden: the cities to come, their facts (the cards'), the
    facts of the city in hand that its holder does not know, and who knows what."""

    def __init__(self, cities: list[str], first_truth: tuple[bool, ...],
                 knowledge: list[float], key: str, known_first: list[list[bool]],
                 shares: tuple[float, ...]):
        self.cities = [first_truth] + [truths()[c] for c in cities]
        # The deck's statistics as the searching player reckons them: without the city in
        # play, whose back it has not seen.
        self.shares = shares
        self.knowledge = knowledge
        self.key = key
        # known[turn][seat][statement], drawn when first needed from a generator of its
        # own per turn, so every candidate move meets the same knowledge in the same world
        # (a fairer comparison) whatever it asked before.
        self.known: dict[int, list[list[bool]]] = {0: known_first}

    def beliefs(self, turn: int, seat: int) -> list[float]:
        known = self.known.get(turn)
        if known is None:
            draw = random.Random(f"{self.key}:{turn}")
            n = len(statements())
            known = [[draw.random() < k for _ in range(n)] for k in self.knowledge]
            self.known[turn] = known
        truth, mine = self.cities[turn], known[seat]
        sh = self.shares
        return [(1.0 if truth[s] else 0.0) if mine[s] else sh[s] for s in range(len(sh))]


def resolve(t: Table, seat: int, move: Move, truth: tuple[bool, ...],
            beliefs: list[list[float]], objecting: list[bool] | None = None) -> None:
    """Place (the move is already legal here), let the others object, score, next turn."""
    free = free_moves(t) if move[0] == "none" else []
    occupy(t, move)
    ok = right(t, move, truth, free)
    seats = len(t.scores)
    change = [0] * seats
    if move[0] == "square":
        change[seat] = squares()[t.slot_stmt[move[1]]][move[2]][1] if ok else 0
    else:
        change[seat] = RISK_POINTS if ok else -RISK_PENALTY
    for other in range(seats):
        if other == seat or t.vetoes[other] == 0:
            continue
        if objecting is not None and objecting[other]:
            veto = True
        else:
            veto = objects(t, move, beliefs[other], free)
        if veto:
            t.vetoes[other] -= 1
            change[other] = -VETO_POINTS if ok else VETO_POINTS
    for s in range(seats):
        t.scores[s] = max(0, t.scores[s] + change[s])
    if any(score >= WINNING_SCORE for score in t.scores):
        t.end_triggered = True
    t.turn = (t.turn + 1) % seats


def over(t: Table) -> bool:
    return t.turn == t.first and (t.end_triggered or t.pile_left < len(t.scores))


def play_turn(t: Table, world: World, index: int, rng: random.Random) -> None:
    """The seat on turn plays city ``index`` of the world as normal would."""
    seat = t.turn
    seats = len(t.scores)
    beliefs = [world.beliefs(index, s) for s in range(seats)]
    move = normal_move(t, beliefs[seat], t.scores[seat])
    if move[0] == "replace":
        replace(t, move[1], rng)
        move = best_on_board(t, move[1], beliefs[seat])
    resolve(t, seat, move, world.cities[index], beliefs)


def finish(t: Table, world: World, start: int, rng: random.Random, depth: int) -> None:
    """Play on from city ``start`` of the world: to the end, or ``depth`` turns."""
    index = start
    while not over(t) and index < len(world.cities) and index - start < depth:
        t.pile_left -= 1
        play_turn(t, world, index, rng)
        index += 1


def action_of(t: Table, move: Move) -> JSON:
    """The engine's action for a play-out move."""
    kind, a, b = move
    if kind == "square":
        colour, points = squares()[t.slot_stmt[a]][b]
        return {"type": "place", "slot": a + 1, "color": COLOUR[colour], "points": points}
    if kind == "risk":
        return {"type": "place", "risk": RISK_FIELDS[a], "color": COLOUR[b]}
    if kind == "replace":
        return {"type": "replace", "slot": a + 1}
    return {"type": "no_free_square"}


def move_of(t: Table, action: JSON) -> Move:
    """The play-out move for an engine action (the inverse of ``action_of``)."""
    kind = action.get("type")
    if kind == "replace":
        return ("replace", int(action["slot"]) - 1, -1)
    if kind == "no_free_square":
        return ("none", -1, -1)
    colour = COLOUR.index(action["color"])
    if "risk" in action:
        return ("risk", RISK_FIELDS.index(action["risk"]), colour)
    slot = int(action["slot"]) - 1
    return ("square", slot, squares()[t.slot_stmt[slot]].index((colour, int(action["points"]))))
