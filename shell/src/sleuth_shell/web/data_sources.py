"""Data sources: the organization's Prometheus-compatible sources; admins add one and test its
connection, as ``POST /api/v1/data-sources`` and ``POST /api/v1/data-sources/{id}/test`` do.

The form becomes the API's body and goes through the store's own parse, create and connection
check (:mod:`sleuth_shell.datasources.store`), so the messages are the API's. Header values are
sealed at rest and never shown.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.datasources import store
from sleuth_shell.errors import not_found
from sleuth_shell.web.guard import (
    PAGE_OPTIONS,
    Viewer,
    ViewerDep,
    form_data,
    page,
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
    return page(
        "data_sources.html",
        viewer,
        "metrics",
        status_code=400 if error else 200,
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
    headers = header_lines(form["headers"])
    if isinstance(headers, str):
        return await _page(
            request, viewer, form, error=f"Not a header line (Name: value): {headers}"
        )
    body: dict[str, Any] = {"name": form["name"], "kind": "prometheus", "url": form["url"]}
    if form["service_label"].strip():
        body["service_label"] = form["service_label"].strip()
    if headers:
        body["headers"] = headers
    state = request.app.state
    try:
        parsed = store.parse_create(body)
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
        pk = decode_global_id(source_id, "DataSource")
        row = await store.get(session, viewer.org_id, pk) if pk is not None else None
    if row is None:
        raise not_found("Data source")
    cipher = await store.load_cipher(state.session_factory, state.settings.secret_key)
    ok, detail = await store.check_connection(row, cipher)
    check = {"id": source_id, "name": row.name, "ok": ok, "detail": detail}
    return await _page(request, viewer, dict(_BLANK), check=check)


ROUTES: list[Any] = [data_sources_page, add_data_source, test_data_source_connection]
