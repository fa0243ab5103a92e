"""Keep the translation catalogs in step with the code.

    python scripts/i18n.py extract   # every marked sentence and every slash command's
                                     # words into each catalog (new ones untranslated)
    python scripts/i18n.py check     # what is missing or untranslated, per catalog
    ... --domain bot.games.cities    # one catalog only

A module says which catalog its words go to with ``_ = Words("<package>")``; its catalogs
are ``<package>/locale/<language>.po``, with a ``messages.pot`` template beside them for the
translators' tools. Slash commands' names, descriptions, options and choices come from the
command tree itself, filed under their cog's catalog with a context saying what they are
(``command_name``, ``parameter_description``...), because Discord's rules for them differ
(names: lowercase, one word, 32 characters).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.core.i18n import TRANSLATED, catalog_file, catalog_folder  # noqa: E402

SOURCES = ("bot", "cogs")
KEYWORDS: dict[str, Any] = {
    "_": None,
    "_n": (1, 2),
    "_l": None,
    "_ln": (1, 2),
    "_p": ((1, "c"), 2),
}
COMMENT_TAGS = ("TRANSLATORS:",)
SHARED = "bot"


def declared_domain(path: Path) -> str | None:
    """The catalog a module's ``_`` says its words in (``_ = Words("...")``, or a ``_``
    imported from a module that has one)."""
    import importlib

    from bot.core.i18n import Words

    parts = path.relative_to(ROOT).with_suffix("").parts
    name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    words = getattr(importlib.import_module(name), "_", None)
    return words.domain if isinstance(words, Words) else None


def modules(roots: Iterable[str] = SOURCES) -> Iterator[Path]:
    for root in roots:
        yield from sorted((ROOT / root).rglob("*.py"))


Message = tuple[str | tuple[str, ...], str | None, str, int, list[str]]


def code_messages(roots: Iterable[str] = SOURCES) -> dict[str, list[Message]]:
    """Every marked sentence, by catalog: (message, context, file, line, comments)."""
    found: dict[str, list[Message]] = {}
    for path in modules(roots):
        with path.open("rb") as source:
            marked = list(extract("python", source, keywords=KEYWORDS,
                                  comment_tags=COMMENT_TAGS, strip_comment_tags=True))
        if not marked:
            continue
        domain = declared_domain(path)
        if domain is None:
            raise ValueError(f"{path.relative_to(ROOT)} marks words but names no catalog "
                             "(_ = Words(...))")
        relative = str(path.relative_to(ROOT))
        for lineno, message, comments, context in marked:
            found.setdefault(domain, []).append((message, context, relative, lineno,
                                                 list(comments)))
    return found


async def _command_tree() -> Any:
    from bot.config import Settings
    from bot.tools.sync import _CommandsOnly

    # Only the tree is built: no login, no database, no gateway.
    bot = _CommandsOnly(Settings.from_env({}, dotenv=False))
    await bot.setup_hook()
    return bot


def command_messages() -> dict[str, list[Message]]:
    """Every slash command's words, by the catalog of the module that declares it."""
    from discord import app_commands

    async def walk() -> dict[str, list[Message]]:
        bot = await _command_tree()
        found: dict[str, list[Message]] = {}
        try:
            for command, where in _commands(bot.tree.get_commands()):
                domain = _module_domain(where)
                said = found.setdefault(domain, [])
                kind = "group" if isinstance(command, app_commands.Group) else "command"
                said.append((command.name, f"{kind}_name", where, 0, []))
                said.append((command.description, f"{kind}_description", where, 0, []))
                if isinstance(command, app_commands.Command):
                    for parameter in command.parameters:
                        said.append((parameter.display_name, "parameter_name", where, 0, []))
                        said.append((parameter.description, "parameter_description", where,
                                     0, []))
                        for choice in parameter.choices:
                            said.append((choice.name, "choice_name", where, 0, []))
        finally:
            await bot.close()
        return found

    return asyncio.run(walk())


def _commands(commands: Iterable[Any], where: str = "") -> Iterator[tuple[Any, str]]:
    from discord import app_commands

    for command in commands:
        module = getattr(command, "module", None) or where
        if isinstance(command, app_commands.Group):
            yield command, module
            yield from _commands(command.commands, module)
        else:
            yield command, module


