"""Right-to-left names in left-to-right pictures: visual order and Arabic letter forms.

Pillow's layout draws characters in the order it is given them. With libraqm it reorders
and shapes by itself, but only within one call, and a name whose Hebrew letters are drawn
in one font and its digits in another is several calls. So the order of runs is decided
here for every name, by a small part of the Unicode Bidirectional Algorithm that is
enough for a single line of a name: the paragraph takes the direction of its first strong
letter, numbers read left to right inside right-to-left text, and spaces and punctuation
take the direction of the letters around them. Explicit embeddings and isolates are not
followed (the kit drops those invisible characters anyway). One addition: the ellipsis
that ends a shortened string belongs to the words it cut, so in a left-to-right sentence
a cut Arabic name shows its ellipsis at its own left end, where its reader stops, not
after its first word.

Without libraqm, Arabic letters are also given their joined forms here from Unicode's
presentation forms (which the bundled Noto Sans Arabic maps), lam-alef ligatures
included, so a name is still drawn joined and from right to left.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache

# Brackets look the other way round in right-to-left text (Unicode's Bidi_Mirrored).
_MIRROR = dict(zip("()[]{}<>«»‹›", ")(][}{><»«›‹", strict=True))

ELLIPSIS = "…"  # what the kit ends a shortened string with (kit.ELLIPSIS)
_ALEFS = "\u0622\u0623\u0625\u0627"
_LAM = "\u0644"
_TATWEEL = "\u0640"


def has_rtl(text: str) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in text)


def mirror(text: str) -> str:
    return "".join(_MIRROR.get(c, c) for c in text)


def _is_mark(char: str) -> bool:
    return unicodedata.category(char)[0] == "M"


def _clusters(text: str) -> list[str]:
    """A letter with the marks that follow it: they move together when text is reversed."""
    out: list[str] = []
    for char in text:
        if out and _is_mark(char):
            out[-1] += char
        else:
            out.append(char)
    return out


def reverse_clusters(text: str) -> str:
    return "".join(reversed(_clusters(text)))


def levels(text: str) -> list[int]:
    """Embedding level of each character: even reads left to right, odd right to left."""
    kinds: list[str] = []
    last = "L"
    for char in text:
        b = unicodedata.bidirectional(char)
        if b in ("R", "AL"):
            kind = "R"
        elif b == "L":
            kind = "L"
        elif b in ("EN", "AN"):
            kind = "D" if last == "R" else "L"  # a number after Latin is just Latin
        elif b == "NSM" and kinds:
            kind = kinds[-1]
        else:
            kind = "N"
        if kind in ("L", "R"):
            last = kind
        kinds.append(kind)
    if text.endswith(ELLIPSIS) and len(kinds) > 1:
        # The cut mark reads as part of the run it cut (the kit cuts at the logical end).
        kinds[-1] = next((k for k in reversed(kinds[:-1]) if k != "N"), "N")
    rtl = next((k == "R" for k in kinds if k in ("L", "R")), False)
    base = 1 if rtl else 0
    strong = {"L": 2 if rtl else 0, "R": 1, "D": 2}
    # For the neutrals between them, numbers count as right-to-left (UBA rule N1).
    side = {"L": "L", "R": "R", "D": "R"}
    edge = "R" if rtl else "L"
    result = [0] * len(kinds)
    for i, kind in enumerate(kinds):
        if kind != "N":
            result[i] = strong[kind]
            continue
        before = next((side[k] for k in reversed(kinds[:i]) if k != "N"), edge)
        after = next((side[k] for k in kinds[i + 1:] if k != "N"), edge)
        result[i] = (1 if before == "R" else strong["L"]) if before == after else base
    return result


def visual_runs(text: str, faces: Sequence[int]) -> list[tuple[list[tuple[str, int]], int]]:
    """``text`` (each character with its face) in visual order, cut where the level
    changes: (characters with faces, level) pieces, left to right. Odd-level pieces are
    already reversed, cluster by cluster, but not yet mirrored."""
    lv = levels(text)
    clusters: list[tuple[list[tuple[str, int]], int]] = []
    for i, char in enumerate(text):
        if clusters and _is_mark(char):
            clusters[-1][0].append((char, faces[i]))
        else:
            clusters.append(([(char, faces[i])], lv[i]))
    top = max((level for _c, level in clusters), default=0)
    for floor in range(top, 0, -1):  # UBA rule L2: reverse every run at or above a level
        i = 0
        while i < len(clusters):
            if clusters[i][1] < floor:
                i += 1
                continue
            j = i
            while j < len(clusters) and clusters[j][1] >= floor:
                j += 1
            clusters[i:j] = clusters[i:j][::-1]
            i = j
    pieces: list[tuple[list[tuple[str, int]], int]] = []
    for chars, level in clusters:
        if pieces and pieces[-1][1] == level:
            pieces[-1][0].extend(chars)
        else:
            pieces.append((list(chars), level))
    return pieces


# -- Arabic letter forms without a shaping engine -----------------------------------------


@lru_cache(maxsize=1)
def _forms() -> tuple[dict[str, dict[str, str]], dict[tuple[str, str], dict[str, str]]]:
    """Letter -> {isolated, final, initial, medial} presentation form, and the same for
    lam-alef pairs, read from Unicode's decompositions of the presentation form blocks."""
    letters: dict[str, dict[str, str]] = {}
    pairs: dict[tuple[str, str], dict[str, str]] = {}
    for code in (*range(0xFB50, 0xFE00), *range(0xFE70, 0xFF00)):
        tag, _, rest = unicodedata.decomposition(chr(code)).partition(" ")
        if tag not in ("<isolated>", "<final>", "<initial>", "<medial>") or not rest:
            continue
        parts = [chr(int(p, 16)) for p in rest.split()]
        form = tag.strip("<>")
        if len(parts) == 1:
            letters.setdefault(parts[0], {}).setdefault(form, chr(code))
        elif len(parts) == 2 and parts[0] == _LAM and parts[1] in _ALEFS:
            pairs.setdefault((parts[0], parts[1]), {}).setdefault(form, chr(code))
    return letters, pairs


