"""The normalised inbound alert every provider adapter returns."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

#: ``new_alert`` starts investigations; ``lifecycle`` (acknowledge, resolve, close, note, priority
#: change, ...) and ``ignored`` (events that are not about an incident) are only recorded.
AlertKind = Literal["new_alert", "lifecycle", "ignored"]

#: Webhook types with an adapter; ``GENERIC`` is the fallback for any other JSON object.
AlertSource = Literal[
    "PROVIDER_A", "PROVIDER_B", "PROVIDER_C", "PROVIDER_D", "ALERTMANAGER", "GRAFANA", "GENERIC"
]


@dataclass(frozen=True, slots=True)
class AlertEvent:
    """One alert of a webhook delivery, read by its provider's adapter.

    A PagerDuty, Opsgenie, FireHydrant, Rootly or generic delivery is one alert; an Alertmanager or
    Grafana delivery is a group with one alert per entry of its ``alerts``.

    - ``event_type``: the provider's own name for the event (``incident.triggered``, ``Create``,
      ``CREATED incident``...), for logs and the stored record.
    - ``title``: one line, at most 200 characters (the investigation's name).
    - ``dedup_key``: ``"<source>:<incident id>"``, the same for every event of one incident.
    - ``delivery_id``: the provider's event id, or ``sha256:<hex>`` of the body when it sends none;
      equal for redeliveries of the same event.
    - ``occurred_at``: aware UTC; the receipt time when the body carries no readable time.
    - ``match_text``: what matching criteria are evaluated against.
    - ``group_key``: the provider's key of the group the alert was sent in (Alertmanager and
      Grafana ``groupKey``); ``""`` when the provider groups nothing.
    - ``generator_url``: the link to the rule that produced the alert (Alertmanager and Grafana
      ``generatorURL``), ``expression`` its PromQL when the link is Prometheus's graph link.
    - ``body``: the alert's own body when the delivery carries several alerts (the group with
      only this entry in ``alerts``, as JSON); ``None`` when the delivery's body is the alert.
    """

    source: AlertSource
    kind: AlertKind
    event_type: str
    title: str
    description: str
    service: str
    severity: str
    tags: tuple[str, ...]
    dedup_key: str
    delivery_id: str
    occurred_at: datetime
    url: str | None
    match_text: str
    group_key: str = ""
    generator_url: str | None = None
    expression: str | None = None
    body: str | None = None
