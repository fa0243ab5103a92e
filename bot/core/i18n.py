"""Cityhall in its reader's language.

Every sentence a person sees is written in English in the code, marked for translation, and
looked up at the moment it is said in a gettext catalog: one ``.po`` file per language in a
``locale/`` folder beside the code that says it (``bot/locale`` for what all games share,
``bot/games/<game>/locale`` for a game's own words), so translators edit them with the
standard tools (Poedit, Weblate, Lokalize) and ``scripts/i18n.py`` keeps them in step
with the code. Babel reads the catalogs and supplies CLDR's plural rules and number formats.

A module binds its catalog once and marks sentences with it::

    _ = Words("bot.games.cityscape")
    _n, _l = _.plural, _.lazy

    _("It is {name}'s turn.", name=...)          # said now, in the current language
    _n("{n} point", "{n} points", n)             # CLDR's plural rules: 0 Punkte, 1 Punkt
    _l("The game is over.")                      # said later: engines, module constants

Which language is "current" is a context variable (``speaking``): the bot sets the clicking
user's language around a click and the server's around anything it posts publicly, and the
render workers set the language a picture was asked for. Engines stay free of I/O and of
languages: they raise and return ``Text`` values (``_l``), which become words only when the
cog turns them into a string.

``en-XA`` is a pseudo-locale for testing: every letter accented and every sentence about
40 % longer, so English left behind by accident and text that does not fit both show.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import gettext
import io
import re
import threading
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from babel import Locale
from babel.dates import format_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

ENGLISH = "en"
PSEUDO = "en-XA"

# The languages Cityhall speaks, by their code (the catalogs' file names) and their own name.
LANGUAGES: Mapping[str, str] = {
    "en": "English",
    "de": "Deutsch",
    "es": "Español",
    "fr": "Français",
    "pt-BR": "Português (Brasil)",
}
TRANSLATED = tuple(code for code in LANGUAGES if code != ENGLISH)

_current: ContextVar[str] = ContextVar("cityhall_language", default=ENGLISH)


def language_of(locale: object) -> str:
    """The language Cityhall speaks to a Discord locale (``interaction.locale``,
    ``guild_locale``, a stored setting): ``es-ES`` and ``es-419`` both Spanish, every
    English and every locale without a catalog English."""
    code = str(getattr(locale, "value", locale) or "")
    if code == PSEUDO:
        return PSEUDO
    if code in LANGUAGES:
        return code
    base = code.split("-")[0].lower()
    if base == "pt":
        return "pt-BR"  # Discord has one Portuguese, Brazil's
    return base if base in LANGUAGES else ENGLISH


def current() -> str:
    return _current.get()


@contextlib.contextmanager
def speaking(language: str) -> Iterator[str]:
    """Say everything inside in ``language`` (a code from ``language_of``)."""
    token = _current.set(language)
    try:
        yield language
    finally:
        _current.reset(token)


def cldr(language: str) -> Locale:
    """Babel's locale for plural rules and number formats."""
    return Locale.parse(ENGLISH if language == PSEUDO else language.replace("-", "_"))


def number(value: float, language: str | None = None) -> str:
    """``1234.5`` as the reader writes it: 1,234.5 · 1.234,5 · 1 234,5."""
    if type(value) is int and -1000 < value < 1000:
        # Every language Cityhall speaks writes a whole number below a thousand as its
        # digits; scores and counts are almost all of those, and Babel takes ~20 µs each.
        return str(value)
    return _formatted(value, language or current())


@functools.lru_cache(maxsize=4096)
def _formatted(value: float, language: str) -> str:
    return format_decimal(value, locale=cldr(language))


def day(at: float) -> str:
    """A day as the reader writes it ("Nov 29, 2026", "29.11.2026"); UTC."""
    return format_date(dt.datetime.fromtimestamp(at, dt.UTC).date(), format="medium",
                       locale=cldr(current()))


