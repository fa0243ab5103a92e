"""Big City's sentences: the rules, moves, scores and the hand in words."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.i18n import Text, Words
from bot.core.records import Match
from bot.games.bigcity.content import SPECIAL_CARDS, Card
from bot.games.bigcity.saying import (
    Sentence,
    a_building,
    card_name,
    score_sum,
    shape_text,
    street,
    title,
)
from bot.games.bigcity.views import BigCityPlayerView, BigCityView, LastAction, Move, table
from bot.ui.components import ascii_number
from bot.ui.words import join_words, name, winner_line

_ = Words("bot.games.bigcity")
_n, _l = _.plural, _.lazy

VARIANT_NAMES: dict[str, Text] = {
    "trade_cards": _l("trade cards"),
    "must_exchange_useless": _l("useless cards must be exchanged"),
    "single_streetcar_line": _l("a single streetcar line"),
    "limited_streetcar_line": _l("limited streetcar line"),
    "limited_card_drawing": _l("limited card drawing"),
}

# A str (its English) that says itself in the reader's language: /bigcity rules and the
# lobby's How to play call str() on it.
RULES = Sentence(_l("""\
**Big City** — 2–5 players build one city together; every building scores for its builder \
when it is placed.
**Setup.** Everyone gets one card from stacks 1–5 (1–6 with five players). The starting \
neighborhoods are placed in turn beside neighborhood 1: two of their properties must lie \
next to two properties of the city.
**Your turn: one action.**
• **Build** a residence or business — single, double, or triple in a line — by playing the \
card of every property it covers; special buildings need city hall first.
• Play a **park or factory** card (after city hall) on free properties of its shape: a park \
with at most one property on the outskirts, a factory with at least two.
• Lay **streetcars** (after city hall): the first on any street, then one or two joining \
the line.
• Add a **neighborhood** (after city hall), **exchange** cards, or **pass**.
At the start of your turn you may discard cards made useless by a park or factory. Cards \
that left your hand are replaced at the end of the turn: back to 5 (6 with five players), \
at most two from one stack per turn.
**Scoring.** Residence/business 2 / 6 / 10; +1 next to a park, −2 next to a factory, +1 \
residence on the outskirts, +1 business in the center; then ×2 next to the streetcar \
(businesses: ×2 next to city hall, ×3 next to both). A sub-total of 0 scores 1. Cinema, post \
office, bank 5 (×2 streetcar or city hall, ×3 both); church 15; shopping center 30; city \
hall, parks, factories and streetcars 0.
**Prerequisites.** City hall in the center. Church: the last free property of its \
neighborhood, double-numbered (11, 22…). Cinema next to two residences, bank next to two \
businesses, post office next to one of each. Shopping center (2 properties): a residence, a \
business, a special building and the streetcar next to it.
**End.** Every neighborhood placed and every property built on, or everyone passes in a \
row. Most points wins; ties share.
**Here:** the table's buttons open private choosers — a picture marks each possible place \
with a letter, you pick the letter and confirm. **My hand** shows your cards and what they \
build, with the points."""))


# -- words ------------------------------------------------------------------------------


def cards_words(cards: Sequence[Card]) -> str:
    return join_words([card_name(c) for c in cards])


def sites(props: list[int]) -> str:
    return "+".join(str(p) for p in props)


def score_words(explanation: str, points: int) -> str:
    """The engine's sum with its unit: "… × 2 streetcar = 10 points", "15 points"."""
    if explanation.split()[-1] == str(points):
        return _n("{sum} point", "{sum} points", points, sum=score_sum(explanation))
    return _n("{n} point", "{n} points", points)


def built_words(who: str, building: str, props: list[int], points: int,
                explanation: str) -> str:
    if building == "city_hall":
        return _("{who} built city hall on {sites}: special buildings, parks, factories, "
                 "streetcars and new neighborhoods are allowed from now on.", who=who,
                 sites=sites(props))
    return _("{who} built {a_building} on {sites}: {score}.", who=who,
             a_building=a_building(building), sites=sites(props),
             score=score_words(explanation, points))


def you_built_words(building: str, props: list[int], points: int, explanation: str) -> str:
    """``built_words`` for the builder's own reply: "You built ..."."""
    if building == "city_hall":
        return _("You built city hall on {sites}: special buildings, parks, factories, "
                 "streetcars and new neighborhoods are allowed from now on.",
                 sites=sites(props))
    return _("You built {a_building} on {sites}: {score}.", a_building=a_building(building),
             sites=sites(props), score=score_words(explanation, points))


def placed_words(who: str, card: str, props: list[int]) -> str:
    """A park or factory card played on properties: "Ann placed Lincoln Park on 23+24"."""
    return _("{who} placed {card} on {sites}", who=who, card=title(card), sites=sites(props))


def laid_streets(where: Sequence[str]) -> str:
    """Where streetcars went: "north of 11 and 14–17"."""
    return _(" and ").join(street(w) for w in where)


