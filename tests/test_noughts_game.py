"""A game added without touching a shared file: noughts and crosses (tests/noughts/) joins
through its GameRecord and ``EXTRA_GAMES``, as docs/adding-a-game.md says a fifth game
does. It is played in the real `python -m bot run` process through the fake Discord: the
lobby, a computer player, the table picture and its buttons, a kill -9 and a restart in
the middle, /help from the catalogue, and the stored log replayed by `python -m bot
replay`. All the while the bot's own process loads no drawing code: Pillow and the fonts
belong in its render workers' memory (tests/test_bot_without_pillow.py: an animation's
reply too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import bot.games
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage
from tests.noughts import GAME as NOUGHTS
from tests.noughts.ai import choose
from tests.noughts.engine import ENGINE
from tests.process_harness import KillSession, Saved, replay_cli
from tests.test_process_games import component_ids, open_table, text_of, users

pytestmark = [pytest.mark.fakediscord(allow_failed=True, interaction_timeout=15.0,
                                      rate_limit_scale=0.1),
              pytest.mark.timeout(120)]


def drawing_code_in(pid: int) -> list[str]:
    """The files of Pillow's (its C modules and the libraries its wheel brings) that the
    process ``pid`` has mapped."""
    maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
    return sorted({line.split()[-1] for line in maps
                   if "/PIL/" in line or "/pillow.libs/" in line})


def ready(saved: Saved, table: FakeMessage) -> bool:
    """The table shows the saved board: its buttons carry the saved version, and its
    picture (drawn by a render worker, so it may follow the text) is attached."""
    return bool(table.attachments) and any(
        i.startswith(f"ch:nx:{saved.id}:v{saved.version}:") for i in component_ids(table))


async def test_a_test_only_game_plays_through_the_catalogue_to_the_end(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_discord
    # The bot process, its render workers and `python -m bot replay` read this; the test
    # process's own catalogue (the harness reads states through it) gets the game too.
    monkeypatch.setenv("EXTRA_GAMES", "tests.noughts")
    monkeypatch.setitem(bot.games.GAMES, "noughts", NOUGHTS)
    session = KillSession(fake, tmp_path / "cityhall.sqlite3", 1, await users(fake, "Ann"))
    await session.start()
    try:
        (ann_id, ann), = session.users.items()
        helped = await (await fake.slash(ann, fake.channel_id, "help", [])).seen(timeout=20)
        assert "Noughts and Crosses" in str(helped.data), "/help lists the catalogue's games"

        saved = await open_table(session, "noughts", {}, computers=1)
        assert [s.get("cpu", False) for s in saved.seats] == [False, True]
        marks = 0
        while True:
            saved = await session.table(ready)
            if saved.status != "active":
                break
            assert saved.state is not None
            table = session.table_message(saved)
            picture = table.attachment()
            assert picture.data.startswith(b"\x89PNG"), "the table carries its picture"
            if marks == 2:
                # kill -9 between two moves: the buttons already posted work after a restart
                await session.kill("between Ann's second and third moves")
                await session.restart()
            # Ann plays what the computer would: the game the engine plays alone, below.
            cell = choose(saved.state, ann_id)["cell"]
            answer = await (await fake.click(ann, table, f"ch:nx:{saved.id}:v{saved.version}:"
                                                          f"c{cell}")).seen(timeout=20)
            assert answer.type in (6, 7), text_of(answer)
            marks += 1
        assert saved.status == "over" and session.restarts == 1 and marks >= 3
        assert saved.state is not None and saved.state["over"]
        final = session.table_message(saved)
        await fake.wait_until(lambda: "· final" in final.content, 20, "the final table")
        alone = ENGINE.new([ann_id, "cpu1"], {}, saved.seed)
        while not alone["over"]:
            player = ENGINE.to_act(alone)[0]
            alone, _ = ENGINE.apply(alone, player, NOUGHTS.computer.normal(alone, player))
        assert saved.state["board"] == alone["board"]
        # Two players who win when they can and block when they must draw.
        assert alone["line"] is None and "Shared win" in final.content, final.content
        assert session.process is not None
        assert drawing_code_in(session.process.pid) == []
        rows = session.db.actions(saved.id)
        assert any(r.by_computer for r in rows) and any(not r.by_computer for r in rows)
        assert len(session.db.results(saved.id)) == 2
        replayed = await replay_cli(saved, rows)
        assert replayed["over"] and replayed["rejected"] == []
        assert replayed["scores"] == {ann_id: 0, "cpu1": 0}
        assert replayed["state"]["board"] == saved.state["board"]
    finally:
        await session.stop()
