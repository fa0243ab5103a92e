"""Setup, rounds, turns, placement legality, the star, achievements, end scoring, views."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.engine import IllegalAction
from bot.games.cities import ENGINE, GAME
from bot.games.cities.content import CONTENT

State = dict[str, Any]


def new(players: tuple[str, ...] = ("ann", "bob", "cy", "dee"), seed: int = 1, **options: Any) -> State:
    return ENGINE.new(list(players), options, seed)


def start(players: tuple[str, ...] = ("ann", "bob", "cy", "dee"), seed: int = 1, **options: Any) -> State:
    """A game past the starting-tile choice (each chooser takes the first tile left)."""
    state = new(players, seed, **options)
    while state["phase"] == "start_tiles":
        chooser = ENGINE.to_act(state)[0]
        state, _ = ENGINE.apply(state, chooser, {"type": "choose_start_tile", "tile": state["start_tiles"][0]})
    return state


def act(state: State, player: str, **action: Any) -> tuple[State, list[dict[str, Any]]]:
    return ENGINE.apply(state, player, action)


def ai_turn(state: State) -> State:
    """Let the computer play whoever is to act until the turn passes."""
    player = ENGINE.to_act(state)[0]
    while ENGINE.to_act(state) == [player] and state["phase"] != "over":
        state, _ = ENGINE.apply(state, player, GAME.computer.normal(state, player))
        if state["pending"] is None:
            break
    return state


def refused(state: State, player: str | None, **action: Any) -> str:
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as caught:
        ENGINE.apply(state, player, action)
    assert state == before
    return str(caught.value)


# ------------------------------------------------------------------------ setup ---


def test_engine_identity() -> None:
    assert (ENGINE.name, ENGINE.title, ENGINE.min_players, ENGINE.max_players) == ("cities", "Cities", 2, 4)


def test_starting_tiles_are_chosen_in_reverse_turn_order() -> None:
    state = new(first_player="bob", city="New York City")
    # "Starting with the player to the right of the start player and going counter-clockwise".
    assert state["start_tile_order"] == ["ann", "dee", "cy", "bob"]
    assert ENGINE.to_act(state) == ["ann"]
    assert [a.action["tile"] for a in ENGINE.legal(state, "ann")] == ["S1", "S2", "S3", "S4"]
    assert ENGINE.legal(state, "bob") == []
    state, _ = act(state, "ann", type="choose_start_tile", tile="S3")
    assert refused(state, "dee", type="choose_start_tile", tile="S3").startswith("Choose one of the starting tiles")
    for player, tile in (("dee", "S1"), ("cy", "S4")):
        state, _ = act(state, player, type="choose_start_tile", tile=tile)
    state, events = act(state, "bob", type="choose_start_tile", tile="S2")
    assert state["box"] == []
    assert events[-1] == {"type": "round_started", "round": 1, "first_player": "bob"}
    assert state["neighbourhoods"]["ann"]["tiles"] == [{"tile": "S3", "at": [0, 0], "rotation": 0}]
    assert ENGINE.to_act(state) == ["bob"]


def test_unused_starting_tiles_go_back_to_the_box() -> None:
    state = start(("ann", "bob"))
    assert len(state["box"]) == 2
    assert state["start_tiles"] == []


def test_each_round_deals_four_cards_four_tiles_six_features_and_ten_pieces() -> None:
    cards = ["K05", "K01", "K19", "K32"]
    tiles = ["C16", "C20", "C01", "C02"]
    features = ["F01", "F37", "F19", "F24", "F06", "F45"]
    state = start(scoring_cards=cards, city_tiles=tiles, feature_tiles=features, bag="RRRRBBBGGG")
    rows = state["rows"]
    assert [s["items"] for s in rows["cards"]] == [[c] for c in cards]
    assert [s["hidden"] for s in rows["cards"]] == [[False], [False], [False], [True]]
    assert [s["items"] for s in rows["tiles"]] == [[t] for t in tiles]
    assert [s["hidden"] for s in rows["tiles"]] == [[False], [False], [False], [True]]
    assert [s["items"] for s in rows["features"]] == [["F01", "F37"], ["F19"], ["F24"], ["F06", "F45"]]
    assert rows["features"][3]["hidden"] == [False, True]  # the last group's second tile
    assert [s["items"] for s in rows["pieces"]] == [["R"] * 4, ["B"] * 3, ["G"] * 3, []]
    assert rows["pieces"][3]["star"] is True
    assert len(state["bag"]) == 90


def test_face_down_items_appear_in_no_view_until_taken() -> None:
    state = start(scoring_cards=["K05", "K01", "K19", "K32"], city_tiles=["C16", "C20", "C01", "C02"],
                  feature_tiles=["F01", "F37", "F19", "F24", "F06", "F45"])
    for viewer in (None, "ann", "bob"):
        text = json.dumps(ENGINE.view(state, viewer))
        for secret in ("K32", "Hillside", "C02", "F45"):
            assert secret not in text
        assert "K05" in text and "C16" in text and "F06" in text
    view = ENGINE.view(state, None)
    assert view["rows"]["cards"][3]["items"] == [{"face_down": True}]
    assert view["rows"]["features"][3]["items"][1] == {"face_down": True}
    on_board = [c for slot in state["rows"]["pieces"] for c in slot["items"]]
    assert view["bag"] == {c: 25 - on_board.count(c) for c in "RBGY"}  # counts, not the order
    assert "decks" in view and view["decks"]["scoring_cards"] == 28
    # The taker reveals it to everyone.
    player = ENGINE.to_act(state)[0]
    state, events = act(state, player, type="take", row="cards", slot=4)
    assert events[0]["revealed"] == ["K32"]
    assert "Hillside" in json.dumps(ENGINE.view(state, None))


def test_two_players_play_four_rounds_with_two_workers_per_row() -> None:
    state = start(("ann", "bob"), first_player="ann")
    assert state["rounds"] == 4
    assert ENGINE.view(state, None)["workers_left"]["ann"] == {"cards": 2, "tiles": 2, "features": 2, "pieces": 2}
    state, _ = act(state, "ann", type="take", row="cards", slot=1)
    state, _ = act(state, "bob", type="take", row="cards", slot=2)
    state, _ = act(state, "ann", type="take", row="cards", slot=3)
    assert refused(state, "bob", type="take", row="cards", slot=3) == "That scoring card space already has a worker on it."
    state, _ = act(state, "bob", type="take", row="cards", slot=4)
    assert refused(state, "ann", type="take", row="cards", slot=4).startswith("That scoring card space")
    assert all(a.action["row"] != "cards" for a in ENGINE.legal(state, "ann"))
    turns = 4
    while state["round"] == 1:
        state = ai_turn(state)
        turns += 1
    assert turns == 16


def test_three_and_four_players_place_one_worker_per_row() -> None:
    state = start(("ann", "bob", "cy"), first_player="ann")
    assert state["rounds"] == 8
    state, _ = act(state, "ann", type="take", row="cards", slot=1)
    for _ in ("bob", "cy"):
        state = ai_turn(state)
    assert ENGINE.to_act(state) == ["ann"]
    message = refused(state, "ann", type="take", row="cards", slot=2)
    assert message == "You have already placed your worker in the scoring card row this round."


@pytest.mark.parametrize("seed", [4, 6, 8])
def test_three_players_remove_the_leftovers_at_the_end_of_each_round(seed: int) -> None:
    state = start(("ann", "bob", "cy"), seed=seed)
    events: list[dict[str, Any]] = []
    while True:
        player = ENGINE.to_act(state)[0]
        action = GAME.computer.normal(state, player)
        after, new_events = ENGINE.apply(state, player, action)
        events.extend(new_events)
        if after["round"] == 2:
            break
        state = after
    # ``state`` is the table just before the round's last move.
    left = {
        row: [s for s in state["rows"][row] if s["taken_by"] is None
              and not (action.get("type") == "take" and action["row"] == row and action["slot"] == s["slot"])]
        for row in ("cards", "tiles", "features", "pieces")
    }
    assert [len(left[row]) for row in left] == [1, 1, 1, 1]  # one worker fewer than spaces
    removed = after["removed"]
    hidden = [i for row in ("cards", "tiles", "features") for s in left[row]
              for i, h in zip(s["items"], s["hidden"], strict=True) if h]
    shown = {row: [i for s in left[row] for i, h in zip(s["items"], s["hidden"], strict=True) if not h]
             for row in ("cards", "tiles", "features")}
    assert removed["face_down"] == hidden
    assert removed["scoring_cards"] == shown["cards"]
    assert removed["city_tiles"] == shown["tiles"]
    assert removed["feature_tiles"] == shown["features"]
    pieces_left = left["pieces"][0]["items"]  # the star group's pieces were never drawn
    assert sum(removed["pieces"].values()) - sum(
        e["color"] is not None for e in events if e["type"] == "piece_removed"
    ) == len(pieces_left)
    ended = next(e for e in events if e["type"] == "round_ended")
    view = ENGINE.view(after, None)
    assert view["removed"]["face_down"] == len(hidden)
    for secret in hidden:
        assert secret not in json.dumps(view)
        assert secret not in json.dumps(ended)


def test_four_and_two_player_rounds_use_every_item() -> None:
    for players in (("ann", "bob"), ("ann", "bob", "cy", "dee")):
        state = start(players, seed=2)
        while state["round"] == 1:
            state = ai_turn(state)
        removed = state["removed"]
        assert removed["scoring_cards"] == removed["city_tiles"] == removed["face_down"] == []


def test_the_two_player_variant_plays_seven_rounds_on_three_by_five() -> None:
    state = start(("ann", "bob"), variant="3x5")
    assert state["rounds"] == 7
    assert ENGINE.view(state, None)["limit"] == [3, 5]
    with pytest.raises(IllegalAction, match="for two players"):
        new(("ann", "bob", "cy"), variant="3x5")


# ------------------------------------------------------------------------ turns ---


def test_a_turn_is_take_then_use_everything_then_the_next_player() -> None:
    state = start(first_player="ann", city_tiles=["C16", "C20", "C01", "C02"])
    state, events = act(state, "ann", type="take", row="tiles", slot=1)
    assert events == [{"type": "took", "player": "ann", "row": "tiles", "slot": 1, "items": ["C16"],
                       "revealed": [], "star": False}]
    assert state["pending"] == {"player": "ann", "row": "tiles", "items": ["C16"]}
    assert ENGINE.to_act(state) == ["ann"]
    assert refused(state, "ann", type="take", row="cards", slot=1) == "First place or remove what you have taken."
    assert refused(state, "bob", type="take", row="cards", slot=1) == "It is not your turn; it is ann's turn."
    labels = [a.label for a in ENGINE.legal(state, "ann")]
    assert len(labels) == 16 and labels[0].startswith("C16 at [-1, 0] turned 0°")
    state, _ = act(state, "ann", type="place_tile", at=[0, 1], rotation=90)
    assert ENGINE.to_act(state) == ["bob"]
    assert state["neighbourhoods"]["ann"]["tiles"][1] == {"tile": "C16", "at": [0, 1], "rotation": 90}


def test_city_tile_placement_rules() -> None:
    state = start(first_player="ann", city_tiles=["C16", "C20", "C01", "C02"])
    state, _ = act(state, "ann", type="take", row="tiles", slot=1)
    assert refused(state, "ann", type="place_tile", at=[1, 1], rotation=0).startswith("A city tile must share a whole edge")
    assert refused(state, "ann", type="place_tile", at=[0, 0], rotation=0) == "A tile is already there."
    assert refused(state, "ann", type="place_tile", at=[0, 1], rotation=45) == "Turn a tile by 0, 90, 180 or 270 degrees."
    assert refused(state, "ann", type="place_tile", at="0,1", rotation=0).startswith("Give the tile position")
    assert refused(state, "ann", type="discard_feature", feature="F01") == (
        "You have no feature tile to place; first use the city tile you took."
    )
    assert refused(state, "ann", type="place_piece", color="R", space=[0, 0]).startswith("You have no building piece")


def test_features_may_be_placed_or_removed_in_any_order() -> None:
    state = start(first_player="ann", feature_tiles=["F01", "F19", "F24", "F29", "F06", "F45"])
    state, _ = act(state, "ann", type="take", row="features", slot=1)  # Sailboat + Fountain
    hood = ENGINE.view(state, None)["neighbourhoods"]["ann"]
    water = next(s["space"] for s in hood["spaces"] if s["type"] == "W")
    park = next(s["space"] for s in hood["spaces"] if s["type"] == "P")
    assert refused(state, "ann", type="place_feature", feature="F01", space=park) == "Sailboat goes on a water space."
    assert refused(state, "ann", type="place_feature", feature="F24", space=park).startswith("That is not a feature tile you took")
    state, _ = act(state, "ann", type="place_feature", feature="F19", space=park)
    assert ENGINE.to_act(state) == ["ann"]
    assert [a.action for a in ENGINE.legal(state, "ann")] == [
        {"type": "place_feature", "feature": "F01", "space": water},
        {"type": "discard_feature", "feature": "F01"},
    ]
    state, events = act(state, "ann", type="discard_feature", feature="F01")
    assert state["removed"]["feature_tiles"] == ["F01"]
    assert ENGINE.to_act(state) == ["bob"]
    assert events[0] == {"type": "feature_removed", "player": "ann", "feature": "F01"}


def test_pieces_go_on_their_colour_stack_to_four_or_are_removed() -> None:
    state = start(first_player="ann", bag="BBBBRRRGGG")
    assert state["neighbourhoods"]["ann"]["tiles"][0]["tile"] == "S4"  # B G / P W
    state, _ = act(state, "ann", type="take", row="pieces", slot=1)
    assert state["pending"]["items"] == ["B", "B", "B", "B"]
    assert refused(state, "ann", type="place_piece", color="R", space=[0, 0]).startswith("You hold no piece of that colour")
    message = refused(state, "ann", type="place_piece", color="B", space=[0, 1])
    assert message == "A building piece goes on a city space of its own colour."
    for height in (1, 2, 3):
        state, events = act(state, "ann", type="place_piece", color="B", space=[0, 0])
        assert events[0]["height"] == height
    assert ENGINE.view(state, None)["pending"]["items"] == [{"color": "B"}]
    state, events = act(state, "ann", type="place_piece", color="B", space=[0, 0])
    assert ENGINE.to_act(state) == ["bob"]
    assert state["neighbourhoods"]["ann"]["buildings"] == {"0,0": {"color": "B", "height": 4}}
    blue_tower = ENGINE.view(state, None)["neighbourhoods"]["ann"]["spaces"][0]
    assert blue_tower == {"space": [0, 0], "type": "B", "feature": None, "building": {"color": "B", "height": 4}}


def test_a_piece_can_always_be_removed_and_counts_as_removed() -> None:
    state = start(first_player="ann", bag="RRRRBBBGGG")
    state, _ = act(state, "ann", type="take", row="pieces", slot=2)
    assert {"type": "discard_piece", "color": "B"} in [a.action for a in ENGINE.legal(state, "ann")]
    for _ in range(3):
        state, _ = act(state, "ann", type="discard_piece", color="B")
    assert state["removed"]["pieces"]["B"] == 3
    assert ENGINE.to_act(state) == ["bob"]


def test_every_legal_action_is_accepted() -> None:
    state = start(seed=3)
    for _ in range(40):
        player = ENGINE.to_act(state)[0]
        for legal in ENGINE.legal(state, player):
            ENGINE.apply(state, player, legal.action)
            assert legal.label
        state, _ = ENGINE.apply(state, player, GAME.computer.normal(state, player))


# ------------------------------------------------------------------------- star ---


def test_the_star_opens_after_the_start_players_first_turn_and_makes_the_next_first_player() -> None:
    state = start(first_player="ann", bag="RRRRBBBGGGYY")
    assert not any(a.action == {"type": "take", "row": "pieces", "slot": 4} for a in ENGINE.legal(state, "ann"))
    message = refused(state, "ann", type="take", row="pieces", slot=4)
    assert message == "The star space opens after the start player's first turn of the round."
    state, _ = act(state, "ann", type="take", row="cards", slot=1)
    assert {"type": "take", "row": "pieces", "slot": 4} in [a.action for a in ENGINE.legal(state, "bob")]
    state, events = act(state, "bob", type="take", row="pieces", slot=4)
    assert events[0]["items"] == ["Y", "Y"]  # drawn from the bag when taken
    assert state["pending"]["items"] == ["Y", "Y"]
    assert ENGINE.view(state, None)["star"]["taken_by"] == "bob"
    while state["round"] == 1:
        state = ai_turn(state)
    assert state["first_player"] == "bob"
    assert ENGINE.to_act(state) == ["bob"]


@pytest.mark.parametrize("seed", [5, 6])
def test_without_a_star_taker_the_rightmost_worker_of_the_fourth_row_starts(seed: int) -> None:
    state = start(("ann", "bob", "cy"), seed=seed, first_player="ann")
    takers: dict[int, str] = {}
    while state["round"] == 1:
        player = ENGINE.to_act(state)[0]
        action = GAME.computer.normal(state, player)
        if action == {"type": "take", "row": "pieces", "slot": 4}:  # nobody takes the star
            action = next(
                a.action for a in ENGINE.legal(state, player)
                if a.action.get("row") == "pieces" and a.action["slot"] != 4
            )
        if action["type"] == "take" and action["row"] == "pieces":
            takers[action["slot"]] = player
        state, _ = ENGINE.apply(state, player, action)
    assert sorted(takers) == [1, 2, 3]
    # "The player with the worker closest to the star space (the rightmost worker in the
    # fourth row) takes the star token and becomes the first player for the next round."
    assert state["first_player"] == takers[3]
    assert ENGINE.to_act(state) == [takers[3]]


# ----------------------------------------------------------------- achievements ---


def _give_yellow_row(state: State, player: str) -> State:
    """Turn ``player``'s neighbourhood into S2 + C16 with yellow pieces ready to build."""
    state = copy.deepcopy(state)
    state["neighbourhoods"][player] = {
        "tiles": [{"tile": "S2", "at": [0, 0], "rotation": 0}, {"tile": "C16", "at": [0, 1], "rotation": 0}],
        "features": {},
        "buildings": {"1,1": {"color": "Y", "height": 1}, "0,2": {"color": "Y", "height": 1}},
    }
    return state


