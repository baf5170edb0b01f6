"""Unit tests for sleuth_core.rca: onset, suspects and verdicts as case tables, and properties."""

# ruff: noqa: E501  (the case tables read best one case per line)

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth_core.rca import (
    Alert,
    Analysis,
    Change,
    ErrorSeries,
    ErrorSignature,
    Evidence,
    ExternalSignal,
    MetricPoints,
    analyze,
    change_point,
    message_template,
    signature_terms,
)

T0 = datetime(2026, 3, 14, 0, 0, tzinfo=UTC)
BUCKET = 300
FIRED = 10 * 60  # minutes after T0: the alert
ONSET = 9 * 60 + 30  # minutes after T0: the failure begins


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


# --- a small incident generator --------------------------------------------------------------------

GUILTY_DIFF = """--- a/orders/db.py
+++ b/orders/db.py
@@ -10,3 +10,3 @@
-POOL = create_pool(max_connections=50)
+POOL = create_pool(max_connections=5)
"""
DECOY_DIFF = """--- a/web/footer.html
+++ b/web/footer.html
@@ -1,2 +1,2 @@
-<p>Copyright 2025</p>
+<p>Copyright 2026</p>
"""
FAILURE = "PoolTimeoutError: max_connections=5 exhausted waiting for a connection"
NOISE = "request validation failed: field 'email' invalid"


