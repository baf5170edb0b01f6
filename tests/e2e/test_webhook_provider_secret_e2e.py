"""Provider webhook secrets through the real ``sleuth`` CLI (subprocesses) and a real database file.

``sleuth admin add-webhook --provider-secret`` and ``sleuth admin set-webhook-secret`` store the
signing secret a provider issued; it is never printed, and ``GET /api/v1/webhook-subscriptions``
never lists it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx
import pytest
from e2e_harness import Ran, cli_runs, free_port, serve, sleuth_env

pytestmark = pytest.mark.e2e

SUBSCRIPTION_KEYS = {"type", "remote_id", "name", "secret", "ingest_url"}


def ok(ran: Ran) -> dict:
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def stored_secrets(path: Path) -> dict[str, str | None]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT remote_id, provider_secret FROM webhook_subscriptions")
        return dict(rows.fetchall())


def test_provider_secret_is_stored_never_printed_and_never_listed(tmp_path: Path) -> None:
    """Each step's commands run in one ``sleuth`` process (``cli_runs``): the same entry point,
    exit statuses and output as one process a command."""
    db = tmp_path / "sleuth.db"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = sleuth_env(f"sqlite:///{db}", SLEUTH_PUBLIC_URL=base, SLEUTH_WORKERS_INLINE="false")
    first_secret = "pd-issued-secret-0123456789abcdef"
    *_, created_key, done, added_plain = cli_runs(
        env,
        ["admin", "create-org", "acme"],
        ["admin", "create-org", "other"],
        ["admin", "create-key", "acme"],
        [
            "admin",
            "add-webhook",
            "acme",
            "--type",
            "PROVIDER_A",
            "--name",
            "pager",
            "--provider-secret",
            first_secret,
        ],
        ["admin", "add-webhook", "acme", "--type", "PROVIDER_C", "--name", "fh"],
    )
    key = ok(created_key)["key"]
    assert done.returncode == 0, done.stderr
    assert first_secret not in done.stdout
    pager = json.loads(done.stdout)
    assert set(pager) == SUBSCRIPTION_KEYS
    assert pager["type"] == "PROVIDER_A" and pager["name"] == "pager"
    assert pager["ingest_url"] == f"{base}/api/v1/webhooks/PROVIDER_A/{pager['remote_id']}"

    plain = ok(added_plain)
    assert stored_secrets(db) == {pager["remote_id"]: first_secret, plain["remote_id"]: None}

    # Setting a secret on a subscription without one, then replacing one.
    fh_secret = "fh-secret-abc"
    new_secret = "pd-rotated-secret"
    set_secret = ["admin", "set-webhook-secret", "acme"]
    done, again = cli_runs(
        env,
        [*set_secret, plain["remote_id"], "--provider-secret", fh_secret],
        [*set_secret, pager["remote_id"], "--provider-secret", new_secret],
    )
    assert done.returncode == 0, done.stderr
    assert fh_secret not in done.stdout and done.stderr == ""
    assert json.loads(done.stdout) == plain  # the same subscription, printed as add-webhook does
    assert ok(again) == pager
    assert stored_secrets(db) == {pager["remote_id"]: new_secret, plain["remote_id"]: fh_secret}

    # Errors: message on stderr, nothing on stdout, non-zero exit, nothing changed.
    failures = [
        (
            ("set-webhook-secret", "nope", pager["remote_id"], "--provider-secret", "x"),
            "Unknown organization: nope",
        ),
        (
            ("set-webhook-secret", "acme", "wh_missing", "--provider-secret", "x"),
            "Unknown webhook subscription: wh_missing",
        ),
        (  # another organization's subscription is unknown to this one
            ("set-webhook-secret", "other", pager["remote_id"], "--provider-secret", "x"),
            "Unknown webhook subscription: " + pager["remote_id"],
        ),
        (
            ("set-webhook-secret", "acme", pager["remote_id"], "--provider-secret", " "),
            "Provider secret must not be empty",
        ),
        (
            ("add-webhook", "nope", "--type", "PROVIDER_A", "--name", "n", "--provider-secret=s"),
            "Unknown organization: nope",
        ),
        (
            ("add-webhook", "acme", "--type", "PROVIDER_A", "--name", "n", "--provider-secret", ""),
            "Provider secret must not be empty",
        ),
        (
            ("set-webhook-secret", "acme", pager["remote_id"], "--provider-secret", "x" * 513),
            "Provider secret must be at most 512 characters",
        ),
    ]
    *refused, usage = cli_runs(
        env,
        *(["admin", *args] for args, _ in failures),
        # --provider-secret missing
        ["admin", "set-webhook-secret", "acme", pager["remote_id"]],
    )
    for (args, message), done in zip(failures, refused, strict=True):
        assert done.returncode == 1, (args, done.stderr)
        assert done.stdout == "" and message in done.stderr, (args, done.stderr)
    assert usage.returncode == 2 and usage.stdout == ""
    assert stored_secrets(db) == {pager["remote_id"]: new_secret, plain["remote_id"]: fh_secret}

    with serve(env, tmp_path / "serve.log", port):
        response = httpx.get(
            f"{base}/api/v1/webhook-subscriptions",
            headers={"X-Service-Org-Api-Key": key},
            timeout=10,
        )
    assert response.status_code == 200, response.text
    assert response.json() == {
        "webhook_subscriptions": [
            {"type": "PROVIDER_A", "remote_id": pager["remote_id"], "name": "pager"},
            {"type": "PROVIDER_C", "remote_id": plain["remote_id"], "name": "fh"},
        ]
    }
    for secret in (first_secret, new_secret, fh_secret):
        assert secret not in response.text