def test_achievements_are_claimed_at_the_end_of_the_turn_on_the_highest_free_ring() -> None:
    state = start(first_player="ann", city="Lisbon", bag="YYYYRRRBBB")
    state = _give_yellow_row(state, "ann")
    state, _ = act(state, "ann", type="take", row="pieces", slot=1)
    state, events = act(state, "ann", type="place_piece", color="Y", space=[0, 3])
    assert events == [{"type": "piece_placed", "player": "ann", "color": "Y", "space": [0, 3], "height": 1}]
    assert state["rings"]["LIS1"] == [None, None, None]  # not during the turn
    for _ in range(2):
        state, events = act(state, "ann", type="place_piece", color="Y", space=[0, 3])
    state, events = act(state, "ann", type="place_piece", color="Y", space=[0, 2])
    claimed = [e for e in events if e["type"] == "achievement_claimed"]
    assert claimed == [{"type": "achievement_claimed", "player": "ann", "achievement": "LIS1",
                        "name": "Eléctricos", "vp": 5}]
    assert state["rings"]["LIS1"] == ["ann", None, None]
    # bob gets the next ring; ann never claims twice and never loses it.
    state = _give_yellow_row(state, "bob")
    state["neighbourhoods"]["bob"]["buildings"]["0,3"] = {"color": "Y", "height": 1}
    state, events = act(state, "bob", type="take", row="cards", slot=1)
    assert state["rings"]["LIS1"] == ["ann", "bob", None]
    assert [e["vp"] for e in events if e["type"] == "achievement_claimed"] == [3]
    state["neighbourhoods"]["ann"]["buildings"] = {}
    state, events = act(state, "cy", type="take", row="cards", slot=2)
    assert state["rings"]["LIS1"] == ["ann", "bob", None]
    assert ENGINE.view(state, None)["scores"]["ann"] == 5


