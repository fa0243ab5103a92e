"""The table picture: the four rows, the achievement board and the players."""

from __future__ import annotations

import json
from typing import Any

from PIL import Image

from bot.core.i18n import Words, current
from bot.render import kit
from bot.render.cache import MB, packed_cache
from bot.render.kit import HIGHLIGHT, INK, MUTED, PANEL, PANEL_ALT, PAPER, RULE, Box, Canvas

from ..data_words import ACHIEVEMENT, ACHIEVEMENT_RULE, CARD_RULE, CITY, colour_word, said
from .constants import (
    GAP,
    INNER,
    MARGIN,
    PALETTE,
    ROW_ORDER,
    ROW_TITLES,
    SMALL,
    TEXT,
    WIDTH,
    View,
)
from .helpers import _chip, _feature_name, _item_words, _panel, _players, _style, _wrap
from .icons import _row_icon
from .pieces import _card_back, _feature, _mini_tile, _piece
from .score import _score

_ = Words("bot.games.cities")
_n = _.plural

# -- the table -----------------------------------------------------------------------------


def _header(canvas: Canvas, view: View, y: int) -> int:
    city = view.get("city") or {}
    title = _("Cities · {city}", city=said(CITY, str(city.get("name", "?"))))
    canvas.text((MARGIN, y), title, 36, bold=True, max_width=760)
    phase = view.get("phase")
    rounds = view.get("rounds") or 8
    if phase == "over":
        right = _("Game over")
    elif phase == "start_tiles":
        right = _("Setup")
    else:
        right = _("Round {round} of {rounds}", round=view.get("round", 1), rounds=rounds)
    canvas.text((WIDTH - MARGIN, y + 4), right, TEXT, bold=True, anchor="ra")
    return y + 54


def _status(canvas: Canvas, view: View, y: int) -> int:
    """Whose turn it is and what they must do now, on a highlighted strip."""
    phase = view.get("phase")
    pending = view.get("pending")
    who = (view.get("to_act") or [None])[0]
    h = STATUS_H
    _panel(canvas, (MARGIN, y, WIDTH - MARGIN - 1, y + h - 1), fill=HIGHLIGHT, radius=14,
                 outline=INK, width=2)
    cy = y + h // 2
    x = MARGIN + 14
    if phase == "over":
        winners = [str(w) for w in view.get("winners") or []]
        x = canvas.text((x, cy), _("Winner:") if len(winners) == 1 else _("Winners:"), TEXT,
                        bold=True, anchor="lm")[2] + 14
        for w in winners:
            box = _chip(canvas, view, (x, cy), w, TEXT, anchor="lm", max_width=300)
            x = box[2] + 10
        return y + h + GAP
    if who is None:
        canvas.text((x, cy), _("Waiting"), TEXT, bold=True, anchor="lm")
        return y + h + GAP
    box = _chip(canvas, view, (x, cy), str(who), TEXT, anchor="lm", max_width=340)
    x = box[2] + 14
    if phase == "start_tiles":
        canvas.text((x, cy), _("chooses a starting tile"), TEXT, bold=True, anchor="lm",
                    max_width=WIDTH - MARGIN - 14 - x)
    elif pending and pending.get("items"):
        row = str(pending.get("row"))
        what = {"tiles": _("places the city tile"), "features": _("places or removes"),
                "pieces": _("places or removes")}.get(row, _("uses"))
        box = canvas.text((x, cy), what, TEXT, bold=True, anchor="lm")
        x = box[2] + 14
        items = pending["items"]
        limit = WIDTH - MARGIN - 14
        for item in items:
            if x > limit - 60:
                canvas.text((x, cy), "…", TEXT, bold=True, anchor="lm")
                break
            if row == "tiles":
                _mini_tile(canvas, item.get("rows") or ["??", "??"], (x, y + 6), 28)
                x += 56 + 8
                x = canvas.text((x, cy), str(item.get("id", "")), TEXT, bold=True,
                                anchor="lm")[2] + 16
            elif row == "features":
                _feature(canvas, item, (x, y + 6, x + 56, y + 62))
                x += 62
                x = canvas.text((x, cy), _feature_name(item), TEXT, bold=True, anchor="lm",
                                max_width=limit - x)[2] + 14
            else:
                _piece(canvas, str(item.get("color")), (x + 26, cy), 52)
                x += 60
    else:
        canvas.text((x, cy), _("takes one item or group from a row"), TEXT, bold=True, anchor="lm",
                    max_width=WIDTH - MARGIN - 14 - x)
    return y + h + GAP


