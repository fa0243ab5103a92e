"""FakeDiscord: a local stand-in for Discord's REST API v10 and gateway, for bot tests.

It also says no the way Discord does (details and defaults in README.md beside this file):

* rate limits, on by default: 50 requests/s globally (interaction callbacks and the
  interaction webhook exempt) and per-route buckets keyed by channel / guild / webhook
  token (5 messages and 5 edits per 5 s per channel, ...), with X-RateLimit-* headers and
  429s that discord.py waits out. Options: ``rate_limits``, ``global_rate_limit``,
  ``bucket_limits``, ``rate_limit_scale``, ``violation_grace``; inspect
  ``rate_limited``, ``rate_limit_violations``, ``bucket(name, major)``, ``global_peak``;
* faults: ``fail(method, path_regex, status, code, message, times=1, delay=None,
  retry_after=None)`` -> ``Fault`` (``.hits``, ``.cancel()``), ``slow(...)``,
  ``delete_channel(id)``, ``revoke(id, "attach_files")`` / ``grant``, ``close_dms(user)``
  (403 50007 to the bot's direct messages), ``drop_gateway(close_code)``. Their answers
  land in ``expected_errors``, not ``errors``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import unquote

from aiohttp import BodyPartReader, WSMsgType, web

from . import gateway as gw
from .components import SELECT_TYPES, describe_components, find_component, normalise_components
from .interactions import (
    ALLOWED_CALLBACKS,
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    FakeDiscordError,
    FakeInteraction,
    check_option_value,
    walk_subcommands,
)
from .limits import (
    DEFAULT_MESSAGES,
    GLOBAL_LIMIT,
    STATUS_TEXT,
    Bucket,
    Fault,
    Limit,
    RateLimiter,
    RateLimitHit,
    rate_limit_body,
    rate_limit_headers,
)
from .models import (
    ADD_REACTIONS,
    ADMINISTRATOR,
    ATTACH_FILES,
    BOT_PERMISSIONS,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    EVERYONE_PERMISSIONS,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MEMBERS,
    INTENT_GUILD_MESSAGES,
    INTENT_GUILD_PRESENCES,
    INTENT_GUILDS,
    INTENT_MESSAGE_CONTENT,
    MANAGE_MESSAGES,
    PERMISSIONS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    FakeAttachment,
    FakeGuild,
    FakeMessage,
    InteractionCallback,
    RecordedError,
    RecordedRequest,
    SnowflakeFactory,
    UploadedFile,
    guess_content_type,
    iso,
    new_token,
    role_payload,
    text_channel_payload,
    thread_payload,
    user_payload,
)
from .patience import busy_stretch
from .spec import load_spec

T = TypeVar("T")
API_PREFIX = "/api/v10"
UserLike = dict[str, Any] | str | int
MessageLike = FakeMessage | str | int

# Message flags a bot may set when creating / editing (SUPPRESS_EMBEDS, EPHEMERAL,
# SUPPRESS_NOTIFICATIONS, IS_VOICE_MESSAGE, IS_COMPONENTS_V2).
_CREATE_FLAGS = (1 << 2) | FLAG_EPHEMERAL | (1 << 12) | (1 << 13) | (1 << 15)
_EDIT_FLAGS = (1 << 2) | (1 << 15)


class _HTTPError(Exception):
    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None,
                 *, expected: bool = False) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.errors = status, code, message, errors
        # A consequence of a fault the test set up (deleted channel, revoked permission):
        # recorded in expected_errors, not errors, so the teardown check does not fail on it.
        self.expected = expected


@dataclass
class _Ctx:
    request: web.Request
    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    files: list[UploadedFile]
    record: RecordedRequest

    def flag(self, name: str) -> bool:
        return self.query.get(name, "").lower() in ("1", "true")


Handler = Callable[["FakeDiscord", _Ctx], Awaitable[web.StreamResponse]]


@dataclass
class _Route:
    method: str
    template: str
    regex: re.Pattern[str]
    handler: Handler
    bot_auth: bool


_ROUTES: list[_Route] = []


def _route(method: str, template: str, *, bot_auth: bool = True) -> Callable[[Handler], Handler]:
    pattern = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template)

    def register(fn: Handler) -> Handler:
        _ROUTES.append(_Route(method, template, re.compile(pattern), fn, bot_auth))
        return fn

    return register


def _valid_shard(shard: Any) -> bool:
    """[shard_id, num_shards] as Discord accepts it: 0 <= shard_id < num_shards."""
    return (isinstance(shard, list) and len(shard) == 2
            and all(isinstance(n, int) and not isinstance(n, bool) for n in shard)
            and 0 <= shard[0] < shard[1])


def _json(data: Any, status: int = 200) -> web.Response:
    # discord.py only decodes JSON when Content-Type is exactly "application/json";
    # web.json_response would append "; charset=utf-8".
    return web.Response(body=json.dumps(data).encode(), status=status,
                        headers={"Content-Type": "application/json"})


def _empty() -> web.Response:
    return web.Response(status=204)


def _rate_limit_scale_default() -> float:
    return float(os.environ.get("FAKEDISCORD_RATE_LIMIT_SCALE", "") or 1.0)


def _rate_limits_default() -> bool:
    # FAKEDISCORD_RATE_LIMITS=0 turns limits off for a whole run (to compare durations);
    # a single test uses @pytest.mark.fakediscord(rate_limits=False).
    return os.environ.get("FAKEDISCORD_RATE_LIMITS", "1").strip().lower() not in ("0", "false", "no", "off")


@dataclass
class _Command:
    data: dict[str, Any]
    guild_id: str | None


@dataclass(repr=False, eq=False)
class FakeDiscord:
    """An aiohttp server speaking enough Discord (REST v10 + gateway) for a discord.py bot.

    Start it (``async with FakeDiscord() as fake``), point the bot at ``fake.api_base``
    (``bot.core.discord_api.use_api_base`` + ``gateway_from_api``) and drive users:

    * world: ``guild``/``guild_id``/``channel_id`` (#general)/``thread_id``, ``add_member``,
      ``add_role``, ``add_channel``, ``add_thread``, ``add_guild``, ``user_message``;
    * interactions: ``slash``, ``autocomplete``, ``click``, ``select``, ``click_raw``,
      ``submit_modal`` -> ``FakeInteraction``;
    * inspection: ``messages``, ``channel_messages``, ``direct_messages``, ``last_message``,
      ``message``, ``commands``, ``requests``, ``errors``, ``validation_errors``,
      ``failed_interactions``, ``wait_until``, ``assert_clean``;
    * gateway: ``sessions``, ``gateway_received``, ``reconnect`` (op 7 -> RESUME),
      ``drop_gateway`` (close the socket with a close code);
    * limits and faults (see the module docstring): ``rate_limits``, ``limiter``,
      ``rate_limited``, ``rate_limit_violations``, ``fail``, ``slow``, ``delete_channel``,
      ``revoke``, ``grant``, ``close_dms``, ``expected_errors``.
    """

    token: str = "fake-token"
    interaction_timeout: float = 3.0
    validate: bool = True
    reject_invalid: bool = False
    bot_name: str = "Cityhall"
    guild_name: str = "Fake Guild"
    heartbeat_interval_ms: int = 41250
    # What GET /gateway/bot recommends. Like Discord, a session may IDENTIFY with any
    # [shard_id, num_shards] that makes sense (events are routed by the session's own
    # num_shards), and several sessions may hold the same shard: Discord's sharding docs
    # say num_shards "does not relate to (or limit) the total number of potential
    # sessions", so nothing stops two processes from both connecting shard 0; each then
    # gets that shard's events. Keeping them apart is the bot's job (bot/core/lease.py).
    shard_count: int = 1
    bot_permissions: int = BOT_PERMISSIONS
    host: str = "127.0.0.1"
    port: int = 0
    # Discord's rate limits (on unless FAKEDISCORD_RATE_LIMITS=0); requests are counted either way.
    rate_limits: bool = field(default_factory=_rate_limits_default)
    global_rate_limit: Limit = GLOBAL_LIMIT
    bucket_limits: Mapping[str, Limit] = field(default_factory=dict)
    violation_grace: float = 0.25
    rate_limit_scale: float = field(default_factory=_rate_limit_scale_default)

    # Everything tests inspect.
    requests: list[RecordedRequest] = field(default_factory=list, init=False)
    errors: list[RecordedError] = field(default_factory=list, init=False)
    validation_errors: list[str] = field(default_factory=list, init=False)
    # Requests whose client hung up before they were whole (never seen by "Discord").
    hung_up: list[RecordedRequest] = field(default_factory=list, init=False)
    failed_interactions: list[FakeInteraction] = field(default_factory=list, init=False)
    interactions: dict[str, FakeInteraction] = field(default_factory=dict, init=False)
    # The same, by token, for the interaction webhook: a scan of every interaction per
    # follow-up was a seventh of a load test's own time. Weak: dropping an interaction from
    # ``interactions`` (a long run prunes them) lets it go here too.
    _by_token: weakref.WeakValueDictionary[str, FakeInteraction] = field(
        default_factory=weakref.WeakValueDictionary, init=False, repr=False)
    messages: dict[str, FakeMessage] = field(default_factory=dict, init=False)
    guilds: dict[str, FakeGuild] = field(default_factory=dict, init=False)
    users: dict[str, dict[str, Any]] = field(default_factory=dict, init=False)
    # Each user's Discord language (``interaction.locale``), by user id; en-US otherwise.
    locales: dict[str, str] = field(default_factory=dict, init=False)
    channels: dict[str, dict[str, Any]] = field(default_factory=dict, init=False)
    sessions: dict[str, gw.Session] = field(default_factory=dict, init=False)
    gateway_received: list[dict[str, Any]] = field(default_factory=list, init=False)
    expected_errors: list[RecordedError] = field(default_factory=list, init=False)
    faults: list[Fault] = field(default_factory=list, init=False)
    gateway_drops: list[int] = field(default_factory=list, init=False)
    # Called with every message the bot creates or edits (and how many files came with
    # it), once stored: what an observer such as the load test times pictures by.
    message_hook: Callable[[FakeMessage, int], None] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if self.host != "127.0.0.1":
            raise ValueError("FakeDiscord only listens on 127.0.0.1")
        self.snowflake = SnowflakeFactory()
        self._commands: list[_Command] = []
        self._uploads: dict[str, FakeAttachment] = {}
        self._dms: dict[str, str] = {}
        self._closed_dms: set[str] = set()  # users who take no direct messages from the bot
        self._sockets: set[web.WebSocketResponse] = set()
        self._tasks: set[asyncio.Future[Any]] = set()
        self._runner: web.AppRunner | None = None
        self._changed = asyncio.Event()
        self._base_url = ""
        self.ready = asyncio.Event()
        self.limiter = RateLimiter(enabled=self.rate_limits, global_limit=self.global_rate_limit,
                                   bucket_limits=self.bucket_limits, violation_grace=self.violation_grace,
                                   scale=self.rate_limit_scale)
        self._removed_channels: set[str] = set()
        self._revoked: dict[str, int] = {}  # channel id -> permission bits the test took away

        owner_id = self.snowflake()
        self.owner = self._new_user("owner", owner_id)
        self.application_id = self.snowflake()
        self.bot_user = user_payload(self.application_id, self.bot_name, bot=True)
        self.users[self.application_id] = self.bot_user
        self.application: dict[str, Any] = {
            "id": self.application_id,
            "name": self.bot_name,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "hook": True,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "flags": (1 << 19) | (1 << 23),  # GATEWAY_GUILD_MEMBERS_LIMITED, ..._MESSAGE_CONTENT_LIMITED
            "owner": self.owner,
            "team": None,
            "bot": self.bot_user,
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "integration_types_config": {"0": {}},
            "approximate_guild_count": 1,
        }
        self.guild = self.add_guild(self.guild_name, owner_id=owner_id)

    def __repr__(self) -> str:
        return (f"<FakeDiscord {self._base_url or 'not started'} requests={len(self.requests)} "
                f"errors={len(self.errors)} validation_errors={len(self.validation_errors)} "
                f"failed_interactions={len(self.failed_interactions)}>")

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self) -> FakeDiscord:
        if self.validate:
            load_spec()  # parse once up front so the first request is not slow
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", "/gateway", self._gateway)
        app.router.add_route("GET", "/attachments/{channel_id}/{attachment_id}/{filename}", self._cdn)
        app.router.add_route("*", "/{tail:.*}", self._dispatch_http)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        self._base_url = f"http://{self.host}:{self.port}"
        return self

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=1.0)
        for ix in self.interactions.values():
            if ix.deadline is not None:
                ix.deadline.cancel()
        for session in self.sessions.values():
            session.connection = None
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=1001, message=b"fake shutting down"), 1.0)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def api_base(self) -> str:
        """What to give ``use_api_base`` / DISCORD_API_BASE."""
        return self._base_url + API_PREFIX

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    # -- world building -----------------------------------------------------------------

    def _new_user(self, name: str, user_id: str | None = None, *, bot: bool = False) -> dict[str, Any]:
        user = user_payload(user_id or self.snowflake(), name, bot=bot)
        self.users[user["id"]] = user
        return user

    def set_locale(self, user: UserLike, locale: str) -> None:
        """The language ``user``'s Discord client is set to (sent with each interaction)."""
        self.locales[self._user(user)["id"]] = locale

    def close_dms(self, user: UserLike) -> None:
        """``user`` takes no direct messages from the bot (their privacy settings): the bot
        may open the DM channel, but a message there is answered 403 Cannot send messages to
        this user (50007), recorded in ``expected_errors``."""
        self._closed_dms.add(self._user(user)["id"])

    def direct_messages(self, user: UserLike) -> list[FakeMessage]:
        """The messages of the bot's DM channel with ``user``, oldest first."""
        channel_id = self._dms.get(self._user(user)["id"])
        return [] if channel_id is None else self.channel_messages(channel_id)

    def add_guild(self, name: str, *, owner_id: str | None = None,
                  shard: int | None = None) -> FakeGuild:
        """A guild with @everyone, a bot role, text channels general/games and a thread;
        with ``shard``, one whose id Discord routes to that shard of ``shard_count``."""
        if shard is not None and not 0 <= shard < self.shard_count:
            raise ValueError(f"shard {shard} of {self.shard_count}")
        guild_id = self.snowflake() if shard is None else \
            self.snowflake.on_shard(shard, self.shard_count)
        guild = FakeGuild(guild_id, name, owner_id or self.owner["id"])
        guild.roles[guild_id] = role_payload(guild_id, "@everyone", EVERYONE_PERMISSIONS, position=0)
        bot_role = role_payload(self.snowflake(), self.bot_name, self.bot_permissions, managed=True,
                                bot_id=self.application_id)
        guild.roles[bot_role["id"]] = bot_role
        self.guilds[guild_id] = guild
        self._add_member_to(guild, self.users.get(guild.owner_id) or self.owner, [])
        self._add_member_to(guild, self.bot_user, [bot_role["id"]])
        for position, channel_name in enumerate(("general", "games")):
            channel = text_channel_payload(self.snowflake(), guild_id, channel_name, position=position)
            guild.channels[channel["id"]] = channel
            self.channels[channel["id"]] = channel
        general = next(iter(guild.channels))
        thread = thread_payload(self.snowflake(), guild_id, general, "game-thread", self.application_id)
        guild.threads[thread["id"]] = thread
        self.channels[thread["id"]] = thread
        if self._runner is not None and self.sessions:
            self._spawn(self._dispatch("GUILD_CREATE", self._guild_create(guild), guild_id=guild_id,
                                       intent=INTENT_GUILDS))
        return guild

    @property
    def guild_id(self) -> str:
        return self.guild.id

    @property
    def channel_id(self) -> str:
        """The default guild's #general."""
        return next(iter(self.guild.channels))

    @property
    def thread_id(self) -> str:
        return next(iter(self.guild.threads))

    def _add_member_to(self, guild: FakeGuild, user: dict[str, Any], roles: list[str]) -> dict[str, Any]:
        member = {
            "user": user,
            "nick": None,
            "avatar": None,
            "banner": None,
            "roles": roles,
            "joined_at": iso(),
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
            "unusual_dm_activity_until": None,
        }
        guild.members[user["id"]] = member
        return member

    def _guild(self, guild_id: str | None) -> FakeGuild:
        if guild_id is None:
            return self.guild
        if guild_id not in self.guilds:
            raise FakeDiscordError(f"unknown guild {guild_id}")
        return self.guilds[guild_id]

    def _new_role(self, guild: FakeGuild, name: str, permissions: int) -> dict[str, Any]:
        role = role_payload(self.snowflake(), name, permissions)
        guild.roles[role["id"]] = role
        return role

    def add_role(self, name: str, permissions: int, *, guild_id: str | None = None) -> dict[str, Any]:
        """A new role (GUILD_ROLE_CREATE is dispatched in the background)."""
        guild = self._guild(guild_id)
        role = self._new_role(guild, name, permissions)
        if self.sessions:
            self._spawn(self._dispatch("GUILD_ROLE_CREATE", {"guild_id": guild.id, "role": role},
                                       guild_id=guild.id, intent=INTENT_GUILDS))
        return role

    async def add_member(
        self,
        name: str,
        *,
        manage_messages: bool = False,
        administrator: bool = False,
        roles: Sequence[str] = (),
        guild_id: str | None = None,
    ) -> dict[str, Any]:
        """Create a user and make them a member; returns the user dict (id, username, ...)."""
        guild = self._guild(guild_id)
        role_ids = list(roles)
        if manage_messages or administrator:
            perms = MANAGE_MESSAGES | (1 << 3 if administrator else 0)
            label = "Admin" if administrator else "Moderator"
            role = next((r for r in guild.roles.values() if r["name"] == label), None)
            if role is None:
                role = self._new_role(guild, label, perms)
                await self._dispatch("GUILD_ROLE_CREATE", {"guild_id": guild.id, "role": role},
                                     guild_id=guild.id, intent=INTENT_GUILDS)
            role_ids.append(role["id"])
        user = self._new_user(name)
        member = self._add_member_to(guild, user, role_ids)
        await self._dispatch("GUILD_MEMBER_ADD", {**member, "guild_id": guild.id}, guild_id=guild.id,
                             intent=INTENT_GUILD_MEMBERS)
        return user

    async def add_channel(self, name: str, *, guild_id: str | None = None, type: int = 0) -> dict[str, Any]:
        guild = self._guild(guild_id)
        channel = text_channel_payload(self.snowflake(), guild.id, name, position=len(guild.channels),
                                       type_=type)
        guild.channels[channel["id"]] = channel
        self.channels[channel["id"]] = channel
        await self._dispatch("CHANNEL_CREATE", channel, guild_id=guild.id, intent=INTENT_GUILDS)
        return channel

    async def add_thread(self, parent_id: str, name: str, *, private: bool = False) -> dict[str, Any]:
        parent = self._channel(parent_id)
        guild = self._guild(parent.get("guild_id"))
        thread = thread_payload(self.snowflake(), guild.id, parent_id, name, self.owner["id"], private=private)
        guild.threads[thread["id"]] = thread
        self.channels[thread["id"]] = thread
        await self._dispatch("THREAD_CREATE", {**thread, "newly_created": True}, guild_id=guild.id,
                             intent=INTENT_GUILDS)
        return thread

    def _channel(self, channel_id: str | int) -> dict[str, Any]:
        channel = self.channels.get(str(channel_id))
        if channel is None:
            raise FakeDiscordError(f"unknown channel {channel_id}; known: {list(self.channels)}")
        return channel

    def _user(self, user: UserLike) -> dict[str, Any]:
        if isinstance(user, dict):
            user = user["user"]["id"] if "user" in user else user["id"]
        found = self.users.get(str(user))
        if found is None:
            raise FakeDiscordError(f"unknown user {user}; create users with add_member()")
        return found

    # -- waiting & inspection -----------------------------------------------------------

    def _touch(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_until(self, predicate: Callable[[], T | None], timeout: float = 2.0, what: str = "") -> T:
        """Poll ``predicate`` (woken by fake activity, else every 10 ms); return its truthy value.

        ``timeout`` is for an idle machine: when it runs out on a busy one, the wait goes on
        for as many times longer as the machine is over its cores (the one-minute load
        average per core, at most ``MAX_STRETCH``), as the tests' own limits do; a wait
        that still sees nothing then fails, naming what it waited for."""
        began = time.monotonic()
        deadline = began + timeout
        stretched = False
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - time.monotonic()
            if remaining <= 0 and not stretched:
                stretched = True
                deadline = began + timeout * busy_stretch()
                remaining = deadline - time.monotonic()
            if remaining <= 0:
                label = what or getattr(predicate, "__name__", "condition")
                waited = time.monotonic() - began
                raise AssertionError(f"timed out after {timeout}s waiting for {label}"
                                     + (f" ({waited:.0f} s on this busy machine)"
                                        if waited > timeout * 1.5 else "")
                                     + self.diagnostics())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.01))

    async def wait_ready(self, timeout: float = 5.0) -> None:
        """Until the fake has sent READY to a bot."""
        try:
            await asyncio.wait_for(self.ready.wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"no bot identified within {timeout}s" + self.diagnostics()) from None

    def diagnostics(self) -> str:
        lines = []
        if self.errors:
            lines.append("fake.errors: " + "; ".join(map(str, self.errors[-5:])))
        if self.validation_errors:
            lines.append("fake.validation_errors: " + "; ".join(self.validation_errors[-5:]))
        if self.rate_limited:
            lines.append("fake.rate_limited: " + "; ".join(map(str, self.rate_limited[-5:])))
        if self.requests:
            lines.append("last requests: " + ", ".join(map(str, self.requests[-5:])))
        return ("\n" + "\n".join(lines)) if lines else ""

    def assert_clean(self, *, errors: bool = True, validation: bool = True, failed: bool = True,
                     violations: bool = True) -> None:
        """AssertionError listing validation errors, HTTP errors, failed interactions and
        rate-limit violations. 429s the client waited out and the answers of injected
        faults (``expected_errors``) are not problems."""
        problems = []
        if violations and self.rate_limit_violations:
            problems += ["rate limit: " + str(h) for h in self.rate_limit_violations]
        if validation and self.validation_errors:
            problems += ["validation: " + e for e in self.validation_errors]
        if errors and self.errors:
            problems += ["error: " + str(e) for e in self.errors]
        if failed and self.failed_interactions:
            problems += [f"interaction failed (no response in {self.interaction_timeout}s): {ix.label}"
                         for ix in self.failed_interactions]
        if problems:
            raise AssertionError("fake Discord saw problems:\n  " + "\n  ".join(problems))

    def channel_messages(self, channel_id: str | int, *, ephemeral: bool | None = None,
                         include_deleted: bool = False) -> list[FakeMessage]:
        """Messages in a channel, oldest first (ephemeral ones included unless filtered)."""
        return [
            m for m in self.messages.values()
            if m.channel_id == str(channel_id)
            and (include_deleted or not m.deleted)
            and (ephemeral is None or m.ephemeral == ephemeral)
        ]

    def last_message(self, channel_id: str | int, *, ephemeral: bool | None = None) -> FakeMessage:
        found = self.channel_messages(channel_id, ephemeral=ephemeral)
        if not found:
            raise AssertionError(f"no {'ephemeral ' if ephemeral else ''}messages in channel {channel_id}")
        return found[-1]

    def message(self, message_id: str | int) -> FakeMessage:
        return self.messages[str(message_id)]

    def commands(self, guild_id: str | None = None) -> list[dict[str, Any]]:
        """Synced command definitions: global ones, or those of ``guild_id``."""
        return [c.data for c in self._commands if c.guild_id == guild_id]

    # -- injection: interactions --------------------------------------------------------

    def _interaction_payload(self, itype: int, user: dict[str, Any], channel_id: str | int) -> dict[str, Any]:
        channel = self._channel(channel_id)
        if channel.get("_deleted"):
            raise FakeDiscordError(f"channel {channel['id']} was deleted")
        guild_id = channel.get("guild_id")
        payload: dict[str, Any] = {
            "id": self.snowflake(),
            "application_id": self.application_id,
            "type": itype,
            "token": new_token(),
            "version": 1,
            "locale": self.locales.get(user["id"], "en-US"),
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": 10 * 1024 * 1024,
            "channel_id": channel["id"],
            "channel": self._public(channel),
        }
        if guild_id:
            guild = self.guilds[guild_id]
            if user["id"] not in guild.members:
                raise FakeDiscordError(f"{user['username']} is not a member of guild {guild.name}")
            payload.update(
                guild_id=guild_id,
                guild_locale=guild.locale,
                guild={"id": guild_id, "locale": guild.locale, "features": []},
                member=guild.member_payload(user["id"], with_permissions=True),
                app_permissions=str(self.bot_permissions_in(channel["id"])),
                authorizing_integration_owners={"0": guild_id},
                context=0,
            )
            payload["channel"]["permissions"] = payload["member"]["permissions"]
        else:
            payload.update(user=user, app_permissions=str(EVERYONE_PERMISSIONS),
                           authorizing_integration_owners={"0": "0"}, context=1)
        return payload

    async def _send_interaction(self, payload: dict[str, Any], user: dict[str, Any],
                                message: FakeMessage | None, label: str) -> FakeInteraction:
        if not any(s.connection is not None for s in self.sessions.values()):
            raise FakeDiscordError("no bot is connected to the fake gateway (did it reach READY?)")
        ix = FakeInteraction(self, payload=payload, user=user, message=message, label=label)
        self.interactions[ix.id] = ix
        self._by_token[ix.token] = ix
        ix.deadline = asyncio.get_running_loop().call_later(self.interaction_timeout, self._expire, ix)
        await self._dispatch("INTERACTION_CREATE", payload, guild_id=payload.get("guild_id"))
        return ix

    def _expire(self, ix: FakeInteraction) -> None:
        if ix.callback is None:
            ix.failed = True  # the user would now see "This interaction failed"
            self.failed_interactions.append(ix)
            self._touch()

    def _find_command(self, name: str, guild_id: str | None, ctype: int = 1) -> _Command:
        for scope in (guild_id, None):
            for cmd in self._commands:
                if cmd.guild_id == scope and cmd.data["name"] == name and cmd.data.get("type", 1) == ctype:
                    return cmd
        synced = sorted({c.data["name"] for c in self._commands if c.guild_id in (guild_id, None)})
        raise FakeDiscordError(f"no synced command /{name} for this channel; synced: {synced}")

    def _resolve_option(self, spec: Mapping[str, Any], value: Any, resolved: dict[str, dict[str, Any]],
                        guild: FakeGuild | None) -> Any:
        otype = spec.get("type")
        if otype in (6, 9) and not (otype == 9 and self._is_role(value, guild)):
            user = self._user(value)
            resolved.setdefault("users", {})[user["id"]] = user
            if guild is not None and user["id"] in guild.members:
                member = guild.member_payload(user["id"], with_permissions=True)
                member.pop("user")
                resolved.setdefault("members", {})[user["id"]] = member
            return user["id"]
        if otype in (8, 9):
            role_id = str(value["id"] if isinstance(value, dict) else value)
            if guild is None or role_id not in guild.roles:
                raise FakeDiscordError(f"option {spec['name']!r}: unknown role {value!r}")
            resolved.setdefault("roles", {})[role_id] = guild.roles[role_id]
            return role_id
        if otype == 7:
            channel = self._channel(value["id"] if isinstance(value, dict) else value)
            allowed = spec.get("channel_types")
            if allowed and channel["type"] not in allowed:
                raise FakeDiscordError(f"option {spec['name']!r} accepts channel types {allowed}, "
                                       f"#{channel.get('name')} is type {channel['type']}")
            partial: dict[str, Any] = {k: channel[k] for k in ("id", "name", "type", "parent_id", "thread_metadata")
                       if k in channel}
            partial["permissions"] = str(guild.permissions_of(self.application_id) if guild else 0)
            resolved.setdefault("channels", {})[channel["id"]] = partial
            return channel["id"]
        if otype == 11:
            if not (isinstance(value, tuple) and len(value) == 2):
                raise FakeDiscordError(f"option {spec['name']!r} is ATTACHMENT: pass (filename, bytes)")
            filename, data = value
            att = self._make_attachment("0", UploadedFile(0, filename, bytes(data)), filename, None)
            resolved.setdefault("attachments", {})[att.id] = att.to_payload()
            return att.id
        check_option_value(spec, value)
        return value

    @staticmethod
    def _is_role(value: Any, guild: FakeGuild | None) -> bool:
        """For MENTIONABLE options: a role id (or role dict) rather than a user."""
        if isinstance(value, dict):
            return "username" not in value and "user" not in value
        return guild is not None and str(value) in guild.roles

    def _command_data(self, user: dict[str, Any], channel_id: str | int, command: str,
                      subcommand_path: str | Sequence[str], options: Mapping[str, Any] | None,
                      raw_options: list[dict[str, Any]] | None, focused: str | None) -> tuple[dict[str, Any], str]:
        channel = self._channel(channel_id)
        guild = self.guilds.get(channel.get("guild_id") or "")
        cmd = self._find_command(command, guild.id if guild else None)
        path = subcommand_path.split() if isinstance(subcommand_path, str) else list(subcommand_path)
        chain, leaf = walk_subcommands(cmd.data, path)
        resolved: dict[str, dict[str, Any]] = {}
        if raw_options is not None:
            if options:
                raise FakeDiscordError("pass either options or raw_options, not both")
            leaf_options = list(raw_options)
        else:
            specs = {o["name"]: o for o in leaf.get("options") or []}
            given = dict(options or {})
            unknown = sorted(set(given) - set(specs))
            if unknown:
                raise FakeDiscordError(f"/{command} {' '.join(path)} has no option(s) {unknown}; "
                                       f"options are {list(specs)}")
            leaf_options = []
            for name, spec in specs.items():
                if name not in given:
                    if spec.get("required") and name != focused:
                        raise FakeDiscordError(f"/{command} {' '.join(path)}: required option {name!r} missing")
                    continue
                if name == focused:
                    check_option_value(spec, given[name], focused=True)
                    value = given[name]
                else:
                    value = self._resolve_option(spec, given[name], resolved, guild)
                opt: dict[str, Any] = {"name": name, "type": spec["type"], "value": value}
                if name == focused:
                    opt["focused"] = True
                leaf_options.append(opt)
        nested: list[dict[str, Any]] = leaf_options
        for sub in reversed(chain):
            nested = [{"name": sub["name"], "type": sub["type"], "options": nested}]
        data: dict[str, Any] = {"id": cmd.data["id"], "name": cmd.data["name"], "type": 1}
        if nested:
            data["options"] = nested
        if resolved:
            data["resolved"] = resolved
        if cmd.guild_id:
            data["guild_id"] = cmd.guild_id
        return data, "/" + " ".join([command, *path])

    async def slash(
        self,
        user: UserLike,
        channel_id: str | int,
        command: str,
        subcommand_path: str | Sequence[str] = (),
        options: Mapping[str, Any] | None = None,
        *,
        raw_options: list[dict[str, Any]] | None = None,
    ) -> FakeInteraction:
        """A user runs a synced slash command. ``subcommand_path`` is "sub" or "group sub".

        Option values: str/int/float/bool; user dicts or ids for USER; channel ids for
        CHANNEL; role ids for ROLE; (filename, bytes) for ATTACHMENT. ``raw_options``
        replaces the leaf's option list verbatim (no checks) to send malformed input.
        """
        who = self._user(user)
        data, label = self._command_data(who, channel_id, command, subcommand_path, options, raw_options, None)
        payload = self._interaction_payload(APPLICATION_COMMAND, who, channel_id)
        payload["data"] = data
        return await self._send_interaction(payload, who, None, label)

    async def autocomplete(
        self,
        user: UserLike,
        channel_id: str | int,
        command: str,
        subcommand_path: str | Sequence[str],
        options: Mapping[str, Any],
        focused: str,
    ) -> FakeInteraction:
        """The user is typing option ``focused``; read the answer from ``ix.choices``."""
        who = self._user(user)
        data, label = self._command_data(who, channel_id, command, subcommand_path, options, None, focused)
        payload = self._interaction_payload(AUTOCOMPLETE, who, channel_id)
        payload["data"] = data
        return await self._send_interaction(payload, who, None, label + f" (autocomplete {focused})")

    def _message(self, message: MessageLike) -> FakeMessage:
        if isinstance(message, FakeMessage):
            return message
        found = self.messages.get(str(message))
        if found is None:
            raise FakeDiscordError(f"unknown message {message}")
        return found

    def _component_payload(self, who: dict[str, Any], msg: FakeMessage, data: dict[str, Any]) -> dict[str, Any]:
        if msg.deleted:
            raise FakeDiscordError(f"message {msg.id} was deleted")
        if msg.ephemeral and msg.ephemeral_user_id not in (None, who["id"]):
            raise FakeDiscordError(f"message {msg.id} is ephemeral for another user")
        payload = self._interaction_payload(MESSAGE_COMPONENT, who, msg.channel_id)
        payload["message"] = msg.to_payload()
        payload["data"] = data
        return payload

    async def click(self, user: UserLike, message: MessageLike, custom_id: str) -> FakeInteraction:
        """A user presses the (enabled) button ``custom_id`` on ``message``."""
        who, msg = self._user(user), self._message(message)
        comp = find_component(msg, custom_id)
        if comp is None or comp.get("type") != 2:
            raise FakeDiscordError(f"message {msg.id} has no button {custom_id!r}; it has "
                                   f"{describe_components(msg)}")
        if comp.get("disabled"):
            raise FakeDiscordError(f"button {custom_id!r} is disabled")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": 2}
        if "id" in comp:
            data["id"] = comp["id"]
        return await self._send_interaction(self._component_payload(who, msg, data), who, msg,
                                            f"click {custom_id!r}")

    async def select(self, user: UserLike, message: MessageLike, custom_id: str,
                     values: Sequence[Any]) -> FakeInteraction:
        """A user picks ``values`` in the select menu ``custom_id`` (option values or ids)."""
        who, msg = self._user(user), self._message(message)
        comp = find_component(msg, custom_id)
        if comp is None or comp.get("type") not in SELECT_TYPES:
            raise FakeDiscordError(f"message {msg.id} has no select {custom_id!r}; it has "
                                   f"{describe_components(msg)}")
        if comp.get("disabled"):
            raise FakeDiscordError(f"select {custom_id!r} is disabled")
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise FakeDiscordError(f"select {custom_id!r} takes {lo}..{hi} values, got {len(values)}")
        guild = self.guilds.get(self._channel(msg.channel_id).get("guild_id") or "")
        resolved: dict[str, dict[str, Any]] = {}
        out: list[str] = []
        if comp["type"] == 3:
            allowed = [o.get("value") for o in comp.get("options") or []]
            bad = [v for v in values if v not in allowed]
            if bad:
                raise FakeDiscordError(f"select {custom_id!r} has no option(s) {bad}; options: {allowed}")
            out = [str(v) for v in values]
        else:
            kind = {5: 6, 6: 8, 7: 9, 8: 7}[comp["type"]]  # select type -> option type
            spec = {"name": custom_id, "type": kind, "channel_types": comp.get("channel_types")}
            out = [self._resolve_option(spec, v, resolved, guild) for v in values]
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": comp["type"], "values": out}
        if resolved:
            data["resolved"] = resolved
        return await self._send_interaction(self._component_payload(who, msg, data), who, msg,
                                            f"select {custom_id!r}={out}")

    async def click_raw(self, user: UserLike, channel_id: str | int, custom_id: str,
                        message: MessageLike | None = None, *, component_type: int = 2,
                        values: Sequence[str] | None = None) -> FakeInteraction:
        """A component interaction with no checks, e.g. a stale or forged custom_id."""
        who = self._user(user)
        if message is not None:
            msg = self._message(message)
        else:
            # Discord always includes the message; fabricate one from the bot, unstored.
            msg = FakeMessage(self.snowflake(), str(channel_id),
                              self._channel(channel_id).get("guild_id"), self.bot_user)
        payload = self._interaction_payload(MESSAGE_COMPONENT, who, channel_id)
        payload["message"] = msg.to_payload()
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = list(values)
        payload["data"] = data
        return await self._send_interaction(payload, who, msg, f"raw click {custom_id!r}")

    async def submit_modal(self, user: UserLike, opened_by: FakeInteraction,
                           values: Mapping[str, Any]) -> FakeInteraction:
        """Submit the modal the bot opened in answer to ``opened_by`` (text inputs by custom_id)."""
        modal = opened_by.modal
        if modal is None:
            raise FakeDiscordError(f"{opened_by.label} was not answered with a modal")
        who = self._user(user)
        remaining = dict(values)

        def answer(comp: dict[str, Any]) -> dict[str, Any]:
            cid = str(comp.get("custom_id"))
            out: dict[str, Any] = {"type": comp["type"], "custom_id": cid}
            if "id" in comp:
                out["id"] = comp["id"]
            if comp["type"] == 4:
                value = remaining.pop(cid, comp.get("value") or "")
                if comp.get("required", True) and not value:
                    raise FakeDiscordError(f"modal text input {cid!r} is required")
                out["value"] = str(value)
            else:
                out["values"] = list(remaining.pop(cid, []))
            return out

        submitted: list[dict[str, Any]] = []
        for top in modal.get("components") or []:
            if top.get("type") == 1:
                submitted.append({"type": 1, "components": [answer(c) for c in top.get("components") or []]})
            elif top.get("type") == 18:
                submitted.append({"type": 18, "id": top.get("id", 0), "component": answer(top["component"])})
            elif top.get("type") == 10:
                submitted.append({"type": 10, "id": top.get("id", 0), "content": top.get("content", "")})
        if remaining:
            raise FakeDiscordError(f"modal {modal.get('custom_id')!r} has no inputs {sorted(remaining)}")
        payload = self._interaction_payload(MODAL_SUBMIT, who, opened_by.channel_id)
        payload["data"] = {"custom_id": modal.get("custom_id"), "components": submitted}
        if opened_by.message is not None:
            payload["message"] = opened_by.message.to_payload()
        return await self._send_interaction(payload, who, opened_by.message,
                                            f"modal {modal.get('custom_id')!r}")

    async def user_message(self, user: UserLike, channel_id: str | int, content: str) -> FakeMessage:
        """A user posts a message (MESSAGE_CREATE, subject to the bot's intents)."""
        who = self._user(user)
        channel = self._channel(channel_id)
        msg = FakeMessage(self.snowflake(), channel["id"], channel.get("guild_id"), who, content=content)
        self._parse_mentions(msg)
        self.messages[msg.id] = msg
        await self._dispatch_message("MESSAGE_CREATE", msg)
        self._touch()
        return msg

    async def reconnect(self) -> None:
        """Send op 7 RECONNECT: discord.py closes and RESUMEs on a new socket."""
        for session in self.sessions.values():
            if session.connection is not None:
                await session.connection.send({"op": gw.RECONNECT, "d": None})

    async def drop_gateway(self, code: int = 4000, *, invalidate: bool | None = None) -> int:
        """Close every bot's gateway socket with close ``code``; returns how many were closed.

        discord.py reconnects and RESUMEs after resumable codes (4000, 4008, 1001, ...) and
        gives up after 4004 / 4010-4014. ``invalidate`` (default: for 4007 and 4009, as
        Discord does) forgets the sessions, so the RESUME gets INVALID_SESSION and the bot
        IDENTIFYs again.
        """
        if invalidate is None:
            invalidate = code in (4007, 4009)
        closed = 0
        for session_id, session in list(self.sessions.items()):
            conn = session.connection
            if conn is None:
                continue
            session.connection = None
            if invalidate:
                del self.sessions[session_id]
            self.gateway_drops.append(code)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.ws.close(code=code, message=b"fake: connection dropped"), 2.0)
            closed += 1
        self._touch()
        return closed

    # -- faults ---------------------------------------------------------------------------

    def fail(
        self,
        method: str,
        path: str,
        status: int,
        code: int | None = None,
        message: str | None = None,
        *,
        times: int | None = 1,
        delay: float | None = None,
        retry_after: float | None = None,
        is_global: bool = False,
    ) -> Fault:
        r"""Answer the next ``times`` requests matching ``method`` and ``path`` with an error.

        ``method`` is an HTTP method or "*"; ``path`` a regex searched in the path after
        /api/v10 (e.g. r"/channels/\d+/messages$"). ``times=None`` fails until
        ``fault.cancel()``. ``code`` / ``message`` default to Discord's for the status;
        ``retry_after`` / ``is_global`` shape a 429; ``delay`` holds the request first.
        The answers are recorded in ``expected_errors`` (and ``fault.hits``), never in
        ``errors``, so the fake_discord teardown check does not fail on them.
        """
        code = code if code is not None else {403: 50013, 404: 10003}.get(status, 0)
        text = message if message is not None else (DEFAULT_MESSAGES.get(code) or STATUS_TEXT.get(status, ""))
        fault = Fault(method.upper(), re.compile(path), status, code, text, times=times, delay=delay,
                      retry_after=retry_after, is_global=is_global)
        self.faults.append(fault)
        return fault

    def slow(self, method: str, path: str, delay: float, *, times: int | None = 1) -> Fault:
        """Hold the next ``times`` matching requests for ``delay`` s, then answer normally."""
        fault = Fault(method.upper(), re.compile(path), None, times=times, delay=delay)
        self.faults.append(fault)
        return fault

    async def delete_channel(self, channel_id: str | int) -> None:
        """The channel (and its threads) is deleted: CHANNEL_DELETE / THREAD_DELETE is
        dispatched and every later call on it answers 404 Unknown Channel (10003)."""
        channel = self._channel(channel_id)
        gone = [channel] + [t for t in self.channels.values() if t.get("parent_id") == channel["id"]
                            and "thread_metadata" in t and not t.get("_deleted")]
        for item in gone:
            item["_deleted"] = True
            self._removed_channels.add(item["id"])
        for item in reversed(gone):
            event = "THREAD_DELETE" if "thread_metadata" in item else "CHANNEL_DELETE"
            await self._dispatch(event, self._public(item), guild_id=item.get("guild_id"), intent=INTENT_GUILDS)

    async def revoke(self, channel_id: str | int, permission: int | str) -> None:
        """Deny the bot ``permission`` in a channel (a member overwrite + CHANNEL_UPDATE).

        ``permission`` is a bit mask or a name like "attach_files" / "send_messages". The
        channel endpoints then answer as Discord does: 403 Missing Permissions (50013), or
        403 Missing Access (50001) without view_channel.
        """
        await self._set_denied(channel_id, self._revoked.get(str(channel_id), 0) | _permission_bits(permission))

    async def grant(self, channel_id: str | int, permission: int | str) -> None:
        """Undo ``revoke`` for ``permission``."""
        await self._set_denied(channel_id, self._revoked.get(str(channel_id), 0) & ~_permission_bits(permission))

    async def _set_denied(self, channel_id: str | int, denied: int) -> None:
        channel = self._channel(channel_id)
        self._revoked[channel["id"]] = denied
        overwrites = [o for o in channel.get("permission_overwrites") or []
                      if not (o.get("type") == 1 and o.get("id") == self.application_id)]
        if denied:
            overwrites.append({"id": self.application_id, "type": 1, "allow": "0", "deny": str(denied)})
        channel["permission_overwrites"] = overwrites
        event = "THREAD_UPDATE" if "thread_metadata" in channel else "CHANNEL_UPDATE"
        await self._dispatch(event, self._public(channel), guild_id=channel.get("guild_id"), intent=INTENT_GUILDS)

    def bot_permissions_in(self, channel_id: str | int) -> int:
        """The bot's permissions in a channel: its roles, then the channel's overwrites."""
        channel = self._channel(channel_id)
        guild = self.guilds.get(channel.get("guild_id") or "")
        if guild is None:
            return EVERYONE_PERMISSIONS
        perms = guild.permissions_of(self.application_id)
        if perms & ADMINISTRATOR:
            return perms
        source = channel
        if "thread_metadata" in channel and channel.get("parent_id") in self.channels:
            source = self.channels[channel["parent_id"]]  # threads take the parent's overwrites
        member = guild.members.get(self.application_id) or {}
        overwrites = source.get("permission_overwrites") or []
        allow = deny = 0
        for ow in overwrites:
            if ow.get("id") == guild.id:
                perms = (perms & ~int(ow.get("deny", 0))) | int(ow.get("allow", 0))
        for ow in overwrites:
            if ow.get("type") == 0 and ow.get("id") in member.get("roles", []):
                allow |= int(ow.get("allow", 0))
                deny |= int(ow.get("deny", 0))
        perms = (perms & ~deny) | allow
        for ow in overwrites:
            if ow.get("type") == 1 and ow.get("id") == self.application_id:
                perms = (perms & ~int(ow.get("deny", 0))) | int(ow.get("allow", 0))
        return perms

    def _require(self, channel: dict[str, Any], needed: int) -> None:
        """403 as Discord answers when the bot lacks ``needed`` in ``channel``."""
        perms = self.bot_permissions_in(channel["id"])
        missing = needed & ~perms
        if not missing and perms & VIEW_CHANNEL:
            return
        # Only the test's revoke() takes permissions away from the bot in the fake.
        expected = bool((missing | (VIEW_CHANNEL & ~perms)) & self._revoked.get(channel["id"], 0))
        if not perms & VIEW_CHANNEL:
            raise _HTTPError(403, 50001, "Missing Access", expected=expected)
        raise _HTTPError(403, 50013, "Missing Permissions", expected=expected)

    def bucket(self, name: str, major: str | int = "") -> Bucket | None:
        """Counts of one rate-limit bucket, e.g. ``bucket("edit_message", channel_id)``:
        ``hits``, ``accepted``, ``limited``, ``peak()`` (most requests in one window)."""
        return self.limiter.bucket(name, str(major))

    @property
    def global_peak(self) -> int:
        """The most globally-limited requests the bot sent within one second."""
        return self.limiter.global_peak(1.0)

    @property
    def rate_limited(self) -> list[RateLimitHit]:
        """Every 429 the fake answered (limits and injected), oldest first."""
        return self.limiter.hits

    @property
    def rate_limit_violations(self) -> list[RateLimitHit]:
        """429s for requests sent although the client had been told to wait."""
        return [h for h in self.limiter.hits if h.violation]

    # -- gateway ------------------------------------------------------------------------

    async def _dispatch(self, event: str, data: dict[str, Any], *, guild_id: str | None = None,
                        intent: int | None = None) -> None:
        for session in list(self.sessions.values()):
            if not session.covers_guild(guild_id):
                continue
            if intent is not None and not session.has_intent(intent):
                continue
            await session.dispatch(event, data)
        self._touch()

    async def _dispatch_message(self, event: str, msg: FakeMessage) -> None:
        if msg.ephemeral:
            return  # ephemeral messages never reach the gateway
        intent = INTENT_GUILD_MESSAGES if msg.guild_id else INTENT_DIRECT_MESSAGES
        for session in list(self.sessions.values()):
            if not session.covers_guild(msg.guild_id) or not session.has_intent(intent):
                continue
            data = msg.to_payload()
            if msg.guild_id:
                data["guild_id"] = msg.guild_id
                member = self.guilds[msg.guild_id].members.get(msg.author["id"])
                if member is not None:
                    data["member"] = {k: v for k, v in member.items() if k != "user"}
            mentioned = any(u.get("id") == self.application_id for u in data["mentions"])
            if (msg.author["id"] != self.application_id and not mentioned and msg.guild_id
                    and not session.has_intent(INTENT_MESSAGE_CONTENT)):
                # Without the privileged MESSAGE_CONTENT intent Discord blanks these fields.
                data.update(content="", embeds=[], attachments=[], components=[])
            await session.dispatch(event, data)

    def _guild_create(self, guild: FakeGuild, session: gw.Session | None = None) -> dict[str, Any]:
        everyone = session is not None and session.has_intent(INTENT_GUILD_PRESENCES)
        # Like Discord: without presences only the bot's own member is sent; the rest
        # comes from REQUEST_GUILD_MEMBERS (discord.py chunking) or interaction payloads.
        members = list(guild.members.values()) if everyone else [guild.members[self.application_id]]
        return {
            **guild.guild_payload(),
            "joined_at": iso(guild.joined_at),
            "large": False,
            "lazy": True,
            "unavailable": False,
            "member_count": len(guild.members),
            "members": members,
            "channels": [c for c in guild.channels.values() if not c.get("_deleted")],
            "threads": [t for t in guild.threads.values() if not t.get("_deleted")],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "embedded_activities": [],
            "activity_instances": [],
        }

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, compress=False, timeout=2.0)
        await ws.prepare(request)
        self._sockets.add(ws)
        try:
            await self._serve_gateway(ws, request)
        finally:
            self._sockets.discard(ws)
            for session in self.sessions.values():
                if session.connection is not None and session.connection.ws is ws:
                    session.connection = None
        return ws

    async def _serve_gateway(self, ws: web.WebSocketResponse, request: web.Request) -> None:
        query = request.query
        if query.get("v") not in (None, "10") or query.get("encoding", "json") != "json":
            self._record_error("WS", "/gateway", 4002, 4002, f"unsupported gateway query {dict(query)}")
            await ws.close(code=4002, message=b"only v=10&encoding=json is faked")
            return
        try:
            packer = gw.Packer(query.get("compress"))
        except ValueError as exc:
            self._record_error("WS", "/gateway", 4000, 4000, str(exc))
            await ws.close(code=4000, message=str(exc).encode())
            return
        conn = gw.Connection(ws, packer)
        await conn.send({"op": gw.HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms,
                                                "_trace": ["[\"fake-gateway\"]"]}, "s": None, "t": None})
        session: gw.Session | None = None
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                if msg.type == WSMsgType.BINARY:
                    self._record_error("WS", "/gateway", 4002, 4002, "binary frame from client")
                continue
            try:
                packet = json.loads(msg.data)
                op, data = packet["op"], packet.get("d")
            except (ValueError, KeyError, TypeError):
                await ws.close(code=4002, message=b"decode error")
                return
            self.gateway_received.append(packet)
            if op == gw.HEARTBEAT:
                await conn.send({"op": gw.HEARTBEAT_ACK})
            elif op == gw.IDENTIFY:
                if session is not None:
                    await ws.close(code=4005, message=b"Already authenticated.")
                    return
                if data.get("token") != self.token:
                    self._record_error("WS", "/gateway", 4004, 4004, "IDENTIFY with a wrong token")
                    await ws.close(code=4004, message=b"Authentication failed.")
                    return
                shard = data.get("shard")
                if shard is not None and not _valid_shard(shard):
                    self._record_error("WS", "/gateway", 4010, 4010, f"IDENTIFY with shard {shard!r}")
                    await ws.close(code=4010, message=b"Invalid shard.")
                    return
                session = gw.Session(identify=data, connection=conn)
                if shard is not None:
                    session.shard = (int(shard[0]), int(shard[1]))
                self.sessions[session.id] = session
                await self._send_ready(session)
            elif op == gw.RESUME:
                session = await self._resume(conn, data or {})
                if session is None:
                    continue
            elif op == gw.REQUEST_GUILD_MEMBERS and session is not None:
                await self._members_chunk(session, data or {})
            elif op in (gw.PRESENCE_UPDATE, gw.VOICE_STATE_UPDATE):
                pass
            elif session is None:
                await ws.close(code=4003, message=b"Not authenticated.")
                return
            else:
                await ws.close(code=4001, message=b"Unknown opcode.")
                return

    async def _send_ready(self, session: gw.Session) -> None:
        guilds = [g for g in self.guilds.values() if session.covers_guild(g.id)]
        ready: dict[str, Any] = {
            "v": 10,
            "user": {**self.bot_user, "verified": True, "mfa_enabled": False, "email": None},
            "user_settings": {},
            "guilds": [{"id": g.id, "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": self.application_id, "flags": self.application["flags"]},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "geo_ordered_rtc_regions": ["fake"],
            "guild_join_requests": [],
            "auth": {},
            "_trace": ["[\"fake-gateway\"]"],
        }
        if session.identify.get("shard") is not None:
            ready["shard"] = list(session.shard)
        await session.dispatch("READY", ready)
        if session.has_intent(INTENT_GUILDS):
            for guild in guilds:
                await session.dispatch("GUILD_CREATE", self._guild_create(guild, session))
        self.ready.set()
        self._touch()

    async def _resume(self, conn: gw.Connection, data: dict[str, Any]) -> gw.Session | None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None or data.get("token") != self.token:
            await conn.send({"op": gw.INVALID_SESSION, "d": False})
            return None
        session.connection = conn
        session.resumes += 1
        last = int(data.get("seq") or 0)
        for payload in session.sent:
            if payload["s"] > last:
                await conn.send(payload)
        await session.dispatch("RESUMED", {"_trace": ["[\"fake-gateway\"]"]})
        self._touch()
        return session

    async def _members_chunk(self, session: gw.Session, data: dict[str, Any]) -> None:
        guild = self.guilds.get(str(data.get("guild_id")))
        if guild is None:
            return
        members = list(guild.members.values())
        if data.get("user_ids"):
            wanted = {str(u) for u in _as_list(data["user_ids"])}
            members = [m for m in members if m["user"]["id"] in wanted]
        elif data.get("query"):
            prefix = str(data["query"]).lower()
            members = [m for m in members if m["user"]["username"].lower().startswith(prefix)]
        if data.get("limit"):
            members = members[: int(data["limit"])]
        chunk: dict[str, Any] = {"guild_id": guild.id, "members": members, "chunk_index": 0,
                                 "chunk_count": 1, "not_found": []}
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        await session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    # -- HTTP plumbing ------------------------------------------------------------------

    def _spawn(self, coro: Awaitable[Any]) -> None:
        """Run a dispatch from a sync world-building method; stop() cancels leftovers."""
        task: asyncio.Future[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self._record_error("TASK", "-", 0, -1, f"fake background dispatch failed: {task.exception()!r}")

    def _record_error(self, method: str, path: str, status: int, code: int, message: str) -> None:
        self.errors.append(RecordedError(method, path, status, code, message))
        self._touch()

    async def _cdn(self, request: web.Request) -> web.StreamResponse:
        att = self._uploads.get(request.match_info["attachment_id"])
        if att is None:
            return web.Response(status=404, text="Not Found")
        return web.Response(body=att.data, content_type=att.content_type or "application/octet-stream")

    async def _read_body(self, request: web.Request) -> tuple[Any, list[UploadedFile], bool]:
        ctype = request.content_type
        if ctype.startswith("multipart/"):
            body: Any = None
            files: list[UploadedFile] = []
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):
                    continue
                name = part.name or ""
                raw = await part.read(decode=False)
                m = re.fullmatch(r"files\[(\d+)\]", name)
                if name == "payload_json":
                    body = json.loads(raw.decode("utf-8"))
                elif m:
                    filename = part.filename or f"file{m.group(1)}"
                    files.append(UploadedFile(int(m.group(1)), filename, bytes(raw),
                                              guess_content_type(filename)))
                else:
                    if body is None:
                        body = {}
                    if isinstance(body, dict):
                        body[name] = raw.decode("utf-8", "replace")
            return body, files, True
        raw_bytes = await request.read()
        if not raw_bytes:
            return None, [], False
        return json.loads(raw_bytes.decode("utf-8")), [], False

    async def _dispatch_http(self, request: web.Request) -> web.StreamResponse:
        method, full = request.method, request.path
        if not full.startswith(API_PREFIX + "/"):
            self._record_error(method, full, 404, 0, "request outside /api/v10 (wrong API base or version?)")
            return _json({"message": "404: Not Found", "code": 0}, 404)
        path = full[len(API_PREFIX):]
        query = {k: v for k, v in request.query.items()}
        record = RecordedRequest(method, path, query, None, [], None)
        self.requests.append(record)
        limit_headers: dict[str, str] = {}
        response: web.StreamResponse
        try:
            try:
                body, files, multipart = await self._read_body(request)
            except (ValueError, UnicodeDecodeError):
                raise _HTTPError(400, 50109, "The request body contains invalid JSON.") from None
            record.json, record.files = body, files
            if self.validate:
                spec = load_spec()
                match = spec.match(path)
                record.route = match.template if match else None
                problems = spec.validate_request(method, path, request.query.items(), body,
                                                 has_body=body is not None, multipart=multipart)
                if problems:
                    self.validation_errors.extend(problems)
                    if self.reject_invalid:
                        raise _HTTPError(400, 50035, "Invalid Form Body", {"_fake": problems})
            for route in _ROUTES:
                if route.method != method:
                    continue
                m = route.regex.fullmatch(path)
                if m is None:
                    continue
                if route.bot_auth and request.headers.get("Authorization") != f"Bot {self.token}":
                    raise _HTTPError(401, 0, "401: Unauthorized")
                ctx = _Ctx(request, method, path, m.groupdict(), query, body, files, record)
                fault = next((f for f in self.faults if f.matches(method, path)), None)
                if fault is not None:
                    fault.hits.append(record)
                    record.injected = True
                    if fault.delay:
                        # Latency before Discord sees the request: a late interaction callback
                        # still misses its 3 s deadline, and the client's own timeouts can fire.
                        await asyncio.sleep(fault.delay)
                if fault is not None and fault.status == 429:
                    # A limit the fake does not model: it must not use up a bucket it does.
                    response = self._fault_response(fault, method, path)
                    break
                verdict = self.limiter.check(method, path, route.template, ctx.params)
                limit_headers = verdict.headers
                if verdict.hit is not None:
                    response = self._rate_limited_response(verdict.hit, verdict.headers)
                    break
                if fault is not None and fault.status is not None:
                    response = self._fault_response(fault, method, path)
                    break
                response = await route.handler(self, ctx)
                break
            else:
                raise _HTTPError(404, 0, f"404: Not Found (the fake does not implement {method} {path})")
        except _HTTPError as exc:
            # An error on a request a fault touched (e.g. a callback held past the 3 s
            # deadline) is the fault's doing, not the bot's.
            if exc.expected or record.injected:
                record.injected = True
                self.expected_errors.append(RecordedError(method, path, exc.status, exc.code, exc.message))
            else:
                self._record_error(method, path, exc.status, exc.code, exc.message)
            payload: dict[str, Any] = {"message": exc.message, "code": exc.code}
            if exc.errors:
                payload["errors"] = exc.errors
            response = _json(payload, exc.status)
        except ConnectionResetError:
            # The client hung up before its request was whole (a bot killed mid-upload, as
            # the kill -9 tests do): Discord never sees such a request, nor does the bot see
            # an answer. Not an error of the bot's.
            self.hung_up.append(record)
            response = _json({"message": "client hung up", "code": 0}, 400)
        except Exception as exc:  # a bug in the fake: report it, and avoid discord.py's 5xx retries
            self._record_error(method, path, 400, -1, f"fake internal error: {exc!r}")
            response = _json({"message": f"fake internal error: {exc!r}", "code": 0}, 400)
        for name, value in limit_headers.items():
            response.headers.setdefault(name, value)
        record.headers = dict(limit_headers)
        record.status = response.status
        self._touch()
        return response

    def _rate_limited_response(self, hit: RateLimitHit, headers: Mapping[str, str]) -> web.Response:
        response = _json(rate_limit_body(hit.retry_after, is_global=hit.is_global), 429)
        response.headers.update(headers)
        return response

    def _fault_response(self, fault: Fault, method: str, path: str) -> web.Response:
        status = fault.status or 500
        self.expected_errors.append(RecordedError(method, path, status, fault.code, fault.message))
        if status == 429:
            retry_after = 1.0 if fault.retry_after is None else fault.retry_after
            self.limiter.hits.append(RateLimitHit(method, path, "injected", retry_after, fault.is_global,
                                                  time.monotonic(), injected=True))
            response = _json(rate_limit_body(retry_after, is_global=fault.is_global), 429)
            response.headers.update(rate_limit_headers(retry_after, is_global=fault.is_global))
            return response
        if status in (502, 503, 504):
            # What Discord's front end answers when the API behind it is down: not JSON.
            return web.Response(status=status, text=fault.message, content_type="text/html")
        return _json({"message": fault.message, "code": fault.code}, status)

    # -- REST: users, application, gateway ------------------------------------------------

    @_route("GET", "/gateway", bot_auth=False)
    async def _get_gateway(self, ctx: _Ctx) -> web.StreamResponse:
        return _json({"url": self.gateway_url})

    @_route("GET", "/gateway/bot")
    async def _get_gateway_bot(self, ctx: _Ctx) -> web.StreamResponse:
        return _json({"url": self.gateway_url, "shards": self.shard_count,
                      "session_start_limit": {"total": 1000, "remaining": 999,
                                              "reset_after": 14400000, "max_concurrency": 1}})

    @_route("GET", "/users/@me")
    async def _get_me(self, ctx: _Ctx) -> web.StreamResponse:
        return _json({**self.bot_user, "verified": True, "mfa_enabled": False, "email": None,
                      "locale": "en-US"})

    @_route("GET", "/users/{user_id}")
    async def _get_user(self, ctx: _Ctx) -> web.StreamResponse:
        user = self.users.get(ctx.params["user_id"])
        if user is None:
            raise _HTTPError(404, 10013, "Unknown User")
        return _json(user)

    @_route("POST", "/users/@me/channels")
    async def _create_dm(self, ctx: _Ctx) -> web.StreamResponse:
        recipient = str((ctx.body or {}).get("recipient_id"))
        user = self.users.get(recipient)
        if user is None:
            raise _HTTPError(400, 50035, "Invalid Form Body")
        channel_id = self._dms.get(recipient)
        if channel_id is None:
            channel_id = self.snowflake()
            self._dms[recipient] = channel_id
            self.channels[channel_id] = {"id": channel_id, "type": 1, "last_message_id": None,
                                         "flags": 0, "recipients": [user]}
        return _json(self.channels[channel_id])

    @_route("GET", "/oauth2/applications/@me")
    @_route("GET", "/applications/@me")
    async def _get_application(self, ctx: _Ctx) -> web.StreamResponse:
        return _json(self.application)

    @_route("PATCH", "/applications/@me")
    async def _edit_application(self, ctx: _Ctx) -> web.StreamResponse:
        self.application.update(ctx.body or {})
        return _json(self.application)

    @_route("GET", "/applications/{application_id}/emojis")
    async def _app_emojis(self, ctx: _Ctx) -> web.StreamResponse:
        return _json({"items": []})

    # -- REST: application commands -----------------------------------------------------

    def _check_app(self, ctx: _Ctx) -> str | None:
        if ctx.params["application_id"] != self.application_id:
            raise _HTTPError(403, 50001, "Missing Access")
        guild_id = ctx.params.get("guild_id")
        if guild_id is not None and guild_id not in self.guilds:
            raise _HTTPError(403, 50001, "Missing Access")
        return guild_id

    def _store_command(self, data: dict[str, Any], guild_id: str | None,
                       previous: list[_Command]) -> _Command:
        old = next((c for c in previous if c.data["name"] == data.get("name")
                    and c.data.get("type", 1) == data.get("type", 1)), None)
        # Like Discord, an overwrite keeps the id of a command with the same name and type.
        full: dict[str, Any] = {
            "id": old.data["id"] if old else self.snowflake(),
            "application_id": self.application_id,
            "version": self.snowflake(),
            "type": data.get("type") or 1,
            "name": data.get("name"),
            "description": data.get("description") or "",
            "default_member_permissions": data.get("default_member_permissions"),
            "nsfw": bool(data.get("nsfw", False)),
            "contexts": data.get("contexts"),
            "integration_types": data.get("integration_types") or [0],
            "options": data.get("options") or [],
        }
        for key in ("name_localizations", "description_localizations"):
            if data.get(key):
                full[key] = data[key]
        if guild_id is not None:
            full["guild_id"] = guild_id
        else:
            full["dm_permission"] = data.get("dm_permission", True)
        return _Command(full, guild_id)

    @_route("GET", "/applications/{application_id}/commands")
    @_route("GET", "/applications/{application_id}/guilds/{guild_id}/commands")
    async def _list_commands(self, ctx: _Ctx) -> web.StreamResponse:
        return _json(self.commands(self._check_app(ctx)))

    @_route("PUT", "/applications/{application_id}/commands")
    @_route("PUT", "/applications/{application_id}/guilds/{guild_id}/commands")
    async def _put_commands(self, ctx: _Ctx) -> web.StreamResponse:
        guild_id = self._check_app(ctx)
        previous = [c for c in self._commands if c.guild_id == guild_id]
        body = ctx.body or []
        if not isinstance(body, list):
            raise _HTTPError(400, 50035, "Invalid Form Body")
        new = [self._store_command(d, guild_id, previous) for d in body]
        self._commands = [c for c in self._commands if c.guild_id != guild_id] + new
        return _json([c.data for c in new])

    @_route("POST", "/applications/{application_id}/commands")
    @_route("POST", "/applications/{application_id}/guilds/{guild_id}/commands")
    async def _upsert_command(self, ctx: _Ctx) -> web.StreamResponse:
        guild_id = self._check_app(ctx)
        previous = [c for c in self._commands if c.guild_id == guild_id]
        cmd = self._store_command(dict(ctx.body or {}), guild_id, previous)
        self._commands = [c for c in self._commands if c.data["id"] != cmd.data["id"]] + [cmd]
        return _json(cmd.data, 201 if cmd.data["id"] not in {c.data["id"] for c in previous} else 200)

    @_route("GET", "/applications/{application_id}/guilds/{guild_id}/commands/permissions")
    async def _command_permissions(self, ctx: _Ctx) -> web.StreamResponse:
        self._check_app(ctx)
        return _json([])

    def _command_by_id(self, ctx: _Ctx) -> _Command:
        guild_id = self._check_app(ctx)
        for cmd in self._commands:
            if cmd.guild_id == guild_id and cmd.data["id"] == ctx.params["command_id"]:
                return cmd
        raise _HTTPError(404, 10063, "Unknown application command")

    @_route("GET", "/applications/{application_id}/commands/{command_id}")
    @_route("GET", "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}")
    async def _get_command(self, ctx: _Ctx) -> web.StreamResponse:
        return _json(self._command_by_id(ctx).data)

    @_route("PATCH", "/applications/{application_id}/commands/{command_id}")
    @_route("PATCH", "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}")
    async def _edit_command(self, ctx: _Ctx) -> web.StreamResponse:
        cmd = self._command_by_id(ctx)
        cmd.data.update(ctx.body or {})
        return _json(cmd.data)

    @_route("DELETE", "/applications/{application_id}/commands/{command_id}")
    @_route("DELETE", "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}")
    async def _delete_command(self, ctx: _Ctx) -> web.StreamResponse:
        cmd = self._command_by_id(ctx)
        self._commands.remove(cmd)
        return _empty()

    # -- messages (shared by channel, interaction and webhook routes) ---------------------

    def _make_attachment(self, channel_id: str, upload: UploadedFile, filename: str,
                         description: str | None) -> FakeAttachment:
        att_id = self.snowflake()
        att = FakeAttachment(att_id, filename, upload.data,
                             f"{self._base_url}/attachments/{channel_id}/{att_id}/{filename}",
                             guess_content_type(filename) or upload.content_type, description)
        self._uploads[att_id] = att  # like the CDN, keep serving files after edits drop them
        return att

    def _apply_body(self, msg: FakeMessage, body: Mapping[str, Any], files: list[UploadedFile],
                    *, creating: bool) -> None:
        """Apply a create/edit payload (+ uploaded files) to ``msg``, Discord-style."""
        if "content" in body:
            msg.content = body["content"] or ""
        if "embeds" in body:
            msg.embeds = list(body["embeds"] or [])
        if "components" in body:
            msg.components = normalise_components(body["components"] or [])
        flags = body.get("flags")
        if isinstance(flags, int):
            if creating:
                msg.flags = (msg.flags & ~_CREATE_FLAGS) | (flags & _CREATE_FLAGS)
            else:  # ephemeral-ness cannot change after creation
                msg.flags = (msg.flags & ~_EDIT_FLAGS) | (flags & _EDIT_FLAGS)
        if creating and body.get("poll"):
            msg.poll = dict(body["poll"])
        if creating and body.get("tts"):
            msg.tts = True
        by_index = {f.index: f for f in files}
        if body.get("attachments") is not None:
            kept: list[FakeAttachment] = []
            used: set[int] = set()
            for i, entry in enumerate(body["attachments"]):
                raw_id = str(entry.get("id"))
                existing = next((a for a in msg.attachments if a.id == raw_id), None)
                if existing is not None:
                    if "description" in entry:
                        existing.description = entry["description"]
                    kept.append(existing)
                elif raw_id.isdigit() and int(raw_id) in by_index:
                    upload = by_index[int(raw_id)]
                    used.add(int(raw_id))
                    kept.append(self._make_attachment(msg.channel_id, upload,
                                                      entry.get("filename") or upload.filename,
                                                      entry.get("description")))
                else:
                    raise _HTTPError(400, 50035, f"Invalid Form Body: attachments[{i}].id={raw_id} is "
                                     "neither an attachment of this message nor an uploaded files[n]")
            kept += [self._make_attachment(msg.channel_id, f, f.filename, None)
                     for f in files if f.index not in used]
            msg.attachments = kept
        elif files:
            new = [self._make_attachment(msg.channel_id, f, f.filename, None) for f in files]
            msg.attachments = new if creating else msg.attachments + new
        if len(msg.attachments) > 10:
            raise _HTTPError(400, 50035, "Invalid Form Body: more than 10 attachments")
        if not (msg.loading or msg.content or msg.embeds or msg.components or msg.attachments or msg.poll):
            raise _HTTPError(400, 50006, "Cannot send an empty message")

    def _new_message(self, channel_id: str, body: Mapping[str, Any], files: list[UploadedFile], *,
                     ix: FakeInteraction | None = None, loading: bool = False,
                     msg_type: int = 0) -> FakeMessage:
        channel = self.channels[channel_id]
        msg = FakeMessage(self.snowflake(), channel_id, channel.get("guild_id"), self.bot_user,
                          type=msg_type)
        if loading:
            msg.flags |= FLAG_LOADING
        if ix is not None:
            msg.interaction_id = ix.id
            msg.webhook_id = self.application_id
            msg.application_id = self.application_id
            msg.interaction_metadata = {
                "id": ix.id,
                "type": ix.type,
                "user": ix.user,
                "authorizing_integration_owners": ix.payload.get("authorizing_integration_owners", {}),
            }
            if ix.type == MESSAGE_COMPONENT and ix.message is not None:
                msg.interaction_metadata["interacted_message_id"] = ix.message.id
        reference = body.get("message_reference")
        if isinstance(reference, dict):
            # discord.py sends int ids; Discord echoes snowflakes as strings.
            msg.message_reference = {"type": 0, **{k: str(v) if k.endswith("_id") else v
                                                   for k, v in reference.items()}}
            msg.type = 19
        self._apply_body(msg, body, files, creating=True)
        self._parse_mentions(msg)
        if msg.ephemeral:
            msg.ephemeral_user_id = ix.user["id"] if ix is not None else None
        self.messages[msg.id] = msg
        if self.message_hook is not None:
            self.message_hook(msg, len(files))
        return msg

    def _parse_mentions(self, msg: FakeMessage) -> None:
        # Discord fills mentions/mention_roles from the content's <@id> / <@&id> markup.
        user_ids = dict.fromkeys(re.findall(r"<@!?(\d+)>", msg.content))
        msg.mentions = [self.users[u] for u in user_ids if u in self.users]
        guild = self.guilds.get(msg.guild_id or "")
        roles = dict.fromkeys(re.findall(r"<@&(\d+)>", msg.content))
        msg.mention_roles = [r for r in roles if guild is not None and r in guild.roles]

    async def _edit_message(self, msg: FakeMessage, body: Mapping[str, Any], files: list[UploadedFile]) -> None:
        before = msg.snapshot()
        was_loading = msg.loading
        msg.flags &= ~FLAG_LOADING
        try:
            self._apply_body(msg, body, files, creating=False)
        except _HTTPError:
            msg.flags |= FLAG_LOADING if was_loading else 0
            raise
        self._parse_mentions(msg)
        msg.history.append(before)
        msg.edited_at = None if was_loading else datetime.now(UTC)
        if self.message_hook is not None:
            self.message_hook(msg, len(files))
        await self._dispatch_message("MESSAGE_UPDATE", msg)

    async def _delete_message(self, msg: FakeMessage) -> None:
        msg.deleted = True
        if not msg.ephemeral:
            data = {"id": msg.id, "channel_id": msg.channel_id}
            if msg.guild_id:
                data["guild_id"] = msg.guild_id
            intent = INTENT_GUILD_MESSAGES if msg.guild_id else INTENT_DIRECT_MESSAGES
            await self._dispatch("MESSAGE_DELETE", data, guild_id=msg.guild_id, intent=intent)

    # -- REST: interaction callbacks and webhooks -----------------------------------------

    @_route("POST", "/interactions/{interaction_id}/{token}/callback", bot_auth=False)
    async def _callback(self, ctx: _Ctx) -> web.StreamResponse:
        ix = self.interactions.get(ctx.params["interaction_id"])
        if ix is None or ix.token != ctx.params["token"]:
            raise _HTTPError(404, 10062, "Unknown interaction")
        self._check_not_removed(ix.channel_id)
        body = ctx.body if isinstance(ctx.body, dict) else {}
        cb_type = body.get("type")
        if ix.callback is not None:
            ix.rejected_callbacks.append(int(cb_type or 0))
            raise _HTTPError(400, 40060, "Interaction has already been acknowledged.")
        if ix.failed:
            raise _HTTPError(404, 10062, f"Unknown interaction (answered after the "
                                         f"{self.interaction_timeout}s limit)")
        if cb_type not in ALLOWED_CALLBACKS.get(ix.type, ()):
            raise _HTTPError(400, 50035, f"Invalid Form Body: callback type {cb_type} is not valid "
                                         f"for interaction type {ix.type}")
        if cb_type in (6, 7) and ix.message is None:
            raise _HTTPError(400, 50035, "Invalid Form Body: no message to update")
        raw_data = body.get("data")
        data: dict[str, Any] = raw_data if isinstance(raw_data, dict) else {}
        message: FakeMessage | None = None
        msg_type = 20 if ix.type == APPLICATION_COMMAND else 0
        if cb_type == 4:
            message = self._new_message(ix.channel_id, data, ctx.files, ix=ix, msg_type=msg_type)
            ix.original = message
        elif cb_type == 5:
            flags = (data.get("flags") or 0) & FLAG_EPHEMERAL
            message = self._new_message(ix.channel_id, {"flags": flags}, [], ix=ix, loading=True,
                                        msg_type=msg_type)
            ix.original = message
        elif cb_type in (6, 7):
            assert ix.message is not None
            ix.original = ix.message
            if cb_type == 7:
                if ix.message.id not in self.messages:
                    raise _HTTPError(404, 10008, "Unknown Message")
                await self._edit_message(ix.message, data, ctx.files)
                message = ix.message
        # Accepted: stop the "This interaction failed" clock before any await can race it.
        if ix.deadline is not None:
            ix.deadline.cancel()
        ix.callback = InteractionCallback(int(cb_type), body.get("data"), list(ctx.files), message,
                                          time.monotonic())
        ix._answered.set()
        if message is not None and cb_type in (4, 5):
            await self._dispatch_message("MESSAGE_CREATE", message)
        self._touch()
        if not ctx.flag("with_response"):
            return _empty()
        response: dict[str, Any] = {"interaction": {"id": ix.id, "type": ix.type}}
        if message is not None:
            response["interaction"].update(response_message_id=message.id,
                                           response_message_loading=message.loading,
                                           response_message_ephemeral=message.ephemeral)
        if message is not None and cb_type in (4, 7):
            response["resource"] = {"type": cb_type, "message": message.to_payload()}
        return _json(response)

    def _webhook_interaction(self, ctx: _Ctx) -> FakeInteraction:
        if ctx.params["webhook_id"] != self.application_id:
            raise _HTTPError(404, 10015, "Unknown Webhook")
        ix = self._by_token.get(ctx.params["token"])
        if ix is None or self.interactions.get(ix.id) is not ix:
            raise _HTTPError(404, 10015, "Unknown Webhook")
        if ix.callback is None:
            # The interaction webhook only exists once the interaction is acknowledged.
            raise _HTTPError(404, 10015, "Unknown Webhook (interaction not acknowledged yet)")
        self._check_not_removed(ix.channel_id)
        return ix

    def _check_not_removed(self, channel_id: str) -> None:
        if channel_id in self._removed_channels:
            raise _HTTPError(404, 10003, "Unknown Channel", expected=True)

    def _webhook_message(self, ctx: _Ctx) -> tuple[FakeInteraction, FakeMessage]:
        ix = self._webhook_interaction(ctx)
        mid = ctx.params.get("message_id", "@original")
        if mid == "@original":
            msg = ix.original
        else:
            msg = next((m for m in [ix.original, *ix.followup_messages] if m is not None and m.id == mid), None)
        if msg is None or msg.deleted:
            raise _HTTPError(404, 10008, "Unknown Message")
        return ix, msg

    @_route("POST", "/webhooks/{webhook_id}/{token}", bot_auth=False)
    async def _followup(self, ctx: _Ctx) -> web.StreamResponse:
        ix = self._webhook_interaction(ctx)
        body = ctx.body if isinstance(ctx.body, dict) else {}
        original = ix.original
        if original is not None and original.loading and not ix.followup_messages:
            # Discord: the first follow-up after a deferred response replaces the
            # "is thinking..." message (keeping its ephemerality) instead of posting anew.
            await self._edit_message(original, body, ctx.files)
            msg = original
        else:
            msg = self._new_message(ix.channel_id, body, ctx.files, ix=ix,
                                    msg_type=20 if ix.type == APPLICATION_COMMAND else 0)
            await self._dispatch_message("MESSAGE_CREATE", msg)
        ix.followup_messages.append(msg)
        if ix.followed_at is None:
            ix.followed_at = time.monotonic()
            ix.followed_by = InteractionCallback(4, body, list(ctx.files), msg, ix.followed_at)
        self._touch()
        return _json(msg.to_payload()) if ctx.flag("wait") else _empty()

    @_route("GET", "/webhooks/{webhook_id}/{token}/messages/@original", bot_auth=False)
    @_route("GET", "/webhooks/{webhook_id}/{token}/messages/{message_id}", bot_auth=False)
    async def _get_webhook_message(self, ctx: _Ctx) -> web.StreamResponse:
        return _json(self._webhook_message(ctx)[1].to_payload())

    @_route("PATCH", "/webhooks/{webhook_id}/{token}/messages/@original", bot_auth=False)
    @_route("PATCH", "/webhooks/{webhook_id}/{token}/messages/{message_id}", bot_auth=False)
    async def _edit_webhook_message(self, ctx: _Ctx) -> web.StreamResponse:
        ix, msg = self._webhook_message(ctx)
        if ctx.files and not msg.ephemeral and msg.channel_id in self.channels:
            # A public message given new files through an interaction: Discord checks the
            # app's permissions in the channel (the interaction's app_permissions), as a
            # channel edit would.
            self._require(self.channels[msg.channel_id], ATTACH_FILES)
        await self._edit_message(msg, ctx.body if isinstance(ctx.body, dict) else {}, ctx.files)
        if ix.followed_at is None:
            ix.followed_at = time.monotonic()
            ix.followed_by = InteractionCallback(
                7 if msg is ix.message else 4, ctx.body if isinstance(ctx.body, dict) else {},
                list(ctx.files), msg, ix.followed_at)
        return _json(msg.to_payload())

    @_route("DELETE", "/webhooks/{webhook_id}/{token}/messages/@original", bot_auth=False)
    @_route("DELETE", "/webhooks/{webhook_id}/{token}/messages/{message_id}", bot_auth=False)
    async def _delete_webhook_message(self, ctx: _Ctx) -> web.StreamResponse:
        _ix, msg = self._webhook_message(ctx)
        await self._delete_message(msg)
        return _empty()

    # -- REST: channels -----------------------------------------------------------------

    def _rest_channel(self, ctx: _Ctx) -> dict[str, Any]:
        channel_id = ctx.params["channel_id"]
        channel = self.channels.get(channel_id)
        if channel is None or channel.get("_deleted"):
            raise _HTTPError(404, 10003, "Unknown Channel", expected=channel_id in self._removed_channels)
        if channel.get("guild_id"):
            self._require(channel, 0)
        return channel

    def _rest_message(self, ctx: _Ctx) -> FakeMessage:
        channel = self._rest_channel(ctx)
        msg = self.messages.get(ctx.params["message_id"])
        # Ephemeral messages are invisible to the channel endpoints.
        if msg is None or msg.deleted or msg.ephemeral or msg.channel_id != channel["id"]:
            raise _HTTPError(404, 10008, "Unknown Message")
        return msg

    @staticmethod
    def _public(channel: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in channel.items() if not k.startswith("_")}

    @_route("GET", "/channels/{channel_id}")
    async def _get_channel(self, ctx: _Ctx) -> web.StreamResponse:
        return _json(self._public(self._rest_channel(ctx)))

    @_route("PATCH", "/channels/{channel_id}")
    async def _edit_channel(self, ctx: _Ctx) -> web.StreamResponse:
        channel = self._rest_channel(ctx)
        body = ctx.body if isinstance(ctx.body, dict) else {}
        for key, value in body.items():
            if key in ("archived", "locked", "auto_archive_duration", "invitable") and "thread_metadata" in channel:
                channel["thread_metadata"][key] = value
            else:
                channel[key] = value
        is_thread = "thread_metadata" in channel
        await self._dispatch("THREAD_UPDATE" if is_thread else "CHANNEL_UPDATE", self._public(channel),
                             guild_id=channel.get("guild_id"), intent=INTENT_GUILDS)
        return _json(self._public(channel))

    @_route("DELETE", "/channels/{channel_id}")
    async def _delete_channel(self, ctx: _Ctx) -> web.StreamResponse:
        channel = self._rest_channel(ctx)
        channel["_deleted"] = True
        is_thread = "thread_metadata" in channel
        await self._dispatch("THREAD_DELETE" if is_thread else "CHANNEL_DELETE", self._public(channel),
                             guild_id=channel.get("guild_id"), intent=INTENT_GUILDS)
        return _json(self._public(channel))

    @_route("POST", "/channels/{channel_id}/typing")
    async def _typing(self, ctx: _Ctx) -> web.StreamResponse:
        channel = self._rest_channel(ctx)
        if channel.get("guild_id"):
            self._require(channel, SEND_MESSAGES)
        return _empty()

    @_route("GET", "/channels/{channel_id}/messages")
    async def _list_messages(self, ctx: _Ctx) -> web.StreamResponse:
        channel = self._rest_channel(ctx)
        found = [m for m in self.channel_messages(channel["id"]) if not m.ephemeral]
        if "before" in ctx.query:
            found = [m for m in found if int(m.id) < int(ctx.query["before"])]
        if "after" in ctx.query:
            found = [m for m in found if int(m.id) > int(ctx.query["after"])]
        limit = int(ctx.query.get("limit", 50))
        newest_first = list(reversed(found))
        if "after" in ctx.query:
            newest_first = list(reversed(found[:limit]))
        return _json([m.to_payload() for m in newest_first[:limit]])

    @_route("POST", "/channels/{channel_id}/messages")
    async def _create_message(self, ctx: _Ctx) -> web.StreamResponse:
        channel = self._rest_channel(ctx)
        if channel.get("guild_id"):
            needed = SEND_MESSAGES_IN_THREADS if "thread_metadata" in channel else SEND_MESSAGES
            self._require(channel, needed | (ATTACH_FILES if ctx.files else 0))
        if any(r["id"] in self._closed_dms for r in channel.get("recipients") or []):
            raise _HTTPError(403, 50007, "Cannot send messages to this user", expected=True)
        body = ctx.body if isinstance(ctx.body, dict) else {}
        if body.get("flags", 0) and body["flags"] & FLAG_EPHEMERAL:
            raise _HTTPError(400, 50035, "Invalid Form Body: channel messages cannot be ephemeral")
        msg = self._new_message(channel["id"], body, ctx.files)
        await self._dispatch_message("MESSAGE_CREATE", msg)
        return _json(msg.to_payload())

    @_route("GET", "/channels/{channel_id}/messages/{message_id}")
    async def _get_message(self, ctx: _Ctx) -> web.StreamResponse:
        return _json(self._rest_message(ctx).to_payload())

    @_route("PATCH", "/channels/{channel_id}/messages/{message_id}")
    async def _patch_message(self, ctx: _Ctx) -> web.StreamResponse:
        msg = self._rest_message(ctx)
        if msg.author["id"] != self.application_id:
            raise _HTTPError(403, 50005, "Cannot edit a message authored by another user")
        if ctx.files and msg.guild_id:
            self._require(self.channels[msg.channel_id], ATTACH_FILES)
        await self._edit_message(msg, ctx.body if isinstance(ctx.body, dict) else {}, ctx.files)
        return _json(msg.to_payload())

    @_route("DELETE", "/channels/{channel_id}/messages/{message_id}")
    async def _delete_channel_message(self, ctx: _Ctx) -> web.StreamResponse:
        msg = self._rest_message(ctx)
        if msg.author["id"] != self.application_id and msg.guild_id:
            self._require(self.channels[msg.channel_id], MANAGE_MESSAGES)
        await self._delete_message(msg)
        return _empty()

    @_route("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me")
    async def _add_reaction(self, ctx: _Ctx) -> web.StreamResponse:
        msg = self._rest_message(ctx)
        if msg.guild_id:
            self._require(self.channels[msg.channel_id], ADD_REACTIONS)
        emoji = unquote(ctx.params["emoji"])
        msg.reactions.setdefault(emoji, set()).add(self.application_id)
        return _empty()

    @_route("DELETE", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me")
    async def _remove_reaction(self, ctx: _Ctx) -> web.StreamResponse:
        msg = self._rest_message(ctx)
        emoji = unquote(ctx.params["emoji"])
        msg.reactions.get(emoji, set()).discard(self.application_id)
        return _empty()

    async def _new_thread(self, ctx: _Ctx, parent: dict[str, Any], private: bool) -> web.StreamResponse:
        body = ctx.body if isinstance(ctx.body, dict) else {}
        guild = self._guild(parent.get("guild_id"))
        thread = thread_payload(self.snowflake(), guild.id, parent["id"], str(body.get("name", "thread")),
                                self.application_id, private=private)
        guild.threads[thread["id"]] = thread
        self.channels[thread["id"]] = thread
        await self._dispatch("THREAD_CREATE", {**thread, "newly_created": True}, guild_id=guild.id,
                             intent=INTENT_GUILDS)
        return _json(thread, 201)

    @_route("POST", "/channels/{channel_id}/threads")
    async def _create_thread(self, ctx: _Ctx) -> web.StreamResponse:
        parent = self._rest_channel(ctx)
        body = ctx.body if isinstance(ctx.body, dict) else {}
        private = body.get("type") == 12
        self._require(parent, CREATE_PRIVATE_THREADS if private else CREATE_PUBLIC_THREADS)
        return await self._new_thread(ctx, parent, private=private)

    @_route("POST", "/channels/{channel_id}/messages/{message_id}/threads")
    async def _create_thread_from_message(self, ctx: _Ctx) -> web.StreamResponse:
        self._rest_message(ctx)
        return await self._new_thread(ctx, self._rest_channel(ctx), private=False)

    @_route("PUT", "/channels/{channel_id}/thread-members/@me")
    @_route("PUT", "/channels/{channel_id}/thread-members/{user_id}")
    @_route("DELETE", "/channels/{channel_id}/thread-members/@me")
    @_route("DELETE", "/channels/{channel_id}/thread-members/{user_id}")
    async def _thread_member(self, ctx: _Ctx) -> web.StreamResponse:
        self._rest_channel(ctx)
        return _empty()

    # -- REST: guilds -------------------------------------------------------------------

    def _rest_guild(self, ctx: _Ctx) -> FakeGuild:
        guild = self.guilds.get(ctx.params["guild_id"])
        if guild is None:
            raise _HTTPError(404, 10004, "Unknown Guild")
        return guild

    @_route("GET", "/guilds/{guild_id}")
    async def _get_guild(self, ctx: _Ctx) -> web.StreamResponse:
        guild = self._rest_guild(ctx)
        data = guild.guild_payload()
        if ctx.flag("with_counts"):
            data.update(approximate_member_count=len(guild.members), approximate_presence_count=0)
        return _json(data)

    @_route("GET", "/guilds/{guild_id}/channels")
    async def _guild_channels(self, ctx: _Ctx) -> web.StreamResponse:
        return _json([self._public(c) for c in self._rest_guild(ctx).channels.values() if not c.get("_deleted")])

    @_route("GET", "/guilds/{guild_id}/roles")
    async def _guild_roles(self, ctx: _Ctx) -> web.StreamResponse:
        return _json(list(self._rest_guild(ctx).roles.values()))

    @_route("GET", "/guilds/{guild_id}/members")
    async def _guild_members(self, ctx: _Ctx) -> web.StreamResponse:
        members = list(self._rest_guild(ctx).members.values())
        return _json(members[: int(ctx.query.get("limit", 1))])

    @_route("GET", "/guilds/{guild_id}/members/{user_id}")
    async def _guild_member(self, ctx: _Ctx) -> web.StreamResponse:
        guild = self._rest_guild(ctx)
        if ctx.params["user_id"] not in guild.members:
            raise _HTTPError(404, 10007, "Unknown Member")
        return _json(guild.members[ctx.params["user_id"]])


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _permission_bits(permission: int | str) -> int:
    if isinstance(permission, int):
        return permission
    bits = PERMISSIONS.get(permission.lower())
    if bits is None:
        raise FakeDiscordError(f"unknown permission {permission!r}; known: {sorted(PERMISSIONS)}")
    return bits


__all__ = ["FakeDiscord", "FakeDiscordError", "FakeInteraction", "InteractionCallback"]
