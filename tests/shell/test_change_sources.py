"""GITHUB and GITLAB subscriptions through ``POST /api/v1/webhooks/...`` in process: signed
deliveries become change records (``GET /api/v1/changes``), other events are acknowledged and
store nothing, redeliveries are idempotent, forged or unsigned ones are 401 and recorded nowhere.

GitHub and GitLab themselves cannot run here: the bodies are their real sample deliveries
(../shared/fixtures/change-payloads), signed and sent as they would be.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import func, select

from sleuth_core.intake import sign_github
from sleuth_shell import admin
from sleuth_shell.db.models import ChangeRow, WebhookDelivery

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = pytest.mark.shared_app


def _changes_dir() -> Path:
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "fixtures" / "change-payloads"
        if candidate.is_dir():
            return candidate
    raise AssertionError("no shared/fixtures/change-payloads found")


SAMPLES = _changes_dir()


def url(hook) -> str:
    return f"/api/v1/webhooks/{hook.type}/{hook.remote_id}"


def github(hook, name: str, event: str, delivery: str, secret: str | None = None):
    body = (SAMPLES / "github" / name).read_bytes()
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": sign_github(body, secret or hook.secret),
        "Content-Type": "application/json",
    }
    return body, headers


def count(factory, model, org) -> int:
    """The organization's rows of ``model``."""
    query = select(func.count()).select_from(model).where(model.org_id == org.id)
    return int(factory.run(lambda s: s.scalar(query)))


def changes(client, org, **params):
    response = client.get("/api/v1/changes", params=params, headers=org.headers)
    assert response.status_code == 200, response.text
    return response.json()["changes"]


def test_github_push_pull_request_and_deployment(client, factory, org):
    hook = factory.webhook(org, "GITHUB", "sample_app")
    body, headers = github(hook, "push_commits.json", "push", "d-1")
    response = client.post(url(hook), content=body, headers=headers)
    assert response.status_code == 202, response.text
    assert response.json() == {
        "event": "push",
        "change_ids": ["fd489864e7642b48eaad6e3f155c10e46810ec72"],
        "recorded": "push of 1 commit(s) to master",
    }
    [commit] = changes(client, org)
    assert commit["kind"] == "commit" and commit["service"] == "sample_app"
    assert commit["summary"] == "test a push event" and commit["author"] == "binkkatal"
    assert commit["files"] == [".razorops.yaml", "app/controllers/application_controller.rb"]
    assert commit["attributes"]["files_added"] == [".razorops.yaml"]
    assert commit["attributes"]["files_modified"] == ["app/controllers/application_controller.rb"]
    assert commit["attributes"]["files_removed"] == []
    assert commit["attributes"]["branch"] == "master"
    assert commit["url"].endswith("/commit/fd489864e7642b48eaad6e3f155c10e46810ec72")
    assert commit["timestamp"].startswith("2018-06-29T14:04:13")

    # the same delivery again: the same answer, nothing new written
    again = client.post(url(hook), content=body, headers=headers)
    assert again.status_code == 202 and again.json() == response.json()
    assert count(factory, WebhookDelivery, org) == 1 and count(factory, ChangeRow, org) == 1

    # a merged pull request whose merge commit is that commit (GitHub's closed sample, merged:
    # a derived body, as no genuine merged delivery is public): the push's files are kept
    pull = json.loads((SAMPLES / "github/pull_request_closed_unmerged.json").read_bytes())
    pull["pull_request"].update(
        merged=True,
        merged_at="2018-06-29T15:00:00Z",
        merge_commit_sha="fd489864e7642b48eaad6e3f155c10e46810ec72",
    )
    merged = json.dumps(pull).encode()
    response = client.post(
        url(hook),
        content=merged,
        headers={
            "X-GitHub-Event": "pull_request",
            "X-GitHub-Delivery": "d-2",
            "X-Hub-Signature-256": sign_github(merged, hook.secret),
        },
    )
    assert response.status_code == 202, response.text
    [commit] = changes(client, org)
    assert commit["summary"].startswith("Merge pull request #2: Update the README with new")
    assert commit["files"] == [".razorops.yaml", "app/controllers/application_controller.rb"]
    assert commit["attributes"]["pull_request"] == "2"

    body, headers = github(hook, "deployment_status_success.json", "deployment_status", "d-3")
    response = client.post(url(hook), content=body, headers=headers)
    assert response.json()["change_ids"] == ["github:Codertocat/Hello-World:deployment:145988746"]
    [deploy] = changes(client, org, kind="deploy")
    assert deploy["ships"] == ["f95f852bd8fca8fcc58a9a2d6c842781e32a215e"]
    assert deploy["attributes"]["environment"] == "production"
    assert deploy["service"] == "Hello-World"