def test_two_players_skip_the_middle_ring() -> None:
    state = start(("ann", "bob"), first_player="ann", city="Lisbon")
    assert state["rings"]["LIS1"] == [None, None]
    state = _give_yellow_row(state, "ann")
    state["neighbourhoods"]["ann"]["buildings"]["0,3"] = {"color": "Y", "height": 1}
    state = _give_yellow_row(state, "bob") | {"neighbourhoods": state["neighbourhoods"]}
    state["neighbourhoods"]["bob"] = copy.deepcopy(state["neighbourhoods"]["ann"])
    state, first = act(state, "ann", type="take", row="cards", slot=1)
    state, second = act(state, "bob", type="take", row="cards", slot=2)
    assert [e["vp"] for e in first + second if e["type"] == "achievement_claimed"] == [5, 2]
    view = ENGINE.view(state, None)["city"]["achievements"][0]
    assert view["rings"] == [{"vp": 5, "player": "ann"}, {"vp": 2, "player": "bob"}]


# ------------------------------------------------------------------ end scoring ---


def play_out(state: State) -> State:
    while state["phase"] != "over":
        player = ENGINE.to_act(state)[0]
        state, _ = ENGINE.apply(state, player, GAME.computer.normal(state, player))
    return state


def test_the_game_ends_after_the_last_round_with_a_breakdown_per_player() -> None:
    state = play_out(start(("ann", "bob"), seed=11))
    assert state["round"] == 4
    assert ENGINE.to_act(state) == []
    assert all(len(h["tiles"]) == 9 for h in state["neighbourhoods"].values())
    result = ENGINE.result(state)
    assert result is not None
    breakdown = result.extra["breakdown"]
    for player in ("ann", "bob"):
        b = breakdown[player]
        assert result.scores[player] == b["total"]
        assert b["total"] == b["achievements"] + b["water"] + b["park"] + b["monuments"] + b["cards"]
        assert len(b["scoring_cards"]) == 8
        assert b["cards"] == sum(row["vp"] for row in b["scoring_cards"])
    assert ENGINE.view(state, None)["breakdown"] == breakdown
    assert refused(state, "ann", type="take", row="cards", slot=1) == "The game is over."
    assert ENGINE.legal(state, "ann") == []