def errors(
    service: str, onset: float | None, level: float = 30.0, base: float = 0.0
) -> ErrorSeries:
    points = []
    for i in range(FIRED // 5 + 1):
        minute = 5 * i
        value = base + (1 if i % 17 == 0 else 0)
        if onset is not None and minute >= onset:
            value = level
        points.append((at(minute), float(value)))
    return ErrorSeries(service, BUCKET, tuple(points))


def signature(
    service: str, message: str, first: float, count: int = 200, last: float = FIRED
) -> ErrorSignature:
    return ErrorSignature(service, message, count, at(first), at(last))


def commit(
    cid: str,
    minute: float,
    summary: str,
    files: tuple[str, ...] = (),
    diff: str = "",
    service: str = "orders",
) -> Change:
    return Change(cid, service, "commit", at(minute), summary, files, diff)


def deploy(did: str, minute: float, ships: tuple[str, ...], service: str = "orders") -> Change:
    return Change(did, service, "deploy", at(minute), f"Deploy {service}", ships=ships)


def incident(
    *changes: Change,
    sigs: tuple[ErrorSignature, ...] | None = None,
    series: tuple[ErrorSeries, ...] | None = None,
    **extra: object,
) -> Evidence:
    return Evidence(
        alert=Alert("Orders error rate high", "orders", at(FIRED)),
        errors=series if series is not None else (errors("orders", ONSET), errors("web", None)),
        signatures=sigs
        if sigs is not None
        else (signature("orders", FAILURE, ONSET + 0.5), signature("web", NOISE, 30, count=3)),
        changes=changes,
        **extra,  # type: ignore[arg-type]
    )


GUILTY = commit("a1b2c3d4", ONSET - 40, "Shrink the database pool", ("orders/db.py",), GUILTY_DIFF)
SHIP = deploy("deploy-orders-42", ONSET - 20, ("a1b2c3d4",))
DECOY = commit("d3c0y000", ONSET - 6, "Footer copyright year", ("web/footer.html",), DECOY_DIFF)
DECOY_SHIP = deploy("deploy-orders-43", ONSET - 3, ("d3c0y000",))


# --- onset -------------------------------------------------------------------------------------------


def test_change_point_finds_a_step_and_ignores_flat_or_recovered_series() -> None:
    step = [(at(i), 1.0 if i < 100 else 20.0) for i in range(130)]
    cp = change_point(step, counts=True)
    assert cp is not None and cp.at == at(100) and cp.shift > 0
    assert change_point([(at(i), 3.0) for i in range(100)], counts=True) is None
    spike = [(at(i), 40.0 if 50 <= i < 55 else 1.0) for i in range(130)]
    assert change_point(spike, counts=True) is None  # recovered: not an onset
    drop = [(at(i), 100.0 if i < 60 else 10.0) for i in range(100)]
    assert change_point(drop, direction=-1, min_scale=1.0) is not None
    assert change_point(drop, direction=1, min_scale=1.0) is None


def test_onset_is_the_first_new_error_not_the_alert() -> None:
    result = analyze(incident(GUILTY, SHIP))
    assert result.onset == at(ONSET + 0.5)
    assert result.service == "orders" and result.affected_services == ("orders",)


def test_a_stated_onset_sets_aside_an_older_failure_and_precursor_warnings() -> None:
    # "failing since ~09:30": web's failure hours earlier and orders' own earlier warnings are not
    # the failure asked about; the deploy minutes before the stated onset is in scope.
    precursor = signature("orders", "slow response from orders db", 6 * 60, count=40)
    failure = signature("orders", FAILURE, ONSET + 2)
    old = signature("web", "template render error", 5 * 60, count=200)
    evidence = incident(
        GUILTY,
        replace(SHIP, timestamp=at(ONSET - 5)),
        sigs=(precursor, failure, old),
        series=(errors("orders", 6 * 60, level=8.0), errors("web", 5 * 60)),
    )
    unstated = analyze(evidence)
    assert unstated.onset is not None and unstated.onset < at(ONSET - 5)
    stated = analyze(replace(evidence, alert=replace(evidence.alert, onset=at(ONSET))))
    assert stated.onset == at(ONSET + 2)
    assert stated.affected_services == ("orders",)
    assert stated.change_id == "a1b2c3d4"


def test_one_stray_line_after_a_stated_onset_does_not_keep_an_older_failure_in_it() -> None:
    # web has failed for hours; one new line of it after the stated onset is not a new failure.
    failure = signature("orders", FAILURE, ONSET + 2)
    old = signature("web", "template render error", 5 * 60, count=200)
    stray = signature("web", "favicon cache miss", ONSET + 1, count=1)
    evidence = incident(
        GUILTY,
        replace(SHIP, timestamp=at(ONSET - 5)),
        sigs=(failure, old, stray),
        series=(errors("orders", ONSET + 2), errors("web", 5 * 60)),
    )
    stated = analyze(replace(evidence, alert=replace(evidence.alert, onset=at(ONSET))))
    assert stated.affected_services == ("orders",)


def test_slow_leak_onset_is_where_the_saturation_metric_starts_climbing() -> None:
    leak_start = 4 * 60
    memory = MetricPoints(
        "db_pool_connections_in_use",
        "orders",
        tuple(
            (at(m), 5.0 if m < leak_start else 5.0 + (m - leak_start) / 10)
            for m in range(0, FIRED + 1, 4)
        ),
    )
    guilty = commit(
        "1eak0001",
        leak_start - 15,
        "Return early for unknown ids",
        ("orders/repository.py",),
        "@@ -1,4 +1,4 @@\n     conn = pool.connect()\n-    try:\n-        row = conn.execute(q).first()\n-    finally:\n-        conn.close()\n+    row = conn.execute(q).first()\n",
    )
    ship = deploy("deploy-orders-7", leak_start - 5, ("1eak0001",))
    late_decoy = commit(
        "1a7e0001",
        ONSET - 90,
        "Tweak pool_size",
        ("orders/pool.py",),
        "-pool_size=10\n+pool_size=12",
    )
    late_ship = deploy("deploy-orders-8", ONSET - 80, ("1a7e0001",))
    result = analyze(incident(guilty, ship, late_decoy, late_ship, metrics=(memory,)))
    assert result.onset is not None and result.onset < at(leak_start + 30)
    assert any(o.basis == "metric" for o in result.onsets)
    assert result.verdict == "change" and result.change_id == "1eak0001"
    ruled = {s.change.change_id: s.ruled_out for s in result.suspects}
    assert ruled["1a7e0001"] == "landed after the failure began"


# --- verdicts: a case table ------------------------------------------------------------------------
# (name, changes, extra evidence, expected verdict, expected change id, expected deploy id)

OUTSIDE_SIGNALS = {
    "tls": dict(
        sigs=(
            signature(
                "orders",
                "ssl.SSLCertVerificationError: certificate verify failed: certificate has expired",
                ONSET + 0.5,
            ),
        )
    ),
    "dns": dict(
        sigs=(
            signature(
                "orders",
                "getaddrinfo ENOTFOUND db.internal: Temporary failure in name resolution",
                ONSET + 0.5,
            ),
        )
    ),
    "status": dict(
        sigs=(
            signature(
                "orders",
                "PaylaneAPIError: 503 from api.paylane.example/v2/authorizations",
                ONSET + 0.5,
            ),
        ),
        signals=(
            ExternalSignal(
                "Paylane status: Investigating - authorizations failing",
                "Mar 14, 2026 09:35 UTC - elevated 503 errors on api.paylane.example /v2/authorizations",
            ),
        ),
    ),
}

CASES: list[tuple[str, tuple[Change, ...], dict[str, object], str, str | None, str | None]] = [
    (
        "guilty commit shipped by a deploy",
        (GUILTY, SHIP),
        {},
        "change",
        "a1b2c3d4",
        "deploy-orders-42",
    ),
    (
        "guilty beside a later decoy",
        (GUILTY, SHIP, DECOY, DECOY_SHIP),
        {},
        "change",
        "a1b2c3d4",
        "deploy-orders-42",
    ),
    ("only a decoy before the onset", (DECOY, DECOY_SHIP), {}, "unknown", None, None),
    (
        "sparse steady noise on another service, absent from the baseline by chance",
        (GUILTY, SHIP, DECOY, DECOY_SHIP),
        dict(
            sigs=(
                signature("orders", FAILURE, ONSET + 0.5),
                signature("web", "image CDN request failed", 4 * 60 + 50, count=3, last=9 * 60),
                signature("web", "thumbnail fetch failed for sku 4411", 5 * 60, count=4, last=590),
            )
        ),
        "change",
        "a1b2c3d4",
        "deploy-orders-42",
    ),
    (
        "another service failing for hours, unconnected to the alert",
        (GUILTY, SHIP),
        dict(
            series=(errors("orders", ONSET), errors("web", 4 * 60)),
            sigs=(
                signature("orders", FAILURE, ONSET + 0.5),
                signature("web", "CacheEvictionStorm: hot keys evicted", 4 * 60 + 1, count=900),
            ),
        ),
        "change",
        "a1b2c3d4",
        "deploy-orders-42",
    ),
    (
        "guilty lands after the onset",
        (
            replace(GUILTY, timestamp=at(ONSET + 5)),
            deploy("deploy-orders-44", ONSET + 10, ("a1b2c3d4",)),
        ),
        {},
        "unknown",
        None,
        None,
    ),
    (
        "guilty committed after the service's last deploy: never shipped",
        (replace(GUILTY, timestamp=at(ONSET - 2)), DECOY, DECOY_SHIP),
        {},
        "unknown",
        None,
        None,
    ),
    (
        "guilty not named by the next release of its service, which ships it anyway",
        (GUILTY, DECOY, DECOY_SHIP),
        {},
        "change",
        "a1b2c3d4",
        "deploy-orders-43",
    ),
    ("expired certificate", (DECOY, DECOY_SHIP), OUTSIDE_SIGNALS["tls"], "external", None, None),
    ("dns failure", (DECOY, DECOY_SHIP), OUTSIDE_SIGNALS["dns"], "external", None, None),
    (
        "provider status notice",
        (DECOY, DECOY_SHIP),
        OUTSIDE_SIGNALS["status"],
        "external",
        None,
        None,
    ),
    (
        "a flag named by the failure",
        (
            Change(
                "flag-orders.strict_pool-1",
                "orders",
                "flag",
                at(ONSET - 2),
                "strict_pool to 100%",
                ("flags/orders.strict_pool.yaml",),
                "-rollout: 10\n+rollout: 100",
            ),
        ),
        dict(
            sigs=(
                signature(
                    "orders", "StrictPoolError: strict_pool rejected the connection", ONSET + 0.5
                ),
            )
        ),
        "change",
        "flag-orders.strict_pool-1",
        None,
    ),
]


@pytest.mark.parametrize(
    ("name", "changes", "extra", "verdict", "change_id", "deploy_id"),
    CASES,
    ids=[c[0] for c in CASES],
)
def test_verdicts(
    name: str,
    changes: tuple[Change, ...],
    extra: dict[str, object],
    verdict: str,
    change_id: str | None,
    deploy_id: str | None,
) -> None:
    result = analyze(incident(*changes, **extra))  # type: ignore[arg-type]
    assert (result.verdict, result.change_id, result.deploy_id) == (
        verdict,
        change_id,
        deploy_id,
    ), result.reasons
    if verdict == "external":
        assert result.external_cause
        assert "no rollback" in result.remediation.lower()
    if verdict == "change":
        assert result.confidence in ("CONFIRMED", "LIKELY")
        assert change_id is not None and change_id in result.remediation
    else:
        assert result.confidence in ("LIKELY", "INCONCLUSIVE")


def test_a_commit_counts_when_another_service_deploy_ships_it() -> None:
    lib = commit(
        "11b00001",
        ONSET - 300,
        "platform-http: lower max_connections default",
        ("platform_http/db.py",),
        GUILTY_DIFF,
        service="platform-http",
    )
    ship = deploy("deploy-orders-50", ONSET - 4, ("11b00001",))
    result = analyze(incident(lib, ship, DECOY, DECOY_SHIP))
    assert (result.verdict, result.change_id, result.deploy_id) == (
        "change",
        "11b00001",
        "deploy-orders-50",
    )
    [suspect] = [s for s in result.suspects if s.change.change_id == "11b00001"]
    assert suspect.effective_at == at(ONSET - 4)


def test_decoys_are_listed_with_why_they_were_ruled_out() -> None:
    result = analyze(incident(GUILTY, SHIP, DECOY, DECOY_SHIP))
    reasons = {s.change.change_id: s.ruled_out for s in result.suspects}
    assert reasons["d3c0y000"] == "touches nothing the failure shows"
    assert reasons["deploy-orders-42"] == "a deploy: judged by the commits it ships"
    assert reasons["a1b2c3d4"] == ""


def test_several_unrelated_services_failing_together_is_external() -> None:
    services = ("orders", "search", "mail")
    series = tuple(errors(s, ONSET) for s in services)
    sigs = tuple(
        signature(s, f"upstream connect error from {s} node pool-7", ONSET + 0.5) for s in services
    )
    result = analyze(incident(DECOY, DECOY_SHIP, series=series, sigs=sigs))
    assert result.verdict == "external"
    assert set(result.affected_services) == set(services)


def test_traffic_surge_is_external() -> None:
    rps = MetricPoints(
        "http_requests_per_second",
        "orders",
        tuple((at(m), 100.0 if m < ONSET else 400.0) for m in range(0, FIRED + 1, 2)),
    )
    sigs = (signature("orders", "rejecting request: concurrency limit 512 reached", ONSET + 0.5),)
    result = analyze(incident(DECOY, DECOY_SHIP, metrics=(rps,), sigs=sigs))
    assert result.verdict == "external" and "traffic surge" in result.external_cause


def test_no_failure_at_all_is_unknown() -> None:
    quiet = (errors("orders", None),)
    result = analyze(incident(GUILTY, SHIP, series=quiet, sigs=()))
    assert result.verdict == "unknown" and result.onset is None and result.affected_services == ()


# --- signatures -------------------------------------------------------------------------------------

TEMPLATE_CASES = [
    ("timeout after 3000ms for order 8f2a9c77e1", "timeout after # for order #"),
    ("client: 10.0.2.7, request id req_c28985b359", "client: #.#.#.#, request id #"),
    ("no numbers here", "no numbers here"),
]


@pytest.mark.parametrize(("message", "template"), TEMPLATE_CASES)
def test_message_template(message: str, template: str) -> None:
    assert message_template(message) == template


def test_signature_terms_leave_out_service_names_and_generic_words() -> None:
    terms = signature_terms(
        ["orders-api: request failed: QueuePool limit reached"], ignore=["orders-api"]
    )
    assert "queuepool" in terms and "limit" in terms
    assert "orders" not in terms and "request" not in terms and "failed" not in terms


# --- properties --------------------------------------------------------------------------------------

DECOY_WORDS = st.sampled_from(
    ["README", "CODEOWNERS", "docs/setup.md", "web/footer.css", "k8s/labels.yaml", "CHANGELOG.md"]
)


@settings(max_examples=40, deadline=None)
@given(after=st.integers(min_value=2, max_value=60))
def test_a_change_after_the_onset_is_never_blamed(after: int) -> None:
    late = commit(
        "1a7e1a7e", ONSET + after, "Shrink the database pool again", ("orders/db.py",), GUILTY_DIFF
    )
    result = analyze(incident(late, DECOY, DECOY_SHIP))
    assert result.change_id != "1a7e1a7e"
    result = analyze(incident(GUILTY, SHIP, late))
    assert result.change_id == "a1b2c3d4"


@settings(max_examples=40, deadline=None)
@given(
    minute=st.integers(min_value=ONSET - 180, max_value=ONSET),
    path=DECOY_WORDS,
    with_guilty=st.booleans(),
)
def test_an_unrelated_decoy_never_takes_the_verdict(
    minute: int, path: str, with_guilty: bool
) -> None:
    base = (GUILTY, SHIP) if with_guilty else ()
    before = analyze(incident(*base))
    decoy = commit(
        "fa1e0001",
        minute,
        f"Update {path}",
        (path,),
        f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-old text\n+new text\n",
    )
    after = analyze(incident(*base, decoy, deploy("deploy-orders-99", minute, ("fa1e0001",))))
    assert after.change_id != "fa1e0001"
    assert (after.verdict, after.change_id) == (before.verdict, before.change_id)


def _shifted(evidence: Evidence, delta: timedelta) -> Evidence:
    return Evidence(
        alert=replace(evidence.alert, fired_at=evidence.alert.fired_at + delta),
        errors=tuple(
            replace(s, points=tuple((t + delta, v) for t, v in s.points)) for s in evidence.errors
        ),
        signatures=tuple(
            replace(s, first_seen=s.first_seen + delta, last_seen=s.last_seen + delta)
            for s in evidence.signatures
        ),
        metrics=tuple(
            replace(m, points=tuple((t + delta, v) for t, v in m.points)) for m in evidence.metrics
        ),
        changes=tuple(replace(c, timestamp=c.timestamp + delta) for c in evidence.changes),
        signals=evidence.signals,
        dependencies=evidence.dependencies,
        services=evidence.services,
    )


def _shape(result: Analysis) -> tuple[object, ...]:
    return (
        result.verdict,
        result.confidence,
        result.change_id,
        result.deploy_id,
        result.service,
        result.affected_services,
        result.external_cause,
    )


@settings(max_examples=30, deadline=None)
@given(
    minutes=st.integers(min_value=-60 * 24 * 30, max_value=60 * 24 * 30).map(lambda m: m - m % 5),
    case=st.sampled_from(CASES[:6]),
)
def test_shifting_every_timestamp_changes_nothing(
    minutes: int,
    case: tuple[str, tuple[Change, ...], dict[str, object], str, str | None, str | None],
) -> None:
    evidence = incident(*case[1], **case[2])  # type: ignore[arg-type]
    delta = timedelta(minutes=minutes)
    result, moved = analyze(evidence), analyze(_shifted(evidence, delta))
    assert _shape(moved) == _shape(result)
    assert (moved.onset is None and result.onset is None) or (moved.onset == result.onset + delta)  # type: ignore[operator]


# --- docs ---------------------------------------------------------------------------------------------


def test_an_undated_runbook_is_not_a_status_notice() -> None:
    runbook = ExternalSignal(
        "Paylane status page: how to read it",
        "If api.paylane.example returns 503 for authorizations, check the status page first.",
    )
    sigs = OUTSIDE_SIGNALS["status"]["sigs"]
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=sigs, signals=(runbook,)))  # type: ignore[arg-type]
    assert "status notice" not in result.external_cause
    stale = ExternalSignal(
        "Paylane status: Resolved - authorizations failing",
        "Mar 2, 2026 09:35 UTC - Resolved: elevated 503 errors on api.paylane.example",
    )
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=sigs, signals=(stale,)))  # type: ignore[arg-type]
    assert "status notice" not in result.external_cause
    fresh = analyze(incident(DECOY, DECOY_SHIP, **OUTSIDE_SIGNALS["status"]))  # type: ignore[arg-type]
    assert "status notice" in fresh.external_cause and fresh.confidence == "LIKELY"


