"""kill -9 in every game: the real `python -m bot run` process is killed at random clicks
(seeded; the seed is printed, KILL_SEED=<n> replays it) and restarted on the same database,
and each game is played on to its end by clicks.

After the game: every move the bot answered before a kill is in the action log exactly
once, a click in flight at a kill is there at most once, the log replays to the saved
state (in the engine and through `python -m bot replay`), the results are in once per
player, and the table's buttons worked after every restart (the game went on through them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.games.cityscape import ENGINE as CITYSCAPE
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeMessage, InteractionCallback
from tests.harness import button_id
from tests.process_harness import (
    KillSession,
    Move,
    Saved,
    plan_kills,
    play_to_the_end,
    seed_from_env,
)

# The bot is killed on purpose, so the interactions in flight then fail; the session checks
# that no other interaction failed.
pytestmark = pytest.mark.fakediscord(allow_failed=True, interaction_timeout=15.0)


def text_of(reply: InteractionCallback) -> str:
    return str((reply.data or {}).get("content", ""))


def component_ids(message: FakeMessage) -> list[str]:
    return [str(c["custom_id"]) for c in message.iter_components() if c.get("custom_id")]


async def open_table(session: KillSession, game: str, options: dict[str, Any],
                     computers: int = 0) -> Saved:
    """The first user opens a lobby, the others join, computers are added, Start."""
    fake = session.fake
    host, *others = session.users.values()
    lobby = (await (await fake.slash(host, fake.channel_id, game, ["new"], options))
             .response(timeout=20)).message
    assert lobby is not None
    for user in others:
        await (await fake.click(user, lobby, button_id(lobby, "Join"))).response(timeout=20)
    for _ in range(computers):
        await (await fake.click(host, lobby, button_id(lobby, "Add computer"))).response(timeout=20)
    started = await (await fake.click(host, lobby, button_id(lobby, "Start"))).response(timeout=20)
    assert started.type == 7, text_of(started)
    saved = session.db.match_in(fake.channel_id)
    assert saved is not None and saved.status == "active"
    session.match_id = saved.id
    return saved


async def users(fake: FakeDiscord, *names: str) -> dict[str, dict[str, Any]]:
    out = {}
    for name in names:
        member = await fake.add_member(name)
        out[str(member["id"])] = member
    return out


async def finish(session: KillSession) -> None:
    await session.check_finished()
    print(session.report())
    assert session.restarts == len(session.kills) >= 1


# -- Cityscape ----------------------------------------------------------------------------


def cityscape_ready(saved: Saved, table: FakeMessage) -> bool:
    assert saved.state is not None
    if saved.state["phase"] == "goals":
        return f"ch:cs:{saved.id}:goals" in component_ids(table)
    return any(i.startswith(f"ch:cs:{saved.id}:v{saved.version}:h") for i in component_ids(table))


async def cityscape_move(session: KillSession, saved: Saved) -> None:
    state = saved.state
    assert state is not None
    player = CITYSCAPE.to_act(state)[0]
    user = session.users[player]
    action = CITYSCAPE.ai_action(state, player)
    table = session.table_message(saved)
    match_id = saved.id
    if action["type"] == "set_goals":
        opened = await session.press(user, table, f"ch:cs:{match_id}:goals")
        picker = opened.message
        side = action["side"]
        assert picker is not None and f"({side})" in picker.content, text_of(opened)
        draft = "____"
        stamp = f"ch:cs:{match_id}:r{state['round']}"
        for line, code in enumerate(action["codes"]):
            picked = await session.press(user, picker, f"{stamp}:s{side}{line}{draft}",
                                         [str(code)])
            assert picked.type == 7, text_of(picked)
            draft = draft[:line] + str(code) + draft[line + 1:]
        await session.press(user, picker, f"{stamp}:g{side}{draft}",
                            commit=Move(player, action, saved.version),
                            accepted=lambda r: r.type == 7 and "saved" in text_of(r))
        return
    prefix = f"ch:cs:{match_id}:v{saved.version}:"
    height, lot = action["height"], action["lot"]
    opened = await session.press(user, table, f"{prefix}h{height}")
    assert opened.message is not None and opened.message.ephemeral, text_of(opened)
    await session.press(user, opened.message, f"{prefix}b{height}{lot}",
                        commit=Move(player, action, saved.version),
                        accepted=lambda r: r.type == 7 and f"on {lot}" in text_of(r))


async def test_cityscape_killed_at_random_clicks(fake_discord: FakeDiscord,
                                                 tmp_path: Path) -> None:
    seed = seed_from_env()
    print(f"KILL_SEED={seed}")
    session = KillSession(fake_discord, tmp_path / "cityhall.sqlite3", seed,
                          await users(fake_discord, "Ann", "Bob"))
    try:
        await session.start()
        await open_table(session, "cityscape", {"rounds": 1})
        # four goal pickers of six clicks, then 25 builds of two: kills in both phases, at
        # least two of them among the builds
        session.kill_at = plan_kills(session.rng, 24, 1) | plan_kills(session.rng, 50, 3,
                                                                      start=26)
        await play_to_the_end(session, cityscape_ready, cityscape_move)
        await finish(session)
    finally:
        await session.stop()
