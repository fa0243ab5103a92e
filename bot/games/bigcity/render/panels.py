"""Under the map: the caption of the last move and the pieces panel."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import Image

from bot.core.i18n import Words, current
from bot.render import kit
from bot.render.cache import MB, byte_cache
from bot.render.kit import INK, MUTED, PANEL, PAPER, RULE, WHITE, Canvas

from ..content import BUILDINGS, SPECIAL_CARDS
from ..saying import a_building, score_sum, street, title
from .cast import Cast
from .constants import (
    FACTORY,
    INNER_W,
    KIND_WORDS,
    LOT_OUT,
    MARGIN,
    PARK,
    PARK_INK,
    ROW_H,
    SPECIAL_BUILDINGS,
    STREETCAR,
    TEXT,
    WIDTH,
    View,
)
from .icons import _paste_icon
from .text import _hoods, _inline, _join_numbers, _marked, _wrapped

_ = Words("bot.games.bigcity")
_n = _.plural

# -- under the map -----------------------------------------------------------------------


def _last_action_lines(view: View, cast: Cast) -> tuple[list[tuple[str, Any]], str] | None:
    """The last move as a sentence with the player's chip, and the score explanation."""
    last = view.get("last_action")
    if not last:
        return None
    player = str(last.get("player", ""))
    kind = last.get("type")
    parts: list[tuple[str, Any]] = [("text", _("Last: ")), cast.chip(player)]
    explanation = ""
    if kind == "build":
        building = str(last.get("building", ""))
        props = "+".join(str(p) for p in last.get("properties") or [])
        points = int(last.get("points") or 0)
        if building in BUILDINGS:
            parts += _marked(_n("built {a_building} on {sites} for **{n} point**",
                                "built {a_building} on {sites} for **{n} points**", points,
                                a_building=a_building(building), sites=props))
        else:  # a view from elsewhere: the building's id as words
            parts += _marked(_n("built a {building} on {sites} for **{n} point**",
                                "built a {building} on {sites} for **{n} points**", points,
                                building=title(building).lower(), sites=props))
        explanation = str(last.get("explanation") or "")
        if not any(sign in explanation for sign in "+−-×="):
            explanation = ""  # "15 church" says nothing the line above does not
        explanation = score_sum(explanation)
    elif kind == "special":
        card = str(last.get("card", ""))
        props = "+".join(str(p) for p in last.get("properties") or [])
        parts.append(("text", _("placed {card} on {sites}", card=title(card), sites=props)))
    elif kind == "streetcar":
        where = [street(str(w)) for w in last.get("where") or []]
        n = len(last.get("segments") or where)
        parts.append(("text", _n("laid {n} streetcar ({streets})", "laid {n} streetcars ({streets})",
                                 n, streets=", ".join(where)) if where
                      else _n("laid {n} streetcar", "laid {n} streetcars", n)))
    elif kind == "place_neighborhood":
        parts.append(("text", _("placed neighborhood {number}",
                                number=last.get("neighborhood", "?"))))
    elif kind == "exchange":
        n = int(last.get("count") or 0)
        stacks = _join_numbers(last.get("stacks") or [])
        parts.append(("text", _n("exchanged {n} card (stacks {stacks})",
                                 "exchanged {n} cards (stacks {stacks})", n, stacks=stacks)
                      if stacks else _n("exchanged {n} card", "exchanged {n} cards", n)))
    elif kind == "discard_useless":
        parts.append(("text", _("discarded useless cards {numbers}",
                                numbers=_join_numbers(last.get("cards") or []))))
    elif kind == "trade":
        hoods = _hoods(last.get("neighborhoods") or [])
        parts.append(("text", _("offered cards from {neighborhoods} for trade",
                                neighborhoods=hoods)))
    elif kind == "pass":
        parts.append(("text", _("passed")))
    else:
        parts.append(("text", str(kind or _("played"))))
    return parts, explanation


CAPTION_H = 48


CAPTION_W = INNER_W - 38  # right of the marker


def _caption_height(view: View, cast: Cast) -> int:
    found = _last_action_lines(view, cast)
    if found is None:
        return 0
    lines = len(_wrapped(found[0], TEXT, CAPTION_W)) + (1 if found[1] else 0)
    return CAPTION_H * lines + 6


