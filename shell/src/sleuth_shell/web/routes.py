"""The web app's routes: every module of this package that defines ``ROUTES`` is a group of
pages about one subject (``home``, ``investigations``, ``agents`` ...), and all of them are served.

A new page goes into the module of its subject, or into a new module ``web/<subject>.py`` with
``ROUTES = [...]``; nothing else needs changing. Modules without ``ROUTES`` (the guard, row
lookups, filters, rendering, sessions) are shared by the pages.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import Any

import sleuth_shell.web as package

__all__ = ["page_modules", "page_routes"]


def page_modules() -> list[ModuleType]:
    """The modules of this package that define ``ROUTES``, by name."""
    found = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.ispkg or info.name == "routes":
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if hasattr(module, "ROUTES"):
            found.append(module)
    return found


def page_routes() -> list[Any]:
    """Every page handler (served at the root, outside ``/api/v1``)."""
    return [route for module in page_modules() for route in module.ROUTES]
