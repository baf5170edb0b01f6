"""The operator CLI as operators run it: the real ``sleuth`` command in subprocesses, against a
real database file and (for revocation and ``last_used_at``) two real ``sleuth serve`` nodes.

Every command prints one JSON object (lists as ``{"items": [...]}``) with the API's timestamps,
never prints a key or a provider secret, and on error exits non-zero with one message on stderr
and nothing on stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from e2e_harness import Ran, cli_runs, poll, serve, sleuth_env

pytestmark = pytest.mark.e2e


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sleuth_shell", "admin", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def printed(done: Ran | subprocess.CompletedProcess[str]) -> dict:
    """The one JSON object a command that succeeded printed."""
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout  # one JSON object
    return json.loads(lines[0])


def error_message(done: Ran | subprocess.CompletedProcess[str]) -> str:
    """The one error message of a command that failed (nothing on stdout)."""
    assert done.returncode != 0
    assert done.stdout == ""
    assert done.stderr.startswith("Error: ")
    return done.stderr.strip()


def ok(env: dict[str, str], *args: str) -> dict:
    return printed(run(env, *args))


def fails(env: dict[str, str], *args: str) -> str:
    return error_message(run(env, *args))


def admin(env: dict[str, str], *commands: list[str]) -> list[Ran]:
    """Several ``sleuth admin`` commands in one ``sleuth`` process (``cli_runs``), in order."""
    return cli_runs(env, *(["admin", *command] for command in commands))


def is_api_timestamp(value: object) -> bool:
    return isinstance(value, str) and value.endswith("Z") and "+00:00" not in value


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    env = sleuth_env(
        f"sqlite:///{tmp_path / 'sleuth.db'}",
        SLEUTH_PUBLIC_URL="https://sleuth.example.com",
        SLEUTH_WORKERS_INLINE="false",
    )
    ok(env, "create-org", "acme")
    return env


def test_orgs_plans_and_teams(env: dict[str, str]) -> None:
    beta, listed, changed, relisted, gold, nobody, team, teams, no_teams = admin(
        env,
        ["create-org", "beta", "--plan", "team"],
        ["list-orgs"],
        ["set-plan", "acme", "enterprise"],
        ["list-orgs"],
        ["set-plan", "acme", "gold"],
        ["set-plan", "nobody", "team"],
        ["create-team", "acme", "SRE"],
        ["list-teams", "acme"],
        ["list-teams", "nobody"],
    )
    printed(beta)
    orgs = printed(listed)["items"]
    assert [(o["name"], o["plan"]) for o in orgs] == [("acme", "free"), ("beta", "team")]
    assert set(orgs[0]) == {"id", "name", "plan", "created_at"}  # never the signing secret
    assert all(is_api_timestamp(o["created_at"]) for o in orgs)

    changed_org = printed(changed)
    assert (changed_org["name"], changed_org["plan"]) == ("acme", "enterprise")
    assert printed(relisted)["items"][0]["plan"] == "enterprise"
    assert error_message(gold) == "Error: Unknown plan: gold (use one of free, team, enterprise)"
    assert error_message(nobody) == "Error: Unknown organization: nobody"

    printed(team)
    team_items = printed(teams)["items"]
    assert [t["name"] for t in team_items] == ["Default", "SRE"]
    assert set(team_items[0]) == {"id", "global_id", "name", "created_at"}
    assert error_message(no_teams) == "Error: Unknown organization: nobody"


def test_keys_are_listed_without_the_key_and_revoked_at_once_on_every_node(
    env: dict[str, str], tmp_path: Path
) -> None:
    team, first_key, second_key, listed = admin(
        env,
        ["create-team", "acme", "SRE"],
        ["create-key", "acme", "--admin"],
        ["create-key", "acme", "--team", "SRE"],
        ["list-keys", "acme"],
    )
    printed(team)
    first, second = printed(first_key), printed(second_key)
    keys = printed(listed)["items"]
    assert [set(k) for k in keys] == [
        {"id", "prefix", "admin", "team", "created_at", "last_used_at", "revoked_at"}
    ] * 2
    assert [(k["admin"], k["team"]) for k in keys] == [(True, None), (False, "SRE")]
    assert first["key"].startswith(keys[0]["prefix"]) and second["key"].startswith(
        keys[1]["prefix"]
    )
    assert first["key"] not in json.dumps(keys) and second["key"] not in json.dumps(keys)
    assert keys[0]["last_used_at"] is None and keys[0]["revoked_at"] is None

    url = "/api/v1/webhook-subscriptions"
    with (
        serve(env, tmp_path / "node1.log") as node1,
        serve(env, tmp_path / "node2.log") as node2,
    ):
        for node in (node1, node2):
            response = httpx.get(node + url, headers={"X-Service-Org-Api-Key": first["key"]})
            assert response.status_code == 200
        used = ok(env, "list-keys", "acme")["items"]
        assert is_api_timestamp(used[0]["last_used_at"]) and used[1]["last_used_at"] is None

        revoked = ok(env, "revoke-key", "acme", str(keys[0]["id"]))
        assert revoked["id"] == keys[0]["id"] and is_api_timestamp(revoked["revoked_at"])
        for node in (node1, node2):  # no restart: refused within the revocation poll (0.25 s)

            def refused(node: str = node) -> tuple[httpx.Response] | None:
                answer = httpx.get(node + url, headers={"X-Service-Org-Api-Key": first["key"]})
                return (answer,) if answer.status_code == 401 else None

            # The documented bound is the principal cache's TTL (5 s); it is the poll in practice.
            (response,) = poll(refused, timeout=5.0, interval=0.05)
            assert response.json() == {"detail": "Invalid API key"}
            other = httpx.get(node + url, headers={"X-Service-Org-Api-Key": second["key"]})
            assert other.status_code == 200

    again, other, not_its_key, not_a_key = admin(
        env,
        ["revoke-key", "acme", str(keys[0]["id"])],  # idempotent
        ["create-org", "other"],
        ["revoke-key", "other", str(keys[1]["id"])],
        ["revoke-key", "acme", "abc"],
    )
    assert printed(again)["revoked_at"] == revoked["revoked_at"]
    printed(other)
    assert error_message(not_its_key) == f"Error: Unknown API key: {keys[1]['id']}"
    assert error_message(not_a_key) == "Error: Unknown API key: abc"


def test_webhooks_listed_without_provider_secret_and_removed(env: dict[str, str], tmp_path) -> None:
    added, added_signed, listed_now, created_key = admin(
        env,
        ["add-webhook", "acme", "--type", "PROVIDER_A", "--name", "pager"],
        [
            "add-webhook",
            "acme",
            "--type",
            "PROVIDER_B",
            "--name",
            "signed",
            "--provider-secret",
            "very-secret-value",
        ],
        ["list-webhooks", "acme"],
        ["create-key", "acme"],
    )
    hook, signed, listed = printed(added), printed(added_signed), printed(listed_now)
    assert "very-secret-value" not in json.dumps(listed)
    items = listed["items"]
    assert [(i["remote_id"], i["provider_secret_set"]) for i in items] == [
        (hook["remote_id"], False),
        (signed["remote_id"], True),
    ]
    assert set(items[0]) == {
        "type",
        "remote_id",
        "name",
        "secret",
        "ingest_url",
        "provider_secret_set",
        "created_at",
    }
    assert is_api_timestamp(items[0]["created_at"])

    # An alert agent listening to the subscription keeps it from being removed.
    key = printed(created_key)["key"]
    with serve(env, tmp_path / "serve.log") as base:
        agent = httpx.post(
            f"{base}/api/v1/alert-responders",
            headers={"X-Service-Org-Api-Key": key},
            json={
                "team_name": "Default",
                "name": "db",
                "webhook_sources": [{"type": "PROVIDER_A", "remote_id": hook["remote_id"]}],
                "matching_criteria": {"text_matches": ["db"]},
            },
        )
        assert agent.status_code == 200, agent.text
        in_use, removing = admin(
            env,
            ["remove-webhook", "acme", hook["remote_id"]],
            ["remove-webhook", "acme", signed["remote_id"]],
        )
        assert error_message(in_use) == (
            f"Error: Webhook subscription {hook['remote_id']} is a source of alert agents: db "
            "(remove it from their webhook_sources first)"
        )
        removed = printed(removing)
        assert removed["remote_id"] == signed["remote_id"]
        listed = httpx.get(
            f"{base}/api/v1/webhook-subscriptions", headers={"X-Service-Org-Api-Key": key}
        ).json()
        assert [s["remote_id"] for s in listed["webhook_subscriptions"]] == [hook["remote_id"]]
    assert fails(env, "remove-webhook", "acme", signed["remote_id"]) == (
        f"Error: Unknown webhook subscription: {signed['remote_id']}"
    )


def test_integrations_listed_and_removed_from_their_users(env: dict[str, str], tmp_path) -> None:
    added_chat, added_alt, listed, created_key = admin(
        env,
        ["add-integration", "acme", "--kind", "CHAT_ALERT", "--name", "#inc", "--channel", "C1"],
        [
            "add-integration",
            "acme",
            "--kind",
            "ALT_WEBHOOK",
            "--name",
            "alt",
            "--url",
            "https://hooks.example.com/T0/secret-token",
        ],
        ["list-integrations", "acme"],
        ["create-key", "acme"],
    )
    chat, alt = printed(added_chat), printed(added_alt)
    assert is_api_timestamp(chat["created_at"])
    items = printed(listed)["items"]
    assert items == [
        {**chat, "channel": "C1"},
        {**alt, "url_host": "hooks.example.com"},
    ]
    assert "secret-token" not in json.dumps(items)

    key = printed(created_key)["key"]
    headers = {"X-Service-Org-Api-Key": key}
    with serve(env, tmp_path / "serve.log") as base:
        digest = httpx.post(
            f"{base}/api/v1/digests",
            headers=headers,
            json={
                "team_name": "Default",
                "name": "daily",
                "sections": [{"section": "S", "prompt": "p"}],
                "schedule": "0 9 * * *",
                "notification_integration_ids": [chat["id"], alt["id"]],
            },
        ).json()
        removed = ok(env, "remove-integration", "acme", chat["id"])
        assert removed == {**chat, "channel": "C1"}
        record = httpx.get(f"{base}/api/v1/digests/{digest['id']}", headers=headers).json()
        assert record["notification_integration_ids"] == [alt["id"]]
        ok(env, "remove-integration", "acme", alt["id"])
        record = httpx.get(f"{base}/api/v1/digests/{digest['id']}", headers=headers).json()
        assert "notification_integration_ids" not in record
    emptied, gone = admin(
        env, ["list-integrations", "acme"], ["remove-integration", "acme", chat["id"]]
    )
    assert printed(emptied) == {"items": []}
    assert error_message(gone) == f"Error: Unknown notification integration: {chat['id']}"


def test_the_wrong_database_is_refused_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "elsewhere" / "sleuth.db"
    env = sleuth_env(f"sqlite:///{missing}")
    for args in (("list-orgs",), ("create-key", "acme"), ("load-demo", "acme")):
        message = fails(env, *args)
        assert message.startswith(f"Error: no database at {missing} ")
        assert "sleuth admin create-org NAME" in message
    assert not missing.exists()
    missing.parent.mkdir()
    assert ok(env, "create-org", "acme")["name"] == "acme"  # the one command that creates it
    assert missing.exists()


def test_the_message_points_at_the_demo_database(tmp_path: Path) -> None:
    (tmp_path / ".demo").mkdir()
    demo_env = sleuth_env(f"sqlite:///{tmp_path / '.demo' / 'sleuth.db'}")
    ok(demo_env, "create-org", "Demo")
    done = subprocess.run(
        [sys.executable, "-m", "sleuth_shell", "admin", "list-orgs"],
        env=sleuth_env("sqlite:///./sleuth.db"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert "The `make demo` database is .demo/sleuth.db" in done.stderr
    assert f"SLEUTH_DATABASE_URL=sqlite:///{tmp_path / '.demo' / 'sleuth.db'}" in done.stderr
    assert not (tmp_path / "sleuth.db").exists()


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_progress_on_a_terminal_only(tmp_path: Path) -> None:
    env = sleuth_env(f"sqlite:///{tmp_path / 'sleuth.db'}")
    leader, follower = os.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "sleuth_shell", "admin", "create-org", "acme"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=follower,
            timeout=120,
            check=False,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: everything has been read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert done.returncode == 0
    terminal = b"".join(chunks).decode()
    assert "sleuth: migrating the database: Running upgrade  -> 0001" in terminal
    assert json.loads(done.stdout)["name"] == "acme"  # stdout stays one JSON object

    ok(env, "create-key", "acme")  # captured stderr (not a terminal): no progress
    quiet = run(env, "load-demo", "acme")
    assert quiet.returncode == 0 and quiet.stderr == ""
