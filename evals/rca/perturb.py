"""Perturbations of the tune incidents that must not change the answer (`rca_run --perturb`).

Each family rewrites an incident deterministically in one way a different organization would
have written the same failure: other names for its services, hosts, commits, authors and code
identifiers (`rename`); other metric names and units (`metrics-seconds`, `metrics-otel`,
`metrics-short`); other log formats (`logs-json`, `logs-logfmt`, `logs-otel-keys`); other words
for commit summaries and alert titles (`wording`); other severity and level words (`severity`);
another day (`time`); releases that do not list what they ship (`ships`); and another order of
the records (`order`); a service catalog written as a table and status notices titled by their
headline alone (`docs`); the alert's service under OpenTelemetry's key (`alert-labels`); metrics
at half their resolution (`resolution`); a third of the log records sampled away (`sampled`);
commit messages that are a ticket number alone (`summaries`); errors logged as warnings
(`warn-level`).
The truth is rewritten with the data (renamed ids stay the truth), so a
family's score falling below the untouched split's shows where the engine keys on surface words
rather than on what the data shows. Only the tune splits are ever perturbed (the held-out
splits are never opened).
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

__all__ = ["FAMILIES", "perturb"]

_WORDS = [
    "amber",
    "basalt",
    "cobalt",
    "dune",
    "ember",
    "fjord",
    "garnet",
    "heron",
    "indigo",
    "jasper",
    "kiln",
    "lumen",
    "marlin",
    "nectar",
    "onyx",
    "pylon",
    "quartz",
    "raven",
    "sable",
    "tundra",
    "umber",
    "vesper",
    "willow",
    "xenon",
    "yarrow",
    "zephyr",
    "alder",
    "birch",
    "cedar",
    "delta",
    "egret",
    "falcon",
    "gull",
    "hazel",
    "iris",
    "juniper",
    "kestrel",
    "larch",
    "maple",
    "nimbus",
    "osprey",
    "pine",
    "quill",
    "rowan",
    "sorrel",
    "thistle",
    "upland",
    "vale",
    "wren",
    "yew",
    "zinnia",
    "aspen",
    "bramble",
    "cirrus",
    "drift",
]
#: Generic role words of service names, kept (``orders-api`` -> ``cobalt-api``).
_ROLES = frozenset(
    [
        "api",
        "svc",
        "service",
        "worker",
        "gw",
        "gateway",
        "web",
        "db",
        "app",
        "bff",
        "ctl",
        "proxy",
        "engine",
        "etl",
        "ingest",
        "sync",
        "portal",
        "bridge",
        "prod",
    ]
)
_TLDS = ("com", "io", "net", "org", "cloud", "dev", "co", "example", "app", "ai", "us", "eu")
_HOST = re.compile(r"\b((?:[a-z0-9-]+\.)+)(" + "|".join(_TLDS) + r")\b")
_CODE_HOSTS = frozenset({"javax", "java", "sun", "github", "gitlab", "golang", "google", "gopkg"})
_HOST_KEEP = frozenset({"api", "www", "status", "git", "ci", "cdn", "auth", "login", "app"})


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _word(text: str, salt: str = "") -> str:
    return _WORDS[_digest(salt + text) % len(_WORDS)]


def _strings(obj: Any, fn: Callable[[str], str]) -> Any:
    """``obj`` with ``fn`` applied to every string value (keys untouched)."""
    if isinstance(obj, str):
        return fn(obj)
    if isinstance(obj, list):
        return [_strings(v, fn) for v in obj]
    if isinstance(obj, dict):
        return {k: _strings(v, fn) for k, v in obj.items()}
    return obj


def _replacer(table: dict[str, str]) -> Callable[[str], str]:
    """Replace every key of ``table`` found as a whole token (not inside a longer word)."""
    if not table:
        return lambda s: s
    keys = sorted(table, key=len, reverse=True)
    pattern = re.compile(
        r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, keys)) + r")(?![A-Za-z0-9])"
    )
    return lambda s: pattern.sub(lambda m: table[m.group(1)], s)


def _services(inc: dict[str, Any]) -> set[str]:
    names = {r["service"] for r in inc["logs"]["records"]}
    names |= {s["service"] for s in inc["metrics"]["series"]}
    names |= {c["service"] for c in inc["changes"]["records"]}
    names |= {inc["alert"]["service"], inc["truth"]["service"]}
    return {n for n in names if n}


# --- rename ------------------------------------------------------------------------------------

_DEF = re.compile(
    r"(?:\bdef|\bfunc(?:\s*\([^)]*\))?|\bfunction|(?:public|private|protected|static)(?:\s+\w+)*)"
    r"\s+([A-Za-z_]\w{5,})\s*\("
)


def _rename(inc: dict[str, Any]) -> dict[str, Any]:
    table: dict[str, str] = {}
    used: set[str] = set()
    for name in sorted(_services(inc)):
        parts = re.split(r"([-_/])", name)
        out = []
        for i, part in enumerate(parts):
            if i % 2 or part.lower() in _ROLES or part.isdigit():
                out.append(part)
            else:
                out.append(_word(part, "svc"))
        new = "".join(out)
        while new in used or new == name:
            new = f"{new}x"
        used.add(new)
        table[name] = new
    # Hosts: the label before the top-level domain (``api.acmebank.example``), not code package
    # names (``javax.net``, ``github.com``) or generic labels.
    text = json.dumps(inc)
    for m in _HOST.finditer(text):
        label = m.group(1).strip(".").split(".")[-1]
        if (
            label
            and label not in _HOST_KEEP
            and label not in _TLDS
            and label not in _CODE_HOSTS
            and not label.isdigit()
            and label not in table
        ):
            table[label] = _word(label, "host") + _word(label, "host2")
    # Code identifiers a diff defines (functions, methods): renamed wherever they appear.
    for change in inc["changes"]["records"]:
        for name in _DEF.findall(change.get("diff", "")):
            if name in table or name in ("__init__",):
                continue
            a, b = _word(name, "f1"), _word(name, "f2")
            table[name] = f"{a}_{b}" if "_" in name or name.islower() else f"{a}{b.title()}"
    commit_ids = [c["id"] for c in inc["changes"]["records"] if c["kind"] == "commit"]
    new_ids = {cid: hashlib.sha1(cid.encode()).hexdigest()[: len(cid)] for cid in commit_ids}
    replace = _replacer(table)
    hexes = re.compile(r"(?<![A-Za-z0-9])[0-9a-f]{7,40}(?![A-Za-z0-9])")

    def ids(s: str) -> str:
        def one(m: re.Match[str]) -> str:
            token = m.group(0)
            for cid, new in new_ids.items():
                if cid.startswith(token):
                    return new[: len(token)]
            return token

        return hexes.sub(one, s)

    out = _strings(inc, lambda s: ids(replace(s)))
    authors = sorted({c.get("author", "") for c in inc["changes"]["records"]} - {""})
    names = {a: f"{_word(a, 'a1')}.{_word(a, 'a2')}" for a in authors if "bot" not in a.lower()}
    for change in out["changes"]["records"]:
        change["author"] = names.get(change.get("author", ""), change.get("author", ""))
    return out


# --- metric names ------------------------------------------------------------------------------


def _metric_name(name: str, style: str) -> tuple[str, float]:
    """A synonym of metric ``name`` in ``style`` and the factor its values are multiplied by."""
    factor = 1.0
    n = name
    if style == "seconds":
        if n.endswith("_ms"):
            n, factor = n[:-3] + "_seconds", 0.001
        n = re.sub(r"_per_second$", "_rate", n)
        n = n.replace("requests_rate", "requests_total_rate")
        return n, factor
    if style == "otel":
        n = re.sub(r"^http_requests?_per_second$", "http.server.request.rate", n)
        n = re.sub(r"^http_request_duration_(p\d\d)_ms$", r"http.server.duration.\1", n)
        n = re.sub(r"^http_error_ratio$", "http.server.error.ratio", n)
        return n.replace("_", "."), factor
    # short (a dashboard's own names)
    n = re.sub(r"^http_requests?_per_second$", "requests", n)
    n = re.sub(r"^http_request_duration_(p\d\d)_ms$", r"latency_\1", n)
    n = re.sub(r"^http_error_ratio$", "errors_pct", n)
    if n == "errors_pct":
        factor = 100.0
    n = re.sub(r"_per_second$", "", n)
    return n, factor


def _metrics(style: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def apply(inc: dict[str, Any]) -> dict[str, Any]:
        table: dict[str, str] = {}
        for series in inc["metrics"]["series"]:
            new, factor = _metric_name(series["name"], style)
            table[series["name"]] = new
            series["name"] = new
            if factor != 1.0:
                series["points"] = [[t, v * factor] for t, v in series["points"]]
        replace = _replacer({k: v for k, v in table.items() if k != v})
        metrics = inc.pop("metrics")
        out = _strings(inc, replace)
        out["metrics"] = metrics
        return out

    return apply


# --- log formats -------------------------------------------------------------------------------

_OTEL_KEYS = {
    "stack": "exception.stacktrace",
    "stack_trace": "exception.stacktrace",
    "exc_info": "exception.stacktrace",
    "err.stack": "exception.stacktrace",
    "exception": "exception.type",
    "err.type": "exception.type",
    "error": "exception.message",
    "err": "exception.message",
    "panic": "exception.message",
    "caller": "code.function",
}


def _logs(style: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def apply(inc: dict[str, Any]) -> dict[str, Any]:
        for record in inc["logs"]["records"]:
            attrs = record.get("attributes") or {}
            if style == "otel-keys":
                record["attributes"] = {_OTEL_KEYS.get(k, k): v for k, v in attrs.items()}
                continue
            level = record["level"].lower()
            if style == "json":
                body = {"level": level, "msg": record["message"]}
                for key in ("exception", "err.type", "error", "err"):
                    if isinstance(attrs.get(key), str):
                        body["error"] = attrs[key]
                        break
                record["message"] = json.dumps(body)
            else:  # logfmt
                msg = record["message"].replace('"', "'")
                line = f'level={level} msg="{msg}"'
                for key in ("exception", "err.type", "error", "err"):
                    if isinstance(attrs.get(key), str):
                        line += ' err="' + attrs[key].replace('"', "'")[:200] + '"'
                        break
                record["message"] = line
        return inc

    return apply


# --- wording and severity ----------------------------------------------------------------------

_SYNONYMS = {
    "reduce": "lower",
    "increase": "raise",
    "add": "introduce",
    "remove": "drop",
    "fix": "correct",
    "update": "adjust",
    "errors": "failures",
    "error rate": "failure rate",
    "high": "elevated",
    "above": "over",
    "latency": "response time",
    "slow": "sluggish",
    "failing": "broken",
    "use": "switch to",
    "timeout": "time limit",
    "bump": "raise",
    "cut": "trim",
    "enable": "turn on",
    "disable": "turn off",
}
_SYN = re.compile(r"\b(" + "|".join(sorted(_SYNONYMS, key=len, reverse=True)) + r")\b", re.I)
_CONVENTIONAL = re.compile(r"^(\w+)(?:\(([\w./-]+)\))?!?:\s*")


def _reword(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        word = m.group(1)
        new = _SYNONYMS[word.lower()]
        return new[:1].upper() + new[1:] if word[:1].isupper() else new

    return _SYN.sub(one, text)


def _wording(inc: dict[str, Any]) -> dict[str, Any]:
    for change in inc["changes"]["records"]:
        summary = change.get("summary", "")
        m = _CONVENTIONAL.match(summary)
        if m:  # conventional commit -> "[area] Subject"
            summary = (f"[{m.group(2)}] " if m.group(2) else "") + summary[m.end() :]
        change["summary"] = _reword(summary)
    old_title = inc["alert"]["title"]
    new_title = _reword(old_title)
    inc["alert"]["title"] = new_title
    inc["title"] = inc["title"].replace(old_title, new_title)

    def payload(s: str) -> str:
        return new_title if s == old_title else s

    inc["alert"]["payload"] = _strings(inc["alert"]["payload"], payload)
    return inc


_SEVERITIES = {
    "critical": "P1",
    "high": "sev2",
    "error": "major",
    "warning": "P3",
    "warn": "minor",
    "medium": "sev3",
    "low": "P4",
    "info": "informational",
    "p1": "critical",
    "p2": "high",
    "p3": "warning",
}
_LEVELS = {"WARNING": "warn", "ERROR": "err", "CRITICAL": "fatal", "INFO": "info"}


def _severity(inc: dict[str, Any]) -> dict[str, Any]:
    old = inc["alert"]["severity"]
    new = _SEVERITIES.get(old.lower(), "P2")
    inc["alert"]["severity"] = new

    def payload(s: str) -> str:
        return new if s == old else s

    inc["alert"]["payload"] = _strings(inc["alert"]["payload"], payload)
    for record in inc["logs"]["records"]:
        record["level"] = _LEVELS.get(record["level"], record["level"])
    return inc


# --- time, ships, order ------------------------------------------------------------------------

_ISO = re.compile(r"\b(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?)(Z|[+-]\d{2}:?\d{2})")
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b(?!T)")
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
_TEXT_DATE = re.compile(r"\b(" + "|".join(_MONTHS) + r")[a-z]*\.? (\d{1,2}), (\d{4})\b")
#: Whole days (times of day written in text, "13:05 UTC", stay true); a month boundary crossed.
_SHIFT = timedelta(days=41)


def _time(inc: dict[str, Any]) -> dict[str, Any]:
    def iso(m: re.Match[str]) -> str:
        zone = m.group(3)
        value = datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}{zone.replace('Z', '+00:00')}")
        shifted = (value + _SHIFT).isoformat()
        if zone == "Z":
            shifted = shifted.replace("+00:00", "Z")
        return shifted

    def day(m: re.Match[str]) -> str:
        try:
            value = datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return m.group(0)
        return (value + _SHIFT).strftime("%Y-%m-%d")

    def text_day(m: re.Match[str]) -> str:
        value = datetime(int(m.group(3)), _MONTHS.index(m.group(1)) + 1, int(m.group(2)))
        value += _SHIFT
        return f"{_MONTHS[value.month - 1]} {value.day}, {value.year}"

    out = _strings(inc, lambda s: _TEXT_DATE.sub(text_day, _DATE.sub(day, _ISO.sub(iso, s))))
    out["alert"]["payload"] = _epochs(out["alert"]["payload"])
    return out


def _epochs(obj: Any) -> Any:
    """``obj`` with its Unix times (seconds or milliseconds, numbers or digit strings) shifted."""
    if isinstance(obj, list):
        return [_epochs(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _epochs(v) for k, v in obj.items()}
    digits = obj if isinstance(obj, str) and obj.isdigit() else None
    value = int(digits) if digits is not None else obj
    if isinstance(value, bool) or not isinstance(value, int | float):
        return obj
    step = _SHIFT.total_seconds()
    if 1.5e9 <= value <= 2.2e9:
        value += int(step)
    elif 1.5e12 <= value <= 2.2e12:
        value += int(step * 1000)
    else:
        return obj
    return str(value) if digits is not None else value


def _ships(inc: dict[str, Any]) -> dict[str, Any]:
    """Drop a deploy's ``ships`` when every commit it names is of the deploy's own service and was
    made after that service's previous deploy: the next-deploy rule still finds them."""
    records = inc["changes"]["records"]
    commits = {c["id"]: c for c in records if c["kind"] == "commit"}
    deploys = sorted((c for c in records if c["kind"] == "deploy"), key=lambda c: c["timestamp"])
    for i, deploy in enumerate(deploys):
        ships = deploy.get("ships") or []
        if not ships:
            continue
        before = [d for d in deploys[:i] if d["service"] == deploy["service"]]
        previous = before[-1]["timestamp"] if before else ""
        ok = all(
            s in commits
            and commits[s]["service"] == deploy["service"]
            and previous < commits[s]["timestamp"] <= deploy["timestamp"]
            for s in ships
        )
        if ok:
            deploy.pop("ships")
    return inc


