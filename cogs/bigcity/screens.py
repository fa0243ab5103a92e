"""Screens: what a private reply shows, and where a neighbourhood may go."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import discord

from bot.core.engine import JSON, LegalAction
from bot.core.i18n import Text, Words
from bot.core.records import Match
from bot.games.bigcity import ENGINE
from bot.games.bigcity.city import City
from bot.games.bigcity.content import SPECIAL_CARDS, Card
from bot.games.bigcity.geometry import neighborhood_layout, neighbors, normalize_segment
from bot.games.bigcity.legality import building_sites
from bot.games.bigcity.saying import card_name, street, title
from bot.games.bigcity.scoring import score_building
from bot.games.bigcity.views import (
    PlaceNeighborhood,
    drawing,
    move_of,
    placing,
    seen_by,
    streetcar_of,
    table,
)
from bot.ui.game import seat_name
from bot.ui.paged import PAGE_SIZE, Choice, clamp_page, page_of, paged_menu, shorten
from bot.ui.screens import Screen, button, lettered_menu
from bot.ui.words import join_words, name

from .ids import CATEGORIES, PLAYING_STEPS, Stamp, board, of_kind, trade_stamp
from .words import card_notes, cards_words, hand_lines, score_words, sites, turn_refusal

_ = Words("bot.games.bigcity")
_n, _l = _.plural, _.lazy

# -- screens: what a private reply shows (a ``Screen``, bot/ui/screens.py) ---------------


def preview_choice(label: str, action: JSON) -> JSON:
    move = move_of(action)
    if move["type"] == "build" or move["type"] == "special":
        return {"label": label, "properties": list(move["properties"])}
    if move["type"] == "streetcar":
        return {"label": label, "segments": move["segments"]}
    place = placing(action)
    return {"label": label, "neighborhood": place["neighborhood"], "at": list(place["at"]),
            "rotation": place["rotation"]}


def step_items(match: Match, player: str | None, *,
               private: bool = False) -> list[discord.ui.Item[Any]]:
    """The buttons of the current step. On the table (``private`` False) they depend only
    on public facts, so they give nothing of the hand away; in a player's own reply they
    are exactly what ``legal`` offers that player."""
    assert match.state is not None
    view = table(match.state)
    base = board(match).base
    step = view["step"]
    items: list[discord.ui.Item[Any]] = []
    if step == "place":
        items.append(button(_("Place a neighborhood"), f"{base}:cn", emoji="🧩",
                            style=discord.ButtonStyle.primary))
    elif step in PLAYING_STEPS:
        # only here: listing the placements of the "place" step takes ~10 ms, for nothing
        legal = ENGINE.legal(match.state, player) if private and player is not None else []
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
                items.append(button(str(cat.title), f"{base}:c{code}", emoji=cat.emoji,
                                    style=style))
    elif step == "draw":
        current = view["to_act"][0]
        for i, la in enumerate(ENGINE.legal(match.state, current)):
            number = drawing(la.action)["stacks"][0]
            items.append(button(_("Stack {number} · {n} left", number=number,
                                  n=view["stacks"][str(number)]),
                                f"{base}:a{i}", style=discord.ButtonStyle.primary))
    elif step == "trade_offers":
        items.append(button(_("Answer the trade"), f"{trade_stamp(match).base}:cr", emoji="🤝",
                            style=discord.ButtonStyle.primary))
    elif step == "trade_accept":
        items.append(button(_("Trade offers"), f"{base}:cw", emoji="🤝",
                            style=discord.ButtonStyle.primary))
    return items


def hand_button(match: Match) -> discord.ui.Button[Any]:
    return button(_("My hand"), f"ch:bc:{match.id}:hand", emoji="🃏",
                  style=discord.ButtonStyle.success)


# -- where a neighbourhood may go, in two short choices -----------------------------------
#
# A neighbourhood has 48 to 150 legal positions (every slide along the city's edge, four
# turns of a square one). First choice: which neighbourhood, on which side of the city as the
# pictures show it (above, right, below, left; a long side in parts), at most 25 groups.
# Second: the places of that group, at most 25, lettered on the preview. Custom ids carry
# the group as ``number * 100 + ordinal`` (three digits); a one-digit argument is an older
# message's neighbourhood number and still lists all its places, page by page.

SIDES = (_l("above the city"), _l("right of the city"), _l("below the city"),
         _l("left of the city"))
PARTS = {  # a side with more than 25 places is cut along its length
    2: ((_l("left part"), _l("right part")), (_l("upper part"), _l("lower part"))),
    3: ((_l("left part"), _l("middle part"), _l("right part")),
        (_l("upper part"), _l("middle part"), _l("lower part"))),
}
GROUP_CODE = 100  # arguments from here on are groups; below 10 an older neighbourhood number


@dataclass(frozen=True)
class Group:
    """The places of one neighbourhood on one side (or part of a side) of the city."""

    number: int
    code: int
    words: Text | str  # which side of the city (said when shown)
    options: list[tuple[int, LegalAction]]


def ghost_of(action: PlaceNeighborhood) -> dict[int, tuple[int, int]]:
    return neighborhood_layout(int(action["neighborhood"]), (int(action["at"][0]),
                               int(action["at"][1])), int(action["rotation"]))


@lru_cache(maxsize=8192)
def _middle(number: int, x: int, y: int, rotation: int) -> tuple[float, float]:
    """The middle of a neighbourhood placed so (a map's picker asks for every place of
    every unplaced one on each look; the same places recur from turn to turn)."""
    cells = list(neighborhood_layout(number, (x, y), rotation).values())
    return (sum(c[0] + 0.5 for c in cells) / len(cells),
            sum(c[1] + 0.5 for c in cells) / len(cells))


def neighborhood_groups(state: JSON, found: list[tuple[int, LegalAction]]) -> list[Group]:
    city = City(state)
    xs = [c[0] for c in city.property_at]
    ys = [c[1] for c in city.property_at]
    cx, cy = (min(xs) + max(xs) + 1) / 2, (min(ys) + max(ys) + 1) / 2
    width, height = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    sided: dict[tuple[int, int], list[tuple[float, int, int, LegalAction]]] = {}
    for i, la in found:
        place = placing(la.action)
        gx, gy = _middle(int(place["neighborhood"]), int(place["at"][0]), int(place["at"][1]),
                         int(place["rotation"]))
        # the side the neighbourhood's middle lies toward, the city's shape evened out
        nx, ny = (gx - cx) / width, (gy - cy) / height
        side = (0 if ny < 0 else 2) if abs(ny) >= abs(nx) else (1 if nx > 0 else 3)
        along = gx if side in (0, 2) else gy
        sided.setdefault((int(place["neighborhood"]), side), []).append(
            (along, int(place["rotation"]), i, la))
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
                words: Text | str = SIDES[side]
                if chunks in PARTS:
                    words = _l("{side}, {part}", side=SIDES[side], part=PARTS[chunks][side % 2][k])
                elif chunks > 1:
                    words = _l("{side}, part {k} of {n}", side=SIDES[side], k=k + 1, n=chunks)
                groups.append(Group(number, number * GROUP_CODE + ordinal, words,
                                    [(i, la) for _a, _r, i, la in places[k * size:(k + 1) * size]]))
    return groups


def turned_words(rotation: int) -> str:
    return _("turned {degrees}°", degrees=rotation) if rotation % 360 else _("not turned")


def touch_words(city: City, action: PlaceNeighborhood) -> tuple[str, str]:
    """Which properties of the city a placed neighbourhood would lie next to, as the map
    numbers them: ("next to 12, 13, 14", "31 by 12 · 32 by 13 · 33 by 14")."""
    pairs: list[tuple[int, int]] = []
    for prop, cell in sorted(ghost_of(action).items()):
        for near in neighbors(cell):
            other = city.property_at.get(near)
            if other is not None:
                pairs.append((prop, other))
    touched = sorted({other for _prop, other in pairs})
    return (_("next to {properties}", properties=", ".join(map(str, touched))),
            " · ".join(_("{property} by {other}", property=prop, other=other)
                       for prop, other in pairs))


def place_words(city: City, action: PlaceNeighborhood) -> tuple[str, str]:
    """A neighbourhood position's menu label (after its letter) and description."""
    near, pairs = touch_words(city, action)
    return f"{turned_words(int(action['rotation']))}, {near}", pairs


