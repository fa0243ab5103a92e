"""Data kept by the fake Discord and the JSON shapes it serves."""

from __future__ import annotations

import io
import itertools
import mimetypes
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .spec import iter_components

if TYPE_CHECKING:
    from PIL import Image

DISCORD_EPOCH_MS = 1420070400000

# Permission bits (https://discord.com/developers/docs/topics/permissions).
CREATE_INSTANT_INVITE = 1 << 0
ADMINISTRATOR = 1 << 3
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_EXTERNAL_EMOJIS = 1 << 18
CONNECT = 1 << 20
SPEAK = 1 << 21
CHANGE_NICKNAME = 1 << 26
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 51) - 1
PERMISSIONS: dict[str, int] = {
    name.lower(): bits for name, bits in {
        "CREATE_INSTANT_INVITE": CREATE_INSTANT_INVITE, "ADMINISTRATOR": ADMINISTRATOR,
        "ADD_REACTIONS": ADD_REACTIONS, "VIEW_CHANNEL": VIEW_CHANNEL, "SEND_MESSAGES": SEND_MESSAGES,
        "MANAGE_MESSAGES": MANAGE_MESSAGES, "EMBED_LINKS": EMBED_LINKS, "ATTACH_FILES": ATTACH_FILES,
        "READ_MESSAGE_HISTORY": READ_MESSAGE_HISTORY, "USE_EXTERNAL_EMOJIS": USE_EXTERNAL_EMOJIS,
        "CONNECT": CONNECT, "SPEAK": SPEAK, "CHANGE_NICKNAME": CHANGE_NICKNAME,
        "USE_APPLICATION_COMMANDS": USE_APPLICATION_COMMANDS, "MANAGE_THREADS": MANAGE_THREADS,
        "CREATE_PUBLIC_THREADS": CREATE_PUBLIC_THREADS, "CREATE_PRIVATE_THREADS": CREATE_PRIVATE_THREADS,
        "SEND_MESSAGES_IN_THREADS": SEND_MESSAGES_IN_THREADS,
    }.items()
}

EVERYONE_PERMISSIONS = (
    CREATE_INSTANT_INVITE | ADD_REACTIONS | VIEW_CHANNEL | SEND_MESSAGES | EMBED_LINKS
    | ATTACH_FILES | READ_MESSAGE_HISTORY | USE_EXTERNAL_EMOJIS | CONNECT | SPEAK
    | CHANGE_NICKNAME | USE_APPLICATION_COMMANDS | CREATE_PUBLIC_THREADS
    | CREATE_PRIVATE_THREADS | SEND_MESSAGES_IN_THREADS
)
BOT_PERMISSIONS = EVERYONE_PERMISSIONS | MANAGE_MESSAGES | MANAGE_THREADS

# Gateway intents the fake honours when deciding what to dispatch.
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

# Message flags.
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7


