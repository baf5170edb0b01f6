"""``/api/v1/data-sources``: the organization's Prometheus-compatible data sources, and
``/api/v1/evidence/{artifact_id}``: the evidence snapshots investigations kept of their answers.

Any key of the organization reads; creating, changing, deleting and testing a data source need an
admin key (403 ``Admin API key required``). Header values are encrypted at rest and never
returned (``header_names`` says which are set). See :mod:`sleuth_shell.datasources`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from litestar import Request, delete, get, post, put
from litestar.params import FromPath

from sleuth_core.ids import encode_global_id
from sleuth_core.language import format_ts
from sleuth_shell.api.body import decode_json_body
from sleuth_shell.api.common import decode_id_or_404
from sleuth_shell.api.deps import AppServices, CurrentPrincipal, DbSession
from sleuth_shell.auth import require_admin
from sleuth_shell.datasources import snapshots, store
from sleuth_shell.db.models import DataSource
from sleuth_shell.errors import ApiError, bad_request, conflict, error_responses, not_found

__all__ = ["GLOBAL_TYPE", "ROUTES"]

GLOBAL_TYPE = "DataSource"
_THING = "Data source"


class DataSourceItem(msgspec.Struct):
    """One data source (never its header values)."""

    id: str
    name: str
    kind: str
    url: str
    service_label: str
    header_names: list[str]
    created_at: datetime


class DataSourceList(msgspec.Struct):
    data_sources: list[DataSourceItem]


class ConnectionCheck(msgspec.Struct):
    ok: bool
    detail: str


class Success(msgspec.Struct):
    success: bool


class EvidenceSource(msgspec.Struct):
    """The data source a snapshot was read from (``id`` null once it is deleted)."""

    id: str | None
    name: str
    url: str


class Evidence(msgspec.Struct):
    """One evidence snapshot; ``sha256`` covers ``{query, start, end, step, points}``."""

    artifact_id: str
    data_source: EvidenceSource
    query: str
    start: str
    end: str
    step: float
    points: list[Any]
    sha256: str
    fetched_at: datetime


def _item(row: DataSource) -> DataSourceItem:
    return DataSourceItem(
        id=encode_global_id(GLOBAL_TYPE, row.id),
        name=row.name,
        kind=row.kind,
        url=row.url,
        service_label=row.service_label,
        header_names=[str(n) for n in row.header_names or []],
        created_at=row.created_at,
    )


async def _body(request: Request[Any, Any, Any]) -> Any:
    try:
        return decode_json_body(await request.body(), not_json="Request body must be a JSON object")
    except ValueError as exc:
        raise bad_request(str(exc)) from None


async def _load(db_session: DbSession, org_id: int, source_id: str) -> DataSource:
    row = await store.get(db_session, org_id, decode_id_or_404(source_id, GLOBAL_TYPE, _THING))
    if row is None:
        raise not_found(_THING)
    return row


@post(
    "/data-sources",
    operation_id="createDataSource",
    responses=error_responses(403, 409),
    tags=["data sources"],
    status_code=200,
)
async def create_data_source(
    request: Request[Any, Any, Any],
    principal: CurrentPrincipal,
    db_session: DbSession,
    services: AppServices,
) -> DataSourceItem:
    """Add a data source (``{name, kind: "prometheus", url, headers?, service_label?}``)."""
    require_admin(principal)
    try:
        data = store.parse_create(await _body(request))
    except store.DataSourceError as exc:
        raise bad_request(str(exc)) from None
    cipher = await store.load_cipher(services.sessions, services.settings.secret_key)
    try:
        row = await store.create(db_session, principal.org_id, data, cipher)
    except store.DataSourceConflict as exc:
        raise conflict(str(exc)) from None
    return _item(row)


@get("/data-sources", operation_id="listDataSources", tags=["data sources"])
async def list_data_sources(principal: CurrentPrincipal, db_session: DbSession) -> DataSourceList:
    """The organization's data sources, oldest first."""
    rows = await store.list_all(db_session, principal.org_id)
    return DataSourceList(data_sources=[_item(r) for r in rows])


