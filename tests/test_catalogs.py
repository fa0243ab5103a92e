"""The translation catalogs: nothing a person sees is left in English by accident, a
translation keeps the placeholders its sentence fills in, and every slash command carries
its words in German, Spanish, French and Portuguese within Discord's rules."""

from __future__ import annotations

import re
import string
from typing import Any

import pytest
from babel.messages.pofile import read_po

from bot.core.i18n import TRANSLATED, catalog_file
from tests.scripts import load_script

i18n = load_script("i18n")

# Discord's rules for names (commands, options): lowercase letters of any script, digits,
# - and _, at most 32; descriptions and choice names at most 100 characters.
NAME = re.compile(r"^[-_\w\u0e31-\u0e3a\u0e47-\u0e4e\u0900-\u0903\u093a-\u094f\u0962\u0963]{1,32}$")
# Discord's locales for the four languages (Spanish has two).
LOCALES = {"de": "de", "es-ES": "es", "es-419": "es", "fr": "fr", "pt-BR": "pt-BR"}


@pytest.fixture(scope="module")
def messages() -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = i18n.all_messages()
    return found


def test_every_sentence_and_command_word_is_translated(messages: dict[str, list[Any]]) -> None:
    gaps = i18n.missing(found=messages)
    summary = {f"{domain} {language}": f"{len(keys)}, e.g. {keys[:3]}"
               for (domain, language), keys in gaps.items()}
    assert summary == {}, "run `python scripts/i18n.py extract` and translate these"


def _fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}


def test_a_translation_fills_in_the_same_placeholders(messages: dict[str, list[Any]]) -> None:
    """A translator can move "{name}" but not rename it or lose a brace: the sentence would
    fail, or say less, when it is said."""
    wrong = []
    for domain in messages:
        for language in TRANSLATED:
            with catalog_file(domain, language).open("rb") as po:
                catalog = read_po(po)
            for entry in catalog:
                if not entry.id or not entry.string:
                    continue
                ids = [entry.id] if isinstance(entry.id, str) else list(entry.id)
                said = [entry.string] if isinstance(entry.string, str) else list(entry.string)
                allowed = set().union(*(_fields(i) for i in ids))
                for form in said:
                    try:
                        fields = _fields(form)
                    except ValueError as exc:
                        wrong.append(f"{domain} {language} {form!r}: {exc}")
                        continue
                    # a plural form may leave out the count ("ein Punkt"), never add a field
                    needed = _fields(ids[0]) - {"n"} if len(ids) > 1 else _fields(ids[0])
                    if not fields <= allowed or not needed <= fields:
                        wrong.append(f"{domain} {language}: {ids[0]!r} → {form!r}")
    assert wrong == []


async def test_every_command_carries_its_words_in_the_four_languages() -> None:
    bot = await i18n._command_tree()
    problems: list[str] = []
    try:
        translator = bot.tree.translator
        assert translator is not None
        for command in bot.tree.get_commands():
            payload = await command.get_translated_payload(bot.tree, translator)
            _check(payload, problems, command.name)
    finally:
        await bot.close()
    assert problems == []


def _check(payload: dict[str, Any], problems: list[str], where: str) -> None:
    names = payload.get("name_localizations") or {}
    descriptions = payload.get("description_localizations") or {}
    for locale in LOCALES:
        name = names.get(locale)
        if name is None or not NAME.match(name) or name != name.lower():
            problems.append(f"{where}: name in {locale} is {name!r}")
        if payload.get("description"):
            described = descriptions.get(locale)
            if not described or len(described) > 100:
                problems.append(f"{where}: description in {locale} is {described!r}")
    for option in payload.get("options") or []:
        _check(option, problems, f"{where} {option['name']}")
        for choice in option.get("choices") or []:
            said = choice.get("name_localizations") or {}
            for locale in LOCALES:
                if not said.get(locale):
                    problems.append(f"{where} {option['name']}: choice {choice['name']!r} in "
                                    f"{locale} is missing")
                if len(said.get(locale) or "") > 100:
                    problems.append(f"{where}: choice {said[locale]!r} is too long")

