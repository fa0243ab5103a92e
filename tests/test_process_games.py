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

from bot.games import GAMES
from bot.games.bigcity import ENGINE as BIGCITY
from bot.games.bigcityz import ENGINE as BIGCITYZ
from bot.games.cityscape import ENGINE as CITYSCAPE
from bot.ui.paged import PAGE_SIZE
from cogs.bigcity import neighborhood_groups, of_kind
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage, InteractionCallback
from tests.harness import button_id
from tests.process_harness import (
    KillSession,
    Move,
    Saved,
    plan_kills,
    play_to_the_end,
    seed_from_env,
)
from tests.test_discord_cities import computer_move

# The bot is killed on purpose, so the interactions in flight then fail; the session checks
# that no other interaction failed. A test takes 15-25 s of CPU (two processes, a start per
# kill); in make test's parallel run, with the other workers' tests beside it, up to 63 s
# on the idle machine: the limit is twice that, stretched on a busy machine like any other.
pytestmark = [pytest.mark.fakediscord(allow_failed=True, interaction_timeout=15.0,
                                      rate_limit_scale=0.1),
              pytest.mark.timeout(120)]


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
             .seen(timeout=20)).message
    assert lobby is not None
    for user in others:
        await (await fake.click(user, lobby, button_id(lobby, "Join"))).seen(timeout=20)
    for _ in range(computers):
        await (await fake.click(host, lobby, button_id(lobby, "Add computer"))).seen(timeout=20)
    started = await (await fake.click(host, lobby, button_id(lobby, "Start"))).seen(timeout=20)
    assert started.type == 7, text_of(started)
    saved = session.db.match_in(fake.channel_id)
    assert saved is not None and saved.status == "active"
    session.match_id = saved.id
    return saved


async def kill_session(fake: FakeDiscord, tmp_path: Path, *names: str) -> KillSession:
    """A session for members ``names`` whose kills are drawn from KILL_SEED (or a new seed,
    printed so that a failure can be run again)."""
    seed = seed_from_env()
    print(f"KILL_SEED={seed}")
    return KillSession(fake, tmp_path / "cityhall.sqlite3", seed, await users(fake, *names))


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


def shows_version(table: FakeMessage, code: str, saved: Saved) -> bool:
    """Whether the table has buttons for the saved version (``ch:<code>:<match>:v<n>:``):
    the bot has caught up with the last move."""
    base = f"ch:{code}:{saved.id}:v{saved.version}:"
    return any(i.startswith(base) for i in component_ids(table))


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
    action = GAMES[CITYSCAPE.name].computer.normal(state, player)
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
    session = await kill_session(fake_discord, tmp_path, "Ann", "Bob")
    try:
        await session.start()
        await open_table(session, "cityscape", {"rounds": 1})
        # four goal pickers of six clicks, then 25 builds of two clicks: a kill among the
        # goals, three among the builds
        session.kill_at = plan_kills(session.rng, 1, 2, 24) | plan_kills(session.rng, 3, 26, 74)
        await play_to_the_end(session, cityscape_ready, cityscape_move)
        await finish(session)
    finally:
        await session.stop()


# -- Big Cityz ----------------------------------------------------------------------------


def bigcityz_ready(saved: Saved, table: FakeMessage) -> bool:
    assert saved.state is not None
    ids = component_ids(table)
    if saved.state["phase"] == "veto":
        # objection buttons carry the city card's stamp (the cards left in the pile), so an
        # earlier window's buttons are told apart from this one's
        return f"ch:bz:{saved.id}:c{len(saved.state['city_pile'])}:noveto" in ids
    return f"ch:bz:{saved.id}:v{saved.version}:place" in ids


class BigCityzPlayers:
    """The humans' Big Cityz moves by clicks, with a kill planned into an open objection
    window twice: once with no click in flight, once on the answer's click."""

    def __init__(self, idle_kill_after: int, click_kill_after: int) -> None:
        self.turns = 0
        self.idle_kill_after = idle_kill_after
        self.click_kill_after = click_kill_after
        self.idle_kills = 0
        self.veto_click_kills = 0

    async def move(self, session: KillSession, saved: Saved) -> None:
        state = saved.state
        assert state is not None
        self.turns += 1
        player = BIGCITYZ.to_act(state)[0]
        user = session.users[player]
        action = GAMES[BIGCITYZ.name].computer.normal(state, player)
        table = session.table_message(saved)
        if state["phase"] == "veto":
            if not self.idle_kills and self.turns > self.idle_kill_after:
                self.idle_kills += 1
                await session.kill_now(f"objection window open on v{saved.version}")
            if not self.veto_click_kills and self.turns > self.click_kill_after:
                self.veto_click_kills += 1
                session.kill_at.add(session.clicks + 1)
            answer = "veto" if action["type"] == "veto" else "noveto"
            stamp = len(state["city_pile"])
            await session.press(user, table, f"ch:bz:{saved.id}:c{stamp}:{answer}",
                                commit=Move(player, action, saved.version),
                                accepted=lambda r: "Objection raised" in text_of(r)
                                or "No objection from you" in text_of(r))
            return
        prefix = f"ch:bz:{saved.id}:v{saved.version}:"
        opened = await session.press(user, table, f"{prefix}place")
        chooser = opened.message
        assert chooser is not None and chooser.ephemeral and "Where does" in chooser.content, \
            text_of(opened)
        index = [la.action for la in BIGCITYZ.legal(state, player)].index(action)
        if action["type"] == "place":
            await session.press(user, chooser, f"{prefix}pick", [str(index)],
                                commit=Move(player, action, saved.version),
                                accepted=lambda r: r.type == 7 and "You put it" in text_of(r))
        else:  # replace a board, or "there's no free square"
            await session.press(user, chooser, f"{prefix}a{index}",
                                commit=Move(player, action, saved.version),
                                accepted=lambda r: r.type == 7)


