"""The reveal picture: the back of the card just turned over."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from babel.numbers import format_decimal
from PIL import Image

from bot.core.i18n import ENGLISH, PSEUDO, Words, cldr, current
from bot.games.bigcityz import names
from bot.render import kit
from bot.render.cache import KB, MB, byte_cache, packed_cache
from bot.render.cast import Cast
from bot.render.kit import (
    BAD,
    GOOD,
    HIGHLIGHT,
    INK,
    MUTED,
    PANEL,
    PANEL_ALT,
    PAPER,
    RGB,
    RULE,
    WHITE,
    Box,
    Canvas,
)

from .cast import _city_name, inline
from .centre import _placement_label
from .constants import MARGIN, PALETTE, SMALL, View
from .statements import FACT_ORDER, SYMBOLS, fact_title, short_name
from .symbols import draw_symbol
from .text import signed, wrap

_ = Words("bot.games.bigcityz")
_p = _.context


def _english() -> bool:
    """English (and the pseudo-locale, which is English in disguise) keeps the card's
    own number style: 2 133 111, 105 km², 12.3 °C."""
    return current() in (ENGLISH, PSEUDO)


def _decimal(value: float, pattern: str) -> str:
    """A number the reader's way (1.234,5 · 1 234,5), to ``pattern``'s places."""
    return format_decimal(value, pattern, locale=cldr(current()))

# -- the reveal --------------------------------------------------------------------------


def _compass(letter: str) -> str:
    """N, S, E, W in the reader's letters (German O for Ost, Spanish O for oeste...)."""
    return {"N": _p("compass", "N"), "S": _p("compass", "S"), "E": _p("compass", "E"),
            "W": _p("compass", "W")}[letter]


def _deg(value: float, pos: str, neg: str) -> str:
    degrees = f"{abs(value):.1f}" if _english() else _decimal(abs(value), "0.0")
    return f"{degrees}° {_compass(pos if value >= 0 else neg)}"


def _offset(hours: float) -> str:
    sign = "+" if hours >= 0 else "−"
    whole = int(abs(hours))
    minutes = round((abs(hours) - whole) * 60)
    return f"UTC{sign}{whole}" + (f":{minutes:02d}" if minutes else "")


def _hours(h: float) -> str:
    return str(int(h)) if float(h).is_integer() else f"{h:g}"


def fact_text(statement: str, value: Any, card: View) -> str:
    """A fact's value as printed on the back of the card."""
    if value is None and statement != "airport":
        return "?"
    english = _english()
    if statement == "population":
        return f"{int(value):,}".replace(",", " ") if english else _decimal(int(value), "#,##0")
    if statement == "founded":
        year = int(value)
        return _("{year:d} BC", year=-year) if year < 0 else str(year)
    if statement == "area":
        if english:
            return f"{float(value):,.0f} km²".replace(",", " ")
        return _decimal(float(value), "#,##0") + " km²"
    if statement == "elevation":
        return f"{int(value)} m"
    if statement == "airport":
        return str(value) if value else _("none")
    if statement == "timezones":
        apart = abs(float(value) - 1)
        hours = _hours(apart) if english else _decimal(apart, "0.##")
        return _("{hours} h apart ({offset})", hours=hours, offset=_offset(float(value)))
    if statement == "temperature":
        return (f"{float(value):.1f}" if english else _decimal(float(value), "0.0")) + " °C"
    if statement == "coast":
        return _("on the coast") if value else _("inland")
    if statement == "south":
        return _deg(float(value), "N", "S")
    if statement == "left_traffic":
        return _("drives on the left") if value == "left" else (
            _("drives on the right") if value == "right" else _("drives on the {side}",
                                                                 side=str(value)))
    if statement == "eurasia":
        return names.continent(str(value))
    if statement == "capital":
        country = names.country(card.get("country_code"), card.get("country"))
        if value:
            return _("capital of {country}", country=country) if country else _("capital")
        return _("not the capital")
    return str(value)


