"""The shared drawing kit: fonts that never draw tofu, names that fit, colours that can be
told apart, and PNGs that come out right."""

from __future__ import annotations

import io
import itertools
from typing import cast

import pytest
from PIL import Image, ImageChops

from bot.render import kit
from bot.render.fonts import FACES, FONT_DIR, clean_text, coverage, font, font_path, supports
from tests.pictures import overflowing


def _png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    image.load()
    return image


# -- fonts -------------------------------------------------------------------------------


def test_fonts_are_bundled_with_their_licence() -> None:
    for face in range(len(FACES)):
        for bold in (False, True):
            assert font_path(bold, face).is_file()
    assert (FONT_DIR / "LICENSE-DejaVu.txt").is_file()
    assert (FONT_DIR / "LICENSE-Noto-OFL.txt").is_file()
    credits = (FONT_DIR / "README.md").read_text()
    assert all(f.regular in credits or f.regular.split("-")[0] in credits for f in FACES)


def test_font_is_cached_per_size_and_weight() -> None:
    assert font(24) is font(24)
    assert font(24) is not font(24, bold=True)
    assert font(30).size == 30


def test_coverage_reads_the_fonts_own_character_map() -> None:
    for char in "Aé€Ωשж→…✓★":
        assert supports(char), char
    for char in "🎲田中🎉\U0001f1eb":
        assert not supports(char), char
    assert len(coverage(bold=True)) > 3000


@pytest.mark.parametrize(("raw", "shown"), [
    ("Ann", "Ann"),
    ("Ann 🎲🎲", "Ann 🎲🎲"),  # emoji are drawn
    ("Ann \U0001f9a9", "Ann \U0001f9a9"),  # Unicode 12 too (sequences: test_render_emoji)
    ("Ann \ue000", "Ann"),  # a private character no font has: dropped, never a box
    ("Zoë \U0001f1eb", "Zoë"),  # a regional letter alone (two make a flag) would be a box
    ("\U0001f3fd Kim", "Kim"),  # a skin tone alone likewise
    ("田中 Bob", "田中 Bob"),
    ("ᏣᎳᎩ Bob", "? Bob"),  # a run of letters no font has keeps its place as one "?"
    ("Bob\u200d\ufe0f", "Bob"),  # joiners and variation selectors are never drawn
    ("e\u0301mile", "émile"),  # decomposed accents are composed first
    ("two\nlines\there", "two lines here"),
    ("  spaced   out  ", "spaced out"),
])
def test_names_lose_what_the_font_cannot_draw(raw: str, shown: str) -> None:
    assert clean_text(raw, fallback="Player 1") == shown


@pytest.mark.parametrize("raw", ["ᏣᎳᎩ", "\ue000", "\U0001f3fd", "", "   ", "\u200d", "?!"])
def test_a_name_with_nothing_drawable_gets_the_fallback(raw: str) -> None:
    assert clean_text(raw, fallback="Player 3") == "Player 3"


def test_plain_text_keeps_symbols_and_spacing() -> None:
    assert clean_text(" · north") == " · north"
    assert clean_text("·") == "·"


def test_unsupported_characters_leave_no_trace_in_the_picture() -> None:
    """An emoji no font has must not become a tofu box: the pixels equal the plain name."""
    a, b = kit.Canvas.new(400, 60), kit.Canvas.new(400, 60)
    a.text((10, 30), "Ann \ue000\U0001f1eb\U0001f3fd", 28, anchor="lm")
    b.text((10, 30), "Ann", 28, anchor="lm")
    assert ImageChops.difference(a.image, b.image).getbbox() is None


# -- fitting -----------------------------------------------------------------------------


def test_long_text_is_ellipsised_to_the_width() -> None:
    long = "A very very long display name that goes on and on"
    shown = kit.fit_text(long, 24, True, 200)
    assert shown.endswith("…")
    assert long.startswith(shown[:-1])
    assert kit.text_width(shown, 24, True) <= 200
    assert kit.fit_text("Ann", 24, True, 200) == "Ann"
    assert kit.fit_text(long, 24, True, 5) == "…"


