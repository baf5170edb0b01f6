"""``POST /api/v1/observability/logs``: ingest application log records for the agent to query."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, post

from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.api.knowledge import json_body
from sleuth_shell.errors import bad_request
from sleuth_shell.observability import ingest

__all__ = ["ROUTES"]


class Ingested(msgspec.Struct):
    ingested: int


@post(
    "/observability/logs",
    operation_id="ingestLogs",
    tags=["observability"],
    status_code=200,
)
async def ingest_logs(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, db_session: DbSession
) -> Ingested:
    """Store ``{records: [{timestamp, service, level, message, attributes?}]}`` (all or none)."""
    try:
        rows = ingest.validate_records(await json_body(request))
    except ingest.IngestError as exc:
        raise bad_request(str(exc)) from None
    return Ingested(ingested=await ingest.ingest(db_session, principal.org_id, rows))


ROUTES = [ingest_logs]
