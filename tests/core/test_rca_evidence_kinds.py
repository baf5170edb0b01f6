"""Unit tests for the kinds of evidence that tie a suspect to a failure (``Suspect.kinds`` and
``Suspect.alters``) and for the verdict reading them: words, a mechanism, the stack's code, time;
and an outside sign that is the change's own consequence."""

# ruff: noqa: E501  (the case tables read best one case per line)

from __future__ import annotations

from dataclasses import replace

import pytest
from test_rca import (
    DECOY,
    DECOY_SHIP,
    FAILURE,
    FIRED,
    GUILTY,
    ONSET,
    SHIP,
    at,
    commit,
    deploy,
    errors,
    incident,
    signature,
)

from sleuth_core.rca import Change, Evidence, MetricPoints, analyze

STACK = 'Traceback (most recent call last):\n  File "orders/pricing.py", line 88, in round_total'
ROUNDING = commit(
    "57ac4f11",
    ONSET - 30,
    "Refactor totals",
    ("orders/pricing.py",),
    "@@ -80,3 +80,3 @@ def round_total(value):\n-    return round(value, 2)\n+    return round(value)\n",
)
COPY = commit(
    "c0py0001",
    ONSET - 30,
    "Exhausted banner copy",
    ("web/banner.py",),
    "@@ -1 +1 @@\n-TEXT = 'Busy'\n+TEXT = 'Exhausted, come back later'\n",
)
FLAG = Change(
    "flag-orders.bulk-1",
    "orders",
    "flag",
    at(ONSET - 2),
    "orders: bulk pool connections on",
    ("flags/orders.bulk.yaml",),
    "-enabled: false\n+enabled: true\n",
)
#: The kubelet's record of a container killed at its memory limit: an outside sign of exhaustion.
KILLED = signature(
    "kubelet",
    "Container orders in pod orders-5c9d was OOMKilled (exit code 137), memory limit 2Gi",
    ONSET + 0.2,
    count=4,
)


def kinds_of(evidence: Evidence, change_id: str) -> set[str]:
    suspect = next(s for s in analyze(evidence).suspects if s.change.change_id == change_id)
    return set(suspect.kinds)


@pytest.mark.parametrize(
    ("case", "evidence", "change_id", "kinds"),
    [
        (
            "a diff that shrinks the pool the failure exhausts",
            incident(GUILTY, SHIP),
            "a1b2c3d4",
            {"words", "mechanism"},
        ),
        (
            "a copy change sharing the failure's words",
            incident(COPY, deploy("deploy-orders-9", ONSET - 20, ("c0py0001",))),
            "c0py0001",
            {"words"},
        ),
        (
            "the function the stack names",
            incident(
                ROUNDING,
                deploy("deploy-orders-51", ONSET - 10, ("57ac4f11",)),
                sigs=(
                    replace(
                        signature("orders", "ValueError: cannot round total", ONSET + 0.5),
                        detail=STACK,
                    ),
                ),
            ),
            "57ac4f11",
            {"words", "code"},
        ),
        (
            "a flag switched minutes before the onset",
            incident(FLAG),
            "flag-orders.bulk-1",
            {"words", "time"},
        ),
        (
            "a change sharing nothing",
            incident(
                replace(COPY, summary="Banner", diff="-TEXT = 'a'\n+TEXT = 'b'\n"),
                deploy("deploy-orders-9", ONSET - 20, ("c0py0001",)),
            ),
            "c0py0001",
            set(),
        ),
    ],
)
def test_each_kind_of_evidence_is_named_on_the_suspect(
    case: str, evidence: Evidence, change_id: str, kinds: set[str]
) -> None:
    assert kinds_of(evidence, change_id) >= kinds, case
    if kinds <= {"words"}:
        assert kinds_of(evidence, change_id) == kinds, case


def test_the_mechanisms_a_suspect_alters_are_those_the_failure_shows() -> None:
    suspect = next(
        s for s in analyze(incident(GUILTY, SHIP)).suspects if s.change.change_id == "a1b2c3d4"
    )
    assert "pool" in suspect.alters
    assert "memory" not in suspect.alters
    assert FAILURE.startswith("PoolTimeoutError")  # the failure shows an exhausted pool


def test_a_link_shared_with_the_failure_is_words_not_the_stack() -> None:
    """A URL term (it holds a colon) shared by a commit and the errors once read as a stack frame
    matched, so a commit adding a runbook link outweighed a container killed at its memory limit."""
    url = "https://wiki.svc.cluster.local/orders/intake-stalls"
    stalled = signature(
        "orders", f"IntakeStalled: intake stopped, runbook {url}", ONSET + 0.5, count=40
    )
    link = commit(
        "11nk0001",
        ONSET - 60,
        f"Runbook link {url} in IntakeStalled errors",
        ("orders/intake.py",),
        f"--- a/orders/intake.py\n+++ b/orders/intake.py\n@@ -8 +8 @@\n-RUNBOOK = ''\n+RUNBOOK = '{url}'\n",
    )
    evidence = incident(
        link, deploy("deploy-orders-81", ONSET - 40, ("11nk0001",)), sigs=(stalled, KILLED)
    )
    result = analyze(evidence)
    suspect = next(s for s in result.suspects if s.change.change_id == "11nk0001")
    assert url in suspect.matched
    assert "code" not in suspect.kinds
    assert (result.verdict, result.change_id, result.category) == (
        "external",
        None,
        "resource_exhaustion",
    )


