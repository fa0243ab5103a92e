"""Every game's pictures, drawn from fixed seeded games, and compared pixel by pixel.

    python scripts/compare_pictures.py render /tmp/pictures-before
    python scripts/compare_pictures.py render /tmp/pictures-after
    python scripts/compare_pictures.py compare /tmp/pictures-before /tmp/pictures-after

``render`` plays seeded computer games of every game at every player count it allows and
draws, in English and German (``--languages``): the table at the start, a third of the
way, the middle, two thirds and the end; every kind of preview a game has (lettered
building sites, streetcars, neighbourhood places; Cities' tiles, features and pieces);
Cities' neighbourhoods, Big Cityz' reveals, Cityscape's scorings and each game's final
standings (``render_extras``); a /profile picture; and the animation GIF's first, middle
and last frames. Player names mix scripts, emoji and a long name, so text layout is
covered too. Each picture is a PNG named ``<game>-p<players>-<language>-<kind>.png``.

``compare`` decodes both folders' pictures to RGB and reports, per picture, the largest
and mean channel difference and how many pixels differ by more than ``--tolerance``
(default 8 of 255, below what the eye tells apart on anti-aliased edges). A picture that
is missing, changed size, or has more than ``--pixels`` (default 0.1 %) of its pixels
beyond the tolerance fails; the exit status is 1 when any fails.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image, ImageChops

from bot.core.i18n import speaking
from bot.games import GAMES, renderer

JSON = Any
IDS = ("ann", "bob", "cy", "dee", "eve", "fay")
# Display names as a busy server has them: a long one, accents, Arabic, CJK, emoji.
NAMES = {"ann": "Ann", "bob": "Bartholomew Fitzgerald-Longname", "cy": "Zoë 🦊",
         "dee": "محمد", "eve": "美咲", "fay": "Ólafur"}
SEED = 7
LANGUAGES = ("en", "de")
STAGES = (("start", 0.0), ("third", 1 / 3), ("middle", 0.5), ("late", 2 / 3), ("end", 1.0))


def rename(value: Any) -> Any:
    """``value`` with player ids replaced by display names (as bot.ui.game does)."""
    if isinstance(value, dict):
        return {NAMES.get(k, k) if isinstance(k, str) else k: rename(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [rename(v) for v in value]
    if isinstance(value, str):
        return NAMES.get(value, value)
    return value


def play(game: str, players: int, seed: int = SEED
         ) -> list[tuple[JSON, list[JSON], str | None, JSON]]:
    """``(state, events that led to it, who moved, action)`` for every step of a game."""
    record = GAMES[game].engine, GAMES[game].computer
    engine, computer = record
    options = dict(GAMES[game].scenario.options)
    state = engine.new(list(IDS[:players]), options, seed)
    out: list[tuple[JSON, list[JSON], str | None, JSON]] = [(state, [], None, None)]
    while engine.result(state) is None:
        player = engine.to_act(state)[0]
        action = computer.normal(state, player)
        state, events = engine.apply(state, player, action)
        out.append((state, list(events), player, action))
    return out


def letters(n: int) -> list[str]:
    return [chr(ord("A") + i % 26) + ("" if i < 26 else str(i // 26)) for i in range(n)]


def bigcity_previews(engine: Any, states: list[JSON]) -> Iterator[tuple[str, JSON, list[JSON]]]:
    """One preview of each kind: building sites, streetcars, neighbourhood places."""
    found: dict[str, tuple[JSON, list[JSON]]] = {}
    for state in states[::3]:
        due = engine.to_act(state)
        if not due:
            continue
        player = due[0]
        for kind, types in (("sites", ("build", "special")), ("streetcars", ("streetcar",)),
                            ("places", ("place",))):
            if kind in found:
                continue
            actions = [a.action for a in engine.legal(state, player)
                       if a.action.get("type") in types or (kind == "places"
                                                            and "neighborhood" in a.action)]
            if len(actions) < 3:
                continue
            choices: list[JSON] = []
            for label, a in zip(letters(25), actions, strict=False):
                if "properties" in a:
                    choices.append({"label": label, "properties": list(a["properties"])})
                elif "segments" in a:
                    choices.append({"label": label, "segments": a["segments"]})
                elif "neighborhood" in a:
                    choices.append({"label": label, "neighborhood": a["neighborhood"],
                                    "at": list(a["at"]), "rotation": a["rotation"]})
            if choices:
                found[kind] = (engine.view(state, player), choices)
    for kind, (view, choices) in sorted(found.items()):
        yield kind, rename(view), choices


def cities_previews(engine: Any, states: list[JSON]
                    ) -> Iterator[tuple[str, JSON, str, list[JSON]]]:
    """One preview per kind of placement (tiles, features, pieces)."""
    found: dict[str, tuple[JSON, str, list[JSON]]] = {}
    for state in states[4:]:
        if state.get("phase") != "play" or not state.get("pending"):
            continue
        row = state["pending"].get("row")
        if row in found:
            continue
        player = engine.to_act(state)[0]
        choices: list[JSON] = []
        for legal in engine.legal(state, player):
            a = legal.action
            if a["type"] == "place_tile":
                choices.append({"tile_at": a["at"], "rotation": a["rotation"]})
            elif a["type"] in ("place_feature", "place_piece"):
                choices.append({"space": a["space"]})
        for choice, label in zip(choices, letters(len(choices)), strict=True):
            choice["label"] = label
        if len(choices) >= 2:
            found[row] = (engine.view(state, None), player, choices[:26])
    for row, (view, player, choices) in sorted(found.items()):
        yield row, rename(view), NAMES[player], choices


def pictures(game: str, players: int) -> Iterator[tuple[str, Callable[[], Any]]]:
    """``(kind, draw)`` for every picture of one seeded game."""
    engine = GAMES[game].engine
    draw: Any = renderer(game)
    steps = play(game, players)
    states = [s for s, _e, _p, _a in steps]
    last = len(steps) - 1
    for stage, at in STAGES:
        view = rename(engine.view(states[round(at * last)], None))
        yield f"table-{stage}", partial(draw.render_table, view)
    extras = 0
    for i, (state, events, _player, _action) in enumerate(steps):
        if not events or (extras >= 3 and i != last):
            continue
        view = rename(engine.view(state, None))
        drawn = list(draw.render_extras(view, rename(events)))
        if drawn:  # only steps that draw something (a scoring, a reveal, the end)
            extras += 1
            named = rename(events)
            yield f"extras-{i:04d}", partial(draw.render_extras, view, named)
    if game == "bigcity":
        for kind, view, choices in bigcity_previews(engine, states):
            yield f"preview-{kind}", partial(draw.render_preview, view, choices)
    if game == "cities":
        for row, view, player, choices in cities_previews(engine, states):
            yield (f"preview-{row}",
                   partial(draw.render_preview, view, player, choices))
        for stage, at in (("middle", 0.5), ("end", 1.0)):
            view = rename(engine.view(states[round(at * last)], None))
            for pid in IDS[:players]:
                yield (f"hood-{stage}-{pid}",
                       partial(draw.render_neighbourhood, view, NAMES[pid]))
            yield f"hoods-{stage}", partial(draw.render_neighbourhoods, view)
    if game == "bigcityz":
        shown = 0
        for state in states:
            view = engine.view(state, None)
            if view.get("last_reveal") and shown < 2 and (shown == 0 or state is states[-1]
                                                          or len(states) // 2 < states.index(state)):
                shown += 1
                named = rename(view)
                yield f"reveal-{shown}", partial(draw.render_reveal, named)
    final = rename(engine.view(states[-1], None))
    if hasattr(draw, "render_final"):
        yield "final", partial(draw.render_final, final)


def animation_frames(game: str, players: int) -> list[tuple[str, bytes]]:
    """The first, middle and last frames of the game's animation GIF, as PNG."""
    from bot.render import animation

    engine = GAMES[game].engine
    states = [s for s, _e, _p, _a in play(game, players)]
    views = [rename(engine.view(s, None)) for s in animation.sample(states, animation.MAX_FRAMES)]
    made = animation.animate(renderer(game).__name__, views)
    if made is None:
        return []
    out = []
    with Image.open(io.BytesIO(made.data)) as gif:
        count = getattr(gif, "n_frames", 1)
        for name, index in (("first", 0), ("middle", count // 2), ("last", count - 1)):
            gif.seek(index)
            buffer = io.BytesIO()
            gif.convert("RGB").save(buffer, "PNG")
            out.append((f"gif-{name}", buffer.getvalue()))
    return out


def profile_data() -> dict[str, Any]:
    """A /profile picture's data (the shape bot/ui/profile.py makes), fixed."""
    start = 1_764_000_000.0
    games = [{"title": game.title(), "style": i, "games": 10 + 7 * i, "wins": 3 + i,
              "best": 40 + 11 * i, "average": 30.5 + i, "rating": 1000 + 37 * i,
              "rated": 8 + i, "start": 1000,
              "points": [[start + 86_400 * k, 990 + 9 * k + 5 * i] for k in range(12)]}
             for i, game in enumerate(GAMES)]
    recent = [{"title": game.title(), "style": k % 4, "won": k % 3 == 0, "place": 1 + k % 3,
               "players": 3, "score": 20 + 3 * k, "at": start + 86_400 * k}
              for k, game in enumerate(list(GAMES) * 2)]
    return {"name": "Zoë 🦊", "season": 1, "single": False, "games": games, "recent": recent}


def render(folder: Path, languages: tuple[str, ...], games: list[str], counts: str) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for language in languages:
        with speaking(language):
            for game in games:
                engine = GAMES[game].engine
                wanted = range(engine.min_players, engine.max_players + 1)
                if counts:
                    wanted = range(0)
                    chosen = [int(c) for c in counts.split(",")]
                for players in (chosen if counts else wanted):
                    if not engine.min_players <= players <= engine.max_players:
                        continue
                    prefix = f"{game}-p{players}-{language}"
                    for kind, drawing in pictures(game, players):
                        result = drawing()
                        named = ([(kind, result)] if isinstance(result, bytes)
                                 else [(f"{kind}-{n}", png) for n, png in result])
                        for name, png in named:
                            (folder / f"{prefix}-{name}.png").write_bytes(png)
                            written += 1
                    if players == engine.min_players + 1:
                        for name, png in animation_frames(game, players):
                            (folder / f"{prefix}-{name}.png").write_bytes(png)
                            written += 1
            try:
                from bot.render.profile import render_profile

                png = render_profile(profile_data())
                (folder / f"profile-{language}.png").write_bytes(png)
                written += 1
            except (KeyError, TypeError, ValueError) as exc:  # data shape drifted: say so
                print(f"profile skipped: {exc!r}", file=sys.stderr)
    print(f"{written} pictures in {folder}")
    return 0


def difference(a: Path, b: Path, tolerance: int) -> tuple[str, int, float, int, int]:
    """``(problem, max, mean, pixels over tolerance, pixels)`` of two pictures."""
    with Image.open(a) as x, Image.open(b) as y:
        one, two = x.convert("RGB"), y.convert("RGB")
    if one.size != two.size:
        return f"size {one.size} -> {two.size}", 255, 255.0, one.width * one.height, \
            one.width * one.height
    diff = ImageChops.difference(one, two)
    bands = diff.split()
    extrema = max(int(band.getextrema()[1]) for band in bands)  # type: ignore[arg-type]
    total = one.width * one.height
    hist = [sum(count * i for i, count in enumerate(band.histogram())) for band in bands]
    mean = sum(hist) / (3 * total)
    worst = ImageChops.lighter(ImageChops.lighter(bands[0], bands[1]), bands[2])
    over = sum(worst.histogram()[tolerance + 1:])
    return "", int(extrema), mean, over, total


def compare(before: Path, after: Path, tolerance: int, share: float) -> int:
    names = sorted({p.name for p in before.glob("*.png")} | {p.name for p in after.glob("*.png")})
    failed = changed = 0
    for name in names:
        a, b = before / name, after / name
        if not a.exists() or not b.exists():
            print(f"FAIL {name}: only in {'after' if b.exists() else 'before'}")
            failed += 1
            continue
        problem, top, mean, over, total = difference(a, b, tolerance)
        if top:
            changed += 1
        bad = bool(problem) or over > share * total
        if bad or top:
            print(f"{'FAIL' if bad else 'ok  '} {name}: {problem or ''}max {top}, mean "
                  f"{mean:.4f}, {over} px over {tolerance} ({100 * over / total:.3f} %), "
                  f"{a.stat().st_size} -> {b.stat().st_size} bytes")
        failed += bad
    size_a = sum((before / n).stat().st_size for n in names if (before / n).exists())
    size_b = sum((after / n).stat().st_size for n in names if (after / n).exists())
    print(f"{len(names)} pictures: {len(names) - changed} identical, {changed - failed} "
          f"within tolerance, {failed} failed; PNG bytes {size_a} -> {size_b} "
          f"({100 * (size_b - size_a) / max(1, size_a):+.1f} %)")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("render", help="draw the fixed set of pictures into a folder")
    r.add_argument("folder", type=Path)
    r.add_argument("--languages", default=",".join(LANGUAGES))
    r.add_argument("--games", default=",".join(GAMES))
    r.add_argument("--players", default="", help="player counts, e.g. 2,4 (default: all)")
    c = sub.add_parser("compare", help="compare two folders pixel by pixel")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    c.add_argument("--tolerance", type=int, default=8)
    c.add_argument("--pixels", type=float, default=0.001,
                   help="share of a picture's pixels allowed over the tolerance")
    args = parser.parse_args(argv)
    if args.command == "render":
        return render(args.folder, tuple(args.languages.split(",")),
                      args.games.split(","), args.players)
    return compare(args.before, args.after, args.tolerance, args.pixels)


if __name__ == "__main__":
    sys.exit(main())
