"""Cut the fallback fonts in ``bot/data/fonts`` from their upstream files.

Not part of the bot: run it only to rebuild or update those files. It needs fontTools
(``.venv/bin/pip install fonttools``) and the upstream fonts, e.g. from Debian's
packages (``apt-get download fonts-noto-core fonts-noto-cjk-extra`` and ``dpkg-deb -x``), and
Noto Emoji's Medium instance from the npm package ``@expo-google-fonts/noto-emoji`` (``npm
pack @expo-google-fonts/noto-emoji`` and ``tar xzf``; see ``bot/data/fonts/README.md``)::

    python scripts/make_fonts.py --noto /usr/share/fonts/truetype/noto \\
        --cjk /usr/share/fonts/opentype/noto \\
        --emoji package/500Medium/NotoEmoji_500Medium.ttf

Each option is optional: only the fonts whose sources are given are cut again.

Each script's font keeps only its own blocks. The CJK fonts keep the characters of the
national standard sets a name is almost always written in (GB 2312, JIS X 0208 level 1
and 2, Big5 level 1, the 2,350 hangul syllables of KS X 1001) instead of all ~65,000
glyphs: 12,700 characters in ~2.6 MB instead of ~18 MB. The emoji font keeps every
character and sequence it draws (its ``ccmp`` ligatures make flags, skin tones, keycaps and
ZWJ sequences one glyph each), without hinting and vertical metrics: ~880 KB.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterable
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

OUT = Path(__file__).resolve().parent.parent / "bot" / "data" / "fonts"

JOINERS = [0x20, 0xA0, 0x200C, 0x200D, 0x25CC]  # space, ZWNJ/ZWJ, the dotted circle for marks


def span(first: int, last: int) -> range:
    return range(first, last + 1)


def double_byte(codec: str, leads: Iterable[int], trails: Iterable[int]) -> set[int]:
    """Code points of a double-byte national character set's rows (its codec decodes them)."""
    trails = list(trails)
    found: set[int] = set()
    for lead in leads:
        for trail in trails:
            with contextlib.suppress(UnicodeDecodeError):  # a hole in the table
                found.add(ord(bytes([lead, trail]).decode(codec)))
    return found


def cjk_codes() -> set[int]:
    codes = double_byte("gb2312", span(0xB0, 0xF7), span(0xA1, 0xFE))  # all 6,763 hanzi
    codes |= double_byte("euc_jp", span(0xB0, 0xF4), span(0xA1, 0xFE))  # JIS kanji
    codes |= double_byte("euc_kr", span(0xB0, 0xC8), span(0xA1, 0xFE))  # hangul
    codes |= double_byte("big5", span(0xA4, 0xC6), [*span(0x40, 0x7E), *span(0xA1, 0xFE)])
    for block in (span(0x3000, 0x30FF), span(0x3130, 0x318F), span(0x31F0, 0x31FF),
                  span(0xFF01, 0xFFEF)):  # punctuation, kana, jamo, full/half width forms
        codes.update(block)
    return codes


SCRIPTS: dict[str, list[int]] = {
    "Arabic": [*span(0x0600, 0x06FF), *span(0x0750, 0x077F), *span(0xFB50, 0xFDFF),
               *span(0xFE70, 0xFEFF)],  # presentation forms: the layout without raqm uses them
    "Hebrew": [*span(0x0590, 0x05FF), *span(0xFB1D, 0xFB4F)],
    "Thai": list(span(0x0E00, 0x0E7F)),
    "Devanagari": [*span(0x0900, 0x097F), *span(0xA8E0, 0xA8FF), *span(0x1CD0, 0x1CFF)],
}


def cut(font: TTFont, codes: Iterable[int], target: Path, layout: bool,
        drop: Iterable[str] = ()) -> None:
    options = subset.Options()
    # Shaping features (joining forms, conjuncts, marks) are what raqm needs for Arabic and
    # Devanagari; CJK needs none, and dropping its tables saves a lot.
    options.layout_features = ["*"] if layout else []
    options.hinting = False  # pictures are drawn at 14-40 px, where autohinting is fine
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # keep copyright and licence records
    options.notdef_outline = True
    options.drop_tables += list(drop)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[*codes, *JOINERS])
    subsetter.subset(font)
    font.save(str(target))
    print(f"{target.name}: {target.stat().st_size / 1024:.0f} KiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--noto", type=Path, help="folder with NotoSans*.ttf")
    parser.add_argument("--cjk", type=Path, help="folder with NotoSansCJK-*.ttc")
    parser.add_argument("--emoji", type=Path, help="NotoEmoji_500Medium.ttf (Noto Emoji 3.x)")
    args = parser.parse_args()
    if args.noto:
        for script, codes in SCRIPTS.items():
            for weight in ("Regular", "Bold"):
                name = f"NotoSans{script}-{weight}.ttf"
                cut(TTFont(args.noto / name), codes, OUT / name, layout=True)
    if args.cjk:
        # One CJK weight for regular and bold text: a second one would double the
        # repository's biggest file, and Medium sits between the two. Font 0 of the
        # collection is the Japanese face; the regional faces differ only in which glyph
        # forms are the default, and a name in any of the four reads in it.
        face = TTCollection(args.cjk / "NotoSansCJK-Medium.ttc").fonts[0]
        cut(face, cjk_codes(), OUT / "NotoSansCJK-Medium-subset.otf", layout=False)
    if args.emoji:
        # Medium for regular and bold text too. Its ``ccmp`` feature is what joins a
        # sequence into one glyph; vertical metrics and the variation axis record are
        # never used by a horizontal picture.
        emoji = TTFont(args.emoji)
        cut(emoji, emoji.getBestCmap(), OUT / "NotoEmoji-Medium.ttf", layout=True,
            drop=("vhea", "vmtx", "STAT"))

if __name__ == "__main__":
    main()
