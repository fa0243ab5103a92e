"""Big City in Discord: /bigcity new and rules, the table's buttons and the private choosers.

A turn, for the player whose turn it is:

- the table shows one button per kind of action (Build, Park or factory, Streetcar,
  Neighborhood, Exchange, Discard useless, Trade, Pass) and **My hand**; each opens a private
  chooser. Where the choices are places (building sites, streets, neighbourhood positions)
  the chooser shows a picture with a letter on each place and a menu of the same letters,
  paged past 25; a pick shows that one choice and asks to confirm. A neighbourhood takes
  two short menus: which one and on which side of the city, then its lettered places there;
- cards are picked from the hand with a multi-select (exchange, discard, trade);
- the draw is one card at a time, a button per stack the rules allow, on the table and in
  the private reply, which names the card drawn.

Custom ids carry no server memory: ``ch:bc:<match>:v<version>:a<index>`` is the index of the
move in ``ENGINE.legal(state, player)``, exact because at one version the list is the same;
a click at another version is stale and answered with the current board. Answers to a trade
(several players at once) are stamped with the trade's turn (``t<turn>``) instead, so one
player's answer does not make the others' menus stale.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import io
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.engine import JSON, LegalAction
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.bigcity import ENGINE
from bot.games.bigcity.city import City
from bot.games.bigcity.content import SHAPE_WORDS, SPECIAL_CARDS, Card, card_label, piece_title
from bot.games.bigcity.geometry import neighborhood_layout, neighbors
from bot.games.bigcity.legality import a_or_an, building_label, building_sites
from bot.games.bigcity.scoring import score_building
from bot.render.pool import Priority
from bot.ui.components import Components, ascii_number, offered_values, one_offered_number
from bot.ui.game import (
    GameAdapter,
    Notice,
    Picture,
    display_names,
    fit_description,
    plain_text,
    rename_players,
    seat_name,
)
from bot.ui.later import show_private
from bot.ui.lobby import open_lobby, send_rules
from bot.ui.paged import (
    PAGE_SIZE,
    Choice,
    clamp_page,
    letters,
    page_of,
    page_slice,
    paged_menu,
    shorten,
)
from bot.ui.play import cityhall, current_board, guarded, play, seated
from bot.ui.replies import tell
from bot.ui.words import join_words, mention, name, plural, winner_line

if TYPE_CHECKING:
    from bot.app import CityhallBot

log = logging.getLogger(__name__)

MATCH = r"ch:bc:(?P<match>[0-9]{1,15})"
STAMP = r":(?P<stamp>[vt])(?P<num>[0-9]{1,9})"
PLAYING_STEPS = ("start", "main")

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


# -- custom ids -------------------------------------------------------------------------


@dataclass(frozen=True)
class Stamp:
    """What ties a component to a moment of the game: the state version (``v``), or for
    answers to a trade, the turn of that trade (``t``)."""

    match_id: int
    kind: str
    number: int

    @property
    def base(self) -> str:
        return f"ch:bc:{self.match_id}:{self.kind}{self.number}"

    def holds(self, match: Match) -> bool:
        state = match.state
        if state is None:
            return False
        if self.kind == "v":
            return match.version == self.number
        return state["step"] == "trade_offers" and state["turn_number"] == self.number

    def stale_reason(self) -> str:
        return ("That button belongs to an earlier board." if self.kind == "v"
                else "That trade is over.")


def board(match: Match) -> Stamp:
    return Stamp(match.id, "v", match.version)


def trade_stamp(match: Match) -> Stamp:
    assert match.state is not None
    return Stamp(match.id, "t", match.state["turn_number"])


def stamp_from(found: re.Match[str]) -> Stamp:
    return Stamp(int(found["match"]), found["stamp"], int(found["num"]))


# -- what kinds of action there are ---------------------------------------------------


@dataclass(frozen=True)
class Category:
    code: str
    title: str
    types: tuple[str, ...]
    empty: str
    emoji: str


CATEGORIES: dict[str, Category] = {c.code: c for c in (
    Category("b", "Build", ("build",), "Your cards allow no building right now.", "🏠"),
    Category("k", "Park or factory", ("special",),
             "You can't place a park or factory now: it takes its card, city hall, and free "
             "properties of its shape.", "🌳"),
    Category("s", "Streetcar", ("streetcar",),
             "There is no street where a streetcar may go now.", "🚋"),
    Category("n", "Neighborhood", ("place_neighborhood",),
             "No neighborhood can be placed now.", "🧩"),
    Category("x", "Exchange", ("exchange",), "You have no cards to exchange now.", "🔄"),
    Category("d", "Discard useless", ("discard_useless",),
             "Only cards of properties under a park or factory can be discarded, at the start "
             "of your turn, and you hold none now.", "🗑️"),
    Category("t", "Trade", ("trade",), "You can't start a trade now.", "🤝"),
    Category("p", "Pass", ("pass",), "You can't pass now.", "⏭️"),
    Category("r", "Answer the trade", ("trade_offer", "trade_decline"),
             "You have nothing to answer now.", "🤝"),
    Category("w", "Trade offers", ("trade_accept", "trade_end", "exchange"),
             "There are no trade offers for you now.", "🤝"),
)}
MAP_CODES = "bksn"
CARD_CODES = "xdtr"


def of_kind(legal: list[LegalAction], code: str) -> list[tuple[int, LegalAction]]:
    types = CATEGORIES[code].types
    return [(i, la) for i, la in enumerate(legal) if la.action["type"] in types]


# -- words ------------------------------------------------------------------------------


def cards_words(cards: list[Card]) -> str:
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


def action_words(match: Match, action: JSON) -> str:
    """A move in a few public words (for timeouts): never a hidden card."""
    kind = action.get("type")
    if kind == "build":
        return f"built {a_or_an(piece_title(action['building'])).lower()} on " \
               f"{sites(action['properties'])}"
    if kind == "special":
        return f"placed {piece_title(action['card'])} on {sites(action['properties'])}"
    if kind == "streetcar":
        return f"laid {plural(len(action['segments']), 'streetcar')}"
    if kind == "place_neighborhood":
        return f"placed neighborhood {action['neighborhood']}"
    if kind == "exchange":
        return f"exchanged {plural(len(action['cards']), 'card')}"
    if kind == "discard_useless":
        return f"discarded the useless {cards_words(action['cards'])}"
    if kind == "draw":
        return "finished drawing cards"
    if kind == "trade_offer":
        return f"offered {plural(len(action['cards']), 'card')} for the trade"
    if kind == "trade_decline":
        return "declined the trade"
    if kind == "trade_accept":
        return f"took {name(match, action['partner'])}'s offer"
    if kind == "trade_end":
        return "ended the trade"
    return "passed"


def last_move(match: Match, last: JSON | None) -> str:
    if not last:
        return ""
    who = name(match, last["player"])
    kind = last["type"]
    if kind == "build":
        if last["building"] == "city_hall":
            return f"{who} built city hall on {sites(last['properties'])}"
        return (f"{who} built {a_or_an(piece_title(last['building'])).lower()} on "
                f"{sites(last['properties'])} for {plural(last['points'], 'point')}")
    if kind == "special":
        return f"{who} placed {piece_title(last['card'])} on {sites(last['properties'])}"
    if kind == "streetcar":
        return f"{who} laid {plural(len(last['segments']), 'streetcar')} " \
               f"({' and '.join(last['where'])})"
    if kind == "place_neighborhood":
        return f"{who} placed neighborhood {last['neighborhood']}"
    if kind == "exchange":
        return f"{who} exchanged {plural(last['count'], 'card')}"
    if kind == "discard_useless":
        return f"{who} discarded the useless {cards_words(last['cards'])}"
    if kind == "trade":
        return f"{who} offered {plural(len(last['neighborhoods']), 'card')} in trade"
    return f"{who} passed"


def final_line(match: Match, view: JSON) -> str:
    return winner_line(match, view.get("winners") or [], view["scores"])


def scores_line(match: Match, view: JSON) -> str:
    return " · ".join(f"{name(match, p)} {view['scores'][p]}" for p in view["players"])


def card_notes(view: JSON) -> dict[str, str]:
    """For each card in the viewer's hand: what it is and where its property stands."""
    where = {entry["property"]: entry for entry in view["properties"]}
    pieces = view["buildings"]
    notes: dict[str, str] = {}
    for card in view.get("hand", []):
        if isinstance(card, str):
            _stack, kind, shape, _title = SPECIAL_CARDS[card]
            notes[str(card)] = f"{kind} card: {SHAPE_WORDS[shape]}"
        elif card in view.get("useless", []):
            notes[str(card)] = f"useless: under {pieces[where[card]['piece']]['title']}"
        elif card in where:
            side = "outskirts" if where[card]["outskirts"] else "center"
            notes[str(card)] = f"neighborhood {card // 10}, in the city ({side})"
        else:
            notes[str(card)] = f"neighborhood {card // 10}, not placed yet"
    return notes


