"""The operator CLI, in process (the end-to-end suite runs it as a real subprocess)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sleuth_core.ids import decode_global_id
from sleuth_shell.cli import main


@pytest.fixture
def cli(database_url: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SLEUTH_DATABASE_URL", database_url)
    monkeypatch.setenv("SLEUTH_PUBLIC_URL", "https://sleuth.example.com")
    runner = CliRunner()

    def invoke(*args: str):
        result = runner.invoke(main, list(args))
        return result

    return invoke


def ok(result) -> dict:
    assert result.exit_code == 0, result.output + result.stderr
    return json.loads(result.stdout)


@pytest.mark.storage
def test_admin_commands(cli) -> None:
    org = ok(cli("admin", "create-org", "acme", "--plan", "team"))
    assert set(org) == {"id", "name", "plan", "signing_secret"}
    assert (org["name"], org["plan"]) == ("acme", "team") and len(org["signing_secret"]) >= 32

    team = ok(cli("admin", "create-team", "acme", "SRE"))
    assert team["name"] == "SRE" and decode_global_id(team["global_id"], "Team") == team["id"]

    key = ok(cli("admin", "create-key", "acme", "--admin", "--team", "SRE"))
    assert key["key"].startswith("slk_")
    assert {k: key[k] for k in ("org", "admin", "team")} == {
        "org": "acme",
        "admin": True,
        "team": "SRE",
    }
    plain = ok(cli("admin", "create-key", "acme"))
    assert (plain["admin"], plain["team"]) == (False, None) and plain["key"] != key["key"]

    hook = ok(cli("admin", "add-webhook", "acme", "--type", "PROVIDER_A", "--name", "pager"))
    assert set(hook) == {"type", "remote_id", "name", "secret", "ingest_url"}
    assert hook["ingest_url"] == (
        f"https://sleuth.example.com/api/v1/webhooks/PROVIDER_A/{hook['remote_id']}"
    )

    alt = ok(
        cli(
            "admin",
            "add-integration",
            "acme",
            "--kind",
            "ALT_WEBHOOK",
            "--name",
            "n",
            "--url",
            "https://alt.example.com/x",
        )
    )
    assert set(alt) == {"id", "name", "kind", "created_at"} and alt["kind"] == "ALT_WEBHOOK"
    assert decode_global_id(alt["id"], "NotificationIntegration") is not None
    chat = ok(
        cli(
            "admin",
            "add-integration",
            "acme",
            "--kind",
            "CHAT_ALERT",
            "--name",
            "c",
            "--channel",
            "C0123",
        )
    )
    assert chat["kind"] == "CHAT_ALERT"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("admin", "create-team", "nope", "T"), "Unknown organization: nope"),
        (("admin", "create-key", "nope"), "Unknown organization: nope"),
        (("admin", "create-org", "acme"), "Organization already exists: acme"),
        (("admin", "create-key", "acme", "--team", "Ghosts"), "Unknown team: Ghosts"),
        (
            (
                "admin",
                "add-integration",
                "acme",
                "--kind",
                "CHAT_ALERT",
                "--name",
                "c",
                "--channel",
                "D123",
            ),
            "CHAT_ALERT needs --channel",
        ),
        (
            ("admin", "add-integration", "acme", "--kind", "ALT_WEBHOOK", "--name", "c"),
            "ALT_WEBHOOK needs --url",
        ),
        (("admin", "create-org", "  "), "Organization name must not be empty"),
    ],
)
def test_admin_errors(cli, args: tuple[str, ...], message: str) -> None:
    ok(cli("admin", "create-org", "acme"))
    result = cli(*args)
    assert result.exit_code != 0
    assert result.stdout == ""
    assert message in result.stderr


def test_bad_setting_is_reported(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLEUTH_WORKERS_INLINE", "perhaps")
    result = cli("admin", "create-org", "acme")
    assert result.exit_code != 0
    assert "SLEUTH_WORKERS_INLINE must be true or false" in result.stderr


def test_bad_choice_is_a_usage_error(cli) -> None:
    result = cli("admin", "add-webhook", "acme", "--type", "NOPE", "--name", "x")
    assert result.exit_code == 2


@pytest.mark.storage
def test_add_webhook_offers_every_type_the_intake_accepts(cli) -> None:
    import typing

    from sleuth_shell.api.alert_responders import ProviderType
    from sleuth_shell.domain import ALERT_SOURCE_TYPES
    from sleuth_shell.intake import INTAKE_TYPES

    assert set(ALERT_SOURCE_TYPES) == INTAKE_TYPES and "GENERIC" in INTAKE_TYPES
    assert set(typing.get_args(ProviderType)) >= set(ALERT_SOURCE_TYPES)
    usage = cli("admin", "add-webhook", "--help").output
    for type_ in INTAKE_TYPES:
        assert type_ in usage, type_
    ok(cli("admin", "create-org", "acme"))
    hook = ok(cli("admin", "add-webhook", "acme", "--type", "GENERIC", "--name", "any"))
    assert hook["type"] == "GENERIC"
    assert hook["ingest_url"].endswith(f"/api/v1/webhooks/GENERIC/{hook['remote_id']}")


@pytest.mark.storage
def test_add_webhook_for_alert_and_change_sources(cli) -> None:
    ok(cli("admin", "create-org", "acme"))
    for type_ in ("ALERTMANAGER", "GRAFANA", "GENERIC", "GITLAB"):
        hook = ok(cli("admin", "add-webhook", "acme", "--type", type_, "--name", type_.lower()))
        assert hook["type"] == type_ and "service" not in hook
        assert hook["ingest_url"].endswith(f"/api/v1/webhooks/{type_}/{hook['remote_id']}")
    repo = ok(
        cli("admin", "add-webhook", "acme", "--type", "GITHUB", "--name", "shop",
            "--service", "checkout-api")
    )  # fmt: skip
    assert repo["service"] == "checkout-api"
    listed = ok(cli("admin", "list-webhooks", "acme"))
    assert [h["type"] for h in listed["items"]] == [
        "ALERTMANAGER", "GRAFANA", "GENERIC", "GITLAB", "GITHUB"
    ]  # fmt: skip
    refused = cli(
        "admin", "add-webhook", "acme", "--type", "ALERTMANAGER", "--name", "x", "--service", "y"
    )
    assert refused.exit_code != 0 and "--service is for change sources" in refused.stderr
