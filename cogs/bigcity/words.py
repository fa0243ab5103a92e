"""Big City's sentences: the rules, moves, scores and the hand in words."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.records import Match
from bot.games.bigcity.content import SHAPE_WORDS, SPECIAL_CARDS, Card, card_label, piece_title
from bot.games.bigcity.legality import a_or_an
from bot.games.bigcity.views import BigCityPlayerView, BigCityView, LastAction, Move, table
from bot.ui.components import ascii_number
from bot.ui.words import join_words, name, plural, winner_line

VARIANT_NAMES = {
    "trade_cards": "trade cards",
    "must_exchange_useless": "useless cards must be exchanged",
    "single_streetcar_line": "a single streetcar line",
    "limited_streetcar_line": "limited streetcar line",
    "limited_card_drawing": "limited card drawing",
}

RULES = """\
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
build, with the points."""


# -- words ------------------------------------------------------------------------------


def cards_words(cards: Sequence[Card]) -> str:
    return join_words([card_label(c) for c in cards])


def sites(props: list[int]) -> str:
    return "+".join(str(p) for p in props)


def score_words(explanation: str, points: int) -> str:
    """The engine's sum with its unit: "… × 2 streetcar = 10 points", "15 points"."""
    unit = "point" if points == 1 else "points"
    if explanation.split()[-1] == str(points):
        return f"{explanation} {unit}"
    return f"{points} {unit}"


def built_words(who: str, building: str, props: list[int], points: int,
                explanation: str) -> str:
    if building == "city_hall":
        return (f"{who} built city hall on {sites(props)}: special buildings, parks, factories, "
                "streetcars and new neighborhoods are allowed from now on.")
    return (f"{who} built {a_or_an(piece_title(building)).lower()} on {sites(props)}: "
            f"{score_words(explanation, points)}.")


def placed_words(card: str, props: list[int]) -> str:
    """A park or factory card played on properties: "placed Lincoln Park on 23+24"."""
    return f"placed {piece_title(card)} on {sites(props)}"


def built_on(building: str, props: list[int]) -> str:
    """A building in a few public words: "built a double residence on 14+15"."""
    return f"built {a_or_an(piece_title(building)).lower()} on {sites(props)}"


def neighborhood_placed(number: int) -> str:
    return f"placed neighborhood {number}"


def useless_discarded(cards: Sequence[Card]) -> str:
    return f"discarded the useless {cards_words(cards)}"


def laid_words(segments: Sequence[object], where: Sequence[str]) -> str:
    """Streetcars laid and where they went (an event, or the view's last move)."""
    return f"laid {plural(len(segments), 'streetcar')} ({' and '.join(where)})"


def action_words(match: Match, action: Move) -> str:
    """A move in a few public words (for timeouts): never a hidden card."""
    if action["type"] == "build":
        return built_on(action["building"], action["properties"])
    if action["type"] == "special":
        return placed_words(action["card"], action["properties"])
    if action["type"] == "streetcar":
        return f"laid {plural(len(action['segments']), 'streetcar')}"
    if action["type"] == "place_neighborhood":
        return neighborhood_placed(action["neighborhood"])
    if action["type"] == "exchange":
        return f"exchanged {plural(len(action['cards']), 'card')}"
    if action["type"] == "discard_useless":
        return useless_discarded(action["cards"])
    if action["type"] == "draw":
        return "finished drawing cards"
    if action["type"] == "trade_offer":
        return f"offered {plural(len(action['cards']), 'card')} for the trade"
    if action["type"] == "trade_decline":
        return "declined the trade"
    if action["type"] == "trade_accept":
        return f"took {name(match, action['partner'])}'s offer"
    if action["type"] == "trade_end":
        return "ended the trade"
    return "passed"


def last_move(match: Match, last: LastAction | None) -> str:
    """The table's last move: what ``action_words`` says, with what only the view knows
    (the points, where the streetcars went)."""
    if not last:
        return ""
    who = name(match, last["player"])
    if last["type"] == "build" and last["building"] == "city_hall":
        return f"{who} built city hall on {sites(last['properties'])}"
    if last["type"] == "build":
        did = f"{built_on(last['building'], last['properties'])} for " \
              f"{plural(last['points'], 'point')}"
    elif last["type"] == "streetcar":
        did = laid_words(last["segments"], last["where"])
    elif last["type"] == "exchange":  # the view keeps how many cards went, not which
        did = f"exchanged {plural(last['count'], 'card')}"
    elif last["type"] == "trade":
        did = f"offered {plural(len(last['neighborhoods']), 'card')} in trade"
    elif last["type"] == "special":
        did = placed_words(last["card"], last["properties"])
    elif last["type"] == "place_neighborhood":
        did = neighborhood_placed(last["neighborhood"])
    elif last["type"] == "discard_useless":
        did = useless_discarded(last["cards"])
    else:
        did = "passed"
    return f"{who} {did}"


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
            notes[str(card)] = f"{kind} card: {SHAPE_WORDS[shape]}"
        elif card in view["useless"]:
            piece = where[card]["piece"]
            assert piece is not None  # a useless card's property is under a park or factory
            notes[str(card)] = f"useless: under {pieces[piece]['title']}"
        elif card in where:
            side = "outskirts" if where[card]["outskirts"] else "center"
            notes[str(card)] = f"neighborhood {card // 10}, in the city ({side})"
        else:
            notes[str(card)] = f"neighborhood {card // 10}, not placed yet"
    return notes


def hand_lines(view: BigCityPlayerView) -> str:
    notes = card_notes(view)
    return "\n".join(f"• **{card_label(c)}** — {notes[str(c)]}" for c in view["hand"])


def hand_inline(view: BigCityPlayerView) -> str:
    return " · ".join(card_label(c) for c in view["hand"]) or "no cards"


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
        return "The game is over."
    if view["step"] == "trade_offers":
        trade = view["trade"]
        assert trade is not None  # a trade runs in its steps
        if player == trade["trader"]:
            return "The others are answering your trade; wait for their offers."
        return "You have answered this trade already; the trader decides next."
    turn = view["to_act"]
    who = name(match, turn[0]) if turn else "nobody"
    return f"It's {who}'s turn, not yours."
