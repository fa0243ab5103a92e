"""Tests of the FakeDiscord harness itself, driven by a tiny discord.py bot defined here."""

from __future__ import annotations

import asyncio
import io
import re
import zlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands
from PIL import Image

from bot.core import discord_api
from fakediscord import FakeDiscord, FakeDiscordError, find_button, load_spec
from fakediscord.runner import running_bot

# -- the tiny bot --------------------------------------------------------------------------


def make_png(size: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8 * size, 8), (40, 120, 200)).save(buf, format="PNG")
    return buf.getvalue()


class RollButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"roll:(?P<size>\d+)"):
    def __init__(self, size: int) -> None:
        super().__init__(
            discord.ui.Button(label=f"Roll d{size}", style=discord.ButtonStyle.primary, custom_id=f"roll:{size}")
        )
        self.size = size

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RollButton:
        return cls(int(match["size"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        board = discord.File(io.BytesIO(make_png(self.size)), filename="board.png")
        view = discord.ui.View(timeout=None)
        view.add_item(RollButton(self.size))
        await interaction.response.edit_message(content=f"Rolled a d{self.size}", attachments=[board], view=view)


class NameModal(discord.ui.Modal, title="Name your city"):
    city: discord.ui.TextInput[Any] = discord.ui.TextInput(label="City", custom_id="city")

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(f"Welcome to {self.city.value}")


class PickView(discord.ui.View):
    @discord.ui.select(custom_id="pick", options=[discord.SelectOption(label=x, value=x) for x in ("red", "blue")])
    async def pick(self, interaction: discord.Interaction[Any], select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_message(f"picked {select.values[0]}", ephemeral=True)


class GameGroup(app_commands.Group, name="game", description="Play a game"):
    @app_commands.command(name="start", description="Start a game")
    @app_commands.describe(size="Die size")
    async def start(self, interaction: discord.Interaction[Any], size: app_commands.Range[int, 2, 20] = 6) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(RollButton(size))
        await interaction.response.send_message(f"A d{size} game", view=view)

    @app_commands.command(name="secret", description="Whisper")
    async def secret(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("only you", ephemeral=True, view=PickView())

    @app_commands.command(name="twice", description="Answers twice")
    async def twice(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("first")
        try:  # a fresh InteractionResponse bypasses discord.py's own double-response guard
            await discord.InteractionResponse(interaction).send_message("second")
        except discord.HTTPException as exc:
            assert isinstance(interaction.client, TinyBot)
            interaction.client.second_ack_error = exc

    @app_commands.command(name="ignore", description="Never answers")
    async def ignore(self, interaction: discord.Interaction[Any]) -> None:
        return None

    @app_commands.command(name="slow", description="Defers, then follows up")
    async def slow(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(thinking=True, ephemeral=True)
        await interaction.followup.send("done thinking")
        await interaction.followup.send("and one more")

    @app_commands.command(name="name", description="Opens a modal")
    async def name_city(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_modal(NameModal())


class TinyBot(commands.Bot):
    def __init__(self, guild_id: str) -> None:
        super().__init__(
            command_prefix="!", intents=discord.Intents.default(), help_command=None,
            guild_ready_timeout=0.05,
        )
        self.guild_obj = discord.Object(int(guild_id))
        self.second_ack_error: discord.HTTPException | None = None

    async def setup_hook(self) -> None:
        await discord_api.gateway_from_api(self)
        self.add_dynamic_items(RollButton)
        self.tree.add_command(GameGroup(), guild=self.guild_obj)
        await self.tree.sync(guild=self.guild_obj)


@pytest.fixture
async def tiny_bot(fake_discord: FakeDiscord) -> AsyncIterator[TinyBot]:
    async with running_bot(fake_discord, TinyBot(fake_discord.guild_id)) as running:
        yield running


# -- tests -----------------------------------------------------------------------------------


async def test_ready_guild_create_and_sync(fake_discord: FakeDiscord, tiny_bot: TinyBot) -> None:
    fake = fake_discord
    bot = tiny_bot
    assert bot.user is not None and str(bot.user.id) == fake.application_id
    guild = bot.get_guild(int(fake.guild_id))
    assert guild is not None and guild.me is not None
    assert {c.name for c in guild.text_channels} >= {"general", "games"}
    assert [t.name for t in guild.threads] == ["game-thread"]
    (game,) = fake.commands(fake.guild_id)
    assert game["name"] == "game" and game["guild_id"] == fake.guild_id
    assert {o["name"] for o in game["options"]} >= {"start", "secret", "twice", "ignore"}
    assert any(r.method == "PUT" and r.route and r.route.endswith("/commands") for r in fake.requests)
    # discord.py asked for zlib transport compression, which the fake honoured.
    assert fake.sessions and not fake.validation_errors


@pytest.mark.usefixtures("tiny_bot")
async def test_slash_then_click_updates_message_with_png(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    alice = await fake.add_member("alice")
    ix = await fake.slash(alice, fake.channel_id, "game", "start", {"size": 12})
    cb = await ix.response(timeout=2)
    assert cb.type == 4 and cb.message is not None
    msg = cb.message
    assert msg.content == "A d12 game" and not msg.ephemeral and msg.interaction_id == ix.id
    button = find_button(msg, label="Roll d12")
    assert button["custom_id"] == "roll:12"

    click = await fake.click(alice, msg, button["custom_id"])
    cb2 = await click.response(timeout=2)
    assert cb2.type == 7 and cb2.message is msg  # edited in place
    assert msg.content == "Rolled a d12" and len(msg.history) == 1
    assert msg.history[0]["content"] == "A d12 game"
    png = msg.attachment("board.png")
    assert png.image().size == (96, 8)
    assert cb2.files[0].filename == "board.png"
    assert fake.last_message(fake.channel_id) is msg
    assert fake.validation_errors == [] and fake.errors == []


@pytest.mark.usefixtures("tiny_bot")
async def test_ephemeral_reply_and_select(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    bob = await fake.add_member("bob", manage_messages=True)
    ix = await fake.slash(bob, fake.channel_id, "game", "secret")
    msg = (await ix.response(timeout=2)).message
    assert msg is not None and msg.ephemeral and msg.ephemeral_user_id == bob["id"]
    assert fake.last_message(fake.channel_id, ephemeral=True) is msg
    carol = await fake.add_member("carol")
    with pytest.raises(FakeDiscordError, match="ephemeral for another user"):
        await fake.select(carol, msg, "pick", ["red"])
    with pytest.raises(FakeDiscordError, match="no option"):
        await fake.select(bob, msg, "pick", ["green"])
    pick = await fake.select(bob, msg, "pick", ["blue"])
    reply = (await pick.response(timeout=2)).message
    assert reply is not None and reply.content == "picked blue" and reply.ephemeral


async def test_double_acknowledge_is_rejected_and_recorded(fake_discord: FakeDiscord, tiny_bot: TinyBot) -> None:
    fake = fake_discord
    bot = tiny_bot
    alice = await fake.add_member("alice")
    ix = await fake.slash(alice, fake.channel_id, "game", "twice")
    await ix.response(timeout=2)
    await fake.wait_until(lambda: bot.second_ack_error is not None, 2, "second ack error")
    assert bot.second_ack_error is not None and bot.second_ack_error.code == 40060
    assert [e.code for e in fake.errors] == [40060]
    assert ix.rejected_callbacks == [4]
    fake.errors.clear()  # expected in this test


@pytest.mark.usefixtures("tiny_bot")
async def test_unanswered_interactions_fail(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    # Same as @pytest.mark.fakediscord(interaction_timeout=0.2) once the plugin is in conftest.
    fake.interaction_timeout = 0.2
    alice = await fake.add_member("alice")
    ignored = await fake.slash(alice, fake.channel_id, "game", "ignore")
    forged = await fake.click_raw(alice, fake.channel_id, "roll:not-a-number")
    await fake.wait_until(lambda: len(fake.failed_interactions) == 2, 1.0, "two failed interactions")
    assert ignored.failed and not ignored.answered and forged.failed
    with pytest.raises(AssertionError, match="no interaction callback"):
        await ignored.response(timeout=0.05)
    fake.failed_interactions.clear()  # expected in this test


@pytest.mark.usefixtures("tiny_bot")
async def test_deferred_followup_replaces_thinking_message(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    alice = await fake.add_member("alice")
    ix = await fake.slash(alice, fake.channel_id, "game", "slow")
    cb = await ix.response(timeout=2)
    assert cb.type == 5
    first, second = await ix.followups(count=2, timeout=2)
    original = await ix.original_message(timeout=2)
    assert first is original and original.content == "done thinking" and original.ephemeral
    assert not original.loading and second.content == "and one more"


@pytest.mark.usefixtures("tiny_bot")
async def test_modal_round_trip(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    alice = await fake.add_member("alice")
    ix = await fake.slash(alice, fake.channel_id, "game", "name")
    assert (await ix.response(timeout=2)).type == 9 and ix.modal is not None
    submit = await fake.submit_modal(alice, ix, {"city": "Springfield"})
    reply = (await submit.response(timeout=2)).message
    assert reply is not None and reply.content == "Welcome to Springfield"


@pytest.mark.usefixtures("tiny_bot")
async def test_slash_checks_against_synced_definitions(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    alice = await fake.add_member("alice")
    with pytest.raises(FakeDiscordError, match="no synced command /nope"):
        await fake.slash(alice, fake.channel_id, "nope")
    with pytest.raises(FakeDiscordError, match="no subcommand 'stop'"):
        await fake.slash(alice, fake.channel_id, "game", "stop")
    with pytest.raises(FakeDiscordError, match="is a group"):
        await fake.slash(alice, fake.channel_id, "game")
    with pytest.raises(FakeDiscordError, match="max_value"):
        await fake.slash(alice, fake.channel_id, "game", "start", {"size": 99})
    with pytest.raises(FakeDiscordError, match="INTEGER"):
        await fake.slash(alice, fake.channel_id, "game", "start", {"size": "6"})
    # The escape hatch sends what real clients never would; discord.py rejects it itself.
    ix = await fake.slash(alice, fake.channel_id, "game", "start",
                          raw_options=[{"name": "size", "type": 4, "value": "six"}])
    assert ix.payload["data"]["options"][0]["options"][0]["value"] == "six"


async def test_channel_message_attachments_kept_and_replaced(fake_discord: FakeDiscord, tiny_bot: TinyBot) -> None:
    fake = fake_discord
    bot = tiny_bot
    channel = bot.get_channel(int(fake.channel_id))
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("board", file=discord.File(io.BytesIO(make_png(2)), filename="a.png"))
    stored = fake.message(sent.id)
    first_id = stored.attachments[0].id
    edited = await sent.edit(attachments=[sent.attachments[0], discord.File(io.BytesIO(make_png(3)), "b.png")])
    assert [a.filename for a in stored.attachments] == ["a.png", "b.png"]
    assert stored.attachments[0].id == first_id  # kept, not re-uploaded
    final = await edited.edit(attachments=[discord.File(io.BytesIO(make_png(4)), "c.png")])
    assert [a.filename for a in stored.attachments] == ["c.png"]
    assert stored.attachment().image().size == (32, 8)
    assert await final.attachments[0].read() == stored.attachment("c.png").data  # served by the fake
    assert len(stored.history) == 2 and fake.validation_errors == []


async def test_attachment_descriptions_are_kept_and_their_length_checked(
        fake_discord: FakeDiscord, tiny_bot: TinyBot) -> None:
    fake = fake_discord
    channel = tiny_bot.get_channel(int(fake.channel_id))
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("board", file=discord.File(
        io.BytesIO(make_png(2)), "a.png", description="A board, Ann to play"))
    assert fake.message(sent.id).attachment("a.png").description == "A board, Ann to play"
    assert sent.attachments[0].description == "A board, Ann to play"
    assert fake.validation_errors == []
    # Discord allows 1,024 characters of alt text (MessageAttachmentRequest.description)
    await channel.send("board", file=discord.File(io.BytesIO(make_png(2)), "b.png",
                                                  description="x" * 1025))
    errors = fake.validation_errors
    assert any("description" in e and "$.attachments[0]" in e for e in errors), errors
    fake.validation_errors.clear()


async def test_validation_catches_invalid_body(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    url = f"{fake.api_base}/channels/{fake.channel_id}/messages"
    body = {"content": 5, "components": [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "x", "custom_id": "c" * 101}]}]}
    async with aiohttp.ClientSession() as http, http.post(
        url, json=body, headers={"Authorization": f"Bot {fake.token}"}
    ) as resp:
        await resp.read()
    errors = fake.validation_errors
    assert any("/channels/{channel_id}/messages" in e and "$.content" in e for e in errors), errors
    assert any("custom_id" in e and "$.components[0].components[0]" in e for e in errors), errors
    fake.validation_errors.clear()
    fake.errors.clear()  # the fake also refused the (empty-looking) message


@pytest.mark.usefixtures("tiny_bot")
async def test_resume_after_reconnect(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    (session,) = fake.sessions.values()
    await fake.reconnect()
    await fake.wait_until(lambda: session.resumes == 1 and session.connection is not None, 3, "RESUME")
    alice = await fake.add_member("alice")
    ix = await fake.slash(alice, fake.channel_id, "game", "start")
    assert (await ix.response(timeout=2)).type == 4
    assert len(fake.sessions) == 1


async def test_gateway_zlib_stream_framing(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    inflator = zlib.decompressobj()
    async with aiohttp.ClientSession() as http, http.ws_connect(
        fake.gateway_url + "?v=10&encoding=json&compress=zlib-stream"
    ) as ws:
        frame = await asyncio.wait_for(ws.receive_bytes(), 2)
        assert frame.endswith(b"\x00\x00\xff\xff")
        hello = inflator.decompress(frame)
        assert b'"op":10' in hello
        await ws.send_json({"op": 1, "d": None})
        ack = inflator.decompress(await asyncio.wait_for(ws.receive_bytes(), 2))
        assert ack == b'{"op":11}'


async def test_gateway_zstd_stream_framing(fake_discord: FakeDiscord) -> None:
    zstandard = pytest.importorskip("zstandard")  # discord.py uses zstd-stream when installed
    fake = fake_discord
    inflator = zstandard.ZstdDecompressor().decompressobj()
    async with aiohttp.ClientSession() as http, http.ws_connect(
        fake.gateway_url + "?v=10&encoding=json&compress=zstd-stream"
    ) as ws:
        hello = inflator.decompress(await asyncio.wait_for(ws.receive_bytes(), 2))
        assert b'"op":10' in hello


async def test_unknown_route_and_bad_token_are_errors(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{fake.api_base}/guilds/{fake.guild_id}/audit-logs",
                            headers={"Authorization": f"Bot {fake.token}"}) as resp:
            assert resp.status == 404 and (await resp.json())["code"] == 0
        async with http.get(f"{fake.api_base}/users/@me", headers={"Authorization": "Bot nope"}) as resp:
            assert resp.status == 401
    assert [e.status for e in fake.errors] == [404, 401]
    fake.errors.clear()


def test_spec_normalisations_and_limits() -> None:
    spec = load_spec()
    ok = spec.validate_request(
        "PATCH", "/webhooks/1/tok/messages/@original", [("with_components", "1")],
        {"content": "x", "attachments": [{"id": 0, "filename": "a.png"}, {"id": 123, "filename": "b.png"}],
         "allowed_mentions": {"parse": [], "users": [5]}}, has_body=True)
    assert ok == []
    assert spec.validate_request("PUT", "/applications/1/commands", [],
                                 [{"name": "x", "description": "d", "default_member_permissions": "8"}],
                                 has_body=True) == []
    too_long = spec.validate_request("POST", "/channels/1/messages", [], {"content": "x" * 2001},
                                     has_body=True)
    assert len(too_long) == 1 and "$.content" in too_long[0]
    bad_path = spec.validate_request("GET", "/channels/None/messages", [("limit", "500")], None,
                                     has_body=False)
    assert any("channel_id='None'" in p for p in bad_path) and any("limit='500'" in p for p in bad_path)
    union = spec.validate_request("POST", "/interactions/1/tok/callback", [("with_response", "1")],
                                  {"type": 4, "data": {"content": "x" * 2001}}, has_body=True)
    assert len(union) == 1 and "$.data.content" in union[0], union
    dupes = spec.validate_request("POST", "/channels/1/messages", [], {"components": [
        {"type": 1, "components": [{"type": 2, "style": 1, "label": "a", "custom_id": "same"},
                                   {"type": 2, "style": 1, "label": "b", "custom_id": "same"}]}]},
        has_body=True)
    assert any("duplicate component custom_id" in p for p in dupes)


@pytest.mark.usefixtures("tiny_bot")
async def test_fake_payloads_match_response_schemas(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    alice = await fake.add_member("alice")
    ix = await fake.slash(alice, fake.channel_id, "game", "start")
    msg = (await ix.response(timeout=2)).message
    assert msg is not None
    click = await fake.click(alice, msg, "roll:6")
    await click.response(timeout=2)
    spec = load_spec()
    validator = spec.response_schema_validator("/channels/{channel_id}/messages/{message_id}", "get")
    assert validator is not None
    problems = [f"{e.json_path}: {e.message[:200]}" for e in validator.iter_errors(msg.to_payload())]
    assert problems == []
    cmd_validator = spec.response_schema_validator("/applications/{application_id}/guilds/{guild_id}/commands", "get")
    assert cmd_validator is not None
    assert [e.message for e in cmd_validator.iter_errors(fake.commands(fake.guild_id))] == []


async def test_clean_shutdown_leaves_no_tasks() -> None:
    async with FakeDiscord() as fake:
        bot = TinyBot(fake.guild_id)
        async with running_bot(fake, bot):
            assert bot.is_ready()
        assert bot.is_closed()
    await asyncio.sleep(0)
    leftovers = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    assert leftovers == []
    assert discord.http.Route.BASE == "https://discord.com/api/v10"
    fake.assert_clean()


# -- a broader bot: the usual discord.py calls must not trip the validator ----------------


class Dashboard(discord.ui.LayoutView):
    def __init__(self) -> None:
        super().__init__(timeout=None)
        container: discord.ui.Container[Any] = discord.ui.Container(accent_colour=discord.Colour.blue())
        container.add_item(discord.ui.TextDisplay("# Cityhall"))
        container.add_item(discord.ui.Section(
            discord.ui.TextDisplay("Round 1"), accessory=discord.ui.Button(label="Go", custom_id="v2:go")))
        container.add_item(discord.ui.Separator())
        container.add_item(discord.ui.MediaGallery(discord.MediaGalleryItem("attachment://board.png")))
        row: discord.ui.ActionRow[Any] = discord.ui.ActionRow()
        row.add_item(discord.ui.Button(label="Rules", url="https://example.com/rules"))
        container.add_item(row)
        self.add_item(container)


@app_commands.command(name="tour", description="Exercises many endpoints")
@app_commands.default_permissions(manage_messages=True)
@app_commands.choices(word=[app_commands.Choice(name="A", value="a"), app_commands.Choice(name="B", value="b")])
async def tour(
    interaction: discord.Interaction[Any], who: discord.Member, where: discord.TextChannel,
    team: discord.Role, ratio: float, flag: bool, word: str, upload: discord.Attachment | None = None,
) -> None:
    embed = discord.Embed(title="Board", description="desc", colour=0x00FF00)
    embed.add_field(name="a", value="b").set_image(url="attachment://board.png").set_footer(text="f")
    await interaction.response.defer()
    await interaction.edit_original_response(
        content=f"{who.mention} {where.mention} {team.mention} {ratio} {flag} {word} {upload and upload.filename}",
        embed=embed, attachments=[discord.File(io.BytesIO(make_png(2)), "board.png")],
        allowed_mentions=discord.AllowedMentions(users=[who]),
    )
    secret = await interaction.followup.send("psst", file=discord.File(io.BytesIO(make_png(2)), "p.png"),
                                             wait=True, ephemeral=True)
    await secret.edit(content="psst!")
    await interaction.followup.send(view=Dashboard(), file=discord.File(io.BytesIO(make_png(3)), "board.png"))
    original = await interaction.original_response()
    await original.add_reaction("\N{THUMBS UP SIGN}")
    reply = await original.reply("replying", mention_author=False)
    await reply.delete()
    assert isinstance(interaction.channel, discord.TextChannel)
    thread = await interaction.channel.create_thread(name="game", type=discord.ChannelType.public_thread)
    picker: discord.ui.View = discord.ui.View()
    picker.add_item(discord.ui.Select(custom_id="s", options=[discord.SelectOption(label="a")]))
    await thread.send("in thread", view=picker)
    await thread.edit(archived=True)
    await (await who.create_dm()).send("hi")
    assert [m async for m in interaction.channel.history(limit=5)]


class TourBot(commands.Bot):
    def __init__(self, guild_id: str) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.all(), guild_ready_timeout=0.05)
        self.guild_obj = discord.Object(int(guild_id))
        self.seen: list[str] = []

    async def setup_hook(self) -> None:
        await discord_api.gateway_from_api(self)
        self.tree.add_command(tour, guild=self.guild_obj)
        await self.tree.sync(guild=self.guild_obj)
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        self.seen.append(message.content)


async def test_common_discordpy_calls_validate_cleanly(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    bot = TourBot(fake.guild_id)
    async with running_bot(fake, bot):
        alice = await fake.add_member("alice")
        team = fake.add_role("Team", 0)
        ix = await fake.slash(alice, fake.channel_id, "tour", options={
            "who": alice, "where": fake.channel_id, "team": team["id"], "ratio": 2.5, "flag": True,
            "word": "a", "upload": ("in.png", make_png(1))})
        assert (await ix.response(timeout=2)).type == 5
        await fake.wait_until(lambda: "hi" in bot.seen, 3, "the DM")
        await fake.user_message(alice, fake.channel_id, "hello bot")
        await fake.wait_until(lambda: "hello bot" in bot.seen, 2, "the user's MESSAGE_CREATE")
    original = await ix.original_message()
    assert original.mentions == [alice] and original.mention_roles == [team["id"]]
    assert original.content.endswith("2.5 True a in.png")
    dashboard = (await ix.followups(count=2))[1]
    assert find_button(dashboard, label="Go")["custom_id"] == "v2:go"  # inside a v2 container
    assert dashboard.flags & (1 << 15)
    assert fake.validation_errors == [] and fake.errors == []


def test_discord_api_configuration_round_trip() -> None:
    assert discord_api.configure_from_env({}) is None and discord_api.api_base() is None
    try:
        base = discord_api.configure_from_env({"DISCORD_API_BASE": "http://127.0.0.1:9/api/v10/"})
        assert base == "http://127.0.0.1:9/api/v10" == discord.http.Route.BASE == discord_api.api_base()
        assert discord.http.Route("GET", "/users/@me").url == "http://127.0.0.1:9/api/v10/users/@me"
        with pytest.raises(ValueError, match="absolute http"):
            discord_api.use_api_base("127.0.0.1:9/api/v10")
    finally:
        discord_api.reset_api_base()
    assert discord.http.Route.BASE == "https://discord.com/api/v10" and discord_api.api_base() is None


async def test_a_client_that_hangs_up_mid_upload_is_no_error(fake_discord: FakeDiscord) -> None:
    """A bot killed with kill -9 in the middle of uploading a picture: Discord never sees
    the request whole, and the fake does not count it against the bot."""
    fake = fake_discord
    host, port = fake.api_base.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    boundary = "cityhall-test"
    head = (f"POST /api/v10/channels/{fake.channel_id}/messages HTTP/1.1\r\n"
            f"Host: {host}:{port}\r\nAuthorization: Bot {fake.token}\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
            "Content-Length: 100000\r\n\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"files[0]\"; "
            "filename=\"table.png\"\r\nContent-Type: image/png\r\n\r\n").encode()
    _reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(head + b"\x89PNG" + b"\0" * 1000)  # a tenth of what it said it would send
    await writer.drain()
    writer.close()
    await fake.wait_until(lambda: fake.hung_up, timeout=10, what="the hung-up request")
    assert fake.errors == [] and fake.channel_messages(fake.channel_id) == []
