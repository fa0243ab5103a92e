"""Every name draws: players' names in any of the scripts Discord members write them in
are drawn as real glyphs in the pictures, never as boxes or as "Player N"."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from PIL import Image, ImageChops, ImageDraw

from bot.core.records import Match, Seat
from bot.games import ENGINES as GAME_ENGINES
from bot.games import GAMES
from bot.render import bidi, kit
from bot.render.fonts import EMOJI, PRIMARY, SHAPING, clean_text, face_of, font, layout
from bot.ui.game import GameAdapter, display_names, seat_name
from cogs.cityscape import CityscapeAdapter
from tests.pictures import overflowing

NAMES = {
    "Latin": "Zoë Müller",
    "Cyrillic": "Иван Петров",
    "Greek": "Νίκος",
    "Chinese": "王小明",
    "Japanese": "さくら田中",
    "Korean": "김민준",
    "Thai": "สมชาย",
    "Arabic": "محمد علي",
    "Hebrew": "שלום כהן",
    "Devanagari": "राहुल शर्मा",
}
ENGINES = [True, False] if SHAPING else [False]  # with libraqm and Pillow's basic layout
SIZE = 28


def _mask(text: str, shaping: bool = SHAPING, bold: bool = True) -> Image.Image:
    return kit._text_mask(text, SIZE, bold, shaping)[0]


def _box_glyph(face: int, bold: bool = True) -> Image.Image:
    """What a face draws for a character it lacks: its .notdef box ("tofu")."""
    missing = "\ue000"  # private use: no bundled face maps it
    ttf = font(SIZE, bold, face, False)
    x0, y0, x1, y1 = (int(v) for v in ttf.getbbox(missing, anchor="ls"))
    mask = Image.new("L", (x1 - x0 + 1, y1 - y0 + 1), 0)
    ImageDraw.Draw(mask).text((-x0, -y0), missing, font=ttf, fill=255, anchor="ls")
    return mask


def _same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and ImageChops.difference(a, b).getbbox() is None


def _letters(name: str) -> Iterator[str]:
    """The name's characters that draw on their own (spaces and marks do not)."""
    for cluster in bidi.reverse_clusters(bidi.reverse_clusters(name)).split(" "):
        yield from (c for c in cluster if not c.isspace() and not bidi._is_mark(c))


@pytest.mark.parametrize("script", sorted(NAMES))
def test_a_name_in_each_script_is_drawn_as_itself(script: str) -> None:
    name = NAMES[script]
    canvas = kit.Canvas.new(500, 60)
    with kit.recording_text() as drawn:
        canvas.chip((10, 10), name, kit.player_style(0), SIZE, fallback="Player 1")
    assert [d.text for d in drawn] == [name]  # not "Player 1", nothing dropped or cut
    assert canvas.image.getbbox() is not None
    boxes = [_box_glyph(face) for face in range(EMOJI + 1)]
    drawn_letters = {}
    for letter in _letters(name):
        assert face_of(letter, True) is not None, letter
        glyph = _mask(letter)
        assert glyph.getbbox() is not None, f"{letter!r} drew nothing"
        assert not any(_same(glyph, box) for box in boxes), f"{letter!r} drew a box"
        drawn_letters[letter] = glyph
    # Different letters look different: a font drawing one shape for all would fail here.
    shapes = list(drawn_letters.values())
    assert all(not _same(a, b) for i, a in enumerate(shapes) for b in shapes[i + 1:])


@pytest.mark.parametrize("shaping", ENGINES)
@pytest.mark.parametrize("script", ["Arabic", "Hebrew", "Chinese", "Devanagari", "Thai"])
def test_both_layouts_draw_glyphs(script: str, shaping: bool) -> None:
    """Without libraqm (Pillow built without FriBiDi) names still draw, in their fonts."""
    name = NAMES[script]
    runs = layout(name, True, shaping)
    assert all(run.face != PRIMARY for run in runs if run.text.strip())
    mask = _mask(name, shaping)
    ink = sum(1 for v in mask.tobytes() if v > 128)
    assert ink > 40 * len(name.replace(" ", "")) // 3