# The reveal is one column of facts on a narrower picture, so on a phone its words are
# drawn larger than two columns at 1200 px could be (1/40 of 800 px is 20 px).
REVEAL_W = 800
REVEAL_HEAD = 164
CARD_TOP = REVEAL_HEAD
CARD_HEAD = 96
FACT_H = 70
FACTS = len(FACT_ORDER)
FACT_W = REVEAL_W - 2 * MARGIN - 2 * 16
POINTS_ROW = 48


def _reveal_height(players: int, extra: int) -> int:
    return CARD_BOTTOM + 16 + extra + 60 + players * POINTS_ROW + 16 + MARGIN


def _guess(placement: View) -> bool | None:
    """What the placement bet about each checked statement: True (green square or green
    risk field), False (red), or None ("There's no free square" bets on no statement)."""
    if placement.get("kind") in ("square", "risk"):
        return placement.get("color") == "green"
    return None


def _target_label(target: View, reveal: View) -> str:
    """A free square or risk field named the way the table shows it: "Coast ✓ 4"."""
    colour = target.get("color")
    if "risk" in target:
        a, b = str(target["risk"]).split("-")
        return _("risk {first}–{second} {mark}", first=a, second=b,
                 mark="✓✓" if colour == "green" else "✗✗")
    statement = None
    for ch in reveal.get("checked") or []:
        if ch.get("slot") == target.get("slot"):
            statement = ch.get("statement")
    name = short_name(str(statement)) if statement else _("board {slot}",
                                                          slot=target.get("slot"))
    return f"{name} {'✓' if colour == 'green' else '✗'} {target.get('points')}"


def _reveal_header(c: Canvas, reveal: View, cast: Cast) -> None:
    placer = str(reveal.get("player", ""))
    right = bool(reveal.get("right"))
    city = _city_name(reveal.get("city")) or "?"
    placement = reveal.get("placement") or {}
    gain = int((reveal.get("points") or {}).get(placer, 0))
    verdict = _("✓ RIGHT") if right else _("✗ WRONG")
    colour = GOOD if right else BAD
    box = c.label((MARGIN, 40), f"{verdict} {signed(gain)}", 32, fg=WHITE, bg=colour,
                  anchor="lm")
    kind = placement.get("kind")
    if kind == "no_free_square":
        tail = _("said “There's no free square”")
    else:
        tail = _("put it on {place}", place=_placement_label(placement))
    inline(c, box[2] + 14, 40, [cast.chip(placer)], 28, REVEAL_W - MARGIN)
    c.text((MARGIN, 88), tail, 28, bold=True, anchor="lm", max_width=REVEAL_W - 2 * MARGIN)
    green = placement.get("color") == "green"
    if kind == "square":
        st = short_name(str(placement.get("statement")))
        slot = placement.get("slot")
        sub = (_("The bet: board {slot}, {board}, is TRUE for {city}.", slot=slot, board=st,
                 city=city) if green
               else _("The bet: board {slot}, {board}, is FALSE for {city}.", slot=slot,
                      board=st, city=city))
    elif kind == "risk":
        a, b = str(placement.get("risk", "?-?")).split("-")
        sub = (_("The bet: boards {first} and {second} are both TRUE for {city} (8, or −2 if "
                 "wrong).", first=a, second=b, city=city) if green
               else _("The bet: boards {first} and {second} are both FALSE for {city} (8, or "
                      "−2 if wrong).", first=a, second=b, city=city))
    elif kind == "no_free_square":
        sub = _("The bet: no free square or risk field is right for {city} (8, or −2 if "
                "wrong).", city=city)
    else:
        sub = str(placement.get("label", ""))
    # One line, as English always had (ellipsised if need be), or two (up to the card)
    # where another language needs them.
    subs = (sub,) if current() == ENGLISH else wrap(sub, SMALL, False, REVEAL_W - 2 * MARGIN)
    for i, line in enumerate(subs[:2]):
        c.text((MARGIN, 132 if len(subs) == 1 else 120 + 24 * i), line, SMALL, fill=MUTED,
               anchor="lm", secondary=True, max_width=REVEAL_W - 2 * MARGIN)


