"""The preview: a neighbourhood with lettered candidate spots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.i18n import Words
from bot.render.kit import HIGHLIGHT, INK, Box, Canvas

from ..data_words import colour_word
from .constants import GHOST, PALETTE, TEXT, Space, View
from .helpers import _item_words, _space_of
from .neighbourhood import _hood_picture
from .pieces import _mini_tile

_ = Words("bot.games.cities")

# -- preview -------------------------------------------------------------------------------


def render_preview(view: View, player: str, choices: Sequence[dict[str, Any]]) -> bytes:
    """The player's neighbourhood with lettered candidate spots.

    A choice is ``{"label", "tile_at": [r, c], "rotation"}`` (a ghost of the pending tile,
    turned as it would be; several rotations at one spot share it, each a small tile with
    its own letter) or ``{"label", "space": [row, col]}`` (a feature or piece space).
    """
    tile_spots: dict[tuple[int, int], list[dict[str, Any]]] = {}
    spaces: dict[Space, list[str]] = {}
    for choice in choices:
        if choice.get("tile_at") is not None:
            tile_spots.setdefault(_space_of(choice["tile_at"]), []).append(choice)
        elif choice.get("space") is not None:
            spaces.setdefault(_space_of(choice["space"]), []).append(str(choice.get("label", "?")))
    pending = view.get("pending") or {}
    tile_rows: Sequence[str] = ["??", "??"]
    if pending.get("row") == "tiles" and pending.get("items"):
        tile_rows = pending["items"][0].get("rows") or tile_rows
    title = _("choose a spot")
    if pending.get("items") and pending.get("player") == player:
        row = str(pending.get("row"))
        words = [_item_words(row, it) for it in pending["items"]]
        if row == "pieces":
            words = [_("{colour} piece", colour=colour_word(w)) for w in words]
        elif row == "tiles":
            words = [_("tile {tile}", tile=w) for w in words]
        title = _("where to place {what}", what=", ".join(words))
    canvas, _hood, layout = _hood_picture(view, player, title, list(tile_spots))
    r0, _r1, c0, _c1 = layout.bounds
    size, origin = layout.size, layout.origin

    def xy(space: Space) -> tuple[int, int]:
        return origin[0] + (space[1] - 2 * c0) * size, origin[1] + (space[0] - 2 * r0) * size

    label_size = TEXT  # the letters the menu offers
    for at, group in tile_spots.items():
        x, y = xy((2 * at[0], 2 * at[1]))
        canvas.draw.rectangle((x, y, x + 2 * size - 1, y + 2 * size - 1), fill=GHOST)
        _dashed_box(canvas, (x + 2, y + 2, x + 2 * size - 3, y + 2 * size - 3))
        if len(group) == 1:
            mini = max(12, (2 * size - 24) // 2)
            tx, ty = x + size - mini, y + size - mini
            _mini_tile(canvas, tile_rows, (tx, ty), mini, int(group[0].get("rotation", 0)))
            canvas.label((x + size, y + size), str(group[0].get("label", "?")), label_size + 4,
                         bg=HIGHLIGHT, outline=INK, anchor="mm")
            continue
        cell = size
        mini = max(10, (cell - 12) // 2)
        for k, choice in enumerate(group[:4]):
            cx = x + (k % 2) * cell + (cell - 2 * mini) // 2
            cy = y + (k // 2) * cell + (cell - 2 * mini) // 2
            _mini_tile(canvas, tile_rows, (cx, cy), mini, int(choice.get("rotation", 0)))
            canvas.label((cx + mini, cy + mini), str(choice.get("label", "?")), label_size,
                         bg=HIGHLIGHT, outline=INK, anchor="mm")
    for space, labels in spaces.items():
        x, y = xy(space)
        canvas.draw.rectangle((x + 2, y + 2, x + size - 3, y + size - 3), outline=INK, width=3)
        n = len(labels)
        # On a building the label sits in a lower corner so the height stays readable.
        built = space in _hood.buildings or space in _hood.features
        for k, label in enumerate(labels[:4]):
            if built:
                lx = x + 4 + (k % 2) * size * 0.5
                ly = y + size - 4 - (k // 2) * size * 0.42
                canvas.label((lx, ly), label, label_size, bg=HIGHLIGHT, outline=INK,
                             anchor="lb")
                continue
            dx = 0 if n == 1 else (-0.22 if k % 2 == 0 else 0.22) * size
            dy = 0 if n <= 2 else (-0.22 if k < 2 else 0.22) * size
            canvas.label((x + size / 2 + dx, y + size / 2 + dy), label, label_size,
                         bg=HIGHLIGHT, outline=INK, anchor="mm")
    return canvas.png(PALETTE)


def _dashed_box(canvas: Canvas, box: Box, dash: int = 12) -> None:
    x0, y0, x1, y1 = box
    draw = canvas.draw
    for x in range(x0, x1, 2 * dash):
        draw.line((x, y0, min(x + dash, x1), y0), fill=INK, width=3)
        draw.line((x, y1, min(x + dash, x1), y1), fill=INK, width=3)
    for y in range(y0, y1, 2 * dash):
        draw.line((x0, y, x0, min(y + dash, y1)), fill=INK, width=3)
        draw.line((x1, y, x1, min(y + dash, y1)), fill=INK, width=3)