def test_chip_stays_within_its_max_width() -> None:
    c = kit.Canvas.new(800, 80)
    box = c.chip((10, 40), "Somebody with a really long name " * 3, kit.player_style(2), 24,
                 anchor="lm", max_width=260)
    assert box[2] - box[0] <= 260
    short = c.chip((10, 40), "Al", kit.player_style(2), 24, anchor="lm", max_width=260)
    assert short[2] - short[0] == kit.chip_width("Al", 24)


def test_share_width_cuts_only_the_long_items() -> None:
    assert kit.share_width([100, 100], 500) == [100, 100]
    shared = kit.share_width([100, 600, 120], 500)
    assert shared[0] == 100 and shared[2] == 120
    assert sum(shared) <= 500 and shared[1] >= 270
    assert kit.share_width([300, 300], 100, least=80) == [80, 80]


def _colours(image: Image.Image) -> set[kit.RGB]:
    """Colours of an RGB image."""
    return {cast(kit.RGB, colour) for _n, colour in image.getcolors(1 << 16) or []}


def test_text_partly_off_the_canvas_is_clipped_not_an_error() -> None:
    c = kit.Canvas.new(100, 40)
    clipped = c.text((-30, 20), "clipped at the edge", 24, anchor="lm")
    below = c.text((90, 45), "below", 24)
    chip = c.chip((80, 30), "Ann", kit.player_style(0), 24)
    assert c.image.size == (100, 40)
    # the reported boxes are the whole layout, past the edges
    assert clipped[0] == -30 and clipped[2] > 100 and below[1] >= 40 and chip[3] > 40
    # what falls on the canvas is drawn: the text's middle from the left edge on, and the
    # chip's corner in the player's colour; nothing of "below" (wholly under the edge)
    assert kit.INK in _colours(c.image.crop((0, 10, 80, 30)))
    assert kit.player_style(0).colour in _colours(c.image.crop((80, 30, 100, 40)))
    assert _colours(c.image.crop((0, 0, 100, 3))) == {kit.PAPER}


def test_recording_tells_what_text_was_drawn_and_where() -> None:
    c = kit.Canvas.new(300, 100)
    c.text((10, 10), "before", 20)
    with kit.recording_text() as drawn:
        box = c.text((10, 50), "Ann \ue000 with a long name", 20, bold=True, max_width=120)
        c.label((150, 10), "Round 2", 18)
        c.chip((150, 60), "Bob", kit.player_style(1), 18)
    c.text((10, 80), "after", 20)
    assert [d.text for d in drawn] == [kit.fit_text("Ann with a long name", 20, True, 120),
                                       "Round 2", "Bob"]
    assert drawn[0].text.endswith("…") and drawn[0].box == box
    assert drawn[0].size == 20 and drawn[0].bold and drawn[0].fill == kit.INK
    assert drawn[2].fill == kit.player_style(1).ink


# -- players -----------------------------------------------------------------------------


def test_six_players_differ_in_colour_and_in_shape() -> None:
    styles = [kit.player_style(i) for i in range(6)]
    assert len({s.colour for s in styles}) == 6
    assert len({s.marker for s in styles}) == 6
    assert len({s.symbol for s in styles}) == 6
    assert all(supports(s.symbol) for s in styles)
    assert kit.player_style(6).colour == styles[0].colour


def test_text_on_player_colours_is_readable() -> None:
    for style in kit.PLAYER_STYLES:
        assert kit.contrast(style.ink, style.colour) >= 4.5, style.colour_name
    assert kit.contrast(kit.INK, kit.PAPER) >= 7
    assert kit.contrast(kit.MUTED, kit.PANEL) >= 4.5


def test_players_are_apart_in_grey_too() -> None:
    """Hue alone may fail a colour-blind player; the markers must differ in outline."""
    masks = [kit.shape_mask(m, 40) for m in kit.MARKERS]
    for a, b in itertools.combinations(masks, 2):
        assert ImageChops.difference(a, b).getbbox() is not None


# -- encoding ----------------------------------------------------------------------------


def test_encode_png_keeps_every_listed_colour_exactly() -> None:
    colours = [kit.PAPER, kit.INK, kit.HIGHLIGHT] + [s.colour for s in kit.PLAYER_STYLES]
    c = kit.Canvas.new(20 * len(colours), 20)
    for i, colour in enumerate(colours):
        c.draw.rectangle((20 * i, 0, 20 * i + 19, 19), fill=colour)
    image = _png(kit.encode_png(c.image)).convert("RGB")
    assert [image.getpixel((20 * i + 10, 10)) for i in range(len(colours))] == colours


