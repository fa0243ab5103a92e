"""A player's page (``/profile``): their figures in a server as one picture.

``render_profile(data)`` is called by a render worker (``RenderPool.render("profile",
"render_profile", data)``) with plain data made by ``bot/ui/profile.py``:

    {"name": "Ann", "season": 1, "single": False,
     "games": [{"title": "Big City", "style": 2, "games": 12, "wins": 5, "best": 95,
                "average": 71.5, "rating": 1234, "rated": 12, "start": 1000,
                "points": [[finished_at, rating], ...]}, ...],   # most played first
     "recent": [{"title": "Big City", "style": 2, "won": True, "place": 1, "players": 4,
                 "score": 87, "at": finished_at}, ...]}          # newest first

``style`` is the game's place in the catalogue, so a game keeps its colour and marker on
everyone's page; ``single`` is a page about one game. Words are said in the language the
pool carries (the reader's), numbers written the reader's way.

The picture is 800 px wide, one column, read top to bottom on a phone: the name, the
headline figures, the rating over time (one line per game), each game's figures (the page
about every game) and the last games.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from babel.numbers import format_percent
from PIL import Image, ImageDraw

from bot.core.i18n import Words, average_score, cldr, current, day, number

from . import kit
from .kit import MUTED, PAPER, RULE, Canvas

_ = Words("bot")
_n = _.plural

WIDTH = 800
MARGIN = 28
GAP = 18
INNER = WIDTH - 2 * MARGIN
PAD = 20  # inside a panel
# Sizes: primary text at least WIDTH/40 = 20 px, secondary at least WIDTH/60 = 14 px.
NAME = 40
FIGURE = 34
TEXT = 22
SMALL = 18  # secondary: captions, axis labels, dates
CHART_H = 250  # the plot itself
LINE_W = 4
SUPERSAMPLE = 3
ROW_H = 44


def render_profile(data: Mapping[str, Any]) -> bytes:
    games: Sequence[Mapping[str, Any]] = data["games"]
    recent: Sequence[Mapping[str, Any]] = data["recent"]
    single = bool(data.get("single"))
    table = not single
    height = (MARGIN + _header_h() + GAP + _tiles_h() + GAP + _chart_h(games, single) + GAP
              + (_table_h(games) + GAP if table else 0)
              + (_recent_h(recent) + GAP if recent else 0) + MARGIN - GAP)
    c = Canvas.new(WIDTH, height, PAPER)
    y = MARGIN
    y = _header(c, y, data) + GAP
    y = _tiles(c, y, data) + GAP
    y = _chart(c, y, games, single) + GAP
    if table:
        y = _table(c, y, games) + GAP
    if recent:
        _recent(c, y, recent, single)
    return c.png()


# -- words ---------------------------------------------------------------------------------


LEAST = kit.least_text(WIDTH)  # 20 px: the least for what a player reads
LEAST_SMALL = kit.least_text(WIDTH, secondary=True)  # 14 px: captions and headings


def fitted(text: str, size: int, width: int, least: int, bold: bool = False) -> int:
    """The largest size from ``size`` down to ``least`` at which ``text`` fits ``width``
    (a longer language's heading is drawn smaller before it is cut)."""
    while size > least and kit.text_width(text, size, bold) > width:
        size -= 1
    return size


def result_words(won: bool, place: int, players: int) -> str:
    if won:
        # TRANSLATORS: a finished game on a player's profile, where they won.
        return _("Won")
    # TRANSLATORS: a finished game on a player's profile: "2nd of 4" as "place 2 of 4".
    return _("Place {place} of {players}", place=place, players=players)


# -- header and headline figures ------------------------------------------------------------


def _header_h() -> int:
    return kit.metrics(NAME, True)[0] + kit.metrics(NAME, True)[1] + 6 + SMALL + 6


def _header(c: Canvas, y: int, data: Mapping[str, Any]) -> int:
    box = c.text((MARGIN, y), str(data["name"]), NAME, bold=True, max_width=INNER,
                 # TRANSLATORS: a player whose name no font can draw.
                 fallback=_("A player"))
    # TRANSLATORS: under the player's name on their profile picture.
    c.text((MARGIN, box[3] + 6), _("Cityhall profile · rating season {season}",
                                   season=int(data.get("season", 1))),
           SMALL, fill=MUTED, max_width=INNER, secondary=True)
    return y + _header_h()


def _tiles_h() -> int:
    return 2 * PAD + kit.metrics(FIGURE, True)[0] + kit.metrics(FIGURE, True)[1] + 4 + SMALL + 4


def _tiles(c: Canvas, y: int, data: Mapping[str, Any]) -> int:
    games: Sequence[Mapping[str, Any]] = data["games"]
    played = sum(int(g["games"]) for g in games)
    wins = sum(int(g["wins"]) for g in games)
    rate = format_percent(round(wins / played, 2), locale=cldr(current())) if played else "–"
    tiles: list[tuple[str, str, Mapping[str, Any] | None]] = [
        (number(played), _n("game", "games", played), None),
        (number(wins), _n("win", "wins", wins), None),
    ]
    if data.get("single"):
        only = games[0]
        tiles += [(number(int(only["best"])), _("best score"), None),
                  (average_score(float(only["average"])), _("average score"), None)]
    else:
        tiles += [(rate, _("win rate"), None), ("", _("favourite game"), games[0])]
    h = _tiles_h()
    # The favourite's tile holds a game's title: it gets the room the numbers do not need.
    weights = [1.0, 1.0, 1.0, 1.0] if data.get("single") else [0.9, 0.9, 1.1, 1.6]
    unit = (INNER - GAP * (len(tiles) - 1)) / sum(weights)
    x = MARGIN
    for (figure, caption, game), weight in zip(tiles, weights, strict=True):
        width = round(unit * weight)
        x += 0 if x == MARGIN else GAP
        c.panel((x, y, x + width - 1, y + h - 1), radius=14)
        top = y + PAD
        if game is not None:
            # The favourite: its marker and its title, as big as fits.
            style = kit.player_style(int(game["style"]))
            size = FIGURE
            title = str(game["title"])
            mark = round(FIGURE * 0.8)
            while size > TEXT and kit.text_width(title, size, True) > width - 2 * PAD - mark - 8:
                size -= 2
            ascent, descent = kit.metrics(FIGURE, True)
            cy = top + (ascent + descent) / 2
            c.swatch((x + PAD + mark / 2, cy), style, mark)
            c.text((x + PAD + mark + 8, cy), title, size, bold=True, anchor="lm",
                   max_width=width - 2 * PAD - mark - 8)
        else:
            size = FIGURE  # a long number (2,345 games) is drawn smaller, never cut
            while size > TEXT and kit.text_width(figure, size, True) > width - 2 * PAD:
                size -= 2
            c.text((x + PAD, top), figure, size, bold=True, max_width=width - 2 * PAD)
        c.text((x + PAD, y + h - PAD), caption,
               fitted(caption, SMALL, width - 2 * PAD, LEAST_SMALL), fill=MUTED, anchor="ls",
               max_width=width - 2 * PAD, secondary=True)
        x += width
    return y + h


# -- the rating over time -------------------------------------------------------------------


def _chart_h(games: Sequence[Mapping[str, Any]], single: bool) -> int:
    legend = 0 if single else _legend_rows(games) * (TEXT + 10)
    plot = CHART_H + 10 + SMALL if _rated(games) else EMPTY_CHART_H
    return PAD + TEXT + 12 + legend + plot + PAD


EMPTY_CHART_H = 60  # a chart with no line yet: its sentence only


LEGEND_COLUMNS = 4


def _legend_rows(games: Sequence[Mapping[str, Any]]) -> int:
    return max(1, -(-len(games) // LEGEND_COLUMNS))


def _rated(games: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [g for g in games if g.get("points")]


def _nice_step(span: float, ticks: int = 5) -> int:
    raw = max(1.0, span / ticks)
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * power and float(m * power).is_integer():
            return int(m * power)
    return int(10 * power)


def _chart(c: Canvas, y: int, games: Sequence[Mapping[str, Any]], single: bool) -> int:
    h = _chart_h(games, single)
    c.panel((MARGIN, y, MARGIN + INNER - 1, y + h - 1), radius=14)
    x0 = MARGIN + PAD
    top = y + PAD
    rated = _rated(games)
    if single:
        only = games[0]
        if only.get("rating") is not None:
            # TRANSLATORS: the chart's title on a profile about one game: "Rating 1,234 ·
            # 12 rated games".
            title = _n("Rating {rating} · {n} rated game", "Rating {rating} · {n} rated games",
                       int(only["rated"]), rating=number(int(only["rating"])))
        else:
            title = _("Rating")
        c.text((x0, top), title, TEXT, bold=True, max_width=INNER - 2 * PAD)
        top += TEXT + 12
    else:
        c.text((x0, top), _("Rating over time"), TEXT, bold=True, max_width=INNER - 2 * PAD)
        top += TEXT + 12
        top = _legend(c, x0, top, games)
    # room on the left for the scale, on the right for each line's latest rating
    plot = (x0 + 64, top + 8, MARGIN + INNER - PAD - 96, top + CHART_H - 8)
    if not rated:
        c.text((MARGIN + INNER / 2, top + EMPTY_CHART_H / 2),
               _("No rated games this season yet."), TEXT, fill=MUTED, anchor="mm",
               max_width=INNER - 2 * PAD)
        return y + h
    values = [int(v) for g in rated for _t, v in g["points"]]
    values += [int(g["start"]) for g in rated if g.get("start") is not None]
    times = [float(t) for g in rated for t, _v in g["points"]]
    lo, hi = min(values), max(values)
    step = _nice_step(max(hi - lo, 40))
    lo = math.floor(lo / step) * step
    hi = math.ceil(hi / step) * step
    if hi == lo:
        hi = lo + step
    t0, t1 = min(times), max(times)

    def px(t: float, v: float) -> tuple[float, float]:
        fx = 0.5 if t1 == t0 else (t - t0) / (t1 - t0)
        return (plot[0] + fx * (plot[2] - plot[0]),
                plot[3] - (v - lo) / (hi - lo) * (plot[3] - plot[1]))

    for tick in range(lo, hi + 1, step):
        _x, ty = px(t0, tick)
        c.draw.line((plot[0], round(ty), plot[2], round(ty)), fill=RULE, width=1)
        c.text((plot[0] - 10, ty), number(tick), SMALL, fill=MUTED, anchor="rm",
               secondary=True)
    c.text((plot[0], plot[3] + 10), day(t0), SMALL, fill=MUTED, anchor="la", secondary=True)
    if t1 != t0:
        c.text((plot[2], plot[3] + 10), day(t1), SMALL, fill=MUTED, anchor="ra",
               secondary=True)
    ends: list[tuple[float, Mapping[str, Any]]] = []
    for game in reversed(rated):  # the favourite drawn last, on top
        style = kit.player_style(int(game["style"]))
        points = [px(float(t), float(v)) for t, v in game["points"]]
        last = points[-1]
        if last[0] < plot[2] - 1:
            # The rating holds until the game is played again: a thin line to today's edge.
            c.draw.line((round(last[0]), round(last[1]), plot[2], round(last[1])),
                        fill=style.colour, width=2)
        _line(c, points, style.colour)
        if len(points) <= 24:  # few enough to mark each game
            for point in points[:-1]:
                c.marker(point, style.marker, 14, style.colour)
        c.swatch(last, style, 22)
        ends.append((last[1], game))
    _end_labels(c, plot, ends)
    return y + h


def _legend(c: Canvas, x0: int, top: int, games: Sequence[Mapping[str, Any]]) -> int:
    width = (INNER - 2 * PAD) // LEGEND_COLUMNS
    mark = TEXT
    for i, game in enumerate(games):
        style = kit.player_style(int(game["style"]))
        x = x0 + (i % LEGEND_COLUMNS) * width
        ly = top + (i // LEGEND_COLUMNS) * (TEXT + 10)
        cy = ly + TEXT / 2 + 2
        c.swatch((x + mark / 2, cy), style, mark)
        c.text((x + mark + 8, cy), str(game["title"]), TEXT, anchor="lm",
               max_width=width - mark - 16)
    return top + _legend_rows(games) * (TEXT + 10)


def _line(c: Canvas, points: Sequence[tuple[float, float]], colour: kit.RGB) -> None:
    """A thick line through ``points``, drawn larger and shrunk so its edges are smooth."""
    if len(points) < 2:
        return
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    left, upper = math.floor(min(xs)) - LINE_W, math.floor(min(ys)) - LINE_W
    w = math.ceil(max(xs)) + LINE_W - left + 1
    h = math.ceil(max(ys)) + LINE_W - upper + 1
    s = SUPERSAMPLE
    mask = Image.new("L", (w * s, h * s), 0)
    draw = ImageDraw.Draw(mask)
    scaled = [((x - left) * s, (y - upper) * s) for x, y in points]
    draw.line(scaled, fill=255, width=LINE_W * s)
    kit.fill_mask(c.image, colour, (left, upper), mask.reduce(s))


def _end_labels(c: Canvas, plot: tuple[int, int, int, int],
                ends: list[tuple[float, Mapping[str, Any]]]) -> None:
    """Each line's latest rating beside the plot's right edge, level with it, moved apart
    where two would overlap (a short tick in the line's colour then points at its line)."""
    gap = TEXT + 4
    order = sorted(ends, key=lambda e: e[0])
    placed: list[float] = []
    for ey, _g in order:
        placed.append(ey if not placed else max(ey, placed[-1] + gap))
    overflow = placed[-1] - (plot[3] + 6) if placed else 0
    if overflow > 0:
        placed = [max(plot[1] - 6, p - overflow) for p in placed]
    lx = plot[2] + 22
    for (ey, game), ly in zip(order, placed, strict=True):
        style = kit.player_style(int(game["style"]))
        c.draw.line((plot[2] + 12, round(ey), lx - 4, round(ly)), fill=style.colour, width=2)
        rating = game.get("rating")
        c.text((lx, ly), number(int(rating if rating is not None else game["points"][-1][1])),
               TEXT, bold=True, anchor="lm", max_width=MARGIN + INNER - lx - 4)


# -- each game's figures ---------------------------------------------------------------------


def _columns() -> list[tuple[str, int]]:
    """(heading, width) of the table's figures, after the game's own column."""
    # TRANSLATORS: the profile's table headings are short: each column is 70-100 px wide.
    return [(_("Rating"), 100), (_("Rated"), 78), (_("Games"), 84), (_("Wins"), 70),
            (_("Best"), 70), (_("Average"), 96)]


def _table_h(games: Sequence[Mapping[str, Any]]) -> int:
    return PAD + SMALL + 10 + ROW_H * len(games) + PAD - 6


def _table(c: Canvas, y: int, games: Sequence[Mapping[str, Any]]) -> int:
    h = _table_h(games)
    c.panel((MARGIN, y, MARGIN + INNER - 1, y + h - 1), radius=14)
    columns = _columns()
    left, right = MARGIN + PAD, MARGIN + INNER - PAD
    game_w = right - left - sum(w for _h, w in columns)
    c.text((left, y + PAD), _("Game"), SMALL, fill=MUTED, max_width=game_w - 6,
           secondary=True)
    least = min(fitted(heading, SMALL, w - 8, LEAST_SMALL) for heading, w in columns)
    edges = []
    x = left + game_w
    for heading, w in columns:
        x += w
        edges.append((x, w))
        c.text((x, y + PAD), heading, least, fill=MUTED, anchor="ra", max_width=w - 8,
               secondary=True)
    row_y = y + PAD + SMALL + 10
    for i, game in enumerate(games):
        cy = row_y + i * ROW_H + ROW_H / 2
        if i:
            line_y = round(row_y + i * ROW_H)
            c.draw.line((left, line_y, right, line_y), fill=RULE, width=1)
        style = kit.player_style(int(game["style"]))
        c.swatch((left + TEXT / 2, cy), style, TEXT)
        c.text((left + TEXT + 8, cy), str(game["title"]), TEXT, bold=True, anchor="lm",
               max_width=game_w - TEXT - 14)
        rating = game.get("rating")
        cells = [
            number(int(rating)) if rating is not None else "–",
            number(int(game.get("rated", 0))),
            number(int(game["games"])), number(int(game["wins"])),
            number(int(game["best"])), average_score(float(game["average"])),
        ]
        for (cx, cw), cell in zip(edges, cells, strict=True):
            c.text((cx, cy), cell, TEXT, bold=cell is cells[0], anchor="rm", max_width=cw - 8)
    return y + h


# -- the last games ---------------------------------------------------------------------------


def _recent_h(recent: Sequence[Mapping[str, Any]]) -> int:
    return PAD + TEXT + 10 + ROW_H * len(recent) + PAD - 6


def _recent(c: Canvas, y: int, recent: Sequence[Mapping[str, Any]], single: bool) -> int:
    h = _recent_h(recent)
    c.panel((MARGIN, y, MARGIN + INNER - 1, y + h - 1), radius=14)
    x0, right = MARGIN + PAD, MARGIN + INNER - PAD
    c.text((x0, y + PAD), _("Last games"), TEXT, bold=True, max_width=INNER - 2 * PAD)
    row_y = y + PAD + TEXT + 10
    date_w = 150
    # A page about one game does not repeat its title on every line.
    title_w = 0 if single else 230
    for i, game in enumerate(recent):
        cy = row_y + i * ROW_H + ROW_H / 2
        if i:
            c.draw.line((x0, round(row_y + i * ROW_H), right, round(row_y + i * ROW_H)),
                        fill=RULE, width=1)
        if not single:
            style = kit.player_style(int(game["style"]))
            c.swatch((x0 + TEXT / 2, cy), style, TEXT)
            c.text((x0 + TEXT + 8, cy), str(game["title"]), TEXT, bold=True, anchor="lm",
                   max_width=title_w - TEXT - 12)
        won = bool(game["won"])
        words = result_words(won, int(game["place"]), int(game["players"]))
        points = _n("{n} point", "{n} points", int(game["score"]))
        x = x0 + title_w
        room = right - date_w - 12 - x
        # the place gets what the points leave it, the points at least half
        share = room - 24 - min(kit.text_width(f"· {points}", TEXT), room // 2)
        if won:
            box = c.label((x, cy), words, SMALL + 2, fg=kit.WHITE, bg=kit.GOOD, anchor="lm",
                          max_width=share)
        else:
            box = c.text((x, cy), words, TEXT, anchor="lm", max_width=share)
        rest = right - date_w - 12 - (box[2] + 12)
        c.text((box[2] + 12, cy), f"· {points}", fitted(f"· {points}", TEXT, rest, LEAST),
               anchor="lm", max_width=rest)
        c.text((right, cy), day(float(game["at"])), SMALL, fill=MUTED, anchor="rm",
               max_width=date_w, secondary=True)
    return y + h


def sample() -> dict[str, Any]:
    """A page with four games, for looking at (``python -m bot.render.profile``)."""
    a_day = 86400.0
    start = 1.76e9

    def walk(seed: int, n: int, base: int) -> list[list[float]]:
        out, value = [], base
        for i in range(n):
            value += ((seed * 7919 + i * 104729) % 61) - 28
            out.append([start + i * a_day * 30 / n + seed * 3600, value])
        return out

    titles = ["Cityscape", "Big Cityz", "Big City", "Cities"]
    games = []
    for i, (title, n) in enumerate(zip(titles, (40, 12, 5, 1), strict=True)):
        points = walk(i + 1, n, 1000 + 20 * i)
        games.append({"title": title, "style": i, "games": n + 3, "wins": n // 2,
                      "best": 90 + i, "average": 61.25 + i, "rating": int(points[-1][1]),
                      "rated": n, "start": 1000, "points": points})
    recent = [{"title": titles[i % 4], "style": i % 4, "won": i == 0, "place": 1 + i % 3,
               "players": 4, "score": 80 - i * 7, "at": start + 30 * a_day - i * a_day}
              for i in range(5)]
    return {"name": "Maximiliane Annabel", "season": 1, "single": False, "games": games,
            "recent": recent}


if __name__ == "__main__":  # pragma: no cover - a look at the picture
    import sys

    with open(sys.argv[1] if len(sys.argv) > 1 else "/tmp/profile.png", "wb") as out:
        out.write(render_profile(sample()))
