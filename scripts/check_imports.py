"""The import graph of bot/ and cogs/: no circle, no upward import, no engine importing its
computer player or pictures. Run by `make test`; exits 1 with one line per problem.

Every import counts, the ones inside functions too (Python's way of hiding a circle), but
not those under ``if TYPE_CHECKING:``, which never run. ``from package import name`` is an
edge to ``package.name`` when that is a module, else to ``package``, as import-linter and
pydeps count them; a module's implicit import of its parent packages is not an edge.

Layers, lowest first; a module may import its own layer and those below it:

    bot.data                 the games' data files
    bot.core, bot.config     engines' contract, runtime, storage, settings: no game, no UI
    bot.render               the picture kit and the render pool: no game
    bot.games                the games and their catalogue
    bot.ui                   the Discord kit every game's cog shares
    cogs                     the games' and the bot's cogs
    bot.app, bot.process ... the bot and the process around it
    bot.tools, bot.__main__  the command-line tools

Within bot.games, a game imports no other game, and its rules (``engine`` and what
``engine`` imports) import neither its computer player (``ai``, ``levels``) nor its
pictures (``render``).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "cogs")

LAYERS: tuple[tuple[str, ...], ...] = (
    ("bot.data",),
    ("bot.core", "bot.config"),
    ("bot.render",),
    ("bot.games",),
    ("bot.ui",),
    ("cogs",),
    ("bot.app", "bot.process", "bot.metrics", "bot"),
    ("bot.tools", "bot.__main__"),
)
COMPUTER_OR_PICTURES = ("ai", "levels", "render")


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets = [f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in known else origin
                       for alias in node.names]
        for target in targets:
            # The closest project module (``import bot.core.storage`` -> bot.core.storage).
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def layer_of(name: str) -> int:
    best, level = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, level = len(prefix), index
    return level


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def game_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["bot", "games"] else None


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen = {start}
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def problems(known: dict[str, Path] | None = None) -> list[str]:
    known = known or modules()
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    found: list[str] = []
    for component in circles(graph):
        found.append("circle: " + " -> ".join(component))
    for name, targets in sorted(graph.items()):
        for target in sorted(targets):
            if layer_of(target) > layer_of(name):
                found.append(f"upward import: {name} imports {target}")
            mine, theirs = game_of(name), game_of(target)
            if mine and theirs and mine != theirs:
                found.append(f"one game imports another: {name} imports {target}")
    for name in sorted(known):
        game = game_of(name)
        if game is None or name != f"bot.games.{game}.engine":
            continue
        for target in sorted(reachable(graph, name)):
            if target.split(".")[3:4] and target.split(".")[3] in COMPUTER_OR_PICTURES \
                    and game_of(target) == game:
                found.append(f"the rules import the computer player or pictures: {name} "
                             f"reaches {target}")
    return found


def main() -> int:
    found = problems()
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} import problem(s); see scripts/check_imports.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