def test_encoded_text_looks_like_the_original() -> None:
    c = kit.Canvas.new(600, 120)
    c.panel((10, 10, 590, 110))
    c.text((30, 60), "Cityhall · Round 2 of 3 → 17", 30, bold=True, anchor="lm")
    c.chip((420, 60), "Bob", kit.player_style(1), 26, anchor="lm")
    decoded = _png(c.png()).convert("RGB")
    diff = ImageChops.difference(c.image, decoded).convert("L")
    histogram = diff.histogram()
    mean = sum(i * n for i, n in enumerate(histogram)) / (600 * 120)
    assert mean < 1.0
    assert max(i for i, n in enumerate(histogram) if n) < 48


def test_palette_refuses_more_than_png_allows() -> None:
    with pytest.raises(ValueError):
        kit.Palette([(i, i, 255 - i) for i in range(0, 256, 2)])


def test_encode_png_accepts_other_modes() -> None:
    for mode in ("RGBA", "L", "P"):
        image = Image.new(mode, (30, 20))
        assert _png(kit.encode_png(image)).size == (30, 20)


def test_a_table_png_decodes_to_the_pictures_own_pixels_and_palette() -> None:
    """The fast writer (ISA-L, bot/render/png.py) and Pillow's own give the same picture:
    every palette index and palette colour, for a real table of each game."""
    from bot.games import GAMES, renderer
    from bot.render import png

    assert png.available(), "isal is a dependency: pictures should not fall back to Pillow"
    for name, game in GAMES.items():
        state = game.engine.new(["ann", "Bob 田中", "cy"], {}, 5)
        for _ in range(6):  # a few moves, so the board has pieces on it
            player = game.engine.to_act(state)[0]
            state, _events = game.engine.apply(state, player,
                                               game.computer.normal(state, player))
        with kit.capturing() as kept:
            renderer(name).render_table(game.engine.view(state, None))
        picture = kept[-1]
        written = png.paletted_png(picture)
        assert written is not None
        Image.open(io.BytesIO(written)).verify()  # chunk lengths, CRCs and IEND
        decoded = _png(written)
        assert decoded.mode == "P" and decoded.size == picture.size, name
        assert decoded.tobytes() == picture.tobytes(), name
        assert decoded.getpalette() == picture.getpalette(), name
        by_pillow = io.BytesIO()
        picture.save(by_pillow, format="PNG", compress_level=2)
        assert _png(by_pillow.getvalue()).convert("RGB").tobytes() == \
            decoded.convert("RGB").tobytes(), name
        assert len(written) < 1.1 * len(by_pillow.getvalue()), name