def _order(inc: dict[str, Any]) -> dict[str, Any]:
    rng = random.Random(_digest(inc["id"]))
    for items in (
        inc["changes"]["records"],
        inc["logs"]["records"],
        inc["metrics"]["series"],
        inc["knowledge"],
    ):
        rng.shuffle(items)
    return inc


_CATALOG_LINE = re.compile(r"^\s*[-*]\s*`?([A-Za-z0-9_@/.-]+)`?\s*:\s*(.*)$")
_NOTICE_WORDS = re.compile(
    r"\b(?:status(?: page)?|partner notice|service notice|notice|health|incident)\b\s*[:-]?\s*",
    re.IGNORECASE,
)


def _docs(inc: dict[str, Any]) -> dict[str, Any]:
    """The service catalog as a markdown table, and status notices titled by their headline
    only (no "status", "notice" or "incident" in the title)."""
    for doc in inc["knowledge"]:
        title = doc["title"]
        if "catalog" in title.lower():
            rows = ["| service | what it is, owner, dependencies |", "|---|---|"]
            other = []
            for line in doc["content"].splitlines():
                m = _CATALOG_LINE.match(line)
                if m:
                    rows.append(f"| **{m.group(1)}** | {m.group(2)} |")
                else:
                    other.append(line)
            doc["content"] = "\n".join([*other, *rows])
        elif not title.lower().startswith(("runbook", "postmortem")) and _NOTICE_WORDS.search(
            title
        ):
            new = _NOTICE_WORDS.sub("", title).strip(" :-")
            doc["title"] = new or title
    return inc


