"""GitHub and GitLab webhook deliveries -> change records (commits and deploys).

:func:`parse_change_delivery` reads one delivery (its event header and raw body) into the change
records it announces, in the shape ``POST /api/v1/changes`` takes (the service validates and
stores them through that one path):

- a push: one ``commit`` per commit (``id`` the full SHA, message, author, time, URL, the files
  added, modified and removed); a push that deletes a branch or tag, or pushes a tag, records
  nothing (a tag names a commit its branch push already recorded);
- a merged pull request (GitHub ``pull_request`` ``closed`` with ``merged: true``) or merge request
  (GitLab ``action: merge``): its merge commit;
- a successful deployment (GitHub ``deployment_status`` with ``state: success``, GitLab
  ``Deployment Hook`` with ``status: success``): a ``deploy`` that ``ships`` the commit's full
  SHA, with the environment in ``attributes``.

Everything else (pings, failed deployments, unmerged closes, CI runs, releases) is a
:class:`ChangeDelivery` with no records: acknowledged, stored as nothing. See
docs/changes-and-metrics.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from sleuth_core.errors import InvalidAlertPayload
from sleuth_core.intake._values import (
    body_digest,
    first_text,
    get,
    load_json,
    obj,
    parse_time,
    text,
)

__all__ = ["CHANGE_SOURCES", "ChangeDelivery", "ChangeSource", "parse_change_delivery"]

ChangeSource = Literal["GITHUB", "GITLAB"]
CHANGE_SOURCES: tuple[ChangeSource, ...] = ("GITHUB", "GITLAB")

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_MAX_SUMMARY = 10_000
_MAX_FILES = 1000
_MAX_PATH = 1000


@dataclass(frozen=True, slots=True)
class ChangeDelivery:
    """One change-source delivery, read.

    - ``event``: the provider's event name (``push``, ``pull_request``, ``Push Hook``, ...).
    - ``delivery_id``: GitHub's ``X-GitHub-Delivery``, GitLab's ``Idempotency-Key`` or
      ``X-Gitlab-Event-UUID``, else ``sha256:<hex>`` of the body; equal for redeliveries.
    - ``records``: change records in the ``POST /api/v1/changes`` shape (empty when the event is
      not a change); ``reason`` says in words what the delivery was read as.
    """

    source: ChangeSource
    event: str
    delivery_id: str
    records: tuple[dict[str, Any], ...]
    reason: str


def _header(headers: Mapping[str, str], *names: str) -> str:
    lowered = {key.lower(): value for key, value in headers.items()}
    return next((lowered[n].strip() for n in names if lowered.get(n, "").strip()), "")


def _load(body: bytes | str) -> dict[str, Any]:
    """The JSON object of a delivery; GitHub's ``application/x-www-form-urlencoded`` content type
    sends it as the ``payload`` form field."""
    raw = body.decode("utf-8", "replace") if isinstance(body, bytes | bytearray) else body
    if raw.lstrip().startswith("payload="):
        fields = parse_qs(raw.strip(), max_num_fields=10)
        if fields.get("payload"):
            body = fields["payload"][0]
    value, _raw = load_json(body)
    if not isinstance(value, dict):
        raise InvalidAlertPayload("Change webhook payload must be a JSON object")
    return value


def _iso(value: object) -> str | None:
    """A provider time as ISO 8601 UTC (GitLab's ``2025-05-02 11:55:16 +0000`` included), when
    it is one a change record takes (1970 to 9999); else ``None`` (the receipt time is used)."""
    found = parse_time(value)
    if found is None and isinstance(value, str):
        cleaned = re.sub(r"\s+([+-]\d{2}):?(\d{2})$", r"\1:\2", value.strip())
        found = parse_time(cleaned)
    if found is None or found.year < 1970:
        return None
    return found.isoformat()


def _clean(value: str) -> str:
    """Text a change record accepts: no NUL characters (the change rules refuse them)."""
    return value.replace("\x00", "")


def _files(commit: Mapping[str, Any]) -> tuple[list[str], dict[str, list[str]]]:
    groups: dict[str, list[str]] = {}
    every: list[str] = []
    for change in ("added", "modified", "removed"):
        found = commit.get(change)
        paths = [
            _clean(p).strip()
            for p in (found if isinstance(found, list) else [])
            if isinstance(p, str) and _clean(p).strip() and len(p.strip()) <= _MAX_PATH
        ]
        groups[f"files_{change}"] = paths
        every.extend(p for p in paths if p not in every)
    return every[:_MAX_FILES], groups


def _commit_record(
    commit: Mapping[str, Any],
    service: str,
    received_at: datetime,
    extra: Mapping[str, Any],
) -> dict[str, Any] | None:
    sha = text(commit.get("id")).lower()
    if not _SHA.match(sha):
        return None
    files, groups = _files(commit)
    author = obj(commit.get("author"))
    message = commit.get("message")
    summary = _clean(message).strip() if isinstance(message, str) else ""
    return {
        "timestamp": _iso(commit.get("timestamp")) or received_at.isoformat(),
        "service": service,
        "kind": "commit",
        "id": sha,
        "summary": (summary or f"Commit {sha[:12]}")[:_MAX_SUMMARY],
        "author": _author(author.get("name"), author.get("username"), author.get("email")),
        "url": _url(commit.get("url")),
        "files": files,
        "attributes": {**extra, **groups},
    }


def _author(*names: object) -> str | None:
    return _clean(first_text(*names))[:200] or None


def _url(value: object) -> str | None:
    """An absolute http(s) URL the change rules accept, else ``None``."""
    found = text(value)
    try:
        parts = urlsplit(found)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc or len(found) > 2000:
        return None
    return None if any(ch in found for ch in "\x00\r\n") else found


def _service(given: str | None, *names: object) -> str:
    return _clean(given or first_text(*names) or "unknown")[:200] or "unknown"


def parse_change_delivery(
    source: str,
    body: bytes | str,
    headers: Mapping[str, str],
    *,
    received_at: datetime,
    service: str | None = None,
) -> ChangeDelivery:
    """Read a ``GITHUB`` or ``GITLAB`` delivery (see the module doc).

    ``headers`` (any case) give the event name (``X-GitHub-Event`` / ``X-Gitlab-Event``; GitLab's
    body repeats it as ``object_kind``) and the delivery id. ``service`` is the subscription's
    service; without one, each record's service is the repository's short name. Raises
    :class:`~sleuth_core.errors.InvalidAlertPayload` for a body that is not a JSON object.

    >>> from datetime import UTC, datetime
    >>> push = ('{"ref": "refs/heads/main", "repository": {"name": "shop"}, "commits": [{"id":'
    ...         ' "0123456789abcdef0123456789abcdef01234567", "message": "Fix cart",'
    ...         ' "timestamp": "2026-01-05T10:00:00+01:00", "author": {"name": "Ada"},'
    ...         ' "added": [], "modified": ["cart.py"], "removed": []}]}')
    >>> got = parse_change_delivery("GITHUB", push, {"X-GitHub-Event": "push"},
    ...                             received_at=datetime(2026, 1, 5, tzinfo=UTC))
    >>> [(r["kind"], r["service"], r["summary"], r["files"], r["timestamp"]) for r in got.records]
    [('commit', 'shop', 'Fix cart', ['cart.py'], '2026-01-05T09:00:00+00:00')]
    """
    if source not in CHANGE_SOURCES:
        raise InvalidAlertPayload(f"Unknown webhook type: {source}")
    payload = _load(body)
    if source == "GITHUB":
        event = _header(headers, "x-github-event")
        delivery_id = _header(headers, "x-github-delivery") or body_digest(body)
        records, reason = _github(event, payload, received_at, service)
        return ChangeDelivery("GITHUB", event, delivery_id[:255], tuple(records), reason)
    event = _header(headers, "x-gitlab-event") or text(payload.get("object_kind"))
    delivery_id = _header(headers, "idempotency-key", "x-gitlab-event-uuid") or body_digest(body)
    records, reason = _gitlab(payload, received_at, service)
    return ChangeDelivery("GITLAB", event, delivery_id[:255], tuple(records), reason)


def _github(
    event: str, payload: Mapping[str, Any], now: datetime, given: str | None
) -> tuple[list[dict[str, Any]], str]:
    repository = obj(payload.get("repository"))
    service = _service(given, repository.get("name"))
    common = {"source": "github", "repository": first_text(repository.get("full_name"))}
    if event == "push":
        ref = text(payload.get("ref"))
        if payload.get("deleted") is True:
            return [], f"push deleting {ref or 'a ref'}: nothing changed"
        if not ref.startswith("refs/heads/"):
            return [], f"push of {ref or 'an unknown ref'}: not a branch"
        branch = ref.removeprefix("refs/heads/")
        extra = {**common, "branch": branch, "forced": payload.get("forced") is True}
        records = [
            record
            for commit in payload.get("commits") or []
            if isinstance(commit, dict)
            and (record := _commit_record(commit, service, now, extra)) is not None
        ]
        return records, f"push of {len(records)} commit(s) to {branch}"
    if event == "pull_request":
        pull = obj(payload.get("pull_request"))
        if text(payload.get("action")) != "closed" or pull.get("merged") is not True:
            return [], f"pull request {text(payload.get('action')) or 'event'}: not a merge"
        sha = text(pull.get("merge_commit_sha")).lower()
        if not _SHA.match(sha):
            return [], "merged pull request without a merge commit SHA"
        number = text(pull.get("number")) or text(payload.get("number"))
        title = _clean(text(pull.get("title")))
        summary = f"Merge pull request #{number}: {title}" if title else f"Merge #{number}"
        details = _clean(str(pull.get("body") or "")).strip()
        record = {
            "timestamp": _iso(pull.get("merged_at")) or now.isoformat(),
            "service": service,
            "kind": "commit",
            "id": sha,
            "summary": (f"{summary}\n\n{details}" if details else summary)[:_MAX_SUMMARY],
            "author": _author(get(pull, "merged_by", "login"), get(pull, "user", "login")),
            "url": _url(pull.get("html_url")),
            "files": [],
            "attributes": {
                **common,
                "pull_request": number,
                "base": text(get(pull, "base", "ref")),
                "head": text(get(pull, "head", "ref")),
            },
        }
        return [record], f"pull request #{number} merged"
    if event == "deployment_status":
        status = obj(payload.get("deployment_status"))
        deployment = obj(payload.get("deployment"))
        state = text(status.get("state"))
        if state != "success":
            return [], f"deployment status {state or 'unknown'}: not a successful deployment"
        sha = text(deployment.get("sha")).lower()
        if not _SHA.match(sha):
            return [], "successful deployment without a commit SHA"
        environment = first_text(status.get("environment"), deployment.get("environment"))
        ref = text(deployment.get("ref"))
        deployment_id = text(deployment.get("id")) or text(status.get("id"))
        record = {
            "timestamp": _iso(status.get("created_at")) or now.isoformat(),
            "service": service,
            "kind": "deploy",
            "id": f"github:{common['repository'] or service}:deployment:{deployment_id}"[:255],
            "summary": _clean(
                f"Deployed {ref or sha[:12]} ({sha[:12]}) to {environment or 'unknown'}"
            ),
            "author": _author(get(status, "creator", "login"), get(deployment, "creator", "login")),
            "url": _url(status.get("target_url"))
            or _url(status.get("log_url"))
            or _url(status.get("environment_url")),
            "ships": [sha],
            "attributes": {
                **common,
                "environment": environment,
                "ref": ref,
                "deployment_id": deployment_id,
                "description": text(status.get("description")),
            },
        }
        return [record], f"deployment of {sha[:12]} to {environment} succeeded"
    return [], f"{event or 'an unnamed event'}: not a change Sleuth records"


def _gitlab(
    payload: Mapping[str, Any], now: datetime, given: str | None
) -> tuple[list[dict[str, Any]], str]:
    kind = text(payload.get("object_kind"))
    project = obj(payload.get("project"))
    service = _service(given, project.get("name"), get(payload, "repository", "name"))
    common = {"source": "gitlab", "repository": text(project.get("path_with_namespace"))}
    if kind == "push":
        ref = text(payload.get("ref"))
        after = text(payload.get("after"))
        if after and set(after) == {"0"}:
            return [], f"push deleting {ref or 'a branch'}: nothing changed"
        if not ref.startswith("refs/heads/"):
            return [], f"push of {ref or 'an unknown ref'}: not a branch"
        branch = ref.removeprefix("refs/heads/")
        extra = {**common, "branch": branch}
        records = [
            record
            for commit in payload.get("commits") or []
            if isinstance(commit, dict)
            and (record := _commit_record(commit, service, now, extra)) is not None
        ]
        return records, f"push of {len(records)} commit(s) to {branch}"
    if kind == "merge_request":
        attributes = obj(payload.get("object_attributes"))
        action, state = text(attributes.get("action")), text(attributes.get("state"))
        if action != "merge" and not (state == "merged" and not action):
            return [], f"merge request {action or state or 'event'}: not a merge"
        sha = first_text(
            attributes.get("merge_commit_sha"), get(attributes, "last_commit", "id")
        ).lower()
        if not _SHA.match(sha):
            return [], "merged merge request without a commit SHA"
        number = text(attributes.get("iid"))
        title = _clean(text(attributes.get("title")))
        details = _clean(str(attributes.get("description") or "")).strip()
        summary = f"Merge request !{number}: {title}" if title else f"Merge request !{number}"
        record = {
            "timestamp": _iso(attributes.get("merged_at"))
            or _iso(attributes.get("updated_at"))
            or now.isoformat(),
            "service": service,
            "kind": "commit",
            "id": sha,
            "summary": (f"{summary}\n\n{details}" if details else summary)[:_MAX_SUMMARY],
            "author": _author(get(payload, "user", "username"), get(payload, "user", "name")),
            "url": _url(attributes.get("url")),
            "files": [],
            "attributes": {
                **common,
                "merge_request": number,
                "target_branch": text(attributes.get("target_branch")),
                "source_branch": text(attributes.get("source_branch")),
            },
        }
        return [record], f"merge request !{number} merged"
    if kind == "deployment":
        status = text(payload.get("status"))
        if status != "success":
            return [], f"deployment {status or 'event'}: not a successful deployment"
        commit_url = text(payload.get("commit_url"))
        sha = commit_url.rstrip("/").rsplit("/", 1)[-1].lower() if commit_url else ""
        if not _SHA.match(sha):
            return [], "successful deployment without a full commit SHA"
        environment = text(payload.get("environment"))
        deployment_id = text(payload.get("deployment_id"))
        ref = text(payload.get("ref"))
        record = {
            "timestamp": _iso(payload.get("status_changed_at")) or now.isoformat(),
            "service": service,
            "kind": "deploy",
            "id": f"gitlab:{common['repository'] or service}:deployment:{deployment_id}"[:255],
            "summary": _clean(
                f"Deployed {ref or sha[:12]} ({sha[:12]}) to {environment or 'unknown'}: "
                f"{text(payload.get('commit_title'))}"
            ).rstrip(": "),
            "author": _author(get(payload, "user", "username"), get(payload, "user", "name")),
            "url": _url(payload.get("deployable_url")) or _url(commit_url),
            "ships": [sha],
            "attributes": {
                **common,
                "environment": environment,
                "environment_tier": text(payload.get("environment_tier")),
                "ref": ref,
                "deployment_id": deployment_id,
            },
        }
        return [record], f"deployment of {sha[:12]} to {environment} succeeded"
    return [], f"{kind or 'an unnamed event'}: not a change Sleuth records"
