"""Smallest text on every kind of picture, against the phone rule in docs/pictures.md.

Plays a seeded computer game of each game, draws every picture kind at a few moments and
prints, per picture kind, the width, the smallest primary and secondary text (and the
primary's share of the width: the rule is at least 1/40) and how many strings break the rule.
Run from the repo root: ``PYTHONPATH=. python scripts/text_sizes.py [--list]
[--language=de ...] [game ...]`` (``--list`` names the strings that are too small; each
``--language`` draws the pictures in that language, English by default).
"""

from __future__ import annotations

import sys

from bot.core.i18n import speaking
from tests.pictures import every_picture, too_small

GAMES = ("bigcity", "bigcityz", "cityscape", "cities")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show = "--list" in sys.argv
    languages = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--language=")]
    for language in languages or ["en"]:
        print(f"-- {language}")
        with speaking(language):
            report(args or list(GAMES), show)


def report(games: list[str], show: bool) -> None:
    print(f"{'game':<10}{'picture':<28}{'width':>6}{'primary':>9}{'of width':>9}{'second':>8}"
          f"{'broken':>12}")
    for game in games:
        rows: dict[str, tuple[int, int, int, int, int, set[str]]] = {}
        for kind, width, texts in every_picture(game):
            p, s, bad, total, _w, names = rows.get(kind, (999, 999, 0, 0, width, set()))
            for t in texts:
                if t.secondary:
                    s = min(s, t.size)
                else:
                    p = min(p, t.size)
            broken = too_small(texts, width)
            names |= {f"{t.size:>3} {t.text[:40]!r}" for t in broken}
            rows[kind] = (p, s, bad + len(broken), total + len(texts), width, names)
        for kind, (p, s, bad, total, width, names) in sorted(rows.items()):
            share = f"1/{width / p:.0f}" if p < 999 else "-"
            print(f"{game:<10}{kind:<28}{width:>6}{p if p < 999 else '-':>9}{share:>9}"
                  f"{s if s < 999 else '-':>8}{f'{bad}/{total}':>12}")
            if show:
                for line in sorted(names):
                    print("      ", line)


if __name__ == "__main__":
    main()
