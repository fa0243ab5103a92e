"""Text helpers shared by the Big City pictures."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from bot.core.i18n import Words
from bot.render import kit
from bot.render.kit import INK, RGB, Canvas

_ = Words("bot.games.bigcity")
_n = _.plural

# -- text helpers ------------------------------------------------------------------------


def _inline(c: Canvas, x: float, y: float, parts: Sequence[tuple[str, Any]], size: int,
            max_x: int, fill: RGB = INK) -> float:
    """A sentence of text and player chips on one line; returns the end x.

    ``parts`` are ("text", str), ("bold", str) or ("chip", (name, style, fallback)). The
    words show whole where they can; the chips share the room that is left, and text that
    still does not fit is cut with an ellipsis.
    """
    fixed = sum(kit.text_width(kit.prepare(v, size, k == "bold"), size, k == "bold")
                for k, v in parts if k != "chip")
    chips = [v for k, v in parts if k == "chip"]
    room = int(max_x - x - fixed - 10 * len(chips))
    widths = iter(kit.share_width([kit.chip_width(n, size, True, f) for n, _s, f in chips],
                                  max(room, size * 3 * len(chips)), least=size * 3))
    for kind, value in parts:
        if x >= max_x - size:
            break
        if kind == "chip":
            name, style, fallback = value
            box = c.chip((x, y), name, style, size, anchor="lm",
                         max_width=min(next(widths), int(max_x - x)), fallback=fallback)
            x = box[2] + 8
        else:
            box = c.text((x, y), value, size, bold=kind == "bold", anchor="lm", fill=fill,
                         max_width=int(max_x - x))
            x = box[2]
    return x


def _join_numbers(values: Iterable[Any]) -> str:
    return ", ".join(str(v) for v in values)


def _listing(values: Iterable[Any], last: str = "and") -> str:
    """"3", "3 and 5", "3, 5 and 6" (or "3 or 5")."""
    words = [str(v) for v in values]
    if len(words) <= 1:
        return "".join(words)
    if last == "or":
        return _("{first} or {last}", first=", ".join(words[:-1]), last=words[-1])
    return _("{first} and {last}", first=", ".join(words[:-1]), last=words[-1])


def _hoods(values: Sequence[Any], last: str = "and") -> str:
    """"neighborhood 3", "neighborhoods 3 and 5"."""
    unique = list(dict.fromkeys(values))
    return _n("neighborhood {numbers}", "neighborhoods {numbers}", len(unique),
              numbers=_listing(unique, last))


def _marked(sentence: str) -> list[tuple[str, Any]]:
    """A sentence with **bold** parts as ``_inline``'s parts: a translation keeps its
    bold words where its language puts them."""
    parts: list[tuple[str, Any]] = []
    for i, piece in enumerate(sentence.split("**")):
        if piece:
            parts.append(("bold" if i % 2 else "text", piece))
    return parts


def _wrapped(parts: Sequence[tuple[str, Any]], size: int, width: int) -> list[list[tuple[str, Any]]]:
    """``parts`` as lines for ``_inline``: one line where its words fit beside a chip of
    at least 3 × ``size`` (``_inline`` shortens names, never words, there), else word by
    word onto as many lines as they need, each chip whole on its line."""
    words = sum(kit.text_width(kit.prepare(v, size, k == "bold"), size, k == "bold")
                for k, v in parts if k != "chip")
    chips = sum(1 for k, _v in parts if k == "chip")
    if words + chips * (3 * size + 10) <= width:
        return [list(parts)]
    lines: list[list[tuple[str, Any]]] = [[]]
    used = 0.0
    for kind, value in parts:
        if kind == "chip":
            pieces: list[tuple[str, Any]] = [(kind, value)]
        else:
            pieces = [(kind, w) for w in value.split(" ") if w]
        for piece_kind, piece in pieces:
            if piece_kind == "chip":
                name, _style, fallback = piece
                w = min(kit.chip_width(name, size, True, fallback), width // 2) + 8
                text = None
            else:
                text = piece
                w = kit.text_width(kit.prepare(piece + " ", size, piece_kind == "bold"), size,
                                   piece_kind == "bold")
            if lines[-1] and used + w > width:
                lines.append([])
                used = 0
            line = lines[-1]
            if text is not None and line and line[-1][0] == piece_kind:
                line[-1] = (piece_kind, f"{line[-1][1]}{text} ")
            elif text is not None:
                line.append((piece_kind, text + " "))
            else:
                line.append((piece_kind, piece))
            used += w
    return [[(k, v.rstrip() if k != "chip" and i == len(line) - 1 else v)
             for i, (k, v) in enumerate(line)] for line in lines]