@pytest.mark.parametrize(
    ("diff", "verdict", "change_id"),
    [
        # The buffer raised to 4 GiB: the kill at the memory limit is how the change failed.
        ("-RECEIVE_BUFFER_MB = 8\n+RECEIVE_BUFFER_MB = 4096\n", "change", "b0ff3r01"),
        # A batch label renamed: it alters no memory; the kill stands as the cause.
        ("-BATCH_LABEL = 'intake'\n+BATCH_LABEL = 'intake-v2'\n", "external", None),
    ],
)
def test_an_exhaustion_the_change_itself_explains_does_not_overrule_it(
    diff: str, verdict: str, change_id: str | None
) -> None:
    worker = signature(
        "orders", "intake stopped: process exited while reading a batch", ONSET + 0.5, count=40
    )
    # An outside host in a few messages adds to the outside signs: together they are strong.
    vendor = signature(
        "orders", "GET https://api.vendor-rates.com/v1/rates answered slowly", ONSET + 0.5, count=3
    )
    buffer = commit(
        "b0ff3r01",
        ONSET - 60,
        "Intake settings for big batches",
        ("orders/intake.py",),
        f"--- a/orders/intake.py\n+++ b/orders/intake.py\n@@ -8 +8 @@\n{diff}",
    )
    evidence = incident(
        buffer, deploy("deploy-orders-80", ONSET - 40, ("b0ff3r01",)), sigs=(worker, KILLED, vendor)
    )
    result = analyze(evidence)
    assert (result.verdict, result.change_id) == (verdict, change_id)
    if change_id:
        suspect = next(s for s in result.suspects if s.change.change_id == change_id)
        assert suspect.alters == {"memory"}


@pytest.mark.parametrize(
    ("case", "failing", "category"),
    [
        ("requests rose and nothing failed: served, not a cause", False, "healthy"),
        ("requests rose and the service failed: a surge", True, "resource_exhaustion"),
    ],
)
def test_demand_that_rose_while_nothing_failed_is_healthy(
    case: str, failing: bool, category: str
) -> None:
    rps = MetricPoints(
        "http_requests_per_second",
        "orders",
        tuple((at(m), 100.0 if m < ONSET else 400.0) for m in range(0, FIRED + 1, 2)),
    )
    # A stray warning naming a cloud region: words in the logs, not a failure.
    region = signature("web", "slow DNS answer in eu-west-1, retried", 30, count=3)
    limit = signature("orders", "rejecting request: concurrency limit 512 reached", ONSET + 0.5)
    series = (errors("orders", ONSET if failing else None), errors("web", None))
    sigs = (region, limit) if failing else (region,)
    result = analyze(incident(DECOY, DECOY_SHIP, metrics=(rps,), series=series, sigs=sigs))
    assert (result.verdict == "external", result.category) == (failing, category), case


@pytest.mark.parametrize(
    ("message", "verdict"),
    [
        # The environment ran out (a sequence at its maximum): the changed function is only
        # where that surfaced, and the surge stands as the cause.
        (
            "SequenceError: nextval reached maximum value of sequence holds_id_seq in insert_hold",
            "external",
        ),
        # A fault only the program's logic raises, in the function the commit changed.
        ("NullPointerException: hold.expires_at is null in insert_hold", "change"),
    ],
)
def test_the_stack_convicts_a_change_against_an_outside_sign_only_for_a_logic_fault(
    message: str, verdict: str
) -> None:
    stack = 'Traceback (most recent call last):\n  File "orders/holds.py", line 40, in insert_hold'
    rps = MetricPoints(
        "http_requests_per_second",
        "orders",
        tuple((at(m), 100.0 if m < ONSET else 400.0) for m in range(0, FIRED + 1, 2)),
    )
    expiry = commit(
        "h01d0001",
        ONSET - 60,
        "Store the hold's expiry",
        ("orders/holds.py",),
        "@@ -38,3 +38,3 @@ def insert_hold(hold):\n-    db.execute(INSERT, hold.id)\n+    db.execute(INSERT, hold.id, hold.expires_at)\n",
    )
    sig = replace(signature("orders", message, ONSET + 0.5), detail=stack)
    result = analyze(
        incident(
            expiry,
            deploy("deploy-orders-90", ONSET - 40, ("h01d0001",)),
            sigs=(sig,),
            metrics=(rps,),
        )
    )
    assert "code" in result.suspects[0].kinds
    assert result.verdict == verdict


@pytest.mark.parametrize(
    ("monitor", "verdict"),
    [
        ("trap pduOutletOff from PDU-B: outlets 9-16 de-energised", "external"),
        (
            "trap pduBankOverload from PDU-B: bank 2 current 19.6 A > 16 A, breaker tripped",
            "external",
        ),
        ("trap upsOnBattery from UPS-1: input voltage 0 V, load 41%", "external"),
        ("ping lost: modem-1 (10.62.4.11), 5/5 probes", "external"),
        ("trap pduOutletOn from PDU-B: outlets 9-16 energised", "change"),
    ],
)
def test_equipment_losing_power_as_connections_are_lost_is_the_platform(
    monitor: str, verdict: str
) -> None:
    sigs = (
        signature("orders", "modem dial failed: connect: no route to host", ONSET + 0.5),
        signature("facility", monitor, ONSET, count=1),
    )
    settings_change = Change(
        "cfg-orders-3",
        "orders",
        "config",
        at(ONSET - 45),
        "modem dial: reconnect to the north site modems",
        ("deploy/orders/modems.yaml",),
        "-  north_modems: 1\n+  north_modems: 2\n",
    )
    result = analyze(incident(settings_change, sigs=sigs))
    assert result.verdict == verdict
    if verdict == "external":
        assert result.category == "infrastructure"