def hand_lines(view: JSON) -> str:
    notes = card_notes(view)
    return "\n".join(f"• **{card_label(c)}** — {notes[str(c)]}" for c in view.get("hand", []))


def hand_inline(view: JSON) -> str:
    return " · ".join(card_label(c) for c in view.get("hand", [])) or "no cards"


def parse_card(token: str) -> Card | None:
    number = ascii_number(token, 4)
    if number is not None:
        return number
    return token if token in SPECIAL_CARDS else None


def turn_refusal(match: Match, player: str) -> str:
    """Why ``player`` cannot act now, in one sentence."""
    state = match.state
    assert state is not None
    if state["phase"] == "over":
        return "The game is over."
    if state["step"] == "trade_offers":
        trade = state["trade"]
        if player == trade["trader"]:
            return "The others are answering your trade; wait for their offers."
        return "You have answered this trade already; the trader decides next."
    turn = ENGINE.to_act(state)
    who = name(match, turn[0]) if turn else "nobody"
    return f"It's {who}'s turn, not yours."


# -- screens: what a private reply shows -----------------------------------------------


@dataclass
class Screen:
    """A private reply: text, components (plain items, wrapped on sending) and the choices
    to mark on a preview picture, if any."""

    text: str
    items: list[discord.ui.Item[Any]] = field(default_factory=list)
    preview: list[JSON] | None = None


def button(label: str, custom_id: str, *,
           style: discord.ButtonStyle = discord.ButtonStyle.secondary, row: int | None = None,
           emoji: str | None = None, disabled: bool = False) -> discord.ui.Button[Any]:
    return discord.ui.Button(label=shorten(label, 80), custom_id=custom_id, style=style, row=row,
                             emoji=emoji, disabled=disabled)


def preview_choice(label: str, action: JSON) -> JSON:
    kind = action["type"]
    if kind in ("build", "special"):
        return {"label": label, "properties": list(action["properties"])}
    if kind == "streetcar":
        return {"label": label, "segments": action["segments"]}
    return {"label": label, "neighborhood": action["neighborhood"], "at": list(action["at"]),
            "rotation": action["rotation"]}


def step_items(match: Match, player: str | None, *,
               private: bool = False) -> list[discord.ui.Item[Any]]:
    """The buttons of the current step. On the table (``private`` False) they depend only
    on public facts, so they give nothing of the hand away; in a player's own reply they
    are exactly what ``legal`` offers that player."""
    state = match.state
    assert state is not None
    base = board(match).base
    step = state["step"]
    items: list[discord.ui.Item[Any]] = []
    if step == "place":
        items.append(button("Place a neighborhood", f"{base}:cn", emoji="🧩",
                            style=discord.ButtonStyle.primary))
    elif step in PLAYING_STEPS:
        # only here: listing the placements of the "place" step takes ~10 ms, for nothing
        legal = ENGINE.legal(state, player) if private and player is not None else []
        view = ENGINE.view(state, None)
        placed_special = any(b["building"] in SPECIAL_CARDS for b in view["buildings"])
        public = {
            "b": True,
            "k": view["city_hall"] and bool(view["parks_and_factories_left"]),
            "s": view["city_hall"] and view["streetcars_left"] > 0,
            "n": view["city_hall"] and bool(view["unplaced_neighborhoods"]),
            "x": True,
            "d": step == "start" and not view["options"]["must_exchange_useless"]
            and placed_special,
            "t": view["options"]["trade_cards"],
            "p": True,
        }
        for code, shown in public.items():
            if private:
                shown = bool(of_kind(legal, code))
            if shown:
                cat = CATEGORIES[code]
                style = (discord.ButtonStyle.primary if code in "bksn"
                         else discord.ButtonStyle.secondary)
                items.append(button(cat.title, f"{base}:c{code}", emoji=cat.emoji, style=style))
    elif step == "draw":
        current = ENGINE.to_act(state)[0]
        stacks = state["stacks"]
        for i, la in enumerate(ENGINE.legal(state, current)):
            number = la.action["stacks"][0]
            items.append(button(f"Stack {number} · {len(stacks[str(number)])} left",
                                f"{base}:a{i}", style=discord.ButtonStyle.primary))
    elif step == "trade_offers":
        items.append(button("Answer the trade", f"{trade_stamp(match).base}:cr", emoji="🤝",
                            style=discord.ButtonStyle.primary))
    elif step == "trade_accept":
        items.append(button("Trade offers", f"{base}:cw", emoji="🤝",
                            style=discord.ButtonStyle.primary))
    return items


def hand_button(match: Match) -> discord.ui.Button[Any]:
    return button("My hand", f"ch:bc:{match.id}:hand", emoji="🃏",
                  style=discord.ButtonStyle.success)


