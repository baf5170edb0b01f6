"""``POST /api/v1/alert-responders/dry-run`` over 10,000 stored alerts, against a real
``sleuth serve`` on SQLite (a script for docs/performance.md, never collected by ``make test``).

Setup (seeded): one organization, one PROVIDER_A subscription, 10,000 stored alerts (the alert
log), each the match text of a 1-3 KB PagerDuty delivery of ``bench_intake.py``'s mix (read by
the real adapter), written straight into the ``alerts`` table. Then, over HTTP, dry runs of four
criteria (a ``contains`` that matches about 5 % of the alerts, an AND tree, an OR tree with a
regex, an inner-star pattern), each ``limit: 10000``, 5 times; reported: the median wall time of
a request. Baseline in the same run: tracing every alert with the core's ``explain`` in this
process (what a dry run without the index's prefilter would do), for the ratio.

    .venv/bin/python benchmarks/bench_dry_run.py [--alerts 10000]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [
    str(ROOT / "benchmarks"),
    str(ROOT / "tests" / "e2e"),
    str(ROOT / "core" / "src"),
    str(ROOT / "shell" / "src"),
]

from bench_intake import alert_body  # noqa: E402
from e2e_harness import cli, serve, sleuth_env  # noqa: E402

from sleuth_core.intake import parse_alert  # noqa: E402
from sleuth_core.matching import explain, normalize_criteria  # noqa: E402

CRITERIA = {
    "contains": {"text_matches": ["svc0007x"]},
    "and": {
        "match_rules": {
            "operator": "AND",
            "conditions": [
                {"type": "contains", "value": "p1 incident"},
                {"type": "contains", "value": "gateway"},
            ],
        }
    },
    "or + regex": {
        "match_rules": {
            "operator": "OR",
            "conditions": [
                {"type": "contains", "value": "db-0042-primary"},
                {"type": "regex", "value": r"svc00[0-4]\dy"},
            ],
        }
    },
    "inner star": {"text_matches": ["*checkout*svc0013y*timeout*"]},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alerts", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(7)
    now = datetime.now(UTC)
    texts = [
        parse_alert("PROVIDER_A", alert_body(i, 100, rng), received_at=now).match_text
        for i in range(args.alerts)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        env = sleuth_env(f"sqlite:///{db}", SLEUTH_RATE_LIMIT_FREE="100000")
        cli(env, "admin", "create-org", "acme")
        key = cli(env, "admin", "create-key", "acme")["key"]
        hook = cli(env, "admin", "add-webhook", "acme", "--type", "PROVIDER_A", "--name", "p")
        with sqlite3.connect(db) as conn:
            org_id, sub_id = conn.execute(
                "SELECT org_id, id FROM webhook_subscriptions WHERE remote_id = ?",
                (hook["remote_id"],),
            ).fetchone()
            stamp = now.replace(tzinfo=None).isoformat(sep=" ")
            conn.executemany(
                "INSERT INTO alerts (org_id, subscription_id, source_type, source_remote_id,"
                " delivery_id, kind, event_type, title, service, severity, dedup_key, group_key,"
                " match_text, payload, occurred_at, received_at) VALUES"
                " (?, ?, 'PROVIDER_A', ?, ?, 'new_alert', 'incident.triggered', ?, 'checkout-api',"
                " 'high', ?, ?, ?, '{}', ?, ?)",
                [
                    (
                        org_id,
                        sub_id,
                        hook["remote_id"],
                        f"d{i}",
                        text[:200].splitlines()[0][:200],
                        f"PROVIDER_A:B{i}",
                        f"checkout-api/{i}",
                        text,
                        stamp,
                        stamp,
                    )
                    for i, text in enumerate(texts)
                ],
            )
        print(
            f"{args.alerts} stored alerts, match texts of {min(map(len, texts))}-"
            f"{max(map(len, texts))} characters"
        )
        print("| criteria | matched | dry run over HTTP (median) | explain every alert | ratio |")
        print("|---|---|---|---|---|")
        with serve(env, Path(tmp) / "serve.log") as base, httpx.Client(timeout=60) as client:
            for name, criteria in CRITERIA.items():
                times: list[float] = []
                answer: dict[str, object] = {}
                for _ in range(args.rounds):
                    start = time.perf_counter()
                    response = client.post(
                        f"{base}/api/v1/alert-responders/dry-run",
                        headers={"X-Service-Org-Api-Key": key},
                        json={"matching_criteria": criteria, "limit": args.alerts},
                    )
                    times.append(time.perf_counter() - start)
                    assert response.status_code == 200, response.text
                    answer = response.json()
                assert answer["examined"] == args.alerts
                rules = normalize_criteria(criteria)["match_rules"]
                start = time.perf_counter()
                naive = sum(1 for text in texts if explain(rules, text)["matched"])
                baseline = time.perf_counter() - start
                assert naive == answer["matched"], (naive, answer["matched"])
                median = statistics.median(times)
                print(
                    f"| {name} | {answer['matched']} | {median * 1000:.0f} ms |"
                    f" {baseline * 1000:.0f} ms | {baseline / median:.1f}x |"
                )


if __name__ == "__main__":
    main()
