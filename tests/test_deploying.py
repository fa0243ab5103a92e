"""Reproducible installs and a platform's way of running the bot (issue 26).

`make run` and `make test` install from the lock files (requirements.txt, requirements-dev
.txt: every package pinned, every download checked against its hash). A platform that
builds from requirements.txt and runs the Procfile's `worker` gets the same versions, with
the PostgreSQL URL it hands out (often `postgres://`), and nothing kept on its disk.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import asyncpg
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from fakediscord import FakeDiscord
from tests.pg_support import PgServer

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^ ;\\]+)(?: ;([^\\]+))?")


def _locked(path: Path) -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes) of the packages the lock installs on this machine."""
    found: dict[str, tuple[str, list[str]]] = {}
    current: str | None = None
    for line in path.read_text().splitlines():
        pin = PIN.match(line)
        if pin:
            name, version, marker = pin.groups()
            condition = Requirement(f"x ; {marker}").marker if marker else None
            applies = condition is None or condition.evaluate()
            current = canonicalize_name(name) if applies else None
            if current is not None:
                found[current] = (version, [])
        elif current is not None and "--hash=sha256:" in line:
            found[current][1].append(line.split("--hash=sha256:")[1].strip(" \\"))
    return found


@pytest.mark.parametrize(("lock", "extras"), [("requirements.txt", ()),
                                              ("requirements-dev.txt", ("dev",))])
def test_the_lock_pins_every_dependency_within_pyproject_ranges_with_hashes(
        lock: str, extras: tuple[str, ...]) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [Requirement(text) for text in project["dependencies"]]
    for extra in extras:
        wanted += [Requirement(text) for text in project["optional-dependencies"][extra]]
    locked = _locked(ROOT / lock)
    for requirement in wanted:
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{lock} does not pin {requirement.name}: run make lock"
        version, hashes = locked[name]
        assert requirement.specifier.contains(version, prereleases=True), \
            f"{lock} pins {name}=={version}, outside pyproject.toml's {requirement}: make lock"
        assert hashes, f"{lock} has no hash for {name}"
    # Every pin, dependencies of dependencies too, has its hashes: pip's --require-hashes
    # refuses the whole file otherwise.
    assert all(hashes for _version, hashes in locked.values())


def test_the_lock_is_what_this_environment_runs() -> None:
    """The tests ran on the locked versions: a lock that drifted from the environment the
    suite passed in would ship versions nobody tested."""
    from importlib.metadata import PackageNotFoundError, version

    for name, (pinned, _hashes) in _locked(ROOT / "requirements-dev.txt").items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = None
        assert installed == pinned, f"{name}: locked {pinned}, installed {installed}"


@pytest.mark.timeout(90)
async def test_the_procfile_worker_runs_from_a_plain_copy_with_a_postgres_url(
        fake_discord: FakeDiscord, pg_server: PgServer, tmp_path: Path) -> None:
    """As a platform runs it: the repository's files in a folder (the project itself not
    installed), the Procfile's command, DATABASE_URL with the `postgres://` scheme such
    platforms hand out, and nothing written into the folder."""
    fake = fake_discord
    app = tmp_path / "app"
    tracked = subprocess.run(["git", "ls-files", "bot", "cogs", "Procfile"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    for name in tracked:
        (app / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, app / name)
    (command,) = [line.split(":", 1)[1].strip() for line in
                  (app / "Procfile").read_text().splitlines() if line.startswith("worker:")]
    assert command == "python -m bot run"
    url = pg_server.create_database().replace("postgresql://", "postgres://", 1)
    before = sorted(p.relative_to(app) for p in app.rglob("*"))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "DEV_GUILD", "DATABASE_", "PYTHON"))}
    env.update(DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base, DATABASE_URL=url,
               LOG_LEVEL="INFO", PYTHONDONTWRITEBYTECODE="1", RENDER_WORKERS="0",
               DISCORD_RATE_LIMIT_SCALE=str(fake.rate_limit_scale))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=str(app), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        await fake.wait_until(lambda: len(fake.commands()) >= 3 and any(
            s.connection is not None for s in fake.sessions.values()), 45,
            "the worker online")
        ann = await fake.add_member("Ann")
        lobby = await (await fake.slash(ann, fake.channel_id, "cityscape", ["new"], {})
                       ).seen(timeout=15)
        assert lobby.message is not None and "Cityscape" in str(lobby.data)
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), 15)
        output = (await process.stdout.read()).decode() if process.stdout else ""
    assert code == 0, output
    assert "Traceback" not in output, output
    db = await asyncpg.connect(pg_server.url(url.rsplit("/", 1)[1]))
    try:
        assert await db.fetchval("SELECT count(*) FROM matches WHERE status='lobby'") == 1
    finally:
        await db.close()
    # Nothing kept on the platform's disk (which it wipes at every restart).
    assert sorted(p.relative_to(app) for p in app.rglob("*")) == before
