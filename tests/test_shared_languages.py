"""What every game shares speaks the reader's language: durations, the winner line, lists,
the runtime's refusals, /settings' refusals, /help and /game status.

The English of the same sentences is checked where it always was (test_words,
test_settings, test_runtime_refusals, test_help): these check the other languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core import dbfile, diskfull
from bot.core.engine import IllegalAction, check_seats
from bot.core.i18n import Words, speaking
from bot.core.records import ACTIVE, Match, Seat
from bot.core.runtime import Refusal
from bot.core.server_settings import ServerSettings, SettingsError, describe_seconds
from bot.games import ENGINES
from bot.ui.game import shown_name
from bot.ui.replies import STORAGE_SENTENCES
from bot.ui.words import join_words, slash, winner_line
from fakediscord import FakeDiscord
from tests.harness import cityhall_bot, text_of
from tests.languages import Said, english_left

from .runtime_support import ANN, CHANNEL, GUILD, OpenRuntime, runtimes

__all__ = ["runtimes"]  # the fixture, used by name

ANN_SEAT = Seat("111", "Ann")
BEA_SEAT = Seat("222", "Bea")
ADA = Seat("cpu1", "Ada (computer)", cpu=True)


def table(*seats: Seat) -> Match:
    return Match(id=1, guild_id=1, channel_id=1, game="cityscape", status=ACTIVE,
                 host_id=seats[0].id, seats=list(seats), options={}, seed=1)


def test_durations_are_said_with_each_languages_words_and_plurals() -> None:
    with speaking("de"):
        assert describe_seconds(90) == "1 Minute 30 Sekunden"
        assert describe_seconds(7200) == "2 Stunden"
        assert describe_seconds(0.5) == "0,5 Sekunden"  # German writes a decimal comma
    with speaking("fr"):
        assert describe_seconds(3661) == "1 heure 1 minute 1 seconde"
        # French counts below two in the singular, by CLDR's rule
        assert describe_seconds(1.5) == "1,5 seconde"
        assert describe_seconds(150) == "2 minutes 30 secondes"


def test_numbers_in_a_sentence_are_written_the_readers_way() -> None:
    _ = Words("bot")
    sentence = "{n} points"  # not in the catalog: said as written, with the numbers localised
    for language, thousands, half in (("en", "12,345", "2.5"), ("de", "12.345", "2,5"),
                                      ("fr", "12\u202f345", "2,5"), ("pt-BR", "12.345", "2,5")):
        with speaking(language):
            assert _(sentence, n=12345) == f"{thousands} points"
            assert _(sentence, n=2.5) == f"{half} points"
            assert _(sentence, n=-7) == "-7 points"
            # an explicit format keeps Python's, a conversion the value's own
            assert _("{n:d} {n!r} {n!s}", n=12345) == "12345 12345 12345"
            assert _("{flag} {name!r}", flag=True, name="Ann") == "True 'Ann'"


def test_the_winner_line_in_german_and_french() -> None:
    match = table(ANN_SEAT, BEA_SEAT, ADA)
    with speaking("de"):
        assert winner_line(match, ["111"], {"111": 1, "222": 0}) == \
            "🏆 <@111> gewinnt mit 1 Punkt!"
        assert winner_line(match, ["111", "222"], {"111": 7, "222": 7, "cpu1": 3}) == \
            "🏆 Geteilter Sieg: <@111> und <@222> mit je 7 Punkten!"
    with speaking("fr"):
        assert winner_line(match, ["111", "222", "cpu1"], {"111": 7, "222": 7, "cpu1": 7}) == \
            "🏆 Victoire partagée : <@111>, <@222> et Ada (ordinateur) avec 7 points chacun !"
        assert winner_line(match, ["222"], {"222": 20, "111": 20}, tie_break="plus de cartes") \
            == "🏆 <@222> gagne avec 20 points, devant au départage (plus de cartes) !"


def test_the_pseudo_locale_leaves_no_english_in_a_shared_win_or_a_command() -> None:
    match = table(ANN_SEAT, BEA_SEAT, ADA)
    with speaking("en-XA"):
        line = winner_line(match, ["111", "222", "cpu1"], {"111": 7, "222": 7, "cpu1": 7})
        command = slash("game status")
    assert english_left([Said("content", line, False), Said("content", command, False)],
                        names=["Ada"]) == []
    assert "<@111>, <@222>" in line and "Ada" in line


def test_lists_are_joined_the_readers_way() -> None:
    with speaking("de"):
        assert join_words(["A", "B", "C"]) == "A, B und C"
    with speaking("fr"):
        assert join_words(["A", "B"]) == "A et B"
    with speaking("pt-BR"):
        assert join_words(["A", "B", "C"]) == "A, B e C"


def test_a_computer_player_and_its_level_are_named_in_the_readers_language() -> None:
    hard = Seat("cpu2", "Babbage (computer)", cpu=True, level="hard")
    with speaking("es"):
        assert shown_name(ADA) == "Ada (IA)"
        assert shown_name(hard) == "Babbage (difícil)"
    assert shown_name(hard) == "Babbage (hard)"  # English as before


def test_an_engines_refusal_is_said_in_the_language_current_when_it_is_read() -> None:
    with pytest.raises(IllegalAction) as refused:
        check_seats(ENGINES["cityscape"], ["1", "1"], {}, ())
    with speaking("pt-BR"):
        assert str(refused.value) == "Cada jogador só pode ocupar um lugar."
    assert str(refused.value) == "Each player can take only one seat."


async def test_a_runtime_refusal_is_said_in_spanish(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    with speaking("es"):
        with pytest.raises(Refusal, match=r"^Ya estás en esta partida\.$"):
            await runtime.join(match.id, ANN)
        with pytest.raises(Refusal) as refused:
            await runtime.start(match.id, ANN.id)
    assert str(refused.value) == "Cityscape necesita 2–4 jugadores; hay 1 sentado."


def test_a_settings_refusal_in_french() -> None:
    with speaking("fr"), pytest.raises(SettingsError) as refused:
        ServerSettings(turn_seconds=5)
    assert str(refused.value) == \
        "Le temps de tour doit être compris entre 30 secondes et 24 heures."


def test_the_database_sentences_of_bot_core_are_in_the_catalog_as_they_are_said() -> None:
    # storage_fault looks them up by their English: changed there, they would go untranslated
    assert {text.message for text in STORAGE_SENTENCES} == {dbfile.LOST, diskfull.SENTENCE}


def test_a_command_named_in_a_sentence_is_named_as_the_readers_discord_lists_it() -> None:
    with speaking("de"):
        assert slash("game status") == "/spiel status"
        assert slash("settings defaults") == "/einstellungen standards"
    with speaking("fr"):
        assert slash("moderate end") == "/modérer terminer"
    assert slash("game status") == "/game status"


async def test_help_and_game_status_answer_in_each_members_language(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    rui = await fake.add_member("Rui")
    eva = await fake.add_member("Eva")
    fake.set_locale(rui, "pt-BR")
    fake.set_locale(eva, "es-419")
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        answer = await (await fake.slash(rui, fake.channel_id, "help", [], {})).seen(timeout=5)
        assert answer.ephemeral and answer.message is not None
        (embed,) = answer.message.embeds
        assert embed["title"] == "Cityhall — jogos de tabuleiro de cidades neste servidor"
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        assert set(fields) == {"Os jogos", "Começar uma partida", "Durante a partida"}
        minutes = round(bot.settings.turn_seconds / 60)
        playing = fields["Durante a partida"]
        assert f"cerca de {minutes} minutos" in playing
        assert "`/partida status` mostra a mesa de novo" in playing
        assert "`/estatísticas` mostra os rankings deste servidor." in playing
        assert "**Entrar**" in fields["Começar uma partida"]
        # Latin-American Spanish gets the Spanish catalog; the answer names each game's /new
        status = await (await fake.slash(eva, fake.channel_id, "game", ["status"], {})
                        ).seen(timeout=5)
        assert status.ephemeral
        assert text_of(status).startswith("No hay ninguna partida en este canal. Empieza una "
                                          "con /")
