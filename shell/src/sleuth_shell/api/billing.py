"""``POST /api/v1/billing/credit-usage``: credits per team and month (SPEC "Billing").

The body ``{"start", "end"}`` is validated by :func:`sleuth_core.credits.parse_usage_range`, whose
:class:`~sleuth_core.errors.InvalidRange` carries the SPEC's exact 400 details in the SPEC's order
(start missing, end missing, format, order, range). The endpoint keeps to those five details: a
body that is not a JSON object (or not JSON at all) has no ``start``, so it answers
``Start date required``. ``start`` and ``end`` come back as ISO 8601 UTC timestamps
(``2026-01-01T00:00:00Z``). The report is computed by
:func:`sleuth_shell.billing.usage.credit_usage` for the key's organization only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
from litestar import Request, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIType, Operation, RequestBody, Schema

from sleuth_core.credits import parse_usage_range
from sleuth_shell.api.body import decode_json_body
from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.billing.usage import credit_usage
from sleuth_shell.errors import INVALID_BODY_OPT

__all__ = ["REQUEST_BODY", "ROUTES", "CreditUsageResponse", "CreditUsageRow", "format_instant"]

_TIMESTAMP = Schema(
    type=OpenAPIType.STRING,
    description="ISO 8601; naive means UTC, a date alone is midnight UTC",
    examples=["2026-01-01T00:00:00Z"],
)
#: The documented request body (validated by hand so the SPEC's 400 details are exact).
REQUEST_BODY = Schema(
    type=OpenAPIType.OBJECT,
    properties={"start": _TIMESTAMP, "end": _TIMESTAMP},
    required=["start", "end"],
    description="The range [start, end): start inclusive, end exclusive, at most 366 days.",
)


@dataclass
class _CreditUsageOperation(Operation):
    def __post_init__(self) -> None:
        self.request_body = RequestBody(
            content={"application/json": OpenAPIMediaType(schema=REQUEST_BODY)}, required=True
        )


class CreditUsageError(msgspec.Struct):
    """Every error response: ``{"detail": str}``."""

    detail: str


def _error(description: str) -> ResponseSpec:
    return ResponseSpec(
        data_container=CreditUsageError, description=description, generate_examples=False
    )


class CreditUsageRow(msgspec.Struct):
    """Credits of one team (or of unattributed usage: both null) in one month."""

    team_id: int | None
    team_name: str | None
    month: str
    credits: float


class CreditUsageResponse(msgspec.Struct):
    """The credit-usage report (SPEC "Billing")."""

    organization_id: int
    start: str
    end: str
    data: list[CreditUsageRow]
    monthly_totals: dict[str, float]


def format_instant(moment: datetime) -> str:
    """An aware datetime as ISO 8601 UTC with a ``Z`` suffix (microseconds only when present).

    >>> from datetime import UTC, datetime
    >>> format_instant(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    '2026-01-02T03:04:05Z'
    """
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _body_members(raw: bytes) -> tuple[Any, Any]:
    """``(start, end)`` from the request body; both None when it is not a JSON object."""
    try:
        body = decode_json_body(raw)
    except ValueError:
        return None, None
    if not isinstance(body, dict):
        return None, None
    return body.get("start"), body.get("end")


@post(
    "/billing/credit-usage",
    status_code=200,
    operation_id="getCreditUsage",
    tags=["billing"],
    summary="Credit usage per team and month",
    operation_class=_CreditUsageOperation,
    # SPEC fixes this endpoint's details; a body that is not JSON at all has no start date.
    opt={INVALID_BODY_OPT: "Start date required"},
    responses={
        400: _error(
            "Start date required, End date required, Invalid start or end timestamp format. "
            "Use ISO 8601., End date must be after start date, or Time range cannot exceed "
            "366 days (checked in that order)"
        ),
        401: _error("Missing API key or Invalid API key"),
    },
)
async def get_credit_usage(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, db_session: DbSession
) -> CreditUsageResponse:
    """Credits used by the key's organization in ``[start, end)`` (at most 366 days), per team and
    month, ordered by month then credits descending, with the monthly totals; 2-decimal rounding.
    """
    start_value, end_value = _body_members(await request.body())
    start, end = parse_usage_range(start_value, end_value)
    report = await credit_usage(db_session, org_id=principal.org_id, start=start, end=end)
    return CreditUsageResponse(
        organization_id=principal.org_id,
        start=format_instant(start),
        end=format_instant(end),
        data=[CreditUsageRow(**row) for row in report["data"]],
        monthly_totals=report["monthly_totals"],
    )


ROUTES = [get_credit_usage]