# -- where a neighbourhood may go, in two short choices -----------------------------------
#
# A neighbourhood has 48 to 150 legal positions (every slide along the city's edge, four
# turns of a square one). First choice: which neighbourhood, on which side of the city as the
# pictures show it (above, right, below, left; a long side in parts), at most 25 groups.
# Second: the places of that group, at most 25, lettered on the preview. Custom ids carry
# the group as ``number * 100 + ordinal`` (three digits); a one-digit argument is an older
# message's neighbourhood number and still lists all its places, page by page.

SIDES = ("above the city", "right of the city", "below the city", "left of the city")
PARTS = {  # a side with more than 25 places is cut along its length
    2: (("left part", "right part"), ("upper part", "lower part")),
    3: (("left part", "middle part", "right part"), ("upper part", "middle part", "lower part")),
}
GROUP_CODE = 100  # arguments from here on are groups; below 10 an older neighbourhood number


@dataclass(frozen=True)
class Group:
    """The places of one neighbourhood on one side (or part of a side) of the city."""

    number: int
    code: int
    words: str
    options: list[tuple[int, LegalAction]]


def ghost_of(action: JSON) -> dict[int, tuple[int, int]]:
    return neighborhood_layout(int(action["neighborhood"]), (int(action["at"][0]),
                               int(action["at"][1])), int(action["rotation"]))