def test_without_isal_pictures_are_written_by_pillow(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.render import png

    c = kit.Canvas.new(200, 40)
    c.text((10, 20), "Cityhall", 24, anchor="lm")
    fast = _png(kit.encode_png(c.image))
    monkeypatch.setattr(png, "_isal_zlib", None)
    assert not png.available() and png.paletted_png(c.image.quantize()) is None
    slow = _png(kit.encode_png(c.image))
    assert slow.tobytes() == fast.tobytes() and slow.getpalette() == fast.getpalette()


def test_die_faces_differ() -> None:
    faces = []
    for value in range(1, 7):
        c = kit.Canvas.new(50, 50)
        c.die((5, 5, 45, 45), value)
        faces.append(c.image)
    for a, b in itertools.combinations(faces, 2):
        assert ImageChops.difference(a, b).getbbox() is not None


def test_labels_swatches_and_lines_draw_inside_the_box_they_report() -> None:
    c = kit.Canvas.new(500, 200, kit.PAPER)
    boxes = [
        c.label((250, 30), "Round 2 of 3", 24, anchor="mt"),
        c.swatch((40, 120), kit.player_style(3), 40),
        c.text_lines((100, 90), ["first line", "second line"], 22),
    ]
    for x0, y0, x1, y1 in boxes:
        inside = c.image.crop((x0, y0, x1, y1))
        assert inside.getcolors(1 << 16) != [((x1 - x0) * (y1 - y0), kit.PAPER)]
    outside = c.image.copy()
    for box in boxes:
        outside.paste(kit.PAPER, box)
    assert outside.getcolors(1 << 16) == [(500 * 200, kit.PAPER)]


# -- text that does not fit ----------------------------------------------------------------


def test_recorded_text_knows_its_surface_and_room_so_overflow_is_found() -> None:
    """A picture whose words run off its edge, or past the room they were given, is one a
    player cannot read: ``overflowing`` names those strings, and only those."""
    c = kit.Canvas.new(200, 60)
    with kit.recording_text() as drawn:
        c.text((10, 30), "fits", 20, anchor="lm", max_width=100)
        c.chip((100, 5), "Ann", kit.player_style(0), 20, max_width=90)
        c.text((150, 30), "past the right edge", 20, anchor="lm")
        c.text((10, 58), "low", 20)  # its letters start below the bottom edge
        c.label((10, 0), "Round 2", 20, max_width=20)  # room for no letter, nor an ellipsis
    fits, chip, right, low, label = drawn
    assert low.ink is not None and low.ink[1] > 60 > low.box[1]
    assert fits.surface == (200, 60) and fits.max_width == 100
    assert fits.ink is not None and fits.box[0] <= fits.ink[0] < fits.ink[2] <= fits.box[2]
    _height, _mark, pad, lead = kit._chip_metrics(20, True)
    assert chip.max_width == 90 - lead - pad  # the pill's room less its marker and padding
    assert (right.max_width, label.text) == (None, kit.ELLIPSIS)
    assert overflowing(drawn) == ["past the right edge", "low", kit.ELLIPSIS]
    # A cached layer is its own surface: text inside it is judged against the layer.
    layer = kit.Canvas.new(40, 30)
    with kit.recording_text() as drawn:
        layer.text((2, 15), "wide word", 20, anchor="lm")
    assert drawn[0].surface == (40, 30) and overflowing(drawn) == ["wide word"]


def test_text_pasted_through_a_solid_is_pillows_colour_fill_pixel_for_pixel() -> None:
    """``kit.fill_mask`` is only a faster ``paste(colour, xy, mask)``: the same pixels in
    every mode the renderers draw in, also where the mask runs off the picture."""
    from PIL import ImageDraw

    mask = Image.new("L", (90, 30), 0)
    ImageDraw.Draw(mask).text((2, 2), "Zoë 12", fill=255)
    mask = mask.resize((180, 60))  # soft edges: every coverage level
    for mode, ground, ink in (("RGB", (243, 240, 232), (0, 114, 178)),
                              ("RGBA", (255, 255, 255, 0), (20, 22, 26, 255)),
                              ("L", 200, 30)):
        for xy in ((10, 10), (-40, -20), (150, 70)):
            expected = Image.new(mode, (200, 100), ground)
            expected.paste(ink, xy, mask)
            got = Image.new(mode, (200, 100), ground)
            kit.fill_mask(got, ink, xy, mask)  # type: ignore[arg-type]
            assert got.tobytes() == expected.tobytes(), (mode, xy)


def test_a_capture_for_scaling_keeps_a_wide_board_as_drawn_and_a_narrow_one_mapped() -> None:
    """The animation scales each board down and maps it onto the GIF's own palette: a board
    wider than the frame is kept as drawn (mapping it onto the kit's palette first would
    only cost time), one that is not scaled is kept mapped, as its PNG would be."""
    wide, narrow = kit.Canvas.new(900, 40), kit.Canvas.new(300, 40)
    for c in (wide, narrow):
        c.text((10, 8), "Bartholomew 田中 · round 3", 20)
    with kit.capturing(scaled_to=480) as kept:
        assert wide.png() == b"" and narrow.png() == b""
    drawn, mapped = kept
    assert drawn.mode == "RGB" and drawn.tobytes() == wide.image.tobytes()
    assert mapped.mode == "P" and mapped.size == narrow.image.size
    with kit.capturing() as kept:
        wide.png()
    assert kept[-1].mode == "P", "without scaled_to every picture is kept as its PNG holds it"
