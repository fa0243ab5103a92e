"""Big Cityz's ceiling experiment (``scripts/bigcityz_ceiling.py``) and the arena's counts
of objections: what the figures in docs/computer-players.md rest on."""

from __future__ import annotations

import pytest

from bot.core.levels import Budget, decide
from bot.games.bigcityz import ENGINE, GAME, ai, levels, playout
from bot.tools.arena import arena
from tests.scripts import load_script
from tests.test_levels import advance

ceiling = load_script("bigcityz_ceiling")
BUDGET = Budget(iterations=16, seconds=None)


def test_the_arena_counts_objections_made_and_justified_per_level() -> None:
    report = arena("bigcityz", 2, ["hard", "normal"], 6, 11, BUDGET)
    for figures in report["levels"].values():
        counts = figures["tally_per_game"]
        assert counts["placed"] > 0
        assert 0 <= counts["right"] <= counts["placed"]
        assert 0 <= counts["objections_justified"] <= counts["objections"]
        # Every objection is a veto move, and the state's count agrees with the moves'.
        assert counts["objections"] == pytest.approx(figures["per_game"].get("veto", 0.0),
                                                     abs=0.01)


def test_an_omniscient_hard_player_is_never_wrong_and_never_objects_wrongly() -> None:
    report = ceiling.run("omniscient", 2, 6, 11, iterations=16)
    hard = report["levels"]["hard"]["tally_per_game"]
    assert hard["placed"] > 0
    assert hard["right"] == hard["placed"]
    assert hard["objections_justified"] == hard["objections"]
    normal = report["levels"]["normal"]["tally_per_game"]
    # Normal, knowing three facts in four, is wrong now and then in the same games.
    assert normal["right"] <= normal["placed"]


def test_perfect_inference_keeps_known_facts_and_does_not_read_the_card() -> None:
    state = ENGINE.new(["ann", "bob"], {}, 5)
    city = state["current_city"]
    ids = playout.statements()
    real = playout.truths()[city]
    beliefs = ceiling.inferred_beliefs(state, "ann")
    for n, sid in enumerate(ids):
        if ai.knows(state, "ann", city, sid):
            assert beliefs[n] == (1.0 if real[n] else 0.0)
        else:
            assert 0.0 < beliefs[n] < 1.0
    # The card itself is left out: another city with the same known facts but other
    # unknown ones gets the same beliefs.
    twin = dict(playout.truths())
    flipped = tuple(not fact if not ai.knows(state, "ann", city, sid) else fact
                    for fact, sid in zip(real, ids, strict=True))
    ceiling._cards.cache_clear()
    try:
        twin[city] = flipped
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(playout, "truths", lambda: twin)
            again = ceiling.inferred_beliefs(state, "ann")
    finally:
        ceiling._cards.cache_clear()
    for n, sid in enumerate(ids):
        if not ai.knows(state, "ann", city, sid):
            assert again[n] == pytest.approx(beliefs[n])


def test_the_experiment_leaves_the_shipped_hard_player_as_it_was() -> None:
    state = advance(ENGINE, ENGINE.new(["ann", "bob"], {}, 21), 6,
                    lambda s: s["phase"] == "place")
    player = ENGINE.to_act(state)[0]
    before = decide(GAME.computer, state, player, "hard", BUDGET)
    with ceiling.patched("omniscient"):
        assert levels.hard_beliefs(state, player) == ceiling.truth_beliefs(state, player)
    assert levels.hard_beliefs is not ceiling.truth_beliefs
    assert ai.knows is not None and decide(GAME.computer, state, player, "hard", BUDGET) == before