class SnowflakeFactory:
    """Real-looking, strictly increasing snowflakes (discord.py derives created_at from them)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last = 0

    def __call__(self) -> str:
        with self._lock:
            now = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
            self._last = max(now, self._last + 1)
            return str(self._last)

    def on_shard(self, shard: int, count: int) -> str:
        """The next snowflake of a guild Discord routes to ``shard`` of ``count``
        (``(id >> 22) % count``): its timestamp moves on by at most ``count - 1`` ms."""
        with self._lock:
            now = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
            stamp = max(now, self._last + 1) >> 22
            if max(now, self._last + 1) & ((1 << 22) - 1):
                stamp += 1  # a fresh millisecond: the low bits restart at 0
            stamp += (shard - stamp) % count
            self._last = stamp << 22
            return str(self._last)


def iso(ts: datetime | None = None) -> str:
    return (ts or datetime.now(UTC)).isoformat()


def new_token() -> str:
    # Real interaction tokens are long opaque strings; only their uniqueness matters here.
    return "aW50ZXJhY3Rpb24" + secrets.token_urlsafe(48)


def user_payload(user_id: str, name: str, *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": user_id,
        "username": name,
        "global_name": None if bot else name,
        "discriminator": "0",
        "avatar": None,
        "avatar_decoration_data": None,
        "banner": None,
        "accent_color": None,
        "public_flags": 0,
        "flags": 0,
        "bot": bot,
        "system": False,
        "primary_guild": None,
        "collectibles": None,
    }


@dataclass
class UploadedFile:
    """A file part as the bot sent it (``files[n]`` of a multipart request)."""

    index: int
    filename: str
    data: bytes
    content_type: str | None = None


@dataclass
class FakeAttachment:
    id: str
    filename: str
    data: bytes
    url: str
    content_type: str | None = None
    description: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)

    def image(self) -> Image.Image:
        """Open the attachment with Pillow (imported lazily: only image tests need it)."""
        from PIL import Image

        img = Image.open(io.BytesIO(self.data))
        img.load()
        return img

    def to_payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "id": self.id,
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.content_type:
            payload["content_type"] = self.content_type
        if self.description is not None:
            payload["description"] = self.description
        if self.content_type and self.content_type.startswith("image/"):
            dims = _image_size(self.data)
            if dims:
                payload["width"], payload["height"] = dims
        return payload


def _image_size(data: bytes) -> tuple[int, int] | None:
    # PNG only, read from the IHDR chunk: enough for the width/height Discord reports,
    # without importing Pillow for every message.
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return None


def guess_content_type(filename: str) -> str | None:
    return mimetypes.guess_type(filename)[0]


@dataclass
class FakeMessage:
    """A message as the fake stores it; edits mutate it in place and append to ``history``."""

    id: str
    channel_id: str
    guild_id: str | None
    author: dict[str, Any]
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    tts: bool = False
    interaction_id: str | None = None
    ephemeral_user_id: str | None = None
    webhook_id: str | None = None
    application_id: str | None = None
    interaction_metadata: dict[str, Any] | None = None
    message_reference: dict[str, Any] | None = None
    poll: dict[str, Any] | None = None
    mentions: list[dict[str, Any]] = field(default_factory=list)
    mention_roles: list[str] = field(default_factory=list)
    reactions: dict[str, set[str]] = field(default_factory=dict)
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    edited_at: datetime | None = None
    deleted: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred ("is thinking...") response not yet edited."""
        return bool(self.flags & FLAG_LOADING)

    def attachment(self, filename: str | None = None) -> FakeAttachment:
        """The attachment called ``filename`` (or the only one); AssertionError otherwise."""
        if filename is None:
            if len(self.attachments) != 1:
                raise AssertionError(f"message {self.id} has {len(self.attachments)} attachments, expected 1")
            return self.attachments[0]
        for att in self.attachments:
            if att.filename == filename:
                return att
        names = [a.filename for a in self.attachments]
        raise AssertionError(f"message {self.id} has no attachment {filename!r}; it has {names}")

    def iter_components(self) -> Iterator[dict[str, Any]]:
        return iter_components(self.components)

    def snapshot(self) -> dict[str, Any]:
        """The visible state, kept in ``history`` before each edit."""
        return {
            "content": self.content,
            "embeds": [dict(e) for e in self.embeds],
            "components": list(self.components),
            # with the alt text: transcripts show what each earlier picture was said to be
            "attachments": [(a.id, a.filename, a.description) for a in self.attachments],
            "flags": self.flags,
            "edited_at": self.edited_at,
        }

    def to_payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "type": self.type,
            "content": self.content,
            "mentions": self.mentions,
            "mention_roles": self.mention_roles,
            "attachments": [a.to_payload() for a in self.attachments],
            "embeds": self.embeds,
            "timestamp": iso(self.created_at),
            "edited_timestamp": iso(self.edited_at) if self.edited_at else None,
            "flags": self.flags,
            "components": self.components,
            "id": self.id,
            "channel_id": self.channel_id,
            "author": self.author,
            "pinned": False,
            "mention_everyone": False,
            "tts": self.tts,
        }
        if self.webhook_id:
            payload["webhook_id"] = self.webhook_id
        if self.application_id:
            payload["application_id"] = self.application_id
        if self.interaction_metadata:
            payload["interaction_metadata"] = self.interaction_metadata
        if self.message_reference:
            payload["message_reference"] = self.message_reference
        if self.poll:
            payload["poll"] = self.poll
        if self.reactions:
            payload["reactions"] = [
                {
                    "emoji": _emoji_payload(emoji),
                    "count": len(users),
                    "count_details": {"burst": 0, "normal": len(users)},
                    "burst_colors": [],
                    "me_burst": False,
                    "burst_me": False,
                    "me": False,
                    "burst_count": 0,
                }
                for emoji, users in self.reactions.items()
                if users
            ]
        return payload


