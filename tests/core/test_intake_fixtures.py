"""Every genuine provider sample in ../shared/fixtures/alert-payloads, read by its adapter.

Expected values are copied from the files themselves (see that folder's README for each origin).
The bytes are posted as stored, as a provider would send them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sleuth_core.intake import (
    ChatChallenge,
    ChatEvent,
    parse_alert,
    parse_alerts,
    parse_chat_event,
    parse_time,
)

ROOT = Path(__file__).resolve().parents[2]


def _fixtures_dir() -> Path:
    """``shared/`` sits beside the repository (CI clones it there); a worktree looks further up."""
    for parent in ROOT.parents:
        candidate = parent / "shared" / "fixtures" / "alert-payloads"
        if candidate.is_dir():
            return candidate
    raise AssertionError(f"no shared/fixtures/alert-payloads beside {ROOT}")


FIXTURES = _fixtures_dir()
RECEIVED = datetime(2030, 1, 1, tzinfo=UTC)
SOURCES = {
    "pagerduty": "PROVIDER_A",
    "opsgenie": "PROVIDER_B",
    "firehydrant": "PROVIDER_C",
    "rootly": "PROVIDER_D",
}


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


# file | kind | title | dedup key | delivery id | occurred at (UTC)
ALERTS = [
    (
        "pagerduty/incident_triggered.json",
        "new_alert",
        "Test Incident 3",
        "PROVIDER_A:PFQZPSY",
        "01BZYIL05THJDFF2Y08X9SVMTU",
        "2021-06-04T13:35:29.781+00:00",
    ),
    (
        "pagerduty/incident_acknowledged.json",
        "lifecycle",
        "Test Incident",
        "PROVIDER_A:PQ1K5C8",
        "01BZYK8N47N5JG55J1EEEHPEJI",
        "2021-06-04T13:55:30.394+00:00",
    ),
    (
        "pagerduty/incident_resolved.json",
        "lifecycle",
        "Test Incident",
        "PROVIDER_A:PCPZE64",
        "01BZYH1JJY09P9LEIST8HG2PMN",
        "2021-06-04T13:16:53.816+00:00",
    ),
    # a note: the incident is data.incident, its title that reference's summary
    (
        "pagerduty/incident_annotated.json",
        "lifecycle",
        "Critical: Checkout API High Latency",
        "PROVIDER_A:Q3B15VLMF3ASBD",
        "01GI0KTE33V5QXBVIJDEVJFUNE",
        "2026-04-01T02:18:59.674+00:00",
    ),
    (
        "pagerduty/incident_priority_updated.json",
        "lifecycle",
        "A little bump in the road",
        "PROVIDER_A:PGR0VU2",
        "5ac64822-4adc-4fda-ade0-410becf0de4f",
        "2020-10-02T18:45:22.169+00:00",
    ),
    (
        "pagerduty/service_updated.json",
        "ignored",
        "testing service updates",
        "PROVIDER_A:PF9KMXH",
        "01BRB6ZP4M6T8ZG4X6BP63ZB9O",
        "2021-03-02T13:35:11.682+00:00",
    ),
    # Opsgenie sends no event id: the delivery id is the body's hash. createdAt is epoch ms;
    # later actions take updatedAt (nanoseconds in these samples, milliseconds in Port's).
    (
        "opsgenie/alert_create.json",
        "new_alert",
        "another alert",
        "PROVIDER_B:ec03dad6-62c8-4c94-b38b-d88f398e900f",
        "sha256:2797ad33f0723d5174a14dc24b5b1ef14fc410347edc6ffbf0b4cf8656a8e8db",
        "2017-08-14T11:25:56.288+00:00",
    ),
    (
        "opsgenie/alert_create_with_description.json",
        "new_alert",
        "test alert",
        "PROVIDER_B:052652ac-5d1c-464a-812a-7dd18bbfba8c",
        "sha256:5df04dda8ae8bfa71b4b495219ee015c331c63be14f2bbbe0ee82e007e9c48f1",
        "2023-06-16T11:51:05.415+00:00",
    ),
    (
        "opsgenie/alert_acknowledge.json",
        "lifecycle",
        "test alert",
        "PROVIDER_B:052652ac-5d1c-464a-812a-7dd18bbfba8c",
        "sha256:f2d64e9f40af183d1048e113c9184c9bcf3a2792f72cb0bb689efe6ebdfb1a83",
        "2015-01-05T10:03:44.764002+00:00",
    ),
    (
        "opsgenie/alert_close.json",
        "lifecycle",
        "test alert",
        "PROVIDER_B:052652ac-5d1c-464a-812a-7dd18bbfba8c",
        "sha256:b2bea41b010373c8b8cb329a68210ab53dd497339e7695c9dbf7443b653d4437",
        "2015-01-05T10:06:14.669002+00:00",
    ),
    (
        "opsgenie/alert_add_note.json",
        "lifecycle",
        "test alert",
        "PROVIDER_B:052652ac-5d1c-464a-812a-7dd18bbfba8c",
        "sha256:714e326a8c8f36f7654bd915954f9af26b61eea62e3cfa5d65fddb952e608f74",
        "2015-01-05T10:04:35.002001+00:00",
    ),
    # FireHydrant dates are "YYYY-MM-DD HH:MM:SS UTC"; no event id either
    (
        "firehydrant/incident_created.json",
        "new_alert",
        "Deployments are impacted: [add more details]",
        "PROVIDER_C:92deafc9-bd0e-459d-8fd7-785c10792d3b",
        "sha256:1ac6b9d80c1d3c80b7345bd6fce1373e4625c1c2b2b010c8988b98820a2de733",
        "2026-01-01T12:00:00+00:00",
    ),
    (
        "firehydrant/incident_updated_started.json",
        "lifecycle",
        "Deployments are impacted: [add more details]",
        "PROVIDER_C:92deafc9-bd0e-459d-8fd7-785c10792d3b",
        "sha256:f572760661ebe7d1872795a9cdd77751be759f6af716494e82e37de9f73dd83b",
        "2026-01-01T12:00:00+00:00",
    ),
    (
        "firehydrant/incident_updated_resolved.json",
        "lifecycle",
        "Hark I hear an incident subscription webhook",
        "PROVIDER_C:04d9fd1a-ba9c-417d-b396-58a6e2c374de",
        "sha256:26c5965b39ce1a9bd559c9ce99576146a86075824d847b1cdef7006975ae3474",
        "2023-07-25T13:38:17+00:00",
    ),
    (
        "firehydrant/change_event_updated.json",
        "ignored",
        "Production Deploy",
        "PROVIDER_C:489d7b90-a9d7-43d2-99be-d33c5acb59f8",
        "sha256:64a4ab1ea16884a494a4541d4783c05bc052e76ecf573e1b387f42ae497c301d",
        "2019-06-01T00:12:12+00:00",
    ),
    (
        "firehydrant/signals_alert_created.json",
        "ignored",
        "This is the Summary/Title of the Alert",
        "PROVIDER_C:6f767579-0015-400e-8c6e-cb481d5760c2",
        "sha256:14d212de4990c14de461a1819a0a248999a8ac903ebe5ddfc392cd38a5ee7e1c",
        "2024-03-29T22:50:07+00:00",
    ),
    # Rootly: the four vendor samples share event.id, so the delivery id adds data.id
    (
        "rootly/incident_created.json",
        "new_alert",
        "Sparkling Frost",
        "PROVIDER_D:b7eed587-50e6-44fe-b010-7a2bb05d737a",
        "9839c4ca-5e7b-416d-ad95-d09ae0c8eead:b7eed587-50e6-44fe-b010-7a2bb05d737a",
        "2022-11-27T19:36:00.000-08:00",
    ),
    (
        "rootly/alert_created.json",
        "new_alert",
        "database-prod-002 Memory threshold over 85%",
        "PROVIDER_D:13c82722-ec52-4eda-aaa2-771f7c81c01c",
        "9839c4ca-5e7b-416d-ad95-d09ae0c8eead:13c82722-ec52-4eda-aaa2-771f7c81c01c",
        "2022-11-27T19:15:29.546-08:00",
    ),
    # a post-mortem belongs to incident b7eed587 (its dedup key) and starts nothing
    (
        "rootly/incident_post_mortem_created.json",
        "ignored",
        "Sparkling Frost",
        "PROVIDER_D:b7eed587-50e6-44fe-b010-7a2bb05d737a",
        "9839c4ca-5e7b-416d-ad95-d09ae0c8eead:2c7497e5-5d15-4fa4-aeac-cac063aafe19",
        "2022-11-27T19:36:00.000-08:00",
    ),
    (
        "rootly/pulse_created.json",
        "ignored",
        "Deployed to Kubernetes",
        "PROVIDER_D:aa1cab03-00e7-4578-b1ae-72ad9ae417c6",
        "9839c4ca-5e7b-416d-ad95-d09ae0c8eead:aa1cab03-00e7-4578-b1ae-72ad9ae417c6",
        "2022-11-27T19:15:30.995-08:00",
    ),
]

# file | kind | reason | name | dedup key | event id | occurred at
CHAT = [
    (
        "slack/message_user.json",
        "message",
        "",
        "Hello, this is a normal text message",
        "chat:T06NRA6HM3P:C06NRA6JLER:1719209506.817929",
        "Ev079SP4TP1P",
        "2024-06-24T06:11:46.817929+00:00",
    ),
    # another app's bot (ClickUp) in the channel: monitoring bots are the alerts
    (
        "slack/message_bot.json",
        "message",
        "",
        "*Task status changed* from `complete` to `to do`",
        "chat:T06NRA6HM3P:C06P6T3QGD7:1723609070.703489",
        "Ev07GMTJQFEJ",
        "2024-08-14T04:17:50.703489+00:00",
    ),
    (
        "slack/message_own_bot.json",
        "ignored",
        "own message",
        "&lt;Desdemona&gt; koo",
        "chat:T06NRA6HM3P:C06NRA6JLER:1718856814.111759",
        "Ev078H33MYDV",
        "2024-06-20T04:13:34.111759+00:00",
    ),
    (
        "slack/message_changed.json",
        "ignored",
        "subtype message_changed",
        "Chat message",
        "chat:T09DGSRBZRC:C09HA4QCTD0:1760440343.000200",
        "Ev09LH6XDJ0L",
        "2025-10-14T11:12:23.000200+00:00",
    ),
    (
        "slack/app_mention.json",
        "message",
        "",
        "<@U0LAN0Z89> is it everything a river should be?",
        "chat:T123ABC456:C123ABC456:1515449522.000016",
        "Ev123ABC456",
        "2018-01-08T22:12:02.000016+00:00",
    ),
]


# Alertmanager and Grafana: file | source | per alert (kind, title, dedup key, service, severity)
# | group key | expression of the first alert
GROUPS = [
    (
        "alertmanager/firing_single.json",
        "ALERTMANAGER",
        [
            (
                "new_alert",
                "Fire",
                "ALERTMANAGER:labels:7014c92e6425df8f32b28d1ab4b421de",
                "",
                "critical",
            )
        ],
        '{}:{alertname="Fire"}',
        "vector(666)",
    ),
    (
        "alertmanager/resolved_single.json",
        "ALERTMANAGER",
        [
            (
                "lifecycle",
                "Fire",
                "ALERTMANAGER:labels:7014c92e6425df8f32b28d1ab4b421de",
                "",
                "critical",
            )
        ],
        '{}:{alertname="Fire"}',
        "vector(666)",
    ),
    (
        "alertmanager/firing_two_alerts.json",
        "ALERTMANAGER",
        [
            (
                "new_alert",
                "High CPU core temperature",
                "ALERTMANAGER:a1bc48475b20e73d",
                "",
                "critical",
            ),
            (
                "new_alert",
                "High CPU core temperature",
                "ALERTMANAGER:c2ea85182f28cbd9",
                "",
                "critical",
            ),
        ],
        "{}/{}:{}",
        'avg by(host) (sensors_temp_input{feature=~"core_[0-9]+"}) > 15',
    ),
    (
        "grafana/firing_three_alerts.json",
        "GRAFANA",
        [
            (
                "new_alert",
                "This is a summary field, failure on badhost.example.com",
                "GRAFANA:aaafafe0953f0962",
                "rabbitmq",
                "",
            ),
            (
                "new_alert",
                "This is a summary field, failure on otherhost.example.com",
                "GRAFANA:fb31814ac93dbe7d",
                "rabbitmq",
                "",
            ),
            ("new_alert", "Testing **another** failing alert", "GRAFANA:6f9cd313db421ef1", "", ""),
        ],
        '{}/{test="true"}:{}',
        None,
    ),
    (
        "grafana/firing_with_values.json",
        "GRAFANA",
        [("new_alert", "High memory usage", "GRAFANA:e6349a25f5ef0e9e", "", "")],
        '{}/{debug="true"}:{alertname="Memory (copy)", grafana_folder="device"}',
        None,
    ),
    (
        "grafana/resolved.json",
        "GRAFANA",
        [
            (
                "lifecycle",
                "This is a summary field, failure on <no value>",
                "GRAFANA:d8a21484c9c25a60",
                "",
                "",
            )
        ],
        '{}/{test="true"}:{}',
        None,
    ),
]


def test_every_fixture_file_is_covered():
    on_disk = {str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*.json")}
    covered = (
        {row[0] for row in ALERTS}
        | {row[0] for row in CHAT}
        | {row[0] for row in GROUPS}
        | {"slack/url_verification.json"}
    )
    assert on_disk == covered
    assert len(on_disk) == 32


@pytest.mark.parametrize(("name", "source", "alerts", "group_key", "expression"), GROUPS)
def test_alert_group_fixture(name, source, alerts, group_key, expression):
    body = (FIXTURES / name).read_bytes()
    events = parse_alerts(source, body, received_at=RECEIVED)
    assert [(e.kind, e.title, e.dedup_key, e.service, e.severity) for e in events] == alerts
    assert {e.source for e in events} == {source}
    assert {e.group_key for e in events} == {group_key}
    assert events[0].expression == expression
    assert all(e.generator_url for e in events)
    assert len({e.delivery_id for e in events}) == len(events)
    payload = json.loads(body)
    for event, entry in zip(events, payload["alerts"], strict=True):
        # each alert's own body is the group with only that alert; reading it gives the alert
        own = json.loads(event.body)
        assert own["alerts"] == [entry]
        assert own["groupKey"] == payload["groupKey"]
        assert parse_alerts(source, event.body, received_at=RECEIVED) == (event,)
        # its labels and annotations are in the text agents match
        for key, value in {**entry["labels"], **entry["annotations"]}.items():
            assert f"{key}: {' '.join(value.split())}" in event.match_text
        # a firing alert happened when it started, a resolved one when it ended
        moment = entry["endsAt"] if event.kind == "lifecycle" else entry["startsAt"]
        assert event.occurred_at == parse_time(moment)


def test_a_firing_and_resolved_pair_without_fingerprints_share_a_dedup_key():
    firing = parse_alert(
        "ALERTMANAGER",
        (FIXTURES / "alertmanager/firing_single.json").read_bytes(),
        received_at=RECEIVED,
    )
    resolved = parse_alert(
        "ALERTMANAGER",
        (FIXTURES / "alertmanager/resolved_single.json").read_bytes(),
        received_at=RECEIVED,
    )
    assert firing.dedup_key == resolved.dedup_key
    assert firing.delivery_id != resolved.delivery_id
    assert firing.occurred_at == utc("2018-11-04T22:43:58.283995+01:00")
    assert resolved.occurred_at == utc("2018-11-04T22:48:13.283995+01:00")


@pytest.mark.parametrize(("name", "kind", "title", "dedup", "delivery", "occurred"), ALERTS)
def test_alert_fixture(name, kind, title, dedup, delivery, occurred):
    body = (FIXTURES / name).read_bytes()
    event = parse_alert(SOURCES[name.split("/")[0]], body, received_at=RECEIVED)
    assert event.source == SOURCES[name.split("/")[0]]
    assert event.kind == kind
    assert event.title == title
    assert event.dedup_key == dedup
    assert event.delivery_id == delivery
    assert event.occurred_at == utc(occurred)
    assert event.occurred_at.utcoffset().total_seconds() == 0
    # the match text starts with the title and ends with the body exactly as received
    assert event.match_text.startswith(title + "\n")
    assert event.match_text.endswith("\n\n" + body.decode("utf-8"))


def test_alert_fixture_fields():
    def read(name):
        return parse_alert(
            SOURCES[name.split("/")[0]], (FIXTURES / name).read_bytes(), received_at=RECEIVED
        )

    triggered = read("pagerduty/incident_triggered.json")
    assert (triggered.service, triggered.severity, triggered.tags) == ("pig208", "high", ())
    assert triggered.url == "https://pig208.pagerduty.com/incidents/PFQZPSY"
    priority = read("pagerduty/incident_priority_updated.json")
    assert (priority.severity, priority.tags) == ("P1", ("Engineering",))
    note = read("pagerduty/incident_annotated.json")
    assert note.description == "Running KILL on long-running queries from the reporting-service."
    created = read("opsgenie/alert_create_with_description.json")
    assert (created.description, created.service, created.severity, created.tags) == (
        "Testing opsgenie alerts",
        "An example entity",
        "P1",
        ("tag1", "tag2"),
    )
    assert read("opsgenie/alert_create.json").severity == "3"  # a number in this capture
    fire = read("firehydrant/incident_created.json")
    assert (fire.severity, fire.service) == ("SEV3", "Platform - Deployments")
    assert "\nseverity: SEV3\n" in fire.match_text
    pulse = read("rootly/pulse_created.json")
    assert pulse.tags == ("label1:value1", "label2:value2")
    incident = read("rootly/incident_created.json")
    assert incident.url == "http://localhost:3000/account/incidents/19-sparkling-frost"
    assert incident.event_type == "incident.created"


@pytest.mark.parametrize(("name", "kind", "reason", "title", "dedup", "event_id", "occurred"), CHAT)
def test_chat_fixture(name, kind, reason, title, dedup, event_id, occurred):
    event = parse_chat_event((FIXTURES / name).read_bytes(), received_at=RECEIVED)
    assert isinstance(event, ChatEvent)
    assert (event.kind, event.reason) == (kind, reason)
    assert event.name == title
    assert event.dedup_key == dedup
    assert event.event_id == event_id
    assert event.occurred_at == utc(occurred)


def test_chat_url_verification_fixture():
    event = parse_chat_event(
        (FIXTURES / "slack/url_verification.json").read_bytes(), received_at=RECEIVED
    )
    assert event == ChatChallenge("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P")


def test_chat_fixture_senders_and_text():
    bot = parse_chat_event((FIXTURES / "slack/message_bot.json").read_bytes(), received_at=RECEIVED)
    assert isinstance(bot, ChatEvent)
    assert bot.sender_ids == {"B06NWMNUQ3W", "A3G4A68V9"}
    # attachment and block text join the message text, each once
    assert bot.match_text.splitlines() == [
        "*Task status changed* from `complete` to `to do`",
        "[no preview available]",
        "*<https://app.clickup.com/t/25567147/86cw30wf2|asd>*",
        "in dds",
        "To Do",
    ]