@pytest.mark.parametrize("shaping", ENGINES)
def test_hebrew_reads_right_to_left(shaping: bool) -> None:
    """The first letter of a Hebrew name is drawn rightmost, whatever the layout engine."""
    (run,) = layout("אבג", True, shaping)
    face = font(SIZE, True, run.face, False)
    expected = Image.new("L", (200, 60), 0)
    ImageDraw.Draw(expected).text((10, 40), "גבא", font=face, fill=255, anchor="ls")
    got = Image.new("L", (200, 60), 0)
    mask, dx, dy = kit._text_mask("אבג", SIZE, True, shaping)
    got.paste(mask, (10 + dx, 40 + dy))
    diff = ImageChops.difference(expected, got)
    assert sum(diff.tobytes()) < 0.02 * 255 * sum(1 for v in got.tobytes() if v)


def _gaps(mask: Image.Image) -> int:
    """Empty pixel columns between the first and the last inked one."""
    columns = [any(mask.getpixel((x, y)) > 96 for y in range(mask.height))  # type: ignore[operator]
               for x in range(mask.width)]
    inked = [x for x, ink in enumerate(columns) if ink]
    return sum(1 for x in range(inked[0], inked[-1]) if not columns[x])


@pytest.mark.parametrize("shaping", ENGINES)
def test_arabic_letters_are_joined(shaping: bool) -> None:
    """Arabic letters of a word connect, as written: no gap between them. Letters laid
    side by side unjoined (isolated forms) leave gaps."""
    assert _gaps(_mask("محمد", shaping)) == 0
    assert _gaps(_mask("م ح م د", shaping)) > 0


def test_mixed_scripts_draw_each_run_in_a_face_that_has_it() -> None:
    runs = layout("Ann 田中 (2)", True, SHAPING)
    assert [(r.text, r.face) for r in runs][:2] == [("Ann ", PRIMARY),
                                                    ("田中 ", face_of("田", True))]
    rtl = layout("علي (2)", True, False)  # right-to-left: the number comes out on the left
    assert "".join(r.text for r in rtl).startswith("(2) ")


def test_emoji_are_drawn_or_dropped_never_boxes() -> None:
    """Emoji are drawn (sequences: test_render_emoji.py); what no font has, and a
    regional letter or a skin tone left alone, are left out: nothing is ever a box."""
    assert clean_text("Ann 😀🎲", True) == "Ann 😀🎲"
    a, b = kit.Canvas.new(400, 60), kit.Canvas.new(400, 60)
    with kit.recording_text() as drawn:
        a.text((10, 30), "Ann 😀", SIZE, bold=True, anchor="lm")
    b.text((10, 30), "Ann", SIZE, bold=True, anchor="lm")
    assert [d.text for d in drawn] == ["Ann 😀"]
    extra = ImageChops.difference(a.image, b.image).getbbox()
    assert extra is not None and extra[0] >= kit.text_width("Ann ", SIZE, True) + 5
    emoji = _mask("😀")
    assert not any(_same(emoji, _box_glyph(face)) for face in range(EMOJI + 1))
    # A private character, a lone regional letter and a lone skin tone leave no trace.
    c = kit.Canvas.new(400, 60)
    c.text((10, 30), "Ann \ue000\U0001f1eb\U0001f3fd", SIZE, bold=True, anchor="lm")
    assert ImageChops.difference(c.image, b.image).getbbox() is None


@pytest.mark.parametrize("shaping", ENGINES)
def test_a_long_name_in_another_script_still_fits(shaping: bool) -> None:
    name = "王小明" * 12 + " محمد"
    cut = kit.fit_text(name, SIZE, True, 200)
    assert cut.endswith(kit.ELLIPSIS) and cut.startswith("王小明")
    assert kit.text_width(cut, SIZE, True, shaping) <= 200
    canvas = kit.Canvas.new(400, 60)
    box = canvas.chip((10, 10), name, kit.player_style(2), 24, max_width=220)
    assert box[2] - box[0] <= 220
    # A Thai name is never cut between a letter and its vowel sign.
    thai = kit.fit_text("สมชาย" * 20, SIZE, True, 150)
    assert not bidi._is_mark(thai[-2])