async def test_bigcityz_killed_at_random_clicks_and_in_objection_windows(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    session = await kill_session(fake_discord, tmp_path, "Ann", "Bob")
    # the longest objection window, so that no timer closes one while the bot is down
    players = BigCityzPlayers(session.rng.randrange(0, 8), session.rng.randrange(8, 16))
    try:
        await session.start()
        await open_table(session, "bigcityz", {"veto_seconds": 120})
        # a game is some 20 turns: a placement is two clicks, an answer one
        session.kill_at = plan_kills(session.rng, 2, 2, 30)
        await play_to_the_end(session, bigcityz_ready, players.move)
        assert players.idle_kills == 1 and players.veto_click_kills == 1
        await finish(session)
    finally:
        await session.stop()


# -- Cities -------------------------------------------------------------------------------


def cities_ready(saved: Saved, table: FakeMessage) -> bool:
    return shows_version(table, "ct", saved)


class CitiesPlayers:
    """The humans' Cities moves by clicks: a take on the table (answered with a private
    chooser), then each placement in that chooser (re-opened from the table when it is
    out of date, e.g. after a restart). Kills are planned mid-turn with features pending:
    once between clicks, once on a placement's click."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.moves = 0
        self.choosers: dict[str, FakeMessage] = {}
        self.pending_kills: list[str] = []
        self.restarts = 0

    async def move(self, session: KillSession, saved: Saved) -> None:
        state = saved.state
        assert state is not None
        self.moves += 1
        if session.restarts != self.restarts:
            # after a restart, start from the table (its buttons are what is checked); an
            # old chooser would work too, see tests/test_discord_cities.py
            self.restarts = session.restarts
            self.choosers.clear()
        player, action, legal, index = computer_move(state)
        user = session.users[player]
        base = f"ch:ct:{saved.id}:v{saved.version}"
        table = session.table_message(saved)
        pending = state["pending"]
        kill_on_commit = False
        if pending is not None and pending["row"] == "features" and self.moves > self.after:
            if "idle" not in self.pending_kills:
                self.pending_kills.append("idle")
                await session.kill_now(f"features pending on v{saved.version}: {pending}")
            elif "click" not in self.pending_kills:
                self.pending_kills.append("click")
                kill_on_commit = True
        commit = Move(player, action, saved.version)
        if action["type"] in ("take", "choose_start_tile"):
            after = f"{base[:base.rindex(':v')]}:v{saved.version + 1}:"

            def took(r: InteractionCallback) -> bool:
                if r.type != 4 or r.message is None:
                    return False
                return text_of(r).startswith(("You took", "You start with")) or any(
                    i.startswith(after) for i in component_ids(r.message))

            reply = await session.press(user, table, f"{base}:a{index}", commit=commit,
                                        accepted=took)
            assert reply.message is not None
            self.choosers[player] = reply.message
            return
        chooser = self.choosers.get(player)
        if chooser is None or not any(i.startswith(f"{base}:") for i in component_ids(chooser)):
            opened = await session.press(user, table, f"{base}:o0p0")
            assert opened.type == 4 and opened.message is not None, text_of(opened)
            chooser = opened.message
            self.choosers[player] = chooser
        keys = list(dict.fromkeys(pending["items"]))
        key = action.get("feature") or action.get("color")
        focus = 0 if pending["row"] == "tiles" else keys.index(key)
        spots = [i for i, a in enumerate(legal) if a["type"].startswith("place")
                 and ((focus == 0 and pending["row"] == "tiles")
                      or (a.get("feature") or a.get("color")) == keys[focus])]
        page = spots.index(index) // PAGE_SIZE if index in spots else 0
        for p in ([0] if focus else []) + list(range(1, page + 1)):
            turned = await session.press(user, chooser, f"{base}:o{focus}p{p}")
            assert turned.type == 7, text_of(turned)
        if kill_on_commit:
            session.kill_at.add(session.clicks + 1)  # the placement's own click
        if action["type"].startswith("discard"):
            await session.press(user, chooser, f"{base}:a{index}", commit=commit,
                                accepted=lambda r: r.type == 7)
        else:
            await session.press(user, chooser, f"{base}:s{focus}p{page}", [str(index)],
                                commit=commit, accepted=lambda r: r.type == 7)


async def test_cities_killed_at_random_clicks_and_mid_turn(fake_discord: FakeDiscord,
                                                           tmp_path: Path) -> None:
    session = await kill_session(fake_discord, tmp_path, "Ann")
    players = CitiesPlayers(session.rng.randrange(5, 30))
    try:
        await session.start()
        # one human and a computer: a whole two-human game is too long for one test
        await open_table(session, "cities", {}, computers=1)
        session.kill_at = plan_kills(session.rng, 1, 3, 80)
        await play_to_the_end(session, cities_ready, players.move)
        assert players.pending_kills == ["idle", "click"]
        await finish(session)
    finally:
        await session.stop()


# -- Big City -----------------------------------------------------------------------------


def bigcity_ready(saved: Saved, table: FakeMessage) -> bool:
    return shows_version(table, "bc", saved)


def select_values(message: FakeMessage, custom_id: str) -> list[str]:
    menu = next(c for c in message.iter_components() if c.get("custom_id") == custom_id)
    return [str(o["value"]) for o in menu.get("options", [])]


async def bigcity_move(session: KillSession, saved: Saved) -> None:
    """One human move, the computer player's choice, clicked as a person would: draws on
    the table; the rest through the category's private chooser (its lettered menu paged to
    the right page, or the card menu) and its confirm button."""
    state = saved.state
    assert state is not None
    player = BIGCITY.to_act(state)[0]
    user = session.users[player]
    action = GAMES[BIGCITY.name].computer.normal(state, player)
    legal = [la.action for la in BIGCITY.legal(state, player)]
    index = legal.index(action)
    kind = action["type"]
    base = f"ch:bc:{saved.id}:v{saved.version}"
    commit = Move(player, action, saved.version)
    table = session.table_message(saved)
    if kind == "draw":
        await session.press(user, table, f"{base}:a{index}", commit=commit,
                            accepted=lambda r: "You drew" in text_of(r))
        return

    async def open_chooser(code: str) -> FakeMessage:
        opened = await session.press(user, table, f"{base}:c{code}")
        assert opened.type == 4 and opened.message is not None, text_of(opened)
        return opened.message

    async def pick(message: FakeMessage, code: str, arg: str, position: int, choice: int) -> None:
        page = position // PAGE_SIZE
        for p in range(1, page + 1):
            turned = await session.press(user, message, f"{base}:c{code}{arg}:p{p}")
            assert turned.type == 7, text_of(turned)
        menu = f"{base}:l{code}{arg}:p{page}"
        assert str(choice) in select_values(message, menu)
        picked = await session.press(user, message, menu, [str(choice)])
        assert picked.type == 7, text_of(picked)

    if kind in ("build", "special", "place_neighborhood", "streetcar"):
        code = {"build": "b", "special": "k", "place_neighborhood": "n", "streetcar": "s"}[kind]
        message = await open_chooser(code)
        options = [i for i, a in enumerate(legal) if a["type"] == kind]
        arg = ""
        if kind == "place_neighborhood":
            # two menus: the neighbourhood and side (when there is a choice), then the place
            group = next(g for g in neighborhood_groups(state, of_kind(
                BIGCITY.legal(state, player), "n")) if index in [i for i, _la in g.options])
            if f"{base}:gn:p0" in component_ids(message):
                turned = await session.press(user, message, f"{base}:gn:p0", [str(group.code)])
                assert turned.type == 7, text_of(turned)
            arg = str(group.code)
            options = [i for i, _la in group.options]
        if kind == "streetcar":
            singles = [i for i in options if len(legal[i]["segments"]) == 1]
            first = index if len(action["segments"]) == 1 else next(
                i for i in singles if legal[i]["segments"][0] in action["segments"])
            await pick(message, "s", "", singles.index(first), first)
            if f"{base}:ls{first}:p0" in component_ids(message):  # the second-streetcar menu
                pairs = [first] + [i for i in options if len(legal[i]["segments"]) == 2
                                   and legal[first]["segments"][0] in legal[i]["segments"]]
                await pick(message, "s", str(first), pairs.index(index), index)
        else:
            await pick(message, code, arg, options.index(index), index)
    elif kind in ("exchange", "discard_useless"):
        code = {"exchange": "x", "discard_useless": "d"}[kind]
        message = await open_chooser(code)
        picked = await session.press(user, message, f"{base}:m{code}",
                                     [str(c) for c in action["cards"]])
        assert picked.type == 7, text_of(picked)
    else:
        assert kind == "pass", action
        message = await open_chooser("p")
    await session.press(user, message, f"{base}:a{index}", commit=commit,
                        accepted=lambda r: r.type == 7)


async def test_bigcity_killed_at_random_clicks(fake_discord: FakeDiscord,
                                               tmp_path: Path) -> None:
    session = await kill_session(fake_discord, tmp_path, "Ann")
    try:
        await session.start()
        # one human and a computer: a whole two-human game is too long for one test
        await open_table(session, "bigcity", {}, computers=1)
        # the human's share of a game is some 130 clicks
        session.kill_at = plan_kills(session.rng, 3, 3, 110)
        await play_to_the_end(session, bigcity_ready, bigcity_move)
        await finish(session)
    finally:
        await session.stop()