def _module_domain(module: str) -> str:
    path = ROOT / Path(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.exists():
            return declared_domain(candidate) or SHARED
    return SHARED


def template(domain: str, messages: list[Message]) -> Catalog:
    catalog = Catalog(project="Cityhall", domain=domain, charset="utf-8",
                      msgid_bugs_address="", copyright_holder="Cityhall",
                      fuzzy=False)
    for message, context, file, line, comments in messages:
        catalog.add(message, locations=[(file, line)] if line else [],
                    auto_comments=comments, context=context,
                    flags=("python-brace-format",) if _braced(message) else ())
    return catalog


def _braced(message: str | tuple[str, ...]) -> bool:
    text = message if isinstance(message, str) else message[0]
    return "{" in text


def data_messages(domains: Iterable[str]) -> dict[str, list[Message]]:
    """Words that live in a game's data files (statements, card rules, city names): a
    catalog's package may list them in a ``data_words`` module, as ``catalog_words()``
    giving (message, context) pairs; the code says them with ``_p(context, message)``."""
    import importlib

    found: dict[str, list[Message]] = {}
    for domain in domains:
        try:
            module = importlib.import_module(f"{domain}.data_words")
        except ModuleNotFoundError:
            continue
        where = f"{domain.replace('.', '/')}/data_words.py"
        found[domain] = [(message, context, where, 0, [])
                         for message, context in module.catalog_words()]
    return found


def all_messages() -> dict[str, list[Message]]:
    found = code_messages()
    for domain, said in command_messages().items():
        found.setdefault(domain, []).extend(said)
    for domain, said in data_messages(list(found)).items():
        found.setdefault(domain, []).extend(said)
    return found


def extract_all(only: str | None = None) -> None:
    for domain, messages in sorted(all_messages().items()):
        if only and domain != only:
            continue
        pot = template(domain, messages)
        folder = catalog_folder(domain)
        folder.mkdir(exist_ok=True)
        with (folder / "messages.pot").open("wb") as out:
            write_po(out, pot, width=100, sort_output=False, omit_header=False)
        for language in TRANSLATED:
            path = catalog_file(domain, language)
            if path.exists():
                with path.open("rb") as po:
                    catalog = read_po(po, locale=language.replace("-", "_"), domain=domain)
            else:
                catalog = Catalog(locale=language.replace("-", "_"), domain=domain,
                                  project="Cityhall", fuzzy=False)
            catalog.update(pot, no_fuzzy_matching=True, update_header_comment=False)
            with path.open("wb") as out:
                write_po(out, catalog, width=100, sort_output=False, ignore_obsolete=True,
                         include_previous=False)
        print(f"{domain}: {len(pot)} messages")


def missing(only: str | None = None, found: dict[str, list[Message]] | None = None,
            ) -> dict[tuple[str, str], list[str]]:
    """(catalog, language) → the messages it lacks or leaves untranslated or fuzzy
    (of ``found``, every marked message unless given)."""
    gaps: dict[tuple[str, str], list[str]] = {}
    for domain, messages in sorted((all_messages() if found is None else found).items()):
        if only and domain != only:
            continue
        for language in TRANSLATED:
            path = catalog_file(domain, language)
            have: dict[tuple[str | None, str], Any] = {}
            if path.exists():
                with path.open("rb") as po:
                    catalog = read_po(po, locale=language.replace("-", "_"))
                have = {(m.context, m.id if isinstance(m.id, str) else m.id[0]): m
                        for m in catalog if m.id}
            for message, context, _file, _line, _comments in messages:
                key = message if isinstance(message, str) else message[0]
                entry = have.get((context, key))
                strings = [] if entry is None else (
                    [entry.string] if isinstance(entry.string, str) else list(entry.string))
                if entry is None or entry.fuzzy or not strings or not all(strings):
                    gaps.setdefault((domain, language), []).append(key)
    return gaps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("extract", "check"))
    parser.add_argument("--domain", help="only this catalog (a package: bot.games.cities)")
    args = parser.parse_args(argv)
    if args.action == "extract":
        extract_all(args.domain)
        return 0
    gaps = missing(args.domain)
    for (domain, language), keys in sorted(gaps.items()):
        print(f"{domain} {language}: {len(keys)} untranslated, e.g. {keys[0]!r}")
    return 1 if gaps else 0


if __name__ == "__main__":
    raise SystemExit(main())