# --- what a change does, stack frames, releases, outside causes, categories -----------------------

TIMEOUT_DIFF = """--- a/orders/client.py
+++ b/orders/client.py
@@ -3,2 +3,2 @@ def fetch_quote
-    timeout_ms = 5000
+    timeout_ms = 500
"""
HOST_DECOY_DIFF = """--- a/orders/quotes.py
+++ b/orders/quotes.py
@@ -1,2 +1,3 @@
+QUOTES_HOST = "api.quotes.example"
 def list_quotes():
"""
TIMEOUT_FAILURE = "GET https://api.quotes.example/v1/quote timed out after 500ms"


def test_the_change_that_alters_the_failing_mechanism_beats_shared_surface_words() -> None:
    mechanism = commit(
        "7100e0u7", ONSET - 40, "Tighten client", ("orders/client.py",), TIMEOUT_DIFF
    )
    surface = commit(
        "5urface1",
        ONSET - 20,
        "Quotes host api.quotes.example",
        ("orders/quotes.py",),
        HOST_DECOY_DIFF,
    )
    sigs = (signature("orders", TIMEOUT_FAILURE, ONSET + 0.5),)
    result = analyze(
        incident(
            mechanism,
            surface,
            deploy("deploy-orders-50", ONSET - 10, ("7100e0u7", "5urface1")),
            sigs=sigs,
        )
    )
    assert (result.verdict, result.change_id, result.category) == (
        "change",
        "7100e0u7",
        "code_defect",
    )
    best = next(s for s in result.suspects if s.change.change_id == "7100e0u7")
    assert "timeout change" in best.matched


