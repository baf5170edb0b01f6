"""``POST /api/v1/billing/credit-usage``: auth, validation (messages and order), shape, scoping."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from sleuth_shell.billing import FEATURE_DIGEST, FEATURE_INTERACTION, record_usage

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = pytest.mark.shared_app

Factory = Any  # tests/shell/conftest.py Factory
OrgHandle = Any  # tests/shell/conftest.py OrgHandle

PATH = "/api/v1/billing/credit-usage"


def _use(factory: Factory, org_id: int, team_id: int | None, credits: float, at: datetime) -> None:
    async def go(session: Any) -> None:
        await record_usage(
            session,
            org_id=org_id,
            team_id=team_id,
            feature=FEATURE_INTERACTION if team_id else FEATURE_DIGEST,
            credits=credits,
            occurred_at=at,
        )
        await session.commit()

    factory.run(go)


class TestAuthentication:
    def test_missing_key(self, client: TestClient[Litestar]) -> None:
        response = client.post(PATH, json={"start": "2026-01-01", "end": "2026-02-01"})
        assert response.status_code == 401
        assert response.json() == {"detail": "Missing API key"}

    def test_invalid_key(self, client: TestClient[Litestar], org: OrgHandle) -> None:
        response = client.post(
            PATH,
            json={"start": "2026-01-01", "end": "2026-02-01"},
            headers={"X-Service-Org-Api-Key": org.key + "x"},
        )
        assert response.status_code == 401
        assert response.json() == {"detail": "Invalid API key"}

    def test_auth_comes_before_validation(self, client: TestClient[Litestar]) -> None:
        response = client.post(PATH, json={})
        assert response.status_code == 401
        assert response.json() == {"detail": "Missing API key"}


START_REQUIRED = "Start date required"
END_REQUIRED = "End date required"
BAD_FORMAT = "Invalid start or end timestamp format. Use ISO 8601."
BAD_ORDER = "End date must be after start date"
TOO_LONG = "Time range cannot exceed 366 days"


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({}, START_REQUIRED),
        ({"start": None, "end": "2026-01-01"}, START_REQUIRED),
        ({"start": "", "end": "2026-01-01"}, START_REQUIRED),
        ({"start": "  ", "end": "nonsense"}, START_REQUIRED),
        ({"end": "2026-01-01"}, START_REQUIRED),
        ({"start": "2026-01-01"}, END_REQUIRED),
        ({"start": "2026-01-01", "end": None}, END_REQUIRED),
        ({"start": "garbage", "end": ""}, END_REQUIRED),  # missing end before format
        ({"start": "garbage", "end": "2026-01-01"}, BAD_FORMAT),
        ({"start": "2026-01-01", "end": "2026-13-01"}, BAD_FORMAT),
        ({"start": 20260101, "end": "2026-01-02"}, BAD_FORMAT),
        ({"start": "2026-02-01", "end": "garbage"}, BAD_FORMAT),
        ({"start": "2026-02-01", "end": "2026-01-01"}, BAD_ORDER),  # order before range
        ({"start": "2026-01-01", "end": "2026-01-01"}, BAD_ORDER),
        ({"start": "2027-06-01", "end": "2025-01-01"}, BAD_ORDER),
        ({"start": "2025-01-01", "end": "2026-01-02T00:00:01Z"}, TOO_LONG),
        ({"start": "2024-01-01", "end": "2026-01-01"}, TOO_LONG),
    ],
)
def test_validation_messages_in_spec_order(
    client: TestClient[Litestar], org: OrgHandle, body: dict[str, Any], detail: str
) -> None:
    response = client.post(PATH, json=body, headers=org.headers)
    assert response.status_code == 400
    assert response.json() == {"detail": detail}


@pytest.mark.parametrize("content", [b"not json", b"[1, 2]", b'"2026-01-01"', b"null", b""])
def test_a_body_that_is_not_a_json_object_has_no_start(
    client: TestClient[Litestar], org: OrgHandle, content: bytes
) -> None:
    response = client.post(
        PATH, content=content, headers={**org.headers, "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json() == {"detail": START_REQUIRED}


def test_366_days_exactly_is_accepted(client: TestClient[Litestar], org: OrgHandle) -> None:
    response = client.post(
        PATH, json={"start": "2024-01-01", "end": "2025-01-01"}, headers=org.headers
    )  # 2024 is a leap year: 366 days
    assert response.status_code == 200
    assert response.json()["data"] == []
    assert response.json()["monthly_totals"] == {}


def test_report_shape_ordering_rounding_and_scoping(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    ops = factory.team(org, "Ops")
    other = factory.org("globex")
    jan = datetime(2026, 1, 15, 9, 30, tzinfo=UTC)
    feb = datetime(2026, 2, 1, 0, 0, tzinfo=UTC)
    _use(factory, org.id, org.default_team_id, 2.345, jan)
    _use(factory, org.id, ops.id, 2.335, jan)
    _use(factory, org.id, ops.id, 0.01, jan)
    _use(factory, org.id, None, 10.004, jan)
    _use(factory, org.id, ops.id, 1.5, feb)
    _use(factory, org.id, None, 0.75, feb)
    _use(factory, org.id, ops.id, 99.0, datetime(2025, 12, 31, 23, 59, 59, tzinfo=UTC))  # before
    _use(factory, other.id, other.default_team_id, 500.0, jan)  # another organization

    response = client.post(
        PATH,
        json={"start": "2026-01-01T01:00:00+01:00", "end": "2026-03-01"},
        headers=org.headers,
    )
    assert response.status_code == 200
    body = response.json()
    assert list(body) == ["organization_id", "start", "end", "data", "monthly_totals"]
    assert body["organization_id"] == org.id and isinstance(body["organization_id"], int)
    assert body["start"] == "2026-01-01T00:00:00Z"
    assert body["end"] == "2026-03-01T00:00:00Z"
    assert body["data"] == [
        {"team_id": None, "team_name": None, "month": "2026-01", "credits": 10.0},
        {
            "team_id": org.default_team_id,
            "team_name": "Default",
            "month": "2026-01",
            "credits": 2.35,
        },
        {"team_id": ops.id, "team_name": "Ops", "month": "2026-01", "credits": 2.35},
        {"team_id": ops.id, "team_name": "Ops", "month": "2026-02", "credits": 1.5},
        {"team_id": None, "team_name": None, "month": "2026-02", "credits": 0.75},
    ]
    # Totals sum the unrounded credits: 2.345 + 2.345 + 10.004 = 14.694.
    assert body["monthly_totals"] == {"2026-01": 14.69, "2026-02": 2.25}

    other_body = client.post(
        PATH, json={"start": "2026-01-01", "end": "2026-03-01"}, headers=other.headers
    ).json()
    assert other_body["organization_id"] == other.id
    assert other_body["data"] == [
        {
            "team_id": other.default_team_id,
            "team_name": "Default",
            "month": "2026-01",
            "credits": 500.0,
        }
    ]
    assert other_body["monthly_totals"] == {"2026-01": 500.0}


def test_start_inclusive_end_exclusive_and_team_keys(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    at = datetime(2026, 4, 10, 12, 0, tzinfo=UTC)
    _use(factory, org.id, None, 1.0, at)
    team_key = factory.key(org, team="Default")
    assert team_key

    inclusive = client.post(
        PATH,
        json={"start": "2026-04-10T12:00:00Z", "end": "2026-04-10T12:00:01Z"},
        headers=org.headers,
    ).json()
    assert inclusive["monthly_totals"] == {"2026-04": 1.0}
    exclusive = client.post(
        PATH, json={"start": "2026-04-01", "end": "2026-04-10T12:00:00Z"}, headers=org.headers
    ).json()
    assert exclusive["data"] == [] and exclusive["monthly_totals"] == {}
    # Any key of the organization sees the whole organization's usage.
    by_team_key = client.post(
        PATH,
        json={"start": "2026-04-01", "end": "2026-05-01"},
        headers={"X-Service-Org-Api-Key": team_key},
    ).json()
    assert by_team_key["data"] == [
        {"team_id": None, "team_name": None, "month": "2026-04", "credits": 1.0}
    ]


def test_openapi_documents_body_responses_and_errors(client: TestClient[Litestar]) -> None:
    schema = client.get("/schema/openapi.json").json()
    operation = schema["paths"][PATH]["post"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["start", "end"]
    assert set(body["properties"]) == {"start", "end"}
    # 413 (body over 1 MiB) and 429 (rate limit) apply to every /api/v1 operation.
    assert set(operation["responses"]) == {"200", "400", "401", "413", "429"}
    response_ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    response_schema = schema["components"]["schemas"][response_ref.rsplit("/", 1)[1]]
    assert set(response_schema["properties"]) == {
        "organization_id",
        "start",
        "end",
        "data",
        "monthly_totals",
    }
