"""Every file of the shared sample corpus is handled: a walk over ``alert-payloads/*`` and
``change-payloads/*`` that fails on a file no adapter reads, or on a change sample that is not in
the table below (a new sample must be given its expected reading here).

The change-payload README gives each file's event header; the expectations are what a release
engineer expects Sleuth to record from it (docs/changes-and-metrics.md).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sleuth_core.intake import (
    ChatChallenge,
    ChatEvent,
    parse_alerts,
    parse_change_delivery,
    parse_chat_event,
)

ROOT = Path(__file__).resolve().parents[2]
RECEIVED = datetime(2030, 1, 1, tzinfo=UTC)


def _shared(name: str) -> Path:
    for parent in ROOT.parents:
        candidate = parent / "shared" / "fixtures" / name
        if candidate.is_dir():
            return candidate
    raise AssertionError(f"no shared/fixtures/{name} beside {ROOT}")


ALERTS = _shared("alert-payloads")
CHANGES = _shared("change-payloads")

#: alert-payloads folder -> subscription type (``slack`` is the chat route's)
ALERT_FOLDERS = {
    "pagerduty": "PROVIDER_A",
    "opsgenie": "PROVIDER_B",
    "firehydrant": "PROVIDER_C",
    "rootly": "PROVIDER_D",
    "alertmanager": "ALERTMANAGER",
    "grafana": "GRAFANA",
    "slack": "CHAT",
}

#: change-payloads file -> (event header, [(kind, id) of each record]); [] = acknowledged only
CHANGE_SAMPLES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "github/push_commits.json": (
        "push",
        [("commit", "fd489864e7642b48eaad6e3f155c10e46810ec72")],
    ),
    "github/push_branch_created.json": (
        "push",
        [("commit", "6113728f27ae82c7b1a177c8d03f9e96e0adf246")],
    ),
    "github/push_tag_created.json": ("push", []),
    "github/push_tag_deleted.json": ("push", []),
    "github/pull_request_closed_unmerged.json": ("pull_request", []),
    "github/deployment_created.json": ("deployment", []),
    "github/deployment_status_success.json": (
        "deployment_status",
        [("deploy", "github:Codertocat/Hello-World:deployment:145988746")],
    ),
    "github/deployment_status_error.json": ("deployment_status", []),
    "github/release_published.json": ("release", []),
    "github/workflow_run_completed_success.json": ("workflow_run", []),
    "github/check_suite_completed_success.json": ("check_suite", []),
    "gitlab/push_hook.json": (
        "Push Hook",
        [
            ("commit", "66abd2da28809ffa128ed0447965cf11d7f863a7"),
            ("commit", "eb6ae1e591e0819dc5bf187c6bfe18ec065a80e9"),
        ],
    ),
    "gitlab/merge_request_merged.json": (
        "Merge Request Hook",
        [("commit", "5bcfb805534d13224e8fa7698a2819bf0d055f29")],
    ),
    "gitlab/deployment_success.json": (
        "Deployment Hook",
        [("deploy", "gitlab:vedant8600317/test:deployment:988572802")],
    ),
    "gitlab/deployment_failed.json": ("Deployment Hook", []),
    "gitlab/pipeline_success.json": ("Pipeline Hook", []),
}


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("name", [n for n in _files(ALERTS) if "/" in n])
def test_every_alert_sample_is_read(name: str) -> None:
    folder = name.split("/")[0]
    assert folder in ALERT_FOLDERS, f"{name}: no subscription type reads the {folder}/ samples"
    body = (ALERTS / name).read_bytes()
    if ALERT_FOLDERS[folder] == "CHAT":
        assert isinstance(parse_chat_event(body, received_at=RECEIVED), ChatChallenge | ChatEvent)
        return
    events = parse_alerts(ALERT_FOLDERS[folder], body, received_at=RECEIVED)
    assert events, f"{name}: read as no alert"
    # read by its own adapter, never by the generic fallback
    assert {e.source for e in events} == {ALERT_FOLDERS[folder]}
    assert all(e.title and e.dedup_key and e.match_text for e in events)


def test_the_change_table_names_every_change_sample() -> None:
    on_disk = {n for n in _files(CHANGES) if n.endswith(".json")}
    assert on_disk == set(CHANGE_SAMPLES), "unhandled (or vanished) change samples"
    assert {n for n in _files(CHANGES) if not n.endswith(".json")} == {"README.md"}


@pytest.mark.parametrize(("name", "expected"), sorted(CHANGE_SAMPLES.items()))
def test_every_change_sample_is_read(
    name: str, expected: tuple[str, list[tuple[str, str]]]
) -> None:
    event, records = expected
    source = "GITHUB" if name.startswith("github/") else "GITLAB"
    header = "X-GitHub-Event" if source == "GITHUB" else "X-Gitlab-Event"
    delivery = parse_change_delivery(
        source, (CHANGES / name).read_bytes(), {header: event}, received_at=RECEIVED
    )
    assert delivery.event == event
    assert [(r["kind"], r["id"]) for r in delivery.records] == records
    assert delivery.reason
    for record in delivery.records:
        assert record["service"] and record["summary"] and record["timestamp"]
        if record["kind"] == "deploy":
            assert [len(sha) for sha in record["ships"]] == [40]
            assert record["attributes"]["environment"] == "production"