def test_the_change_to_the_file_and_function_of_the_stack_is_named() -> None:
    stack = (
        'Traceback (most recent call last):\n  File "orders/pricing.py", line 88, in round_total'
    )
    sig = replace(signature("orders", "ValueError: cannot round total", ONSET + 0.5), detail=stack)
    located = commit(
        "57ac4f11",
        ONSET - 30,
        "Refactor totals",
        ("orders/pricing.py",),
        "@@ -80,3 +80,3 @@ def round_total(value):\n-    return round(value, 2)\n+    return round(value)\n",
    )
    other = commit(
        "0ther001", ONSET - 25, "Cannot round: add guard", ("web/cart.py",), "+# guard\n"
    )
    result = analyze(
        incident(
            located,
            other,
            deploy("deploy-orders-51", ONSET - 10, ("57ac4f11", "0ther001")),
            sigs=(sig,),
        )
    )
    assert result.change_id == "57ac4f11"
    matched = next(s for s in result.suspects if s.change.change_id == "57ac4f11").matched
    assert "file: pricing.py" in matched and "function: round_total" in matched


def test_a_library_commit_ships_with_the_failing_service_next_deploy() -> None:
    library = replace(GUILTY, service="db-lib", change_id="11b0c0de")
    result = analyze(incident(library, deploy("deploy-orders-60", ONSET - 5, ())))
    assert (result.change_id, result.deploy_id) == ("11b0c0de", "deploy-orders-60")


def test_changes_that_cannot_alter_what_runs_are_ruled_out() -> None:
    logging_only = commit(
        "1099ed01",
        ONSET - 5,
        "Log pool waits",
        ("orders/db.py",),
        "+    log.debug('max_connections %s', n)\n",
    )
    alert_rule = commit(
        "a1e27001",
        ONSET - 5,
        "Pool alert waits 15m",
        ("alerts/orders.yaml",),
        "-for: 10m\n+for: 15m\n",
    )
    result = analyze(
        incident(
            logging_only,
            alert_rule,
            deploy("deploy-orders-61", ONSET - 2, ("1099ed01", "a1e27001")),
        )
    )
    assert result.verdict != "change"
    assert {s.change.change_id: s.ruled_out for s in result.suspects}["1099ed01"].startswith(
        "changes only"
    )


def test_a_change_that_only_renames_a_variable_in_the_stack_function_is_ruled_out() -> None:
    stack = 'File "orders/pricing.py", line 88, in round_total'
    sig = replace(signature("orders", FAILURE, ONSET + 0.5), detail=stack)
    renamed = commit(
        "4e7a3e01",
        ONSET - 30,
        "Name the subtotal in round_total",
        ("orders/pricing.py",),
        "@@ -80,3 +80,3 @@ def round_total(value):\n-    s = sum(lines)\n-    return s\n"
        "+    subtotal = sum(lines)\n+    return subtotal\n",
    )
    result = analyze(
        incident(
            GUILTY,
            renamed,
            deploy("deploy-orders-52", ONSET - 10, ("a1b2c3d4", "4e7a3e01")),
            sigs=(sig,),
        )
    )
    assert result.change_id == "a1b2c3d4"
    ruled = {s.change.change_id: s.ruled_out for s in result.suspects}
    assert ruled["4e7a3e01"].startswith("only renames")


def test_a_provider_notice_dated_in_iso_8601_is_an_outside_cause() -> None:
    notice = ExternalSignal(
        "Paylane status: Degraded performance",
        "2026-03-14T09:31:00Z Investigating - elevated 503 errors on api.paylane.example /v2/authorizations",
    )
    sigs = (
        signature(
            "orders", "PaylaneAPIError: 503 from api.paylane.example/v2/authorizations", ONSET + 0.5
        ),
    )
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=sigs, signals=(notice,)))
    assert (result.verdict, result.category) == ("external", "dependency_failure")
    assert {h.name for h in result.hypotheses if not h.supported} >= {"traffic surge"}


