"""The scripts in scripts/, for tests: loaded from their files, since scripts/ is not a
package (mypy checks each script itself)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any


def load_script(name: str) -> Any:
    path = Path(__file__).parent.parent / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
