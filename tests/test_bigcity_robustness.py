"""Malformed moves are refused with a sentence, never with a crash, in every step of a game."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.core.engine import IllegalAction
from bot.games.bigcity import ENGINE, GAME

JUNK: list[Any] = [
    "build",
    {},
    {"type": None},
    {"type": ["build"]},
    {"type": "build", "building": 5, "properties": [11]},
    {"type": "build", "building": "church", "properties": "11"},
    {"type": "build", "building": "single_residence", "properties": [True]},
    {"type": "build", "building": "single_residence", "properties": [11.0]},
    {"type": "special", "card": ["lincoln_park"], "properties": [11, 12]},
    {"type": "special", "card": "lincoln_park", "properties": [999, 998]},
    {"type": "streetcar", "segments": "north"},
    {"type": "streetcar", "segments": [[1, 2]]},
    {"type": "streetcar", "segments": [[[0, 0], [1, "a"]]]},
    {"type": "streetcar", "segments": [[[0, 0], [1, 0]], [[0, 0], [1, 0]]]},
    {"type": "exchange", "cards": "14"},
    {"type": "exchange", "cards": [[1]]},
    {"type": "exchange", "cards": [{"a": 1}]},
    {"type": "exchange", "cards": []},
    {"type": "draw", "stacks": ["1"]},
    {"type": "draw", "stacks": [0]},
    {"type": "draw", "stacks": [1, 1, 1, 1, 1, 1, 1, 1]},
    {"type": "draw"},
    {"type": "place_neighborhood", "neighborhood": "3", "at": [0, 0]},
    {"type": "place_neighborhood", "neighborhood": 3, "at": [0.5, 0], "rotation": 0},
    {"type": "place_neighborhood", "neighborhood": 9, "at": [9, 9], "rotation": 0},
    {"type": "trade", "cards": [11], "wants": "3"},
    {"type": "trade", "cards": [11], "wants": [0]},
    {"type": "trade_offer", "cards": None},
    {"type": "trade_accept", "partner": ["x"], "give": None},
    {"type": "trade_accept", "partner": "nobody", "give": []},
    {"type": "trade_ended"},  # (unknown keys on a real move are ignored, not refused)
    {"type": "discard_useless", "cards": None},
    {"type": "discard_useless", "cards": [11]},
]


def test_junk_is_refused_with_a_sentence_in_every_step() -> None:
    options = {"trade_cards": True, "first_player": "ann"}
    state = ENGINE.new(["ann", "bob", "cy"], options, seed=99)
    steps_seen: set[str] = set()
    for move in range(400):
        if ENGINE.result(state) is not None:
            break
        acting = ENGINE.to_act(state)
        player = acting[0]
        if state["step"] not in steps_seen or move % 7 == 0:
            steps_seen.add(state["step"])
            before = json.dumps(state, sort_keys=True)
            for junk in JUNK:
                for who in (player, "bob", "zed", None):
                    with pytest.raises(IllegalAction) as refused:
                        ENGINE.apply(state, who, junk)
                    sentence = str(refused.value)
                    assert sentence[:1].isupper() and sentence.endswith("."), (junk, sentence)
                    assert json.dumps(state, sort_keys=True) == before, (junk, who)
        if state["step"] in ("start", "main") and player == "ann" and move % 5 == 0:
            action: dict[str, Any] = {"type": "trade", "cards": state["hands"]["ann"][:1]}
        else:
            action = GAME.computer.normal(state, player)
        state, _ = ENGINE.apply(state, player, action)
    assert {"place", "start", "draw", "trade_offers", "trade_accept"} <= steps_seen