def _players_strip(canvas: Canvas, view: View, y: int) -> int:
    players = _players(view)
    if not players:
        return y
    n = len(players)
    w = (INNER - GAP * (n - 1)) // n
    h = PLAYER_H
    turn = (view.get("to_act") or [None])[0]
    star = (view.get("star") or {}).get("holder")
    held = view.get("cards_held") or {}
    workers = view.get("workers_left") or {}
    for i, player in enumerate(players):
        x = MARGIN + i * (w + GAP)
        style = _style(view, player)
        active = player == turn and view.get("phase") != "over"
        _panel(canvas, (x, y, x + w - 1, y + h - 1), fill=style.tint if active else PANEL,
                     radius=14, outline=INK if active else RULE, width=3 if active else 2)
        score = str(_score(view, player))
        score_size = 36 if n <= 3 else TEXT  # four players: room for the name first
        pts = _("pts")
        score_w = max(kit.text_width(score, score_size, True), kit.text_width(pts, SMALL))
        _chip(canvas, view, (x + 8, y + 10), player, TEXT, max_width=w - 26 - score_w)
        canvas.text((x + w - 10, y + 4), score, score_size, bold=True, anchor="ra")
        canvas.text((x + w - 10, y + 46), pts, SMALL, fill=MUTED, anchor="ra", secondary=True)
        # workers left in each row, by the rows' own icons
        left = workers.get(player) or {}
        bx = x + 12
        by = y + 88
        if left:
            for row in ROW_ORDER:
                count = int(left.get(row, 0))
                ink = INK if count else MUTED
                _row_icon(canvas, row, (bx + 11, by), 22, fill=ink)
                canvas.text((bx + 26, by), str(count), TEXT, bold=True, fill=ink, anchor="lm")
                bx += 60
            workers_word = _("workers")
            if kit.text_width(workers_word, SMALL) <= x + w - bx - 10:
                canvas.text((bx, by), workers_word, SMALL, fill=MUTED, anchor="lm",
                            secondary=True)
        count = len(held.get(player) or [])
        extra = _n("{n} scoring card", "{n} scoring cards", count)
        by += 40
        starred = player == star and view.get("phase") == "play"
        first = _("first")
        # The star's word ends inside the panel, however long it is in the reader's
        # language, and the cards' count stops short of the star (German's "4
        # Auftragskarten" ran under it with four players).
        fx = min(x + w - 78, x + w - 8 - kit.text_width(first, TEXT, True))
        canvas.text((x + 12, by), extra, SMALL + 2, fill=MUTED, anchor="lm", secondary=True,
                    max_width=fx - 36 - (x + 12) if starred else w - 24)
        if starred:
            canvas.marker((fx - 18, by), "star", 28, INK)
            canvas.text((fx, by), first, TEXT, bold=True, anchor="lm")
    return y + h + GAP


# Card and achievement rules are read whole, never cut, at the size of what a player reads
# to choose a move (1/40 of the width): the achievements stack, each across the picture, and
# the face-up cards' rules are listed under their row, so the boxes grow in height only.
RULE_TEXT = TEXT  # 30 px
RULE_LINE = RULE_TEXT + 6
RECORD_LINE = SMALL + 5  # what a worker took: a record, at the records' size
TITLE_TEXT = TEXT


def _rule_lines(text: str, width: int) -> tuple[str, ...]:
    return _wrap(text, RULE_TEXT, False, width, 99)


TITLE_LINE = TITLE_TEXT + 6


def _title_lines(name: str, width: int) -> tuple[str, ...]:
    """A card's title whole, on two lines where one is too narrow for it (three in a
    language with longer words)."""
    return _wrap(name, TITLE_TEXT, True, width, 3)


GOAL_LEFT = 330  # an achievement's name and rings; its rule beside them
RING = 42