def test_a_tie_on_every_count_is_a_shared_victory() -> None:
    state = play_out(start(("ann", "bob"), seed=12))
    state["neighbourhoods"]["bob"] = copy.deepcopy(state["neighbourhoods"]["ann"])
    state["cards_held"]["bob"] = list(state["cards_held"]["ann"])
    for rings in state["rings"].values():
        rings[:] = [None] * len(rings)
    result = ENGINE.result(state)
    assert result is not None
    assert result.winners == ["ann", "bob"]
    state["rings"]["NYC1" if "NYC1" in state["rings"] else next(iter(state["rings"]))][1] = "bob"
    result = ENGINE.result(state)
    assert result is not None and result.winners == ["bob"]


def test_result_is_none_while_the_game_runs() -> None:
    assert ENGINE.result(start()) is None


# ----------------------------------------------------------------------- options ---


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (("ann",), {}, "Cities is played by 2 to 4 players."),
        (("a", "b", "c", "d", "e"), {}, "Cities is played by 2 to 4 players."),
        (("ann", "ann"), {}, "Every player may sit at the table only once."),
        (("ann", "bob"), {"city": "Atlantis"}, "There is no city board 'Atlantis'"),
        (("ann", "bob"), {"variant": "4x4"}, "The variant is either standard or 3x5."),
        (("ann", "bob"), {"first_player": "zed"}, "The first player must be one of the players."),
        (("ann", "bob"), {"scoring_cards": ["K99"]}, "The scoring_cards option names unknown scoring cards: K99."),
        (("ann", "bob"), {"scoring_cards": ["K01", "K01"]}, "The scoring_cards option names K01 more than once."),
        (("ann", "bob"), {"city_tiles": ["S1"]}, "The city_tiles option names unknown city tiles: S1."),
        (("ann", "bob"), {"feature_tiles": "F01"}, "The feature_tiles option is a list"),
        (("ann", "bob"), {"bag": "RX"}, "The bag holds only R, B, G and Y pieces, not X."),
        (("ann", "bob"), {"bag": "R" * 26}, "The bag holds only 25 red pieces, not 26."),
        (("ann", "bob"), {"speed": "fast"}, "Cities has no option speed."),
    ],
)
def test_bad_options_are_refused_with_a_reason(players: tuple[str, ...], options: dict[str, Any], message: str) -> None:
    with pytest.raises(IllegalAction) as caught:
        ENGINE.new(list(players), options, 1)
    assert str(caught.value).startswith(message)


