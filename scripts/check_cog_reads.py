"""Cogs read engine data only through typed views: run by `make test`; exits 1 with one line
per raw read.

An engine's state and views are plain JSON (``dict[str, Any]``): mypy cannot tell a typo in
a key from a real one. Each game therefore exposes what its cog needs as TypedDicts
(``bot/games/<game>/views.py``), and mypy checks every key a cog reads there. This check
makes sure the cogs do not go around them:

- a match's raw state (``match.state``, ``click.state``, ``outcome.match.state``) may be
  compared with None or handed to a function (the engine, a game's view function), never
  indexed, iterated, or kept in a variable;
- ``engine.view(...)`` and the adapter's untyped ``public_view(...)`` are not called from
  cogs: the game's typed view functions are.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNTYPED_VIEWS = ("view", "public_view")


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def raw_reads(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    parent = _parents(tree)
    found: list[str] = []
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "state" \
                and isinstance(node.ctx, ast.Load):
            up = parent.get(node)
            if isinstance(up, ast.Call) and node in up.args:
                continue  # handed to a function
            if isinstance(up, ast.keyword):
                continue
            if isinstance(up, ast.Compare) and all(
                    isinstance(c, ast.Constant) and c.value is None for c in up.comparators):
                continue  # ``match.state is None``
            if isinstance(up, ast.Compare) and isinstance(up.left, ast.Constant) \
                    and up.left.value is None:
                continue
            found.append(f"{where}:{node.lineno}: reads a raw engine state "
                         f"({ast.unparse(node)}); use the game's typed views")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in UNTYPED_VIEWS:
            found.append(f"{where}:{node.lineno}: calls an untyped view "
                         f"({ast.unparse(node.func)}); use the game's typed views")
    return found


def main(paths: list[str]) -> int:
    files = [Path(p) for p in paths] if paths else sorted((ROOT / "cogs").rglob("*.py"))
    found = [line for path in files for line in raw_reads(path)]
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} raw read(s) of engine data in cogs; see scripts/check_cog_reads.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