def _fact_frame(c: Canvas, box: Box, statement: str, checked: bool) -> None:
    """A fact row without its value: the panel, the symbol on its tile and the title."""
    x0, y0, x1, y1 = box
    c.panel((x0, y0, x1 - 1, y1 - 1), HIGHLIGHT if checked else PANEL, radius=12,
            outline=INK if checked else RULE, width=3 if checked else 1)
    cy = (y0 + y1) / 2
    tile = (x0 + 8, round(cy - 28), x0 + 64, round(cy + 28))
    c.panel(tile, PANEL if checked else PANEL_ALT, radius=10)
    draw_symbol(c, (tile[0] + 6, tile[1] + 6), SYMBOLS.get(statement, ""), 44)
    pill_w = max(kit.text_width(word, 22, True) for word in (_("✗ FALSE"), _("✓ TRUE"))) \
        + 2 * round(22 * 0.45)
    c.text((x0 + 76, cy - 15), fact_title(statement), 20,
           fill=INK if checked else MUTED, anchor="lm", max_width=x1 - 10 - pill_w - x0 - 86)


def _fact_row(c: Canvas, box: Box, statement: str, fact: View, card: View,
              slot: int | None, guess: bool | None) -> None:
    """One fact with TRUE or FALSE in words, over its frame; a statement that was checked
    (it lies in ``slot``) is highlighted, with what the bet said about it."""
    x0, y0, x1, y1 = box
    checked = slot is not None
    if checked:
        _fact_frame(c, box, statement, True)
        # The board it lies on, as numbered on the table.
        c.panel((x0 - 6, y0 - 6, x0 + 24, y0 + 24), INK, radius=15)
        c.text((x0 + 9, y0 + 10), str(slot), 20, bold=True, fill=WHITE, anchor="mm")
    cy = (y0 + y1) / 2
    tx = x0 + 76
    true = bool(fact.get("true"))
    betted = checked and guess is not None
    bet_box = (x1, 0, x1, 0)  # the bet's words, when there is a bet
    tag = _truth_tag(true, HIGHLIGHT if checked else PANEL, current())
    px, py = x1 - 10 - tag.width, round(cy - (14 if betted else 0) - tag.height / 2)
    c.image.paste(tag, (px, py))
    pill = (px, py, x1 - 10, py + tag.height)
    if betted:
        ok = guess == true
        bet = ((_("bet TRUE: ✓ right") if ok else _("bet TRUE: ✗ wrong")) if guess
               else (_("bet FALSE: ✓ right") if ok else _("bet FALSE: ✗ wrong")))
        bet_box = c.text((x1 - 10, cy + 20), bet, 20, bold=True, fill=INK, anchor="rm")
    room = pill[0] - tx - 10
    # the value stops short of the bet's words, however long a language makes them
    c.text((tx, cy + 15), fact_text(statement, fact.get("value"), card), 26, bold=True,
           anchor="lm", max_width=room if not betted else min(x1 - 230, bet_box[0] - 12) - tx)


@byte_cache(128 * KB)
def _truth_tag(true: bool, background: RGB, language: str) -> Image.Image:
    """The "✓ TRUE" / "✗ FALSE" pill of a fact, drawn once per language and pasted."""
    word = _("✓ TRUE") if true else _("✗ FALSE")
    probe = Canvas.new(400, 60, background)
    box = probe.label((0, 0), word, 22, fg=WHITE, bg=GOOD if true else BAD, anchor="lt")
    return probe.image.crop((0, 0, box[2], box[3]))


def _fact_box(i: int) -> Box:
    x0 = MARGIN + 16
    y0 = CARD_TOP + CARD_HEAD + i * FACT_H
    return x0, y0, x0 + FACT_W, y0 + FACT_H - 8