def neighborhood_groups(state: JSON, found: list[tuple[int, LegalAction]]) -> list[Group]:
    city = City(state)
    xs = [c[0] for c in city.property_at]
    ys = [c[1] for c in city.property_at]
    cx, cy = (min(xs) + max(xs) + 1) / 2, (min(ys) + max(ys) + 1) / 2
    width, height = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    sided: dict[tuple[int, int], list[tuple[float, int, int, LegalAction]]] = {}
    for i, la in found:
        cells = list(ghost_of(la.action).values())
        gx = sum(c[0] + 0.5 for c in cells) / len(cells)
        gy = sum(c[1] + 0.5 for c in cells) / len(cells)
        # the side the neighbourhood's middle lies toward, the city's shape evened out
        nx, ny = (gx - cx) / width, (gy - cy) / height
        side = (0 if ny < 0 else 2) if abs(ny) >= abs(nx) else (1 if nx > 0 else 3)
        along = gx if side in (0, 2) else gy
        sided.setdefault((int(la.action["neighborhood"]), side), []).append(
            (along, int(la.action["rotation"]), i, la))
    groups: list[Group] = []
    for number in sorted({n for n, _side in sided}):
        ordinal = 0
        for side in range(4):
            places = sorted(sided.get((number, side), []), key=lambda p: (p[0], p[1], p[2]))
            if not places:
                continue
            chunks = -(-len(places) // PAGE_SIZE)
            size = -(-len(places) // chunks)
            for k in range(chunks):
                ordinal += 1
                part = ""
                if chunks in PARTS:
                    part = ", " + PARTS[chunks][side % 2][k]
                elif chunks > 1:
                    part = f", part {k + 1} of {chunks}"
                groups.append(Group(number, number * GROUP_CODE + ordinal,
                                    SIDES[side] + part,
                                    [(i, la) for _a, _r, i, la in places[k * size:(k + 1) * size]]))
    return groups


def turned_words(rotation: int) -> str:
    return f"turned {rotation}°" if rotation % 360 else "not turned"


def touch_words(city: City, action: JSON) -> tuple[str, str]:
    """Which properties of the city a placed neighbourhood would lie next to, as the map
    numbers them: ("next to 12, 13, 14", "31 by 12 · 32 by 13 · 33 by 14")."""
    pairs: list[tuple[int, int]] = []
    for prop, cell in sorted(ghost_of(action).items()):
        for near in neighbors(cell):
            other = city.property_at.get(near)
            if other is not None:
                pairs.append((prop, other))
    touched = sorted({other for _prop, other in pairs})
    return (f"next to {', '.join(map(str, touched))}",
            " · ".join(f"{prop} by {other}" for prop, other in pairs))


def place_words(city: City, action: JSON) -> tuple[str, str]:
    """A neighbourhood position's menu label (after its letter) and description."""
    near, pairs = touch_words(city, action)
    return f"{turned_words(int(action['rotation']))}, {near}", pairs


def map_options(state: JSON, legal: list[LegalAction], code: str,
                arg: int | None) -> list[tuple[int, LegalAction]] | str:
    """The choices of a place-picking screen, or why there are none."""
    found = of_kind(legal, code)
    if not found:
        return CATEGORIES[code].empty
    if code == "n" and arg is not None and arg >= GROUP_CODE:
        group = next((g for g in neighborhood_groups(state, found) if g.code == arg), None)
        if group is None:
            return f"Neighborhood {arg // GROUP_CODE} can't be placed there now."
        return group.options
    if code == "n" and arg is not None:
        found = [(i, la) for i, la in found if la.action["neighborhood"] == arg]
        if not found:
            return f"Neighborhood {arg} can't be placed now."
    if code == "s":
        singles = [(i, la) for i, la in found if len(la.action["segments"]) == 1]
        if arg is None:
            return singles
        if arg >= len(legal) or legal[arg].action["type"] != "streetcar" \
                or len(legal[arg].action["segments"]) != 1:
            return "That streetcar is not a choice any more."
        first = legal[arg].action["segments"][0]
        return [(arg, legal[arg])] + [(i, la) for i, la in found
                                      if len(la.action["segments"]) == 2
                                      and first in la.action["segments"]]
    return found


def map_screen(match: Match, player: str, code: str, arg: int | None, page: int) -> Screen | str:
    state = match.state
    assert state is not None
    legal = ENGINE.legal(state, player)
    base = board(match).base
    groups: list[Group] = []
    if code == "n" and (arg is None or arg >= GROUP_CODE):
        groups = neighborhood_groups(state, of_kind(legal, "n"))
    if code == "n" and arg is None:
        if len(groups) == 1:
            arg = groups[0].code
        elif groups:
            choices = [Choice(str(g.code), f"Neighborhood {g.number} · {g.words}",
                              f"{plural(len(g.options), 'place')}, lettered on the next picture")
                       for g in groups]
            setup = state["phase"] == "setup"
            text = ("**Place a starting neighborhood.**" if setup
                    else "**Add a neighborhood.**") + \
                (" Which one, and on which side of the city (as the table's picture shows it)?"
                 " The next menu letters every place there. Two of its properties must lie "
                 "next to two properties of the city.")
            items = paged_menu(choices, page, select_id=lambda p: f"{base}:gn:p{p}",
                               page_id=lambda p: f"{base}:cn:p{p}", lettered=False,
                               placeholder="Which neighborhood, on which side?")
            return Screen(text, items)
    found = map_options(state, legal, code, arg)
    if isinstance(found, str):
        return found
    if not found:
        return CATEGORIES[code].empty
    arg_text = "" if arg is None else str(arg)
    page = clamp_page(page, len(found))
    extra: list[discord.ui.Item[Any]] = []
    if code == "b":
        head = ("**Build** — the buildings your cards allow now, best first, with the points "
                "each scores. The picture marks each site with its letter.")
        menu = "Pick a building"
    elif code == "k":
        head = ("**Park or factory** — where your card's piece fits. A park may have at most "
                "one property on the outskirts, a factory needs at least two.")
        menu = "Pick a place"
    elif code == "s" and arg is None:
        first = not state["streetcars"]
        head = ("**Streetcar** — " + ("the first streetcar goes on any street of the city. "
                                       if first else "pick the first new streetcar; ")
                + ("" if first else "you can add a second one next. ")
                + "The picture marks each street with its letter.")
        menu = "Pick a street"
    elif code == "s":
        head = ("**Streetcar** — this one alone (A), or with a second one (B…). Both are "
                "drawn with their letter.")
        menu = "One or two streetcars"
        singles = of_kind(legal, "s")
        singles = [(i, la) for i, la in singles if len(la.action["segments"]) == 1]
        position = next(k for k, (i, _la) in enumerate(singles) if i == arg)
        extra.append(button("◀ Another first streetcar", f"{base}:cs:p{page_of(position)}",
                            row=2))
    else:
        assert arg is not None
        group = next((g for g in groups if g.code == arg), None)
        number = group.number if group else arg
        where = f", {group.words}" if group else ""
        head = (f"**Neighborhood {number}{where}** — each place is drawn with its letter; "
                "the menu says how it is turned and which properties of the city it would lie "
                "next to.")
        menu = "Pick a place"
        if len(groups) > 1 or group is None:
            extra.append(button("◀ Another side or neighborhood", f"{base}:cn:p0", row=2))
    city = City(state) if code == "n" else None
    choices = []
    for pos, (i, la) in enumerate(found):
        if city is not None:
            label, description = place_words(city, la.action)
            choices.append(Choice(str(i), label, description))
        else:
            choices.append(Choice(str(i), ("Only this streetcar: " if code == "s"
                                           and arg is not None and pos == 0 else "") + la.label))
    items = paged_menu(choices, page, select_id=lambda p: f"{base}:l{code}{arg_text}:p{p}",
                       page_id=lambda p: f"{base}:c{code}{arg_text}:p{p}", placeholder=menu)
    preview = [preview_choice(letters(pos), found[pos][1].action)
               for pos in page_slice(len(found), page)]
    text = head + f"\n{plural(len(found), 'choice')}; pick one, then confirm."
    return Screen(text, items + extra, preview)


def cards_screen(match: Match, player: str, code: str) -> Screen | str:
    state = match.state
    assert state is not None
    stamp = trade_stamp(match) if code == "r" else board(match)
    legal = ENGINE.legal(state, player)
    found = of_kind(legal, code)
    with_cards = [(i, la) for i, la in found if "cards" in la.action]
    view = ENGINE.view(state, player)
    notes = card_notes(view)
    items: list[discord.ui.Item[Any]] = []
    most = max((len(la.action["cards"]) for _i, la in with_cards), default=0)
    if with_cards:
        offered = {str(c) for _i, la in with_cards for c in la.action["cards"]}
        options = [discord.SelectOption(label=card_label(c), value=str(c),
                                        description=shorten(notes[str(c)]))
                   for c in view["hand"] if str(c) in offered]
        items.append(discord.ui.Select(
            custom_id=f"{stamp.base}:m{code}", min_values=1, max_values=min(most, len(options)),
            options=options, placeholder="Pick the cards" if most > 1 else "Pick a card",
            row=0))
    if code == "r":
        decline = next((i for i, la in found if la.action["type"] == "trade_decline"), None)
        if decline is not None:
            items.append(button("Decline", f"{stamp.base}:a{decline}",
                                style=discord.ButtonStyle.danger, row=1))
    if not items:
        return CATEGORIES[code].empty
    if code == "x":
        text = ("**Exchange** — pick the cards to put back (face down, under their own "
                "stacks); you then draw as many, at most two from one stack this turn.")
        if most < len(view["hand"]):
            text += f" After a trade without a deal you may exchange at most {most}."
    elif code == "d":
        text = ("**Discard useless cards** — their properties are under a park or factory. "
                "They are shown to everyone and leave the game; you draw replacements at the "
                "end of your turn, and still take an action now.")
    elif code == "t":
        text = ("**Trade** — pick one or two cards to offer. The others see only the "
                "neighborhoods on their backs and answer with offers; you then accept offers "
                "card for card, or end the trade.")
    else:
        trade = view["trade"]
        wanted = plural(len(trade["neighborhoods"]), "card")
        text = (f"**{name(match, trade['trader'])} wants to trade {wanted}** (from "
                f"neighborhood {join_words([str(n) for n in trade['neighborhoods']])}). "
                f"Offer one card or {len(trade['neighborhoods'])}, or decline.")
    return Screen(f"{text}\n\n**Your hand:**\n{hand_lines(view)}", items)


def offers_screen(match: Match, player: str) -> Screen | str:
    """The trader's decisions: take an offer, exchange instead, or end the trade."""
    state = match.state
    assert state is not None
    legal = ENGINE.legal(state, player)
    found = of_kind(legal, "w")
    if not found:
        return CATEGORIES["w"].empty
    base = board(match).base
    view = ENGINE.view(state, player)
    trade = view["trade"]
    lines = []
    for other, stacks in trade["offers"].items():
        if other in trade["accepted"]:
            lines.append(f"• {name(match, other)}: traded")
        elif stacks:
            lines.append(f"• {name(match, other)} offers {plural(len(stacks), 'card')} from "
                         f"neighborhood {join_words([str(s) for s in stacks])}")
        else:
            lines.append(f"• {name(match, other)} declined")
    mine = (view.get("my_trade") or {}).get("cards", [])
    given = (view.get("my_trade") or {}).get("given", [])
    text = (f"**Trade offers** for your {cards_words([c for c in mine if c not in given])}:\n"
            + "\n".join(lines))
    items: list[discord.ui.Item[Any]] = []
    for i, la in found:
        if la.action["type"] == "trade_accept":
            partner = la.action["partner"]
            items.append(button(
                f"Give {cards_words(la.action['give'])} for {seat_name(match, partner)}'s offer",
                f"{base}:a{i}", style=discord.ButtonStyle.success))
    if any(la.action["type"] == "exchange" for _i, la in found):
        items.append(button("Exchange up to two cards instead", f"{base}:cx"))
    end = next(i for i, la in found if la.action["type"] == "trade_end")
    items.append(button("End the trade", f"{base}:a{end}", style=discord.ButtonStyle.danger))
    return Screen(text, items)


def confirm_screen(match: Match, stamp: Stamp, index: int, la: LegalAction,
                   back_id: str | None, letter: str | None = None) -> Screen:
    state = match.state
    assert state is not None
    action = la.action
    kind = action["type"]
    preview = None
    if kind in ("build", "special", "streetcar", "place_neighborhood"):
        preview = [preview_choice(letter or "A", action)]
    tag = f"**{letter}** · " if letter else ""
    if kind == "build":
        score = score_building(City(state), action["building"], action["properties"])
        text = (f"Build {tag}**{building_label(action['building'], action['properties'])}**? "
                f"It scores {score_words(score.explanation, score.points)}.")
    elif kind == "place_neighborhood":
        near, pairs = touch_words(City(state), action)
        text = (f"Place {tag}**neighborhood {action['neighborhood']}**, "
                f"{turned_words(int(action['rotation']))}, {near}? ({pairs})")
    elif kind in ("special", "streetcar"):
        verb = "Lay" if kind == "streetcar" else "Place"
        text = f"{verb} {tag}**{la.label}**?"
    elif kind == "exchange":
        text = (f"Exchange **{cards_words(action['cards'])}**? They go face down under their "
                f"stacks; then you draw {plural(len(action['cards']), 'new card')}.")
    elif kind == "discard_useless":
        text = (f"Discard **{cards_words(action['cards'])}**? Everyone sees them; you draw "
                "replacements at the end of your turn.")
    elif kind == "trade":
        text = (f"Offer **{cards_words(action['cards'])}** in trade? The others see only "
                "their neighborhoods.")
    elif kind == "trade_offer":
        trader = state["trade"]["trader"]
        text = f"Offer **{cards_words(action['cards'])}** to {name(match, trader)}?"
    elif kind == "pass":
        text = ("Pass this turn? When every player passes in a row, the game ends (a player "
                "who still can may go on while the others pass).")
    else:
        text = f"**{la.label}**?"
    items: list[discord.ui.Item[Any]] = [
        button("Confirm", f"{stamp.base}:a{index}", style=discord.ButtonStyle.success, row=0)]
    if back_id is not None:
        items.append(button("Back", back_id, row=0))
    return Screen(text, items, preview)


def possible_builds(state: JSON, hand: list[Card]) -> list[str]:
    """What the hand could build on the city as it stands (whoever's turn it is)."""
    city = City(state)
    scored = []
    for building, props in building_sites(city, hand):
        points = score_building(city, building, props).points
        scored.append((-points, building, props))
    scored.sort()
    return [f"{building_label(b, p)} ({plural(-neg, 'pt')})" for neg, b, p in scored]


def hand_screen(match: Match, player: str) -> Screen:
    state = match.state
    assert state is not None
    view = ENGINE.view(state, player)
    parts = [f"**Your hand** ({plural(len(view['hand']), 'card')}; only you see this):",
             hand_lines(view)]
    if view.get("my_trade"):
        mine = view["my_trade"]
        if "cards" in mine:
            parts.append(f"In your trade: {cards_words(mine['cards'])}.")
        elif "offered" in mine:
            parts.append(f"You offered {cards_words(mine['offered'])} in the trade.")
    on_turn = player in ENGINE.to_act(state)
    items: list[discord.ui.Item[Any]] = []
    preview = None
    if on_turn and state["step"] in PLAYING_STEPS:
        screen = map_screen(match, player, "b", None, 0)
        if isinstance(screen, Screen):
            parts.append("\n**You can build now** — pick one (letters on the picture), then "
                         "confirm:")
            items = screen.items
            preview = screen.preview
        else:
            parts.append(f"\n{screen}")
        others = [i for i in step_items(match, player, private=True)
                  if not str(getattr(i, "custom_id", "")).endswith(":cb")]
        for k, item in enumerate(others):
            item.row = 2 + k // 5
        items = items + others
    else:
        if state["phase"] == "setup":
            parts.append("\nBuilding starts once the starting neighborhoods are placed.")
        else:
            builds = possible_builds(state, view["hand"])
            if builds:
                shown = builds[:12]
                more = f" (and {len(builds) - len(shown)} more)" if len(builds) > len(shown) else ""
                parts.append("\nWith these cards you could build, as the city stands: "
                             + "; ".join(shown) + more + ".")
            else:
                parts.append("\nYour cards allow no building on the city as it stands.")
        if on_turn:
            parts.append("It's your turn:")
            items = step_items(match, player, private=True)
        elif state["phase"] != "over":
            parts.append(turn_refusal(match, player))
    return Screen("\n".join(parts), items, preview)


def result_text(match: Match, player: str, outcome: Outcome) -> str:
    """What the player's own move did, for their private reply."""
    state = outcome.match.state
    assert state is not None
    lines = []
    for event in outcome.events:
        kind = event["type"]
        if kind == "built":
            lines.append("🏗️ " + built_words("You", event["building"], event["properties"],
                                             event["points"], event["explanation"]))
        elif kind == "special_placed":
            lines.append(f"You placed {piece_title(event['card'])} on "
                         f"{sites(event['properties'])}.")
        elif kind == "streetcars_placed":
            lines.append(f"🚋 You laid {plural(len(event['segments']), 'streetcar')} "
                         f"({' and '.join(event['where'])}).")
        elif kind == "neighborhood_placed":
            lines.append(f"You placed neighborhood {event['neighborhood']}.")
        elif kind == "exchanged":
            lines.append(f"You put {plural(event['count'], 'card')} back under the stacks.")
        elif kind == "discarded":
            lines.append(f"You discarded {cards_words(event['cards'])}.")
        elif kind == "drew":
            hand = ENGINE.view(state, player)["hand"]
            count = len(event["stacks"])
            drawn = hand[-count:] if count else []
            lines.append(f"🃏 You drew **{cards_words(drawn)}** from stack "
                         f"{join_words([str(s) for s in event['stacks']])}.")
        elif kind == "passed":
            lines.append("You passed.")
        elif kind == "trade_announced":
            lines.append("🤝 Your trade is announced; the others are answering. You will get "
                         "a **Trade offers** button on the table.")
        elif kind == "trade_offered":
            lines.append("Your offer is made; the trader decides.")
        elif kind == "trade_declined":
            lines.append("You declined the trade.")
        elif kind == "traded":
            lines.append(f"🤝 You traded with {name(match, event['with'])}.")
        elif kind == "trade_ended":
            lines.append("The trade is over.")
    return "\n".join(lines) or "Done."


def after_screen(outcome: Outcome, player: str) -> Screen:
    """The player's private reply after their move: what happened and what comes next."""
    match = outcome.match
    state = match.state
    assert state is not None
    text = result_text(match, player, outcome)
    if state["phase"] == "over":
        return Screen(f"{text}\n\nThe game is over. {final_line(match, ENGINE.view(state, None))}")
    view = ENGINE.view(state, player)
    if player in ENGINE.to_act(state):
        step = state["step"]
        if step == "draw":
            need = view["draw"]["cards"]
            text += (f"\nDraw {plural(need, 'more card')}: pick a stack (at most two from one "
                     f"stack per turn). Your hand: {hand_inline(view)}.")
        elif step == "main":
            text += f"\nNow take your turn's action. Your hand: {hand_inline(view)}."
        elif step == "trade_accept":
            text += "\nThe answers are in."
        return Screen(text, step_items(match, player, private=True))
    if state["step"] == "trade_offers" and state["trade"]["trader"] == player:
        return Screen(text)
    return Screen(f"{text}\nYour turn is over. Your hand: {hand_inline(view)}.")


# -- sending ---------------------------------------------------------------------------


def wrap(item: discord.ui.Item[Any]) -> discord.ui.Item[Any]:
    """The DynamicItem for a plain button or select, by its custom id."""
    custom_id = str(getattr(item, "custom_id", ""))
    for cls in DYNAMIC_ITEMS:
        if cls.__discord_ui_compiled_template__.fullmatch(custom_id):
            return cls(item)
    raise ValueError(f"no Big City component handles {custom_id!r}")


def view_of(items: list[discord.ui.Item[Any]]) -> discord.ui.View:
    view = Components()
    for item in items:
        view.add_item(wrap(item))
    return view


def public_named_view(match: Match) -> JSON:
    assert match.state is not None
    return rename_players(ENGINE.view(match.state, None), display_names(match))


def preview_description(text: str) -> str:
    """A private preview's alt text: what it marks, then the reply's own words."""
    return fit_description("The city with the choices below marked on it by letter. "
                           + plain_text(text))


async def show(interaction: discord.Interaction, match: Match, screen: Screen) -> None:
    """Show a screen privately: edit the private message it was asked from, or send one."""
    message = interaction.message
    edit = message is not None and message.flags.ephemeral
    # the view is taken now: the live match may change while the picture is drawn
    pictures = (draw_preview(interaction, public_named_view(match), screen.preview,
                             preview_description(screen.text))
                if screen.preview else None)
    await show_private(interaction, match.id, screen.text, view_of(screen.items), pictures,
                       edit=edit)


async def draw_preview(interaction: discord.Interaction, view: JSON,
                       preview: list[JSON], description: str) -> list[discord.File]:
    """The preview picture, drawn by a render worker ahead of table refreshes (the player
    is waiting). A drawing failure loses only the picture."""
    files: list[discord.File] = []
    try:
        png = await cityhall(interaction).pictures.render(
            "bigcity", "render_preview", view, preview,
            priority=Priority.INTERACTIVE)
        files.append(discord.File(io.BytesIO(png), "choices.png", description=description))
    except Exception:
        log.exception("could not draw a preview; the menu still works")
    return files


T = TypeVar("T")


async def off_loop(fn: Callable[..., T], match: Match, *args: Any) -> T:
    """Build a screen in a worker thread (listing the legal moves can take ~10 ms), from a
    snapshot of the match, so that moves saved meanwhile cannot mix two boards."""
    return await asyncio.to_thread(fn, copy.copy(match), *args)


async def reply(interaction: discord.Interaction, match: Match, screen: Screen | str) -> None:
    """A screen, or the sentence that says why there is none."""
    if isinstance(screen, str):
        await tell(interaction, screen)
    else:
        await show(interaction, match, screen)


async def fresh(interaction: discord.Interaction, match: Match, stamp: Stamp) -> bool:
    """Whether the click belongs to the board as it is; if not, the clicker is told."""
    if stamp.holds(match):
        return True
    await current_board(interaction, match, stamp.stale_reason())
    return False


def guard_for(stamp: Stamp) -> dict[str, Any]:
    """How ``play`` ties the move to the board it was chosen on."""
    if stamp.kind == "v":
        return {"expected_version": stamp.number}
    check: Callable[[Match], bool] = stamp.holds
    return {"still_valid": check}


# -- the table -------------------------------------------------------------------------


class BigCityAdapter(GameAdapter):
    colour = discord.Colour.from_rgb(200, 110, 40)
    rules_summary = RULES

    def table_content(self, match: Match) -> str:
        state = match.state
        assert state is not None
        view = self.public_view(match)
        variants = [VARIANT_NAMES[k] for k, on in view["options"].items() if on]
        tail = f" · variants: {', '.join(variants)}" if variants else ""
        if view["phase"] == "over":
            how = ("every property of all eight neighborhoods is built on"
                   if view["ended_by"] == "city_complete" else "everyone passed in a row")
            return (f"**Big City** · final ({how})\nScores: {scores_line(match, view)}\n"
                    f"{final_line(match, view)}")
        lines = []
        if view["phase"] == "setup":
            turn = view["turn"]
            pool = join_words([str(n) for n in view["setup"]["pool"]])
            lines.append(f"**Big City** · setting up the city{tail}")
            lines.append(f"{mention(match, turn)}, place a starting neighborhood ({pool}): "
                         "press **Place a neighborhood**. **My hand** shows your cards.")
            return "\n".join(lines)
        lines.append(f"**Big City** · turn {view['turn_number']}{tail}")
        lines.append(f"Scores: {scores_line(match, view)}")
        turn = view["turn"]
        step = view["step"]
        if step in PLAYING_STEPS:
            trade = ", trade" if view["options"]["trade_cards"] else ""
            if view["city_hall"]:
                what = ("build, play a park or factory, lay streetcars, add a neighborhood, "
                        f"exchange cards{trade} or pass")
            else:
                what = f"build, exchange cards{trade} or pass (city hall unlocks the rest)"
            if step == "main":
                what = "now take the turn's action"
            lines.append(f"{mention(match, turn)}, it's your turn: {what}. **My hand** shows "
                         "your cards and what they build.")
        elif step == "draw":
            need = view["draw"]["cards"]
            lines.append(f"{mention(match, turn)} draws {plural(need, 'more card')}: pick a "
                         "stack below (at most two from one stack per turn).")
        elif step == "trade_offers":
            trade = view["trade"]
            waiting = ", ".join(mention(match, p) for p in trade["waiting_for"])
            lines.append(f"{name(match, trade['trader'])} wants to trade "
                         f"{plural(len(trade['neighborhoods']), 'card')} (from neighborhood "
                         f"{join_words([str(n) for n in trade['neighborhoods']])}). "
                         f"{waiting}: press **Answer the trade** to offer cards or decline.")
        elif step == "trade_accept":
            lines.append(f"{mention(match, turn)}, the answers to your trade are in: press "
                         "**Trade offers** to take one, exchange instead, or end the trade.")
        last = view["last_action"]
        # A building or a park/factory is already a line of the table's news below, with
        # its points explained: a "Last move" line would say it twice.
        if last and last["type"] not in ("build", "special"):
            lines.append(f"Last move: {last_move(match, last)}.")
        return "\n".join(lines)

    def picture_description(self, match: Match) -> str:
        view = self.public_view(match)
        city = (f"{plural(len(view['neighborhoods']), 'neighborhood')} placed, "
                f"{plural(len(view['buildings']), 'piece')} built, "
                f"{plural(len(view['streetcars']), 'streetcar')} laid")
        if view["phase"] == "over":
            text = (f"Big City, the final city: {city}. Final scores: "
                    f"{scores_line(match, view)}. {final_line(match, view)}")
        elif view["phase"] == "setup":
            text = (f"Big City city map while setting up: {city}. {name(match, view['turn'])} "
                    "places a starting neighborhood.")
        else:
            due = ", ".join(name(match, p) for p in view["to_act"]) or "nobody"
            text = (f"Big City city map, turn {view['turn_number']}: {city}. Due now: {due}. "
                    f"Scores: {scores_line(match, view)}.")
            if last := last_move(match, view["last_action"]):
                text += f" Last move: {last}."
        return fit_description(plain_text(text, match))

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        state = match.state
        assert state is not None
        turn = ENGINE.to_act(state)
        current = turn[0] if turn and state["step"] != "trade_offers" else None
        items = step_items(match, current)
        items.append(hand_button(match))
        return [wrap(item) for item in items]

    def options_text(self, match: Match) -> str:
        on = [VARIANT_NAMES[k] for k in VARIANT_NAMES if match.options.get(k)]
        return ("Variants: " + "; ".join(on) + ".") if on else "Basic rules (no variants)."

    def notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        notices: list[Notice] = []
        events = outcome.events
        if outcome.timed_out and outcome.player is not None:
            action = outcome.action
            turn_done = any(e["type"] in ("turn", "game_over") for e in events)
            if action.get("type") != "draw" or turn_done:
                notices.append(Notice(
                    f"⏰ {name(match, outcome.player)} ran out of time, so the computer player "
                    f"{action_words(match, action)} for them.", fold=True))
        for event in events:
            kind = event["type"]
            if kind == "built":
                notices.append(Notice("🏗️ " + built_words(
                    name(match, event["player"]), event["building"], event["properties"],
                    event["points"], event["explanation"]), fold=True))
            elif kind == "special_placed":
                card = event["card"]
                icon = "🌳" if SPECIAL_CARDS[card][1] == "park" else "🏭"
                notices.append(Notice(f"{icon} {name(match, event['player'])} placed "
                                      f"{piece_title(card)} on {sites(event['properties'])}.",
                                      fold=True))
            elif kind == "traded":
                notices.append(Notice(f"🤝 {name(match, event['player'])} traded "
                                      f"{plural(event['count'], 'card')} with "
                                      f"{name(match, event['with'])}.", fold=True))
            elif kind == "game_over":
                assert match.state is not None
                view = self.engine.view(match.state, None)
                how = ("Every property of all eight neighborhoods is built on"
                       if event["reason"] == "city_complete" else "Everyone passed in a row")
                text = (f"🏁 **Big City is over.** {how}.\nFinal scores: "
                        f"{scores_line(match, view)}\n{final_line(match, view)}")
                notices.append(Notice(text, [Picture("final.png", "render_final",
                                                     (self.named_view(match, view),))]))
        return notices


# -- components ------------------------------------------------------------------------


class HandButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=MATCH + r":hand"):
    """The player's cards, privately, and what they build now."""

    def __init__(self, item: discord.ui.Button[Any]) -> None:
        super().__init__(item)
        found = self.template.fullmatch(self.custom_id)
        assert found is not None
        self.match_id = int(found["match"])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> HandButton:
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.match_id)
        if found is None:
            return
        match, player = found
        await reply(interaction, match, await off_loop(hand_screen, match, player))


class OpenButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=MATCH + STAMP + r":c(?P<code>[bksnxdptrw])(?P<arg>[0-9]{0,4})"
                                          r"(?::p(?P<page>[0-9]{1,3}))?"):
    """Opens (or pages) a chooser of one kind of action."""

    def __init__(self, item: discord.ui.Button[Any]) -> None:
        super().__init__(item)
        found = self.template.fullmatch(self.custom_id)
        assert found is not None
        self.stamp = stamp_from(found)
        self.code = found["code"]
        self.arg = int(found["arg"]) if found["arg"] else None
        self.page = int(found["page"] or 0)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> OpenButton:
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.stamp.match_id)
        if found is None:
            return
        match, player = found
        if not await fresh(interaction, match, self.stamp):
            return
        assert match.state is not None
        if player not in ENGINE.to_act(match.state):
            await tell(interaction, turn_refusal(match, player))
            return
        await reply(interaction, match, await off_loop(open_screen, match, player, self.code,
                                                       self.arg, self.page))


def open_screen(match: Match, player: str, code: str, arg: int | None,
                page: int) -> Screen | str:
    assert match.state is not None
    step = match.state["step"]
    # answers to a trade only while it runs; the trader's offers (or an exchange instead)
    # only when the answers are in
    if (code == "r") != (step == "trade_offers"):
        return CATEGORIES[code].empty
    if (step == "trade_accept" and code not in "wx") or (code == "w" and step != "trade_accept"):
        return CATEGORIES[code].empty
    if code in MAP_CODES:
        return map_screen(match, player, code, arg, page)
    if code in CARD_CODES:
        return cards_screen(match, player, code)
    if code == "w":
        return offers_screen(match, player)
    found = of_kind(ENGINE.legal(match.state, player), "p")
    if not found:
        return CATEGORIES["p"].empty
    index, la = found[0]
    return confirm_screen(match, board(match), index, la, None)


class PickSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                 template=MATCH + STAMP + r":l(?P<code>[bksn])(?P<arg>[0-9]{0,4})"
                                          r":p(?P<page>[0-9]{1,3})"):
    """A lettered menu of places; a pick asks to confirm (or, for a first streetcar, offers
    a second one)."""

    def __init__(self, item: discord.ui.Select[Any]) -> None:
        super().__init__(item)
        found = self.template.fullmatch(self.custom_id)
        assert found is not None
        self.stamp = stamp_from(found)
        self.code = found["code"]
        self.arg = int(found["arg"]) if found["arg"] else None
        self.page = int(found["page"])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> PickSelect:
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.stamp.match_id)
        if found is None:
            return
        match, player = found
        index = one_offered_number(self.item)
        if index is None:
            await tell(interaction, "Pick one of the choices in the menu.")
            return
        if not await fresh(interaction, match, self.stamp):
            return
        assert match.state is not None
        if player not in ENGINE.to_act(match.state):
            await tell(interaction, turn_refusal(match, player))
            return
        screen = await off_loop(pick_screen, match, player, self.stamp, self.code, self.arg,
                                self.page, index)
        await reply(interaction, match, screen)


def pick_screen(match: Match, player: str, stamp: Stamp, code: str, arg: int | None,
                page: int, index: int) -> Screen | str:
    """After a pick in a lettered menu: confirm it, or for a first streetcar that can get a
    second one, the menu of pairs."""
    assert match.state is not None
    legal = ENGINE.legal(match.state, player)
    options = map_options(match.state, legal, code, arg)
    if isinstance(options, str):
        return options
    position = next((k for k, (i, _la) in enumerate(options) if i == index), None)
    if position is None:
        return "That is not one of the choices."
    la = legal[index]
    if code == "s" and arg is None and any(
            len(other.action["segments"]) == 2
            and la.action["segments"][0] in other.action["segments"]
            for _i, other in of_kind(legal, "s")):
        return map_screen(match, player, "s", index, 0)
    back = f"{stamp.base}:c{code}{'' if arg is None else arg}:p{page}"
    return confirm_screen(match, stamp, index, la, back, letters(position))


class GroupSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                  template=MATCH + STAMP + r":gn:p(?P<page>[0-9]{1,3})"):
    """The first of a neighbourhood's two choices: which one, on which side of the city; a
    pick opens the lettered places there."""

    def __init__(self, item: discord.ui.Select[Any]) -> None:
        super().__init__(item)
        found = self.template.fullmatch(self.custom_id)
        assert found is not None
        self.stamp = stamp_from(found)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> GroupSelect:
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.stamp.match_id)
        if found is None:
            return
        match, player = found
        code = one_offered_number(self.item)
        if code is None or code < GROUP_CODE:
            await tell(interaction, "Pick one of the choices in the menu.")
            return
        if not await fresh(interaction, match, self.stamp):
            return
        assert match.state is not None
        if player not in ENGINE.to_act(match.state):
            await tell(interaction, turn_refusal(match, player))
            return
        await reply(interaction, match, await off_loop(map_screen, match, player, "n", code, 0))


class CardSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                 template=MATCH + STAMP + r":m(?P<code>[xdtr])"):
    """Cards picked from the hand (exchange, discard, trade, an offer); then confirm."""

    def __init__(self, item: discord.ui.Select[Any]) -> None:
        super().__init__(item)
        found = self.template.fullmatch(self.custom_id)
        assert found is not None
        self.stamp = stamp_from(found)
        self.code = found["code"]

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> CardSelect:
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.stamp.match_id)
        if found is None:
            return
        match, player = found
        values = offered_values(self.item) or []
        cards = [c for c in map(parse_card, values) if c is not None]
        if not values or len(cards) != len(values):
            await tell(interaction, "Pick cards from your hand in the menu.")
            return
        if not await fresh(interaction, match, self.stamp):
            return
        assert match.state is not None
        if player not in ENGINE.to_act(match.state):
            await tell(interaction, turn_refusal(match, player))
            return
        await reply(interaction, match, await off_loop(cards_confirm, match, player,
                                                       self.stamp, self.code, cards))


