"""The docs point only at files a user of the repository has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
#: The contract documents the project was built from; users of the repository do not have them.
ABSENT = re.compile(r"\b(?:DESIGN|SPEC|INTEGRATIONS)\.md\b|\.\./shared/")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_no_reference_to_files_users_do_not_have(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert ABSENT.findall(text) == []


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_named_doc_exists(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for name in re.findall(r"`(?:docs/)?([a-z0-9-]+\.md)`|\]\((?:docs/)?([a-z0-9-]+\.md)", text):
        target = next(n for n in name if n)
        assert (ROOT / "docs" / target).exists() or target == "README.md", f"{path.name}: {target}"