# -- shortened names -----------------------------------------------------------------------

MAX = "Maximilian Alexander Hohenberg"
ARABIC = "محمد عبد الرحمن"


def _letters_shown(shown: str) -> int:
    return len(shown.removesuffix(kit.ELLIPSIS).replace(" ", ""))


def test_a_long_name_is_shortened_by_whole_words_then_first_letters() -> None:
    """Where a name does not fit, whole leading words show ("Maximilian…"), and where
    not even the first word does, as many of its first letters as fit ("Maxim…"): never
    a word cut after whole ones, and never fewer letters for more room."""
    full = kit.text_width(MAX, SIZE, True)
    assert kit.fit_name(MAX, SIZE, True, full) == MAX  # the whole name where there is room
    first = "Maximilian"
    shown_before = ""
    for width in range(kit.text_width("M" + kit.ELLIPSIS, SIZE, True), full, 3):
        shown = kit.fit_name(MAX, SIZE, True, width)
        assert kit.text_width(shown, SIZE, True) <= width
        head = shown.removesuffix(kit.ELLIPSIS)
        assert head in ("Maximilian Alexander", first) or first.startswith(head), shown
        if first.startswith(head) and head != first:
            # as many first letters as fit: one more would not (so "M…" only where
            # "Ma…" does not fit either)
            longer = first[:len(head) + 1] + kit.ELLIPSIS
            assert kit.text_width(longer, SIZE, True) > width
        assert _letters_shown(shown) >= _letters_shown(shown_before)
        shown_before = shown
    assert kit.fit_name(MAX, SIZE, True, kit.text_width("Maximilian…", SIZE, True)) == \
        "Maximilian…"
    # A lone first letter is no word to keep: "A very lo…", not "A…".
    assert kit.fit_name("A very long name indeed", SIZE, True, 130).startswith("A ve")
    # Other text is still cut where it stops fitting.
    assert kit.fit_text(MAX, SIZE, True, kit.text_width("Maximilian A…", SIZE, True)) == \
        "Maximilian A…"


def test_chips_show_the_short_form_where_they_are_given_its_width() -> None:
    assert kit.short_name(MAX) == "Maximilian…"
    assert kit.short_name("Bob" + "o" * 40) == "Bob" + "o" * 40  # one word: no short form
    assert kit.short_name("Zoë 🏙️") == "Zoë…"
    first = "Maximilian…"
    c = kit.Canvas.new(600, 60)
    with kit.recording_text() as drawn:
        c.chip((10, 10), MAX, kit.player_style(2), SIZE,
               max_width=kit.chip_width(MAX, SIZE, short=True))
        c.chip((10, 10), MAX, kit.player_style(2), SIZE, max_width=kit.chip_width(MAX, SIZE))
        # a name drawn as text or in a label is shortened alike
        c.text((10, 10), MAX, SIZE, bold=True, max_width=kit.text_width(first, SIZE, True),
               fallback="Player 3")
        c.label((10, 10), MAX, SIZE, max_width=kit.text_width(first, SIZE, True) + SIZE,
                fallback="Player 3")
    assert [d.text for d in drawn] == [first, MAX, first, first]
    # Room is shared so that every chip keeps its short form, even past the total.
    assert kit.share_width([300, 300, 40], 200, least=[120, 80, 40]) == [120, 80, 40]


