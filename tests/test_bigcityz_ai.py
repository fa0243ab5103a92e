"""The Big Cityz computer player: what it knows, how it places, replaces and objects."""

from __future__ import annotations

import pytest

from bot.games.bigcityz import ENGINE, GAME, ai, content
from tests.test_bigcityz_rules import (
    PARIS_FILL,
    play_fillers,
    reveal_of,
    square,
    start,
    turn,
)


@pytest.fixture
def all_knowing(monkeypatch: pytest.MonkeyPatch) -> None:
    for level in ai.KNOWLEDGE:
        monkeypatch.setitem(ai.KNOWLEDGE, level, 1.0)


@pytest.fixture
def know_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    for level in ai.KNOWLEDGE:
        monkeypatch.setitem(ai.KNOWLEDGE, level, 0.0)


@pytest.mark.parametrize(("level", "chance"), [("easy", 0.55), ("normal", 0.75), ("hard", 0.9)])
def test_knowledge_is_drawn_per_city_and_statement(level: str, chance: float) -> None:
    state = ENGINE.new(["ann", "bob"], {"ai_levels": {"ann": level}}, 9)
    facts = [(c, s) for c in content.city_ids() for s in content.statement_ids()]
    known = [ai.knows(state, "ann", c, s) for c, s in facts]
    assert sum(known) / len(facts) == pytest.approx(chance, abs=0.03)
    assert known == [ai.knows(state, "ann", c, s) for c, s in facts]  # deterministic


def test_a_harder_level_knows_everything_an_easier_one_does() -> None:
    easy = ENGINE.new(["ann", "bob"], {"ai_levels": {"ann": "easy"}}, 4)
    hard = ENGINE.new(["ann", "bob"], {"ai_levels": {"ann": "hard"}}, 4)
    for city in content.city_ids()[:50]:
        for sid in content.statement_ids():
            if ai.knows(easy, "ann", city, sid):
                assert ai.knows(hard, "ann", city, sid)


def test_what_it_does_not_know_it_guesses_with_the_deck_share(know_nothing: None) -> None:
    # Among the other 199 cards: Paris, the card in play, is not on the coast, and its back
    # must not count. 67 of the 200 cards are coastal, so 67 of the other 199.
    state = start(["Paris"])
    assert content.share("coast") == 67 / 200
    assert ai.belief(state, "ann", "paris", "coast") == content.share("coast", without="paris")
    assert content.share("coast", without="paris") == 67 / 199


def test_without_knowledge_it_bets_on_the_base_rates(know_nothing: None) -> None:
    # South and Capital are both false for about 3 in 4 cities: the red risk field 2-3
    # is the best bet. It cannot tell Paris from Suva, so it plays the same for both.
    for city in ("Paris", "Suva"):
        assert GAME.computer.normal(start([city]), "ann") == {"type": "place", "risk": "2-3",
                                                          "color": "red"}


def test_an_all_knowing_player_places_right(all_knowing: None) -> None:
    state = start(["Paris", "Suva", "Tokyo"])
    for _ in range(3):
        player = ENGINE.to_act(state)[0]
        state, events = turn(state, GAME.computer.normal(state, player))
        assert reveal_of(events)["right"] is True


def test_it_objects_when_it_knows_the_placement_is_wrong(all_knowing: None) -> None:
    state, _ = ENGINE.apply(start(["Paris"]), "ann", square(1, "red", 4))
    assert GAME.computer.normal(state, "bob") == {"type": "veto"}
    state, _ = ENGINE.apply(start(["Paris"]), "ann", square(1, "green", 5))
    assert GAME.computer.normal(state, "bob") == {"type": "no_veto"}


def test_it_does_not_object_on_a_hunch(know_nothing: None) -> None:
    # Knowing nothing of the city, a green Capital looks wrong 73 % of the time, but the
    # placer may know better: no marker is spent.
    state, _ = ENGINE.apply(start(["Paris"]), "ann", square(3, "green", 6))
    assert GAME.computer.normal(state, "bob") == {"type": "no_veto"}


def test_it_replaces_a_board_when_that_pays(all_knowing: None) -> None:
    # Every free square and risk field is wrong for Paris, and board 1 holds three cards.
    state = start([*["Oslo", "Nassau", "Suva", "Havana", "Kabul", "Tunja", "Helena",
                     "Cheyenne", "Valletta"], "Paris"])
    state = play_fillers(state, [*PARIS_FILL, square(1, "red", 4)])
    assert state["current_city"] == "paris"
    player = ENGINE.to_act(state)[0]
    action = GAME.computer.normal(state, player)
    assert action == {"type": "replace", "slot": 1}
    state, _ = ENGINE.apply(state, player, action)
    # The new board is Europe/Asia: Paris is in Europe.
    assert GAME.computer.normal(state, player) == square(1, "green", 5)


def test_it_declares_no_free_square_when_none_would_be_right(all_knowing: None) -> None:
    state = start([*["Oslo", "Nassau", "Suva", "Havana", "Kabul", "Tunja", "Helena",
                     "Cheyenne"], "Paris"])
    state = play_fillers(state, PARIS_FILL)
    assert GAME.computer.normal(state, "cy") == {"type": "no_free_square"}


def test_a_risk_field_is_cheaper_at_the_starting_position() -> None:
    # At 0 points a wrong risk field costs nothing ("nothing happens"); later the -2 counts.
    assert ai.risk_ev(0.5, 0) == 4.0
    assert ai.risk_ev(0.5, 1) == 3.5
    assert ai.risk_ev(0.5, 10) == 3.0


def test_harder_players_win_more_often() -> None:
    wins = {"hard": 0, "easy": 0}
    for seed in range(16):
        levels = {"ann": "hard", "bob": "easy"} if seed % 2 else {"ann": "easy", "bob": "hard"}
        state = ENGINE.new(["ann", "bob"], {"ai_levels": levels}, seed)
        while ENGINE.result(state) is None:
            player = ENGINE.to_act(state)[0]
            state, _ = ENGINE.apply(state, player, GAME.computer.normal(state, player))
        result = ENGINE.result(state)
        assert result is not None
        for winner in result.winners:
            wins[levels[winner]] += 1
    assert wins["hard"] > 2 * wins["easy"]
