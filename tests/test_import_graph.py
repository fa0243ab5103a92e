"""The import-graph check `make test` runs (scripts/check_imports.py) finds what it is for:
a circle hidden inside a function, an upward import, one game importing another and rules
that reach their computer player; and it leaves imports that never run alone."""

from __future__ import annotations

from pathlib import Path

from tests.scripts import load_script

problems = load_script("check_imports").problems


def project(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    known: dict[str, Path] = {}
    for name, text in files.items():
        path = tmp_path / (name.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        known[name] = path
    return known


def test_a_circle_hidden_inside_a_function_is_found(tmp_path: Path) -> None:
    known = project(tmp_path, {
        "bot.core.a": "from bot.core import b\n",
        "bot.core.b": "def later():\n    from bot.core.a import thing\n",
    })
    assert problems(known) == ["circle: bot.core.a -> bot.core.b"]


def test_an_import_only_for_the_type_checker_is_not_an_edge(tmp_path: Path) -> None:
    known = project(tmp_path, {
        "bot.core.a": "from bot.core import b\n",
        "bot.core.b": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                      "    from bot.core.a import thing\n    from bot.app import Bot\n",
    })
    assert problems(known) == []


def test_upward_imports_and_games_importing_games_are_found(tmp_path: Path) -> None:
    known = project(tmp_path, {
        "bot.core.runtime": "import bot.games.chess\n",
        "bot.games.chess": "from .go import rules\n",
        "bot.games.go.rules": "",
        "bot.games.go": "",
    })
    assert problems(known) == [
        "upward import: bot.core.runtime imports bot.games.chess",
        "one game imports another: bot.games.chess imports bot.games.go.rules",
    ]


def test_rules_that_reach_their_computer_player_are_found(tmp_path: Path) -> None:
    known = project(tmp_path, {
        "bot.games.chess.engine": "from . import moves\n",
        "bot.games.chess.moves": "def best():\n    from .ai import search\n",
        "bot.games.chess.ai": "from .moves import best\n",
    })
    found = problems(known)
    assert "the rules import the computer player or pictures: bot.games.chess.engine " \
           "reaches bot.games.chess.ai" in found
    assert "circle: bot.games.chess.ai -> bot.games.chess.moves" in found
