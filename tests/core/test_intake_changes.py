"""GitHub and GitLab deliveries read into change records beyond the shared samples: form-encoded
bodies, merges, deletions, text the change rules would refuse, and the credentials."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from urllib.parse import urlencode

import pytest

from sleuth_core.errors import InvalidAlertPayload
from sleuth_core.intake import (
    parse_change_delivery,
    sign_github,
    verify_github,
    verify_gitlab,
    verify_native,
)

NOW = datetime(2030, 1, 1, tzinfo=UTC)
SHA = "0123456789abcdef0123456789abcdef01234567"


def push(**extra: object) -> dict[str, object]:
    return {
        "ref": "refs/heads/main",
        "repository": {"name": "shop", "full_name": "acme/shop"},
        "commits": [
            {
                "id": SHA,
                "message": "Fix cart\x00 totals\n\nLonger text",
                "timestamp": "2026-01-05T10:00:00+01:00",
                "url": "https://github.com/acme/shop/commit/" + SHA,
                "author": {"name": "Ada", "username": "ada"},
                "added": ["new.py"],
                "modified": ["cart.py", "x" * 1001],
                "removed": ["old.py"],
            },
            {"id": "not-a-sha", "message": "skipped"},
        ],
        **extra,
    }


def read(source: str, body: object, headers: dict[str, str]):
    raw = body if isinstance(body, str | bytes) else json.dumps(body)
    return parse_change_delivery(source, raw, headers, received_at=NOW)


def test_a_push_records_each_commit_with_its_files_and_text_the_rules_accept():
    got = read("GITHUB", push(), {"X-GitHub-Event": "push", "X-GitHub-Delivery": "g-1"})
    [record] = got.records
    assert got.delivery_id == "g-1"
    assert record["summary"] == "Fix cart totals\n\nLonger text"  # NUL dropped
    assert record["files"] == ["new.py", "cart.py", "old.py"]  # an over-long path is left out
    assert record["attributes"]["files_removed"] == ["old.py"]
    assert (record["author"], record["service"]) == ("Ada", "shop")
    assert record["attributes"]["repository"] == "acme/shop"


def test_githubs_form_encoded_content_type_is_read():
    body = urlencode({"payload": json.dumps(push())})
    got = read("GITHUB", body, {"X-GitHub-Event": "push"})
    assert [r["id"] for r in got.records] == [SHA]
    assert got.delivery_id.startswith("sha256:")  # no delivery header: the body's hash


def test_a_merged_pull_request_is_its_merge_commit_and_the_service_given_wins():
    body = {
        "action": "closed",
        "number": 7,
        "pull_request": {
            "number": 7,
            "title": "Faster cart",
            "merged": True,
            "merged_at": "2026-01-05T11:00:00Z",
            "merge_commit_sha": SHA.upper(),
            "merged_by": {"login": "bob"},
            "html_url": "https://github.com/acme/shop/pull/7",
            "base": {"ref": "main"},
            "head": {"ref": "fast"},
        },
        "repository": {"name": "shop"},
    }
    got = parse_change_delivery(
        "GITHUB", json.dumps(body), {"X-GitHub-Event": "pull_request"}, received_at=NOW,
        service="checkout-api",
    )  # fmt: skip
    [record] = got.records
    assert (record["id"], record["kind"], record["service"]) == (SHA, "commit", "checkout-api")
    assert record["summary"] == "Merge pull request #7: Faster cart"
    assert record["author"] == "bob" and record["timestamp"] == "2026-01-05T11:00:00+00:00"


def test_deletions_and_tags_record_nothing():
    deleted = read("GITHUB", push(deleted=True), {"X-GitHub-Event": "push"})
    tag = read("GITHUB", push(ref="refs/tags/v1"), {"X-GitHub-Event": "push"})
    gone = read("GITLAB", {"object_kind": "push", "ref": "refs/heads/x", "after": "0" * 40}, {})
    assert deleted.records == tag.records == gone.records == ()
    assert "not a branch" in tag.reason and "nothing changed" in gone.reason


def test_gitlab_delivery_ids_and_a_fast_forward_merge():
    body = {
        "object_kind": "merge_request",
        "object_attributes": {"action": "merge", "iid": 3, "last_commit": {"id": SHA}},
        "project": {"name": "shop", "path_with_namespace": "acme/shop"},
    }
    got = read("GITLAB", body, {"X-Gitlab-Event": "Merge Request Hook", "Idempotency-Key": "k1"})
    assert got.event == "Merge Request Hook" and got.delivery_id == "k1"
    assert [r["id"] for r in got.records] == [SHA]
    again = read("GITLAB", body, {"X-Gitlab-Event-UUID": "u1"})
    assert again.delivery_id == "u1" and again.event == "merge_request"


@pytest.mark.parametrize(("source", "body"), [("GITHUB", "{oops"), ("GITLAB", "[1]"), ("X", "{}")])
def test_unreadable_bodies_and_unknown_sources_raise(source, body):
    with pytest.raises(InvalidAlertPayload):
        read(source, body, {})


def test_credentials():
    body = b'{"zen": "Keep it logically awesome."}'
    header = sign_github(body, "s3cret")
    assert verify_github(body, header, "s3cret")
    assert not verify_github(body + b" ", header, "s3cret")
    assert not verify_github(body, header.replace("sha256=", "sha1="), "s3cret")
    assert not verify_github(body, None, "s3cret")
    assert verify_native("GITHUB", {"x-hub-signature-256": header}, body, "s3cret", now=0)
    assert verify_gitlab("tok", "tok") and not verify_gitlab("tok2", "tok")
    assert not verify_gitlab(None, "tok")
    assert verify_native("GITLAB", {"X-Gitlab-Token": "tok"}, body, "tok", now=0)
