"""Pictures of Cities: real PNGs drawn from engine views at every stage of real games."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from bot.games.cities import ENGINE
from bot.games.cities import render as R

State = dict[str, Any]


def _play(players: list[str], options: dict[str, Any], seed: int) -> tuple[list[State], list[Any]]:
    state = ENGINE.new(players, options, seed)
    states = [state]
    events: list[Any] = []
    while not ENGINE.result(state):
        player = ENGINE.to_act(state)[0]
        state, events = ENGINE.apply(state, player, ENGINE.ai_action(state, player))
        states.append(state)
    return states, events


@pytest.fixture(scope="module")
def game3() -> tuple[list[State], list[Any]]:
    return _play(["ann", "bob", "cy"], {}, 7)


def _png(data: bytes) -> Image.Image:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def _choices(state: State) -> tuple[str, list[dict[str, Any]]]:
    player = ENGINE.to_act(state)[0]
    out: list[dict[str, Any]] = []
    for legal in ENGINE.legal(state, player):
        action = legal.action
        if action["type"] == "place_tile":
            out.append({"tile_at": action["at"], "rotation": action["rotation"]})
        elif action["type"] in ("place_feature", "place_piece"):
            out.append({"space": action["space"]})
    out = out[:26]
    for i, choice in enumerate(out):
        choice["label"] = chr(ord("A") + i)
    return player, out


def test_table_start_middle_end(game3: tuple[list[State], list[Any]]) -> None:
    states, _ = game3
    pictures = []
    for state in (states[0], states[4], states[len(states) // 2], states[-1]):
        data = R.render_table(ENGINE.view(state, None))
        image = _png(data)
        assert image.width == 1200
        assert 600 < image.height < 2000
        assert len(data) < 300_000
        pictures.append(data)
    assert len(set(pictures)) == len(pictures)  # every state looks different


@pytest.mark.parametrize("players,options", [
    (["ann", "bob"], {}),
    (["ann", "bob", "cy", "dee"], {}),
    (["ann", "bob"], {"variant": "3x5"}),
])
def test_every_player_count_and_the_variant(players: list[str], options: dict[str, Any]) -> None:
    states, events = _play(players, options, 3)
    for state in (states[len(states) // 3], states[-1]):
        view = ENGINE.view(state, None)
        assert _png(R.render_table(view)).width == 1200
        for player in players:
            assert _png(R.render_neighbourhood(view, player)).width == 1200
    final = R.render_extras(ENGINE.view(states[-1], None), events)
    assert [name for name, _ in final] == ["final"]
    assert _png(final[0][1]).width == 1200


def test_private_and_public_views_draw_the_same_table(game3: tuple[list[State], list[Any]]) -> None:
    states, _ = game3
    state = states[len(states) // 2]
    public = ENGINE.view(state, None)
    for player in state["players"]:
        assert R.render_table(ENGINE.view(state, player)) == R.render_table(public)


def test_face_down_items_are_never_drawn(game3: tuple[list[State], list[Any]]) -> None:
    """The picture depends only on the view; whatever hides under a face-down slot, the
    same card back is drawn."""
    states, _ = game3
    state = states[len(states) // 2]
    view = ENGINE.view(state, None)
    hidden = [(row, i) for row, slots in view["rows"].items() for i, slot in enumerate(slots)
              if any(item.get("face_down") for item in slot["items"]) and slot["taken_by"] is None]
    assert hidden
    swapped = dict(state, rows={k: [dict(slot) for slot in v] for k, v in state["rows"].items()})
    for row, i in hidden:
        slot = swapped["rows"][row][i]
        deck = {"cards": "scoring_cards", "tiles": "city_tiles", "features": "feature_tiles"}.get(row)
        if deck is None or not swapped["decks"][deck]:
            continue
        items = list(slot["items"])
        for k, is_hidden in enumerate(slot["hidden"]):
            if is_hidden:
                items[k] = swapped["decks"][deck][0]  # another unseen item in its place
        slot["items"] = items
    assert swapped["rows"] != state["rows"]
    assert R.render_table(ENGINE.view(swapped, None)) == R.render_table(view)


def test_rows_without_secrets_in_the_view(game3: tuple[list[State], list[Any]]) -> None:
    states, _ = game3
    view = ENGINE.view(states[len(states) // 2], None)
    for slots in view["rows"].values():
        for slot in slots:
            for item in slot["items"]:
                assert item.get("face_down") or item.get("id") or item.get("color")
                if item.get("face_down"):
                    assert set(item) == {"face_down"}


def test_neighbourhood_changes_as_it_grows(game3: tuple[list[State], list[Any]]) -> None:
    states, _ = game3
    early = R.render_neighbourhood(ENGINE.view(states[10], None), "ann")
    late = R.render_neighbourhood(ENGINE.view(states[-1], None), "ann")
    assert early != late
    assert R.render_neighbourhood(ENGINE.view(states[-1], None), "bob") != late


@pytest.mark.parametrize("row", ["tiles", "features", "pieces"])
def test_preview_for_each_kind_of_placement(game3: tuple[list[State], list[Any]], row: str) -> None:
    states, _ = game3
    state = next(s for s in states[8:] if s["phase"] == "play" and s["pending"]
                 and s["pending"]["row"] == row and len(_choices(s)[1]) >= 2)
    player, choices = _choices(state)
    view = ENGINE.view(state, None)
    data = R.render_preview(view, player, choices)
    assert _png(data).width == 1200
    assert data != R.render_neighbourhood(view, player)
    assert data != R.render_preview(view, player, choices[:1])


def test_preview_with_many_labels() -> None:
    states, _ = _play(["ann", "bob"], {"variant": "3x5"}, 5)
    best = max((s for s in states if s["pending"] and s["phase"] == "play"),
               key=lambda s: len(_choices(s)[1]))
    player, choices = _choices(best)
    assert len(choices) >= 20
    assert _png(R.render_preview(ENGINE.view(best, None), player, choices)).width == 1200


def test_awkward_names() -> None:
    names = ["A very long player name that goes on and on and on", "田中太郎", "🎲🎲 dice 🎲", "Zoë"]
    states, _events = _play(names, {}, 9)
    view = ENGINE.view(states[len(states) // 2], None)
    assert _png(R.render_table(view)).width == 1200
    for name in names:
        assert _png(R.render_neighbourhood(view, name)).width == 1200
    assert _png(R.render_final(ENGINE.view(states[-1], None))).width == 1200


def test_extras_only_at_the_end(game3: tuple[list[State], list[Any]]) -> None:
    states, events = game3
    assert any(e.get("type") == "game_over" for e in events)
    assert R.render_extras(ENGINE.view(states[5], None), [{"type": "took"}]) == []
    extras = R.render_extras(ENGINE.view(states[-1], None), events)
    assert len(extras) == 1 and extras[0][0] == "final"
    assert len(extras[0][1]) < 600_000
