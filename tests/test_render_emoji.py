"""Emoji in names are drawn: current ones (Unicode 17), with or without their variation
selector, and sequences (flags, skin tones, keycaps, families) as the one emoji they make,
in the ink of the text around them, never as boxes and never cut apart."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops, ImageDraw

from bot.render import kit
from bot.render.fonts import EMOJI, PRIMARY, SHAPING, clean_text, emoji_spans, font, layout

SIZE = 28
CITY = "\U0001f3d9"  # 🏙, drawn as text by default: phones add VS16 to show it as an emoji
VS16 = "\ufe0f"
needs_shaping = pytest.mark.skipif(not SHAPING, reason="sequences are joined by libraqm")

SEQUENCES = {
    "flag": "\U0001f1eb\U0001f1f7",  # 🇫🇷: two regional letters
    "skin tone": "\U0001f44d\U0001f3fd",  # 👍🏽
    "keycap": "1\ufe0f\u20e3",  # 1️⃣
    "family": "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # 👨‍👩‍👧, joined by ZWJ
    "subdivision flag": "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    "rainbow flag": "\U0001f3f3\ufe0f\u200d\U0001f308",
}


def _mask(text: str, shaping: bool = SHAPING) -> Image.Image:
    return kit._text_mask(text, SIZE, True, shaping)[0]


def _same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and ImageChops.difference(a, b).getbbox() is None


def _box_glyph() -> Image.Image:
    """What the emoji font draws for a character it lacks: its .notdef box."""
    face = font(SIZE, True, EMOJI, False)
    x0, y0, x1, y1 = (int(v) for v in face.getbbox("\ue000", anchor="ls"))
    mask = Image.new("L", (x1 - x0 + 1, y1 - y0 + 1), 0)
    ImageDraw.Draw(mask).text((-x0, -y0), "\ue000", font=face, fill=255, anchor="ls")
    return mask


def _one_emoji_wide(text: str) -> bool:
    return kit.text_width(text, SIZE, True) == kit.text_width(CITY, SIZE, True)


@pytest.mark.parametrize("name", [f"Zoë {CITY}{VS16}", f"Zoë {CITY}"])
def test_a_city_in_a_name_is_drawn_with_or_without_its_selector(name: str) -> None:
    canvas = kit.Canvas.new(300, 60)
    plain = kit.Canvas.new(300, 60)
    with kit.recording_text() as drawn:
        canvas.chip((10, 10), name, kit.player_style(0), SIZE)
    plain.chip((10, 10), "Zoë", kit.player_style(0), SIZE)
    assert [d.text for d in drawn] == [name]  # recorded as written: nothing dropped
    assert [(r.text.rstrip(VS16), r.face) for r in layout(name, True)][-1] == (CITY, EMOJI)
    # The city is inked after the name, in the chip's ink on the player's colour.
    extra = ImageChops.difference(canvas.image, plain.image).getbbox()
    assert extra is not None and extra[2] - extra[0] > SIZE // 2
    city = canvas.image.crop((extra[2] - SIZE, extra[1], extra[2], extra[3]))
    colours = {c for _n, c in city.getcolors(1 << 16) or []}
    assert kit.player_style(0).ink in colours
    # One glyph either way, and not a box.
    assert _same(_mask(CITY + VS16), _mask(CITY))
    assert not _same(_mask(CITY), _box_glyph())


def test_emoji_newer_than_pythons_unicode_tables_are_drawn() -> None:
    """Python 3.11 knows Unicode 14; the font knows 17. Shaking face (15.0), phoenix (15.1),
    face with bags under eyes (16.0), treasure chest (17.0)."""
    for emoji in ("\U0001fae8", "\U0001f426\u200d\U0001f525", "\U0001fae9", "\U0001fa8e"):
        assert clean_text(f"Kim {emoji}", True) == f"Kim {emoji}" or not SHAPING
        assert clean_text(emoji, True, fallback="Player 2") != "Player 2"
        ink = _mask(emoji)
        assert ink.getbbox() is not None and not _same(ink, _box_glyph())


@needs_shaping
@pytest.mark.parametrize("kind", sorted(SEQUENCES))
def test_a_sequence_is_drawn_as_one_emoji(kind: str) -> None:
    sequence = SEQUENCES[kind]
    assert clean_text(f"Ann {sequence}", True) == f"Ann {sequence}"
    assert emoji_spans(sequence) == ((0, len(sequence)),)
    (run,) = layout(sequence, True)
    assert run.face == EMOJI and _one_emoji_wide(sequence)
    assert not _same(_mask(sequence), _box_glyph())
    if kind == "skin tone":  # black and white: the hand, without a swatch beside it
        assert _same(_mask(sequence), _mask(sequence[0]))
    else:  # a flag is not its first letter, a family not its father
        assert not _same(_mask(sequence), _mask(sequence[0]))


def test_without_shaping_a_sequence_leaves_its_base_emoji_and_no_boxes() -> None:
    """Pillow without libraqm joins nothing: each part's base emoji is drawn, a flag's
    letters are left out, and modifiers never show as swatches or boxes."""
    for kind, sequence in SEQUENCES.items():
        runs = layout(f"Ann {sequence}", True, shaping=False)
        shown = "".join(r.text for r in runs[1:])
        assert all(not ("\U0001f1e6" <= c <= "\U0001f1ff" or "\U0001f3fb" <= c <= "\U0001f3ff"
                        or c in "\u200d\ufe0f\u20e3" or "\U000e0000" <= c <= "\U000e007f")
                   for c in shown), kind
    family = layout(SEQUENCES["family"], True, shaping=False)
    assert [r.text for r in family] == ["\U0001f468\U0001f469\U0001f467"]


@needs_shaping
def test_a_sequence_the_font_lacks_falls_apart_into_its_emoji() -> None:
    """A ZWJ sequence no one defined (cat + flamingo) shows its parts, as phones do."""
    odd = "\U0001f408\u200d\U0001f9a9"
    assert clean_text(odd, True) == "\U0001f408\U0001f9a9"


def test_names_are_never_cut_inside_a_sequence() -> None:
    family = SEQUENCES["family"]
    name = "Bo " + family * 6
    for width in range(40, kit.text_width(name, SIZE, True), 7):
        shown = kit.fit_text(name, SIZE, True, width).removesuffix(kit.ELLIPSIS)
        assert "Bo".startswith(shown) or shown.removeprefix("Bo ").replace(family, "") == ""


def test_emoji_take_the_ink_of_their_text_and_sit_beside_it() -> None:
    """An emoji reads on every player colour because it is drawn in the chip's ink, and a
    space after it is an ordinary space, not the emoji font's wide one."""
    assert [r.face for r in layout(f"{CITY} Zoë", True)] == [EMOJI, PRIMARY]
    space = font(SIZE, True).getlength(" ")
    assert font(SIZE, True, EMOJI).getlength(" ") > 2 * space
    assert kit.text_width(f"{CITY} Zoë", SIZE, True) <= (
        kit.text_width(CITY, SIZE, True) + space + kit.text_width("Zoë", SIZE, True) + 1)
    for style in kit.PLAYER_STYLES:
        c = kit.Canvas.new(120, 60, style.colour)
        c.text((10, 30), CITY, SIZE, fill=style.ink, anchor="lm")
        assert {colour for _n, colour in c.image.getcolors(1 << 16) or []} >= {style.ink}
    # The same face serves bold and regular text.
    assert font(SIZE, True, EMOJI).path == font(SIZE, False, EMOJI).path
