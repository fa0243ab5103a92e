#!/usr/bin/env python3
"""How far can strategy take a Big Cityz computer player? A ceiling experiment (issue 12).

Plays the arena (seat-rotated, hard against normal) with the hard seat given more than it
may know in the real game, to see whether hard's targets (65 % against one normal, 40 %
against three) are reachable at all:

- ``omniscient``: hard's strategy (its placements, end-game search and objections) with every
  fact of every city known to it: the city in hand, each placement it judges for an
  objection, and its own turns in its play-outs. The best any knowledge can do.
- ``inference``: hard knows only its own allotted facts (normal's per-fact draw, 0.75) but
  infers the others as well as the deck allows: the exact share, among the *other* 199
  cards, of those that agree with what it knows (each disagreement weighs ``EPSILON``, so a
  combination no other card has still gives an answer). The best any reasoning from the
  facts it knows can do without knowing more; hard's own naive Bayes is an approximation
  of it.
- ``strategy``: the shipped hard knowing only what normal knows (``levels.RECALL`` 0):
  what its strategy alone is worth, the hard of before it knew more.
- ``knowledge``: normal's strategy knowing what the shipped hard knows: what the knowledge
  alone is worth.
- ``hard``: the shipped hard, unchanged, for comparison in the same run.

Nothing here ships: the script patches the hard player's beliefs in this process only.

    .venv/bin/python scripts/bigcityz_ceiling.py omniscient --players 2 --games 400 --seed 1000
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from bot.core.engine import JSON
from bot.core.levels import Budget
from bot.games.bigcityz import GAME, ai, levels, playout
from bot.tools import arena

EPSILON = 0.05  # weight of another card per fact on which it disagrees with what is known
MODES = ("omniscient", "inference", "strategy", "knowledge", "hard")


def truth_beliefs(state: JSON, player: str) -> list[float]:
    real = playout.truths()[state["current_city"]]
    return [1.0 if fact else 0.0 for fact in real]


@lru_cache(maxsize=1)
def _cards() -> dict[str, tuple[bool, ...]]:
    return playout.truths()


def inferred_beliefs(state: JSON, player: str) -> list[float]:
    """Known facts certain; each unknown one by the other cards agreeing with the known."""
    city = state["current_city"]
    ids = playout.statements()
    real = _cards()[city]
    known = [n for n, sid in enumerate(ids) if ai.knows(state, player, city, sid)]
    weights: list[tuple[float, tuple[bool, ...]]] = []
    for cid, facts in _cards().items():
        if cid == city:
            continue
        misses = sum(facts[n] != real[n] for n in known)
        weights.append((EPSILON ** misses, facts))
    total = sum(w for w, _ in weights)
    beliefs = []
    for i, share in enumerate(playout.shares()):
        if i in known:
            beliefs.append(1.0 if real[i] else 0.0)
            continue
        # One imagined card at the base rate, so that no belief is exactly 0 or 1.
        true = sum(w for w, facts in weights if facts[i])
        beliefs.append((true + share) / (total + 1.0))
    return beliefs


@contextmanager
def patched(mode: str) -> Iterator[None]:
    """Give every hard decision in this process the mode's knowledge and beliefs."""
    if mode == "hard":
        yield
        return
    saved_recall = levels.RECALL
    saved_beliefs = levels.hard_beliefs
    saved_knows = ai.knows
    saved_table_of = playout.table_of
    deciding: list[str] = []
    original_level_action = levels.level_action

    def level_action(state: JSON, player: str, level: str, budget: Budget) -> JSON:
        deciding.append(player)
        try:
            if mode == "knowledge":
                return GAME.computer.normal(state, player)
            return original_level_action(state, player, level, budget)
        finally:
            deciding.pop()

    def knows(state: JSON, player: str, city_id: str, statement_id: str) -> bool:
        if deciding and player == deciding[-1]:
            if mode == "omniscient":
                return True
            if mode == "knowledge":  # normal's rule, on what the shipped hard knows
                return (saved_knows(state, player, city_id, statement_id)
                        or levels.recalls(state, player, city_id, statement_id))
        return saved_knows(state, player, city_id, statement_id)

    def table_of(state: JSON) -> playout.Table:
        table = saved_table_of(state)
        if deciding and mode == "omniscient":
            # In its play-outs the oracle also knows the cities of its later turns.
            me = state["players"].index(deciding[-1])
            table.knowledge = [1.0 if seat == me else k for seat, k in enumerate(table.knowledge)]
        return table

    # What hard knows beyond normal's draw: everything for the oracle, nothing for the
    # others (their beliefs are about the facts normal's draw gives).
    # (Normal's rule, in "knowledge", reads its memory through ``knows`` above.)
    if mode != "knowledge":
        levels.RECALL = 1.0 if mode == "omniscient" else 0.0
    if mode in ("omniscient", "inference"):
        levels.hard_beliefs = truth_beliefs if mode == "omniscient" else inferred_beliefs
    # The engine looks levels.level_action up on every move, so this wrapper is reached.
    levels.level_action = level_action
    ai.knows = knows
    playout.table_of = table_of
    try:
        yield
    finally:
        levels.RECALL = saved_recall
        levels.hard_beliefs = saved_beliefs
        levels.level_action = original_level_action
        ai.knows = saved_knows
        playout.table_of = saved_table_of


def run(mode: str, players: int, games: int, seed: int, iterations: int = 0) -> JSON:
    with patched(mode):
        report = arena.arena("bigcityz", players, ["hard", "normal"], games, seed,
                             Budget(iterations=iterations, seconds=None))
    report["mode"] = mode
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--iterations", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run(args.mode, args.players, args.games, args.seed, args.iterations)
    out: Any = report if args.json else arena.table(report)
    print(json.dumps(out, indent=1) if args.json else out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
