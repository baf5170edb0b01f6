"""Adapter rules beyond the fixtures: errors, fallbacks, generic JSON, chat filtering, fuzz."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sleuth_core.errors import CoreError, InvalidAlertPayload
from sleuth_core.intake import (
    MAX_TITLE_LENGTH,
    AlertEvent,
    ChatChallenge,
    ChatEvent,
    parse_alert,
    parse_alerts,
    parse_chat_event,
    parse_time,
)

NOW = datetime(2030, 1, 1, tzinfo=UTC)
SOURCES = [
    "PROVIDER_A",
    "PROVIDER_B",
    "PROVIDER_C",
    "PROVIDER_D",
    "ALERTMANAGER",
    "GRAFANA",
    "GENERIC",
]


def alert(source, payload, **kwargs):
    body = payload if isinstance(payload, str | bytes) else json.dumps(payload)
    return parse_alert(source, body, received_at=NOW, **kwargs)


@pytest.mark.parametrize(
    ("source", "payload", "detail"),
    [
        ("PROVIDER_A", "{not json", "Request body is not valid JSON"),
        ("PROVIDER_A", b"\xff\xfe", "Request body is not valid JSON"),
        ("PROVIDER_A", [1, 2], "PROVIDER_A payload must be a JSON object or an array of objects"),
        ("GENERIC", "3", "GENERIC payload must be a JSON object"),
        ("PROVIDER_X", {}, "Unknown webhook type: PROVIDER_X"),
    ],
)
def test_unreadable_bodies_raise_a_core_error_with_a_400_detail(source, payload, detail):
    with pytest.raises(InvalidAlertPayload) as info:
        alert(source, payload)
    assert isinstance(info.value, CoreError)
    assert str(info.value) == detail


@pytest.mark.parametrize(
    ("source", "payload"),
    [
        ("PROVIDER_A", {}),
        ("PROVIDER_A", {"event": {"id": "x"}}),
        ("PROVIDER_A", {"event": {"event_type": "incident.triggered", "data": None}}),
        ("PROVIDER_B", {"alert": {"alertId": "a"}}),
        ("PROVIDER_B", {"action": "Create"}),
        ("PROVIDER_B", {"action": "Create", "alert": {}}),
        ("PROVIDER_C", {"event": {}}),
        ("PROVIDER_C", {"data": {}}),
        ("PROVIDER_C", {"data": {"incident": {"id": None}}}),
        ("PROVIDER_D", {"data": {}}),
        ("PROVIDER_D", {"event": {"type": "incident.created"}}),
        ("ALERTMANAGER", {"alerts": "none"}),
        ("GRAFANA", {"title": "x"}),
    ],
)
def test_a_body_not_of_its_providers_shape_is_read_as_generic_json(source, payload):
    event = alert(source, payload)
    assert event.source == "GENERIC"
    assert event.dedup_key.startswith("GENERIC:")
    assert event.match_text.endswith(json.dumps(payload))


def test_a_pagerduty_body_on_an_opsgenie_subscription_is_an_alert_with_its_title():
    body = {
        "event": {
            "id": "E1",
            "event_type": "incident.triggered",
            "data": {"id": "PX", "title": "Checkout down"},
        }
    }
    [event] = parse_alerts("PROVIDER_B", json.dumps(body), received_at=NOW)
    assert (event.source, event.kind, event.title) == ("GENERIC", "new_alert", "Checkout down")
    assert event.dedup_key == "GENERIC:E1"  # breadth-first: event.id is shallower than data.id


def test_generic_arrays_are_one_alert_per_object():
    events = parse_alerts("GENERIC", json.dumps([{"title": "a"}, {"title": "b"}]), received_at=NOW)
    assert [e.title for e in events] == ["a", "b"]
    assert [json.loads(e.body) for e in events] == [{"title": "a"}, {"title": "b"}]
    assert len({e.delivery_id for e in events}) == 2
    assert parse_alerts("GENERIC", "[]", received_at=NOW) == ()


def test_pagerduty_ping_and_unknown_events_are_ignored():
    ping = alert("PROVIDER_A", {"event": {"event_type": "pagey.ping", "resource_type": "pagey"}})
    assert ping.kind == "ignored"
    assert ping.occurred_at == NOW  # no time in the body: the receipt time
    assert ping.delivery_id.startswith("sha256:")


def test_pagerduty_delivery_id_falls_back_to_the_webhook_id_header():
    body = {"event": {"event_type": "incident.resolved", "data": {"id": "P1", "type": "incident"}}}
    event = alert("PROVIDER_A", body, headers={"X-Webhook-Id": "hook-1"})
    assert (event.kind, event.delivery_id, event.dedup_key) == (
        "lifecycle",
        "hook-1",
        "PROVIDER_A:P1",
    )


def test_titles_are_one_line_of_at_most_200_characters():
    body = {"action": "Create", "alert": {"alertId": "a", "message": "x" * 150 + "\n " + "y" * 150}}
    event = alert("PROVIDER_B", body)
    assert len(event.title) == MAX_TITLE_LENGTH
    assert "\n" not in event.title and event.title.startswith("x" * 150 + " y")
    assert (
        alert("PROVIDER_B", {"action": "Create", "alert": {"alertId": "a"}}).title
        == "Untitled alert"
    )


def test_firehydrant_without_event_block_uses_the_milestone():
    started = {"data": {"incident": {"id": "i", "name": "n", "current_milestone": "started"}}}
    resolved = {"data": {"incident": {"id": "i", "current_milestone": "resolved"}}}
    assert alert("PROVIDER_C", started).kind == "new_alert"
    assert alert("PROVIDER_C", resolved).kind == "lifecycle"


@pytest.mark.parametrize(
    ("event_type", "kind"),
    [
        ("incident.created", "new_alert"),
        ("alert.created", "new_alert"),
        ("incident.resolved", "lifecycle"),
        ("incident.mitigated", "lifecycle"),
        ("incident.scheduled.created", "ignored"),
        ("genius_workflow_run.completed", "ignored"),
    ],
)
def test_rootly_kinds(event_type, kind):
    body = {"event": {"id": "e", "type": event_type}, "data": {"id": "d", "title": "t"}}
    assert alert("PROVIDER_D", body).kind == kind


def test_match_text_holds_the_adapter_fields_then_the_raw_body():
    raw = json.dumps(
        {
            "action": "Create",
            "alert": {
                "alertId": "a",
                "message": "Disk full",
                "description": "on db-07",
                "entity": "db",
                "priority": "P2",
                "tags": ["prod", 5, None],
            },
        }
    )
    event = alert("PROVIDER_B", raw)
    assert event.match_text.startswith(
        "Disk full\ndescription: on db-07\nservice: db\nseverity: P2\ntags: prod, 5\n"
    )
    assert event.match_text.endswith("\n\n" + raw)


# generic --------------------------------------------------------------------------------------


def test_generic_reads_title_dedup_kind_and_time():
    event = alert(
        "GENERIC",
        {
            "alertname": "HighLatency",
            "fingerprint": "f1",
            "status": "firing",
            "startsAt": 1714641247512,
        },
    )
    assert (event.title, event.dedup_key, event.kind) == ("HighLatency", "GENERIC:f1", "new_alert")
    assert event.occurred_at == datetime(2024, 5, 2, 9, 14, 7, 512000, tzinfo=UTC)
    assert "\nalertname: HighLatency\n" in event.match_text
    assert alert("GENERIC", {"status": "RESOLVED", "id": 7}).kind == "lifecycle"
    assert alert("GENERIC", {"state": "ok"}).kind == "lifecycle"
    assert alert("GENERIC", {"data": {"incident_id": "n1"}}).dedup_key == "GENERIC:n1"


def test_generic_without_an_id_hashes_the_body_without_volatile_keys():
    first = alert("GENERIC", {"message": "m", "timestamp": 1, "nested": {"sent_at": "a"}})
    again = alert("GENERIC", {"message": "m", "timestamp": 2, "nested": {"sent_at": "b"}})
    other = alert("GENERIC", {"message": "n", "timestamp": 1})
    assert first.dedup_key == again.dedup_key != other.dedup_key
    assert first.dedup_key.startswith("GENERIC:sha256:")
    assert first.delivery_id != again.delivery_id  # different bodies, different deliveries


# times ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-05-02T09:14:07.512Z", "2024-05-02T09:14:07.512+00:00"),
        ("2022-11-27T19:15:29.546-08:00", "2022-11-28T03:15:29.546+00:00"),
        ("2024-05-02 09:12:41 UTC", "2024-05-02T09:12:41+00:00"),
        ("2024-05-02T09:12:41", "2024-05-02T09:12:41+00:00"),  # naive means UTC
        (1714641247, "2024-05-02T09:14:07+00:00"),
        (1714641247512, "2024-05-02T09:14:07.512+00:00"),
        (1714641247899000000, "2024-05-02T09:14:07.899+00:00"),
        ("1719209506.817929", "2024-06-24T06:11:46.817929+00:00"),
    ],
)
def test_parse_time_formats(value, expected):
    assert parse_time(value) == datetime.fromisoformat(expected)


@pytest.mark.parametrize("value", [None, "", "soon", True, "NaN", float("inf"), 10**30, [], {}])
def test_parse_time_gives_none_for_non_times(value):
    assert parse_time(value) is None


# chat -----------------------------------------------------------------------------------------


def envelope(**event):
    base = {
        "type": "message",
        "channel": "C1",
        "ts": "1700000000.000100",
        "user": "U1",
        "text": "hi",
    }
    return json.dumps(
        {
            "type": "event_callback",
            "team_id": "T1",
            "api_app_id": "AOURS",
            "event_id": "Ev1",
            "authorizations": [{"user_id": "UOURBOT", "is_bot": True}],
            "event": {**base, **event},
        }
    )


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        ({}, ""),
        ({"subtype": "bot_message", "bot_id": "B9", "user": None}, ""),
        ({"thread_ts": "1700000000.000100"}, ""),  # the thread's parent itself
        ({"subtype": "thread_broadcast", "thread_ts": "1699999999.000000"}, ""),
        ({"thread_ts": "1699999999.000000"}, "thread reply"),
        ({"subtype": "message_changed"}, "subtype message_changed"),
        ({"subtype": "message_deleted"}, "subtype message_deleted"),
        ({"subtype": "channel_join"}, "subtype channel_join"),
        ({"type": "reaction_added"}, "not a message"),
        ({"user": "UOURBOT"}, "own message"),
        ({"bot_profile": {"app_id": "AOURS"}, "bot_id": "B1"}, "own message"),
        ({"channel": None}, "no channel or ts"),
    ],
)
def test_only_top_level_messages_of_others_count(event, reason):
    parsed = parse_chat_event(envelope(**event), received_at=NOW)
    assert isinstance(parsed, ChatEvent)
    assert (parsed.kind, parsed.reason) == ("ignored" if reason else "message", reason)


def test_chat_name_is_the_first_line_cut_to_200():
    parsed = parse_chat_event(envelope(text="  " + "a" * 250 + "\nsecond line"), received_at=NOW)
    assert isinstance(parsed, ChatEvent)
    assert parsed.name == "a" * 200
    assert parsed.match_text == "a" * 250 + "\nsecond line"
    empty = parse_chat_event(
        envelope(text="", attachments=[{"title": "Disk full\nmore"}]), received_at=NOW
    )
    assert isinstance(empty, ChatEvent) and empty.name == "Disk full"


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ("[]", "CHAT payload must be a JSON object"),
        ('{"type": "url_verification"}', "CHAT payload has no challenge"),
        (
            '{"type": "app_rate_limited"}',
            "CHAT payload type must be url_verification or event_callback",
        ),
        ('{"type": "event_callback"}', 'CHAT payload has no "event" object'),
    ],
)
def test_chat_errors(body, detail):
    with pytest.raises(InvalidAlertPayload, match="^" + detail.replace("[", r"\[") + "$"):
        parse_chat_event(body, received_at=NOW)


# fuzz -----------------------------------------------------------------------------------------

KEYS = st.sampled_from(
    [
        "event",
        "event_type",
        "type",
        "data",
        "id",
        "incident",
        "title",
        "summary",
        "service",
        "priority",
        "teams",
        "occurred_at",
        "created_at",
        "action",
        "alert",
        "alertId",
        "message",
        "tags",
        "createdAt",
        "updatedAt",
        "operation",
        "resource_type",
        "started_at",
        "labels",
        "severity",
        "slug",
        "name",
        "status",
        "issued_at",
        "channel",
        "ts",
        "text",
        "subtype",
        "thread_ts",
        "user",
        "bot_id",
        "attachments",
        "blocks",
        "elements",
        "challenge",
        "authorizations",
        "event_id",
        "impacts",
        "services",
        "description",
        "fields",
        "value",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**25), max_value=10**25)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(
        [
            "incident.triggered",
            "incident.created",
            "alert.created",
            "Create",
            "CREATED",
            "incident",
            "event_callback",
            "message",
            "url_verification",
            "bot_message",
            "2024-05-02 09:12:41 UTC",
            "1700000000.000100",
            "incident_note",
            "started",
        ]
    )
    | st.text(max_size=20)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=5), inner, max_size=6)
    ),
    max_leaves=40,
)


@given(source=st.sampled_from(SOURCES), value=JSON)
def test_fuzz_alert_adapters_never_crash(source, value):
    try:
        event = alert(source, json.dumps(value))
    except InvalidAlertPayload as error:
        assert str(error)
        return
    assert isinstance(event, AlertEvent)
    assert event.kind in {"new_alert", "lifecycle", "ignored"}
    assert 0 < len(event.title) <= MAX_TITLE_LENGTH and "\n" not in event.title
    assert (
        event.dedup_key.startswith(event.source + ":")
        and len(event.dedup_key) > len(event.source) + 1
    )
    assert event.delivery_id
    assert (
        event.occurred_at.utcoffset() is not None
        and event.occurred_at.utcoffset().total_seconds() == 0
    )


ALERT_ENTRY = st.dictionaries(
    st.sampled_from(
        ["status", "labels", "annotations", "fingerprint", "startsAt", "endsAt", "generatorURL"]
    ),
    JSON,
    max_size=7,
)


@given(
    source=st.sampled_from(["ALERTMANAGER", "GRAFANA"]),
    entries=st.lists(ALERT_ENTRY, min_size=1, max_size=5),
    group=st.dictionaries(st.sampled_from(["groupKey", "status", "title", "version"]), JSON),
)
def test_fuzz_alert_groups_are_one_alert_per_entry(source, entries, group):
    events = parse_alerts(source, json.dumps({**group, "alerts": entries}), received_at=NOW)
    assert len(events) == len(entries)
    for event in events:
        assert event.source == source and event.dedup_key.startswith(source + ":")
        assert 0 < len(event.title) <= MAX_TITLE_LENGTH and len(event.dedup_key) <= 255
        assert event.body is not None and parse_alerts(source, event.body, received_at=NOW)


@given(value=JSON)
def test_fuzz_chat_never_crashes(value):
    try:
        parsed = parse_chat_event(json.dumps(value), received_at=NOW)
    except InvalidAlertPayload as error:
        assert str(error)
        return
    assert isinstance(parsed, ChatChallenge | ChatEvent)
    if isinstance(parsed, ChatEvent):
        assert parsed.kind in {"message", "ignored"} and (parsed.kind == "ignored") == bool(
            parsed.reason
        )
        assert 0 < len(parsed.name) <= MAX_TITLE_LENGTH
        assert parsed.occurred_at.utcoffset().total_seconds() == 0


@given(body=st.binary(max_size=200), source=st.sampled_from(SOURCES))
def test_fuzz_arbitrary_bytes(body, source):
    with contextlib.suppress(InvalidAlertPayload):
        alert(source, body)
    with contextlib.suppress(InvalidAlertPayload):
        parse_chat_event(body, received_at=NOW)