def _draw_caption(c: Canvas, view: View, cast: Cast, y: int) -> None:
    found = _last_action_lines(view, cast)
    if found is None:
        return
    parts, explanation = found
    cy = y + CAPTION_H // 2
    c.draw.rectangle((MARGIN + 2, cy - 12, MARGIN + 26, cy + 12), fill=kit.HIGHLIGHT, outline=INK,
                     width=2)
    # a sentence longer than a line (in some languages) goes on over the next ones
    for line in _wrapped(parts, TEXT, CAPTION_W):
        _inline(c, MARGIN + 38, cy, line, TEXT, WIDTH - MARGIN)
        cy += CAPTION_H
    if explanation:
        c.text((MARGIN + 38, cy), explanation, TEXT, bold=True, anchor="lm",
               max_width=INNER_W - 38)


PIECES_ROWS = 8
PIECES_H = PIECES_ROWS * ROW_H + 20  # with three special buildings a row
COUNT_W = 48  # room kept for "×9"


def _special_columns() -> int:
    """Three special buildings a row where their names fit whole beside their counts, else
    two (the panel gets a row longer): a name is never cut to fit."""
    col = (WIDTH - 2 * MARGIN - 36) // 3
    room = col - 34 - 8 - COUNT_W - 16
    fits = all(kit.text_width(kit.prepare(title(b), TEXT), TEXT) <= room
               for b in SPECIAL_BUILDINGS)
    return 3 if fits else 2


def pieces_height() -> int:
    """The pieces panel's height in the current language."""
    return PIECES_H + (ROW_H if _special_columns() == 2 else 0)


def _legend_tile(c: Canvas, name: str, cells: int, x: float, cy: float, unit: int = 34) -> int:
    """A neutral mini piece of ``cells`` lots with the icon in each; returns its right x."""
    top, x = round(cy - unit / 2), round(x)
    c.draw.rectangle((x, top, x + unit * cells - 1, top + unit - 1), fill=RULE, outline=MUTED)
    for i in range(cells):
        _paste_icon(c.image, name, (x + unit * i + unit / 2, cy), round(unit * 0.7), INK)
    return x + unit * cells


Slot = tuple[str, float, float]  # what a count shows, and where: (key, x, centre y)


