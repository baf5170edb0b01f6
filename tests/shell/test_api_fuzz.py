"""Every endpoint driven with generated input (schemathesis over the in-process ASGI app).

Checks: never a 5xx, only statuses the OpenAPI document lists for the operation, responses that
match their documented schema, and the documented content type.
"""

from __future__ import annotations

from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from sleuth_shell.app import create_app
from sleuth_shell.config import Settings

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    response_schema_conformance,
    content_type_conformance,
]


@pytest.fixture
def fuzz_target(settings: Settings, factory, client):
    org = factory.org("fuzz", plan="enterprise")
    hook = factory.webhook(org, "PROVIDER_A", "pager")
    factory.integration(org)
    client.post(
        "/api/v1/alert-responders",
        json={
            "team_name": "Default",
            "name": "seed",
            "webhook_sources": [{"type": "PROVIDER_A", "remote_id": hook.remote_id}],
            "matching_criteria": {"text_matches": ["db"]},
        },
        headers=org.headers,
    )
    app = create_app(
        settings.model_copy(
            update={"rate_limits": {"free": 10**9, "team": 10**9, "enterprise": 10**9}}
        )
    )
    return app, org


@pytest.mark.storage
def test_every_operation_with_generated_input(fuzz_target) -> None:
    app, org = fuzz_target
    schema = schemathesis.openapi.from_asgi("/schema/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 12
    failures: list[str] = []
    calls: Counter[str] = Counter()
    for operation in operations:
        strategy = operation.as_strategy()

        # 12 generated cases an operation (and back end): every operation is called, each with
        # its own mix of valid and invalid input, in a fraction of the run time 25 took.
        @settings(
            max_examples=12,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        @given(case=strategy)
        def run(case) -> None:
            headers = dict(case.headers or {})
            headers["X-Service-Org-Api-Key"] = org.key
            calls[operation.label] += 1  # noqa: B023 (run() is called in this iteration)
            case.call_and_validate(headers=headers, checks=CHECKS)

        try:
            run()
        except Exception as exc:  # collect every failing operation, then report them all
            failures.append(f"{operation.label}: {exc}")
    assert not failures, "\n\n".join(failures)
    assert not [op.label for op in operations if calls[op.label] == 0], "operations never called"