def test_options_choose_the_city_and_first_player() -> None:
    state = new(("ann", "bob", "cy"), city="rio de janeiro", first_player="cy")
    assert state["city"] == "Rio de Janeiro"
    assert state["first_player"] == "cy"
    assert set(state["rings"]) == {"RIO1", "RIO2", "RIO3"}
    assert new(("ann", "bob"), first_player=1)["first_player"] == "bob"
    cities = {new(seed=seed)["city"] for seed in range(30)}
    assert len(cities) > 3  # without the option, a random board


def test_stacked_bag_and_decks_keep_the_rest_shuffled_below() -> None:
    state = new(bag=["R", "b", "G"], scoring_cards=["K07"])
    assert state["bag"][:3] == ["R", "B", "G"]
    assert sorted(state["bag"]) == sorted("RBGY" * 25)
    assert state["decks"]["scoring_cards"][0] == "K07"
    assert sorted(state["decks"]["scoring_cards"]) == sorted(CONTENT.cards)


# ---------------------------------------------------------------- the contract ---


def test_apply_never_mutates_its_input_and_is_deterministic() -> None:
    state = start(seed=21)
    before = copy.deepcopy(state)
    player = ENGINE.to_act(state)[0]
    action = GAME.computer.normal(state, player)
    first, _ = ENGINE.apply(state, player, action)
    second, _ = ENGINE.apply(state, player, action)
    assert state == before
    assert first == second
    assert json.loads(json.dumps(first)) == first