def _points_frame(c: Canvas, players: int, box: Box) -> None:
    x0, y0, x1, _y1 = box
    c.panel(box, PANEL, radius=16)
    c.text((x0 + 16, y0 + 28), _("Points"), 26, bold=True, anchor="lm")
    c.text((x1 - 16, y0 + 28), _("change · total"), 22, fill=MUTED, anchor="rm")
    for i in range(0, players, 2):
        cy = y0 + 76 + i * POINTS_ROW
        c.draw.rectangle((x0 + 8, cy - 23, x1 - 8, cy + 23), fill=PAPER)


def _points_panel(c: Canvas, reveal: View, cast: Cast, box: Box) -> None:
    x0, y0, x1, _y1 = box
    placer = str(reveal.get("player", ""))
    right = bool(reveal.get("right"))
    points = reveal.get("points") or {}
    totals = reveal.get("scores") or {}
    objectors = list(reveal.get("objectors") or [])
    if objectors:
        note = (_("objections unjustified: −3 each") if right
                else _("objections justified: +3 each"))
    else:
        note = _("nobody objected")
    # after the "Points" title, short of "change · total", however long either is said
    left = max(x0 + 116, x0 + 16 + kit.text_width(_("Points"), 26, True) + 7)
    stop = x1 - 16 - kit.text_width(_("change · total"), 22, False) - 14
    c.text((left, y0 + 28), note, 22, fill=MUTED, anchor="lm", max_width=stop - left)
    for i, p in enumerate(cast.players):
        cy = y0 + 76 + i * POINTS_ROW
        chip = c.chip((x0 + 16, cy), p, cast.style(p), 24, anchor="lm", max_width=320,
                      fallback=cast.fallback(p))
        delta = int(points.get(p, 0))
        if p == placer:
            role = _("placed the city: right") if right else _("placed the city: wrong")
            due = _placer_due(reveal)
        elif p in objectors:
            role = _("objected: not justified") if right else _("objected: justified")
            due = -3 if right else 3
        else:
            role, due = "", 0
        if due != delta:
            role += " " + _("({points}, but a score stays at 0 or more)", points=signed(due))
        if role:
            c.text((chip[2] + 14, cy), role, 22, bold=p in objectors or p == placer,
                   anchor="lm", max_width=x1 - 220 - chip[2])
        colour = GOOD if delta > 0 else (BAD if delta < 0 else MUTED)
        c.text((x1 - 110, cy), signed(delta), 28, bold=delta != 0, fill=colour, anchor="rm")
        c.text((x1 - 16, cy), str(int(totals.get(p, 0))), 28, bold=True, anchor="rm")


def _placer_due(reveal: View) -> int:
    """The placer's points before "scores never go below 0" is applied."""
    placement = reveal.get("placement") or {}
    kind = placement.get("kind")
    if reveal.get("right"):
        return int(placement.get("points") or 0) if kind == "square" else 8
    return 0 if kind == "square" else -2


def _note_lines(reveal: View) -> tuple[str, ...]:
    """Under the card of a "There's no free square": what would have been right."""
    if (reveal.get("placement") or {}).get("kind") != "no_free_square":
        return ()
    free_right = list(reveal.get("free_squares_right") or [])
    if not free_right:
        none = _("✓ None of the free squares or risk fields would have been right.")
        # English keeps its one line, as it always had; other words wrap to the panel.
        return (none,) if current() == ENGLISH else wrap(none, 24, True,
                                                         REVEAL_W - 2 * MARGIN - 32)
    spots = " · ".join(_target_label(t, reveal) for t in free_right)
    return wrap(_("✗ Would have been right: {places}", places=spots), 24, True,
                REVEAL_W - 2 * MARGIN - 32)


CARD_BOTTOM = CARD_TOP + CARD_HEAD + FACTS * FACT_H + 16


def _points_box(players: int, extra: int) -> Box:
    y = CARD_BOTTOM + 16 + extra
    return MARGIN, y, REVEAL_W - MARGIN - 1, y + 52 + players * POINTS_ROW + 8


