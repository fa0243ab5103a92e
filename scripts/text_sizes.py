"""Smallest text on every kind of picture, against the phone rule in docs/pictures.md.

Plays a seeded computer game of each game, draws every picture kind at a few points and
prints, per picture kind, the width, the smallest primary and secondary text, and how many
strings break the rule (primary >= width/40, secondary >= width/60). Run from the repo root:
``python scripts/text_sizes.py [--list]`` (``--list`` names every string that is too small).
"""

from __future__ import annotations

import sys
from collections import defaultdict

from tests.pictures import every_picture, too_small


def main() -> None:
    show = "--list" in sys.argv
    worst: dict[tuple[str, str], list[float]] = defaultdict(lambda: [1e9, 1e9, 0, 0, 0])
    offenders: dict[tuple[str, str], set[str]] = defaultdict(set)
    for game, kind, width, texts in every_picture():
        row = worst[(game, kind)]
        row[4] = width
        for t in texts:
            i = 1 if t.secondary else 0
            row[i] = min(row[i], t.size)
        bad = too_small(texts, width)
        row[2] += len(bad)
        row[3] += len(texts)
        offenders[(game, kind)].update(f"{t.size:>3} {'2nd' if t.secondary else '1st'} "
                                       f"{t.text[:40]!r}" for t in bad)
    print(f"{'game':<10}{'picture':<14}{'width':>6}{'primary':>9}{'second':>8}"
          f"{'need':>10}{'too small':>11}")
    for (game, kind), (p, s, bad, total, width) in sorted(worst.items()):
        need = f"{width / 40:.0f}/{width / 60:.0f}"
        print(f"{game:<10}{kind:<14}{int(width):>6}{_n(p):>9}{_n(s):>8}{need:>10}"
              f"{int(bad):>6}/{int(total)}")
        if show:
            for line in sorted(offenders[(game, kind)]):
                print("    ", line)


def _n(v: float) -> str:
    return "-" if v >= 1e9 else str(int(v))


if __name__ == "__main__":
    main()