def average_score(value: float) -> str:
    """An average score with one decimal where it has one: 71.5, 71,5, 80."""
    rounded = round(value, 1)
    return number(int(rounded)) if rounded == int(rounded) else number(rounded)


# -- catalogs ----------------------------------------------------------------------------


def catalog_folder(domain: str) -> Path:
    """Where a domain's catalogs live: the ``locale`` folder of the package it names."""
    folder = files(domain).joinpath("locale")
    if not isinstance(folder, Path):
        raise RuntimeError(f"Cityhall's catalogs ({domain}) must be installed as files")
    return folder


def catalog_file(domain: str, language: str) -> Path:
    return catalog_folder(domain) / f"{language.replace('-', '_')}.po"


_loaded: dict[tuple[str, str], gettext.NullTranslations] = {}
_known: dict[tuple[str, str], frozenset[tuple[str | None, str]]] = {}
_loading = threading.Lock()


def translations(domain: str, language: str) -> gettext.NullTranslations:
    """A domain's catalog in a language, read once (and compiled in memory: the ``.po``
    files are the only copy, so nothing compiled can fall out of step with them)."""
    key = (domain, language)
    found = _loaded.get(key)
    if found is not None:
        return found
    with _loading:
        found = _loaded.get(key)
        if found is None:
            found, _known[key] = _read(domain, language)
            _loaded[key] = found
    return found


def translated(domain: str, language: str, message: str, context: str | None = None) -> bool:
    """Whether the catalog has a translation of ``message`` (which may read the same as the
    English: "Rio de Janeiro", a command called "stats")."""
    translations(domain, language)
    return (context, message) in _known[(domain, language)]


def _read(domain: str, language: str) -> tuple[gettext.NullTranslations,
                                                 frozenset[tuple[str | None, str]]]:
    if language in (ENGLISH, PSEUDO):
        return gettext.NullTranslations(), frozenset()
    try:
        path = catalog_file(domain, language)
    except ModuleNotFoundError:
        path = None  # no such package: a sentence is said in English rather than not at all
    if path is None or not path.exists():
        return gettext.NullTranslations(), frozenset()
    with path.open("rb") as po:
        catalog = read_po(po, locale=language.replace("-", "_"), domain=domain)
    known = frozenset((m.context, m.id if isinstance(m.id, str) else m.id[0])
                      for m in catalog if m.id and m.string and not m.fuzzy)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled), known


# -- the pseudo-locale -------------------------------------------------------------------

_ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "àƀçđéƒĝĥíĵķłɱñöƥʠŕšŧüʋŵẋýžÀƁÇĐÉƑĜĤÍĴĶŁṀÑÖƤǪŔŠŦÜṼŴẊÝŽ")
# Left as they are: {placeholders}, Discord's <@mentions>, <t:timestamps> and <:emoji:>,
# **markdown** and `code` marks are not letters anyway.
_KEEP = re.compile(r"\{[^{}]*\}|<[^<>\s]*>|https?://\S+")
# Greek, so that the padding is told apart from the accented sentence (tests read it back).
_PADDING = "λόρεμ ιψσυμ δολορ σιτ αμετ κονσεκτετυρ αδιπισκινγ ελιτ σεδ δο ειυσμοδ τεμπορ"


def accented(text: str) -> str:
    """Every ASCII letter of ``text`` accented, as the pseudo-locale writes it."""
    return text.translate(_ACCENTED)


