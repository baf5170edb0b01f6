"""``POST /api/v1/interactions`` and ``GET /api/v1/interactions/{interaction_id}``.

Both answer 401 ``Unauthorized`` for a missing or invalid key and keep to the SPEC's 400 details
(see :mod:`sleuth_shell.interactions.request`). Modes: synchronous (the answer is in the response),
background (a callback URL or ``async: true``; poll with GET), scheduled (``scheduled_runtimes``, or
the deprecated singular ``scheduled_runtime`` with its legacy response shape).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
from litestar import Request, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIType, Operation, RequestBody, Schema
from litestar.params import FromPath
from litestar.status_codes import HTTP_200_OK
from sqlalchemy import select

from sleuth_shell.api.body import decode_json_body
from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.db.models import Interaction, utcnow
from sleuth_shell.errors import INVALID_BODY_OPT, ApiError, bad_request, not_found
from sleuth_shell.interactions.request import InvalidInteraction, parse_interaction_request
from sleuth_shell.interactions.service import (
    SCHEDULED,
    InteractionFailed,
    complete_interaction,
    create_interactions,
    fail_interaction,
    run_agent,
    unix_seconds,
    view,
)
from sleuth_shell.jobs.runtime import JobRuntime
from sleuth_shell.urls import interaction_url

__all__ = ["ROUTES"]

_OPT = {"unauthorized_detail": "Unauthorized", INVALID_BODY_OPT: "Invalid payload"}


class ErrorBody(msgspec.Struct):
    """Every error answer: ``{"detail": str}``."""

    detail: str


def _error(description: str) -> ResponseSpec:
    return ResponseSpec(data_container=ErrorBody, description=description, generate_examples=False)


def _object(properties: dict[str, Schema], **kwargs: Any) -> Schema:
    """A closed object: a member it does not list is ``Invalid payload``."""
    return Schema(
        type=OpenAPIType.OBJECT, properties=properties, additional_properties=False, **kwargs
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


def _runtime(request: Request[Any, Any, Any]) -> JobRuntime:
    runtime: JobRuntime = request.app.state.jobs
    return runtime


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
    request: Request[Any, Any, Any], principal: CurrentPrincipal, db_session: DbSession
) -> dict[str, Any]:
    """Ask the agent a question: now, in the background, or at up to 10 future times.

    Body: ``question`` (required), ``context``, ``user_id``, ``use_tools``, ``async``,
    ``scheduled_runtimes`` (or the deprecated ``scheduled_runtime``), ``notifications``.
    """
    try:
        body = decode_json_body(await request.body())
    except ValueError:
        raise bad_request("Invalid payload") from None
    runtime = _runtime(request)
    services = runtime.services
    public_url = services.settings.public_url
    try:
        parsed = parse_interaction_request(body, utcnow())
        rows = await create_interactions(
            db_session,
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
    await db_session.commit()

    if parsed.mode == "sync":
        row = rows[0]
        try:
            answer = await run_agent(services, row)
        except InteractionFailed as exc:
            async with services.sessions() as session:
                await fail_interaction(session, row.id, str(exc))
                await session.commit()
            raise ApiError(500, str(exc)) from None
        except BaseException:
            async with services.sessions() as session:
                await fail_interaction(session, row.id, "The run was interrupted")
                await session.commit()
            raise
        await complete_interaction(db_session, services, row.id, answer)
        return {
            "question": row.question,
            "content": answer.content,
            "sources": answer.sources,
            "interaction_id": row.id,
            "url": interaction_url(public_url, row.id),
        }

    items = [
        {
            "interaction_id": row.id,
            "scheduled_runtime": unix_seconds(row.scheduled_runtime or utcnow()),
            "url": interaction_url(public_url, row.id),
        }
        for row in rows
    ]
    if parsed.legacy_runtime:
        return {**items[0], "status": SCHEDULED}
    return {"interactions": items, "status": SCHEDULED}


@get(
    "/interactions/{interaction_id:str}",
    operation_id="getInteraction",
    tags=["interactions"],
    opt=_OPT,
    responses={401: _error("Unauthorized"), 404: _error("Interaction not found")},
)
async def get_interaction(
    request: Request[Any, Any, Any],
    interaction_id: FromPath[str],
    principal: CurrentPrincipal,
    db_session: DbSession,
) -> dict[str, Any]:
    """The interaction's status and, once ``COMPLETED``, its answer."""
    row = await db_session.scalar(
        select(Interaction).where(
            Interaction.id == interaction_id, Interaction.org_id == principal.org_id
        )
    )
    if row is None:
        raise not_found("Interaction")
    return view(row, _runtime(request).services.settings.public_url)


ROUTES = [create_interaction, get_interaction]