def cards_confirm(match: Match, player: str, stamp: Stamp, code: str,
                  cards: list[Card]) -> Screen | str:
    """After cards were picked from the hand: confirm the move they make."""
    assert match.state is not None
    wanted = sorted(str(c) for c in cards)
    legal = ENGINE.legal(match.state, player)
    index = next((i for i, la in of_kind(legal, code)
                  if "cards" in la.action
                  and sorted(str(c) for c in la.action["cards"]) == wanted), None)
    if index is None:
        return {
            "x": f"You can't exchange {cards_words(cards)} now.",
            "d": f"Only useless cards can be discarded, and not {cards_words(cards)} now.",
            "t": "You may offer one or two of your cards in trade.",
            "r": "Offer one card, or as many as the trader announced.",
        }[code]
    return confirm_screen(match, stamp, index, legal[index], f"{stamp.base}:c{code}")


class ActionButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=MATCH + STAMP + r":a(?P<index>[0-9]{1,4})"):
    """Make the move at this index of the player's legal moves, at this version."""

    def __init__(self, item: discord.ui.Button[Any]) -> None:
        super().__init__(item)
        found = self.template.fullmatch(self.custom_id)
        assert found is not None
        self.stamp = stamp_from(found)
        self.index = int(found["index"])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ActionButton:
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.stamp.match_id)
        if found is None:
            return
        match, player = found
        if not await fresh(interaction, match, self.stamp):
            return
        assert match.state is not None
        legal = await asyncio.to_thread(ENGINE.legal, match.state, player)
        if not legal:
            await tell(interaction, turn_refusal(match, player))
            return
        if self.index >= len(legal):
            await tell(interaction, "That choice is not available.")
            return
        outcome = await play(interaction, match, player, legal[self.index].action,
                             **guard_for(self.stamp))
        if outcome is None:
            return
        mine = dataclasses.replace(outcome, match=copy.copy(outcome.match))
        await show(interaction, outcome.match, await asyncio.to_thread(after_screen, mine, player))


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    HandButton, OpenButton, PickSelect, GroupSelect, CardSelect, ActionButton)


# -- slash commands --------------------------------------------------------------------


def new_options(**variants: bool) -> dict[str, Any]:
    """The game options ``/bigcity new`` (and ``/settings defaults bigcity``) stand for: the
    variants switched on."""
    return {name: True for name, on in variants.items() if on}


class BigCity(commands.Cog):
    bigcity = app_commands.Group(name="bigcity", description="Big City: build a city together, "
                                 "building by building", guild_only=True)

    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot

    @bigcity.command(name="new", description="Open a Big City lobby in this channel")
    @app_commands.describe(
        trade_cards="Variant: trade one or two cards with the other players as an action",
        must_exchange_useless="Variant: cards made useless by parks and factories can only be "
                              "exchanged, not discarded",
        single_streetcar_line="Variant: one streetcar line without branches or loops",
        limited_streetcar_line="Variant: streetcars only along properties with a building",
        limited_card_drawing="Variant: draw only from the stacks of placed neighborhoods",
    )
    async def new(self, interaction: discord.Interaction, trade_cards: bool = False,
                  must_exchange_useless: bool = False, single_streetcar_line: bool = False,
                  limited_streetcar_line: bool = False,
                  limited_card_drawing: bool = False) -> None:
        await open_lobby(interaction, ENGINE.name, new_options(
            trade_cards=trade_cards, must_exchange_useless=must_exchange_useless,
            single_streetcar_line=single_streetcar_line,
            limited_streetcar_line=limited_streetcar_line,
            limited_card_drawing=limited_card_drawing))

    @bigcity.command(name="rules", description="How to play Big City")
    async def rules(self, interaction: discord.Interaction) -> None:
        await send_rules(interaction, "How to play Big City", RULES, BigCityAdapter.colour)


async def setup(bot: CityhallBot) -> None:
    await bot.add_game(BigCityAdapter(ENGINE), DYNAMIC_ITEMS, BigCity(bot))