def _alert_labels(inc: dict[str, Any]) -> dict[str, Any]:
    """The alert's service label under OpenTelemetry's resource key (``service.name``)."""

    def walk(obj: Any) -> Any:
        if isinstance(obj, list):
            return [walk(v) for v in obj]
        if isinstance(obj, dict):
            return {("service.name" if k == "service" else k): walk(v) for k, v in obj.items()}
        return obj

    inc["alert"]["payload"] = walk(inc["alert"]["payload"])
    return inc


def _resolution(inc: dict[str, Any]) -> dict[str, Any]:
    """Every metric series at half its resolution (every other point)."""
    for series in inc["metrics"]["series"]:
        series["points"] = series["points"][::2]
    return inc


def _summaries(inc: dict[str, Any]) -> dict[str, Any]:
    """Commit messages that do not say what they do: every commit's summary is a ticket number
    alone (``CHG-4821``), reverts aside; the diff and the files still show what it changes."""
    for change in inc["changes"]["records"]:
        summary = change.get("summary", "")
        if change["kind"] != "commit" or re.search(r"\brevert", summary, re.IGNORECASE):
            continue
        change["summary"] = f"CHG-{1000 + _digest(change['id']) % 9000}"
    return inc


def _warn_level(inc: dict[str, Any]) -> dict[str, Any]:
    """Failures logged as warnings: every ERROR record at WARNING (a service that logs handled
    errors at WARN); fatal and critical records stay."""
    for record in inc["logs"]["records"]:
        if record["level"].upper() in ("ERROR", "ERR"):
            record["level"] = "WARNING"
    return inc


