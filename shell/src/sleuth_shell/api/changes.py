"""``POST /api/v1/changes`` (ingest change records) and ``GET /api/v1/changes`` (list them).

The same auth, rate limits, body limits and validation style as ``POST
/api/v1/observability/logs``: all or nothing, the first bad record named (``records[3].kind:
...``). A record sent again with the same ``id`` replaces the stored one (see
`sleuth_shell.changes.ingest`). The list is newest first, each item with the ``link`` of its page.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from litestar import Request, get, post
from litestar.openapi.spec import Schema
from litestar.openapi.spec.enums import OpenAPIFormat, OpenAPIType
from litestar.params import FromQuery

from sleuth_shell.agents.base import CHANGE_KINDS, ChangeRecord
from sleuth_shell.api.body import documented_json_body
from sleuth_shell.api.common import query_limit, query_text, query_time
from sleuth_shell.api.deps import AppSettings, CurrentPrincipal, DbSession
from sleuth_shell.api.knowledge import json_body
from sleuth_shell.api.observability import Ingested
from sleuth_shell.changes import ingest
from sleuth_shell.changes.store import SqlChangeStore
from sleuth_shell.errors import bad_request, error_responses

__all__ = [
    "CHANGES_BODY",
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "MAX_Q_CHARS",
    "ROUTES",
    "change_item",
]

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
MAX_Q_CHARS = 500


_STRING = Schema(type=OpenAPIType.STRING)
_TIMESTAMP = Schema(
    one_of=[
        Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.DATE_TIME),
        Schema(type=OpenAPIType.NUMBER),
    ],
    description="ISO 8601 date-time or Unix seconds",
)
_STRINGS = Schema(type=OpenAPIType.ARRAY, items=_STRING, max_items=ingest.MAX_FILES)
#: The documented request body of ``POST /api/v1/changes`` (the handler validates it itself).
CHANGES_BODY = Schema(
    type=OpenAPIType.OBJECT,
    required=["records"],
    additional_properties=False,
    properties={
        "records": Schema(
            type=OpenAPIType.ARRAY,
            max_items=ingest.MAX_RECORDS,
            items=Schema(
                type=OpenAPIType.OBJECT,
                required=["timestamp", "service", "kind", "id", "summary"],
                additional_properties=False,
                properties={
                    "timestamp": _TIMESTAMP,
                    "service": Schema(type=OpenAPIType.STRING, max_length=200),
                    "kind": Schema(type=OpenAPIType.STRING, enum=list(CHANGE_KINDS)),
                    "id": Schema(type=OpenAPIType.STRING, max_length=255),
                    "summary": Schema(type=OpenAPIType.STRING, max_length=ingest.MAX_SUMMARY_CHARS),
                    "author": Schema(type=[OpenAPIType.STRING, OpenAPIType.NULL]),
                    "url": Schema(
                        type=[OpenAPIType.STRING, OpenAPIType.NULL], format=OpenAPIFormat.URI
                    ),
                    "files": _STRINGS,
                    "diff": Schema(type=[OpenAPIType.STRING, OpenAPIType.NULL]),
                    "ships": _STRINGS,
                    "attributes": Schema(type=OpenAPIType.OBJECT),
                },
            ),
        )
    },
)


class ChangeItem(msgspec.Struct):
    """One change record as sent (``id`` is its own id) plus ``link``, the page showing it."""

    id: str
    timestamp: datetime
    service: str
    kind: str
    summary: str
    author: str | None
    url: str | None
    files: list[str]
    diff: str
    ships: list[str]
    attributes: dict[str, Any]
    link: str


class ChangeList(msgspec.Struct):
    changes: list[ChangeItem]


def change_item(change: ChangeRecord, public_url: str) -> ChangeItem:
    """The API form of a stored change."""
    return ChangeItem(
        id=change.change_id,
        timestamp=change.timestamp,
        service=change.service,
        kind=change.kind,
        summary=change.summary,
        author=change.author,
        url=change.url,
        files=list(change.files),
        diff=change.diff,
        ships=list(change.ships),
        attributes=dict(change.attributes),
        link=f"{public_url.rstrip('/')}/changes/{change.id}",
    )


@post(
    "/changes",
    operation_id="ingestChanges",
    tags=["changes"],
    status_code=200,
    operation_class=documented_json_body(CHANGES_BODY, "Change records (all or none)"),
)
async def ingest_changes(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, db_session: DbSession
) -> Ingested:
    """Store ``{records: [{timestamp, service, kind, id, summary, author?, url?, files?, diff?,
    ships?, attributes?}]}`` (all or none; an id sent again replaces its record);
    ``ingested`` is the number of records stored (one per distinct id)."""
    try:
        rows = ingest.validate_records(await json_body(request))
    except ingest.IngestError as exc:
        raise bad_request(str(exc)) from None
    return Ingested(ingested=await ingest.upsert_changes(db_session, principal.org_id, rows))


@get(
    "/changes",
    operation_id="listChanges",
    tags=["changes"],
    responses=error_responses(),
)
async def list_changes(
    request: Request[Any, Any, Any],
    principal: CurrentPrincipal,
    settings: AppSettings,
    service: FromQuery[str | None] = None,
    since: FromQuery[str | None] = None,
    until: FromQuery[str | None] = None,
    kind: FromQuery[str | None] = None,
    q: FromQuery[str | None] = None,
    limit: FromQuery[str | None] = None,
) -> ChangeList:
    """The organization's change records, newest first: at or after ``since``, before ``until``
    (ISO 8601 or Unix seconds), of one ``service`` and ``kind``, whose summary, files or diff
    contain ``q`` (case-insensitive); at most ``limit`` (1 to 200, default 50)."""
    start, end = query_time(since, "since"), query_time(until, "until")
    wanted_kind = query_text(kind, "kind")
    if wanted_kind is not None and wanted_kind.lower() not in CHANGE_KINDS:
        raise bad_request(f"Invalid kind: one of {', '.join(CHANGE_KINDS)} is required")
    size = query_limit(limit, DEFAULT_LIMIT, MAX_LIMIT)
    wanted_service = query_text(service, "service")
    store = SqlChangeStore(request.app.state.session_factory)
    rows = await store.search(
        principal.org_id,
        start=start,
        end=end,
        services=[wanted_service] if wanted_service else None,
        kinds=[wanted_kind.lower()] if wanted_kind else None,
        text=query_text(q, "q", limit=MAX_Q_CHARS),
        limit=size,
    )
    return ChangeList(changes=[change_item(row, settings.public_url) for row in rows])


ROUTES = [ingest_changes, list_changes]
