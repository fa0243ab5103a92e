"""The README is what a server admin reads first, and the docs are where it sends them.

Issue 29: the README stays short (at most 250 lines), its Quick start has exactly the two
commands, and every relative link in the README and in `docs/*.md` leads somewhere: the
file or folder exists, and a `#anchor` into a Markdown file names one of its headings (as
GitHub makes anchors). A section moved to another file breaks links silently otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MARKDOWN = [README, *sorted((ROOT / "docs").glob("*.md"))]

README_MAX_LINES = 250
# [text](target) or ![alt](target), with an optional "title"; the text may hold `code`.
LINK = re.compile(r"!?\[(?:[^\[\]]|`[^`]*`)*\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(```+|~~~+)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _outside_fences(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of every line not inside a fenced code block."""
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        opened = FENCE.match(line)
        if fence is None:
            if opened:
                fence = opened.group(1)
            else:
                yield number, line
        elif opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
            fence = None


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: its text without Markdown, lowercased, every
    character but letters, digits, `_`, `-` and spaces dropped, spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"(?<!\w)_+|_+(?!\w)", "", text)  # _emphasis_, not snake_case
    kept = "".join(ch for ch in text.lower() if ch.isalnum() or ch in "_- ")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor the headings of a Markdown file produce (repeats get -1, -2, …)."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for _, line in _outside_fences(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        anchor = github_anchor(match.group(2))
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        found.add(anchor if count == 0 else f"{anchor}-{count}")
    return found


def links(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, target) of every link outside code blocks and code spans."""
    for number, line in _outside_fences(path.read_text(encoding="utf-8")):
        spans = [match.span() for match in CODE_SPAN.finditer(line)]
        for match in LINK.finditer(line):
            if not any(start <= match.start() < end for start, end in spans):
                yield number, match.group(1)


def broken_links(path: Path) -> list[str]:
    """One sentence per relative link of `path` that leads nowhere."""
    problems: list[str] = []
    for number, target in links(path):
        if SCHEME.match(target):
            continue  # http(s), mailto: not ours to check
        file_part, _, anchor = target.partition("#")
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        destination = (path.parent / unquote(file_part)).resolve() if file_part else path
        if not destination.exists():
            problems.append(f"{where}: no such file or folder")
        elif anchor and destination.suffix == ".md" and unquote(anchor) not in anchors(
                destination):
            problems.append(f"{where}: no heading in {destination.name} makes #{anchor}")
    return problems


def test_the_readme_is_at_most_250_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines; move detail into docs/ (at most {README_MAX_LINES})")


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves(path: Path) -> None:
    assert broken_links(path) == []


def test_the_quick_start_has_exactly_make_run_and_make_test() -> None:
    text = README.read_text(encoding="utf-8")
    assert "\n## Quick start\n" in text
    section = text.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in section.splitlines()
                if line.startswith(("    ", "\t")) and line.strip()]
    assert commands == ["make run", "make test"]


def test_the_anchor_rule_is_githubs() -> None:
    assert github_anchor("Several processes (shards)") == "several-processes-shards"
    assert github_anchor("Moving to PostgreSQL") == "moving-to-postgresql"
    assert github_anchor("Settings (`.env`)") == "settings-env"
    assert github_anchor("Big Cityz: hard knows more (27 Nov 2026)") == (
        "big-cityz-hard-knows-more-27-nov-2026")
    assert github_anchor("Time limits (`tests/time_limits.py`)") == (
        "time-limits-teststime_limitspy")
