"""The root-cause engine: onset, suspects, verdict (see :mod:`sleuth_core.rca`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from itertools import compress, repeat
from operator import ge, itemgetter

from sleuth_core.rca.model import (
    Alert,
    Analysis,
    Change,
    Confidence,
    ErrorSignature,
    Evidence,
    MetricPoints,
    Onset,
    Suspect,
    Verdict,
)
from sleuth_core.rca.signals import (
    change_point,
    change_terms,
    compound_hits,
    message_template,
    metric_change_point,
    relatedness,
    signature_terms,
    words_of,
)

__all__ = ["LIKELY_AT", "STRONG_AT", "analyze"]

#: Least relatedness for a change verdict (one rare compound identifier of the failure reaches it).
LIKELY_AT = 0.5
#: Relatedness from which a change verdict, on the failing service, is CONFIRMED.
STRONG_AT = 0.65
#: How long after the onset a change is still taken as "at the onset" when the onset is exact.
_SLACK = timedelta(seconds=30)
#: A related change this close before the onset, on a failing service, gains relatedness.
_PROXIMITY = timedelta(minutes=15)
_PROXIMITY_GAIN = 0.06
_COMPOUND_GAIN = 1.5
_MIN_ERRORS = 5
_MIN_NEW_ERRORS = 4
#: A new message is a burst when its rate over its own span is this many times its rate over the
#: whole look-back ...
_BURST_RATIO = 3.0
#: ... and, at that rate, the silence before its first sighting had at most ``exp(-_BURST_SILENCE)``
#: (1%) chance: sparse steady noise absent from the baseline by chance fails.
_BURST_SILENCE = 4.6
_BURST_FLOOR = timedelta(minutes=5)
#: How far before the alert's own failure another service's onset may lie and still belong to the
#: same failure episode (without a dependency linking them).
_EPISODE_GAP = timedelta(hours=1)

_TLS = re.compile(
    r"x509|certificate (?:has )?expired|certificate verify failed|ssl(?:error)?|tls handshake|"
    r"handshake fail|cert(?:ificate)? (?:is )?not valid|unknown authority|self.signed",
    re.IGNORECASE,
)
_DNS = re.compile(
    r"nxdomain|servfail|no such host|name resolution|could not resolve|getaddrinfo|"
    r"temporary failure in name|dns (?:lookup|resolution|timeout|error|fail)|resolv\w* fail",
    re.IGNORECASE,
)
_NEIGHBOUR = re.compile(r"noisy neighbou?r|cpu steal|steal time|throttl", re.IGNORECASE)
_POISON = re.compile(
    r"poison|dead.letter|unparseable|malformed|cannot deserializ|failed to deserializ|"
    r"deserializ\w* (?:error|fail)|invalid (?:record|payload|message)|redeliver",
    re.IGNORECASE,
)
_STATUS = re.compile(
    r"status|outage|incident|degraded|disruption|impair|elevated error|partial|investigating|"
    r"service issue|major|identified|monitoring",
    re.IGNORECASE,
)
_STATUS_UPDATE = re.compile(
    r"\b(?:investigating|identified|monitoring|resolved|update)\b\s*[:-]", re.IGNORECASE
)
_REGION = re.compile(
    r"\b(?:[a-z]{2}-[a-z]+-\d|availability zone|region|zone [a-z]|az[- ]?\d)\b", re.IGNORECASE
)
_HOST = re.compile(r"\b(?:[a-z0-9-]+\.)+(?:com|io|net|org|cloud|dev|co)\b", re.IGNORECASE)
_REQUEST_METRIC = re.compile(
    r"^(?:http_|grpc_|api_)?requests?(?:_per_second|_per_minute|_total|_rate)?$|^rps$|^qps$|"
    r"traffic|ingress|inbound|visitors|sessions_started"
)
_NOT_VOLUME = re.compile(r"duration|latency|error|fail|p\d\d|_ms|seconds|size|bytes|timeout")
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_TEXT_DATE = re.compile(
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? (\d{1,2}),? (\d{4})\b"
    r"|\b(\d{4})-(\d{2})-(\d{2})\b",
    re.IGNORECASE,
)


def _volume_metric(name: str) -> bool:
    lowered = name.lower()
    return bool(_REQUEST_METRIC.search(lowered)) and not _NOT_VOLUME.search(lowered)


def _dates_in(text: str) -> list[date]:
    """The calendar dates a text names (``Mar 9, 2026``, ``2026-03-09``)."""
    found = []
    for m in _TEXT_DATE.finditer(text):
        try:
            if m.group(1):
                month = _MONTHS.index(m.group(1).lower()[:3]) + 1
                found.append(date(int(m.group(3)), month, int(m.group(2))))
            else:
                found.append(date(int(m.group(4)), int(m.group(5)), int(m.group(6))))
        except ValueError:
            continue
    return found


_HOST_METRIC = re.compile(r"steal|host|node|neighbou?r|hypervisor|iowait|noisy")
_BUSY_METRIC = re.compile(r"cpu|util|load|steal|saturation")
_SATURATION_METRIC = re.compile(
    r"mem|heap|rss|cpu|conn|pool|queue|lag|backlog|disk|fd|thread|goroutine|gc|saturation|"
    r"latency|duration|p9\d|p50|error|5xx|fail|timeout|usage|util"
)
_REVERT = re.compile(r"\b(?:revert|rollback|roll back|rolled back)\b", re.IGNORECASE)


@dataclass(frozen=True)
class _MetricShift:
    series: MetricPoints
    at: datetime
    ratio: float
    direction: int


_first = itemgetter(0)
_second = itemgetter(1)


def _metric_shifts(metrics: Sequence[MetricPoints], fired: datetime) -> list[_MetricShift]:
    shifts = []
    until = fired + timedelta(minutes=5)
    for series in metrics:
        # The points up to ``until`` and their scale floor, column-wise (map and compress run
        # in C: ~720 points per series).
        everything = series.points
        points = list(compress(everything, map(ge, repeat(until), map(_first, everything))))
        scale_floor = 0.05 * max(map(abs, map(_second, points))) if points else 0.0
        found = metric_change_point(points, threshold=8.0, min_scale=scale_floor)
        if found is not None:
            cp, direction = found
            ratio = cp.level / cp.baseline if cp.baseline > 0 else float("inf")
            shifts.append(_MetricShift(series, cp.at, ratio, direction))
    return shifts


def _dense(
    points: Sequence[tuple[datetime, float]], bucket: int, end: datetime
) -> list[tuple[datetime, float]]:
    if not points:
        return []
    step = timedelta(seconds=bucket)
    have = {t: v for t, v in points}
    out = []
    t = points[0][0]
    while t <= end:
        out.append((t, have.get(t, 0.0)))
        t += step
    return out


def _is_burst(sig: ErrorSignature, lookback_start: datetime, fired: datetime) -> bool:
    """Whether a new message arrived as a burst rather than as sparse, steady noise.

    Its rate over its own span (``count - 1`` gaps between first and last sighting) must be
    ``_BURST_RATIO`` times its rate over the whole look-back, and at that rate the silence from the
    start of the look-back to its first sighting must be improbable (Poisson, at most 1%): three
    "image CDN request failed" lines spread over six hours are noise that missed the baseline by
    chance; thirty in ten minutes, or one per run of a job from the hour it broke, are an onset.

    >>> from datetime import UTC, datetime, timedelta
    >>> t0 = datetime(2026, 1, 1, tzinfo=UTC)
    >>> h = lambda x: t0 + timedelta(hours=x)
    >>> _is_burst(ErrorSignature("web", "cdn failed", 3, h(4.9), h(10.9)), t0, h(12))
    False
    >>> _is_burst(ErrorSignature("web", "pool exhausted", 30, h(9.5), h(9.7)), t0, h(12))
    True
    """
    if sig.count < 3:
        return False
    lookback = max(fired - lookback_start, _BURST_FLOOR)
    span = max(sig.last_seen - sig.first_seen, _BURST_FLOOR)
    rate = (sig.count - 1) / span.total_seconds()
    average = sig.count / lookback.total_seconds()
    silence = max(sig.first_seen - lookback_start, timedelta(0)).total_seconds()
    return rate >= _BURST_RATIO * average and rate * silence >= _BURST_SILENCE


def _service_onsets(evidence: Evidence) -> tuple[dict[str, datetime], dict[str, timedelta]]:
    """Per failing service: when it began failing, and how exact that time is.

    A service fails when its error counts shift up (CUSUM change point), or when error messages
    new since the baseline (first seen after the first third of the look-back) arrive as a burst
    (:func:`_is_burst`; sparse steady noise never marks an onset). The onset is the first sighting
    of the new messages, else the change point's bucket.
    """
    fired = evidence.alert.fired_at
    onsets: dict[str, datetime] = {}
    slack: dict[str, timedelta] = {}
    by_service: dict[str, list[ErrorSignature]] = {}
    for sig in evidence.signatures:
        by_service.setdefault(sig.service, []).append(sig)
    # Where the data begins (the look-back may reach back before the first stored record).
    starts = [s.points[0][0] for s in evidence.errors if s.points]
    starts += [s.first_seen for s in evidence.signatures]
    starts += [m.points[0][0] for m in evidence.metrics if m.points]
    if evidence.since is not None:
        starts = [evidence.since]
    if not starts:
        return onsets, slack
    lookback_start = min(starts)
    baseline_end = lookback_start + (fired - lookback_start) / 3
    series_of = {s.service: s for s in evidence.errors}
    # Messages any service logged in the baseline are background noise, wherever they recur.
    noise = {
        message_template(s.message) for s in evidence.signatures if s.first_seen <= baseline_end
    }
    for service in sorted(set(series_of) | set(by_service)):
        sigs = by_service.get(service, [])
        new = [
            s
            for s in sigs
            if baseline_end < s.first_seen <= fired and message_template(s.message) not in noise
        ]
        cp_at: datetime | None = None
        bucket = _SLACK
        series = series_of.get(service)
        if series is not None:
            dense = [
                p
                for p in _dense(series.points, series.bucket_seconds, fired)
                if p[0] >= lookback_start - timedelta(seconds=series.bucket_seconds)
            ]
            bucket = timedelta(seconds=series.bucket_seconds)
            if sum(v for _, v in dense) >= _MIN_ERRORS:
                cp = change_point(dense, direction=1, counts=True, threshold=6.0)
                cp_at = cp.at if cp is not None else None
        if cp_at is not None:
            recent = [s for s in new if s.first_seen >= cp_at - bucket and s.count >= 2]
            if recent:
                onsets[service] = min(s.first_seen for s in recent)
                slack[service] = _SLACK
            else:
                onsets[service] = cp_at
                slack[service] = bucket
        else:
            bursts = [s for s in new if _is_burst(s, lookback_start, fired)]
            if sum(s.count for s in bursts) >= _MIN_NEW_ERRORS:
                onsets[service] = min(s.first_seen for s in bursts)
                slack[service] = _SLACK
    return onsets, slack


def _episode(
    onsets: Mapping[str, datetime],
    error_onsets: Mapping[str, datetime],
    calls: Mapping[str, set[str]],
    alert: Alert,
    known: Sequence[str],
) -> set[str]:
    """The failing services of the failure episode the alert is about.

    Seeded by the failing services the alert names (its service, or named in its title or text),
    it grows by the failing services they call (the upstream chain, at any time) and by those whose
    errors began at most ``_EPISODE_GAP`` before the episode's first errors, or any time after:
    another service's unrelated blip hours earlier is not this failure's onset. An alert naming no
    failing service keeps every failing service.
    """
    failing = set(onsets)
    named = ({alert.service} | _mentions(f"{alert.title}\n{alert.text}", known)) & failing
    if not named:
        return failing
    episode = set(named)
    while True:
        grown = set(episode)
        for s in episode:
            grown |= calls.get(s, set()) & failing
        start = min(error_onsets[s] for s in grown)
        grown |= {s for s in failing if error_onsets[s] >= start - _EPISODE_GAP}
        if grown == episode:
            return episode
        episode = grown


def _mentions(text: str, services: Sequence[str]) -> set[str]:
    lowered = text.lower()
    return {s for s in services if s and _service_word(s).search(lowered)}


@lru_cache(maxsize=1024)
def _service_word(service: str) -> re.Pattern[str]:
    """The pattern of ``service`` as a whole word (compiled once per name)."""
    return re.compile(r"(?<![\w-])" + re.escape(service.lower()) + r"(?![\w-])")


def _shipping(changes: Sequence[Change]) -> dict[str, list[Change]]:
    """Commit id -> the deploys that ship it (matched exactly or by a 7+ character prefix)."""
    deploys = [c for c in changes if c.kind == "deploy" and c.ships]
    out: dict[str, list[Change]] = {}
    commits = [c for c in changes if c.kind != "deploy"]
    for deploy in deploys:
        for shipped in deploy.ships:
            for commit in commits:
                a, b = commit.change_id.lower(), shipped.lower()
                if a == b or (min(len(a), len(b)) >= 7 and (a.startswith(b) or b.startswith(a))):
                    out.setdefault(commit.change_id, []).append(deploy)
    return out


def _remediation(change: Change, deploy: Change | None) -> str:
    if change.kind == "flag":
        flag = change.change_id.split("@")[0].split(":")[0]
        return f"Turn flag {flag} back to its previous value (revert the flip {change.change_id})."
    if change.kind == "config":
        return f"Revert the configuration change {change.change_id} on {change.service}."
    if change.kind == "deploy":
        return f"Roll back deploy {change.change_id} on {change.service}."
    if deploy is not None:
        return (
            f"Revert commit {change.change_id} and redeploy, or roll back deploy "
            f"{deploy.change_id} on {deploy.service}."
        )
    return f"Revert commit {change.change_id} and redeploy {change.service}."


def analyze(evidence: Evidence) -> Analysis:
    """Find when the failure began, rank the changes before it, and give a verdict.

    >>> from datetime import UTC, datetime, timedelta
    >>> from sleuth_core.rca import Alert, Change, ErrorSeries, ErrorSignature, Evidence
    >>> t0 = datetime(2026, 3, 14, 6, 0, tzinfo=UTC)
    >>> at = lambda m: t0 + timedelta(minutes=m)
    >>> counts = tuple((at(5 * i), 1.0 if i < 60 else 30.0) for i in range(72))
    >>> errors = ErrorSeries("checkout", 300, counts)
    >>> message = "PoolTimeoutError: db_pool max_connections=5 exhausted"
    >>> sig = ErrorSignature("checkout", message, 300, at(301), at(359))
    >>> diff = "-max_connections=50\\n+max_connections=5"
    >>> guilty = Change("a1b2c3d", "checkout", "commit", at(290), "Pool", ("db/pool.py",), diff)
    >>> deploy = Change("deploy-41", "checkout", "deploy", at(295), "Deploy", ships=("a1b2c3d",))
    >>> decoy = Change("9f8e7d6", "checkout", "commit", at(298), "Footer copy", ("footer.html",))
    >>> alert = Alert("Checkout errors", "checkout", at(360))
    >>> result = analyze(Evidence(alert, (errors,), (sig,), changes=(guilty, deploy, decoy)))
    >>> result.verdict, result.change_id, result.deploy_id, result.confidence
    ('change', 'a1b2c3d', 'deploy-41', 'CONFIRMED')
    >>> result.onset == at(301)
    True
    """
    alert = evidence.alert
    fired = alert.fired_at
    known = tuple(
        dict.fromkeys(
            [*evidence.services, *(s.service for s in evidence.errors), alert.service]
            + [c.service for c in evidence.changes]
        )
    )
    known = tuple(s for s in known if s)
    onsets, slack = _service_onsets(evidence)
    error_onsets = dict(onsets)
    shifts = _metric_shifts(evidence.metrics, fired)
    # Dependencies: hints, and services named in another service's errors.
    calls: dict[str, set[str]] = {}
    for caller, callee in evidence.dependencies:
        calls.setdefault(caller, set()).add(callee)
    for sig in evidence.signatures:
        for named in _mentions(sig.message, known) - {sig.service}:
            calls.setdefault(sig.service, set()).add(named)
    # Saturation / latency metrics of failing services that shifted before the errors began.
    onset_list: list[Onset] = []
    metric_onset: dict[str, tuple[datetime, str]] = {}
    for shift in shifts:
        name = shift.series.name.lower()
        svc = shift.series.service
        if _volume_metric(name) or not _SATURATION_METRIC.search(name):
            continue
        if (
            svc in onsets
            and shift.at < onsets[svc]
            and shift.direction == 1
            and (svc not in metric_onset or shift.at < metric_onset[svc][0])
        ):
            metric_onset[svc] = (shift.at, shift.series.name)
    for svc, (at, name) in metric_onset.items():
        if onsets[svc] - at <= timedelta(hours=24):
            onsets[svc] = at
            step = _metric_step(evidence.metrics, name, svc)
            slack[svc] = max(step, _SLACK)
            onset_list.append(Onset(svc, at, "metric", name))
    for svc, at in onsets.items():
        if svc not in metric_onset:
            onset_list.append(Onset(svc, at, "errors"))
    episode = _episode(onsets, error_onsets, calls, alert, known)
    onsets = {s: at for s, at in onsets.items() if s in episode}
    onset_list = [o for o in onset_list if o.service in episode]
    onset_list.sort(key=lambda o: (o.at, o.service))
    failing = sorted(onsets, key=lambda s: (onsets[s], s != alert.service, s))
    reasons: list[str] = []
    if not failing:
        external = _external(evidence, shifts, [], {}, calls, None)
        if external:
            cause, _strength = external
            return Analysis(
                "external",
                "INCONCLUSIVE",
                None,
                None,
                alert.service or None,
                (),
                None,
                (),
                _external_remediation(cause),
                cause,
                (f"No service's errors rose, but {cause}.",),
            )
        return Analysis(
            "unknown",
            "INCONCLUSIVE",
            None,
            None,
            alert.service or None,
            (),
            None,
            (),
            "Check the alert's own metric; the logs and metrics here show no failure.",
            "",
            ("No service's error rate or metrics changed before the alert.",),
        )
    # The origin: the earliest to fail; within one bucket, the one others call.
    first_at = onsets[failing[0]]
    close = [s for s in failing if onsets[s] - first_at <= slack[failing[0]]]
    called = {callee for s in failing for callee in calls.get(s, ())}
    origin = sorted(close, key=lambda s: (s not in called, s != alert.service, onsets[s], s))[0]
    onset = min(onsets.values())
    tolerance = slack[origin] if onsets[origin] == onset else _SLACK
    affected = tuple([origin] + [s for s in failing if s != origin])
    scope = set(affected) | {alert.service} - {""}
    for s in list(scope):
        scope |= calls.get(s, set())
    # The failure's signature.
    ignore = [*known, *(p for s in known for p in re.split(r"[-_.]", s))]
    new_sigs = [
        s
        for s in evidence.signatures
        if s.service in onsets
        and s.last_seen >= onsets[s.service] - tolerance
        and s.first_seen >= onset - timedelta(hours=1)
    ]
    old_sigs = [s for s in evidence.signatures if s not in new_sigs]
    signature = signature_terms([s.message for s in new_sigs], ignore=ignore)
    metric_terms = signature_terms(
        sorted({sh.series.name for sh in shifts if sh.series.service in scope}),
        ignore=ignore,
        weight=0.7,
    )
    for term, w in metric_terms.items():
        # A term both the errors and a shifted metric show counts for both.
        signature[term] = signature.get(term, 0.0) + w
    for term, w in signature_terms([alert.title, alert.text], ignore=ignore, weight=0.4).items():
        signature[term] = max(signature.get(term, 0.0), w)
    for term in signature_terms([s.message for s in old_sigs], ignore=ignore):
        signature[term] = signature.get(term, 0.0) * 0.3
    signature = {t: w for t, w in signature.items() if w > 0}
    failure_words = words_of(s.message for s in new_sigs) - frozenset(
        p for name in ignore for p in words_of([name])
    )
    # Suspects. A build-up (metric) onset on the origin is only as exact as its metric's step.
    ramp = next(
        (
            _metric_step(evidence.metrics, o.metric, o.service)
            for o in onset_list
            if o.basis == "metric" and o.service == origin and o.at == onset
        ),
        None,
    )
    shipping = _shipping(evidence.changes)
    services_with_ships = {c.service for c in evidence.changes if c.kind == "deploy" and c.ships}
    touched = {c.change_id: change_terms(c.summary, c.files, c.diff) for c in evidence.changes}
    df: dict[str, int] = {}
    for touched_terms in touched.values():
        for term in touched_terms:
            df[term] = df.get(term, 0) + 1
    suspects: list[Suspect] = []
    for change in evidence.changes:
        deploys = sorted(shipping.get(change.change_id, []), key=lambda d: d.timestamp)
        deploy = next((d for d in deploys if d.timestamp >= change.timestamp), None)
        if deploy is None and deploys:
            deploy = deploys[0]
        effective = deploy.timestamp if deploy is not None else change.timestamp
        rel, matched = relatedness(signature, touched[change.change_id], df, len(touched))
        compounds = [
            c for c in compound_hits(touched[change.change_id], failure_words) if c not in matched
        ]
        if compounds:
            # An identifier the change touches whose words the failure spells out separately.
            total = 3 * rel / (1 - rel) + _COMPOUND_GAIN * len(compounds[:2])
            rel = round(total / (total + 3), 6)
            matched = (*matched, *compounds[:2])
        if change.kind in ("flag", "config") and rel > 0:
            # A flag or setting the failure names by its own key's words.
            key_terms = set(signature_terms([change.change_id, *change.files], ignore=ignore))
            if key_terms & set(matched):
                rel = round(min(0.95, rel * 1.3), 6)
        homes = {change.service} | ({deploy.service} if deploy else set())
        if (
            ramp is not None
            and rel > 0
            and timedelta(0) <= onset - effective <= max(6 * ramp, timedelta(minutes=30))
            and origin in homes
        ):
            # A slow build-up that began as this change shipped: time is strong evidence here.
            rel = round(min(0.95, rel + 0.2), 6)
            matched = (*matched, "onset of the build-up")
        elif (
            rel >= 0.25
            and timedelta(0) <= onset + tolerance - effective <= _PROXIMITY
            and homes & set(affected)
        ):
            # Related and shipped to a failing service minutes before it began failing.
            rel = round(min(0.95, rel + _PROXIMITY_GAIN), 6)
        text = f"{change.summary} {' '.join(change.files)}"
        named_here = _mentions(text, list(scope))
        in_scope = bool(homes & scope) or bool(named_here)
        lead = onset - effective
        hours = max(lead.total_seconds(), 0.0) / 3600
        score = rel * (1.0 if origin in homes else 0.8 if in_scope else 0.35) / (1 + hours / 24)
        ruled_out = ""
        if effective > onset + tolerance:
            ruled_out = "landed after the failure began"
        elif change.kind == "deploy" and change.ships and any(s in touched for s in change.ships):
            ruled_out = "a deploy: judged by the commits it ships"
        elif change.kind == "commit" and deploy is None and change.service in services_with_ships:
            ruled_out = "no deploy in the data shipped it"
        elif _REVERT.search(change.summary) and rel < STRONG_AT:
            ruled_out = "a revert or rollback"
        elif rel < 0.2:
            ruled_out = "touches nothing the failure shows"
        elif not in_scope and rel < STRONG_AT:
            ruled_out = "on a service that neither failed nor is called by one that did"
        suspects.append(
            Suspect(
                change,
                effective,
                deploy.change_id if deploy else "",
                rel,
                matched[:8],
                round(score, 6),
                ruled_out,
            )
        )
    suspects.sort(
        key=lambda s: (
            bool(s.ruled_out),
            -s.score,
            -s.relatedness,
            abs((onset - s.effective_at).total_seconds()),
            s.change.change_id,
        )
    )
    best = next((s for s in suspects if not s.ruled_out), None)
    external = _external(evidence, shifts, affected, onsets, calls, onset)
    ext_cause, ext_strength = external if external else ("", 0.0)
    verdict: Verdict
    confidence: Confidence
    reasons.append(
        f"{origin} began failing at {onset.isoformat()}"
        + (f", {len(affected) - 1} more service(s) after it" if len(affected) > 1 else "")
        + "."
    )
    if (
        best is not None
        and best.relatedness >= LIKELY_AT
        and (ext_strength < 2 or best.relatedness >= STRONG_AT)
    ):
        change = best.change
        deploy_change = next(
            (c for c in evidence.changes if c.change_id == best.deploy_id and c.kind == "deploy"),
            None,
        )
        on_origin = origin in {change.service} | (
            {deploy_change.service} if deploy_change else set()
        )
        strong = best.relatedness >= STRONG_AT and ext_strength == 0
        confidence = "CONFIRMED" if strong and on_origin else "LIKELY"
        runner_up = next((s for s in suspects if not s.ruled_out and s is not best), None)
        if runner_up is not None and runner_up.relatedness >= 0.9 * best.relatedness:
            confidence = "LIKELY" if confidence == "CONFIRMED" else "INCONCLUSIVE"
        reasons.append(
            f"{change.kind} {change.change_id} reached production "
            f"{_ago(onset - best.effective_at)} before the onset and touches "
            + ", ".join(best.matched[:4])
            + "."
        )
        return Analysis(
            "change",
            confidence,
            change.change_id,
            best.deploy_id or None,
            origin,
            affected,
            onset,
            tuple(onset_list),
            _remediation(change, deploy_change),
            "",
            tuple(reasons),
            tuple(suspects),
        )
    if ext_strength > 0:
        verdict, confidence = "external", "LIKELY" if ext_strength >= 2 else "INCONCLUSIVE"
        reasons.append(f"No change before the onset touches what failed; {ext_cause}.")
        return Analysis(
            verdict,
            confidence,
            None,
            None,
            origin,
            affected,
            onset,
            tuple(onset_list),
            _external_remediation(ext_cause),
            ext_cause,
            tuple(reasons),
            tuple(suspects),
        )
    if best is not None and best.relatedness >= 0.3:
        reasons.append(
            f"{best.change.change_id} touches only {', '.join(best.matched[:3])}: too weak to "
            "name it the cause."
        )
    else:
        reasons.append("No change before the onset touches what the failure shows.")
    return Analysis(
        "unknown",
        "INCONCLUSIVE",
        None,
        None,
        origin,
        affected,
        onset,
        tuple(onset_list),
        f"Mitigate on {origin} (see its runbook); no change in the data explains this failure.",
        "",
        tuple(reasons),
        tuple(suspects),
    )


def _metric_step(metrics: Sequence[MetricPoints], name: str, service: str) -> timedelta:
    for series in metrics:
        if series.name == name and series.service == service and len(series.points) >= 2:
            return series.points[1][0] - series.points[0][0]
    return _SLACK


def _ago(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    if minutes < 120:
        return f"{minutes} minute(s)"
    return f"{minutes // 60} hour(s)"


def _external_remediation(cause: str) -> str:
    lowered = cause.lower()
    if "certificate" in lowered:
        return "Renew or replace the expired certificate; no rollback is needed."
    if "dns" in lowered:
        return "Fail over to another resolver or region; no rollback is needed."
    if "traffic" in lowered:
        return "Scale out or shed load (rate limits); no rollback is needed."
    if "neighbour" in lowered or "host" in lowered:
        return "Move the workload off the saturated host; no rollback is needed."
    if "poison" in lowered or "record" in lowered:
        return "Quarantine the bad record (dead-letter it) and replay the rest."
    return (
        "Follow the provider's status and fail over or degrade gracefully; no rollback is needed."
    )


def _external(
    evidence: Evidence,
    shifts: Sequence[_MetricShift],
    affected: Sequence[str],
    onsets: Mapping[str, datetime],
    calls: Mapping[str, set[str]],
    onset: datetime | None,
) -> tuple[str, float] | None:
    """The strongest sign that the cause lies outside the change data: (cause, strength)."""
    found: list[tuple[float, str]] = []
    messages = [s for s in evidence.signatures if not affected or s.service in affected]
    if onset is not None:
        messages = [s for s in messages if s.last_seen >= onset - timedelta(minutes=5)]
    text = " ".join(s.message for s in messages)
    total = sum(s.count for s in messages) or 1
    tls = sum(s.count for s in messages if _TLS.search(s.message))
    if tls and tls >= 0.2 * total:
        found.append((2.5, "TLS certificate errors (an expired or invalid certificate)"))
    dns = sum(s.count for s in messages if _DNS.search(s.message))
    if dns and dns >= 0.2 * total:
        found.append((2.5, "DNS resolution failures"))
    poison = sum(s.count for s in messages if _POISON.search(s.message))
    if poison and poison >= 0.3 * total:
        found.append((1.5, "one bad (poison) record failing over and over"))
    if _NEIGHBOUR.search(text):
        found.append((1.5, "a noisy neighbour saturating the host"))
    # Provider status notices naming something the errors name.
    error_terms = set(signature_terms([text])) if text else set()
    hosts = {h.lower() for h in _HOST.findall(text)}
    for signal in evidence.signals:
        body = f"{signal.title}\n{signal.text}"
        if not _STATUS.search(body):
            continue
        if (
            signal.at is not None
            and onset is not None
            and not (
                onset - timedelta(hours=6)
                <= signal.at
                <= evidence.alert.fired_at + timedelta(hours=6)
            )
        ):
            continue
        dates = _dates_in(body)
        if dates and onset is not None and all(abs((d - onset.date()).days) > 1 for d in dates):
            continue  # a notice about another day (an old, resolved incident)
        if not dates and signal.at is None and not _STATUS_UPDATE.search(body):
            continue  # undated and not written as status updates: a runbook, not a notice
        shared = set(signature_terms([body])) & error_terms
        shared |= {h for h in hosts if h in body.lower()}
        if len(shared) >= 2 or any("." in s or "-" in s for s in shared):
            found.append((3.0, f"a provider status notice: {signal.title.strip()}"))
            break
    for shift in shifts:
        name = shift.series.name.lower()
        if onset is not None and abs(shift.at - onset) > timedelta(hours=1):
            continue
        if _volume_metric(name) and shift.direction == 1 and shift.ratio >= 1.8:
            found.append(
                (
                    2.5,
                    f"a traffic surge: {shift.series.name} on {shift.series.service} "
                    f"rose {shift.ratio:.1f}x",
                )
            )
        elif _HOST_METRIC.search(name) and shift.direction == 1:
            found.append((2.0, f"host saturation (a noisy neighbour): {shift.series.name}"))
    changed = {c.service for c in evidence.changes}
    for shift in shifts:
        svc = shift.series.service
        if (
            onset is not None
            and shift.direction == 1
            and _BUSY_METRIC.search(shift.series.name.lower())
            and abs(shift.at - onset) <= timedelta(minutes=30)
            and svc not in changed
        ):
            found.append(
                (
                    2.0,
                    f"saturation of the shared {svc} ({shift.series.name} rose): a noisy "
                    "neighbour or outside load",
                )
            )
            break
    if _REGION.search(text) or hosts:
        found.append((1.0, "errors from an outside provider or cloud region"))
    if len(affected) >= 3 and onset is not None:
        together = [s for s in affected if onsets[s] - onset <= timedelta(minutes=10)]
        linked = {s for s in together for c in calls.get(s, ()) if c in together}
        linked |= {c for s in together for c in calls.get(s, ()) if c in together}
        if len(together) >= 3 and len(set(together) - linked) >= 3:
            found.append(
                (1.5, f"{len(together)} services with no shared dependency failed together")
            )
    if not found:
        return None
    found.sort(key=lambda item: -item[0])
    strength = found[0][0] + 0.5 * sum(w for w, _ in found[1:])
    return found[0][1], strength