@get(
    "/data-sources/{source_id:str}",
    operation_id="getDataSource",
    responses=error_responses(404),
    tags=["data sources"],
)
async def get_data_source(
    source_id: FromPath[str], principal: CurrentPrincipal, db_session: DbSession
) -> DataSourceItem:
    """One data source."""
    return _item(await _load(db_session, principal.org_id, source_id))


@put(
    "/data-sources/{source_id:str}",
    operation_id="updateDataSource",
    responses=error_responses(403, 404, 409),
    tags=["data sources"],
)
async def update_data_source(
    source_id: FromPath[str],
    request: Request[Any, Any, Any],
    principal: CurrentPrincipal,
    db_session: DbSession,
    services: AppServices,
) -> DataSourceItem:
    """Change the members given (``headers`` replaces every header; ``{}`` removes them)."""
    require_admin(principal)
    row = await _load(db_session, principal.org_id, source_id)
    try:
        changes = store.parse_update(await _body(request))
    except store.DataSourceError as exc:
        raise bad_request(str(exc)) from None
    cipher = await store.load_cipher(services.sessions, services.settings.secret_key)
    try:
        row = await store.update(db_session, row, changes, cipher)
    except store.DataSourceConflict as exc:
        raise conflict(str(exc)) from None
    return _item(row)


@delete(
    "/data-sources/{source_id:str}",
    operation_id="deleteDataSource",
    responses=error_responses(403),
    tags=["data sources"],
    status_code=200,
)
async def delete_data_source(
    source_id: FromPath[str], principal: CurrentPrincipal, db_session: DbSession
) -> Success:
    """Delete a data source; succeeds for any ID (already deleted, unknown, malformed). Its
    evidence snapshots stay readable."""
    require_admin(principal)
    try:
        row = await _load(db_session, principal.org_id, source_id)
    except ApiError:  # an ID that names nothing is already deleted
        return Success(success=True)
    await store.remove(db_session, row)
    return Success(success=True)


@post(
    "/data-sources/{source_id:str}/test",
    operation_id="testDataSource",
    responses=error_responses(403, 404),
    tags=["data sources"],
    status_code=200,
)
async def test_data_source(
    source_id: FromPath[str],
    principal: CurrentPrincipal,
    db_session: DbSession,
    services: AppServices,
) -> ConnectionCheck:
    """Whether the source answers as a Prometheus HTTP API (``ok`` false, with why, when not)."""
    require_admin(principal)
    row = await _load(db_session, principal.org_id, source_id)
    cipher = await store.load_cipher(services.sessions, services.settings.secret_key)
    ok, detail = await store.check_connection(row, cipher)
    return ConnectionCheck(ok=ok, detail=detail)


@get(
    "/evidence/{artifact_id:str}",
    operation_id="getEvidence",
    responses=error_responses(404),
    tags=["data sources"],
)
async def get_evidence(
    artifact_id: FromPath[str], principal: CurrentPrincipal, db_session: DbSession
) -> Evidence:
    """An evidence snapshot: the query, range, step and points read, and their SHA-256."""
    row = await snapshots.get(db_session, principal.org_id, artifact_id)
    if row is None:
        raise not_found("Evidence")
    return Evidence(
        artifact_id=row.id,
        data_source=EvidenceSource(
            id=encode_global_id(GLOBAL_TYPE, row.data_source_id)
            if row.data_source_id is not None
            else None,
            name=row.data_source_name,
            url=row.data_source_url,
        ),
        query=row.query,
        start=format_ts(row.start),
        end=format_ts(row.end),
        step=row.step,
        points=list(row.points),
        sha256=row.sha256,
        fetched_at=row.fetched_at,
    )


ROUTES = [
    create_data_source,
    list_data_sources,
    get_data_source,
    update_data_source,
    delete_data_source,
    test_data_source,
    get_evidence,
]
