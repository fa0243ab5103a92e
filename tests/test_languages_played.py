"""Whose language where, played through the fake Discord: a French server where Ann's
Discord is German, Bob's Spanish and Cy's Brazilian Portuguese. Everything posted in the
channel is French; everything only one of them sees is in their own language; and when a
manager sets /settings language, the live table is drawn again in it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.core.i18n import language_of
from bot.games.cityscape import ai as cityscape_ai
from fakediscord import FakeDiscord
from tests import databases
from tests.harness import answer, button_id, cityhall_bot, settle, text_of
from tests.languages import Said, said_by_bot, said_in
from tests.test_discord_cityscape import build, select_id
from tests.whole_games import open_game

pytestmark = pytest.mark.one_database(databases.CHANNEL_ONLY)

# Small words each language uses in nearly every sentence, and the others do not.
MARKERS = {
    "en": {"the", "and", "your", "you", "is", "of", "with", "this", "are", "game", "turn",
           "move", "players", "player", "points", "wins", "it's", "choose"},
    "de": {"der", "die", "das", "und", "ist", "du", "dein", "deine", "deinen", "nicht", "mit",
           "für", "zug", "spiel", "den", "dem", "ein", "eine", "wähle", "spieler"},
    "es": {"el", "los", "las", "y", "tu", "tus", "con", "juego", "turno", "del", "una", "elige",
           "jugadores", "jugador", "partida", "puntos"},
    "fr": {"le", "les", "et", "ton", "ta", "tes", "avec", "pour", "jeu", "tour", "une", "du",
           "vous", "votre", "partie", "choisis", "joueurs", "joueur", "au", "aux"},
    "pt-BR": {"o", "os", "e", "seu", "sua", "seus", "você", "com", "jogo", "vez", "uma", "do",
              "não", "escolha", "jogadores", "jogador", "partida", "pontos", "ao"},
}


def language_said(text: str) -> str | None:
    """The language a sentence is in, by its small words (None: too short to tell)."""
    words = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", re.sub(r"<[^>]*>", " ", text).lower())
    if len(words) < 8:
        return None
    hits = {language: sum(w in markers for w in words) for language, markers in MARKERS.items()}
    best = max(hits, key=lambda language: hits[language])
    return best if hits[best] >= 2 else None


def wrongly_said(said: list[Said], expected: str) -> list[str]:
    return [f"{s.where} in {language_said(s.text)}: {s.text[:100]!r}" for s in said
            if language_said(s.text) not in (None, expected)]


async def test_each_player_reads_their_own_language_and_the_channel_the_servers(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    admin = await fake.add_member("Alice", administrator=True)
    ann, bob, cy = [await fake.add_member(n) for n in ("Ann", "Bob", "Cy")]
    dee = await fake.add_member("Dee")
    fake.guild.locale = "fr"
    for user, locale in ((ann, "de"), (bob, "es-ES"), (cy, "pt-BR"), (dee, "es-419"),
                         (admin, "en-US")):
        fake.set_locale(user, locale)
    languages = {str(u["id"]): language_of(fake.locales[str(u["id"])])
                 for u in (ann, bob, cy, dee, admin)}
    users = {str(u["id"]): u for u in (ann, bob, cy)}
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match_id = await open_game(fake, bot, "cityscape", ann, [bob, cy], 0, {"rounds": 1},
                                   seed=3)
        # Each sets their goals through their own private picker, then a few blocks go up.
        match = bot.runtime.get(match_id)
        assert match is not None and match.state is not None
        table = fake.message(match.table_message_id)  # type: ignore[arg-type]
        for player, user in users.items():
            picker = (await answer(await fake.click(user, table, button_id(table, "My goals")))
                      ).message
            assert picker is not None and picker.ephemeral
            for side in [s for s, o in match.state["sides"].items() if o == player]:
                for line, code in enumerate(cityscape_ai.choose_goals(match.state, side)):
                    custom_id = select_id(picker, f"ch:cs:{match_id}:r1:s{side}{line}")
                    await answer(await fake.select(user, picker, custom_id, [str(code)]))
                done = await answer(await fake.click(user, picker, button_id(
                    picker, prefix=f"ch:cs:{match_id}:r1:g{side}")))
                assert done.type == 7, text_of(done)
            await settle(bot, match_id)
        for _ in range(3):
            match = bot.runtime.get(match_id)
            assert match is not None and match.state is not None
            player = next(p for p in bot.runtime.engine(match).to_act(match.state)
                          if p in users)
            action = cityscape_ai.choose_action(match.state, player)
            _picker, done = await build(fake, bot, users[player], match_id, action["height"],
                                        action["lot"])
            assert done.type == 7, text_of(done)
            await settle(bot, match_id)
        # a watcher's click, told why not in her own Spanish; the help and the table again
        table = fake.message(bot.runtime.get(match_id).table_message_id)  # type: ignore[union-attr,arg-type]
        nosy = await answer(await fake.click(dee, table, button_id(table, "My goals")))
        assert nosy.ephemeral
        await answer(await fake.slash(ann, fake.channel_id, "help"))
        await answer(await fake.slash(cy, fake.channel_id, "game", ["status"]))

        said = list(said_by_bot(fake))
        public = [s for s in said if not s.ephemeral]
        assert len([s for s in public if language_said(s.text)]) >= 3
        assert wrongly_said(public, "fr") == []
        for message in fake.messages.values():
            if message.ephemeral and message.ephemeral_user_id in languages:
                expected = languages[message.ephemeral_user_id]
                mine = list(said_in(message))
                assert wrongly_said(mine, expected) == [], expected
        told = {m.ephemeral_user_id for m in fake.messages.values() if m.ephemeral
                and any(language_said(s.text) for s in said_in(m))}
        assert {str(u["id"]) for u in (ann, bob, cy, dee)} <= told

        # Only a manager may choose (Discord itself refuses a value outside the choices).
        refused = await answer(await fake.slash(ann, fake.channel_id, "settings", ["language"],
                                                {"language": "en"}))
        assert refused.ephemeral and "„Server verwalten“" in text_of(refused)  # in her German
        assert bot.servers.get(int(fake.guild_id)).language is None
        # The server's managers choose English: the running table is drawn again in it.
        chosen = await answer(await fake.slash(admin, fake.channel_id, "settings", ["language"],
                                               {"language": "en"}))
        assert chosen.ephemeral and language_said(text_of(chosen)) == "en"
        live = bot.runtime.get(match_id)
        assert live is not None

        def english_table() -> bool | None:
            message = fake.message(live.table_message_id)  # type: ignore[arg-type]
            return language_said(message.content + " " + " ".join(
                a.description or "" for a in message.attachments)) == "en" or None

        await fake.wait_until(english_table, 10.0, "the table drawn again in English")

