"""The words every game's messages share: names, mentions, counts and the winner line."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from bot.core.records import ACTIVE, Match, Seat
from bot.ui.words import join_words, mention, name, plural, winner_line

if TYPE_CHECKING:
    from bot.games.cities.views import CitiesView


def table(*seats: Seat) -> Match:
    return Match(id=1, guild_id=1, channel_id=1, game="cityscape", status=ACTIVE,
                 host_id=seats[0].id, seats=list(seats), options={}, seed=1)


ANN = Seat("111", "Ann")
ANN_TOO = Seat("222", "Ann")
BOT = Seat("cpu1", "Computer 1", cpu=True)
SNEAKY = Seat("333", "[click](https://evil) @everyone")


def test_plural_is_singular_only_for_exactly_one() -> None:
    assert plural(1, "point") == "1 point"
    assert plural(0, "point") == "0 points"
    assert plural(2, "card") == "2 cards"


def test_join_words_reads_as_a_list() -> None:
    assert join_words([]) == ""
    assert join_words(["A"]) == "A"
    assert join_words(["A", "B"]) == "A and B"
    assert join_words(["A", "B", "C"]) == "A, B and C"


def test_two_members_with_one_name_are_told_apart_as_in_the_pictures() -> None:
    match = table(ANN, ANN_TOO)
    assert name(match, "111") == "Ann"
    assert name(match, "222") == "Ann (2)"


def test_a_name_is_literal_text_that_cannot_link_or_ping() -> None:
    shown = name(table(SNEAKY), "333")
    assert shown.startswith("\\[click]")
    assert "@everyone" not in shown


def test_humans_are_mentioned_and_computers_are_named() -> None:
    match = table(ANN, BOT)
    assert mention(match, "111") == "<@111>"
    assert mention(match, "cpu1") == "Computer 1"


def test_one_winner() -> None:
    match = table(ANN, BOT)
    assert winner_line(match, ["111"], {"111": 12, "cpu1": 9}) == "🏆 <@111> wins with 12 points!"
    assert winner_line(match, ["cpu1"], {"111": 0, "cpu1": 1}) == \
        "🏆 Computer 1 wins with 1 point!"


def test_a_tie_names_every_winner() -> None:
    match = table(ANN, ANN_TOO, BOT)
    line = winner_line(match, ["111", "222", "cpu1"], {"111": 7, "222": 7, "cpu1": 7})
    assert line == "🏆 Shared win: <@111>, <@222> and Computer 1 with 7 points each!"


def test_the_tie_break_is_said_only_when_it_decided() -> None:
    match = table(ANN, BOT)
    scores = {"111": 20, "cpu1": 20}
    assert winner_line(match, ["111"], scores, tie_break="more points from achievements") == \
        "🏆 <@111> wins with 20 points, ahead on the tie-break (more points from achievements)!"
    clear = {"111": 21, "cpu1": 20}
    assert winner_line(match, ["111"], clear, tie_break="more points from achievements") == \
        "🏆 <@111> wins with 21 points!"


def test_no_winners_yet_gives_no_line() -> None:
    assert winner_line(table(ANN), [], {"111": 3}) == ""


def cities_view(totals: dict[str, tuple[int, int, int]], winners: list[str]) -> CitiesView:
    # Only the keys final_line reads: a whole view is bot/games/cities/views.py's to check.
    return cast("CitiesView", {
        "winners": winners, "scores": {p: t[0] for p, t in totals.items()},
        "breakdown": {p: {"total": t, "achievements": a, "cards": c}
                      for p, (t, a, c) in totals.items()}})


def test_cities_says_which_tie_break_decided() -> None:
    from cogs.cities import final_line

    match = table(ANN, BOT)
    on_achievements = cities_view({"111": (30, 8, 5), "cpu1": (30, 4, 9)}, ["111"])
    assert final_line(match, on_achievements) == \
        "🏆 <@111> wins with 30 points, ahead on the tie-break (more points from achievements)!"
    on_cards = cities_view({"111": (30, 8, 5), "cpu1": (30, 8, 9)}, ["cpu1"])
    assert final_line(match, on_cards) == ("🏆 Computer 1 wins with 30 points, ahead on the "
                                           "tie-break (more points from scoring cards)!")
    shared = cities_view({"111": (30, 8, 5), "cpu1": (30, 8, 5)}, ["111", "cpu1"])
    assert final_line(match, shared) == "🏆 Shared win: <@111> and Computer 1 with 30 points each!"
