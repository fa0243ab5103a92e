"""The offline command line: replay and simulate, run as a user would run them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_replay_reports_rejected_actions_and_goes_on(tmp_path: Path) -> None:
    spec = {
        "game": "cityscape", "players": ["ann", "bob", "cy"], "seed": 1, "options": {"rounds": 1},
        "actions": [
            {"player": "ann", "type": "set_goals", "side": "S", "codes": [3, 5, 6, 2]},
            {"player": "ann", "type": "build", "height": 3, "lot": "B2"},
            {"player": "bob", "type": "set_goals", "side": "W", "codes": [1, 1, 1, 1]},
            {"player": "cy", "type": "set_goals", "side": "N", "codes": [2, 2, 2, 2]},
            {"player": "bob", "type": "build", "height": 3, "lot": "B2"},
            {"player": "ann", "type": "build", "height": 3, "lot": "B2"},
        ],
    }
    path = tmp_path / "game.json"
    path.write_text(json.dumps(spec))
    done = _run("replay", str(path))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["game"] == "cityscape" and out["over"] is False
    assert out["rejected"] == [
        {"index": 1, "error": "Building starts once everyone has set their goals."},
        {"index": 4, "error": "It is ann's turn."},
    ]
    assert out["to_act"] == ["bob"]
    assert out["state"]["heights"]["B2"] == 3
    assert "3, 5, 6, 2" not in json.dumps(out["state"])  # goals stay secret in the public view


def test_replay_from_stdin_plays_a_whole_game() -> None:
    # a finished computer game, fed back through the replay runner, ends the same way
    summary = _run("simulate", "cityscape", "--players", "2", "--seed", "3", "--option", "rounds=1")
    assert summary.returncode == 0, summary.stderr
    from bot.tools.simulate import simulate

    game = simulate("cityscape", 2, 3, None, {"rounds": 1})
    spec = {k: game[k] for k in ("game", "players", "seed", "options", "actions")}
    done = _run("replay", "-", stdin=json.dumps(spec))
    out = json.loads(done.stdout)
    assert out["over"] is True and out["rejected"] == []
    assert out["scores"] == game["scores"] and out["winners"] == game["winners"]
    assert json.loads(summary.stdout)["scores"] == game["scores"]


def test_replay_rejects_a_broken_file_with_a_sentence(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"game": "chess", "players": ["a", "b"]}')
    done = _run("replay", str(path))
    assert done.returncode == 2
    assert "Unknown game 'chess'" in json.loads(done.stdout)["error"]


def test_simulate_writes_every_board_and_a_summary(tmp_path: Path) -> None:
    out = tmp_path / "sim"
    done = _run("simulate", "cityscape", "--players", "3", "--seed", "7", "--out", str(out))
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["moves"] == 3 * (3 + 25)  # three rounds of three goal settings and 25 blocks
    boards = sorted(out.glob("board-*.png"))
    assert len(boards) == summary["moves"] + 1
    assert len(list(out.glob("*-round-*.png"))) == 3  # one scoring picture per round
    with Image.open(boards[-1]) as image:
        assert image.format == "PNG" and image.width >= 600
    assert summary["winners"] and set(summary["scores"]) == {"ann", "bob", "cy"}
