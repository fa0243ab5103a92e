from __future__ import annotations

pytest_plugins = ["tests.fakediscord.pytest_plugin"]
