"""Big Cityz keeps, per player, how many cities they placed and got right, and how many
objections they raised and were justified: the figures behind /stats.

Rulebook (/work/shared/rules/big-cityz.txt): "If you were right? You get the number of
points that are indicated on the point square ... Have one or more players vetoed your
guesstimate? Then their objection was not justified" and "If you were wrong? ... Have one
or more players vetoed your guesstimate? Then their objection was justified."

Boards and cities are stacked as in test_bigcityz_rules.py: slot 1 Population, 2 South,
3 Capital, 4 Coast. Paris: over a million, north, capital, inland. Tokyo: the same but on
the coast. Bergen: under a million, north, not a capital, on the coast.
"""

from __future__ import annotations

from typing import Any

from bot.games.bigcityz import ENGINE
from tests.test_bigcityz_rules import reveal_of, risk, square, start, turn

JSON = dict[str, Any]
ZERO = {"placed": 0, "right": 0, "objections": 0, "objections_justified": 0}


def test_every_player_starts_with_empty_tallies() -> None:
    state = start(["Paris"])
    assert state["tally"] == {"ann": ZERO, "bob": ZERO, "cy": ZERO}


def test_a_right_placement_counts_placed_and_right_for_the_placer_only() -> None:
    state, events = turn(start(["Paris", "Tokyo"]), square(1, "green", 5))
    assert reveal_of(events)["right"] is True
    assert state["tally"]["ann"] == {**ZERO, "placed": 1, "right": 1}
    assert state["tally"]["bob"] == ZERO and state["tally"]["cy"] == ZERO


def test_a_wrong_placement_counts_placed_but_not_right() -> None:
    # Paris has over a million people: red on Population is wrong
    state, events = turn(start(["Paris", "Tokyo"]), square(1, "red", 4))
    assert reveal_of(events)["right"] is False
    assert state["tally"]["ann"] == {**ZERO, "placed": 1}


def test_risk_fields_count_like_squares() -> None:
    state, _ = turn(start(["Tokyo", "Paris", "Bergen"]), risk("3-4", "green"))  # right
    state, _ = turn(state, risk("3-4", "red"))  # bob, Paris: capital, so wrong
    assert state["tally"]["ann"] == {**ZERO, "placed": 1, "right": 1}
    assert state["tally"]["bob"] == {**ZERO, "placed": 1}


def test_an_unjustified_objection_counts_raised_not_justified() -> None:
    state, _ = turn(start(["Paris", "Tokyo"]), square(1, "green", 5), objectors=("bob",))
    assert state["tally"]["bob"] == {**ZERO, "objections": 1}
    assert state["tally"]["ann"] == {**ZERO, "placed": 1, "right": 1}


def test_a_justified_objection_counts_raised_and_justified() -> None:
    state, _ = turn(start(["Paris", "Tokyo"]), square(1, "red", 4), objectors=("bob", "cy"))
    assert state["tally"]["bob"] == {**ZERO, "objections": 1, "objections_justified": 1}
    assert state["tally"]["cy"] == {**ZERO, "objections": 1, "objections_justified": 1}
    assert state["tally"]["ann"] == {**ZERO, "placed": 1}


def test_declining_to_object_or_letting_the_timer_run_counts_nothing() -> None:
    state, _ = turn(start(["Paris", "Tokyo"]), square(1, "red", 4), timer=True)
    assert state["tally"]["bob"] == ZERO and state["tally"]["cy"] == ZERO


def test_tallies_add_up_over_several_turns() -> None:
    state = start(["Paris", "Tokyo", "Bergen", "Oslo"])
    state, _ = turn(state, square(1, "green", 5), objectors=("cy",))  # ann right
    state, _ = turn(state, square(4, "green", 6), objectors=("cy",))  # bob Tokyo right
    state, _ = turn(state, square(1, "red", 4), objectors=("ann",))  # cy Bergen right
    state, _ = turn(state, square(2, "green", 6), objectors=("bob",))  # ann Oslo wrong
    assert state["tally"] == {
        "ann": {"placed": 2, "right": 1, "objections": 1, "objections_justified": 0},
        "bob": {"placed": 1, "right": 1, "objections": 1, "objections_justified": 1},
        "cy": {"placed": 1, "right": 1, "objections": 2, "objections_justified": 0},
    }


def test_the_result_carries_each_players_tallies_for_the_leaderboard() -> None:
    state = start(["Paris", "Tokyo"], players=["ann", "bob"])
    state["city_pile"] = state["city_pile"][:1]  # Tokyo only: the game ends after round 1
    state, _ = turn(state, square(1, "green", 5), objectors=("bob",))
    state, _ = turn(state, square(1, "red", 4), objectors=("ann",))  # Tokyo: wrong
    result = ENGINE.result(state)
    assert result is not None
    assert result.extra["rounds"] == 1
    assert result.extra["per_player"] == {
        "ann": {"placed": 1, "right": 1, "objections": 1, "objections_justified": 1,
                "vetoes_left": 1, "turns": 1},
        "bob": {"placed": 1, "right": 0, "objections": 1, "objections_justified": 0,
                "vetoes_left": 1, "turns": 1},
    }
    # ann 5 + 3 for the justified objection; bob lost 3 for his, from 0 stays 0
    assert result.scores == {"ann": 8, "bob": 0} and result.winners == ["ann"]
