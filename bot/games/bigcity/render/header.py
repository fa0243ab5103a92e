"""The header: headline, subline and scores row."""

from __future__ import annotations

from typing import Any

from bot.core.i18n import Words
from bot.render import kit
from bot.render.cast import floors, game_over_parts
from bot.render.kit import INK, MUTED, Canvas

from .cast import Cast
from .city import _kind
from .constants import ENDED_BY, HEAD_Y, INNER_W, MARGIN, SCORES_Y, SMALL, SUB_Y, TEXT, WIDTH, View
from .text import _hoods, _inline, _join_numbers, _listing

_ = Words("bot.games.bigcity")
_n = _.plural

# -- header ------------------------------------------------------------------------------


def _winners_parts(view: View, cast: Cast) -> list[tuple[str, Any]]:
    winners = [str(w) for w in view.get("winners") or []]
    if not winners:
        return [("bold", _("Game over"))]
    return game_over_parts(winners, cast)


def _headline(view: View, cast: Cast) -> tuple[list[tuple[str, Any]], str]:
    """What is happening, as chips and words, and a line of detail under it."""
    phase = view.get("phase")
    step = view.get("step")
    turn = view.get("turn") or next(iter(view.get("to_act") or []), None)
    placed = len(view.get("neighborhoods") or [])
    if phase == "over":
        why = str(ENDED_BY.get(str(view.get("ended_by")), ""))
        built = sum(1 for p in view.get("buildings") or [] if _kind(p.get("building", ""))
                    not in ("park", "factory"))
        detail = _n("Final city: {n} building", "Final city: {n} buildings", built)
        return _winners_parts(view, cast), f"{detail} · {why}" if why else detail
    if phase == "setup":
        setup = view.get("setup") or {}
        pool = list(setup.get("pool") or [])
        parts: list[tuple[str, Any]] = [("bold", _("Setup: "))]
        if turn:
            parts += [cast.chip(str(turn)), ("bold", _("places a neighborhood"))]
        else:
            parts.append(("bold", _("placing the starting neighborhoods")))
        detail = (_("Still to place: {numbers} · each must touch the city with two properties",
                    numbers=_join_numbers(pool)) if pool
                  else _("The starting city is ready"))
        return parts, detail
    if turn is None:
        return [("bold", "Big City")], ""
    who = cast.chip(str(turn))
    hall = _("City hall built") if view.get("city_hall") else _("No city hall yet")
    unplaced = [int(n) for n in view.get("unplaced_neighborhoods") or []]
    if unplaced:  # which stacks still bring a new neighborhood
        hoods = _("{placed} of 8 neighborhoods, to come: {numbers}", placed=placed,
                  numbers=_join_numbers(sorted(unplaced)))
    else:
        hoods = _("{placed} of 8 neighborhoods", placed=placed)
    general = " · ".join((_("Turn {number}", number=view.get("turn_number", 1)), hoods, hall))
    if step == "draw":
        n = int((view.get("draw") or {}).get("cards") or 0)
        what = _n("draws {n} card", "draws {n} cards", n) if n else _("draws cards")
        return [who, ("bold", what)], (_("At most two cards from one stack in a turn") + " · "
                                       + general)
    if step in ("trade_offers", "trade_accept"):
        return _trade_headline(view, cast, who)
    return [who, ("bold", _("to play"))], general


def _trade_headline(view: View, cast: Cast,
                    who: tuple[str, Any]) -> tuple[list[tuple[str, Any]], str]:
    trade = view.get("trade") or {}
    hoods = list(trade.get("neighborhoods") or [])
    wants = list(trade.get("wants") or [])
    what = _n("trades {n} card", "trades {n} cards", len(hoods)) if hoods else _("trades")
    bits = []
    if hoods:
        bits.append(_("cards from {neighborhoods}", neighborhoods=_hoods(hoods)))
    if wants:
        bits.append(_("wants {neighborhoods}", neighborhoods=_hoods(wants, "or")))
    offers = trade.get("offers") or {}
    for player, offer in offers.items():
        name = cast.name(str(player), 24, False, 220)
        if offer:
            bits.append(_n("{name} offers {n} card from {numbers}",
                           "{name} offers {n} cards from {numbers}", len(offer), name=name,
                           numbers=_listing(offer)))
        else:
            bits.append(_("{name} declines", name=name))
    waiting = [cast.name(str(p), 24, False, 220) for p in trade.get("waiting_for") or []]
    if waiting:
        bits.append(_("waiting for {names}", names=", ".join(waiting)))
    elif view.get("step") == "trade_accept":
        bits.append(_("the trader picks an offer"))
    return [("bold", _("Trade: ")), who, ("bold", what)], " · ".join(bits)


def _draw_header(c: Canvas, view: View, cast: Cast, scores: bool = True) -> None:
    parts, detail = _headline(view, cast)
    _inline(c, MARGIN, HEAD_Y, parts, 36, WIDTH - MARGIN)
    if detail:
        c.text((MARGIN, SUB_Y), detail, TEXT, fill=MUTED, anchor="lm", max_width=INNER_W)
    if scores:
        _scores_row(c, view, cast, SCORES_Y)


def _scores_row(c: Canvas, view: View, cast: Cast, y: int) -> None:
    scores = view.get("scores") or {}
    turn = view.get("turn") if view.get("phase") != "over" else None
    x = c.text((MARGIN, y), _("Scores"), SMALL + 2, bold=True, fill=MUTED, anchor="lm",
               secondary=True)[2] + 12
    gap = 18
    tails, wanted = [], []
    for p in cast.players:
        pts = str(int(scores.get(p, 0) or 0))
        tails.append(pts)
        wanted.append(kit.chip_width(p, TEXT, True, cast.fallback(p)))
    fixed = sum(kit.text_width(t, TEXT, True) + 8 for t in tails) + gap * len(tails)
    room = WIDTH - MARGIN - x - fixed
    for p, pts, chip_w in zip(cast.players, tails,
                              kit.share_width(wanted, room, least=floors(cast, TEXT, room, 80)),
                              strict=True):
        box = c.chip((x, y), p, cast.style(p), TEXT, anchor="lm", max_width=chip_w,
                     fallback=cast.fallback(p))
        if p == turn:  # the player to act: underlined
            c.draw.rectangle((box[0] + 6, box[3] + 3, box[2] - 6, box[3] + 6), fill=INK)
        x = c.text((box[2] + 8, y), pts, TEXT, bold=True, anchor="lm")[2] + gap
