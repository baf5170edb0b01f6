"""The advanced-settings document: validation and chat-trigger evaluation.

The document is a JSON object edited by organization admins (SPEC "Advanced settings", DESIGN
section 5). Known members:

- ``assignments``: optional list (``null`` means none) of chat triggers, each an object with
  ``type`` (required, must be ``"watch_chat"``), ``text_match`` (required, a non-empty list of
  non-empty strings: every one must occur in a message, case-insensitively), and the optional
  strings ``channel`` (a channel ID starting with C or G; ``""`` or absent means any channel),
  ``_comment``, ``filtering_instructions`` and ``static_response`` (the text of the STATIC reply).
- ``ext_channels``: optional list (``null`` means none) of channel IDs starting with C or G.

Unknown members, at the top level and inside assignments, are kept unchanged.

>>> doc = {"assignments": [{"type": "watch_chat", "text_match": ["deploy", "FAILED"]}]}
>>> validate_advanced_settings(doc) == doc
True
>>> [a["text_match"] for a in triggered_assignments(doc, "C123", "Deploy failed on api")]
[['deploy', 'FAILED']]
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from sleuth_core.errors import InvalidSettings

__all__ = ["triggered_assignments", "validate_advanced_settings"]

_CHANNEL_ID = re.compile(r"[CG][A-Za-z0-9]+")
_OPTIONAL_STRINGS = ("_comment", "filtering_instructions", "static_response")


def _check_channel_id(value: object, path: str) -> None:
    if not isinstance(value, str) or _CHANNEL_ID.fullmatch(value) is None:
        raise InvalidSettings(f"{path} must be a channel ID starting with C or G")


def _check_assignment(item: object, path: str) -> None:
    if not isinstance(item, Mapping):
        raise InvalidSettings(f"{path} must be an object")
    if item.get("type") != "watch_chat":
        raise InvalidSettings(f'{path}.type must be "watch_chat"')
    text_match = item.get("text_match")
    if (
        not isinstance(text_match, list)
        or not text_match
        or not all(isinstance(s, str) for s in text_match)
    ):
        raise InvalidSettings(f"{path}.text_match must be a non-empty list of strings")
    for index, needle in enumerate(text_match):
        if not needle.strip():
            raise InvalidSettings(f"{path}.text_match[{index}] must not be blank")
    channel = item.get("channel")
    if channel is not None and channel != "":
        _check_channel_id(channel, f"{path}.channel")
    for name in _OPTIONAL_STRINGS:
        value = item.get(name)
        if value is not None and not isinstance(value, str):
            raise InvalidSettings(f"{path}.{name} must be a string")


def validate_advanced_settings(doc: object) -> dict[str, Any]:
    """Validate the advanced-settings document and return a normalized deep copy.

    Raises :class:`~sleuth_core.errors.InvalidSettings` whose message names the offending path,
    e.g. ``assignments[0].text_match must be a non-empty list of strings``. Unknown members are
    kept. The copy is independent of ``doc`` (mutating one never changes the other); member
    values are returned as given.

    >>> validate_advanced_settings({"ext_channels": ["C042", "x"]})
    Traceback (most recent call last):
    ...
    sleuth_core.errors.InvalidSettings: ext_channels[1] must be a channel ID starting with C or G
    """
    if not isinstance(doc, Mapping):
        raise InvalidSettings("The advanced settings must be a JSON object")
    for key in doc:
        if not isinstance(key, str):
            raise InvalidSettings("The advanced settings keys must be strings")
    for name, check in (("assignments", _check_assignment), ("ext_channels", _check_channel_id)):
        items = doc.get(name)
        if items is None:
            continue
        if not isinstance(items, list):
            raise InvalidSettings(f"{name} must be a list")
        for index, item in enumerate(items):
            check(item, f"{name}[{index}]")
    return copy.deepcopy(dict(doc))


def triggered_assignments(
    doc: Mapping[str, Any], channel_id: str, text: str
) -> list[dict[str, Any]]:
    """Return (copies of) the assignments of ``doc`` that fire for a message, in document order.

    An assignment fires when its ``type`` is ``watch_chat``, its ``channel`` is absent, null, ``""``
    or equal to ``channel_id``, and every ``text_match`` string occurs in ``text``, compared
    case-insensitively (Unicode case folding). ``doc`` should have passed
    :func:`validate_advanced_settings`; malformed assignments in an unvalidated document never
    fire and never raise.

    >>> doc = {"assignments": [
    ...     {"type": "watch_chat", "channel": "C1", "text_match": ["help"]},
    ...     {"type": "watch_chat", "text_match": ["help", "db"]},
    ... ]}
    >>> len(triggered_assignments(doc, "C2", "HELP with the DB please"))
    1
    >>> len(triggered_assignments(doc, "C1", "help"))
    1
    """
    assignments = doc.get("assignments") if isinstance(doc, Mapping) else None
    if not isinstance(assignments, list):
        return []
    folded = text.casefold() if isinstance(text, str) else ""
    fired: list[dict[str, Any]] = []
    for item in assignments:
        if not isinstance(item, Mapping) or item.get("type") != "watch_chat":
            continue
        channel = item.get("channel")
        if channel not in (None, "") and channel != channel_id:
            continue
        needles = item.get("text_match")
        if not isinstance(needles, list) or not needles:
            continue
        if all(isinstance(n, str) and n.casefold() in folded for n in needles):
            fired.append(copy.deepcopy(dict(item)))
    return fired