@pytest.mark.parametrize(
    ("name", "event"),
    [
        ("pull_request_closed_unmerged.json", "pull_request"),
        ("deployment_status_error.json", "deployment_status"),
        ("deployment_created.json", "deployment"),
        ("push_tag_deleted.json", "push"),
        ("release_published.json", "release"),
        ("workflow_run_completed_success.json", "workflow_run"),
    ],
)
def test_events_that_are_no_change_are_acknowledged_and_store_nothing(
    client, factory, org, name, event
):
    hook = factory.webhook(org, "GITHUB", "repo")
    body, headers = github(hook, name, event, f"delivery-{name}")
    response = client.post(url(hook), content=body, headers=headers)
    assert response.status_code == 202, response.text
    assert response.json()["change_ids"] == [] and response.json()["event"] == event
    assert count(factory, ChangeRow, org) == 0


def test_a_ping_is_acknowledged(client, factory, org):
    hook = factory.webhook(org, "GITHUB", "repo")
    body = b'{"zen": "Design for failure.", "hook_id": 1}'
    headers = {
        "X-GitHub-Event": "ping",
        "X-GitHub-Delivery": "p-1",
        "X-Hub-Signature-256": sign_github(body, hook.secret),
    }
    response = client.post(url(hook), content=body, headers=headers)
    assert response.status_code == 202
    assert response.json()["change_ids"] == [] and count(factory, ChangeRow, org) == 0


def test_forged_unsigned_and_malformed_deliveries(client, factory, org):
    hook = factory.webhook(org, "GITHUB", "repo")
    body, headers = github(hook, "push_commits.json", "push", "d-1")
    forged = {**headers, "X-Hub-Signature-256": sign_github(body, "not the secret")}
    unsigned = {k: v for k, v in headers.items() if k != "X-Hub-Signature-256"}
    tampered = body.replace(b"test a push event", b"test a push evenT")
    for content, sent in ((body, forged), (body, unsigned), (tampered, headers)):
        response = client.post(url(hook), content=content, headers=sent)
        assert response.status_code == 401
        assert response.json() == {"detail": "Invalid webhook token"}
    # Sleuth's own alert credentials are not a GitHub signature
    assert (
        client.post(f"{url(hook)}?token={hook.secret}", content=body, headers=unsigned).status_code
        == 401
    )
    bearer = {**unsigned, "Authorization": f"Bearer {hook.secret}"}
    assert client.post(url(hook), content=body, headers=bearer).status_code == 401
    assert count(factory, WebhookDelivery, org) == 0 and count(factory, ChangeRow, org) == 0

    bad = b'{"ref": '
    response = client.post(
        url(hook),
        content=bad,
        headers={**unsigned, "X-Hub-Signature-256": sign_github(bad, hook.secret)},
    )
    assert response.status_code == 400 and set(response.json()) == {"detail"}
    assert count(factory, WebhookDelivery, org) == 0 and count(factory, ChangeRow, org) == 0


def test_gitlab_push_merge_and_deployment_on_the_subscription_service(client, factory, org):
    hook = factory.run(
        lambda s: admin.add_webhook(s, org.name, "GITLAB", "gitlab", service="checkout-api")
    )
    for name, event, uuid in [
        ("push_hook.json", "Push Hook", "u-1"),
        ("merge_request_merged.json", "Merge Request Hook", "u-2"),
        ("deployment_success.json", "Deployment Hook", "u-3"),
        ("deployment_failed.json", "Deployment Hook", "u-4"),
        ("pipeline_success.json", "Pipeline Hook", "u-5"),
    ]:
        body = (SAMPLES / "gitlab" / name).read_bytes()
        headers = {"X-Gitlab-Event": event, "X-Gitlab-Event-UUID": uuid}
        wrong = client.post(url(hook), content=body, headers={**headers, "X-Gitlab-Token": "x"})
        assert wrong.status_code == 401
        response = client.post(
            url(hook), content=body, headers={**headers, "X-Gitlab-Token": hook.secret}
        )
        assert response.status_code == 202, response.text
    stored = changes(client, org)
    assert {c["service"] for c in stored} == {"checkout-api"}
    assert sorted((c["kind"], c["id"]) for c in stored) == [
        ("commit", "5bcfb805534d13224e8fa7698a2819bf0d055f29"),
        ("commit", "66abd2da28809ffa128ed0447965cf11d7f863a7"),
        ("commit", "eb6ae1e591e0819dc5bf187c6bfe18ec065a80e9"),
        ("deploy", "gitlab:vedant8600317/test:deployment:988572802"),
    ]
    [deploy] = changes(client, org, kind="deploy")
    assert deploy["ships"] == ["58793660b22d6ceacbdc23b28a0562bca339702c"]
    assert deploy["attributes"]["environment"] == "production"
    assert count(factory, WebhookDelivery, org) == 5


def test_add_webhook_service_is_for_change_sources_only(factory, org):
    with pytest.raises(admin.AdminError, match="--service is for change sources"):
        factory.run(lambda s: admin.add_webhook(s, org.name, "ALERTMANAGER", "am", service="x"))


