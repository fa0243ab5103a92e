"""Slash commands in the reader's language, through discord.py's ``Translator``.

discord.py asks for every command's and group's name and description, every option's name
and description and every choice's name, in every locale Discord has, when it uploads the
commands; this answers from the catalog of the cog that declares the command, with the
context saying what the words are (``command_name``, ``choice_name``...), and falls back to
every catalog for the choices (discord.py does not say whose a choice is). English and
locales without a catalog get no localisation: Discord then shows the English.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from discord import Locale, app_commands

from bot.core.i18n import (
    ENGLISH,
    PSEUDO,
    TRANSLATED,
    Words,
    catalog_file,
    language_of,
    translated,
    translations,
)

SHARED = "bot"


@functools.cache
def domain_of(module: str | None) -> str | None:
    """The catalog a module's words are in (its ``_ = Words(...)``)."""
    if not module:
        return None
    words = getattr(importlib.import_module(module), "_", None)
    return words.domain if isinstance(words, Words) else None


class CommandWords(app_commands.Translator):
    def __init__(self, domains: Sequence[str]) -> None:
        self.domains = tuple(dict.fromkeys((SHARED, *domains)))

    def fingerprint(self) -> str:
        """What the translations of the commands depend on besides the commands: every
        catalog's text, and this module's own rules (a changed rule changes the digest)."""
        digest = hashlib.sha256(Path(__file__).read_bytes())
        for domain in self.domains:
            for language in TRANSLATED:
                with contextlib.suppress(FileNotFoundError, ModuleNotFoundError):
                    digest.update(catalog_file(domain, language).read_bytes())
        return digest.hexdigest()

    async def translate(self, string: app_commands.locale_str, locale: Locale,
                        context: app_commands.TranslationContext[Any, Any]) -> str | None:
        language = language_of(locale)
        if language in (ENGLISH, PSEUDO):
            return None
        where = context.location.name
        owner = _owner(context.data)
        for domain in (owner, *self.domains) if owner else self.domains:
            if translated(domain, language, string.message, where):
                return translations(domain, language).pgettext(where, string.message)
        return None


def _owner(data: Any) -> str | None:
    command = getattr(data, "command", data)  # a Parameter points at its command
    module = getattr(command, "module", None)
    return domain_of(module) if isinstance(module, str) else None