def _emoji_payload(emoji: str) -> dict[str, Any]:
    if ":" in emoji:  # custom emoji route form name:id
        name, _, eid = emoji.partition(":")
        return {"id": eid, "name": name}
    return {"id": None, "name": emoji}


@dataclass
class InteractionCallback:
    """What the bot answered to an interaction (POST /interactions/{id}/{token}/callback)."""

    type: int
    data: dict[str, Any] | None
    files: list[UploadedFile]
    message: FakeMessage | None
    at: float

    @property
    def ephemeral(self) -> bool:
        return bool(((self.data or {}).get("flags") or 0) & FLAG_EPHEMERAL)


@dataclass
class RecordedRequest:
    method: str
    path: str  # relative to /api/v10, e.g. /channels/123/messages
    query: dict[str, str]
    json: Any
    files: list[UploadedFile]
    route: str | None  # the OpenAPI path template, when the spec knows the path
    status: int = 0
    # Rate-limit (and Retry-After / Via) headers of the fake's answer.
    headers: dict[str, str] = field(default_factory=dict)
    # Answered by a fault the test injected (fail/slow/delete_channel/revoke), not by the bot's doing.
    injected: bool = False

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status}"


@dataclass
class RecordedError:
    """A request the fake answered with an error, or a misuse it noticed."""

    method: str
    path: str
    status: int
    code: int
    message: str

    def __str__(self) -> str:
        return f"{self.method} {self.path}: {self.status} (code {self.code}) {self.message}"


@dataclass
class FakeGuild:
    id: str
    name: str
    owner_id: str
    roles: dict[str, dict[str, Any]] = field(default_factory=dict)
    channels: dict[str, dict[str, Any]] = field(default_factory=dict)
    threads: dict[str, dict[str, Any]] = field(default_factory=dict)
    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    locale: str = "en-US"
    joined_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    def permissions_of(self, user_id: str) -> int:
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.members.get(user_id)
        perms = int(self.roles[self.id]["permissions"])
        for role_id in (member or {}).get("roles", []):
            role = self.roles.get(role_id)
            if role:
                perms |= int(role["permissions"])
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    def member_payload(self, user_id: str, *, with_permissions: bool = False) -> dict[str, Any]:
        member = dict(self.members[user_id])
        if with_permissions:
            member["permissions"] = str(self.permissions_of(user_id))
        return member

    def guild_payload(self) -> dict[str, Any]:
        system_channel = next(iter(self.channels), None)
        return {
            "id": self.id,
            "name": self.name,
            "icon": None,
            "icon_hash": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": self.owner_id,
            "region": "deprecated",
            "afk_channel_id": None,
            "afk_timeout": 300,
            "widget_enabled": False,
            "widget_channel_id": None,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": list(self.roles.values()),
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": system_channel,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "max_presences": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.locale,
            "max_video_channel_users": 25,
            "max_stage_video_channel_users": 50,
            "nsfw": False,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "incidents_data": None,
        }


_role_positions = itertools.count(1)


def role_payload(role_id: str, name: str, permissions: int, *, managed: bool = False,
                 position: int | None = None, bot_id: str | None = None) -> dict[str, Any]:
    role: dict[str, Any] = {
        "id": role_id,
        "name": name,
        "description": None,
        "permissions": str(permissions),
        "position": next(_role_positions) if position is None else position,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "managed": managed,
        "mentionable": False,
        "icon": None,
        "unicode_emoji": None,
        "flags": 0,
    }
    if bot_id is not None:
        role["tags"] = {"bot_id": bot_id}
    return role


def text_channel_payload(channel_id: str, guild_id: str, name: str, *, position: int,
                         parent_id: str | None = None, type_: int = 0) -> dict[str, Any]:
    return {
        "id": channel_id,
        "type": type_,
        "guild_id": guild_id,
        "name": name,
        "position": position,
        "permission_overwrites": [],
        "parent_id": parent_id,
        "topic": None,
        "nsfw": False,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "flags": 0,
    }


def thread_payload(thread_id: str, guild_id: str, parent_id: str, name: str, owner_id: str,
                   *, private: bool = False) -> dict[str, Any]:
    return {
        "id": thread_id,
        "type": 12 if private else 11,
        "guild_id": guild_id,
        "parent_id": parent_id,
        "owner_id": owner_id,
        "name": name,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": 1,
        "total_message_sent": 0,
        "flags": 0,
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 1440,
            "archive_timestamp": iso(),
            "locked": False,
            "create_timestamp": iso(),
            **({"invitable": True} if private else {}),
        },
    }
