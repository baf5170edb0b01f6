"""Change records, the pages a change source ``link`` opens: ``/changes/{id}`` (one record) and
``/changes`` (the link's ``?query=<JSON>`` or the page's own filter form).
"""

from __future__ import annotations

import json
from typing import Any

from litestar import Request, get
from litestar.params import FromPath
from litestar.response import Template

from sleuth_shell.agents.base import CHANGE_KINDS
from sleuth_shell.changes.store import SqlChangeStore
from sleuth_shell.domain import MAX_PK
from sleuth_shell.errors import bad_request, not_found
from sleuth_shell.web.filters import (
    filled_form,
    form_range,
    form_text,
    page_links,
    page_number,
    query_json,
    query_range,
    strings,
)
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, page

__all__ = ["CHANGE_PAGE", "ROUTES", "parse_change_query"]

#: Change records per page of ``/changes``.
CHANGE_PAGE = 50


def parse_change_query(raw: str) -> dict[str, Any]:
    """The change query of a ``/changes?query=`` link: ``{start, end, services, kinds, text}``
    (see `sleuth_shell.agents.sources.change_query_json`). Raises the API's 400 naming the bad
    member."""
    query = query_json(raw)
    start, end = query_range(query)
    kinds = strings(query.get("kinds"), "kinds")
    if kinds and any(kind.lower() not in CHANGE_KINDS for kind in kinds):
        raise bad_request(f"Invalid query: kinds must be among {', '.join(CHANGE_KINDS)}")
    text = query.get("text")
    if text is not None and not isinstance(text, str):
        raise bad_request("Invalid query: text must be a string or null")
    return {
        "start": start,
        "end": end,
        "services": strings(query.get("services"), "services"),
        "kinds": [kind.lower() for kind in kinds] if kinds else None,
        "text": text.replace("\x00", "") or None if text else None,
    }


@get("/changes", **PAGE_OPTIONS)
async def changes_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Change records, newest first, 50 a page, filtered by service, kind, text (summary, files,
    diff) and time range, or by a source link's ``?query=<JSON>``."""
    number = page_number(request)
    raw = request.query_params.get("query")
    if raw is not None:
        f = parse_change_query(raw)
    else:
        kind = form_text(request, "kind").lower()
        if kind and kind not in CHANGE_KINDS:
            raise bad_request(f"Invalid kind: must be one of {', '.join(CHANGE_KINDS)}")
        start, end = form_range(request)
        service = form_text(request, "service")
        f = {
            "start": start,
            "end": end,
            "services": [service] if service else None,
            "kinds": [kind] if kind else None,
            "text": form_text(request, "text") or None,
        }
    store = SqlChangeStore(request.app.state.session_factory)
    rows = await store.search(
        viewer.org_id, **f, limit=CHANGE_PAGE + 1, offset=(number - 1) * CHANGE_PAGE
    )
    total = await store.count(viewer.org_id, **f)
    return page(
        "changes.html",
        viewer,
        "changes",
        title="Change records",
        rows=rows[:CHANGE_PAGE],
        total=total,
        services=await store.services(viewer.org_id),
        kinds=CHANGE_KINDS,
        form=filled_form(f, "kind"),
        number=number,
        links=page_links(request, number, len(rows) > CHANGE_PAGE),
    )


@get("/changes/{row_id:int}", **PAGE_OPTIONS)
async def change_page(
    row_id: FromPath[int], request: Request[Any, Any, Any], viewer: ViewerDep
) -> Template:
    """One change record: summary, author, files, diff, attributes, the deploys that shipped it
    and (for a deploy) the commits it ships."""
    store = SqlChangeStore(request.app.state.session_factory)
    change = await store.get(viewer.org_id, row_id) if 0 < row_id <= MAX_PK else None
    if change is None:
        raise not_found("Change")
    shipped_by = await store.shipped_by(viewer.org_id, change.change_id)
    known = {c.change_id: c for c in await store.get_many(viewer.org_id, change.ships)}
    return page(
        "change.html",
        viewer,
        "changes",
        title=f"{change.kind.title()} {change.change_id}",
        change=change,
        shipped_by=shipped_by,
        ships=[(commit_id, known.get(commit_id)) for commit_id in change.ships],
        attrs=json.dumps(change.attributes, sort_keys=True, indent=2) if change.attributes else "",
    )


ROUTES: list[Any] = [changes_page, change_page]
