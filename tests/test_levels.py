"""Computer-player levels: no peeking, same moves for the same game, normal unchanged,
and the arena's figures."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable

import pytest

from bot.__main__ import main
from bot.core.engine import JSON, Engine
from bot.core.levels import LEVELS, Budget, decide, level_of, sequential_halving
from bot.core.records import Seat
from bot.games import GAMES
from bot.games.bigcity.content import stack_of
from bot.tools.arena import arena, lineup, table, tag, wilson

# Small, fixed searches: deterministic (no clock) and quick.
BUDGET = Budget(iterations=12, seconds=None)


def advance(engine: Engine, state: JSON, moves: int, until: Callable[[JSON], bool]) -> JSON:
    """Normal players play ``moves`` moves, then on until ``until(state)`` holds."""
    played = 0
    while engine.result(state) is None and (played < moves or not until(state)):
        player = engine.to_act(state)[0]
        state, _ = engine.apply(state, player, GAMES[engine.name].computer.normal(state, player))
        played += 1
    assert engine.result(state) is None
    return state


# -- two states that differ only in what the player to move cannot see ----------------------

def cityscape_pair(seed: int) -> tuple[JSON, str, JSON]:
    engine = GAMES["cityscape"].engine
    state = engine.new(["ann", "bob"], {}, seed)
    state = advance(engine, state, 6 + seed % 5,
                    lambda s: s["phase"] == "building" and engine.to_act(s) == ["ann"])
    other = copy.deepcopy(state)
    for side in ("N", "E"):  # bob's sides: his secret codes
        other["goals"][side] = [(c % 6) + 1 for c in other["goals"][side]]
    return state, "ann", other


def cityscape_goals_pair(seed: int) -> tuple[JSON, str, JSON]:
    engine, computer = GAMES["cityscape"].engine, GAMES["cityscape"].computer
    state = engine.new(["ann", "bob", "cy"], {}, seed)
    # bob and cy set their goals first; ann, still choosing, must not see them.
    for player in ("bob", "cy"):
        state, _ = engine.apply(state, player, computer.normal(state, player))
    other = copy.deepcopy(state)
    other["goals"]["W"] = [6, 6, 1, 4]
    other["goals"]["N"] = [4, 4, 4, 4]
    return state, "ann", other


def bigcityz_pair(seed: int) -> tuple[JSON, str, JSON]:
    engine = GAMES["bigcityz"].engine
    state = engine.new(["ann", "bob", "cy"], {}, seed)
    state = advance(engine, state, 4 + seed % 4, lambda s: "ann" in engine.to_act(s))
    other = copy.deepcopy(state)
    rng = random.Random(seed)
    rng.shuffle(other["city_pile"])
    other["city_pile"][0] = "not-a-city-anyone-saw"
    rng.shuffle(other["statement_pile"])
    return state, "ann", other


def bigcityz_veto_pair(seed: int) -> tuple[JSON, str, JSON]:
    engine = GAMES["bigcityz"].engine
    state = engine.new(["ann", "bob"], {}, seed)
    state = advance(engine, state, 2, lambda s: s["phase"] == "veto")
    player = engine.to_act(state)[0]
    other = copy.deepcopy(state)
    other["city_pile"].reverse()
    return state, player, other


def cities_pair(seed: int) -> tuple[JSON, str, JSON]:
    engine = GAMES["cities"].engine
    state = engine.new(["ann", "bob"], {}, seed)
    state = advance(engine, state, 8 + seed % 6,
                    lambda s: engine.to_act(s) == ["ann"] and s["pending"] is None)
    other = copy.deepcopy(state)
    rng = random.Random(seed)
    for deck in other["decks"].values():
        rng.shuffle(deck)
    rng.shuffle(other["bag"])
    # A face-down item on the board changes places with the top of its deck.
    for row, deck in (("cards", "scoring_cards"), ("tiles", "city_tiles"), ("features", "feature_tiles")):
        for slot in other["rows"][row]:
            for i, hidden in enumerate(slot["hidden"]):
                if hidden and other["decks"][deck]:
                    slot["items"][i], other["decks"][deck][0] = other["decks"][deck][0], slot["items"][i]
    assert other != state
    return state, "ann", other


def bigcity_pair(seed: int) -> tuple[JSON, str, JSON]:
    engine = GAMES["bigcity"].engine
    state = engine.new(["ann", "bob"], {}, seed)
    state = advance(engine, state, 20 + seed % 7,
                    lambda s: engine.to_act(s) == ["ann"] and s["step"] in ("start", "main"))
    other = copy.deepcopy(state)
    rng = random.Random(seed)
    for pile in other["stacks"].values():
        rng.shuffle(pile)
    # Each of bob's cards changes places with an unseen card of the same stack.
    for i, card in enumerate(other["hands"]["bob"]):
        pile = other["stacks"][str(stack_of(card))]
        if pile:
            other["hands"]["bob"][i], pile[0] = pile[0], card
    assert other != state
    return state, "ann", other


PAIRS = {
    "cityscape build": cityscape_pair,
    "cityscape goals": cityscape_goals_pair,
    "bigcityz place": bigcityz_pair,
    "bigcityz objection": bigcityz_veto_pair,
    "cities": cities_pair,
    "bigcity": bigcity_pair,
}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("case", sorted(PAIRS))
def test_no_peeking_hidden_information_does_not_change_the_move(case: str, level: str) -> None:
    game = case.split()[0]
    engine, computer = GAMES[game].engine, GAMES[game].computer
    for seed in (1, 2, 3):
        state, player, other = PAIRS[case](seed)
        assert engine.view(state, player) == engine.view(other, player)
        assert decide(computer, state, player, level, BUDGET) == \
            decide(computer, other, player, level, BUDGET), (case, level, seed)


# -- levels play legal, reproducible games; normal is the engine's own player --------------

def play(game: str, levels: dict[str, str], seed: int) -> tuple[list[JSON], JSON]:
    engine, computer = GAMES[game].engine, GAMES[game].computer
    options: JSON = {"rounds": 1} if game == "cityscape" else {}
    state = engine.new(list(levels), options, seed)
    log: list[JSON] = []
    while engine.result(state) is None:
        player = engine.to_act(state)[0]
        action = decide(computer, state, player, levels[player], BUDGET)
        state, _ = engine.apply(state, player, action)  # an illegal move would raise
        log.append(action)
    result = engine.result(state)
    assert result is not None
    return log, result.scores


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_level_finishes_a_game_and_replays_it_move_for_move(game: str) -> None:
    levels = {"ann": "hard", "bob": "easy"}
    first = play(game, levels, 5)
    assert first == play(game, levels, 5)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_normal_level_is_the_engine_computer_player(game: str) -> None:
    engine, computer = GAMES[game].engine, GAMES[game].computer
    state = engine.new(["ann", "bob", "cy"], {}, 11)
    for _ in range(40):
        if engine.result(state) is not None:
            break
        player = engine.to_act(state)[0]
        action = decide(computer, state, player, "normal")
        assert action == computer.normal(state, player)
        state, _ = engine.apply(state, player, action)


def test_a_seat_saved_before_levels_plays_normal_and_a_level_survives_saving() -> None:
    old = Seat.from_json({"id": "cpu1", "name": "Ada (computer)", "cpu": True})
    assert old.level == "normal"
    assert Seat.from_json({"id": "cpu1", "name": "x", "cpu": True, "level": "bogus"}).level == "normal"
    hard = Seat(id="cpu2", name="Bo (computer)", cpu=True, level="hard")
    assert Seat.from_json(hard.to_json()) == hard
    # A normal seat is saved exactly as before levels existed.
    assert Seat(id="1", name="Ann").to_json() == {"id": "1", "name": "Ann", "cpu": False}
    assert level_of(None) == level_of("expert") == "normal"


# -- the arena ----------------------------------------------------------------------------

def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    low, high = wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    assert wilson(0, 0) == (0.0, 1.0)


def test_lineup_fills_the_remaining_seats_with_the_last_level() -> None:
    assert lineup(["hard", "normal"], 4) == ["hard", "normal", "normal", "normal"]
    with pytest.raises(ValueError, match="unknown level"):
        lineup(["expert"], 2)
    with pytest.raises(ValueError):
        lineup(["easy", "easy", "easy"], 2)


def test_arena_rotates_seats_and_counts_every_game() -> None:
    report = arena("cityscape", 2, ["easy", "normal"], 4, 3, BUDGET, {"rounds": 1})
    levels = report["levels"]
    assert set(levels) == {"easy", "normal"}
    assert levels["easy"]["seat_games"] == levels["normal"]["seat_games"] == 4
    assert levels["easy"]["wins"] + levels["normal"]["wins"] == pytest.approx(4)
    for figures in levels.values():
        low, high = figures["win_rate_ci95"]
        assert low <= figures["win_rate"] <= high
        assert figures["moves"] > 0
        # A one-round game of two: two goal settings and 12 or 13 blocks each.
        assert figures["per_game"]["set_goals"] == 2
        assert 12 <= figures["per_game"]["build"] <= 13
    # Same seed, same games.
    again = arena("cityscape", 2, ["easy", "normal"], 4, 3, BUDGET, {"rounds": 1})
    for level in ("easy", "normal"):
        assert again["levels"][level]["mean_score"] == levels[level]["mean_score"]


def test_rule_use_counts_tell_risk_fields_and_the_star_space_apart() -> None:
    assert tag({"type": "place", "risk": "1-2", "color": "green"}) == "place_risk"
    assert tag({"type": "place", "slot": 1, "color": "red", "points": 3}) == "place"
    assert tag({"type": "take", "row": "pieces", "slot": 4}) == "take_star"
    assert tag({"type": "take", "row": "pieces", "slot": 2}) == "take_pieces"
    assert tag({"type": "streetcar", "segments": []}) == "streetcar"
    # Big City: the rulebook's special buildings apart from the others; parks and
    # factories are the action "special".
    assert tag({"type": "build", "building": "cinema", "properties": [3]}) == "build_special"
    assert tag({"type": "build", "building": "double_business", "properties": [3, 4]}) == "build"
    assert tag({"type": "special", "card": "lincoln_park", "properties": [3, 4]}) == "special"


def test_arena_counts_the_streetcar_segments_laid_besides_the_streetcar_moves() -> None:
    # Seed 1: the normal players lay 4 segments in 3 streetcar moves over two games.
    report = arena("bigcity", 2, ["normal"], 2, 1, BUDGET)
    per_game = report["levels"]["normal"]["per_game"]
    assert per_game["streetcar"] == 1.5
    assert per_game["streetcar_segments"] == 2.0


def test_arena_reports_how_cities_scores_are_earned() -> None:
    """Achievements claimed and points per part, per seat-game: they add up to the mean
    score, so the counts of rule use are the game's own."""
    report = arena("cities", 2, ["normal"], 2, 1, BUDGET)
    normal = report["levels"]["normal"]
    parts = normal["tally_per_game"]
    points = sum(v for k, v in parts.items() if k.startswith("points_"))
    assert points == pytest.approx(normal["mean_score"], abs=0.01)
    assert {"points_achievements", "points_cards", "points_water", "points_park",
            "points_monuments", "monument_count", "achievements"} <= set(parts)
    assert parts["achievements"] > 0 and parts["points_achievements"] > 0
    assert f"achievements {parts['achievements']:g}" in table(report).splitlines()[-1]


def test_arena_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "bigcityz", "--players", "3", "--levels", "hard,normal",
                 "--games", "3", "--iterations", "8", "--seconds", "0", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["lineup"] == ["hard", "normal", "normal"]
    assert report["levels"]["hard"]["seat_games"] == 3
    assert report["levels"]["normal"]["seat_games"] == 6


def test_arena_command_refuses_an_unknown_level(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["arena", "cities", "--levels", "expert,normal", "--games", "1"])
    assert "unknown level" in capsys.readouterr().err


def test_search_keeps_the_best_mean_and_the_clock_never_picks_an_untried_move() -> None:
    values = {"a": -5.0, "b": -1.0, "c": -3.0, "d": -2.0}
    chosen = sequential_halving(list(values), lambda move, sample: values[move],
                                Budget(iterations=40, seconds=None), 40)
    assert chosen == "b"
    # A clock already out after the first play-out: only "a" was tried, so it is kept even
    # though its mean is below zero (an untried move's empty mean must not count as 0).
    chosen = sequential_halving(list(values), lambda move, sample: values[move],
                                Budget(iterations=40, seconds=0.0), 40)
    assert chosen == "a"