def action_words(match: Match, action: Move) -> str:
    """A move in a few public words (for timeouts): never a hidden card."""
    if action["type"] == "build":
        return _("built {a_building} on {sites}", a_building=a_building(action["building"]),
                 sites=sites(action["properties"]))
    if action["type"] == "special":
        return _("placed {card} on {sites}", card=title(action["card"]),
                 sites=sites(action["properties"]))
    if action["type"] == "streetcar":
        return _n("laid {n} streetcar", "laid {n} streetcars", len(action["segments"]))
    if action["type"] == "place_neighborhood":
        return _("placed neighborhood {number}", number=action["neighborhood"])
    if action["type"] == "exchange":
        return _n("exchanged {n} card", "exchanged {n} cards", len(action["cards"]))
    if action["type"] == "discard_useless":
        return _("discarded the useless {cards}", cards=cards_words(action["cards"]))
    if action["type"] == "draw":
        return _("finished drawing cards")
    if action["type"] == "trade_offer":
        return _n("offered {n} card for the trade", "offered {n} cards for the trade",
                  len(action["cards"]))
    if action["type"] == "trade_decline":
        return _("declined the trade")
    if action["type"] == "trade_accept":
        return _("took {name}'s offer", name=name(match, action["partner"]))
    if action["type"] == "trade_end":
        return _("ended the trade")
    return _("passed")


def last_move(match: Match, last: LastAction | None) -> str:
    """The table's last move: what ``action_words`` says, with what only the view knows
    (the points, where the streetcars went)."""
    if not last:
        return ""
    who = name(match, last["player"])
    if last["type"] == "build" and last["building"] == "city_hall":
        return _("{who} built city hall on {sites}", who=who, sites=sites(last["properties"]))
    if last["type"] == "build":
        return _n("{who} built {a_building} on {sites} for {n} point",
                  "{who} built {a_building} on {sites} for {n} points", last["points"],
                  who=who, a_building=a_building(last["building"]),
                  sites=sites(last["properties"]))
    if last["type"] == "streetcar":
        return _n("{who} laid {n} streetcar ({streets})", "{who} laid {n} streetcars ({streets})",
                  len(last["segments"]), who=who, streets=laid_streets(last["where"]))
    if last["type"] == "exchange":  # the view keeps how many cards went, not which
        return _n("{who} exchanged {n} card", "{who} exchanged {n} cards", last["count"],
                  who=who)
    if last["type"] == "trade":
        return _n("{who} offered {n} card in trade", "{who} offered {n} cards in trade",
                  len(last["neighborhoods"]), who=who)
    if last["type"] == "special":
        return placed_words(who, last["card"], last["properties"])
    if last["type"] == "place_neighborhood":
        return _("{who} placed neighborhood {number}", who=who, number=last["neighborhood"])
    if last["type"] == "discard_useless":
        return _("{who} discarded the useless {cards}", who=who,
                 cards=cards_words(last["cards"]))
    return _("{who} passed", who=who)


def final_line(match: Match, view: BigCityView) -> str:
    return winner_line(match, view["winners"] or [], view["scores"])


def scores_line(match: Match, view: BigCityView) -> str:
    return " · ".join(f"{name(match, p)} {view['scores'][p]}" for p in view["players"])


def card_notes(view: BigCityPlayerView) -> dict[str, str]:
    """For each card in the viewer's hand: what it is and where its property stands."""
    where = {entry["property"]: entry for entry in view["properties"]}
    pieces = view["buildings"]
    notes: dict[str, str] = {}
    for card in view["hand"]:
        if isinstance(card, str):
            _stack, kind, shape, _title = SPECIAL_CARDS[card]
            notes[str(card)] = (_("park card: {shape}", shape=shape_text(shape)) if kind == "park"
                                else _("factory card: {shape}", shape=shape_text(shape)))
        elif card in view["useless"]:
            piece = where[card]["piece"]
            assert piece is not None  # a useless card's property is under a park or factory
            notes[str(card)] = _("useless: under {card}", card=title(pieces[piece]["building"]))
        elif card in where:
            if where[card]["outskirts"]:
                notes[str(card)] = _("neighborhood {number}, in the city (outskirts)",
                                     number=card // 10)
            else:
                notes[str(card)] = _("neighborhood {number}, in the city (center)",
                                     number=card // 10)
        else:
            notes[str(card)] = _("neighborhood {number}, not placed yet", number=card // 10)
    return notes


def hand_lines(view: BigCityPlayerView) -> str:
    notes = card_notes(view)
    return "\n".join(f"• **{card_name(c)}** — {notes[str(c)]}" for c in view["hand"])


def hand_inline(view: BigCityPlayerView) -> str:
    return " · ".join(card_name(c) for c in view["hand"]) or _("no cards")


def parse_card(token: str) -> Card | None:
    number = ascii_number(token, 4)
    if number is not None:
        return number
    return token if token in SPECIAL_CARDS else None


def turn_refusal(match: Match, player: str) -> str:
    """Why ``player`` cannot act now, in one sentence."""
    assert match.state is not None
    view = table(match.state)
    if view["phase"] == "over":
        return _("The game is over.")
    if view["step"] == "trade_offers":
        trade = view["trade"]
        assert trade is not None  # a trade runs in its steps
        if player == trade["trader"]:
            return _("The others are answering your trade; wait for their offers.")
        return _("You have answered this trade already; the trader decides next.")
    turn = view["to_act"]
    if not turn:
        return _("It's nobody's turn, not yours.")
    return _("It's {name}'s turn, not yours.", name=name(match, turn[0]))