def test_a_failure_only_in_metrics_is_found_and_its_hypothesis_supported() -> None:
    lag = MetricPoints(
        "replication_lag_seconds",
        "orders-db",
        tuple((at(4 * i), 2.0 if 4 * i < ONSET else 120.0) for i in range(FIRED // 4 + 1)),
    )
    quiet = (errors("orders", None),)
    result = analyze(incident(DECOY, DECOY_SHIP, series=quiet, sigs=(), metrics=(lag,)))
    assert result.onset is not None and result.service == "orders-db"
    assert any(o.basis == "metric" for o in result.onsets)
    assert result.category == "resource_exhaustion" and result.change_id is None


def test_a_handful_of_fatal_configuration_errors_is_a_failure() -> None:
    fatal = ErrorSignature(
        "orders",
        "FATAL: config key db.pool.size is not set",
        3,
        at(ONSET + 0.5),
        at(ONSET + 2),
        "CRITICAL",
    )
    flip = Change(
        "cfg-orders-1",
        "orders",
        "config",
        at(ONSET - 3),
        "Rename db.pool keys",
        ("config/orders.yaml",),
        "-db.pool.size: 20\n+db.pool.max: 20\n",
    )
    result = analyze(incident(flip, series=(errors("orders", None),), sigs=(fatal,)))
    assert (result.verdict, result.change_id, result.category) == (
        "change",
        "cfg-orders-1",
        "configuration_error",
    )


def test_a_failure_that_ended_long_before_the_alert_is_healthy() -> None:
    blip = (signature("orders", FAILURE, ONSET - 120, count=30, last=ONSET - 110),)
    result = analyze(incident(DECOY, DECOY_SHIP, series=(errors("orders", None),), sigs=blip))
    assert (result.verdict, result.change_id, result.category) == ("unknown", None, "healthy")


def test_no_failure_at_all_is_healthy() -> None:
    result = analyze(incident(GUILTY, SHIP, series=(errors("orders", None),), sigs=()))
    assert result.category == "healthy"


def test_the_four_stages_compose_to_analyze() -> None:
    from sleuth_core.rca.engine import decide, find_episode, find_onsets, rank_suspects

    evidence = incident(GUILTY, SHIP, DECOY, DECOY_SHIP)
    stage = find_onsets(evidence)
    assert set(stage.onsets) == {"orders"}
    episode = find_episode(evidence, stage)
    assert episode is not None and episode.origin == "orders" and episode.affected == ("orders",)
    suspects = rank_suspects(evidence, stage, episode)
    assert suspects[0].change.change_id == "a1b2c3d4" and not suspects[0].ruled_out
    assert decide(evidence, stage, episode, suspects) == analyze(evidence)


# --- categories from the kind of evidence ---------------------------------------------------------

VALUES_DIFF = """--- a/helm/orders/values-prod.yaml
+++ b/helm/orders/values-prod.yaml
@@ -3,2 +3,2 @@
-  DB_POOL_MAX: "50"
+  DB_POOL_MAX: "5"
"""


def test_a_commit_that_only_sets_configuration_values_is_a_configuration_error() -> None:
    values = commit(
        "va1ue5aa",
        ONSET - 40,
        "Smaller pool behind the bouncer",
        ("helm/orders/values-prod.yaml", "CHANGELOG.md"),
        VALUES_DIFF,
    )
    result = analyze(incident(values, deploy("deploy-orders-44", ONSET - 2, ("va1ue5aa",))))
    assert (result.verdict, result.change_id, result.category) == (
        "change",
        "va1ue5aa",
        "configuration_error",
    )
    code = replace(values, files=("orders/db.py", "helm/orders/values-prod.yaml"))
    result = analyze(incident(code, deploy("deploy-orders-44", ONSET - 2, ("va1ue5aa",))))
    assert result.category == "code_defect"


def test_an_outside_host_refusing_is_a_dependency_failure_without_a_notice() -> None:
    down = (
        signature(
            "orders",
            "send to api.rxnet.example failed: connect: connection refused",
            ONSET + 0.5,
        ),
    )
    names_host = commit(
        "h05t0001",
        ONSET - 15,
        "Cache api.rxnet.example directory pages",
        ("orders/directory.py",),
        "--- a/orders/directory.py\n+++ b/orders/directory.py\n@@ -1 +1 @@\n-    return rxnet.directory(zip)\n+    return cache.get_or_load(zip, rxnet.directory)\n",
    )
    result = analyze(
        incident(names_host, deploy("deploy-orders-45", ONSET - 10, ("h05t0001",)), sigs=down)
    )
    assert (result.verdict, result.change_id, result.category) == (
        "external",
        None,
        "dependency_failure",
    )
    assert "api.rxnet.example" in result.external_cause


def test_free_space_falling_without_errors_is_resource_exhaustion() -> None:
    free = MetricPoints(
        "node_filesystem_free_bytes",
        "search",
        tuple((at(4 * i), 180e9 if 4 * i < ONSET - 60 else 9e9) for i in range(FIRED // 4 + 1)),
    )
    quiet = (errors("orders", None),)
    result = analyze(incident(DECOY, DECOY_SHIP, series=quiet, sigs=(), metrics=(free,)))
    assert result.service == "search" and result.change_id is None
    assert result.category == "resource_exhaustion"


HL7_DIFF = """--- a/orders/dates.py
+++ b/orders/dates.py
@@ -1 +1 @@
-STAMP_FORMAT = "%Y%m%d%H%M%S"
+STAMP_FORMAT = "%Y%m%d%H%M%S%z"
"""
REJECTED = "rejected message 4471 from FAC-19: birth date '31/10/1984' could not be parsed"


@pytest.mark.parametrize(
    ("shipped", "verdict", "category"),
    [(ONSET - 180, "external", "data_quality"), (ONSET - 3, "change", "code_defect")],
)
def test_rejected_input_is_bad_data_unless_a_parse_change_just_shipped(
    shipped: float, verdict: str, category: str
) -> None:
    parse = commit(
        "pa45e001",
        shipped - 10,
        "Parse date stamps with their zone",
        ("orders/dates.py",),
        HL7_DIFF,
    )
    sigs = (signature("orders", REJECTED, ONSET + 0.5, count=120),)
    result = analyze(incident(parse, deploy("deploy-orders-46", shipped, ("pa45e001",)), sigs=sigs))
    assert (result.verdict, result.category) == (verdict, category)


@pytest.mark.parametrize(
    ("event", "category"),
    [
        ("Node ip-10-8-3-41 status is now: NodeNotReady", "infrastructure"),
        (
            "Container orders in pod orders-5c9d was OOMKilled (exit code 137), memory limit 2Gi",
            "resource_exhaustion",
        ),
    ],
)
def test_node_trouble_is_infrastructure_and_a_container_oom_kill_is_exhaustion(
    event: str, category: str
) -> None:
    sigs = (
        signature("orders", "order worker lost: exited unexpectedly", ONSET + 0.5, count=40),
        signature("orders", event, ONSET + 0.2, count=4),
    )
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=sigs))
    assert (result.verdict, result.category) == ("external", category)


def test_a_flag_switched_as_the_errors_began_beats_a_change_the_service_ran_well_with() -> None:
    controller = commit(
        "c0ntr011",
        ONSET - 25,
        "Bill preview shows the tariff name",
        ("billing/preview_controller.py",),
        "--- a/billing/preview_controller.py\n+++ b/billing/preview_controller.py\n@@ -4 +4 @@ def preview\n-    return Preview(bill.total)\n+    return Preview(bill.total, tariff.name)\n",
    )
    flag = Change(
        "flag-pricing.v2_rates-1",
        "tariffs",
        "flag",
        at(ONSET - 1),
        "Serve rates from the v2 rate table",
        ("flags/pricing.v2_rates.yaml",),
        "-enabled: false\n+enabled: true\n",
    )
    sigs = (
        signature(
            "orders",
            "bill preview failed: ArithmeticException in rate math (preview_controller.py line 4)",
            ONSET + 0.5,
        ),
    )
    evidence = incident(
        controller,
        deploy("deploy-orders-47", ONSET - 20, ("c0ntr011",)),
        flag,
        sigs=sigs,
        dependencies=(("orders", "tariffs"),),
    )
    result = analyze(evidence)
    assert (result.verdict, result.change_id, result.category) == (
        "change",
        "flag-pricing.v2_rates-1",
        "configuration_error",
    )


@pytest.mark.parametrize(
    ("message", "category"),
    [
        (
            "render failed: AttributeError: 'NoneType' object has no attribute 'total'",
            "code_defect",
        ),
        ("head-end ack for batch 4471 failed", "unknown"),
    ],
)
def test_an_unexplained_failure_takes_its_category_from_what_it_shows(
    message: str, category: str
) -> None:
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=(signature("orders", message, ONSET + 0.5),)))
    assert (result.verdict, result.change_id, result.category) == ("unknown", None, category)


