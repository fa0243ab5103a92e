"""The city in the middle of the table."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from bot.core.i18n import ENGLISH, Words, current
from bot.render import kit
from bot.render.cache import MB, packed_cache
from bot.render.cast import Cast
from bot.render.kit import INK, MUTED, PAPER, Canvas

from .cast import _city_name
from .constants import CENTRE_BG, SMALL, TEXT, View
from .layout import HM, MW, _quantized
from .statements import short_name
from .text import draw_fitted, fit_lines

_ = Words("bot.games.bigcityz")
_n = _.plural

# -- the city in the middle --------------------------------------------------------------


CentreKey = tuple[str, str, str, tuple[tuple[str, int, str], ...], int, str]  # _centre_tile


@packed_cache(1 * MB, hot_bytes=MB // 2)  # as _board_tile: sixteen as drawn hit 3 %
def _centre_tile(mode: str, city: str, label: str, people: tuple[tuple[str, int, str], ...],
                 seconds: int, language: str) -> Image.Image:
    """The middle of the board: the city to place ("place"), the city placed and waiting
    for objections ("veto"), or who won ("over"). ``people`` are (name, seat, fallback);
    ``language`` keys the cache (the words are said in it)."""
    c = Canvas.new(MW, HM, PAPER)
    c.panel((0, 0, MW - 1, HM - 1), CENTRE_BG, radius=18, outline=INK, width=3)
    cx = MW / 2
    room = MW - 28
    if mode == "over":
        c.text((cx, 42), _("Game over"), 34, bold=True, anchor="mm", max_width=room)
        y = 88
        for name, seat, fallback in people[:2]:
            c.chip((cx, y), name, kit.player_style(seat), TEXT, anchor="mm", max_width=room,
                   fallback=fallback)
            y += 48
        more = len(people) - 2
        said = ((_("wins") if len(people) == 1 else _("share the win")) if more <= 0
                else _n("and {n} more share the win", "and {n} more share the win", more))
        c.text((cx, y - 4), said, SMALL + 2, fill=MUTED, anchor="mm", secondary=True,
               max_width=room)
        return _quantized(c)
    if mode == "veto":
        c.text((cx, 22), _("Objection?"), SMALL + 4, bold=True, fill=MUTED, anchor="mm",
               secondary=True, max_width=room)
        lines, _size = fit_lines(label, room, ((TEXT, 1), (TEXT, 2)))
        # English keeps its picture exactly as it was (its long risk label is ellipsised
        # there; wrapping it too would be a change to the English table of its own).
        if len(lines) == 1 or language == ENGLISH:
            draw_fitted(c, (cx, 74), city, room,
                        ((40, 1), (36, 1), (32, 1), (32, 2), (TEXT, 2)))
            c.text((cx, HM - 52), label, TEXT, bold=True, anchor="mm", max_width=room)
        else:
            # A label of two lines ("Risiko 1–2 ✗✗ / beide FALSCH") takes the city's second
            # line: the city above it keeps to one.
            draw_fitted(c, (cx, 60), city, room, ((40, 1), (36, 1), (32, 1), (TEXT, 1)))
            for i, line in enumerate(lines):
                c.text((cx, 106 + 32 * i), line, TEXT, bold=True, anchor="mm", max_width=room)
        if seconds:
            c.text((cx, HM - 18), _("window closes after {seconds} s", seconds=seconds), SMALL,
                   fill=MUTED,
                   anchor="mm", max_width=room, secondary=True)
        return _quantized(c)
    # TRANSLATORS: drawn above the city's name; "go?" is drawn under it
    c.text((cx, 20), _("Where does"), SMALL + 2, fill=MUTED, anchor="mm", secondary=True,
           max_width=room)
    draw_fitted(c, (cx, 66), city, room,
                ((44, 1), (40, 1), (36, 1), (32, 1), (32, 2), (TEXT, 2)))
    # TRANSLATORS: drawn under the city's name, after "Where does" above it
    c.text((cx, 110), _("go?"), SMALL + 2, fill=MUTED, anchor="mm", secondary=True,
           max_width=room)
    for name, seat, fallback in people[:1]:
        c.chip((cx, HM - 30), name, kit.player_style(seat), TEXT, anchor="mm", max_width=room,
               fallback=fallback)
    return _quantized(c)


def _centre_key(view: View, cast: Cast) -> CentreKey:
    phase = view.get("phase")
    city = _city_name(view.get("city"))

    def who(players: Sequence[str]) -> tuple[tuple[str, int, str], ...]:
        return tuple((p, cast.index.get(p, 0), cast.fallback(p)) for p in players)

    if phase == "over" or city is None:
        return "over", "", "", who(list(view.get("winners") or _leaders(view))), 0, current()
    if phase == "veto":
        label = _placement_label(view.get("placement") or {}, board=False)
        return "veto", city, label, (), int(view.get("veto_seconds") or 0), current()
    turn = view.get("turn")
    return "place", city, "", who([turn] if turn else []), 0, current()


def _placement_label(placement: View, board: bool = True) -> str:
    """Where a card was put, in words that read after "on": "Coast ✓ 4 (board 2)"."""
    kind = placement.get("kind")
    if kind == "square":
        mark = "✓" if placement.get("color") == "green" else "✗"
        said = f"{short_name(str(placement.get('statement')))} {mark} {placement.get('points')}"
        return _("{place} (board {slot})", place=said, slot=placement.get("slot")) if board \
            else said
    if kind == "risk":
        a, b = str(placement.get("risk", "?-?")).split("-")
        if placement.get("color") == "green":
            return _("risk {first}–{second} ✓✓ both TRUE", first=a, second=b)
        return _("risk {first}–{second} ✗✗ both FALSE", first=a, second=b)
    if kind == "no_free_square":
        return _("“There's no free square”") if board else _("beside the board")
    return str(placement.get("label", ""))


def _leaders(view: View) -> list[str]:
    scores = view.get("scores") or {}
    if not scores:
        return []
    best = max(int(v) for v in scores.values())
    return [p for p in view.get("players") or [] if int(scores.get(p, 0)) == best]
