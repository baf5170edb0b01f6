"""``docs/configuration.md`` lists every environment variable ``Settings.from_env`` reads, with
the default it really has, so the document cannot drift from the code."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from sleuth_shell.config import PLANS, Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
ROW = re.compile(r"^\| `(SLEUTH_[A-Z0-9_]+)` \| (.+?) \| (.+) \|$")


class Recording(Mapping[str, str]):
    """An empty environment that remembers every name looked up in it."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __getitem__(self, name: str) -> str:
        self.names.append(name)
        raise KeyError(name)

    def get(self, name: str, default: object = None) -> object:  # type: ignore[override]
        self.names.append(name)
        return default

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def documented() -> dict[str, tuple[str, str]]:
    """``{variable: (default, meaning)}`` from the first table of the document."""
    text = DOC.read_text(encoding="utf-8")
    settings_table = text.split("## Test suite only")[0]
    rows = {}
    for line in settings_table.splitlines():
        match = ROW.match(line)
        if match:
            name, default, meaning = match.groups()
            assert name not in rows, f"{name} is listed twice"
            rows[name] = (default.strip(), meaning.strip())
    return rows


def read_variables() -> list[str]:
    env = Recording()
    Settings.from_env(env)
    return env.names


def actual_default(name: str, settings: Settings) -> str:
    field = name.removeprefix("SLEUTH_").lower()
    plan = field.removeprefix("rate_limit_")
    value = settings.rate_limits[plan] if plan in PLANS else getattr(settings, field)
    if value is None or value == "":
        return "(unset)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def test_every_variable_is_documented_and_nothing_else() -> None:
    read = read_variables()
    assert read, "Settings.from_env read no variables?"
    assert sorted(documented()) == sorted(set(read))


def test_documented_defaults_are_the_real_ones() -> None:
    settings = Settings.from_env({})
    for name, (default, meaning) in documented().items():
        assert default == actual_default(name, settings), name
        assert len(meaning) > 20, f"{name} needs a meaning"


def test_the_readme_links_it() -> None:
    readme = (DOC.parents[1] / "README.md").read_text(encoding="utf-8")
    assert "docs/configuration.md" in readme