def test_forge_changes_are_the_next_investigations_suspects(client, factory, org, migrated_url):
    """A commit pushed and deployed through GitHub webhooks is what the root-cause path blames
    (the scenario of test_agent_rca, its change records coming from deliveries instead)."""
    import asyncio
    from datetime import timedelta

    from rca_memory import MemoryKnowledge, MemoryLogs, MemoryMetrics
    from test_agent_rca import AGENT, CATALOG, FIRED, ONSET, PAYLOAD, logs

    from sleuth_shell.agents.base import AgentContext
    from sleuth_shell.changes.store import SqlChangeStore
    from sleuth_shell.db import create_engine, create_session_factory

    sha = "c0ffee12c0ffee12c0ffee12c0ffee12c0ffee12"
    hook = factory.run(
        lambda s: admin.add_webhook(s, org.name, "GITHUB", "orders", service="orders")
    )
    push = {
        "ref": "refs/heads/main",
        "repository": {"name": "orders-repo", "full_name": "acme/orders-repo"},
        "commits": [
            {
                "id": sha,
                "message": "Pool: lower max_connections to 5",
                "timestamp": (ONSET - timedelta(minutes=40)).isoformat(),
                "url": f"https://github.com/acme/orders-repo/commit/{sha}",
                "author": {"name": "dana"},
                "added": [],
                "modified": ["orders/db.py"],
                "removed": [],
            }
        ],
    }
    deployed = {
        "action": "created",
        "deployment_status": {
            "state": "success",
            "environment": "production",
            "created_at": (ONSET - timedelta(minutes=30)).isoformat(),
        },
        "deployment": {"id": 9, "sha": sha, "ref": "main", "environment": "production"},
        "repository": {"name": "orders-repo", "full_name": "acme/orders-repo"},
    }
    for n, (event, body) in enumerate([("push", push), ("deployment_status", deployed)]):
        raw = json.dumps(body).encode()
        response = client.post(
            url(hook),
            content=raw,
            headers={
                "X-GitHub-Event": event,
                "X-GitHub-Delivery": f"s-{n}",
                "X-Hub-Signature-256": sign_github(raw, hook.secret),
            },
        )
        assert response.status_code == 202 and response.json()["change_ids"], response.text

    async def investigate():
        engine = create_engine(migrated_url)
        try:
            ctx = AgentContext(
                org_id=org.id,
                now=FIRED + timedelta(minutes=10),
                knowledge=MemoryKnowledge([("Service catalog", CATALOG)]),
                logs=MemoryLogs(logs()),
                public_url="http://sleuth.test",
                changes=SqlChangeStore(create_session_factory(engine)),
                metrics=MemoryMetrics([]),
            )
            return await AGENT.investigate(ctx, "Find the root cause.", PAYLOAD)
        finally:
            await engine.dispose()

    result = asyncio.run(investigate())
    assert sha in result.markdown
    assert result.analysis is not None and result.analysis["change_id"] == sha, result.markdown
    assert result.analysis["deploy_id"] == "github:acme/orders-repo:deployment:9"


_TEXT = st.text(max_size=30) | st.sampled_from(["", "\x00", "https://x.example/c", "a" * 1200])
_VALUE = st.none() | st.integers() | _TEXT | st.lists(_TEXT, max_size=3)


@given(
    commits=st.lists(
        st.fixed_dictionaries(
            {"id": st.sampled_from(["0" * 40, "A" * 40, "f" * 64, "nope"])},
            optional={
                k: _VALUE for k in ("message", "timestamp", "url", "added", "modified", "removed")
            }
            | {"author": st.dictionaries(st.sampled_from(["name", "email"]), _VALUE)},
        ),
        max_size=4,
    ),
    ref=st.sampled_from(["refs/heads/main", "refs/tags/v1", "", None]),
    name=_VALUE,
)
def test_every_record_read_from_a_push_passes_the_change_rules(commits, ref, name):
    """Whatever a (signed) push carries, its records are ones POST /api/v1/changes accepts: an
    authenticated delivery is never half-refused by the change rules."""
    from datetime import UTC, datetime

    from sleuth_core.intake import parse_change_delivery
    from sleuth_shell.changes.ingest import validate_records

    body = json.dumps({"ref": ref, "repository": {"name": name}, "commits": commits})
    for source, headers in (("GITHUB", {"X-GitHub-Event": "push"}), ("GITLAB", {})):
        payload = (
            body if source == "GITHUB" else body.replace('"ref"', '"object_kind": "push", "ref"', 1)
        )
        delivery = parse_change_delivery(
            source, payload, headers, received_at=datetime(2030, 1, 1, tzinfo=UTC)
        )
        assert len(validate_records({"records": list(delivery.records)})) == len(
            {r["id"] for r in delivery.records}
        )