def map_options(state: JSON, legal: list[LegalAction], code: str,
                arg: int | None) -> list[tuple[int, LegalAction]] | str:
    """The choices of a place-picking screen, or why there are none."""
    found = of_kind(legal, code)
    if not found:
        return str(CATEGORIES[code].empty)
    if code == "n" and arg is not None and arg >= GROUP_CODE:
        group = next((g for g in neighborhood_groups(state, found) if g.code == arg), None)
        if group is None:
            return _("Neighborhood {number} can't be placed there now.",
                     number=arg // GROUP_CODE)
        return group.options
    if code == "n" and arg is not None:
        found = [(i, la) for i, la in found if placing(la.action)["neighborhood"] == arg]
        if not found:
            return _("Neighborhood {number} can't be placed now.", number=arg)
    if code == "s":
        singles = [(i, la) for i, la in found if len(streetcar_of(la.action)["segments"]) == 1]
        if arg is None:
            return singles
        chosen = move_of(legal[arg].action) if arg < len(legal) else None
        if chosen is None or chosen["type"] != "streetcar" or len(chosen["segments"]) != 1:
            return _("That streetcar is not a choice any more.")
        first = chosen["segments"][0]
        return [(arg, legal[arg])] + [(i, la) for i, la in found
                                      if len(streetcar_of(la.action)["segments"]) == 2
                                      and first in streetcar_of(la.action)["segments"]]
    return found


def map_screen(match: Match, player: str, code: str, arg: int | None, page: int) -> Screen | str:
    assert match.state is not None
    legal = ENGINE.legal(match.state, player)
    base = board(match).base
    groups: list[Group] = []
    if code == "n" and (arg is None or arg >= GROUP_CODE):
        groups = neighborhood_groups(match.state, of_kind(legal, "n"))
    if code == "n" and arg is None:
        if len(groups) == 1:
            arg = groups[0].code
        elif groups:
            choices = [Choice(str(g.code), _("Neighborhood {number} · {side}", number=g.number,
                                             side=g.words),
                              _n("{n} place, lettered on the next picture",
                                 "{n} places, lettered on the next picture", len(g.options)))
                       for g in groups]
            setup = table(match.state)["phase"] == "setup"
            text = (_("**Place a starting neighborhood.**") if setup
                    else _("**Add a neighborhood.**")) + " " + \
                _("Which one, and on which side of the city (as the table's picture shows "
                  "it)? The next menu letters every place there. Two of its properties must "
                  "lie next to two properties of the city.")
            items = paged_menu(choices, page, select_id=lambda p: f"{base}:gn:p{p}",
                               page_id=lambda p: f"{base}:cn:p{p}", lettered=False,
                               placeholder=_("Which neighborhood, on which side?"))
            return Screen(text, items)
    found = map_options(match.state, legal, code, arg)
    if isinstance(found, str):
        return found
    if not found:
        return str(CATEGORIES[code].empty)
    arg_text = "" if arg is None else str(arg)
    page = clamp_page(page, len(found))
    extra: list[discord.ui.Item[Any]] = []
    if code == "b":
        head = _("**Build** — the buildings your cards allow now, best first, with the points "
                 "each scores. The picture marks each site with its letter.")
        menu = _("Pick a building")
    elif code == "k":
        head = _("**Park or factory** — where your card's piece fits. A park may have at most "
                 "one property on the outskirts, a factory needs at least two.")
        menu = _("Pick a place")
    elif code == "s" and arg is None:
        first = not table(match.state)["streetcars"]
        head = (_("**Streetcar** — the first streetcar goes on any street of the city. The "
                  "picture marks each street with its letter.") if first
                else _("**Streetcar** — pick the first new streetcar; you can add a second one "
                       "next. The picture marks each street with its letter."))
        menu = _("Pick a street")
    elif code == "s":
        head = _("**Streetcar** — this one alone (A), or with a second one (B…). Both are "
                 "drawn with their letter.")
        menu = _("One or two streetcars")
        singles = of_kind(legal, "s")
        singles = [(i, la) for i, la in singles
                   if len(streetcar_of(la.action)["segments"]) == 1]
        position = next(k for k, (i, _la) in enumerate(singles) if i == arg)
        extra.append(button(_("◀ Another first streetcar"), f"{base}:cs:p{page_of(position)}",
                            row=2))
    else:
        assert arg is not None
        group = next((g for g in groups if g.code == arg), None)
        number = group.number if group else arg
        tail = _("each place is drawn with its letter; the menu says how it is turned and which "
                 "properties of the city it would lie next to.")
        head = (_("**Neighborhood {number}, {side}** — {rest}", number=number, side=group.words,
                  rest=tail) if group
                else _("**Neighborhood {number}** — {rest}", number=number, rest=tail))
        menu = _("Pick a place")
        if len(groups) > 1 or group is None:
            extra.append(button(_("◀ Another side or neighborhood"), f"{base}:cn:p0", row=2))
    city = City(match.state)
    choices = []
    for pos, (i, la) in enumerate(found):
        if code == "n":
            label, description = place_words(city, placing(la.action))
            choices.append(Choice(str(i), label, description))
        elif code == "s" and arg is not None and pos == 0:
            choices.append(Choice(str(i), _("Only this streetcar: {choice}",
                                            choice=move_label(city, la))))
        else:
            choices.append(Choice(str(i), move_label(city, la)))
    items, preview = lettered_menu(
        choices, [la.action for _i, la in found], page, mark=preview_choice,
        select_id=lambda p: f"{base}:l{code}{arg_text}:p{p}",
        page_id=lambda p: f"{base}:c{code}{arg_text}:p{p}", placeholder=menu)
    text = head + "\n" + _n("{n} choice; pick one, then confirm.",
                            "{n} choices; pick one, then confirm.", len(found))
    return Screen(text, items + extra, preview)


def cards_screen(match: Match, player: str, code: str) -> Screen | str:
    assert match.state is not None
    stamp = trade_stamp(match) if code == "r" else board(match)
    legal = ENGINE.legal(match.state, player)
    found = of_kind(legal, code)
    with_cards = [cards for _i, la in found if "cards" in (cards := move_of(la.action))]
    view = seen_by(match.state, player)
    notes = card_notes(view)
    items: list[discord.ui.Item[Any]] = []
    most = max((len(move["cards"]) for move in with_cards), default=0)
    if with_cards:
        offered = {str(c) for move in with_cards for c in move["cards"]}
        options = [discord.SelectOption(label=card_name(c), value=str(c),
                                        description=shorten(notes[str(c)]))
                   for c in view["hand"] if str(c) in offered]
        items.append(discord.ui.Select(
            custom_id=f"{stamp.base}:m{code}", min_values=1, max_values=min(most, len(options)),
            options=options, placeholder=_("Pick the cards") if most > 1 else _("Pick a card"),
            row=0))
    if code == "r":
        decline = next((i for i, la in found if move_of(la.action)["type"] == "trade_decline"),
                       None)
        if decline is not None:
            items.append(button(_("Decline"), f"{stamp.base}:a{decline}",
                                style=discord.ButtonStyle.danger, row=1))
    if not items:
        return str(CATEGORIES[code].empty)
    if code == "x":
        text = _("**Exchange** — pick the cards to put back (face down, under their own "
                 "stacks); you then draw as many, at most two from one stack this turn.")
        if most < len(view["hand"]):
            text += " " + _("After a trade without a deal you may exchange at most {n}.",
                            n=most)
    elif code == "d":
        text = _("**Discard useless cards** — their properties are under a park or factory. "
                 "They are shown to everyone and leave the game; you draw replacements at the "
                 "end of your turn, and still take an action now.")
    elif code == "t":
        text = _("**Trade** — pick one or two cards to offer. The others see only the "
                 "neighborhoods on their backs and answer with offers; you then accept offers "
                 "card for card, or end the trade.")
    else:
        trade = view["trade"]
        assert trade is not None  # answers only while a trade runs
        text = _n("**{name} wants to trade {n} card** (from neighborhood {numbers}). Offer one "
                  "card or {n}, or decline.",
                  "**{name} wants to trade {n} cards** (from neighborhood {numbers}). Offer one "
                  "card or {n}, or decline.", len(trade["neighborhoods"]),
                  name=name(match, trade["trader"]),
                  numbers=join_words([str(n) for n in trade["neighborhoods"]]))
    return Screen(text + "\n\n" + _("**Your hand:**") + "\n" + hand_lines(view), items)


def offers_screen(match: Match, player: str) -> Screen | str:
    """The trader's decisions: take an offer, exchange instead, or end the trade."""
    assert match.state is not None
    legal = ENGINE.legal(match.state, player)
    found = of_kind(legal, "w")
    if not found:
        return str(CATEGORIES["w"].empty)
    base = board(match).base
    view = seen_by(match.state, player)
    trade = view["trade"]
    assert trade is not None  # the trader decides while the trade runs
    lines = []
    for other, stacks in trade["offers"].items():
        if other in trade["accepted"]:
            lines.append("• " + _("{name}: traded", name=name(match, other)))
        elif stacks:
            lines.append("• " + _n("{name} offers {n} card from neighborhood {numbers}",
                                   "{name} offers {n} cards from neighborhood {numbers}",
                                   len(stacks), name=name(match, other),
                                   numbers=join_words([str(s) for s in stacks])))
        else:
            lines.append("• " + _("{name} declined", name=name(match, other)))
    side = view["my_trade"]
    mine, given = (side["cards"], side["given"]) if side and "cards" in side else ([], [])
    text = (_("**Trade offers** for your {cards}:",
              cards=cards_words([c for c in mine if c not in given])) + "\n"
            + "\n".join(lines))
    items: list[discord.ui.Item[Any]] = []
    for i, la in found:
        move = move_of(la.action)
        if move["type"] == "trade_accept":
            partner = move["partner"]
            items.append(button(
                _("Give {cards} for {name}'s offer", cards=cards_words(move["give"]),
                  name=seat_name(match, partner)),
                f"{base}:a{i}", style=discord.ButtonStyle.success))
    if any(move_of(la.action)["type"] == "exchange" for _i, la in found):
        items.append(button(_("Exchange up to two cards instead"), f"{base}:cx"))
    end = next(i for i, la in found if move_of(la.action)["type"] == "trade_end")
    items.append(button(_("End the trade"), f"{base}:a{end}",
                        style=discord.ButtonStyle.danger))
    return Screen(text, items)


def confirm_screen(match: Match, stamp: Stamp, index: int, la: LegalAction,
                   back_id: str | None, letter: str | None = None) -> Screen:
    assert match.state is not None
    action = move_of(la.action)
    kind = action["type"]
    preview = None
    if kind in ("build", "special", "streetcar", "place_neighborhood"):
        preview = [preview_choice(letter or "A", la.action)]
    tag = f"**{letter}** · " if letter else ""
    city = City(match.state)
    if action["type"] == "build":
        score = score_building(city, action["building"], action["properties"])
        text = _("Build {tag}**{building} on {sites}**? It scores {score}.", tag=tag,
                 building=title(action["building"]), sites=sites(action["properties"]),
                 score=score_words(score.explanation, score.points))
    elif action["type"] == "place_neighborhood":
        near, pairs = touch_words(city, action)
        text = _("Place {tag}**neighborhood {number}**, {turned}, {near}? ({pairs})", tag=tag,
                 number=action["neighborhood"], turned=turned_words(int(action["rotation"])),
                 near=near, pairs=pairs)
    elif kind == "streetcar":
        text = _("Lay {tag}**{choice}**?", tag=tag, choice=move_label(city, la))
    elif kind == "special":
        text = _("Place {tag}**{choice}**?", tag=tag, choice=move_label(city, la))
    elif action["type"] == "exchange":
        text = _n("Exchange **{cards}**? They go face down under their stacks; then you draw "
                  "{n} new card.",
                  "Exchange **{cards}**? They go face down under their stacks; then you draw "
                  "{n} new cards.", len(action["cards"]), cards=cards_words(action["cards"]))
    elif action["type"] == "discard_useless":
        text = _("Discard **{cards}**? Everyone sees them; you draw replacements at the end of "
                 "your turn.", cards=cards_words(action["cards"]))
    elif action["type"] == "trade":
        text = _("Offer **{cards}** in trade? The others see only their neighborhoods.",
                 cards=cards_words(action["cards"]))
    elif action["type"] == "trade_offer":
        trade = table(match.state)["trade"]
        assert trade is not None  # an offer answers a running trade
        text = _("Offer **{cards}** to {name}?", cards=cards_words(action["cards"]),
                 name=name(match, trade["trader"]))
    elif kind == "pass":
        text = _("Pass this turn? When every player passes in a row, the game ends (a player "
                 "who still can may go on while the others pass).")
    else:
        text = f"**{move_label(city, la)}**?"
    items: list[discord.ui.Item[Any]] = [
        button(_("Confirm"), f"{stamp.base}:a{index}", style=discord.ButtonStyle.success,
               row=0)]
    if back_id is not None:
        items.append(button(_("Back"), back_id, row=0))
    return Screen(text, items, preview)


def possible_builds(state: JSON, hand: list[Card]) -> list[str]:
    """What the hand could build on the city as it stands (whoever's turn it is)."""
    city = City(state)
    scored = []
    for building, props in building_sites(city, hand):
        points = score_building(city, building, props).points
        scored.append((-points, building, props))
    scored.sort()
    return [build_label(b, p, -neg) for neg, b, p in scored]


def build_label(building: str, props: list[int], points: int) -> str:
    """"Double residence on 14+15 (10 pts)"."""
    return _n("{building} on {sites} ({n} pt)", "{building} on {sites} ({n} pts)", points,
              building=title(building), sites=sites(props))


def move_label(city: City, la: LegalAction) -> str:
    """A legal move in a menu's or confirmation's words (the engine's labels stay English)."""
    move = move_of(la.action)
    if move["type"] == "build":
        points = score_building(city, move["building"], move["properties"]).points
        return build_label(move["building"], move["properties"], points)
    if move["type"] == "special":
        return _("{card} on {sites}", card=title(move["card"]), sites=sites(move["properties"]))
    if move["type"] == "streetcar":
        where = []
        for raw in move["segments"]:
            segment = normalize_segment(raw)
            where.append(street(city.describe_segment(segment)) if segment else str(raw))
        return _n("Streetcar {streets}", "Streetcars {streets}", len(where),
                  streets=_(" and ").join(where))
    if move["type"] == "exchange":
        return _("Exchange {cards}", cards=", ".join(card_name(c) for c in move["cards"]))
    if move["type"] == "discard_useless":
        return _("Discard useless {cards}",
                 cards=", ".join(card_name(c) for c in move["cards"]))
    if move["type"] == "trade":
        return _("Trade {cards}", cards=", ".join(card_name(c) for c in move["cards"]))
    if move["type"] == "trade_offer":
        return _("Offer {cards}", cards=", ".join(card_name(c) for c in move["cards"]))
    if move["type"] == "trade_decline":
        return _("Decline the trade")
    if move["type"] == "trade_end":
        return _("End the trade")
    if move["type"] == "pass":
        return _("Pass")
    return la.label  # a draw, a neighbourhood or a trade's deal: their own screens word them


def hand_screen(match: Match, player: str) -> Screen:
    assert match.state is not None
    view = seen_by(match.state, player)
    parts = [_n("**Your hand** ({n} card; only you see this):",
                "**Your hand** ({n} cards; only you see this):", len(view["hand"])),
             hand_lines(view)]
    if mine := view["my_trade"]:
        if "cards" in mine:
            parts.append(_("In your trade: {cards}.", cards=cards_words(mine["cards"])))
        elif "offered" in mine:
            parts.append(_("You offered {cards} in the trade.",
                           cards=cards_words(mine["offered"])))
    on_turn = player in view["to_act"]
    items: list[discord.ui.Item[Any]] = []
    preview = None
    if on_turn and view["step"] in PLAYING_STEPS:
        screen = map_screen(match, player, "b", None, 0)
        if isinstance(screen, Screen):
            parts.append("\n" + _("**You can build now** — pick one (letters on the picture), "
                                "then confirm:"))
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
        if view["phase"] == "setup":
            parts.append("\n" + _("Building starts once the starting neighborhoods are "
                                "placed."))
        else:
            builds = possible_builds(match.state, view["hand"])
            if builds:
                shown = builds[:12]
                if len(builds) > len(shown):
                    parts.append("\n" + _("With these cards you could build, as the city "
                                          "stands: {builds} (and {n} more).",
                                          builds="; ".join(shown), n=len(builds) - len(shown)))
                else:
                    parts.append("\n" + _("With these cards you could build, as the city "
                                          "stands: {builds}.", builds="; ".join(shown)))
            else:
                parts.append("\n" + _("Your cards allow no building on the city as it "
                                      "stands."))
        if on_turn:
            parts.append(_("It's your turn:"))
            items = step_items(match, player, private=True)
        elif view["phase"] != "over":
            parts.append(turn_refusal(match, player))
    return Screen("\n".join(parts), items, preview)
