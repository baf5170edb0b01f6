"""``POST /api/v1/interactions``, ``GET /api/v1/interactions/{interaction_id}`` and the list
``GET /api/v1/interactions?limit=&cursor=`` (newest first, cursor-paged).

Both answer 401 ``Unauthorized`` for a missing or invalid key and keep to the SPEC's 400 details
(see :mod:`sleuth_shell.interactions.request`). Modes: synchronous (the answer is in the response),
background (a callback URL or ``async: true``; poll with GET), scheduled (``scheduled_runtimes``, or
the deprecated singular ``scheduled_runtime`` with its legacy response shape).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
from litestar import Request, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import (
    OpenAPIMediaType,
    OpenAPIType,
    Operation,
    Reference,
    RequestBody,
    Schema,
)
from litestar.params import FromPath, FromQuery
from litestar.status_codes import HTTP_200_OK
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.api.body import decode_json_body
from sleuth_shell.api.common import parse_page
from sleuth_shell.api.deps import AppServices, CurrentPrincipal, DbSession
from sleuth_shell.db.models import Interaction, utcnow
from sleuth_shell.db.paging import InvalidCursor
from sleuth_shell.errors import INVALID_BODY_OPT, ApiError, bad_request, not_found
from sleuth_shell.interactions.queries import list_interactions as list_interactions_of
from sleuth_shell.interactions.queries import load_interaction
from sleuth_shell.interactions.request import InvalidInteraction, parse_interaction_request
from sleuth_shell.interactions.service import (
    analysis_view,
    answer_view,
    list_item,
    scheduled_view,
    submit_interactions,
    view,
)
from sleuth_shell.runs import RunFailed
from sleuth_shell.services import Services

__all__ = ["ROUTES"]

_OPT = {"unauthorized_detail": "Unauthorized", INVALID_BODY_OPT: "Invalid payload"}


class ErrorBody(msgspec.Struct):
    """Every error answer: ``{"detail": str}``."""

    detail: str


def _error(description: str) -> ResponseSpec:
    return ResponseSpec(data_container=ErrorBody, description=description, generate_examples=False)


def _object(properties: Mapping[str, Schema | Reference], **kwargs: Any) -> Schema:
    """A closed object: a member it does not list is ``Invalid payload``."""
    return Schema(
        type=OpenAPIType.OBJECT, properties=dict(properties), additional_properties=False, **kwargs
    )


_STRING = Schema(type=OpenAPIType.STRING)
_STRINGS = Schema(type=OpenAPIType.ARRAY, items=_STRING)

CREATE_BODY = _object(
    {
        "question": Schema(type=OpenAPIType.STRING, min_length=1),
        "context": Schema(
            type=OpenAPIType.ARRAY,
            items=_object({"interaction_id": _STRING, "content": _STRING}),
        ),
        "user_id": _STRING,
        "use_tools": Schema(type=OpenAPIType.BOOLEAN, default=True),
        "async": Schema(type=OpenAPIType.BOOLEAN, default=False),
        "scheduled_runtimes": Schema(
            type=OpenAPIType.ARRAY, items=Schema(type=OpenAPIType.INTEGER), max_items=10
        ),
        "scheduled_runtime": Schema(type=OpenAPIType.INTEGER, deprecated=True),
        "notifications": _object(
            {
                "chat": _object({"chat_channel_ids": _STRINGS}),
                "alt": _object({"alt_webhook_urls": _STRINGS}),
                "web": _object(
                    {
                        "callback_url": _STRING,
                        "custom_headers": Schema(
                            type=OpenAPIType.OBJECT, additional_properties=_STRING
                        ),
                    }
                ),
            }
        ),
    },
    required=["question"],
)
"""The documented request body of ``POST /api/v1/interactions`` (validated by hand, see
:mod:`sleuth_shell.interactions.request`, so the four SPEC details are exact)."""


@dataclass
class _CreateOperation(Operation):
    def __post_init__(self) -> None:
        self.request_body = RequestBody(
            content={"application/json": OpenAPIMediaType(schema=CREATE_BODY)}, required=True
        )


@post(
    "/interactions",
    operation_id="createInteraction",
    tags=["interactions"],
    status_code=HTTP_200_OK,
    opt=_OPT,
    operation_class=_CreateOperation,
    responses={
        400: _error("Invalid payload, question, context or callback_url"),
        401: _error("Unauthorized"),
        500: _error("The synchronous run failed"),
    },
)
async def create_interaction(
    request: Request[Any, Any, Any],
    principal: CurrentPrincipal,
) -> dict[str, Any]:
    """Ask the agent a question: now, in the background, or at up to 10 future times.

    Body: ``question`` (required), ``context``, ``user_id``, ``use_tools``, ``async``,
    ``scheduled_runtimes`` (or the deprecated ``scheduled_runtime``), ``notifications``.
    """
    # One dependency (the principal) instead of three: Litestar resolves several in an anyio
    # task group (three tasks a request). The services come from the app's state, as the
    # ``services`` dependency gives them; submit_interactions opens a session when it needs one
    # (a synchronous question on SQLite does not, see sleuth_shell.db.direct_writes).
    services: Services = request.app.state.services
    try:
        body = decode_json_body(await request.body())
    except ValueError:
        raise bad_request("Invalid payload") from None
    try:
        parsed = parse_interaction_request(body, utcnow())
        submitted = await submit_interactions(
            None,  # opened only when needed
            services,
            org_id=principal.org_id,
            team_id=principal.team_id,
            api_key_id=principal.key_id,
            api_key=principal.api_key,
            request=parsed,
            now=utcnow(),
        )
    except InvalidInteraction as exc:
        raise bad_request(exc.detail) from None
    except RunFailed as exc:
        raise ApiError(500, str(exc)) from None
    public_url = services.settings.public_url
    if submitted.answer is not None:
        return answer_view(submitted.rows[0], submitted.answer, public_url)
    return scheduled_view(submitted.rows, public_url, legacy=parsed.legacy_runtime)


async def _interaction_of(session: AsyncSession, org_id: int, interaction_id: str) -> Interaction:
    """The organization's interaction ``interaction_id``; 404 ``Interaction not found``."""
    row = await load_interaction(session, org_id, interaction_id)
    if row is None:
        raise not_found("Interaction")
    return row