def _goal_layout(a: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    """An achievement's name lines, rule lines and height."""
    name = _wrap(said(ACHIEVEMENT, str(a.get("name", "?"))), TITLE_TEXT, True, GOAL_LEFT - 24,
                 2)
    rule = _rule_lines(said(ACHIEVEMENT_RULE, str(a.get("text", ""))), INNER - GOAL_LEFT - 14)
    left = 8 + len(name) * TITLE_LINE + 6 + RING + 10
    right = 10 + len(rule) * RULE_LINE + 8
    return name, rule, max(left, right)


def _achievement_height(view: View) -> int:
    achievements = (view.get("city") or {}).get("achievements") or []
    if not achievements:
        return 0
    return sum(_goal_layout(a)[2] for a in achievements) + GAP * (len(achievements) - 1)


def _achievements(canvas: Canvas, view: View, y: int) -> int:
    city = view.get("city") or {}
    achievements = city.get("achievements") or []
    if not achievements:
        return y
    x = MARGIN
    for a in achievements:
        name, rule, h = _goal_layout(a)
        _panel(canvas, (x, y, x + INNER - 1, y + h - 1), fill=PANEL, radius=14, outline=RULE)
        for j, line in enumerate(name):
            canvas.text((x + 12, y + 6 + j * TITLE_LINE), line, TITLE_TEXT, bold=True,
                        max_width=GOAL_LEFT - 24)
        for j, line in enumerate(rule):
            canvas.text((x + GOAL_LEFT, y + 8 + j * RULE_LINE), line, RULE_TEXT)
        rx = x + 12
        ry = y + 8 + len(name) * TITLE_LINE + 6
        for ring in a.get("rings") or []:
            holder = ring.get("player")
            if holder is None:
                canvas.draw.ellipse((rx, ry, rx + RING, ry + RING), fill=PANEL, outline=INK,
                                    width=2)
                canvas.text((rx + 21, ry + 22), str(ring.get("vp", "")), TEXT, bold=True,
                            anchor="mm")
                rx += 52
            else:
                style = _style(view, str(holder))
                canvas.swatch((rx + 21, ry + 21), style, RING)
                label = f"{ring.get('vp', '')}"
                box = canvas.text((rx + 48, ry + 21), label, TEXT, bold=True, anchor="lm")
                rx = box[2] + 14
        y += h + GAP
    return y


def _slot_box(i: int) -> tuple[int, int]:
    w = (INNER - 3 * GAP) // 4
    return MARGIN + i * (w + GAP), w


def _row_heading(canvas: Canvas, row: str, y: int, note: str = "", title: str = "") -> int:
    _row_icon(canvas, row, (MARGIN + 12, y + 19), 24)
    box = canvas.text((MARGIN + 34, y + 19), title or str(ROW_TITLES[row]), TEXT, bold=True,
                      anchor="lm")
    if note:
        canvas.text((box[2] + 14, y + 19), note, SMALL + 2, fill=MUTED, anchor="lm",
                    max_width=WIDTH - MARGIN - box[2] - 14, secondary=True)
    return y + HEADING_H


STATUS_H = 70
HEADING_H = 42
PLAYER_H = 150
ROW_HEIGHTS = {"cards": 180, "tiles": 156, "features": 176, "pieces": 116}


def _taken(canvas: Canvas, view: View, row: str, slot: dict[str, Any], box: Box) -> None:
    """A slot a worker emptied: whose worker it is, and (muted) what they took."""
    x0, y0, x1, y1 = box
    _panel(canvas, (x0, y0, x1 - 1, y1 - 1), fill=PANEL_ALT, radius=12, outline=RULE)
    player = str(slot.get("taken_by"))
    canvas.text((x0 + 12, y0 + 6), _("taken by"), SMALL, fill=MUTED, secondary=True)
    _chip(canvas, view, (x0 + 10, y0 + 32), player, TEXT, max_width=x1 - x0 - 20)
    items = slot.get("items") or []
    top = y0 + 32 + 52
    # What was taken is a record, no longer a choice.
    words = ", ".join(_item_words(row, it) for it in items)
    if row == "pieces":
        colours = [str(it.get("color")) for it in items]
        words = ", ".join(colour_word(c) + (f" ×{colours.count(c)}"
                                            if colours.count(c) > 1 else "")
                          for c in dict.fromkeys(colours))
    lines = (y1 - top - 4) // RECORD_LINE
    for j, line in enumerate(_wrap(words, SMALL, False, x1 - x0 - 24, max(1, lines))):
        canvas.text((x0 + 12, top + j * RECORD_LINE), line, SMALL, fill=MUTED, secondary=True)


def _card(canvas: Canvas, item: dict[str, Any], box: Box) -> None:
    x0, y0, x1, y1 = box
    _panel(canvas, (x0, y0, x1 - 1, y1 - 1), fill=PANEL, radius=12, outline=INK, width=2)
    title = _title_lines(_item_words("cards", item), x1 - x0 - 20)
    for j, line in enumerate(title):
        canvas.text((x0 + 10, y0 + 6 + j * TITLE_LINE), line, TITLE_TEXT, bold=True,
                    max_width=x1 - x0 - 20)
    canvas.label((x1 - 8, y1 - 8), _("{vp} VP each", vp=item.get("vp", "?")), TITLE_TEXT,
                 anchor="rb",
                 bg=HIGHLIGHT, outline=INK)


FEATURE_LINE = 34


def _feature_names(items: list[dict[str, Any]], width: int) -> tuple[str, ...]:
    """A feature group's names under its tokens, on up to three lines."""
    return _wrap(" + ".join(_feature_name(it) for it in items), TEXT, True, width, 3)


def _row_height(view: View, row: str) -> int:
    """A row's height: the cards row grows until every face-up card's rule fits, the
    features row when a group's names take a third line."""
    if row == "features":
        _x, w = _slot_box(0)
        lines = max((len(_feature_names(slot.get("items") or [], w - 16))
                     for slot in (view.get("rows") or {}).get("features") or []
                     if slot.get("taken_by") is None and slot.get("items")), default=1)
        return ROW_HEIGHTS[row] + FEATURE_LINE * max(0, lines - 2)
    return ROW_HEIGHTS[row]


def _face_up_cards(view: View) -> list[dict[str, Any]]:
    """The scoring cards still on the board face up, in slot order."""
    cards = []
    for slot in (view.get("rows") or {}).get("cards") or []:
        items = slot.get("items") or []
        if slot.get("taken_by") is None and items and not items[0].get("face_down"):
            cards.append(items[0])
    return cards


def _wrap_after(text: str, first: int, width: int) -> list[str]:
    """``text`` in lines of ``width`` px, the first only ``first`` px (it follows a title)."""
    lines: list[str] = []
    line = ""
    for word in kit.prepare(text, RULE_TEXT, False).split():
        room = first if not lines else width
        trial = f"{line} {word}".strip()
        if kit.text_width(trial, RULE_TEXT) <= room or (not line and lines):
            line = trial
            continue
        lines.append(line)
        line = word
    lines.append(line)
    return lines


def _card_rule_layout(view: View) -> list[tuple[str, list[str]]]:
    """Each face-up card's title and its rule's lines, the rule beginning beside the title."""
    out = []
    for item in _face_up_cards(view):
        title = _("{card}:", card=_item_words("cards", item))
        gap = kit.text_width(title, TITLE_TEXT, True) + 12
        out.append((title, _wrap_after(said(CARD_RULE, str(item.get("text", ""))),
                                       INNER - 28 - gap, INNER - 28)))
    return out


def _card_rules_height(view: View) -> int:
    layout = _card_rule_layout(view)
    if not layout:
        return 0
    return 16 + sum(len(lines) * RULE_LINE + 8 for _t, lines in layout) + GAP


def _card_rules(canvas: Canvas, view: View, y: int) -> int:
    """The face-up cards' rules, under their row, whole and at a reader's size."""
    layout = _card_rule_layout(view)
    if not layout:
        return y
    h = _card_rules_height(view) - GAP
    _panel(canvas, (MARGIN, y, WIDTH - MARGIN - 1, y + h - 1), fill=PANEL, radius=12,
           outline=RULE)
    ly = y + 8
    for title, lines in layout:
        box = canvas.text((MARGIN + 14, ly), title, TITLE_TEXT, bold=True)
        for j, line in enumerate(lines):
            lx = box[2] + 12 if j == 0 else MARGIN + 14
            if line:
                canvas.text((lx, ly + j * RULE_LINE), line, RULE_TEXT)
        ly += len(lines) * RULE_LINE + 8
    return y + h + GAP


def _slot_number(canvas: Canvas, x: int, y: int, n: int) -> None:
    canvas.text((x + 10, y + 4), str(n), TEXT, bold=True, fill=MUTED)


def _row(canvas: Canvas, view: View, row: str, slots: list[dict[str, Any]], y: int) -> int:
    h = _row_height(view, row)
    players = tuple(_players(view))
    for i, slot in enumerate(slots[:4]):
        x, w = _slot_box(i)
        # Drawn on a tile whose origin is (x, y) rounded down to even numbers, so every
        # coordinate rounds (half to even) exactly as on the table itself.
        dx, dy = x % 2, y % 2
        tile = _slot_tile(row, i, json.dumps(slot, sort_keys=True), dx, dy, w, h, players,
                          current())
        canvas.image.paste(tile.crop((dx, dy, dx + w, dy + h)), (x, y))
    return y + h + GAP


# A row's slots hardly change from one move to the next (a worker empties one), so each
# is drawn once per content and kept (a table's worth as drawn, older ones compressed to
# ~5 KB each: bot/render/cache.py) for the next moves of the matches last drawn. Drawing
# one costs 0.5-1.5 ms, a hit ~0.1 ms. 6 MB compressed keeps ~60 matches' rows: with 2.5 MB
# deflated a mixed run of 50 Cities channels drew a table in 21.8 ms on average, with 6 MB in 17.0.
@packed_cache(6 * MB, hot_bytes=7 * MB // 2)
def _slot_tile(row: str, i: int, slot_json: str, dx: int, dy: int, w: int, h: int,
               players: tuple[str, ...], language: str) -> Image.Image:
    """Slot ``i`` of ``row`` at ``(dx, dy)`` on a tile of paper (``language`` keys the
    cache: the words are said in it; ``players`` give the takers' colours and names)."""
    canvas = Canvas.new(w + dx, h + dy, PAPER)
    _slot(canvas, {"players": list(players)}, row, i, json.loads(slot_json),
          (dx, dy, dx + w, dy + h))
    return canvas.image


def _slot(canvas: Canvas, view: View, row: str, i: int, slot: dict[str, Any],
          box: Box) -> None:
    """One slot of a row in ``box``: what lies there, or whose worker emptied it."""
    x, y, x1, y1 = box
    w, h = x1 - x, y1 - y
    items = slot.get("items") or []
    if slot.get("taken_by") is not None:
        _taken(canvas, view, row, slot, box)
        return
    if row == "cards":
        if items and items[0].get("face_down"):
            _card_back(canvas, box, bg=PAPER)
        elif items:
            _card(canvas, items[0], box)
        else:
            _empty(canvas, box)
        return
    if row == "pieces" and slot.get("star"):
        _star_slot(canvas, slot, box)
        return
    if not items:
        _empty(canvas, box)
        return
    _panel(canvas, (x, y, x + w - 1, y + h - 1), fill=PANEL, radius=12, outline=RULE)
    _slot_number(canvas, x, y, int(slot.get("slot", i + 1)))
    if row == "tiles":
        item = items[0]
        if item.get("face_down"):
            _card_back(canvas, (x + (w - 124) // 2, y + 12, x + (w + 124) // 2, y + 136),
                       small=True)
        else:
            side = 60
            tx = x + (w - 2 * side) // 2
            _mini_tile(canvas, item.get("rows") or ["??", "??"], (tx, y + 14), side)
            canvas.text((x + w - 10, y + 4), str(item.get("id", "")), TEXT, fill=MUTED,
                        anchor="ra")
    elif row == "features":
        size = 84
        n = len(items)
        total = n * size + (n - 1) * 10
        fx = x + (w - total) // 2
        for item in items:
            _feature(canvas, item, (fx, y + 8, fx + size, y + 8 + size))
            fx += size + 10
        names = _feature_names(items, w - 16)
        for j, line in enumerate(names):
            canvas.text((x + w / 2, y + size + 28 + j * FEATURE_LINE
                         + (17 if len(names) == 1 else 0)),
                        line, TEXT, bold=True, anchor="mm", max_width=w - 16)
    else:
        n = len(items)
        size = 58
        total = n * size + (n - 1) * 8
        px = x + (w - total) // 2
        for item in items:
            _piece(canvas, str(item.get("color")), (px + size / 2, y + h / 2), size)
            px += size + 8


def _empty(canvas: Canvas, box: Box) -> None:
    x0, y0, x1, y1 = box
    _panel(canvas, (x0, y0, x1 - 1, y1 - 1), fill=PAPER, radius=12, outline=RULE)
    canvas.text(((x0 + x1) / 2, (y0 + y1) / 2), _("empty"), SMALL + 2, fill=MUTED, anchor="mm",
                secondary=True)


def _star_slot(canvas: Canvas, slot: dict[str, Any], box: Box) -> None:
    x0, y0, x1, y1 = box
    is_open = bool(slot.get("open", True))
    _panel(canvas, (x0, y0, x1 - 1, y1 - 1), fill=PANEL if is_open else PAPER, radius=12,
                 outline=INK if is_open else RULE, width=2)
    cy = (y0 + y1) / 2
    canvas.marker((x0 + 34, cy), "star", 46, INK if is_open else MUTED)
    canvas.text((x0 + 66, cy - 24), _("Star"), TEXT, bold=True, anchor="lm",
                fill=INK if is_open else MUTED, max_width=x1 - x0 - 74)
    words = ((_("2 random pieces,"), _("go first")) if is_open
             else (_("opens after"), _("turn 1")))
    for j, line in enumerate(words):
        canvas.text((x0 + 66, cy + 6 + 22 * j), line, SMALL, anchor="lm",
                    fill=INK if is_open else MUTED, max_width=x1 - x0 - 74, secondary=True)


def _bag_line(canvas: Canvas, view: View, y: int) -> int:
    bag = view.get("bag") or {}
    decks = view.get("decks") or {}
    x = MARGIN
    box = canvas.text((x, y + 22), _("Bag:"), TEXT, bold=True, anchor="lm")
    x = box[2] + 10
    for colour in "RBGY":
        _piece(canvas, colour, (x + 20, y + 22), 40)
        box = canvas.text((x + 46, y + 22), str(bag.get(colour, 0)), TEXT, bold=True,
                          anchor="lm")
        x = box[2] + 16
    parts = [_n("{n} card", "{n} cards", int(decks.get("scoring_cards", 0))),
             _n("{n} tile", "{n} tiles", int(decks.get("city_tiles", 0))),
             _n("{n} feature", "{n} features", int(decks.get("feature_tiles", 0)))]
    canvas.text((WIDTH - MARGIN, y + 22), _("Decks: {parts}", parts=" · ".join(parts)), SMALL + 2,
                fill=MUTED,
                anchor="rm", max_width=WIDTH - MARGIN - x - 20, secondary=True)
    return y + BAG_H


BAG_H = 48


def _start_tiles(canvas: Canvas, view: View, y: int) -> int:
    y = _row_heading(canvas, "tiles", y, _("chosen in reverse turn order"), _("Starting tiles"))
    tiles = view.get("start_tiles") or []
    for i, tile in enumerate(tiles[:4]):
        x, w = _slot_box(i)
        _panel(canvas, (x, y, x + w - 1, y + 150 - 1), fill=PANEL, radius=12, outline=RULE)
        _mini_tile(canvas, tile.get("rows") or ["??", "??"], (x + (w - 120) // 2, y + 14), 60)
        canvas.text((x + w - 10, y + 4), str(tile.get("id", "")), TEXT, bold=True, anchor="ra")
    y += 150 + GAP
    chosen = [p for p in _players(view) if p in (view.get("neighbourhoods") or {})]
    if chosen:
        x = MARGIN
        box = canvas.text((x, y + 22), _("Chosen:"), TEXT, bold=True, anchor="lm")
        x = box[2] + 12
        for p in chosen:
            tiles_of = (view["neighbourhoods"][p].get("tiles") or [{}])
            box = _chip(canvas, view, (x, y + 22), p, TEXT, anchor="lm", max_width=240)
            box = canvas.text((box[2] + 8, y + 22), str(tiles_of[0].get("tile", "")), TEXT,
                              anchor="lm")
            x = box[2] + 20
        y += 48
    return y


def _table_height(view: View) -> int:
    h = 14 + 54 + STATUS_H + GAP + PLAYER_H + GAP
    if (view.get("city") or {}).get("achievements"):
        h += _achievement_height(view) + GAP
    rows = view.get("rows") or {}
    if rows:
        h += sum(HEADING_H + _row_height(view, r) + GAP for r in ROW_ORDER if r in rows)
        h += _card_rules_height(view)
    else:
        h += HEADING_H + 150 + GAP + (48 if view.get("neighbourhoods") else 0)
    return h + BAG_H + 16


def render_table(view: View) -> bytes:
    """The shared board: rows, achievements, scores, whose turn and what to place."""
    canvas = Canvas.new(WIDTH, _table_height(view))
    y = _header(canvas, view, 14)
    y = _status(canvas, view, y)
    y = _players_strip(canvas, view, y)
    y = _achievements(canvas, view, y)
    rows = view.get("rows") or {}
    if rows:
        notes = {
            "cards": _("kept face up, scored at the end"),
            "tiles": _("placed at once, any rotation"),
            "features": _("groups taken whole"),
            "pieces": _("groups of 4, 3, 3 and the star"),
        }
        for row in ROW_ORDER:
            if row in rows:
                y = _row_heading(canvas, row, y, notes[row])
                y = _row(canvas, view, row, list(rows[row]), y)
                if row == "cards":
                    y = _card_rules(canvas, view, y)
    else:
        y = _start_tiles(canvas, view, y)
    _bag_line(canvas, view, y)
    return canvas.png(PALETTE)