def pseudo(text: str) -> str:
    """English made to look foreign and about 40 % longer: ``[Ŧĥé ĝàɱé íš ôʋéŕ. ĺôŕéɱ]``."""
    if not text.strip():
        return text
    parts: list[str] = []
    last = 0
    for kept in _KEEP.finditer(text):
        parts.append(text[last:kept.start()].translate(_ACCENTED))
        parts.append(kept.group())
        last = kept.end()
    parts.append(text[last:].translate(_ACCENTED))
    body = "".join(parts)
    # Padding goes before trailing line breaks and after a final full stop, so a sentence
    # keeps its shape: "[Ŵàíŧ. λόρεμ]".
    stripped = body.rstrip("\n")
    extra = max(1, round(len(_KEEP.sub("", text)) * 0.4) - 2)
    pad = _PADDING[:extra].rstrip()
    return f"[{stripped} {pad}]" + body[len(stripped):] if pad else f"[{stripped}]"


# -- saying things -----------------------------------------------------------------------


class _Number:
    """A number in a sentence, written with the reader's separators (``{n:d}`` or any
    explicit format keeps Python's). Wrapping the values, rather than overriding
    ``string.Formatter``, keeps the formatting itself in C: a click says dozens of
    sentences."""

    __slots__ = ("language", "value")

    def __init__(self, value: float, language: str) -> None:
        self.value, self.language = value, language

    def __str__(self) -> str:  # ``{n!s}``, as str.format would say it
        return str(self.value)

    def __repr__(self) -> str:  # ``{n!r}``
        return repr(self.value)

    def __format__(self, format_spec: str) -> str:
        if not format_spec:
            return number(self.value, self.language)
        return format(self.value, format_spec)


def _spoken(params: Mapping[str, Any], language: str) -> dict[str, Any]:
    return {key: (str(value) if isinstance(value, Text) else
                  _Number(value, language)
                  if isinstance(value, int | float) and not isinstance(value, bool) else value)
            for key, value in params.items()}


def _say(domain: str, singular: str, plural: str | None, count: int | None,
         params: Mapping[str, Any], context: str | None = None) -> str:
    language = current()
    catalog = translations(domain, language)
    if plural is None:
        text = catalog.pgettext(context, singular) if context else catalog.gettext(singular)
    else:
        assert count is not None
        text = (catalog.npgettext(context, singular, plural, count) if context
                else catalog.ngettext(singular, plural, count))
    if language == PSEUDO:
        text = pseudo(text)
    if not params:
        return text
    return text.format_map(_spoken(params, language))


@dataclass(frozen=True)
class Text:
    """A sentence to be said later, in whatever language is current then (engines' refusals,
    events, module-level constants). ``str()`` says it; it pickles to the render workers."""

    domain: str
    message: str
    plural: str | None = None
    count: int | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    context: str | None = None

    def __str__(self) -> str:
        return _say(self.domain, self.message, self.plural, self.count, self.params,
                    self.context)

    def __add__(self, other: object) -> str:
        return str(self) + str(other)

    def __radd__(self, other: object) -> str:
        return str(other) + str(self)


class Words:
    """One catalog's words: ``_ = Words("bot.games.cities")``, then ``_("...")``."""

    def __init__(self, domain: str) -> None:
        self.domain = domain

    def __call__(self, message: str, /, **params: Any) -> str:
        return _say(self.domain, message, None, None, params)

    def plural(self, singular: str, plural: str, count: int, /, **params: Any) -> str:
        """The form for ``count`` (as ``n`` in the sentence unless given otherwise)."""
        params.setdefault("n", count)
        return _say(self.domain, singular, plural, count, params)

    def lazy(self, message: str, /, **params: Any) -> Text:
        return Text(self.domain, message, params=params)

    def lazy_plural(self, singular: str, plural: str, count: int, /, **params: Any) -> Text:
        params.setdefault("n", count)
        return Text(self.domain, singular, plural, count, params)

    def context(self, context: str, message: str, /, **params: Any) -> str:
        """A word whose translation depends on where it is used (``pgettext``)."""
        return _say(self.domain, message, None, None, params, context)

    def in_language(self, language: str, message: str, /, **params: Any) -> str:
        with speaking(language):
            return self(message, **params)


def say(value: object) -> str:
    """A ``Text`` or a plain string as words in the current language."""
    return str(value)
