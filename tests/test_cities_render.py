"""Pictures of Cities: real PNGs drawn from engine views at every stage of real games."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from bot.games.cities import ENGINE, GAME
from bot.games.cities import render as R
from tests.pictures import drawn

State = dict[str, Any]


def _play(players: list[str], options: dict[str, Any], seed: int) -> tuple[list[State], list[Any]]:
    state = ENGINE.new(players, options, seed)
    states = [state]
    events: list[Any] = []
    while not ENGINE.result(state):
        player = ENGINE.to_act(state)[0]
        state, events = ENGINE.apply(state, player, GAME.computer.normal(state, player))
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


def _said(draw: Any) -> list[str]:
    """The strings drawn on the picture ``draw()`` makes (a 1200 px wide PNG), in order."""
    data, texts = drawn(R, draw)
    assert _png(data).width == 1200
    return [t.text for t in texts]


def _run(said: list[str], *texts: str) -> bool:
    """``texts`` drawn one right after another."""
    n = len(texts)
    return any(tuple(said[i:i + n]) == texts for i in range(len(said) - n + 1))


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
        said = _said(lambda view=view: R.render_table(view))
        for player in players:  # each seat with its score so far
            assert _run(said, player, str(view["scores"][player]), "pts"), player
        for player in players:
            said = _said(lambda view=view, player=player: R.render_neighbourhood(view, player))
            assert said[:2] == [player, "neighbourhood"]
        # Neighbourhoods: everyone's at once, each with its player, score and cards
        said = _said(lambda view=view: R.render_neighbourhoods(view))
        for player in players:
            assert _run(said, player, f"{view['scores'][player]} pts"), player
            for card in view["cards_held"][player]:
                assert f"• {card['name']} ({card['vp']} VP each)" in said, card
    end = ENGINE.view(states[-1], None)
    assert _run(_said(lambda: R.render_table(end)), "Game over", "Winner:", *end["winners"])
    final = R.render_extras(end, events)
    assert [name for name, _ in final] == ["final"]
    said = _said(lambda: R.render_final(end))
    assert final[0][1] == R.render_final(end)
    assert _run(said, "Winner:", *end["winners"])
    for player in players:
        assert f"{end['scores'][player]} pts" in said, player


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
    said = _said(lambda: R.render_preview(ENGINE.view(best, None), player, choices))
    assert said[0] == player and said[1].startswith("where to place")
    # every choice's letter is on the picture, in the order of the menu
    letters = [c["label"] for c in choices]
    assert _run(said, *letters)


def test_awkward_names() -> None:
    names = ["A very long player name that goes on and on and on", "ᏣᎳᎩᎯ", "🦩 dice", "Zoë"]
    states, _events = _play(names, {}, 9)
    view = ENGINE.view(states[len(states) // 2], None)
    # ᏣᎳᎩᎯ (Cherokee) has no glyphs in the fonts: the seat's number; emoji are drawn; long is cut
    shown = {names[1]: "Player 2", names[2]: "🦩 dice", names[3]: "Zoë"}
    said = _said(lambda: R.render_table(view))
    for name, label in shown.items():
        assert _run(said, label, str(view["scores"][name]), "pts"), name
    assert any(s.startswith("A very") and s.endswith("…") for s in said)
    assert not any(ch in "".join(said) for ch in "ᏣᎳᎩᎯ")
    for name in names:
        title = _said(lambda name=name: R.render_neighbourhood(view, name))[0]
        assert title == shown.get(name) or (title.startswith("A very") and title.endswith("…"))
    end = ENGINE.view(states[-1], None)
    said = _said(lambda: R.render_final(end))
    assert not any(ch in "".join(said) for ch in "ᏣᎳᎩᎯ")
    assert {"Player 2", "🦩 dice", "Zoë"} <= set(said)


def test_extras_only_at_the_end(game3: tuple[list[State], list[Any]]) -> None:
    states, events = game3
    assert any(e.get("type") == "game_over" for e in events)
    assert R.render_extras(ENGINE.view(states[5], None), [{"type": "took"}]) == []
    extras = R.render_extras(ENGINE.view(states[-1], None), events)
    assert len(extras) == 1 and extras[0][0] == "final"
    view = ENGINE.view(states[-1], None)
    said = _said(lambda: R.render_final(view))
    assert extras[0][1] == R.render_final(view)
    assert _run(said, "Game over", "Winner:", *view["winners"])
