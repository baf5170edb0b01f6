"""The shipped coding-agent integrations (``integrations/``, ``.claude-plugin/``) are valid JSON
of the shape Claude Code and Cursor read, carry no credentials, and point at ``/mcp`` of a URL
the user sets. (The e2e test connects through the plug-in's URL: tests/e2e/test_mcp_e2e.py.)"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "integrations" / "claude-code"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_claude_code_plugin_manifest_and_server_entry() -> None:
    manifest = load(PLUGIN / ".claude-plugin" / "plugin.json")
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", manifest["name"])
    assert re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])
    assert manifest["description"] and manifest["author"]["name"]
    servers = load(PLUGIN / ".mcp.json")["mcpServers"]
    assert list(servers) == ["sleuth"]
    entry = servers["sleuth"]
    assert entry == {"type": "http", "url": "${SLEUTH_URL:-http://127.0.0.1:8000}/mcp"}
    # the plug-in directory holds only the manifest folder and the server entry at its root
    assert sorted(p.name for p in PLUGIN.iterdir()) == [".claude-plugin", ".mcp.json"]


def test_marketplace_lists_the_plugin() -> None:
    marketplace = load(ROOT / ".claude-plugin" / "marketplace.json")
    assert marketplace["name"] and marketplace["owner"]["name"]
    [plugin] = marketplace["plugins"]
    assert plugin["name"] == load(PLUGIN / ".claude-plugin" / "plugin.json")["name"]
    assert (ROOT / plugin["source"]).resolve() == PLUGIN


def test_cursor_configuration() -> None:
    servers = load(ROOT / "integrations" / "cursor" / "mcp.json")["mcpServers"]
    assert servers == {"sleuth": {"url": "${env:SLEUTH_URL}/mcp"}}


def test_no_integration_carries_a_key() -> None:
    paths = [*ROOT.joinpath("integrations").rglob("*.json"), *ROOT.glob(".claude-plugin/*.json")]
    assert len(paths) == 4
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert "slk_" not in text and "headers" not in text and "Authorization" not in text
