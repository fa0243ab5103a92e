"""What the bot said through the fake Discord, for the language tests: every content, embed,
button, menu and alt text of every message it posted or edited, public or private."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from bot.core.i18n import PSEUDO, accented
from fakediscord import FakeDiscord
from fakediscord.components import iter_components
from fakediscord.models import FakeMessage


def unpseudo(text: str) -> str:
    """Pseudo-locale text as the English it was made from, for checks written in English:
    ``[Ŧĥé ĝàɱé íš öʋéŕ. λόρεμ]`` reads ``The game is over.`` (its brackets and Greek
    padding gone, its letters plain). English passes through unchanged."""
    if not _PAD.search(text) and not text.startswith("["):
        return text  # English (whose own é and ü stay as they are)
    plain = text.translate(_PLAIN)
    return _PAD.sub("", plain).replace("[", "").replace("]", "")


_PLAIN = str.maketrans(accented(_ASCII := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
                       _ASCII)
# the padding before a pseudo sentence's closing bracket
_PAD = re.compile(r" [\u0370-\u03ff][\u0370-\u03ff ]*(?=\])")


def speak(fake: FakeDiscord, language: str, users: Iterable[dict[str, Any]]) -> None:
    """The fake's server and ``users`` set to ``language`` (a Discord locale)."""
    for guild in fake.guilds.values():
        guild.locale = language
    for user in users:
        fake.set_locale(user, language)


__all__ = ["PSEUDO", "Said", "english_left", "said_by_bot", "said_in", "speak", "unpseudo"]


@dataclass(frozen=True)
class Said:
    where: str  # "content", "button", "alt text"...
    text: str
    ephemeral: bool


def said_by_bot(fake: FakeDiscord) -> Iterator[Said]:
    """Every string a person could read in the bot's messages, each version of each."""
    for message in fake.messages.values():
        if message.author.get("id") != fake.application_id and not message.interaction_id:
            continue
        yield from said_in(message)


def said_in(message: FakeMessage) -> Iterator[Said]:
    """Every string of every version of one message."""
    versions: list[dict[str, Any]] = [*message.history, message.snapshot()]
    for version in versions:
        yield from _said(version, message.ephemeral)


def _said(version: dict[str, Any], ephemeral: bool) -> Iterator[Said]:
    if version.get("content"):
        yield Said("content", version["content"], ephemeral)
    for embed in version.get("embeds") or []:
        for key in ("title", "description"):
            if embed.get(key):
                yield Said(f"embed {key}", embed[key], ephemeral)
        for embed_field in embed.get("fields") or []:
            yield Said("embed field", f"{embed_field['name']}\n{embed_field['value']}", ephemeral)
        if (embed.get("footer") or {}).get("text"):
            yield Said("embed footer", embed["footer"]["text"], ephemeral)
    for component in iter_components(version.get("components") or []):
        for key in ("label", "placeholder"):
            if component.get(key):
                yield Said(key, component[key], ephemeral)
        for option in component.get("options") or []:
            yield Said("menu option", option.get("label", ""), ephemeral)
            if option.get("description"):
                yield Said("menu option", option["description"], ephemeral)
    for attachment in version.get("attachments") or []:
        described = attachment[2] if isinstance(attachment, tuple) else \
            getattr(attachment, "description", None)
        if described:
            yield Said("alt text", described, ephemeral)


# Discord's marks and the things a sentence names but does not say: mentions, channels,
# timestamps, custom emoji, links.
_MARKS = re.compile(r"<[@#][!&]?\d+>|<t:\d+(:\w)?>|<a?:\w+:\d+>|https?://\S+"
                    # the letters a picture marks choices with ("AB", "CL"), lots ("D3")
                    r"|\b[A-Z]{1,3}\d?\b")
_ENGLISH = re.compile(r"[A-Za-z]{2,}")


def english_left(said: Iterable[Said], names: Iterable[str] = ()) -> list[str]:
    """In the pseudo-locale every letter of a catalog sentence is accented, so a run of
    plain ASCII letters is English that skipped the catalogs, unless it is one of
    ``names`` (players, games, cities: names are not translated)."""
    allowed = sorted(set(names), key=len, reverse=True)
    left = []
    for item in said:
        text = _MARKS.sub(" ", item.text)
        for name in allowed:
            text = text.replace(name, " ")
        words = _ENGLISH.findall(text)
        if words:
            left.append(f"{item.where}: {item.text!r} ({', '.join(words[:4])})")
    return sorted(set(left))