def test_the_same_seed_and_moves_give_the_same_game() -> None:
    a = play_out(start(("ann", "bob"), seed=31))
    b = play_out(start(("ann", "bob"), seed=31))
    assert a == b
    assert play_out(start(("ann", "bob"), seed=32)) != a


def test_nobody_and_strangers_cannot_act() -> None:
    state = start(first_player="ann")
    assert refused(state, None, type="take", row="cards", slot=1) == "Only a player can make that move."
    assert refused(state, "zed", type="take", row="cards", slot=1) == "You are not playing in this game."
    assert refused(state, "ann", type="fly") == "Cities has no move called 'fly'."
    assert refused(state, "ann", type="take", row="garden", slot=1).startswith("Take from the cards")
    assert refused(state, "ann", type="take", row="cards", slot=5) == "Each row has spaces 1 to 4."
    assert ENGINE.timeout_action(state) is None


def test_the_public_view_shows_the_table() -> None:
    state = start(("ann", "bob", "cy"), first_player="bob", city="Venice")
    view = ENGINE.view(state, None)
    assert view["turn"] == "bob" and view["to_act"] == ["bob"]
    assert view["city"]["name"] == "Venice"
    assert [a["id"] for a in view["city"]["achievements"]] == ["VEN1", "VEN2", "VEN3"]
    assert view["city"]["achievements"][2]["rings"] == [
        {"vp": 8, "player": None}, {"vp": 5, "player": None}, {"vp": 3, "player": None}
    ]
    assert set(view["rows"]) == {"cards", "tiles", "features", "pieces"}
    assert set(view["neighbourhoods"]) == {"ann", "bob", "cy"}
    assert len(view["neighbourhoods"]["ann"]["spaces"]) == 4
    assert view["cards_held"] == {"ann": [], "bob": [], "cy": []}
    assert sum(view["bag"].values()) == 90
    assert view["scores"] == {"ann": 0, "bob": 0, "cy": 0}
    assert view["pending"] is None
    assert "breakdown" not in view
    assert "seed" not in view and "decks" in view and isinstance(view["decks"]["city_tiles"], int)


