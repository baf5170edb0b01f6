"""``GET``/``PUT /api/v1/settings/advanced``: the organization's advanced-settings document.

The document holds the chat triggers (``assignments``) and the external channels (``ext_channels``)
of SPEC "Advanced settings", plus any further members, which are kept as given. Any key of the
organization reads it; only an admin key (``sleuth admin create-key ORG --admin``) replaces it, and
the new document is validated by :func:`sleuth_core.settings.validate_advanced_settings` first, so
a refused document changes nothing.
"""

from __future__ import annotations

from typing import Any

from litestar import get, put
from litestar.params import JSONBody

from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.auth import require_admin
from sleuth_shell.errors import error_responses
from sleuth_shell.org_settings import load_advanced_settings, save_advanced_settings

__all__ = ["ROUTES"]


@get(
    "/settings/advanced",
    operation_id="getAdvancedSettings",
    responses=error_responses(),
    tags=["settings"],
)
async def get_advanced_settings(
    principal: CurrentPrincipal, db_session: DbSession
) -> dict[str, Any]:
    """The advanced-settings document (chat triggers, external channels, further members)."""
    return await load_advanced_settings(db_session, principal.org_id)


@put(
    "/settings/advanced",
    operation_id="putAdvancedSettings",
    responses=error_responses(403, 413),
    tags=["settings"],
)
async def put_advanced_settings(
    data: JSONBody[dict[str, Any]], principal: CurrentPrincipal, db_session: DbSession
) -> dict[str, Any]:
    """Replace the document (admin keys only); returns it as stored."""
    require_admin(principal)
    document = await save_advanced_settings(db_session, principal.org_id, data)
    await db_session.commit()
    return document


ROUTES = [get_advanced_settings, put_advanced_settings]
