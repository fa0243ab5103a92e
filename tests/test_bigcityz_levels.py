"""Big Cityz's hard player: its fast copy of normal, its beliefs, and playing for the win."""

from __future__ import annotations

import pytest

from bot.core.levels import Budget
from bot.games.bigcityz import ENGINE, GAME, ai, content, levels, playout
from tests.test_bigcityz_rules import start

JSON = dict


def _move_of_placement(table: playout.Table, placement: JSON) -> playout.Move:
    if placement["kind"] == "no_free_square":
        return ("none", -1, -1)
    return playout.move_of(table, {"type": "place", **{
        k: placement[k] for k in ("slot", "risk", "color", "points") if k in placement}})


@pytest.mark.parametrize("players", [2, 3])
def test_the_play_outs_copy_of_normal_chooses_as_normal_does(players: int) -> None:
    """Over whole games: the same place (or one worth exactly as much: normal breaks ties
    with a coin), the same decision to replace, the same objections."""
    checked = 0
    for seed in range(8):
        state = ENGINE.new(["ann", "bob", "cy"][:players], {}, seed)
        while ENGINE.result(state) is None:
            player = ENGINE.to_act(state)[0]
            action = GAME.computer.normal(state, player)
            table = playout.table_of(state)
            belief = [ai.belief(state, player, state["current_city"], sid)
                      for sid in playout.statements()]
            if state["phase"] == "veto":
                placement = state["placement"]
                free = [playout.move_of(table, t) for t in placement.get("free", [])]
                move = _move_of_placement(table, placement)
                assert playout.objects(table, move, belief, free) == (action["type"] == "veto")
            else:
                score = table.scores[table.turn]
                if state["replaced_slot"] is not None:
                    mine = playout.best_on_board(table, state["replaced_slot"] - 1, belief)
                else:
                    mine = playout.normal_move(table, belief, score)
                theirs = playout.move_of(table, action)
                assert mine[0] == theirs[0]
                if mine[0] in ("square", "risk"):
                    assert playout.value(table, mine, belief, score) == \
                        pytest.approx(playout.value(table, theirs, belief, score))
            checked += 1
            state, _ = ENGINE.apply(state, player, action)
    assert checked > 100


@pytest.mark.parametrize(("table", "chance"), [("easy", 0.82), ("normal", 0.9), ("hard", 0.96)])
def test_hard_knows_more_cities_than_the_tables_knowledge(table: str, chance: float) -> None:
    """A hard computer knows every fact a normal one at the table's knowledge would, and
    RECALL of the rest: 9 facts in 10 at normal knowledge. Its knowledge is a memory fixed
    for the game: the same fact is known or not whatever happens at the table."""
    state = ENGINE.new(["ann", "bob"], {"ai_level": table}, 9)
    facts = [(c, s) for c in content.city_ids() for s in content.statement_ids()]
    known = [levels.hard_knows(state, "ann", c, s) for c, s in facts]
    assert sum(known) / len(facts) == pytest.approx(chance, abs=0.02)
    assert levels.hard_chance(state, "ann") == pytest.approx(chance)
    normal = [ai.knows(state, "ann", c, s) for c, s in facts]
    assert all(k for k, n in zip(known, normal, strict=True) if n)
    later = {**state, "scores": {"ann": 30, "bob": 12}, "city_pile": state["city_pile"][5:]}
    assert known == [levels.hard_knows(later, "ann", c, s) for c, s in facts]
    # bob's memory is his own: about as large, not the same facts.
    bobs = [levels.hard_knows(state, "bob", c, s) for c, s in facts]
    assert bobs != known and sum(bobs) / len(facts) == pytest.approx(chance, abs=0.02)


def test_hard_is_sure_of_what_it_knows_and_reasons_about_the_rest(
        monkeypatch: pytest.MonkeyPatch) -> None:
    state = start(["Paris"], players=["ann", "bob"])
    ids = playout.statements()
    monkeypatch.setattr(levels, "hard_knows", lambda s, p, city, sid: False)
    # Knowing nothing, it has only the deck's base rates (the other 199 cards), like normal.
    assert levels.hard_beliefs(state, "ann") == \
        pytest.approx(list(playout.shares(without="paris")))
    monkeypatch.setattr(levels, "hard_knows", lambda s, p, city, sid: sid == "population")
    beliefs = dict(zip(ids, levels.hard_beliefs(state, "ann"), strict=True))
    assert beliefs["population"] == 1.0  # Paris has over a million: known, so certain
    # Big cities mostly have an international airport and are large in area: more likely
    # than in the deck as a whole, and still not certain.
    assert content.share("airport") < beliefs["airport"] < 1.0
    assert content.share("area") < beliefs["area"] < 1.0


def test_on_the_last_turn_hard_risks_what_can_still_win(monkeypatch: pytest.MonkeyPatch) -> None:
    # Bob has reached 36 and ann plays last in the round with 29: the sure green 6 on
    # Capital (Paris is a capital, and ann knows it) gives 35 and loses. Only a risk field
    # (8) can still win, however unsure; normal would take the 6.
    monkeypatch.setattr(ai, "knows", lambda s, p, city, sid: sid == "capital")
    monkeypatch.setattr(levels, "hard_knows", lambda s, p, city, sid: sid == "capital")
    state = start(["Oslo", "Paris"], players=["bob", "ann"])
    state, _ = ENGINE.apply(state, "bob", {"type": "place", "slot": 1, "color": "green",
                                           "points": 5})
    state, _ = ENGINE.apply(state, "ann", {"type": "no_veto"})
    assert ENGINE.to_act(state) == ["ann"] and content.name(state["current_city"]) == "Paris"
    state["scores"] = {"bob": 36, "ann": 29}
    state["end_triggered"] = True
    assert GAME.computer.normal(state, "ann") == {"type": "place", "slot": 3, "color": "green",
                                              "points": 6}
    move = levels.level_action(state, "ann", "hard", Budget(iterations=256, seconds=None))
    assert "risk" in move
    # Ahead instead, it takes the sure points.
    state["scores"] = {"bob": 36, "ann": 33}
    move = levels.level_action(state, "ann", "hard", Budget(iterations=256, seconds=None))
    assert move == {"type": "place", "slot": 3, "color": "green", "points": 6}