def _sampled(inc: dict[str, Any]) -> dict[str, Any]:
    """Log sampling: two records of every three kept (chosen by a hash, the same every run); an
    incident left with under 100 records, or with none of its few error records, is not
    sampled (the file format asks for both)."""
    records = inc["logs"]["records"]
    kept = [r for r in records if _digest(r["timestamp"] + r["message"]) % 3]
    errors_kept = any(r["level"] in ("ERROR", "CRITICAL") for r in kept)
    inc["logs"]["records"] = kept if len(kept) >= 100 and errors_kept else records
    return inc


FAMILIES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "rename": _rename,
    "metrics-seconds": _metrics("seconds"),
    "metrics-otel": _metrics("otel"),
    "metrics-short": _metrics("short"),
    "logs-json": _logs("json"),
    "logs-logfmt": _logs("logfmt"),
    "logs-otel-keys": _logs("otel-keys"),
    "wording": _wording,
    "severity": _severity,
    "time": _time,
    "ships": _ships,
    "order": _order,
    "docs": _docs,
    "alert-labels": _alert_labels,
    "resolution": _resolution,
    "sampled": _sampled,
    "summaries": _summaries,
    "warn-level": _warn_level,
}


def perturb(incident: dict[str, Any], family: str) -> dict[str, Any]:
    """A rewritten copy of ``incident`` (the input is not changed) by one of `FAMILIES`."""
    return FAMILIES[family](copy.deepcopy(incident))
