"""A whole game of each game, played by clicks through the fake Discord, leaves the channel
as docs/channel.md promises: each turn change notifies exactly the players due (the
simultaneous goals of Cityscape notify both at once), nobody else is ever notified, a
superseded table keeps no picture or buttons, every picture (public or private) is
described in words, and only a few messages stay in the channel."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.core.i18n import language_of, speaking
from bot.core.replaying import steps
from bot.games.bigcityz import ENGINE as BIGCITYZ
from bot.games.bigcityz import content
from bot.ui.table import MOVED
from fakediscord import FakeDiscord
from tests import databases, harness
from tests.harness import WHOLE_GAME_WINDOWS, cityhall_bot
from tests.languages import PSEUDO, english_left, said_by_bot, speak, unpseudo
from tests.test_discord_bigcityz import reveals_shown
from tests.whole_games import (
    PLAY,
    TurnWatch,
    badly_described,
    notifications,
    open_game,
    superseded_with_leftovers,
)

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
def quick_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Speed: a table picture is re-drawn after every move, most of a long game's run time
    on a loaded machine. Big City's and Cities' tables get a tiny stand-in PNG (their real
    tables are drawn in tests/test_discord_bigcity.py and test_discord_cities.py); they are
    still uploaded, and still described, exactly as the real ones are."""
    from bot.games.bigcity import render as bigcity_render
    from bot.games.cities import render as cities_render

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(buffer, "PNG")
    for module in (bigcity_render, cities_render):
        monkeypatch.setattr(module, "render_table", lambda view: buffer.getvalue())


async def whole_game(fake: FakeDiscord, tmp_path: Path, game: str, *, humans: int,
                     computers: int, options: dict[str, Any], seed: int,
                     stays: tuple[str, ...], language: str = "en-US") -> dict[str, Any]:
    """Plays the game to its end and checks the channel; returns what was counted.
    ``stays``: how the notices that stay messages of their own begin (or contain), in
    English. In the pseudo-locale (``language``: the server's and every player's Discord),
    nothing the bot says may be left in English."""
    names = ["Ann", "Bob", "Cy", "Dee"][:humans]
    members = [await fake.add_member(name) for name in names]
    speak(fake, language, members)
    read = unpseudo if language == PSEUDO else str
    users = {str(m["id"]): m for m in members}
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match_id = await open_game(fake, bot, game, members[0], members[1:], computers,
                                   options, seed)
        watch = TurnWatch(fake, bot, match_id, users)
        await PLAY[game](fake, bot, match_id, users, watch.look)
        final = await bot.storage.get(match_id)
        assert final is not None and final.status == "over"
        log = await bot.storage.actions(match_id)
        # the last ping goes with the game; nobody was notified by anything else
        await fake.wait_until(lambda: not [m for m in fake.channel_messages(
            fake.channel_id, ephemeral=False) if "your move" in read(m.content)] or None,
            10.0, "the last ping removed")
        assert len(notifications(fake)) == len(watch.pings)

    public = fake.channel_messages(fake.channel_id, ephemeral=False)
    # what is left: the final table, the notices players scroll back to, and a line where
    # each earlier table was; nothing per move
    notices = [m for m in public if any(read(m.content).startswith(s) or s in read(m.content)
                                        for s in stays)]
    with speaking(language_of(language)):
        moved_line = str(MOVED)
    moved = [m for m in public if m.content == moved_line]
    others = [m.content[:60] for m in public if m not in notices and m not in moved
              and int(m.id) != final.table_message_id]
    assert others == []
    assert len(moved) <= len(notices)
    posted = fake.channel_messages(fake.channel_id, ephemeral=False, include_deleted=True)
    assert superseded_with_leftovers(fake, final.table_message_id) == []
    # the game is over: no public message offers a move any more; the final table offers
    # its replay and a rematch
    assert [m.content[:60] for m in public if list(m.iter_components())
            and int(m.id) != final.table_message_id] == []
    assert final.table_message_id is not None
    assert harness.finished_buttons(fake.message(final.table_message_id)) == ["replay", "rematch"]
    uploads = sum(len(r.files) for r in fake.requests if r.status < 400)
    assert uploads > 0 and badly_described(fake) == []
    # private replies showing a picture at some point (a chooser's loses it once used)
    private = [m for m in fake.messages.values() if m.ephemeral and (
        m.attachments or any(version["attachments"] for version in m.history))]
    if language == PSEUDO:
        cpus = [seat.name.split(" (")[0] for seat in final.seats if seat.cpu]
        cities = [content.name(city) for city in content.city_ids()] \
            if game == "bigcityz" else []
        left = english_left(said_by_bot(fake), [*names, *cpus, *PROPER_NAMES, *cities])
        assert left == [], "\n".join(left)
    seen = {"left": len(public), "notices": len(notices), "posted": len(posted), "pings": len(watch.pings),
            "looks": watch.looks, "uploads": uploads, "private pictures": len(private)}
    print(game, seen, [m.content[:50] for m in public])  # docs/channel.md's figures
    return {**seen, "final": final, "public": public, "log": log}


CITYSCAPE_STAYS = ("**Round ",)
# Names, not words: the games' own and Discord's.
PROPER_NAMES = ("Cityscape", "Big Cityz", "Big City", "Cities", "Cityhall", "Discord")


