"""A whole two-player game replayed from an action log with stacked decks."""

from __future__ import annotations

import copy
import json
from typing import Any

from bot.games.bigcity import ENGINE

OPTIONS: dict[str, Any] = {
    "first_player": "ann",
    "stacks": {
        "1": [15, 14, 16, 11, 19],
        "2": [25, 21],
        "3": [31, 32],
        "4": [41, 42, 43],
        "5": [51, 52],
    },
}
# ann is dealt 15 25 31 41 51, bob 14 21 32 42 52; stack 1 then holds 16, 11, 19 on top.
LOG: list[tuple[str, dict[str, Any]]] = [
    ("ann", {"type": "place_neighborhood", "neighborhood": 2, "at": [3, 0], "rotation": 0}),
    ("bob", {"type": "place_neighborhood", "neighborhood": 3, "at": [0, 3], "rotation": 0}),
    ("ann", {"type": "place_neighborhood", "neighborhood": 4, "at": [3, 3], "rotation": 0}),
    ("bob", {"type": "place_neighborhood", "neighborhood": 5, "at": [7, 0], "rotation": 0}),
    # the city now encloses the empty cells (3, 2) to (6, 2): 25 is in the center
    ("ann", {"type": "build", "building": "city_hall", "properties": [15]}),
    ("ann", {"type": "draw", "stacks": [1]}),  # 16
    ("bob", {"type": "build", "building": "single_residence", "properties": [14]}),
    ("bob", {"type": "draw", "stacks": [1]}),  # 11
    ("ann", {"type": "exchange", "cards": [41]}),  # 41 goes under stack 4
    ("ann", {"type": "draw", "stacks": [4]}),  # 43
    ("bob", {"type": "streetcar", "segments": [[[0, 0], [1, 0]]]}),
    ("ann", {"type": "build", "building": "double_business", "properties": [25, 16]}),
    ("ann", {"type": "draw", "stacks": [1, 1]}),  # 19 and a shuffled card
    ("bob", {"type": "pass"}),
    ("ann", {"type": "pass"}),
]


def replay() -> tuple[dict[str, Any], list[list[dict[str, Any]]]]:
    state = ENGINE.new(["ann", "bob"], OPTIONS, seed=2024)
    all_events = []
    for player, action in LOG:
        assert ENGINE.to_act(state) == [player], (player, action)
        before = copy.deepcopy(state)
        state, events = ENGINE.apply(state, player, action)
        assert ENGINE.to_act(before) == [player]  # the input state was not touched
        all_events.append(events)
        json.dumps(state)
    return state, all_events


def test_the_logged_game_replays_to_the_same_end() -> None:
    state, events = replay()
    final = ENGINE.result(state)
    assert final is not None
    assert final.scores == {"ann": 14, "bob": 3}
    assert final.winners == ["ann"]
    assert events[-1][-1]["type"] == "game_over"
    assert events[-1][-1]["reason"] == "all_passed"
    assert replay()[0] == state  # deterministic


def test_the_log_explains_every_score() -> None:
    _, events = replay()
    built = [e for batch in events for e in batch if e["type"] == "built"]
    assert [(e["player"], e["building"], e["points"], e["explanation"]) for e in built] == [
        ("ann", "city_hall", 0, "0 city hall"),
        ("bob", "single_residence", 3, "2 + 1 outskirts = 3"),
        ("ann", "double_business", 14, "6 + 1 center = 7, × 2 city hall = 14"),
    ]


def test_cards_drawn_come_from_the_top_and_exchanges_go_under() -> None:
    state, _ = replay()
    assert 16 not in state["hands"]["ann"]  # built on
    assert 19 in state["hands"]["ann"]
    assert 43 in state["hands"]["ann"]
    assert 11 in state["hands"]["bob"]
    assert state["stacks"]["4"][-1] == 41


def test_the_public_table_after_the_game() -> None:
    state, _ = replay()
    public = ENGINE.view(state, None)
    assert "hand" not in public and "hands" not in json.dumps(public)
    assert [n["number"] for n in public["neighborhoods"]] == [1, 2, 3, 4, 5]
    first = public["neighborhoods"][0]
    assert first["cells"][0] == {"property": 11, "cell": [0, 0]}
    by_number = {p["property"]: p for p in public["properties"]}
    assert by_number[25] == {
        "property": 25,
        "neighborhood": 2,
        "cell": [3, 1],
        "building": "double_business",
        "piece": 2,
        "owner": "ann",
        "outskirts": False,
    }
    assert by_number[14]["outskirts"] is True
    assert public["buildings_left"]["city_hall"] == 0
    assert public["buildings_left"]["double_business"] == 5
    assert public["streetcars"] == [[[0, 0], [1, 0]]]
    assert public["streetcars_left"] == 16
    assert public["stacks"]["1"] == 9 - 2 - 4  # dealt two, then drew 16, 11, 19 and one more
    assert public["scores"] == {"ann": 14, "bob": 3}
    assert public["winners"] == ["ann"]
    assert public["turn"] is None
    assert public["last_action"] == {"type": "pass", "player": "ann"}
    assert ENGINE.view(state, "ann")["hand"] == state["hands"]["ann"]
    assert "hand" not in ENGINE.view(state, "nobody")


def test_the_shared_replay_and_simulate_runners_drive_big_city() -> None:
    from bot.tools.replay import replay as run_replay
    from bot.tools.simulate import simulate

    spec = {
        "game": "bigcity",
        "players": ["ann", "bob"],
        "seed": 2024,
        "options": OPTIONS,
        "actions": [{"player": p, **a} for p, a in LOG],
    }
    outcome = run_replay(spec)
    assert outcome["rejected"] == []
    assert outcome["over"] and outcome["scores"] == {"ann": 14, "bob": 3}
    summary = simulate("bigcity", 3, seed=5, images=False, options={"trade_cards": True})
    assert summary["winners"]
    again = run_replay(
        {
            "game": "bigcity",
            "players": summary["players"],
            "seed": 5,
            "options": {"trade_cards": True},
            "actions": summary["actions"],
        }
    )
    assert again["rejected"] == [] and again["scores"] == summary["scores"]
