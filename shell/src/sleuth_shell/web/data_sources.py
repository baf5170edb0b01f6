"""Data sources: the organization's Prometheus-compatible sources; admins add one, edit or delete
it and test its connection, as ``POST /api/v1/data-sources``, ``PUT`` and ``DELETE
/api/v1/data-sources/{id}`` and ``POST /api/v1/data-sources/{id}/test`` do.

The form becomes the API's body and goes through the store's own parse, create, update, remove
and connection check (:mod:`sleuth_shell.datasources.store`), so the messages are the API's.
Header values are sealed at rest and never shown.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.datasources import store
from sleuth_shell.db.models import DataSource
from sleuth_shell.errors import not_found
from sleuth_shell.web.guard import (
    PAGE_OPTIONS,
    Viewer,
    ViewerDep,
    delete_form,
    form_data,
    form_page,
    require_admin_viewer,
)

__all__ = ["ROUTES", "header_lines"]

_BLANK = {"name": "", "url": "", "service_label": "", "headers": ""}


def header_lines(text: str) -> dict[str, str] | str:
    """``Name: value`` lines as the API's ``headers`` object, or the first line that is not one.

    >>> header_lines("Authorization: Bearer x\\n\\nX-Scope-OrgID: 1")
    {'Authorization': 'Bearer x', 'X-Scope-OrgID': '1'}
    >>> header_lines("no colon")
    'no colon'
    """
    headers: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, sep, value = line.partition(":")
        if not sep:
            return line
        headers[name.strip()] = value.strip()
    return headers


def _body(form: dict[str, str]) -> dict[str, Any] | str:
    """The API's body for the form (``headers`` only when lines were given), or the message for
    a line that is not a header."""
    headers = header_lines(form["headers"])
    if isinstance(headers, str):
        return f"Not a header line (Name: value): {headers}"
    body: dict[str, Any] = {"name": form["name"], "url": form["url"]}
    if form["service_label"].strip():
        body["service_label"] = form["service_label"].strip()
    if headers:
        body["headers"] = headers
    return body


async def _page(
    request: Request[Any, Any, Any],
    viewer: Viewer,
    form: dict[str, str],
    *,
    error: str | None = None,
    check: dict[str, Any] | None = None,
) -> Template:
    async with request.app.state.session_factory() as session:
        rows = await store.list_all(session, viewer.org_id)
    return form_page(
        "data_sources.html",
        viewer,
        "metrics",
        title="Data sources",
        sources=[(encode_global_id("DataSource", r.id), r) for r in rows],
        form=form,
        error=error,
        check=check,
        notice=request.query_params.get("notice"),
    )


@get("/data-sources", **PAGE_OPTIONS)
async def data_sources_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """The data sources; for admins the form to add one and a Test connection button each."""
    return await _page(request, viewer, dict(_BLANK))


@post("/data-sources", status_code=303, **PAGE_OPTIONS)
async def add_data_source(request: Request[Any, Any, Any], viewer: ViewerDep) -> Response[Any]:
    """Add a Prometheus data source (admins only), as ``POST /api/v1/data-sources``."""
    data = await form_data(request, viewer)
    require_admin_viewer(viewer)
    form = {key: data.get(key, "") for key in _BLANK}
    body = _body(form)
    if isinstance(body, str):
        return await _page(request, viewer, form, error=body)
    state = request.app.state
    try:
        parsed = store.parse_create({**body, "kind": "prometheus"})
        cipher = await store.load_cipher(state.session_factory, state.settings.secret_key)
        async with state.session_factory() as session:
            await store.create(session, viewer.org_id, parsed, cipher)
    except (store.DataSourceError, store.DataSourceConflict) as exc:
        return await _page(request, viewer, form, error=str(exc))
    return Redirect(path="/data-sources?notice=added", status_code=303)


@post("/data-sources/{source_id:str}/test", status_code=200, **PAGE_OPTIONS)
async def test_data_source_connection(
    request: Request[Any, Any, Any], viewer: ViewerDep, source_id: FromPath[str]
) -> Template:
    """Test connection (admins only), as ``POST /api/v1/data-sources/{id}/test``."""
    await form_data(request, viewer)
    require_admin_viewer(viewer)
    state = request.app.state
    async with state.session_factory() as session:
        row = await _stored(session, viewer, source_id)
    cipher = await store.load_cipher(state.session_factory, state.settings.secret_key)
    ok, detail = await store.check_connection(row, cipher)
    check = {"id": source_id, "name": row.name, "ok": ok, "detail": detail}
    return await _page(request, viewer, dict(_BLANK), check=check)


async def _stored(session: AsyncSession, viewer: Viewer, source_id: str) -> DataSource:
    pk = decode_global_id(source_id, "DataSource")
    row = await store.get(session, viewer.org_id, pk) if pk is not None else None
    if row is None:
        raise not_found("Data source")
    return row


def _shown(row: DataSource) -> dict[str, Any]:
    """What the edit page shows of the stored row (read before a failed save expires it)."""
    return {"name": row.name, "kind": row.kind, "header_names": list(row.header_names or [])}


def _edit_page(
    viewer: Viewer, gid: str, stored: dict[str, Any], form: dict[str, str], error: str | None = None
) -> Template:
    return form_page(
        "data_source_form.html",
        viewer,
        "metrics",
        title=f"Edit {stored['name']}",
        gid=gid,
        stored=stored,
        form=form,
        error=error,
    )


@get("/data-sources/{source_id:str}/edit", **PAGE_OPTIONS)
async def edit_data_source_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, source_id: FromPath[str]
) -> Template:
    """The form to change a data source, and to delete it (admins only). Header values are
    never shown: new lines replace them all, or the box ticked removes them."""
    require_admin_viewer(viewer)
    async with request.app.state.session_factory() as session:
        row = await _stored(session, viewer, source_id)
    form = {"name": row.name, "url": row.url, "service_label": row.service_label, "headers": ""}
    return _edit_page(viewer, source_id, _shown(row), form)


@post("/data-sources/{source_id:str}/edit", status_code=303, **PAGE_OPTIONS)
async def update_data_source(
    request: Request[Any, Any, Any], viewer: ViewerDep, source_id: FromPath[str]
) -> Response[Any]:
    """Save the data source (admins only), as ``PUT /api/v1/data-sources/{id}``: empty header
    lines keep the stored headers, ``clear_headers`` removes them."""
    data = await form_data(request, viewer)
    require_admin_viewer(viewer)
    form = {key: data.get(key, "") for key in _BLANK}
    body = _body(form)
    body_error = body if isinstance(body, str) else None
    if isinstance(body, dict):
        body.setdefault("service_label", None)  # emptied: the default label, as in the API
        if data.get("clear_headers") and "headers" not in body:
            body["headers"] = {}
    state = request.app.state
    cipher = await store.load_cipher(state.session_factory, state.settings.secret_key)
    async with state.session_factory() as session:
        row = await _stored(session, viewer, source_id)
        stored = _shown(row)
        try:
            if body_error is not None:
                raise store.DataSourceError(body_error)
            await store.update(session, row, store.parse_update(body), cipher)
        except (store.DataSourceError, store.DataSourceConflict) as exc:
            await session.rollback()
            return _edit_page(viewer, source_id, stored, form, str(exc))
    return Redirect(path="/data-sources?notice=saved", status_code=303)


@post("/data-sources/{source_id:str}/delete", status_code=303, **PAGE_OPTIONS)
async def delete_data_source(
    request: Request[Any, Any, Any], viewer: ViewerDep, source_id: FromPath[str]
) -> Response[Any]:
    """Delete the data source (admins only), as ``DELETE /api/v1/data-sources/{id}``; its
    evidence snapshots stay readable."""

    async def delete(session: AsyncSession) -> None:
        await store.remove(session, await _stored(session, viewer, source_id))

    return await delete_form(request, viewer, delete, "/data-sources", admin=True)


ROUTES: list[Any] = [
    data_sources_page,
    add_data_source,
    test_data_source_connection,
    edit_data_source_page,
    update_data_source,
    delete_data_source,
]
