"""An organization's advanced settings document: the one read and the one write that the API,
the settings page and the chat triggers share (the rules of the document are the core's
:func:`~sleuth_core.settings.validate_advanced_settings`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.settings import validate_advanced_settings
from sleuth_shell.db.models import AdvancedSettings

__all__ = ["load_advanced_settings", "save_advanced_settings"]


async def load_advanced_settings(session: AsyncSession, org_id: int) -> dict[str, Any]:
    """The organization's advanced settings (``{}`` when none were ever saved)."""
    row = await session.get(AdvancedSettings, org_id)
    return dict(row.document) if row is not None else {}


async def save_advanced_settings(
    session: AsyncSession, org_id: int, document: Any
) -> dict[str, Any]:
    """Validate ``document`` and make it the organization's settings (the caller commits);
    returns it as stored. Raises :class:`~sleuth_core.errors.InvalidSettings`."""
    checked = validate_advanced_settings(document)
    row = await session.get(AdvancedSettings, org_id)
    if row is None:
        session.add(AdvancedSettings(org_id=org_id, document=checked))
    else:
        row.document = checked
    return checked
