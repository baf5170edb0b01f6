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
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.settings import validate_advanced_settings
from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.auth import require_admin
from sleuth_shell.db.models import AdvancedSettings
from sleuth_shell.errors import error_responses

__all__ = ["ROUTES", "load_advanced_settings"]


async def load_advanced_settings(session: AsyncSession, org_id: int) -> dict[str, Any]:
    """The organization's advanced settings (``{}`` when none were ever saved)."""
    row = await session.get(AdvancedSettings, org_id)
    return dict(row.document) if row is not None else {}


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
    document = validate_advanced_settings(data)
    row = await db_session.get(AdvancedSettings, principal.org_id)
    if row is None:
        db_session.add(AdvancedSettings(org_id=principal.org_id, document=document))
    else:
        row.document = document
    await db_session.commit()
    return document


ROUTES = [get_advanced_settings, put_advanced_settings]