@pytest.mark.parametrize("shaping", ENGINES)
def test_a_cut_right_to_left_name_keeps_its_first_letters(shaping: bool) -> None:
    """A shortened Arabic name keeps its beginning: its first word is drawn at the right
    end, where its reader starts, and the ellipsis at the left, where the cut is."""
    cut = kit.fit_name(ARABIC, SIZE, True, kit.text_width("محمد عبد…", SIZE, True))
    assert cut == "محمد عبد…"
    assert kit.fit_name(ARABIC, SIZE, True, kit.text_width("محمد…", SIZE, True)) == "محمد…"

    def drawn(text: str, anchor: str, x: int) -> Image.Image:
        image = Image.new("L", (400, 60), 0)
        mask, dx, dy = kit._text_mask(text, SIZE, True, shaping)
        width = kit.text_width(text, SIZE, True, shaping)
        image.paste(mask, (x - (width if anchor == "r" else 0) + dx, 40 + dy))
        return image

    whole = drawn(cut, "l", 10)
    right = 10 + kit.text_width(cut, SIZE, True, shaping)
    ellipsis = kit.text_width(kit.ELLIPSIS, SIZE, True, shaping)
    word = kit.text_width("محمد", SIZE, True, shaping)
    alone = drawn(kit.ELLIPSIS, "l", 10).crop((0, 0, 10 + ellipsis, 60))
    assert _same(whole.crop((0, 0, 10 + ellipsis, 60)), alone)
    # Its right end is the first word (to a pixel or two: widths are rounded up).
    end = whole.crop((right - word + 2, 0, 400, 60))
    misses = [sum(ImageChops.difference(end, drawn("محمد", "r", right + shift).crop(
        (right - word + 2, 0, 400, 60))).tobytes()) for shift in range(-2, 3)]
    assert min(misses) < 0.12 * sum(end.tobytes())  # another word differs by over half
    # In a left-to-right sentence the ellipsis stays with the Arabic words it cut, at
    # their left end, rather than after their first word.
    said = kit.fit_text(f"Round 2 · {ARABIC} builds first", SIZE, True, 330)
    assert said.endswith(kit.ELLIPSIS) and "محمد" in said
    runs = layout(said, True, shaping)
    assert runs[0].face == PRIMARY and runs[1].text.strip() == kit.ELLIPSIS
    assert runs[-1].face == face_of("م", True)


# -- real tables -------------------------------------------------------------------------

CASTS = [
    ["王小明", "محمد علي", "김민준", "สมชาย"],
    ["さくら田中", "שלום כהן", "राहुल शर्मा", "Ann 😀"],
    ["Zoë 🏙️", ARABIC, MAX],
]


def _match(game: str, names: list[str], seed: int = 5, cpu: bool = False) -> Match:
    seats = [Seat(f"cpu{i + 1}" if cpu else f"1234567890123456{i:02d}", n, cpu)
             for i, n in enumerate(names)]
    match = Match(id=1, guild_id=1, channel_id=1, game=game, status="active",
                  host_id=seats[0].id, seats=seats, options={}, seed=seed)
    match.state = GAME_ENGINES[game].new([s.id for s in seats], {}, seed)
    return match


@pytest.mark.parametrize("cast", range(len(CASTS)))
@pytest.mark.parametrize("game", sorted(GAMES))
def test_table_pictures_draw_every_players_name(game: str, cast: int) -> None:
    names = CASTS[cast]
    match = _match(game, names)
    with kit.recording_text() as drawn:
        png = GameAdapter(GAME_ENGINES[game]).render_table(match)
    assert Image.open(io.BytesIO(png)).format == "PNG"
    texts = [d.text for d in drawn]
    for name in names:
        assert any(t == name or (t.endswith(kit.ELLIPSIS) and name.startswith(t[:-1].rstrip()))
                   for t in texts), (name, texts)
    assert not any(t.startswith("Player ") for t in texts)
    assert not overflowing(drawn)


def test_two_players_of_one_name_are_told_apart_in_text_and_picture() -> None:
    match = _match("cityscape", ["Ann", "Ann"], cpu=True)
    assert match.state is not None
    adapter = CityscapeAdapter(GAME_ENGINES["cityscape"])
    engine = adapter.engine
    while engine.view(match.state, None)["phase"] != "building" or \
            engine.view(match.state, None)["turn"] != "cpu2":
        player = engine.to_act(match.state)[0]
        match.state, _events = engine.apply(match.state, player,
                                            GAMES[engine.name].computer.normal(match.state, player))
    assert list(display_names(match).values()) == ["Ann", "Ann (2)"]
    assert seat_name(match, "cpu2") == "Ann (2)"
    assert "Ann (2), it's your turn" in adapter.table_content(match)
    with kit.recording_text() as drawn:
        adapter.render_table(match)
    texts = [d.text for d in drawn]
    assert "Ann (2)" in texts and "Ann" in texts