def test_a_surge_of_readings_received_is_external_resource_exhaustion() -> None:
    received = MetricPoints(
        "readings_received_per_second",
        "orders",
        tuple((at(4 * i), 900.0 if 4 * i < ONSET else 5000.0) for i in range(FIRED // 4 + 1)),
    )
    slow = (signature("orders", "copy of readings took 4100ms (slow write)", ONSET + 0.5),)
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=slow, metrics=(received,)))
    assert (result.verdict, result.category) == ("external", "resource_exhaustion")
    assert "readings_received_per_second" in result.external_cause


@pytest.mark.parametrize(
    ("added", "verdict"),
    [
        ('    req.header("Idempotency-Key", order.id)', "external"),
        ("    req.timeout_ms(50)  # was 5000", "change"),
    ],
)
def test_a_provider_failure_outweighs_a_change_to_its_client_unless_it_alters_the_mechanism(
    added: str, verdict: str
) -> None:
    # The client's file is in every stack of the provider's failure: only a change altering the
    # failing mechanism (here a timeout) stands against the provider's own notice.
    stack = 'Traceback (most recent call last):\n  File "orders/paylane_client.py", line 41, in authorize'
    sig = replace(
        signature(
            "orders",
            "PaylaneAPIError: 504 Gateway Timeout from api.paylane.example/v2/authorizations",
            ONSET + 0.5,
        ),
        detail=stack,
    )
    client = commit(
        "c11e0001",
        ONSET - 30,
        "paylane: authorizations request",
        ("orders/paylane_client.py",),
        f'--- a/orders/paylane_client.py\n+++ b/orders/paylane_client.py\n@@ -40,2 +40,3 @@ def authorize(order):\n     req = post("/v2/authorizations")\n+{added}\n',
    )
    notice = ExternalSignal(
        "Paylane status: Elevated errors on authorizations",
        "2026-03-14T09:31:00Z Investigating - elevated 504 errors on api.paylane.example /v2/authorizations",
    )
    evidence = incident(client, deploy("deploy-orders-70", ONSET - 15, ("c11e0001",)), sigs=(sig,))
    result = analyze(replace(evidence, signals=(notice,)))
    assert result.verdict == verdict
    assert result.category == ("dependency_failure" if verdict == "external" else "code_defect")
    # Without a notice, the provider's host answering 504 in most messages says the same.
    assert analyze(evidence).verdict == verdict


def test_a_store_full_at_its_memory_limit_with_eviction_off_is_exhaustion() -> None:
    full = replace(
        signature("orders", "POST /orders 500: session store write failed", ONSET + 0.5),
        detail="ReplyError: OOM command not allowed when used memory > 'maxmemory'.",
    )
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=(full,)))
    assert (result.verdict, result.change_id, result.category) == (
        "external",
        None,
        "resource_exhaustion",
    )
    assert "memory limit" in result.external_cause


def _surge_with_flag(summary: str) -> Analysis:
    requests = MetricPoints(
        "http_requests_per_second",
        "orders",
        tuple((at(4 * i), 50.0 if 4 * i < ONSET else 120.0) for i in range(FIRED // 4 + 1)),
    )
    flag = Change(
        "flag-orders-dispatch-1",
        "orders",
        "flag",
        at(ONSET - 3),
        summary,
        ("flags/orders.dispatch.yaml",),
        "-enabled: false\n+enabled: true\n",
    )
    queue_full = signature(
        "orders", "dispatch command dropped: downlink queue full for gateway gw-7", ONSET + 0.5
    )
    return analyze(incident(flag, sigs=(queue_full,), metrics=(requests,)))


@pytest.mark.parametrize(
    ("summary", "verdict", "category"),
    [
        ("Send every dispatch command of a batch at once", "change", "configuration_error"),
        ("Dispatch command labels in the new wording", "external", "resource_exhaustion"),
    ],
)
def test_a_surge_after_a_flag_that_sends_its_work_at_once_is_the_flag(
    summary: str, verdict: str, category: str
) -> None:
    result = _surge_with_flag(summary)
    assert (result.verdict, result.category) == (verdict, category)


def test_a_field_the_reader_finds_missing_blames_the_producer_that_omits_it() -> None:
    # The reader and the producer share no known call (the data travels through a queue).
    stack = 'Traceback (most recent call last):\n  File "/srv/orders/rows.py", line 31, in to_row\n    battery=int(msg["battery_mv"]),\nKeyError: \'battery_mv\''
    sig = replace(
        signature("orders", "chunk failed on readings partition 6; retrying", ONSET + 0.5),
        detail=stack,
    )
    omit = Change(
        "0m1t0001",
        "gateway",
        "commit",
        at(ONSET - 20),
        "Tidy Reading JSON tags, drop zero values from the wire",
        ("internal/model/reading.go",),
        '--- a/internal/model/reading.go\n+++ b/internal/model/reading.go\n@@ -13,2 +13,2 @@\n-\tBatteryMV int `json:"battery_mv"`\n+\tBatteryMV int `json:"battery_mv,omitempty"`\n',
    )
    result = analyze(
        incident(omit, deploy("deploy-gateway-9", ONSET - 5, ("0m1t0001",), "gateway"), sigs=(sig,))
    )
    assert (result.verdict, result.change_id, result.category) == (
        "change",
        "0m1t0001",
        "code_defect",
    )


def test_a_slowdown_while_a_scheduled_job_runs_with_nothing_failing_is_healthy() -> None:
    def series(name: str, before: float, after: float) -> MetricPoints:
        return MetricPoints(
            name,
            "orders",
            tuple((at(4 * i), before if 4 * i < ONSET else after) for i in range(FIRED // 4 + 1)),
        )

    slow = ErrorSignature(
        "orders", "slow request POST /orders took 2751ms", 14, at(ONSET + 0.5), at(FIRED), "WARNING"
    )
    latency = series("http_request_duration_p99_ms", 180.0, 2800.0)
    errors_ratio = series("http_error_ratio", 0.0, 0.0)
    job = series("night_audit_running", 0.0, 1.0)
    quiet = (errors("orders", None),)
    evidence = incident(
        DECOY, DECOY_SHIP, series=quiet, sigs=(slow,), metrics=(latency, errors_ratio)
    )
    assert analyze(evidence).category != "healthy"  # without the job, a slowdown is a failure
    result = analyze(replace(evidence, metrics=(latency, errors_ratio, job)))
    assert (result.verdict, result.change_id, result.category) == ("unknown", None, "healthy")


def test_a_job_killed_while_processing_invalid_input_is_bad_data() -> None:
    detail = "shapely.errors.GEOSException: TopologyException: Input geom 0 is invalid: Self-intersection"
    sigs = (
        replace(
            signature(
                "orders",
                "run job-44 failed (attempt 4/5): TopologyException",
                ONSET + 0.5,
                count=40,
            ),
            detail=detail,
        ),
        replace(
            signature(
                "orders",
                "run job-44 failed: worker exited with code 137 (OOMKilled)",
                ONSET + 0.6,
                count=40,
            ),
            detail=detail,
        ),
    )
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=sigs))
    assert (result.verdict, result.category) == ("external", "data_quality")


def test_an_unexplained_failure_reads_what_ran_out_from_the_exception_it_carries() -> None:
    sig = replace(
        signature("orders", "order export failed for batch 4471", ONSET + 0.5),
        detail='  File "orders/export.py", line 12, in export\n    conn = pool.get()\nPoolError: connection pool exhausted',
    )
    bare = analyze(incident(DECOY, DECOY_SHIP, sigs=(replace(sig, detail=""),)))
    assert bare.category == "unknown"
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=(sig,)))
    assert (result.verdict, result.change_id, result.category) == (
        "unknown",
        None,
        "resource_exhaustion",
    )