# ------------------------------------------------------------------ a replay ---

REPLAY_OPTIONS = {
    "city": "Venice",
    "first_player": "ann",
    "scoring_cards": ["K19", "K25", "K13", "K08"],
    "city_tiles": ["C20", "C17", "C13", "C32"],
    "feature_tiles": ["F01", "F06", "F19", "F37", "F11", "F45"],
    "bag": "YYYY" "RRR" "GGG" "RB",
}

REPLAY: list[tuple[str, dict[str, Any]]] = [
    ("bob", {"type": "choose_start_tile", "tile": "S1"}),  # R W / P B
    ("ann", {"type": "choose_start_tile", "tile": "S2"}),  # G W / P Y
    # 1. ann: Y Y / W W turned 180° = W W / Y Y, water running on from her start tile.
    ("ann", {"type": "take", "row": "tiles", "slot": 1}),
    ("ann", {"type": "place_tile", "at": [0, 1], "rotation": 180}),
    ("bob", {"type": "take", "row": "cards", "slot": 1}),  # Townhouses
    ("ann", {"type": "take", "row": "cards", "slot": 2}),  # Lakes
    # 4. bob takes the star: two pieces drawn now, R and B.
    ("bob", {"type": "take", "row": "pieces", "slot": 4}),
    ("bob", {"type": "place_piece", "color": "R", "space": [0, 0]}),
    ("bob", {"type": "place_piece", "color": "B", "space": [1, 1]}),
    ("ann", {"type": "take", "row": "pieces", "slot": 1}),  # Y Y Y Y
    ("ann", {"type": "place_piece", "color": "Y", "space": [1, 1]}),
    ("ann", {"type": "place_piece", "color": "Y", "space": [1, 2]}),
    ("ann", {"type": "place_piece", "color": "Y", "space": [1, 3]}),
    ("ann", {"type": "place_piece", "color": "Y", "space": [1, 2]}),
    ("bob", {"type": "take", "row": "features", "slot": 1}),  # Sailboat + Ferry
    ("bob", {"type": "place_feature", "feature": "F01", "space": [0, 1]}),
    ("bob", {"type": "discard_feature", "feature": "F06"}),
    ("ann", {"type": "take", "row": "features", "slot": 2}),  # Fountain
    ("ann", {"type": "place_feature", "feature": "F19", "space": [1, 0]}),
    # 8. bob: R R / W W turned 90° = W R / W R, joining his water.
    ("bob", {"type": "take", "row": "tiles", "slot": 2}),
    ("bob", {"type": "place_tile", "at": [0, 1], "rotation": 90}),
    ("ann", {"type": "take", "row": "features", "slot": 3}),  # a monument
    ("ann", {"type": "place_feature", "feature": "F37", "space": [0, 0]}),
    ("bob", {"type": "take", "row": "cards", "slot": 3}),  # Red Quarter
    ("ann", {"type": "take", "row": "cards", "slot": 4}),  # face-down: Yellow Waterfront
    ("bob", {"type": "take", "row": "pieces", "slot": 2}),  # R R R
    ("bob", {"type": "place_piece", "color": "R", "space": [0, 3]}),
    ("bob", {"type": "place_piece", "color": "R", "space": [1, 3]}),
    ("bob", {"type": "place_piece", "color": "R", "space": [0, 3]}),
    ("ann", {"type": "take", "row": "tiles", "slot": 3}),  # R R / P P
    ("ann", {"type": "place_tile", "at": [1, 0], "rotation": 0}),
    # 14. bob: Kayaks + the face-down Wild tile; the wild finds no empty city space.
    ("bob", {"type": "take", "row": "features", "slot": 4}),
    ("bob", {"type": "place_feature", "feature": "F11", "space": [1, 2]}),
    ("bob", {"type": "discard_feature", "feature": "F45"}),
    ("ann", {"type": "take", "row": "pieces", "slot": 3}),  # G G G: no green space left
    ("ann", {"type": "discard_piece", "color": "G"}),
    ("ann", {"type": "discard_piece", "color": "G"}),
    ("ann", {"type": "discard_piece", "color": "G"}),
    ("bob", {"type": "take", "row": "tiles", "slot": 4}),  # face-down: W W / G P
    ("bob", {"type": "place_tile", "at": [1, 0], "rotation": 0}),
]