def _joins_forward(char: str) -> bool:
    """Whether ``char`` connects to the letter after it (dual-joining or tatweel)."""
    forms = _forms()[0].get(char, {})
    return char == _TATWEEL or "initial" in forms or "medial" in forms


def _joins_back(char: str) -> bool:
    return char == _TATWEEL or "final" in _forms()[0].get(char, {})


def shape_arabic(text: str, faces: Sequence[int]) -> tuple[str, list[int]]:
    """``text`` with Arabic letters in their joined presentation forms (logical order),
    and the faces of what is left (a lam-alef ligature is one character for two)."""
    letters, pairs = _forms()
    chars, out_faces = list(text), list(faces)

    def neighbour(i: int, step: int) -> str | None:
        j = i + step
        while 0 <= j < len(chars) and _is_mark(chars[j]):
            j += step
        return chars[j] if 0 <= j < len(chars) else None

    out: list[str] = []
    shaped_faces: list[int] = []
    i = 0
    while i < len(chars):
        char = chars[i]
        before = neighbour(i, -1)
        joins_before = before is not None and _joins_forward(before) and _joins_back(char)
        after = chars[i + 1] if i + 1 < len(chars) else None
        if char == _LAM and after is not None and (char, after) in pairs:
            ligature = pairs[(char, after)]
            form = "final" if joins_before else "isolated"
            out.append(ligature.get(form, ligature.get("isolated", char + after)))
            shaped_faces.append(out_faces[i])
            i += 2
            continue
        forms = letters.get(char)
        if forms:
            nxt = neighbour(i, 1)
            joins_after = nxt is not None and _joins_forward(char) and _joins_back(nxt)
            form = {(True, True): "medial", (True, False): "final",
                    (False, True): "initial"}.get((joins_before, joins_after), "isolated")
            char = forms.get(form) or forms.get("isolated") or char
        out.append(char)
        shaped_faces.append(out_faces[i])
        i += 1
    return "".join(out), shaped_faces