def test_a_resource_whose_use_reached_its_limit_series_is_exhaustion() -> None:
    def series(name: str, value: float) -> MetricPoints:
        return MetricPoints(
            name, "session-store", tuple((at(4 * i), value) for i in range(FIRED // 4 + 1))
        )

    sigs = (signature("orders", "POST /login 500: session write failed", ONSET + 0.5),)
    used = series("store_memory_used_bytes", 6.43e9)
    evidence = incident(
        DECOY, DECOY_SHIP, sigs=sigs, metrics=(used, series("store_memory_max_bytes", 12.8e9))
    )
    assert analyze(evidence).category == "unknown"  # half full: nothing says it ran out
    result = analyze(replace(evidence, metrics=(used, series("store_memory_max_bytes", 6.44e9))))
    assert (result.verdict, result.change_id, result.category) == (
        "external",
        None,
        "resource_exhaustion",
    )
    assert "store_memory_used_bytes of session-store reached" in result.external_cause


def test_demand_rising_only_on_what_the_failing_service_calls_is_its_own_amplification() -> None:
    # The first failing service retries into the service it calls: that service's requests rise,
    # its own do not. Outside load would raise the caller's demand too.
    def rate(service: str, surge: bool) -> MetricPoints:
        return MetricPoints(
            "http_requests_per_second",
            service,
            tuple(
                (at(4 * i), 900.0 if not surge or 4 * i < ONSET + 5 else 2500.0)
                for i in range(FIRED // 4 + 1)
            ),
        )

    retries = commit(
        "r3tr1e50",
        ONSET - 30,
        "Raise default retry attempts for transient 5xx",
        ("orders/retry.py",),
        "--- a/orders/retry.py\n+++ b/orders/retry.py\n@@ -1 +1 @@\n-MAX_RETRY_ATTEMPTS = 2\n"
        "+MAX_RETRY_ATTEMPTS = 8\n",
    )
    sigs = (signature("orders", "ledger call failed after 8 retry attempts: 503", ONSET + 0.5),)
    evidence = incident(
        retries,
        deploy("deploy-orders-50", ONSET - 10, ("r3tr1e50",)),
        sigs=sigs,
        metrics=(rate("orders", False), rate("ledger", True)),
        dependencies=(("orders", "ledger"),),
    )
    result = analyze(evidence)
    assert (result.verdict, result.change_id) == ("change", "r3tr1e50")
    # The same rise on the caller as well is demand from outside.
    surge = replace(evidence, metrics=(rate("orders", True), rate("ledger", True)), changes=())
    assert analyze(surge).verdict == "external"


def test_a_failure_quiet_since_well_before_the_investigation_is_healthy_unless_explained() -> None:
    # Errors from ONSET to ONSET + 4 minutes, the alert a minute later, the investigation an hour
    # after that with no error since: the alert's condition no longer holds.
    blip = (
        signature("orders", "checkout failed: upstream reset", ONSET, count=40, last=ONSET + 4),
    )
    # The error counts say the same as the messages: 40 errors in the bucket of the onset only.
    rate = errors("orders", ONSET)
    rate = replace(rate, points=tuple((t, v if t <= at(ONSET) else 0.0) for t, v in rate.points))
    evidence = replace(
        incident(DECOY, DECOY_SHIP, sigs=blip, series=(rate,)),
        alert=Alert("Orders error rate high", "orders", at(ONSET + 5)),
    )
    later = replace(evidence, until=at(ONSET + 65))
    assert analyze(later).category == "healthy"
    assert analyze(evidence).category != "healthy"  # looked at when it fired: still failing
    # Still failing after the look-back: not over.
    assert analyze(replace(later, errors_after=frozenset({"orders"}))).category != "healthy"


def test_the_very_same_record_failing_again_and_again_is_a_poison_record() -> None:
    message = "panic while rating record R-20270315-000481 offset=18822731: index out of range"
    poison = (replace(signature("orders", message, ONSET + 0.5, count=120), same=True),)
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=poison))
    assert (result.verdict, result.category) == ("external", "data_quality")
    # The same template with other ids each time is a failing code path, not one record.
    varied = (replace(poison[0], same=False),)
    assert analyze(incident(DECOY, DECOY_SHIP, sigs=varied)).category != "data_quality"


def test_a_retuned_setting_alters_what_its_name_says_whatever_the_commit_message() -> None:
    stale = "StaleRateError: cached rate for BAR older than the quote (cache age 5400s)"
    ttl = commit(
        "77a1c0de",
        ONSET - 30,
        "CHG-4821",
        ("internal/rates/bar.go",),
        "-\tquoteTTL = 60 * time.Second\n+\tquoteTTL = 6 * time.Hour\n",
    )
    result = analyze(
        incident(
            ttl,
            DECOY,
            deploy("deploy-orders-70", ONSET - 10, ("77a1c0de", "d3c0y000")),
            sigs=(signature("orders", stale, ONSET + 0.5),),
        )
    )
    suspect = next(s for s in result.suspects if s.change.change_id == "77a1c0de")
    assert "cache change" in suspect.matched
    assert result.change_id == "77a1c0de"


def test_a_commit_that_only_adds_a_timer_is_ruled_out_and_one_retuning_a_timeout_is_not() -> None:
    timer_diff = (
        "@@ -4,3 +4,5 @@ fun redeem(pass: Pass): Redemption {\n"
        "+    val timer = Timer.start(registry)\n"
        "     val response = http.post(url) { setBody(pass) }\n"
        '+    timer.stop(registry.timer("partner.redeem", "site", pass.site))\n'
    )
    timed = commit("71e3e001", ONSET - 30, "Redeem latency histogram", ("p/Client.kt",), timer_diff)
    retuned = commit(
        "71e3e002",
        ONSET - 30,
        "Redeem latency histogram",
        ("p/Client.kt",),
        timer_diff + "-    TIMEOUT_MS = 4000\n+    TIMEOUT_MS = 400\n",
    )
    ruled = {
        s.change.change_id: s.ruled_out
        for s in analyze(
            incident(
                timed, retuned, deploy("deploy-orders-70", ONSET - 10, ("71e3e001", "71e3e002"))
            )
        ).suspects
    }
    assert ruled["71e3e001"].startswith("changes only")
    assert not ruled["71e3e002"].startswith("changes only")


def test_an_oom_kill_yields_to_the_change_in_the_stack_not_to_one_sharing_the_backlog_words() -> (
    None
):
    stack = 'Traceback (most recent call last):\n  File "orders/splitter.py", line 40, in segments'
    oom = replace(
        signature("orders", "MemoryError: cannot allocate while splitting the batch", ONSET + 0.5),
        detail=stack,
    )
    lag = signature(
        "orders", "inbound consumer lag: 120 messages waiting on orders.inbound", ONSET + 2
    )
    killed = signature(
        "kubelet", "Container orders in pod orders-5c9d was OOMKilled (exit code 137)", ONSET + 1, 6
    )
    located = commit(
        "5p11t001",
        ONSET - 300,
        "Splitter reads the whole batch at once",
        ("orders/splitter.py",),
        "@@ -38,3 +38,3 @@ def segments(stream):\n-    return iter_segments(stream)\n"
        "+    return list(stream.read().split(SEP))\n",
    )
    consumers = Change(
        "cfg-orders-1",
        "orders",
        "config",
        at(ONSET - 30),
        "orders: 6 inbound consumers on orders.inbound",
        ("deploy/orders/app.yaml",),
        "-  inbound_consumers: 4\n+  inbound_consumers: 6\n",
    )
    evidence = incident(
        located,
        deploy("deploy-orders-71", ONSET - 280, ("5p11t001",)),
        consumers,
        sigs=(oom, lag, killed),
    )
    result = analyze(evidence)
    assert result.change_id == "5p11t001"
    # Without the stack the change is only words, and the kill is the cause.
    bare = analyze(replace(evidence, signatures=(replace(oom, detail=""), lag, killed)))
    assert bare.change_id != "5p11t001"


@pytest.mark.parametrize(
    ("monitor", "verdict"),
    [
        ("Port xe-0/0/12 (core uplink) on sw-core-01 is down: ifOperStatus down", "external"),
        ("Port xe-0/0/12 (core uplink) on sw-core-01 answered a poll in 40 ms", "change"),
    ],
)
def test_a_network_link_down_as_connections_are_lost_is_the_platform(
    monitor: str, verdict: str
) -> None:
    sigs = (
        signature("orders", "broker reconnect failed site=north: keepalive timeout", ONSET + 0.5),
        signature("netmon", monitor, ONSET, count=1),
    )
    settings_change = Change(
        "cfg-orders-2",
        "orders",
        "config",
        at(ONSET - 45),
        "north site: broker reconnect keepalive for the new gates",
        ("deploy/orders/sites.yaml",),
        "-  north_gates: 19\n+  north_gates: 21\n",
    )
    result = analyze(incident(settings_change, sigs=sigs))
    assert result.verdict == verdict
    if verdict == "external":
        assert result.category == "infrastructure"


def test_a_disk_nearly_full_and_a_value_failing_its_format_are_named() -> None:
    full = signature(
        "orders", "order writes blocked: node-2 disk 96% used, index read-only", ONSET + 0.5
    )
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=(full,)))
    assert result.category == "resource_exhaustion"
    bad = signature(
        "orders", "export of order 7731 rejected: postcode 0X1 fails format NNNNN", ONSET + 0.5
    )
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=(bad,)))
    assert result.category == "data_quality"


