"""Provider webhook secrets through the real ``sleuth`` CLI (subprocesses) and a real database file.

``sleuth admin add-webhook --provider-secret`` and ``sleuth admin set-webhook-secret`` store the
signing secret a provider issued; it is never printed, and ``GET /api/v1/webhook-subscriptions``
never lists it.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from e2e_harness import free_port, serve, sleuth_env

pytestmark = pytest.mark.e2e

SUBSCRIPTION_KEYS = {"type", "remote_id", "name", "secret", "ingest_url"}


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sleuth_shell", "admin", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def ok(env: dict[str, str], *args: str) -> dict:
    done = run(env, *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def stored_secrets(path: Path) -> dict[str, str | None]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT remote_id, provider_secret FROM webhook_subscriptions")
        return dict(rows.fetchall())


def test_provider_secret_is_stored_never_printed_and_never_listed(tmp_path: Path) -> None:
    db = tmp_path / "sleuth.db"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = sleuth_env(f"sqlite:///{db}", SLEUTH_PUBLIC_URL=base, SLEUTH_WORKERS_INLINE="false")
    ok(env, "create-org", "acme")
    ok(env, "create-org", "other")
    key = ok(env, "create-key", "acme")["key"]

    first_secret = "pd-issued-secret-0123456789abcdef"
    done = run(
        env,
        "add-webhook",
        "acme",
        "--type",
        "PROVIDER_A",
        "--name",
        "pager",
        "--provider-secret",
        first_secret,
    )
    assert done.returncode == 0, done.stderr
    assert first_secret not in done.stdout
    pager = json.loads(done.stdout)
    assert set(pager) == SUBSCRIPTION_KEYS
    assert pager["type"] == "PROVIDER_A" and pager["name"] == "pager"
    assert pager["ingest_url"] == f"{base}/api/v1/webhooks/PROVIDER_A/{pager['remote_id']}"

    plain = ok(env, "add-webhook", "acme", "--type", "PROVIDER_C", "--name", "fh")
    assert stored_secrets(db) == {pager["remote_id"]: first_secret, plain["remote_id"]: None}

    # Setting a secret on a subscription without one, then replacing one.
    fh_secret = "fh-secret-abc"
    set_secret = ("set-webhook-secret", "acme")
    done = run(env, *set_secret, plain["remote_id"], "--provider-secret", fh_secret)
    assert done.returncode == 0, done.stderr
    assert fh_secret not in done.stdout and done.stderr == ""
    assert json.loads(done.stdout) == plain  # the same subscription, printed as add-webhook does
    new_secret = "pd-rotated-secret"
    again = ok(env, *set_secret, pager["remote_id"], "--provider-secret", new_secret)
    assert again == pager
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
    for args, message in failures:
        done = run(env, *args)
        assert done.returncode == 1, (args, done.stderr)
        assert done.stdout == "" and message in done.stderr, (args, done.stderr)
    usage = run(env, "set-webhook-secret", "acme", pager["remote_id"])  # --provider-secret missing
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
