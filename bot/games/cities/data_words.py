"""Cities' words that live in its data files (city names, achievements, scoring cards,
feature kinds) and the few fixed words of its content (colours, kinds of space), said in
the reader's language.

The data files stay English: they are the rules' single source, and views, events and
stored games carry their English names. ``catalog_words`` lists those names and rules for
``scripts/i18n.py`` (as (message, context) pairs); the functions below say one of them,
now (``str``) or later (``Text``, for engines' refusals and module constants).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from bot.core.i18n import Text, Words

from .content import CONTENT, Feature

_ = Words("bot.games.cities")
DOMAIN = _.domain
_l, _p = _.lazy, _.context

# Contexts: the same English may be a city, an achievement and a card ("Skyline").
CITY, ACHIEVEMENT, ACHIEVEMENT_RULE = "city", "achievement", "achievement rule"
CARD, CARD_RULE, FEATURE = "card", "card rule", "feature"


def catalog_words() -> Iterator[tuple[str, str]]:
    """Every data-file word a player may read, as (message, context)."""
    seen: set[tuple[str, str]] = set()

    def once(pairs: Iterable[tuple[str, str]]) -> Iterator[tuple[str, str]]:
        for pair in pairs:
            if pair not in seen:
                seen.add(pair)
                yield pair

    for city in CONTENT.cities.values():
        yield from once([(city.name, CITY)])
        for a in city.achievements:
            yield from once([(a.display_name, ACHIEVEMENT), (a.text, ACHIEVEMENT_RULE)])
    for card in CONTENT.cards.values():
        yield from once([(card.name, CARD), (card.text, CARD_RULE)])
    for feature in CONTENT.features.values():
        yield from once([(feature.kind, FEATURE)])
        if feature.art:
            yield from once([(feature.art, FEATURE)])


def said(context: str, message: str) -> str:
    """A data word in the current language (``message`` as the data file has it)."""
    return _p(context, message) if message else message


def later(context: str, message: str) -> Text:
    """A data word, said when ``str()`` is called on it."""
    return Text(DOMAIN, message, context=context)


def city_name(name: str) -> str:
    return said(CITY, name)


def feature_name(kind: str, art: str | None = None) -> str:
    """A feature by what its picture shows: a monument by its art, else its kind."""
    return said(FEATURE, art if art and kind == "Monument" else kind)


def feature_label(feature: Feature | None = None, *, kind: str = "", art: str | None = None,
                  lazy: bool = False) -> str | Text:
    """A feature tile as a sentence names it: "Monument (Statue)", "Wild tile", "Ferry"
    (``Feature.label`` in the reader's language)."""
    if feature is not None:
        kind, art = feature.kind, feature.art
    if kind == "Monument":
        if art:
            return (_l("Monument ({art})", art=later(FEATURE, art)) if lazy
                    else _("Monument ({art})", art=said(FEATURE, art)))
        return later(FEATURE, "Monument") if lazy else said(FEATURE, "Monument")
    if kind == "Wild":
        return _l("Wild tile") if lazy else _("Wild tile")
    return later(FEATURE, kind) if lazy else said(FEATURE, kind)


def feature_text(feature: Feature) -> str:
    return str(feature_label(feature))


def colour_word(code: str) -> str:
    """A building piece's colour, as said of a piece ("a red piece", "pieces: red, blue")."""
    words = {"R": _p("piece colour", "red"), "B": _p("piece colour", "blue"),
             "G": _p("piece colour", "green"), "Y": _p("piece colour", "yellow")}
    return words.get(code, code)


def space_word(code: str) -> str:
    """A kind of space of a neighbourhood ("red city space", "park", "water")."""
    words = {"R": _("red city space"), "B": _("blue city space"),
             "G": _("green city space"), "Y": _("yellow city space"),
             "P": _p("space", "park"), "W": _p("space", "water")}
    return words.get(code, _("space"))


def colour_later(code: str) -> Text:
    """``colour_word``, said later (engines' refusals)."""
    return later("piece colour", {"R": "red", "B": "blue", "G": "green", "Y": "yellow"}[code])


def row_word(row: str, many: bool = False) -> Text:
    """What a board row holds, one or several ("scoring card", "feature tiles"), said
    later: engines' refusals name rows."""
    if many:
        return {"cards": _l("scoring cards"), "tiles": _l("city tiles"),
                "features": _l("feature tiles"), "pieces": _l("building pieces")}[row]
    return {"cards": _l("scoring card"), "tiles": _l("city tile"),
            "features": _l("feature tile"), "pieces": _l("building piece")}[row]


@dataclass(frozen=True)
class Listed:
    """Words joined into one placeholder, each said when the sentence is (``str``)."""

    items: tuple[object, ...]
    sep: str = ", "

    def __str__(self) -> str:
        return self.sep.join(str(item) for item in self.items)
