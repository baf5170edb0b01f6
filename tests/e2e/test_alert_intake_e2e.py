"""Alert intake over real HTTP against ``sleuth serve`` (SQLite and PostgreSQL).

- every provider fixture file, posted unchanged and signed as the provider would (native
  signature with the provider secret; Opsgenie, which signs nothing, with Sleuth's own header):
  new alerts start investigations, lifecycle and ignored events start none;
- N copies of one new incident fired in parallel start exactly one investigation per agent, and
  every copy (and a later redelivery) gets the same answer.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from e2e_harness import ROOT, cli_batch, serve, sleuth_env

from sleuth_core.intake import sign_firehydrant, sign_generic, sign_pagerduty, sign_rootly

pytestmark = [pytest.mark.e2e, pytest.mark.storage]


#: The sample deliveries shipped in the repository (their origins are in its README).
FIXTURES = ROOT / "examples" / "alert-payloads"
PROVIDER_SECRET = "provider-issued-secret"
TYPES = {
    "pagerduty": "PROVIDER_A",
    "opsgenie": "PROVIDER_B",
    "firehydrant": "PROVIDER_C",
    "rootly": "PROVIDER_D",
}
#: The files that are new alerts (everything else is lifecycle or ignored).
NEW_ALERTS = {
    "pagerduty/incident_triggered.json",
    "opsgenie/alert_create.json",
    "opsgenie/alert_create_with_description.json",
    "firehydrant/incident_created.json",
    "rootly/alert_created.json",
    "rootly/incident_created.json",
}


def provider_headers(type_: str, body: bytes, hook: dict) -> dict[str, str]:
    """The headers the provider itself would send."""
    if type_ == "PROVIDER_A":
        return {"X-PagerDuty-Signature": sign_pagerduty(body, PROVIDER_SECRET)}
    if type_ == "PROVIDER_C":
        return {"fh-signature": sign_firehydrant(body, PROVIDER_SECRET)}
    if type_ == "PROVIDER_D":
        return {"X-Rootly-Signature": sign_rootly(body, PROVIDER_SECRET, int(time.time()))}
    return {"X-Service-Webhook-Signature": sign_generic(body, hook["secret"])}


@pytest.fixture
def env(database_url: str, tmp_path: Path) -> dict[str, str]:
    return sleuth_env(
        database_url,
        SLEUTH_WORKERS_INLINE="false",  # investigations stay PENDING: the counts are exact
        SLEUTH_RATE_LIMIT_ENTERPRISE="100000",
    )


def setup(env: dict[str, str]) -> tuple[str, dict[str, dict]]:
    webhooks = [
        [
            *("admin", "add-webhook", "acme", "--type", type_, "--name", type_),
            *([] if type_ == "PROVIDER_B" else ["--provider-secret", PROVIDER_SECRET]),
        ]
        for type_ in TYPES.values()
    ]
    _, created_key, *created_hooks = cli_batch(
        env,
        ["admin", "create-org", "acme", "--plan", "enterprise"],
        ["admin", "create-key", "acme"],
        *webhooks,
    )
    return created_key["key"], dict(zip(TYPES.values(), created_hooks, strict=True))


def create_agent(base: str, key: str, name: str, hooks: list[dict], patterns: list[str]) -> str:
    response = httpx.post(
        f"{base}/api/v1/alert-responders/",
        headers={"X-Service-Org-Api-Key": key},
        json={
            "team_name": "Default",
            "name": name,
            "webhook_sources": [{"type": h["type"], "remote_id": h["remote_id"]} for h in hooks],
            "matching_criteria": {"text_matches": patterns},
        },
        timeout=30,
    )
    assert response.status_code == 200, response.text
    return str(response.json()["id"])


def test_every_fixture_file_signed_as_the_provider_would(env, tmp_path) -> None:
    key, hooks = setup(env)
    with serve(env, tmp_path / "serve.log") as base:
        create_agent(base, key, "everything", list(hooks.values()), ["*"])
        started: dict[str, list[str]] = {}
        for folder, type_ in TYPES.items():
            for path in sorted((FIXTURES / folder).glob("*.json")):
                body = path.read_bytes()
                hook = hooks[type_]
                response = httpx.post(
                    hook["ingest_url"].replace(hook["ingest_url"].split("/api/")[0], base),
                    content=body,
                    headers={
                        "Content-Type": "application/json",
                        **provider_headers(type_, body, hook),
                    },
                    timeout=30,
                )
                assert response.status_code == 202, (path, response.text)
                started[f"{folder}/{path.name}"] = response.json()["investigation_ids"]
        assert len(started) == 20
        assert {name for name, ids in started.items() if ids} == NEW_ALERTS
        assert all(len(ids) == 1 for name, ids in started.items() if name in NEW_ALERTS)
        # Opsgenie's second Create is about the same alert as its note/ack/close, a different
        # one from alert_create.json: two investigations in all for that provider.
        opsgenie = {started["opsgenie/alert_create.json"][0]}
        opsgenie.add(started["opsgenie/alert_create_with_description.json"][0])
        assert len(opsgenie) == 2
        listed = httpx.get(
            f"{base}/api/v1/investigations?limit=50",
            headers={"X-Service-Org-Api-Key": key},
            timeout=30,
        )
        if listed.status_code == 200:  # the list endpoint is the investigations branch's
            assert len(listed.json()["investigations"]) == len(NEW_ALERTS)


def test_parallel_copies_of_one_incident_start_one_investigation_per_agent(env, tmp_path) -> None:
    key, hooks = setup(env)
    pager = hooks["PROVIDER_A"]
    body = (FIXTURES / "pagerduty/incident_triggered.json").read_bytes()
    with serve(env, tmp_path / "serve.log") as base:
        agents = [
            create_agent(base, key, f"agent {n}", [pager], ["*Test Incident*"]) for n in range(3)
        ]
        target = f"{base}/api/v1/webhooks/PROVIDER_A/{pager['remote_id']}"
        headers = provider_headers("PROVIDER_A", body, pager)

        def deliver(_: int) -> httpx.Response:
            return httpx.post(target, content=body, headers=headers, timeout=60)

        with ThreadPoolExecutor(max_workers=12) as pool:
            responses = list(pool.map(deliver, range(24)))
        assert {r.status_code for r in responses} == {202}, [r.text for r in responses]
        answers = {tuple(r.json()["investigation_ids"]) for r in responses}
        assert len(answers) == 1
        (answer,) = answers
        assert len(answer) == len(agents) == len(set(answer))

        # Different deliveries (other event ids) of the same incident, in parallel: reused.
        def other(n: int) -> httpx.Response:
            changed = body.replace(b"01BZYIL05THJDFF2Y08X9SVMTU", f"redelivery{n:016d}".encode())
            return httpx.post(
                target,
                content=changed,
                headers=provider_headers("PROVIDER_A", changed, pager),
                timeout=60,
            )

        with ThreadPoolExecutor(max_workers=12) as pool:
            others = list(pool.map(other, range(12)))
        assert all(r.status_code == 202 for r in others), [r.text for r in others]
        assert {tuple(r.json()["investigation_ids"]) for r in others} == {answer}
        again = deliver(0)
        assert tuple(again.json()["investigation_ids"]) == answer