# Whole games: Discord's limits with shorter windows (tests/harness.py).
@pytest.mark.one_database(databases.CHANNEL_ONLY)
@pytest.mark.fakediscord(rate_limit_scale=WHOLE_GAME_WINDOWS)
async def test_a_two_player_cityscape_game(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    seen = await whole_game(fake_discord, tmp_path, "cityscape", humans=2, computers=0,
                            options={"rounds": 2}, seed=3, stays=CITYSCAPE_STAYS)
    # each round's goals (both players at once), then every building turn: a ping each
    assert seen["pings"] >= 40
    scored = [m for m in seen["public"] if "scored** — goals revealed" in m.content]
    assert len(scored) == 2 and all(m.attachments for m in scored)
    # two rounds' scoring, the final table, the line where the first table was
    assert seen["left"] <= 4, [m.content[:60] for m in seen["public"]]


@pytest.mark.one_database(databases.CHANNEL_ONLY)
@pytest.mark.fakediscord(rate_limit_scale=WHOLE_GAME_WINDOWS)
async def test_cityscape_against_a_computer_pings_only_the_human_in_the_pseudo_locale(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    seen = await whole_game(fake_discord, tmp_path, "cityscape", humans=1, computers=1,
                            options={"rounds": 1}, seed=4, stays=CITYSCAPE_STAYS,
                            language=PSEUDO)
    assert seen["pings"] >= 10
    assert seen["left"] <= 2, [m.content[:60] for m in seen["public"]]


@pytest.mark.one_database(databases.CHANNEL_ONLY)
@pytest.mark.fakediscord(rate_limit_scale=WHOLE_GAME_WINDOWS)
async def test_a_two_player_big_cityz_game_in_the_pseudo_locale(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    # The longest objection window: the test answers every window itself; at the default
    # 20 s, one closed on its own under a CPU hog before the test looked, and its ping
    # went uncounted.
    seen = await whole_game(fake_discord, tmp_path, "bigcityz", humans=2, computers=0,
                            options={"veto_seconds": 120}, seed=6,
                            stays=(), language=PSEUDO)
    final = seen["final"]
    assert final.state is not None and BIGCITYZ.result(final.state) is not None
    turns = sum(final.state["turns"].values())
    # every turn: the player placing, then the other player's window to object while they
    # still hold a veto marker ("every other player who still has a veto marker may
    # object"); the players' ids, and so the game, differ from run to run
    replayed = list(steps(BIGCITYZ, final.player_ids, final.options, final.seed, seen["log"]))
    assert replayed[-1].state == final.state
    windows = sum(e["type"] == "veto_window_opened" for step in replayed for e in step.events)
    assert windows >= 1 and seen["pings"] == turns + windows
    # every turn's reveal was shown beside the board, and none as a message of its own:
    # the whole game leaves its table alone in the channel
    assert len(reveals_shown(fake_discord)) == turns and seen["notices"] == 0
    assert seen["left"] == 1, [m.content[:60] for m in seen["public"]]
    # a window to object is asked as one, not as a move with time running out
    texts = [unpseudo(n.content) for n in notifications(fake_discord)]
    assert any("object to the placement, or let it stand, in **Big Cityz** — objections "
               "close" in t for t in texts), texts[:4]
    assert any("your move in **Big Cityz** — time runs out" in t for t in texts)
    assert not any("your move" in t and "objections" in t for t in texts)


@pytest.mark.one_database(databases.CHANNEL_ONLY)
@pytest.mark.fakediscord(rate_limit_scale=WHOLE_GAME_WINDOWS)
async def test_a_two_player_big_city_game_in_the_pseudo_locale(fake_discord: FakeDiscord, tmp_path: Path,
                                          quick_tables: None) -> None:
    seen = await whole_game(fake_discord, tmp_path, "bigcity", humans=2, computers=0,
                            options={}, seed=8, stays=("Big City is over",),
                            language=PSEUDO)
    assert seen["pings"] >= 20
    assert seen["private pictures"] > 0  # the choosers' previews were checked too
    # the final table and "Big City is over" with the final city
    assert seen["left"] <= 2, [m.content[:60] for m in seen["public"]]


@pytest.mark.one_database(databases.CHANNEL_ONLY)
@pytest.mark.fakediscord(rate_limit_scale=WHOLE_GAME_WINDOWS)
async def test_a_two_player_cities_game_in_the_pseudo_locale(fake_discord: FakeDiscord, tmp_path: Path,
                                        quick_tables: None) -> None:
    seen = await whole_game(fake_discord, tmp_path, "cities", humans=2, computers=0,
                            options={}, seed=9,
                            stays=("is over.** ", "🏅 ", "final scoring"), language=PSEUDO)
    final = seen["final"]
    assert final.state is not None
    rounds = [m for m in seen["public"] if "is over.** " in unpseudo(m.content)]
    assert len(rounds) == final.state["rounds"] - 1
    assert seen["pings"] >= 20
    assert seen["private pictures"] > 0  # the choosers' previews were checked too
    # round ends, achievements and the final scoring; a line per earlier table; the table
    assert seen["left"] <= 2 * seen["notices"] + 1, [m.content[:60] for m in seen["public"]]
    # what each player took is told in the table's text (the taken space is only empty)
    shown = [unpseudo(text) for m in fake_discord.messages.values() if not m.ephemeral
             for text in [m.content, *(v["content"] for v in m.history)]]
    takers = {line.split(" took ")[0].strip("*⏰ ") for text in shown
              for line in text.splitlines() if " took " in line}
    assert {"Ann", "Bob"} <= takers, takers