def test_a_stacked_two_player_round_replays_exactly() -> None:
    state = ENGINE.new(["ann", "bob"], dict(REPLAY_OPTIONS), 99)
    log: list[dict[str, Any]] = []
    for player, action in REPLAY:
        if action["type"] == "discard_feature" and action["feature"] == "F45":
            assert [a.action for a in ENGINE.legal(state, player)] == [action]  # nowhere to go
        state, events = ENGINE.apply(state, player, action)
        log.extend(events)
    assert state["round"] == 2
    assert state["first_player"] == "bob"  # he took the star
    assert ENGINE.to_act(state) == ["bob"]
    revealed = [e["revealed"] for e in log if e["type"] == "took" and e["revealed"]]
    assert revealed == [["K08"], ["F45"], ["C32"]]
    claims = [(e["player"], e["achievement"], e["vp"]) for e in log if e["type"] == "achievement_claimed"]
    assert claims == [("bob", "VEN1", 5)]  # Gondolas: Sailboat and Kayaks in one water area
    assert state["rings"] == {"VEN1": ["bob", None], "VEN2": [None, None], "VEN3": [None, None]}
    assert state["removed"]["feature_tiles"] == ["F06", "F45"]
    assert state["removed"]["pieces"] == {"R": 0, "B": 0, "G": 3, "Y": 0}
    assert state["neighbourhoods"]["ann"]["buildings"] == {
        "1,1": {"color": "Y", "height": 1}, "1,2": {"color": "Y", "height": 2}, "1,3": {"color": "Y", "height": 1},
    }
    view = ENGINE.view(state, None)
    # ann: Lakes 3 + Yellow Waterfront 2 + Fountain park 1 + monument 2.
    # bob: Townhouses 1 + Red Quarter 6 + water with two kinds 3 + Gondolas 5.
    assert view["scores"] == {"ann": 8, "bob": 15}
    assert [c["id"] for c in view["cards_held"]["ann"]] == ["K25", "K08"]


# ------------------------------------------------------------------- junk input ---

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
_actions = st.fixed_dictionaries(
    {"type": st.sampled_from(["choose_start_tile", "take", "place_tile", "place_feature",
                              "discard_feature", "place_piece", "discard_piece", "nap"])},
    optional={key: _json | st.sampled_from(["cards", "pieces", "R", "F01", "C16", "S1"]) | st.just([0, 1])
              for key in ("row", "slot", "at", "rotation", "feature", "space", "color", "tile")},
)
_JUNK_STATES: list[State] = []


def _junk_states() -> list[State]:
    if not _JUNK_STATES:
        state = new(seed=8)
        _JUNK_STATES.append(state)
        for _ in range(12):
            player = ENGINE.to_act(state)[0]
            state, _ = ENGINE.apply(state, player, GAME.computer.normal(state, player))
            _JUNK_STATES.append(state)
    return _JUNK_STATES


@settings(max_examples=150, deadline=None)
@given(index=st.integers(0, 12), action=_actions)
def test_any_malformed_action_is_refused_with_a_sentence_or_accepted(index: int, action: dict[str, Any]) -> None:
    state = _junk_states()[index]
    before = copy.deepcopy(state)
    player = ENGINE.to_act(state)[0]
    try:
        after, _ = ENGINE.apply(state, player, action)
    except IllegalAction as refusal:
        assert str(refusal).endswith(".")
    else:  # a legal move (extra keys are ignored): the new state is still plain JSON
        assert json.loads(json.dumps(after)) == after
    assert state == before