def test_a_failure_whose_old_message_goes_on_has_not_ended() -> None:
    # A provider's certificate expired at night: its error came now and then at low traffic,
    # then at every request from the onset. Two stray new messages stop early; the failure
    # does not, and the certificate error is the cause (the provider's, named in the exception).
    stack = (
        "RequestException: cURL error 60: SSL certificate problem: certificate has expired "
        "for https://claims.insurer.example/v2/claims"
    )
    sigs = (
        replace(
            signature("orders", "claim submission failed", ONSET - 300, count=120),
            detail=stack,
        ),
        signature("orders", "receipt printer out of paper", ONSET + 1, count=1, last=ONSET + 1),
        signature("orders", "courier webhook 410 Gone", ONSET + 4, count=1, last=ONSET + 4),
    )
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=sigs))
    assert (result.verdict, result.category) == ("external", "dependency_failure")
    assert "claims.insurer.example" in result.external_cause


def test_an_unexplained_failure_right_after_a_release_takes_the_release_category() -> None:
    # No change ties to the failure strongly enough to name it, nothing outside moved, and a
    # release reached the failing service minutes before the onset: a code defect.
    tweak = commit(
        "t0ta1500",
        ONSET - 30,
        "Sum register totals per line",
        ("orders/totals.py",),
        "--- a/orders/totals.py\n+++ b/orders/totals.py\n@@ -1 +1 @@\n"
        "-    return sum(line.total for line in lines)\n"
        "+    return sum(line.total // line.units for line in lines)\n",
    )
    sigs = (signature("orders", "order totals mismatch for register 31", ONSET + 0.5),)
    soon = analyze(incident(tweak, deploy("deploy-orders-44", ONSET - 5, ("t0ta1500",)), sigs=sigs))
    assert (soon.verdict, soon.change_id, soon.category) == ("unknown", None, "code_defect")
    # The same release an hour before the onset says nothing about what kind of failure it is.
    late = analyze(
        incident(tweak, deploy("deploy-orders-44", ONSET - 60, ("t0ta1500",)), sigs=sigs)
    )
    assert (late.verdict, late.category) == ("unknown", "unknown")


@pytest.mark.parametrize(
    ("message", "same", "category"),
    [
        # One item rejected again and again, ids and values included: bad input.
        ("import of batch 7 rejected: reading 1842.2 below previous 1843.1", True, "data_quality"),
        # The same words for different items are not one item.
        ("import of batch 7 rejected: reading 1842.2 below previous 1843.1", False, "unknown"),
        # A device not answering, again and again, is not bad input.
        ("poll of unit 14 timed out after 10s", True, "unknown"),
    ],
)
def test_an_unexplained_failure_reads_its_category_from_what_its_errors_say(
    message: str, same: bool, category: str
) -> None:
    sig = replace(signature("orders", message, ONSET + 0.5, count=10), same=same)
    result = analyze(incident(DECOY, DECOY_SHIP, sigs=(sig,)))
    assert (result.verdict, result.change_id, result.category) == ("unknown", None, category)
