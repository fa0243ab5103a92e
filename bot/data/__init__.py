"""Game content and fonts shipped inside the package, so an installed wheel has them too.

Everything here is read through ``importlib.resources`` rather than a path relative to the
repository: a ``pip install .`` puts the package in site-packages, far from any checkout.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def data_path(*parts: str) -> Path:
    """The file or folder ``parts`` under ``bot/data``, as a real path.

    Pillow and ``json`` want real files; pip always unpacks wheels, so the package is on
    disk. A zipped install (zipimport) is not supported and says so instead of failing
    later with a confusing error.
    """
    resource = files(__name__).joinpath(*parts)
    if not isinstance(resource, Path):
        raise RuntimeError(f"Cityhall's data ({'/'.join(parts)}) must be installed as files, "
                           "not inside a zip archive")
    return resource
