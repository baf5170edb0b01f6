"""The incident file format of `evals/rca/` (README.md there), checked: `problems(incident)`."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SPLITS = {
    "tune": HERE / "tune",
    "held-out": HERE / "heldout",
    "tune-ext": HERE / "tune_ext",
    "held-out-ext": HERE / "heldout_ext",
}
# The outside-vocabulary splits (`ext_build.py`): every incident states a failure category.
EXT_SPLITS = ("tune-ext", "held-out-ext")
VERDICTS = ("change", "external", "healthy", "none")
CATEGORIES = (
    "code_defect",
    "configuration_error",
    "resource_exhaustion",
    "dependency_failure",
    "infrastructure",
    "data_quality",
    "healthy",
    "unknown",
)
KINDS = ("deploy", "commit", "flag", "config")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
MAX_BYTES = 400 * 1024
TOP = ("id", "title", "story", "now", "alert", "knowledge", "logs", "metrics", "changes", "truth")


def load(split: str) -> list[dict[str, Any]]:
    """The incidents of ``split`` (``tune`` or ``held-out``), by file name."""
    return [
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(SPLITS[split].glob("*.json"))
    ]


def parse(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo is not None else None


def problems(inc: dict[str, Any]) -> list[str]:
    """What is wrong with one incident (empty: it follows the format)."""
    out: list[str] = []
    missing = [k for k in TOP if k not in inc]
    if missing:
        return [f"missing keys {missing}"]
    now = parse(inc["now"])
    if now is None:
        return ["now: not an ISO time with a zone"]
    alert = inc["alert"]
    fired = parse(alert.get("fired_at"))
    if fired is None or fired > now:
        out.append("alert.fired_at missing or after now")
    for key in ("title", "service", "severity"):
        if not isinstance(alert.get(key), str) or not alert[key]:
            out.append(f"alert.{key} missing")
    if not isinstance(alert.get("payload"), dict) or not alert["payload"]:
        out.append("alert.payload: a non-empty JSON object is required")
    for doc in inc["knowledge"]:
        if not doc.get("title") or not doc.get("content"):
            out.append("knowledge: every document needs a title and content")
    records = inc["logs"].get("records", [])
    if len(records) < 100:
        out.append("logs: fewer than 100 records")
    for i, r in enumerate(records):
        t = parse(r.get("timestamp"))
        if t is None or t > now:
            out.append(f"logs[{i}].timestamp bad or after now")
        if (
            r.get("level") not in LEVELS
            or not r.get("service")
            or not isinstance(r.get("message"), str)
        ):
            out.append(f"logs[{i}]: level, service or message invalid")
        if set(r) - {"timestamp", "service", "level", "message", "attributes"}:
            out.append(f"logs[{i}]: unknown field")
    if not any(r["level"] in ("ERROR", "CRITICAL") for r in records):
        out.append("logs: no errors at all")
    for i, s in enumerate(inc["metrics"].get("series", [])):
        if not s.get("name") or not s.get("service") or not isinstance(s.get("labels"), dict):
            out.append(f"metrics[{i}]: name, service and labels required")
        for p in s.get("points", []):
            t = parse(p[0]) if isinstance(p, list) and len(p) == 2 else None
            if t is None or t > now or not isinstance(p[1], int | float):
                out.append(f"metrics[{i}] ({s.get('name')}): bad point {p}")
                break
    changes = inc["changes"].get("records", [])
    if not 8 <= len(changes) <= 50:
        out.append(f"changes: {len(changes)} records (8-50 expected)")
    by_id: dict[str, dict[str, Any]] = {}
    for c in changes:
        if c.get("id") in by_id:
            out.append(f"changes: duplicate id {c.get('id')}")
        by_id[c.get("id", "")] = c
        t = parse(c.get("timestamp"))
        if t is None or t > now:
            out.append(f"change {c.get('id')}: timestamp bad or after now")
        if c.get("kind") not in KINDS or not c.get("service") or not c.get("summary"):
            out.append(f"change {c.get('id')}: kind, service or summary invalid")
        if c.get("kind") in ("commit", "flag", "config") and not c.get("diff", "").startswith(
            "diff --git"
        ):
            out.append(f"change {c.get('id')}: a {c.get('kind')} needs a diff")
    for c in changes:
        for shipped in c.get("ships", []):
            if shipped not in by_id or by_id[shipped]["kind"] != "commit":
                out.append(f"change {c['id']} ships unknown commit {shipped}")
            elif parse(by_id[shipped]["timestamp"]) > parse(c["timestamp"]):  # type: ignore[operator]
                out.append(f"change {c['id']} ships {shipped}, which is later")
        if c.get("ships") and c["kind"] != "deploy":
            out.append(f"change {c['id']}: only deploys ship commits")
    out.extend(_truth_problems(inc, by_id, fired))
    return out


def _truth_problems(
    inc: dict[str, Any], by_id: dict[str, dict[str, Any]], fired: datetime | None
) -> list[str]:
    out: list[str] = []
    truth = inc["truth"]
    onset = parse(truth.get("onset"))
    if onset is None or (fired is not None and onset > fired):
        out.append("truth.onset missing or after the alert")
        return out
    if not truth.get("service"):
        out.append("truth.service missing")
    verdict = truth.get("verdict")
    named = [truth.get("change_id"), *truth.get("accept", [])]
    if verdict == "change":
        if truth.get("change_id") not in by_id:
            out.append(f"truth.change_id {truth.get('change_id')} is not a change")
        if truth.get("external_cause") is not None:
            out.append("truth.external_cause must be null for a change")
        for cid in named:
            if cid in by_id and parse(by_id[cid]["timestamp"]) > onset:  # type: ignore[operator]
                out.append(f"{cid} (guilty or accepted) lands after the onset")
        for cid in truth.get("accept", []):
            if cid not in by_id:
                out.append(f"truth.accept {cid} is not a change")
    elif verdict == "external":
        if truth.get("change_id") is not None or truth.get("accept"):
            out.append("an external cause names no change")
        if not truth.get("external_cause"):
            out.append("truth.external_cause missing")
    elif verdict in ("healthy", "none"):
        if truth.get("change_id") is not None or truth.get("accept"):
            out.append(f"a {verdict} verdict names no change")
        if truth.get("external_cause") is not None:
            out.append(f"truth.external_cause must be null for {verdict}")
    else:
        out.append(f"truth.verdict must be one of {', '.join(VERDICTS)}")
    out.extend(_category_problems(truth))
    decoys = truth.get("decoys", [])
    if not decoys:
        out.append("truth.decoys: none planted")
    for cid in decoys:
        if cid not in by_id:
            out.append(f"decoy {cid} is not a change")
        elif cid in named:
            out.append(f"decoy {cid} is also the culprit")
    near = [
        cid
        for cid in decoys
        if cid in by_id
        and any(
            abs(parse(by_id[cid]["timestamp"]) - when) <= timedelta(minutes=60)  # type: ignore[operator]
            for when in (onset, fired or onset)
        )
    ]
    if not near:
        out.append("no decoy within an hour of the onset or the alert")
    return out


def _category_problems(truth: dict[str, Any]) -> list[str]:
    """``truth.category`` is optional (the first two splits have none) and agrees with the
    verdict: ``healthy`` exactly for a healthy verdict, ``unknown`` for ``none``, and a change or
    an outside cause is neither."""
    if "category" not in truth:
        return []
    category, verdict = truth["category"], truth.get("verdict")
    if category not in CATEGORIES:
        return [f"truth.category {category!r} is not one of {', '.join(CATEGORIES)}"]
    if (category == "healthy") != (verdict == "healthy"):
        return ["truth.category healthy goes with the verdict healthy, and only with it"]
    if verdict == "none" and category != "unknown":
        return ["truth.category must be unknown for the verdict none"]
    if verdict in ("change", "external") and category == "unknown":
        return [f"truth.category unknown does not fit a {verdict} verdict"]
    return []
