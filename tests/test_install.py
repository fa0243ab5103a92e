"""Cityhall installs like a Python application: a wheel built from the project, installed
into a fresh virtualenv, runs from any folder with its game data and fonts.

The wheel is built without network (``--no-build-isolation`` with the dev extra's
setuptools) and installed with ``--no-deps``; the fresh venv sees the dependencies through a
``.pth`` line naming this venv's site-packages, which adds that folder to ``sys.path``
without running its ``.pth`` files, so the editable install of the checkout stays out.
The work is split over several tests sharing one module fixture, so each stays well under
the 60 s per-test limit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.app import EXTENSIONS
from bot.games import GAMES

ROOT = Path(__file__).resolve().parent.parent

# What a clean checkout does not have: local state, caches, build leftovers.
NOT_IN_A_CHECKOUT = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", ".*_cache", ".hypothesis", "build", "dist", "*.egg-info",
    "mutants", "out", "*.sqlite3*", ".env")


@dataclass(frozen=True)
class Installed:
    python: Path
    venv: Path
    elsewhere: Path  # a folder that is neither the checkout nor the venv

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env["DISCORD_TOKEN"] = ""
        return subprocess.run([str(self.python), *args], cwd=self.elsewhere, env=env,
                              capture_output=True, text=True, timeout=50)


def _check(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, f"{done.args} failed:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    work = tmp_path_factory.mktemp("install")
    source = work / "checkout"
    shutil.copytree(ROOT, source, ignore=NOT_IN_A_CHECKOUT)
    wheels = work / "wheels"
    _check(subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(wheels), str(source)], capture_output=True, text=True, timeout=50))
    (wheel,) = wheels.glob("cityhall-*.whl")
    venv = work / "venv"
    _check(subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)],
                          capture_output=True, text=True, timeout=50))
    python = venv / "bin" / "python"
    _check(subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True, timeout=50))
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, timeout=50).stdout.strip()
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (Path(purelib) / "cityhall_test_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    return Installed(python=python, venv=venv, elsewhere=elsewhere)


def test_the_installed_package_is_the_one_that_runs(installed: Installed) -> None:
    done = installed.run("-c", "import bot, cogs; print(bot.__file__); print(cogs.__file__)")
    _check(done)
    for line in done.stdout.split():
        assert Path(line).is_relative_to(installed.venv), line


def test_help_runs_from_another_folder(installed: Installed) -> None:
    done = installed.run("-m", "bot", "--help")
    _check(done)
    for command in ("run", "sync", "simulate", "replay"):
        assert command in done.stdout


def test_a_simulated_game_draws_its_boards_with_the_bundled_fonts(installed: Installed) -> None:
    out = installed.elsewhere / "boards"
    # one round (25 boards): what is tested is that the wheel's fonts draw, not the game
    done = installed.run("-m", "bot", "simulate", "cityscape", "--players", "2", "--seed", "1",
                         "--option", "rounds=1", "--out", str(out))
    _check(done)
    summary = json.loads(done.stdout)
    pictures = sorted(out.glob("*.png"))
    assert summary["winners"] and len(pictures) == summary["images"] > 0
    assert pictures[0].read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_the_wheel_has_the_fonts_for_names_in_every_script(installed: Installed) -> None:
    done = installed.run("-c", "from bot.render.fonts import FACES, clean_text, font_path\n"
                               "assert all(font_path(b, f).is_file() for b in (False, True)\n"
                               "           for f in range(len(FACES)))\n"
                               "print(ascii(clean_text('王小明 محمد 😀', True, 'Player 1')))")
    _check(done)
    assert done.stdout.strip() == ascii("王小明 محمد 😀")


@pytest.mark.parametrize("game", ["bigcityz", "cities"])
def test_games_with_content_files_play_from_the_wheel(installed: Installed, game: str) -> None:
    done = installed.run("-m", "bot", "simulate", game, "--players", "2", "--seed", "1")
    _check(done)
    assert json.loads(done.stdout)["winners"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_draws_its_table_from_the_wheel(installed: Installed, game: str) -> None:
    # Every renderer is a package of modules: the wheel must carry every one of them.
    done = installed.run("-c", "from bot.games import GAMES\n"
                               f"engine, draw = GAMES[{game!r}].engine, GAMES[{game!r}].pictures()\n"
                               "view = engine.view(engine.new(['Ann', 'Bob'], {}, 1), None)\n"
                               "print(draw.render_table(view)[:4])\n"
                               "print(draw.__file__)")
    _check(done)
    png, where = done.stdout.split()
    assert png == repr(b"\x89PNG")
    assert Path(where).is_relative_to(installed.venv)


def test_every_cog_imports_from_the_wheel(installed: Installed) -> None:
    done = installed.run("-c", "import importlib\n"
                               "from bot.app import EXTENSIONS\n"
                               "for name in EXTENSIONS: importlib.import_module(name)\n"
                               "print(len(EXTENSIONS))")
    _check(done)
    assert int(done.stdout) == len(EXTENSIONS)  # the wheel has every cog the source has


def test_the_default_database_is_not_put_inside_the_installed_package(installed: Installed) -> None:
    done = installed.run("-c", "from bot.config import Settings\n"
                               "print(Settings.from_env({}).database_path)")
    _check(done)
    database = Path(done.stdout.strip())
    assert database.is_absolute()
    assert not database.is_relative_to(installed.venv)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize(("target", "dev_tools"), [("run", False), ("test", True)])
def test_make_run_installs_only_what_the_bot_needs(tmp_path: Path, target: str,
                                                   dev_tools: bool) -> None:
    for name in ("Makefile", "pyproject.toml", "requirements.txt", "requirements-dev.txt"):
        shutil.copy(ROOT / name, tmp_path / name)
    planned = subprocess.run(["make", "-n", target], cwd=tmp_path, capture_output=True,
                             text=True, timeout=50)
    _check(planned)
    installs = [line for line in planned.stdout.splitlines() if "pip install" in line
                and "--upgrade pip" not in line]
    assert installs, planned.stdout
    # The dependencies from a lock file, every download checked against its hash; the
    # project itself without dependencies of its own (docs/dependencies.md).
    locks = [line for line in installs if " -r " in line]
    assert locks and all("--require-hashes" in line for line in locks), installs
    assert any("requirements-dev.txt" in line for line in locks) == dev_tools, installs
    assert any("-r requirements.txt" in line for line in locks) != dev_tools, installs
    assert all("--no-deps" in line for line in installs if " -e " in line), installs