@byte_cache(5 * MB // 2)  # one language's panel is 2 MB as RGB (1.5 MB kept none)
def _panel_static(language: str) -> tuple[Image.Image, tuple[Slot, ...]]:
    """The pieces panel without its numbers (drawn once per language), and where each
    number goes.

    Keys: a building id, "streetcars", "park"/"factory" (the names of those left),
    "stack:N" or "discard". Numbers are left-aligned at x, vertically centred on y.
    """
    per_row = _special_columns()
    extra = 1 if per_row == 2 else 0  # the special buildings take a third row
    height = pieces_height()
    c = Canvas.new(WIDTH, height, PAPER)
    c.panel((MARGIN, 0, WIDTH - MARGIN - 1, height - 1), PANEL, radius=16)
    slots: list[Slot] = []
    x0 = MARGIN + 18
    right = WIDTH - MARGIN - 18
    col = (right - x0) // per_row
    count_w = COUNT_W

    def centre(row: int) -> float:
        return 10 + ROW_H * row + ROW_H / 2

    # rows 1-2: residences and businesses by size, with the streetcar and outskirts keys
    for row, kind in enumerate(("residence", "business")):
        cy = centre(row)
        x = c.text((x0, cy), str(KIND_WORDS[kind]), TEXT, bold=True, anchor="lm")[2]
        x = max(x + 14, x0 + 190)
        for size, prefix in ((1, "single"), (2, "double"), (3, "triple")):
            x = _legend_tile(c, kind, size, x, cy)
            slots.append((f"{prefix}_{kind}", x + 6, cy))
            x += 6 + count_w + 12
        sx = x + 14
        if row == 0:
            w = 10
            c.draw.rectangle((sx, round(cy) - w // 2 - 2, sx + 44, round(cy) + w // 2 + 1),
                             fill=INK)
            c.draw.rectangle((sx, round(cy) - w // 2, sx + 44, round(cy) + w // 2 - 1),
                             fill=STREETCAR)
            end = c.text((sx + 52, cy), _("Streetcars"), TEXT, anchor="lm")[2]
            slots.append(("streetcars", end + 8, cy))
        else:
            c.draw.rectangle((sx, round(cy) - 16, sx + 44, round(cy) + 16), fill=LOT_OUT)
            c.draw.rectangle((sx, round(cy) - 16, sx + 44, round(cy) - 11), fill=INK)
            c.text((sx + 52, cy), _("Outskirts"), TEXT, anchor="lm", max_width=right - sx - 52)
    # rows 3-4: the six special buildings, three a row (rows 3-5, two a row, for long names)
    for i, bid in enumerate(SPECIAL_BUILDINGS):
        row, x = 2 + i // per_row, x0 + (i % per_row) * col
        cy = centre(row)
        x = _legend_tile(c, bid, 1, x, cy)
        box = c.text((x + 8, cy), title(bid), TEXT, anchor="lm",
                     max_width=col - 34 - 8 - count_w - 16)
        slots.append((bid, box[2] + 8, cy))
    # rows 5-6: the parks and the factories not placed yet, by name
    for row, kind in ((4 + extra, "park"), (5 + extra, "factory")):
        cy = centre(row)
        fill, ink = (PARK, PARK_INK) if kind == "park" else (FACTORY, WHITE)
        c.draw.rectangle((x0, round(cy) - 17, x0 + 33, round(cy) + 16), fill=fill, outline=MUTED)
        _paste_icon(c.image, kind, (x0 + 17, cy), 24, ink)
        word = _("Parks:") if kind == "park" else _("Factories:")
        end = c.text((x0 + 44, cy), word, TEXT, anchor="lm")[2]
        slots.append((kind, end + 10, cy))
    # row 7: the card stacks
    cy = centre(6 + extra)
    x = c.text((x0, cy), _("Cards in stacks"), TEXT, bold=True, fill=MUTED,
               anchor="lm")[2] + 16
    step = (right - x) / 8
    for i in range(1, 9):
        cx = x + step * (i - 1)
        c.panel((round(cx), round(cy) - 20, round(cx) + 31, round(cy) + 19), MUTED, radius=6)
        c.text((cx + 16, cy), str(i), TEXT, bold=True, fill=WHITE, anchor="mm")
        slots.append((f"stack:{i}", cx + 38, cy))
    # row 8: the discard pile (those properties can no longer be drawn)
    cy = centre(7 + extra)
    end = c.text((x0, cy), _("Discarded"), TEXT, bold=True, fill=MUTED, anchor="lm")[2]
    slots.append(("discard", end + 16, cy))
    return c.image, tuple(slots)


def _discard_words(discard: Sequence[Any]) -> str:
    """"none" or "4 cards: 12, 35, 41, 57" (the properties on them, lowest first)."""
    if not discard:
        return _("none")
    # property cards are numbers; a park or factory card laid aside goes by its name
    numbers = sorted(int(card) for card in discard if str(card).isdigit())
    names = [title(str(card)) for card in discard if not str(card).isdigit()]
    return _n("{n} card: {cards}", "{n} cards: {cards}", len(discard),
              cards=_join_numbers([*numbers, *names]))


def _draw_pieces_panel(c: Canvas, view: View, top: int) -> None:
    """Buildings, parks, factories, streetcars and cards left; it doubles as the key."""
    image, slots = _panel_static(current())
    c.image.paste(image, (0, top))
    left = view.get("buildings_left") or {}
    specials_left = view.get("parks_and_factories_left")
    stacks = view.get("stacks") or {}
    right = WIDTH - MARGIN - 18
    for key, x, cy in slots:
        y = top + cy
        if key in ("park", "factory"):
            names = [title(card).split(" ")[0] for card, info in SPECIAL_CARDS.items()
                     if info[1] == key and (specials_left is None or card in specials_left)]
            text = ", ".join(names) if names else _("all placed")
            c.text((x, y), text, TEXT, fill=INK if names else MUTED, anchor="lm",
                   max_width=right - round(x))
            continue
        if key == "discard":
            discard = list(view.get("discard") or [])
            c.text((x, y), _discard_words(discard), TEXT, fill=INK if discard else MUTED,
                   anchor="lm", max_width=right - round(x))
            continue
        if key.startswith("stack:"):
            number = key.split(":")[1]
            raw = stacks.get(number, stacks.get(int(number)))
            n = None if raw is None else int(raw)
            text = "–" if n is None else str(n)
        else:
            raw = view.get("streetcars_left") if key == "streetcars" else left.get(key)
            n = None if raw is None else int(raw)
            text = "–" if n is None else f"×{n}"
        c.text((x, y), text, TEXT, bold=bool(n), fill=INK if n else MUTED, anchor="lm")
