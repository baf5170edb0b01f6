"""``normalize_criteria``: validate an alert agent's matching criteria and apply precedence."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sleuth_core.errors import InvalidCriteria
from sleuth_core.matching.patterns import patterns_from_rules, rules_from_patterns
from sleuth_core.matching.rules import validate_rules

_MEMBERS = ("text_matches", "match_rules", "chat_bot_app_user_id")
#: Longest accepted ``chat_bot_app_user_id``.
MAX_BOT_ID_LENGTH = 255


def normalize_criteria(criteria: Mapping[str, Any]) -> dict[str, Any]:
    """Validate matching criteria and return both forms.

    ``text_matches`` alone: ``match_rules`` is derived (an AND of one leaf per pattern) and the
    patterns are returned as given. ``match_rules`` given (alone or with ``text_matches``): it wins,
    and ``text_matches`` is regenerated from it - the exact wildcard form, or ``[]`` when there is
    none. ``chat_bot_app_user_id`` is passed through when given (a non-empty string); a ``null``
    member counts as absent.

    >>> normalize_criteria({"text_matches": ["error", "db-*"]})  # doctest: +NORMALIZE_WHITESPACE
    {'text_matches': ['error', 'db-*'],
     'match_rules': {'operator': 'AND', 'conditions': [{'type': 'contains', 'value': 'error'},
                                                       {'type': 'starts_with', 'value': 'db-'}]}}
    >>> rules = {"operator": "AND", "conditions": [{"type": "ends_with", "value": "down"}]}
    >>> normalize_criteria({"text_matches": ["stale"], "match_rules": rules})["text_matches"]
    ['*down']

    Raises :class:`~sleuth_core.errors.InvalidCriteria` with a message fit for the user.
    """
    if not isinstance(criteria, Mapping):
        raise InvalidCriteria("matching_criteria must be an object")
    unknown = [str(key) for key in criteria if key not in _MEMBERS]
    if unknown:
        raise InvalidCriteria(
            f"matching_criteria has unknown member {sorted(unknown)[0]!r}; "
            "use text_matches, match_rules or chat_bot_app_user_id"
        )
    text_matches = criteria.get("text_matches")
    match_rules = criteria.get("match_rules")
    bot_id = criteria.get("chat_bot_app_user_id")

    if text_matches is not None and (
        not isinstance(text_matches, list | tuple)
        or not all(isinstance(pattern, str) for pattern in text_matches)
    ):
        raise InvalidCriteria("text_matches must be an array of strings")
    if match_rules is not None:
        rules = validate_rules(match_rules)
        result: dict[str, Any] = {"text_matches": patterns_from_rules(rules), "match_rules": rules}
    elif text_matches is None:
        raise InvalidCriteria("matching_criteria needs text_matches or match_rules")
    elif not text_matches:
        raise InvalidCriteria("text_matches must not be empty when match_rules is not given")
    else:
        result = {
            "text_matches": list(text_matches),
            "match_rules": rules_from_patterns(text_matches),
        }

    if bot_id is not None:
        if not isinstance(bot_id, str) or not bot_id.strip():
            raise InvalidCriteria("chat_bot_app_user_id must be a non-empty string")
        if len(bot_id) > MAX_BOT_ID_LENGTH:
            raise InvalidCriteria(
                f"chat_bot_app_user_id is {len(bot_id)} characters long; "
                f"at most {MAX_BOT_ID_LENGTH} are allowed"
            )
        result["chat_bot_app_user_id"] = bot_id
    return result