# Kept compressed only (~32 KB a base, a few bases in play): a hit is a new image to draw
# on (~0.5 ms to expand) where drawing it and copying it took ~4 ms.
@packed_cache(1 * MB, hot_bytes=0)
def _reveal_base(players: int, extra: int, language: str) -> Image.Image:
    """What every card back shares: the card, each fact's symbol and title, the frame of
    the points table (RGB; each reveal is drawn over a copy)."""
    c = Canvas.new(REVEAL_W, _reveal_height(players, extra), PAPER)
    c.panel((MARGIN, CARD_TOP, REVEAL_W - MARGIN - 1, CARD_BOTTOM), PANEL_ALT, radius=18,
            outline=INK, width=2)
    for i, statement in enumerate(FACT_ORDER):
        _fact_frame(c, _fact_box(i), statement, False)
    _points_frame(c, players, _points_box(players, extra))
    return c.image


def _draw_reveal(reveal: View, players: Sequence[str]) -> Canvas:
    cast = Cast(players or list((reveal.get("points") or {}).keys()))
    card: View = reveal.get("city") or {}
    facts: View = card.get("facts") or {}
    placement = reveal.get("placement") or {}
    checked = {str(ch.get("statement")): ch for ch in reveal.get("checked") or []}
    note = _note_lines(reveal)
    extra = 24 + 32 * len(note) + 12 if note else 0
    n = len(cast.players)
    c = Canvas(_reveal_base(n, extra, current()))
    _reveal_header(c, reveal, cast)
    name = _city_name(card) or "?"
    c.text((MARGIN + 20, CARD_TOP + 36), name, 40, bold=True, anchor="lm",
           max_width=REVEAL_W - 2 * MARGIN - 40)
    where = []
    if card.get("country"):
        where.append(names.country(card.get("country_code"), str(card["country"])))
    if card.get("continent"):
        where.append(names.continent(str(card["continent"])))
    lat, lon = card.get("latitude"), card.get("longitude")
    if isinstance(lat, int | float) and isinstance(lon, int | float):
        where.append(f"{_deg(float(lat), 'N', 'S')}, {_deg(float(lon), 'E', 'W')}")
    c.text((MARGIN + 20, CARD_TOP + 76), " · ".join(where), 24, fill=MUTED, anchor="lm",
           max_width=REVEAL_W - 2 * MARGIN - 40)
    guess = _guess(placement)
    for i, statement in enumerate(FACT_ORDER):
        if statement not in facts:
            continue
        slot = checked[statement].get("slot") if statement in checked else None
        _fact_row(c, _fact_box(i), statement, facts[statement] or {}, card,
                  None if slot is None else int(slot), guess)
    if note:
        good = bool(reveal.get("right"))
        y = CARD_BOTTOM + 16
        c.panel((MARGIN, y, REVEAL_W - MARGIN - 1, y + extra - 12), PANEL, radius=14,
                outline=GOOD if good else BAD, width=2)
        for i, line in enumerate(note):
            c.text((MARGIN + 16, y + 28 + 32 * i), line, 24, bold=True,
                   fill=GOOD if good else BAD, anchor="lm",
                   max_width=REVEAL_W - 2 * MARGIN - 32)
    _points_panel(c, reveal, cast, _points_box(n, extra))
    return c


def render_reveal(view: View) -> bytes:
    """The back of the card revealed last (``view["last_reveal"]``), as PNG bytes."""
    reveal = view.get("last_reveal")
    players = list(view.get("players") or [])
    if not reveal:
        c = Canvas.new(REVEAL_W, 160, PAPER)
        c.text((MARGIN, 56), _("No city has been revealed yet"), 34, bold=True, anchor="lm",
               max_width=REVEAL_W - 2 * MARGIN)
        c.text((MARGIN, 110), _("Round {round} is in play", round=int(view.get("round", 1))),
               24, fill=MUTED, anchor="lm")
        return c.png(PALETTE)
    return _draw_reveal(reveal, players).png(PALETTE)