@get(
    "/interactions/{interaction_id:str}",
    operation_id="getInteraction",
    tags=["interactions"],
    opt=_OPT,
    responses={401: _error("Unauthorized"), 404: _error("Interaction not found")},
)
async def get_interaction(
    interaction_id: FromPath[str],
    principal: CurrentPrincipal,
    db_session: DbSession,
    services: AppServices,
) -> dict[str, Any]:
    """The interaction's status and, once ``COMPLETED``, its answer."""
    row = await _interaction_of(db_session, principal.org_id, interaction_id)
    return view(row, services.settings.public_url)


@get(
    "/interactions",
    operation_id="listInteractions",
    tags=["interactions"],
    opt=_OPT,
    responses={400: _error("Invalid limit or cursor"), 401: _error("Unauthorized")},
)
async def list_interactions(
    principal: CurrentPrincipal,
    db_session: DbSession,
    services: AppServices,
    limit: FromQuery[str | None] = None,
    cursor: FromQuery[str | None] = None,
) -> dict[str, Any]:
    """The organization's interactions, newest first: ``{interactions: [{interaction_id,
    question, status, created_at, url}], next_cursor}``. ``limit`` is 1-100 (default 20); pass
    ``next_cursor`` back as ``cursor`` for the next page (null on the last one)."""
    page_request = parse_page(limit, cursor)
    try:
        page = await list_interactions_of(db_session, principal.org_id, page_request)
    except InvalidCursor:
        raise bad_request(f"Invalid cursor: {cursor}") from None
    public_url = services.settings.public_url
    items = [list_item(row, public_url) for (row,) in page.rows]
    return {"interactions": items, "next_cursor": page.next_cursor}


@get(
    "/interactions/{interaction_id:str}/analysis",
    operation_id="getInteractionAnalysis",
    tags=["interactions"],
    opt=_OPT,
    responses={401: _error("Unauthorized"), 404: _error("Interaction not found")},
)
async def get_interaction_analysis(
    interaction_id: FromPath[str], principal: CurrentPrincipal, db_session: DbSession
) -> dict[str, Any]:
    """``{"analysis": {...} | null}``: the structured root-cause verdict of a "why" question
    (the members of an investigation's ``analysis``; evidence as citation numbers of the
    answer's ``sources``), null for other questions and unfinished ones."""
    row = await _interaction_of(db_session, principal.org_id, interaction_id)
    return analysis_view(row)


ROUTES = [create_interaction, get_interaction, get_interaction_analysis, list_interactions]
