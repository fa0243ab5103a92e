"""``python -m bot loadtest`` on a tiny configuration: the real bot in its own process,
set up by clicks, killed and restarted, clicked at a rate, burst, soaked and grown. The
report must hold every figure an operator reads, with values that add up (no timing
thresholds: those are the tool's output, not the test's)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.tools.loaddb import LoadDatabase
from bot.tools.loadtest import seed_finished_games
from bot.tools.pgserver import PgServer, binaries
from bot.tools.players import Table

ROOT = Path(__file__).resolve().parent.parent
# One worker runs them all (make test's xdist): the two module-wide reports are made once.
pytestmark = pytest.mark.xdist_group("loadtest")

# The mixed workload (the default): the four played channels are one of each game; growth
# plays one Cityscape game (the quickest to finish; the others take minutes at random).
TINY = ["--matches", "6", "--per-guild", "3", "--channels", "4", "--rates", "6",
        "--duration", "4", "--burst", "6", "--soak", "2", "--sample-every", "1",
        "--growth-games", "1", "--growth-kinds", "cityscape", "--stats-games", "20",
        "--stats-calls", "3"]
GAMES = {"cityscape", "bigcityz", "bigcity", "cities"}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_loadtest(tmp_path_factory.mktemp("load"), TINY, timeout=170)


def run_loadtest(work: Path, args: list[str], *, timeout: float) -> dict[str, Any]:
    """``python -m bot loadtest --json`` as an admin runs it; its report, with its folder.
    Discord's rate-limit windows are a tenth as long (the fake's and the bot's alike): the
    growth phase's game would otherwise wait a second for each table edit."""
    env = {**os.environ, "FAKEDISCORD_RATE_LIMIT_SCALE": "0.1"}
    done = subprocess.run([sys.executable, "-m", "bot", "loadtest", "--json", "--workdir",
                           str(work), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    data: dict[str, Any] = json.loads(done.stdout)
    data["workdir"] = work
    return data


def figures(report: dict[str, Any]) -> dict[tuple[str, str], Any]:
    return {(f["scenario"], f["figure"]): f["value"] for f in report["figures"]}


@pytest.mark.timeout(180)
def test_every_scenario_reports_its_figures(report: dict[str, Any]) -> None:
    got = figures(report)
    needed = [
        ("setup", "unfinished matches opened by clicks"),
        ("memory", "RSS after setup"), ("memory", "RSS after restart (all matches)"),
        ("stats", "/stats p95"),
        ("restart", "process start -> gateway READY"),
        ("restart", "READY -> every match answered a click"),
        ("restart", "answered within 3 s"), ("restart", "longest event-loop stall"),
        ("load 6/s", "click -> response p95"), ("load 6/s", "answered within 3 s"),
        ("load 6/s", "unanswered"), ("load 6/s", "longest event-loop stall"),
        ("load 6/s", "answered 429 by Discord (global / per route)"),
        ("load 6/s", "the fake Discord's own longest stall"),
        ("load 6/s", "move -> board picture on screen p95"),
        ("load 6/s", "board picture on screen within 3 s"),
        ("load 6/s", "CPU per move (bot + render workers)"),
        ("restart", "first clicks sent in the first 100 ms / 200 ms after the first"),
        ("growth", "  cityscape: bytes per finished game (1/1 games, "),
        ("burst", "all answered within"),
        ("soak", "RSS first sample"), ("soak", "RSS last sample"), ("soak", "RSS max"),
        ("growth", "database bytes per finished game"),
    ]
    missing = [key for key in needed if key not in got
               and not any(k[0] == key[0] and k[1].startswith(key[1]) for k in got)]
    assert not missing
    machine = report["machine"]
    assert machine["nproc"] >= 1 and machine["memory_mb"] > 0 and machine["date"]


@pytest.mark.timeout(180)
def test_the_figures_add_up(report: dict[str, Any]) -> None:
    got = figures(report)
    assert got[("setup", "unfinished matches opened by clicks")] == "6/6"
    assert got[("setup", "guilds")] == 2  # three channels per guild
    assert got[("start", "workload")].startswith("mixed")
    assert got[("setup", "matches per game")] == "cityscape 2, bigcityz 2, bigcity 1, cities 1"
    assert got[("setup", "played Cityscape channels with goals chosen (building)")] == "1/1"
    assert got[("restart", "matches answering")] == "6/6"
    assert got[("restart", "READY -> every match answered a click")] >= 0
    for game in GAMES:  # READY -> every match of each game answered
        assert got[("restart", f"  {game}: READY -> every match answered / answering")] \
            .endswith(f"/ {2 if game in ('cityscape', 'bigcityz') else 1}/"
                      f"{2 if game in ('cityscape', 'bigcityz') else 1}"), game
    assert got[("restart", "process start -> gateway READY")] > 0
    for scenario in ("setup", "restart", "load 6/s", "soak"):
        p50, p95, p99, top = (got[(scenario, f"click -> response {q}")]
                              for q in ("p50", "p95", "p99", "max"))
        assert 0 < p50 <= p95 <= p99 <= top, scenario
        clicks = report["details"][scenario]["clicks"]
        assert clicks["answered"] + clicks["unanswered"] == clicks["clicks"] > 0
        assert 0 <= got[(scenario, "answered within 3 s")] <= 100
    # the clicks were real moves in every game, each timed to its answer and to the board
    # picture it put on screen, and reported per game
    load = report["details"]["load 6/s"]["clicks"]
    assert set(load["per_game"]) == GAMES
    assert load["moves"] > 0 and load["pictures"] > 0
    # the phase's last moves were waited for (tests/test_loadtest_settle.py)
    assert got[("load 6/s", "last clicks' pictures waited for after the last click")] >= 0
    assert 0 < load["picture_p50_ms"] <= load["picture_p95_ms"] <= load["picture_max_ms"]
    assert load["refused"] <= load["clicks"] // 4
    for game in GAMES:
        assert (("load 6/s", f"  {game}: picture p50 / p95 / within 3 s") in got
                and ("load 6/s", f"  {game}: answer p50 / p95") in got), game
    assert got[("load 6/s", "CPU, bot and render workers")] > 0
    assert got[("load 6/s", "CPU per move (bot + render workers)")] > 0
    # item 3 read both ways (a move, and a click as the issue measured it): each held to
    # 25 ms, its verdict the value's
    for figure in ("CPU per move (bot + render workers)", "CPU per click"):
        row = next(f for f in report["figures"]
                   if f["scenario"] == "load 6/s" and f["figure"] == figure)
        assert row["target"] == "<= 25 ms" and row["ok"] == (row["value"] <= 25), figure
    # where a move's CPU went: the bot process, and the workers' table pictures among the
    # kinds of render job, each with the count of its jobs, adding up to no more than all
    breakdown = load["cpu_breakdown"]
    assert 0 < breakdown["bot_s"] <= load["cpu_s"]
    jobs, cpu = breakdown["render"]["table pictures"]
    assert jobs > 0 and cpu > 0
    # ... over the same window: the workers' counts include the last moves' pictures, drawn
    # after the drive (on a busy machine they were 15 % over the drive's own CPU, 2 Dec);
    # /proc's times are whole ticks of 10 ms, for the bot and each worker at each end.
    assert breakdown["bot_s"] + sum(c for _n, c in breakdown["render"].values()) \
        <= breakdown["window_cpu_s"] + 0.06
    assert got[("load 6/s", "  CPU per move: table pictures")].endswith(" ms each)")
    # the same tables by their worker's age: every table counted once, in its bucket
    ages = load["table_cpu_by_worker_age"]
    assert sum(count for count, _cpu in ages.values()) == jobs
    assert abs(sum(c for _n, c in ages.values()) - cpu) < 1e-6
    assert "1-150" in ages  # the phase's first tables came from a worker in its first jobs
    assert got[("load 6/s", "  table pictures by their worker's jobs done (ms each, jobs)")] \
        .startswith("1-150: ")
    assert got[("burst", "clicks at once")] == 6
    burst = report["details"]["burst"]["clicks"]
    assert burst["clicks"] == 6 and burst["answered"] + burst["unanswered"] == 6
    assert got[("burst", "unanswered")] == burst["unanswered"]
    for key in (("memory", "RSS after setup"), ("memory", "RSS after restart (all matches)"),
                ("soak", "RSS first sample"), ("soak", "RSS max")):
        assert got[key] > 0, key
    assert got[("soak", "RSS max")] >= got[("soak", "RSS last sample")]
    # at the highest sample: the bot's own share, and the bot with its worker(s)
    bot_mb, processes = got[("soak", "RSS max: the bot process / processes then")].split(" MB / ")
    assert 0 < float(bot_mb) < got[("soak", "RSS max")] and int(processes) >= 2
    replaced, for_memory = got[("soak", "render workers replaced (of them for their memory)")] \
        .rstrip(")").split(" (")
    assert 0 <= int(for_memory) <= int(replaced)
    # PSS counts a page the bot and its worker share once, RSS in each: never more, and
    # the interpreter's own pages are shared by every one of them
    assert 0 < got[("memory", "  PSS after restart (a shared page counted once)")] \
        < got[("memory", "RSS after restart (all matches)")]
    assert 0 < got[("soak", "  PSS max (a shared page counted once)")] < got[("soak", "RSS max")]
    # the spare worker's lending, per phase, as the bot's pool counted it (its loop
    # monitor's file): the counts the row shows
    for scenario in ("load 6/s", "soak"):
        lending = got[(scenario, "  spare render worker lent (kept back for memory; given back "
                                 "for it)")]
        spare = report["details"][scenario]["clicks"]["spare_worker"]
        assert lending == (f"{spare['lent']} ({spare['not_lent_for_memory']}; "
                           f"{spare['given_back_for_memory']})")
        assert min(spare.values()) >= 0
    stats = json.loads((report["workdir"] / "loopstats.json").read_text())
    assert {"lent", "not_lent_for_memory", "given_back_for_memory"} <= \
        set(stats["render_workers"])
    assert got[("memory", "bot processes")] >= 1
    assert got[("growth", "games played to the end by clicks")] == "1/1"
    assert got[("growth", "database bytes per finished game")] >= 0
    assert report["details"]["growth"]["after"]["in_use"] <= report["details"]["growth"]["after"]["db"]
    # how punctual the load test itself was, per phase (a stall of its own bunches requests)
    for scenario in ("setup", "load 6/s", "soak"):
        assert got[(scenario, "the fake Discord's own longest stall")] >= 0
    # what the host took from the machine over each clicking phase, where Linux says
    if Path("/proc/stat").exists():
        for scenario in ("load 6/s", "soak"):
            steal = got[(scenario, "  the host took from this machine's cores (steal)")]
            shown = re.fullmatch(r"(\d+\.\d\d) s \((\d+\.\d) % of them\)", steal)
            assert shown is not None, steal
            assert float(shown[1]) >= 0 and 0 <= float(shown[2]) <= 100
    # the loop monitor inside the bot wrote its file
    stats = json.loads((report["workdir"] / "loopstats.json").read_text())
    assert stats["samples"] > 0 and stats["max_stall_ms"] >= stats["p99_stall_ms"] >= 0


@pytest.mark.timeout(180)
def test_a_saved_report_prints_as_a_table(report: dict[str, Any]) -> None:
    saved = report["workdir"] / "report.json"
    saved.write_text(json.dumps({k: v for k, v in report.items() if k != "workdir"}))
    done = subprocess.run([sys.executable, "-m", "bot", "loadtest", "--show", str(saved)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for needed in ("scenario", "READY -> every match answered a click", "<= 2 s",
                   "database bytes per finished game", f"{report['machine']['nproc']} CPUs"):
        assert needed in done.stdout, needed


# -- PostgreSQL and two bot processes ----------------------------------------------------------

SHARDED = ["--matches", "12", "--per-guild", "3", "--channels", "4", "--rates", "4",
           "--duration", "3", "--burst", "8", "--soak", "2", "--sample-every", "1",
           "--growth-games", "1", "--stats-games", "20", "--stats-calls", "3",
           "--database", "pgserver", "--processes", "2", "--profile", "light"]


@pytest.fixture(scope="module")
def sharded_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if binaries() is None:
        pytest.skip("the pgserver wheel is not installed (pip install -e '.[dev]')")
    return run_loadtest(tmp_path_factory.mktemp("load-pg"), SHARDED, timeout=230)


@pytest.mark.timeout(240)
def test_two_processes_over_postgresql_carry_the_load_together(
        sharded_report: dict[str, Any]) -> None:
    report = sharded_report
    got = figures(report)
    assert got[("start", "database")].startswith("PostgreSQL")
    assert got[("start", "bot processes (Discord shards)")] == "2 (4 shards, 2 each)"
    assert report["details"]["database"]["fsync"] == "on"
    # Four servers, one on each shard, so each process owns half of the matches ...
    assert got[("setup", "guilds")] == 4
    assert got[("setup", "matches per bot process")] == "bot0 6, bot1 6"
    assert got[("setup", "unfinished matches opened by clicks")] == "12/12"
    # ... and after both were killed with -9 and started again, every match answered.
    assert got[("restart", "matches answering")] == "12/12"
    assert got[("restart", "child processes left behind by the killed bot")] == 0
    # Memory: each process's own, and their sum; the database server's beside.
    for when in ("setup", "restart"):
        total = got[("memory", f"RSS after {when}" + (" (all matches)" if when == "restart"
                                                       else ""))]
        own = [got[("memory", f"  RSS after {when}, bot0 (shards 0, 1)")],
               got[("memory", f"  RSS after {when}, bot1 (shards 2, 3)")]]
        assert min(own) > 0 and total == pytest.approx(sum(own), abs=0.2)
    assert got[("memory", "PostgreSQL server, all its processes (PSS)")] > 0
    # The played channels are on both processes: their clicks were real moves.
    assert {"height", "lot"} <= set(report["details"]["load 4/s"]["kinds"])
    # /stats read the seeded games from PostgreSQL; growth measured there, by name.
    assert got[("stats", "unanswered")] == 0
    assert got[("growth", "games played to the end by clicks")] == "1/1"
    assert got[("growth", "database bytes per finished game")] >= 0
    assert got[("growth", "  measured as")] == "pg_total_relation_size over Cityhall's tables"
    assert got[("growth", "database at the end (pg_database_size)")] > 0
    # each process wrote its own loop monitor file, and the report took the worst
    for name in ("bot0", "bot1"):
        stats = json.loads((report["workdir"] / f"{name}-loopstats.json").read_text())
        assert stats["samples"] > 0
    assert "per_process" in report["details"]["load 4/s"]["stall"]


def test_several_processes_need_postgresql() -> None:
    done = subprocess.run([sys.executable, "-m", "bot", "loadtest", "--processes", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "--processes 2 needs PostgreSQL" in done.stderr


async def test_a_postgresql_database_holding_matches_is_refused(pg_server: PgServer,
                                                               tmp_path: Path) -> None:
    # an admin pointing the load test at the bot's real database must not get 10,000
    # made-up games mixed into it
    url = pg_server.create_database()
    await LoadDatabase(tmp_path, url).open()  # empty: accepted
    people = ({"id": "6", "username": "ann"}, {"id": "7", "username": "bob"})
    await seed_finished_games(url, [Table(str(5 << 22), "9", *people)], 1)
    with pytest.raises(SystemExit, match="already holds matches"):
        await LoadDatabase(tmp_path, url).open()


@pytest.mark.timeout(240)
def test_two_saved_reports_print_side_by_side(report: dict[str, Any],
                                               sharded_report: dict[str, Any]) -> None:
    files = []
    for name, data in (("sqlite", report), ("pg", sharded_report)):
        saved = sharded_report["workdir"] / f"{name}.json"
        saved.write_text(json.dumps({k: v for k, v in data.items() if k != "workdir"}))
        files.append(str(saved))
    done = subprocess.run([sys.executable, "-m", "bot", "loadtest", "--show", *files],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    header, _, *rows = done.stdout.splitlines()
    assert "sqlite, 1 process" in header and "pgserver, 2 processes" in header
    restart = next(r for r in rows if "READY -> every match answered a click" in r)
    # a value from each run on the one line, then the target (<= 2 s)
    assert len(re.findall(r"\d+(?:\.\d+)? s\b", restart)) == 3, restart
    assert any("RSS after restart, bot1 (shards 2, 3)" in r for r in rows)
