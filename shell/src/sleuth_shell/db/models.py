"""The relational schema (SQLAlchemy 2 declarative models).

Every table is owned by an organization (``org_id``) except ``jobs``, which carries the org in its
payload when it needs one. Timestamps are timezone-aware UTC on both SQLite and PostgreSQL (see
:class:`UTCDateTime`). The schema is created and upgraded only by the Alembic migrations in
``sleuth_shell/db/migrations``; a test checks that these models and the migrations agree.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from sleuth_shell.statuses import DIGEST_RUN, INTERACTION, INVESTIGATION, check_constraint

__all__ = [
    "AdvancedSettings",
    "AgentIndexVersion",
    "AgentSet",
    "AgentSetMember",
    "Alert",
    "AlertDecision",
    "AlertResponder",
    "AlertResponderChange",
    "ApiKey",
    "Base",
    "ChangeRow",
    "ChatDelivery",
    "ChatMessage",
    "DataSource",
    "Digest",
    "DigestRun",
    "EvidenceSnapshot",
    "Interaction",
    "Investigation",
    "Job",
    "KnowledgeDocument",
    "LogRecord",
    "MetricPoint",
    "MetricSeriesRow",
    "NotificationIntegration",
    "OAuthClient",
    "OAuthCode",
    "OAuthGrant",
    "OAuthToken",
    "Organization",
    "SpanRow",
    "Suppression",
    "Team",
    "TeamBudget",
    "UTCDateTime",
    "UsageDaily",
    "UsageEvent",
    "UsageMonthly",
    "WebhookDelivery",
    "WebhookSubscription",
    "utcnow",
]

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


#: Table options of every table with an integer id: on SQLite, ``AUTOINCREMENT``, so the id of a
#: deleted row is never issued again (SQLite otherwise reuses the largest id once its row is gone,
#: and an old Global ID would open a new object). PostgreSQL sequences never reuse values anyway.
NEVER_REUSE_IDS: dict[str, Any] = {"sqlite_autoincrement": True}


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


#: SQLite's ``DATETIME`` text (SQLAlchemy's default storage format), which
#: :meth:`UTCDateTime.bind_processor` writes with ``isoformat``.
_SQLITE_FORMAT = (
    "%(year)04d-%(month)02d-%(day)02d %(hour)02d:%(minute)02d:%(second)02d.%(microsecond)06d"
)


class UTCDateTime(TypeDecorator[datetime]):
    """A ``DateTime(timezone=True)`` that always stores UTC and always returns aware UTC values.

    SQLite has no time zone support and gives back naive values; PostgreSQL gives back aware
    ones in the session zone. Both come out as aware UTC. Naive input is taken to be UTC.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is not UTC:  # already UTC (the common case): nothing to convert
            if value.tzinfo is None:
                value = value.replace(tzinfo=UTC)
            value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        """On SQLite, :meth:`process_bind_param` and the text of SQLite's ``DATETIME`` in one
        step: ``datetime.isoformat`` writes the same ``YYYY-MM-DD HH:MM:SS.ffffff`` as the
        dialect's ``%``-format of seven fields, in a fifth of the time (a batch of OTLP log
        records binds hundreds)."""
        impl = self.impl_instance.dialect_impl(dialect)
        if dialect.name != "sqlite" or getattr(impl, "_storage_format", None) != _SQLITE_FORMAT:
            return super().bind_processor(dialect)

        def process(value: datetime | None) -> str | None:
            if value is None:
                return None
            if value.tzinfo is not UTC:
                value = (value.replace(tzinfo=UTC) if value.tzinfo is None else value).astimezone(
                    UTC
                )
            # "YYYY-MM-DD HH:MM:SS.ffffff+00:00" without its offset.
            return value.isoformat(" ", "microseconds")[:26]

        return process

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    """Declarative base with a stable constraint naming convention (for migrations)."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime(),
        dict[str, Any]: JSON,
        list[Any]: JSON,
    }

    if TYPE_CHECKING:
        # DeclarativeBase types this as any FromClause (a class may be mapped to a subquery);
        # every model here maps a Table, which insert()/delete() and Table.insert() need.
        __table__: ClassVar[Table]


def _created() -> Mapped[datetime]:
    return mapped_column(UTCDateTime(), default=utcnow, nullable=False)


def _updated() -> Mapped[datetime]:
    return mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow, nullable=False)


def _org_fk() -> Mapped[int]:
    return mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False, index=True
    )


class Organization(Base):
    """A tenant. Every other row belongs to exactly one organization."""

    __tablename__ = "organizations"
    __table_args__ = (NEVER_REUSE_IDS,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(200), unique=True, nullable=False)
    plan: Mapped[str] = mapped_column(String(32), nullable=False, default="free")
    signing_secret: Mapped[str] = mapped_column(String(128), nullable=False)
    created_at: Mapped[datetime] = _created()


class Team(Base):
    """A team within an organization; every organization has a ``Default`` team."""

    __tablename__ = "teams"
    __table_args__ = (UniqueConstraint("org_id", "name"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    created_at: Mapped[datetime] = _created()


class ApiKey(Base):
    """An organization API key, stored as the SHA-256 hex digest of the key."""

    __tablename__ = "api_keys"
    __table_args__ = (NEVER_REUSE_IDS,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    key_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    prefix: Mapped[str] = mapped_column(String(16), nullable=False)
    admin: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    team_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("teams.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = _created()
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    """When the key last authenticated a request (kept to the minute: see ``auth``)."""
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    """When ``sleuth admin revoke-key`` revoked it; a revoked key authenticates nothing."""


class WebhookSubscription(Base):
    """An inbound webhook source: an alert source (PROVIDER_A..D, ALERTMANAGER, GRAFANA, GENERIC),
    a change source (GITHUB, GITLAB) or the chat workspace connection (CHAT)."""

    __tablename__ = "webhook_subscriptions"
    __table_args__ = (NEVER_REUSE_IDS,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    remote_id: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    secret: Mapped[str] = mapped_column(String(128), nullable=False)
    provider_secret: Mapped[str | None] = mapped_column(String(512), nullable=True)
    """The signing secret the provider issued (for its native signature), set by the operator."""
    service: Mapped[str | None] = mapped_column(String(200), nullable=True)
    """GITHUB and GITLAB: the service changes are recorded on (NULL: the repository's name)."""
    created_at: Mapped[datetime] = _created()


class NotificationIntegration(Base):
    """A notification target: an alt incoming webhook URL or a chat channel."""

    __tablename__ = "notification_integrations"
    __table_args__ = (NEVER_REUSE_IDS,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    kind: Mapped[str] = mapped_column(String(32), nullable=False)
    url: Mapped[str | None] = mapped_column(Text, nullable=True)
    channel_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = _created()


class AlertResponder(Base):
    """An alert agent: which alerts it reacts to (sources + matching criteria) and its runbook."""

    __tablename__ = "alert_responders"
    __table_args__ = (UniqueConstraint("org_id", "team_id", "name"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    team_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("teams.id", ondelete="CASCADE"), nullable=False
    )
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    runbook_prompt: Mapped[str | None] = mapped_column(Text, nullable=True)
    runbook_active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    #: The runbook's optional ``impact_and_severity_prompt`` (null when not set).
    runbook_impact_prompt: Mapped[str | None] = mapped_column(Text, nullable=True)
    text_matches: Mapped[list[Any]] = mapped_column(JSON, nullable=False, default=list)
    match_rules: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    chat_bot_app_user_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    chat_channel_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    webhook_sources: Mapped[list[Any]] = mapped_column(JSON, nullable=False, default=list)
    notification_integration_ids: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="ACTIVE")
    max_runs_per_hour: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """At most this many investigations opened in any rolling hour (NULL: no cap)."""
    max_runs_per_day: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """At most this many investigations opened in any rolling 24 hours (NULL: no cap)."""
    group_window_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Related alerts join an investigation younger than this (NULL: the default, 600)."""
    investigate: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """``always`` (NULL: the default) or ``on_request`` (alerts are only recorded)."""
    created_at: Mapped[datetime] = _created()
    updated_at: Mapped[datetime] = _updated()


class Investigation(Base):
    """One run of an alert agent on one alert."""

    __tablename__ = "investigations"
    __table_args__ = (
        # The dedup claim: at most one investigation per (agent, dedup key) holds it (NULLs never
        # collide, so released claims and investigations without a key are unconstrained). Its
        # index also serves every lookup by (agent, dedup key).
        UniqueConstraint("alert_responder_id", "dedup_key", "dedup_active"),
        Index(None, "alert_responder_id", "group_key", "created_at"),
        Index(None, "alert_responder_id", "created_at"),
        Index(None, "team_id", "completed_at"),
        Index(None, "alert_id"),
        CheckConstraint(check_constraint(INVESTIGATION), name="status"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    alert_responder_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("alert_responders.id", ondelete="SET NULL"), nullable=True
    )
    team_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("teams.id", ondelete="SET NULL"), nullable=True
    )
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    status: Mapped[str] = mapped_column(
        String(16), nullable=False, default=INVESTIGATION.pending.value
    )
    prompt: Mapped[str] = mapped_column(Text, nullable=False)
    alert_id: Mapped[int | None] = mapped_column(Integer, ForeignKey("alerts.id"), nullable=True)
    """The alert-log row whose payload this investigation ran on (the alert that opened it);
    its payload is stored there once, not copied into each investigation. NULL when the
    investigation holds its payload in ``event_payload``: opened before the alert log, or its
    alert was pruned (the prune copies the payload here first)."""
    event_payload: Mapped[str] = mapped_column(Text, nullable=False, default="")
    """The payload of an investigation without ``alert_id`` (``""`` when it has one): read the
    payload through :mod:`sleuth_shell.investigations.queries`, which takes the alert's."""
    result: Mapped[str] = mapped_column(Text, nullable=False, default="")
    sources: Mapped[list[Any]] = mapped_column(JSON, nullable=False, default=list)
    analysis: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The structured root-cause result (``AgentResult.analysis`` with ``evidence`` as the
    rendered result's citation numbers), NULL until the agent produced one."""
    dedup_key: Mapped[str | None] = mapped_column(String(255), nullable=True)
    group_key: Mapped[str | None] = mapped_column(String(255), nullable=True)
    """The group key of the alert that opened it: related alerts join it within the agent's
    group window."""
    credits: Mapped[float | None] = mapped_column(Float, nullable=True)
    """What the completed run cost (its team's budget counts it); NULL until it completes."""
    dedup_active: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    """True while this investigation is the one a repeat of its alert (same agent and dedup key)
    reuses; NULL once a newer one took over (or when it has no dedup key)."""
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = _created()
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class Digest(Base):
    """A digest agent: sections generated on a Monday-zero cron schedule."""

    __tablename__ = "digests"
    __table_args__ = (NEVER_REUSE_IDS,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    team_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("teams.id", ondelete="CASCADE"), nullable=False
    )
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    sections: Mapped[list[Any]] = mapped_column(JSON, nullable=False)
    schedule: Mapped[str] = mapped_column(String(200), nullable=False)
    chat_channel_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    notification_integration_ids: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = _created()
    updated_at: Mapped[datetime] = _updated()


class DigestRun(Base):
    """One run of a digest (manual, scheduled or by cron)."""

    __tablename__ = "digest_runs"
    __table_args__ = (CheckConstraint(check_constraint(DIGEST_RUN), name="status"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    digest_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("digests.id", ondelete="CASCADE"), nullable=False, index=True
    )
    status: Mapped[str] = mapped_column(
        String(16), nullable=False, default=DIGEST_RUN.pending.value
    )
    scheduled_runtime: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    results: Mapped[list[Any]] = mapped_column(JSON, nullable=False, default=list)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = _created()
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    credits: Mapped[float | None] = mapped_column(Float, nullable=True)
    """What the completed run cost (its digest's team budget counts it); NULL until then."""


def _uuid4() -> str:
    return str(uuid.uuid4())


class Interaction(Base):
    """A question to the agent, answered synchronously, in the background or at a set time."""

    __tablename__ = "interactions"
    __table_args__ = (CheckConstraint(check_constraint(INTERACTION), name="status"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=_uuid4)
    org_id: Mapped[int] = _org_fk()
    team_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("teams.id", ondelete="SET NULL"), nullable=True
    )
    api_key_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("api_keys.id", ondelete="SET NULL"), nullable=True
    )
    user_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    question: Mapped[str] = mapped_column(Text, nullable=False)
    context: Mapped[list[Any]] = mapped_column(JSON, nullable=False, default=list)
    use_tools: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    status: Mapped[str] = mapped_column(
        String(16), nullable=False, default=INTERACTION.pending.value
    )
    content: Mapped[str | None] = mapped_column(Text, nullable=True)
    sources: Mapped[list[Any]] = mapped_column(JSON, nullable=False, default=list)
    analysis: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The root-cause analysis of a "why" answer (evidence as citation numbers), else NULL."""
    notifications: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    callback_api_key: Mapped[str | None] = mapped_column(Text, nullable=True)
    scheduled_runtime: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = _created()
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class Job(Base):
    """A durable unit of background work, claimed with a lease by one worker at a time.

    ``ix_jobs_status_run_at_id`` is a claim's order (``run_at``, then id) within a status, so a
    claim reads the first due rows of it and stops (``sleuth_shell.jobs.queue``).
    """

    __tablename__ = "jobs"
    __table_args__ = (
        Index(None, "status", "run_at", "id"),
        Index(None, "kind", "key"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(64), nullable=False)
    key: Mapped[str | None] = mapped_column(String(255), nullable=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    run_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="pending")
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=5)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    locked_by: Mapped[str | None] = mapped_column(String(255), nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = _created()
    updated_at: Mapped[datetime] = _updated()


class UsageEvent(Base):
    """One entry of the credit ledger. A null team is unattributed (automated) usage.

    Written only through :func:`sleuth_shell.billing.ledger.record_usage`, which rounds ``credits``
    to the ledger's binary grid and keeps :class:`UsageDaily` and :class:`UsageMonthly` current.
    The index also covers ``team_id`` and ``credits`` so a report's partial days read only it.
    """

    __tablename__ = "usage_events"
    __table_args__ = (Index(None, "org_id", "occurred_at", "team_id", "credits"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False
    )
    team_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("teams.id", ondelete="SET NULL"), nullable=True
    )
    feature: Mapped[str] = mapped_column(String(64), nullable=False)
    credits: Mapped[float] = mapped_column(Float, nullable=False)
    occurred_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)


class KnowledgeDocument(Base):
    """A document of the organization's knowledge catalog."""

    __tablename__ = "knowledge_documents"
    __table_args__ = (NEVER_REUSE_IDS,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    url: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = _created()


class LogRecord(Base):
    """One observability log line in the embedded store."""

    __tablename__ = "log_records"
    __table_args__ = (
        Index(None, "org_id", "timestamp"),
        Index(None, "org_id", "service", "timestamp"),
        # Error histograms (one service, some levels, a time range) read this index alone.
        Index(None, "org_id", "service", "level", "timestamp"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False
    )
    timestamp: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    service: Mapped[str] = mapped_column(String(200), nullable=False)
    level: Mapped[str] = mapped_column(String(32), nullable=False)
    message: Mapped[str] = mapped_column(Text, nullable=False)
    attributes: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    trace_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """The trace the record was written in (32 lower-case hex digits), when it came with one."""
    span_id: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """The span the record was written in (16 lower-case hex digits), when it came with one."""


class SpanRow(Base):
    """One span of a trace (OTLP ``/otlp/v1/traces``). ``(org_id, trace_id, span_id)`` is unique:
    a span sent again replaces the stored one. Ids are lower-case hex; ``parent_span_id`` is None
    for a root span; ``status`` is ``ok``, ``error`` or ``unset``; ``events`` lists the span's
    events (``{name, time, attributes}``; exceptions carry ``exception.type``,
    ``exception.message`` and ``exception.stacktrace``)."""

    __tablename__ = "spans"
    __table_args__ = (
        Index(None, "org_id", "trace_id", "span_id", unique=True),
        Index(None, "org_id", "start"),
        Index(None, "org_id", "service", "start"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False
    )
    trace_id: Mapped[str] = mapped_column(String(32), nullable=False)
    span_id: Mapped[str] = mapped_column(String(16), nullable=False)
    parent_span_id: Mapped[str | None] = mapped_column(String(16), nullable=True)
    service: Mapped[str] = mapped_column(String(200), nullable=False)
    name: Mapped[str] = mapped_column(Text, nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    start: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    duration_ms: Mapped[float] = mapped_column(Float, nullable=False)
    status: Mapped[str] = mapped_column(String(8), nullable=False)
    status_message: Mapped[str] = mapped_column(Text, nullable=False, default="")
    attributes: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    resource: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    events: Mapped[list[Any]] = mapped_column(JSON, nullable=False, default=list)


class ChangeRow(Base):
    """One change record (a deploy, commit, flag flip or config change) sent to
    ``POST /api/v1/changes``; ``change_id`` is the record's own id, unique per organization
    (sending it again replaces the row's content and keeps its ``id``)."""

    __tablename__ = "changes"
    __table_args__ = (
        Index(None, "org_id", "timestamp"),
        Index(None, "org_id", "service", "timestamp"),
        Index(None, "org_id", "change_id", unique=True),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False
    )
    change_id: Mapped[str] = mapped_column(String(255), nullable=False)
    timestamp: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    service: Mapped[str] = mapped_column(String(200), nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    summary: Mapped[str] = mapped_column(Text, nullable=False)
    author: Mapped[str | None] = mapped_column(String(200), nullable=True)
    url: Mapped[str | None] = mapped_column(Text, nullable=True)
    files: Mapped[list[Any]] = mapped_column(JSON, nullable=False, default=list)
    diff: Mapped[str] = mapped_column(Text, nullable=False, default="")
    ships: Mapped[list[Any]] = mapped_column(JSON, nullable=False, default=list)
    attributes: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    created_at: Mapped[datetime] = _created()


class MetricSeriesRow(Base):
    """One metric series: a name, a service and labels. ``labels_key`` is the labels' canonical
    JSON (sorted keys, ASCII), so one (org, name, service, labels) is one row."""

    __tablename__ = "metric_series"
    __table_args__ = (
        UniqueConstraint("org_id", "name", "service", "labels_key"),
        Index(None, "org_id", "service", "name"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False
    )
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    service: Mapped[str] = mapped_column(String(200), nullable=False)
    labels: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    labels_key: Mapped[str] = mapped_column(String(800), nullable=False)
    created_at: Mapped[datetime] = _created()


class MetricPoint(Base):
    """One point of a metric series; the primary key ``(series_id, timestamp)`` is the time index
    and makes a point sent again for the same time overwrite the value."""

    __tablename__ = "metric_points"

    series_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("metric_series.id", ondelete="CASCADE"), primary_key=True
    )
    timestamp: Mapped[datetime] = mapped_column(UTCDateTime(), primary_key=True)
    value: Mapped[float] = mapped_column(Float, nullable=False)


class AdvancedSettings(Base):
    """The organization's advanced-settings document (chat triggers, external channels)."""

    __tablename__ = "advanced_settings"

    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True
    )
    document: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    updated_at: Mapped[datetime] = _updated()


class ChatMessage(Base):
    """A message the embedded chat client posted (the chat outbox)."""

    __tablename__ = "chat_messages"
    __table_args__ = (Index(None, "org_id", "channel_id"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False
    )
    channel_id: Mapped[str] = mapped_column(String(64), nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)
    thread_ts: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = _created()


class ChatDelivery(Base):
    """One chat platform delivery to ``POST /webhooks/CHAT/{remote_id}``, by its ``event_id``.

    The platform retries a delivery it thinks failed with the same ``event_id``; the row keeps the
    answer given the first time (``response``), so a retry gets it again and starts nothing.
    A second delivery of the same message (channel and ``ts``) under another event id is
    answered like the first. ``kind`` is ``message`` (a top-level message that was run) or
    ``ignored`` (``reason`` says
    why: an edit, a thread reply, the app's own message, ...).
    """

    __tablename__ = "chat_deliveries"
    __table_args__ = (
        UniqueConstraint("subscription_id", "event_id"),
        # One run (and one trigger reply) per message: the platform delivers a message that
        # mentions the app twice, as ``message`` and as ``app_mention``, with two event ids.
        Index(
            "uq_chat_deliveries_message",
            "subscription_id",
            "channel_id",
            "ts",
            unique=True,
            sqlite_where=text("kind = 'message'"),
            postgresql_where=text("kind = 'message'"),
        ),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    subscription_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("webhook_subscriptions.id", ondelete="CASCADE"), nullable=False
    )
    event_id: Mapped[str] = mapped_column(String(255), nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    reason: Mapped[str] = mapped_column(String(255), nullable=False, default="")
    channel_id: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    ts: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    response: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    created_at: Mapped[datetime] = _created()


class UsageDaily(Base):
    """Daily rollup of the credit ledger: one organization's credits of one team on one UTC day.

    Kept current by :func:`sleuth_shell.billing.ledger.record_usage` in the same transaction as
    the ledger row. ``team_key`` is the team id, or 0 for unattributed usage (so the primary key has
    no nullable column); ``month`` (``YYYY-MM``) repeats the day's month so reports group by month
    without dialect-specific date functions; ``events`` counts the ledger rows. The primary key
    leads with ``(org_id, day)``, the report's range scan; on SQLite the table is clustered on it.
    """

    __tablename__ = "usage_daily"
    __table_args__ = ({"sqlite_with_rowid": False},)

    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    team_key: Mapped[int] = mapped_column(Integer, primary_key=True)
    month: Mapped[str] = mapped_column(String(7), nullable=False)
    credits: Mapped[float] = mapped_column(Float, nullable=False)
    events: Mapped[int] = mapped_column(Integer, nullable=False)


class UsageMonthly(Base):
    """Monthly rollup of the credit ledger: one organization's credits of one team in one UTC month.

    Kept current with :class:`UsageDaily`; ``month`` is ``YYYY-MM`` and ``team_key`` as there.
    """

    __tablename__ = "usage_monthly"
    __table_args__ = ({"sqlite_with_rowid": False},)

    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True
    )
    month: Mapped[str] = mapped_column(String(7), primary_key=True)
    team_key: Mapped[int] = mapped_column(Integer, primary_key=True)
    credits: Mapped[float] = mapped_column(Float, nullable=False)
    events: Mapped[int] = mapped_column(Integer, nullable=False)


class AgentIndexVersion(Base):
    """The organization's alert-agent version: bumped in the same transaction as every change of
    one of its alert agents (create, update, pause, resume, delete; see
    :mod:`sleuth_shell.db.agent_versions`). A process's cached matching index is current when its
    version equals this one."""

    __tablename__ = "agent_index_versions"

    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer, nullable=False)


class AlertResponderChange(Base):
    """Which alert agent changed at which version of its organization (0: reload every agent).

    Rows older than :data:`sleuth_shell.db.agent_versions.KEEP_CHANGES` versions are pruned; a
    cache further behind than that rebuilds in full.
    """

    __tablename__ = "alert_responder_changes"

    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    alert_responder_id: Mapped[int] = mapped_column(Integer, nullable=False)


class WebhookDelivery(Base):
    """One inbound webhook delivery and the answer it got (a redelivery gets the same answer).

    ``delivery_id`` is the provider's event id, or ``sha256:<hex>`` of the body when it sends
    none; ``investigation_ids`` are the investigations' integer keys, in answer order.
    """

    __tablename__ = "webhook_deliveries"
    __table_args__ = (UniqueConstraint("subscription_id", "delivery_id"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    subscription_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("webhook_subscriptions.id", ondelete="CASCADE"), nullable=False
    )
    delivery_id: Mapped[str] = mapped_column(String(255), nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    event_type: Mapped[str] = mapped_column(String(200), nullable=False)
    dedup_key: Mapped[str] = mapped_column(String(255), nullable=False)
    title: Mapped[str] = mapped_column(String(200), nullable=False)
    occurred_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    received_at: Mapped[datetime] = _created()
    investigation_ids: Mapped[list[Any]] = mapped_column(JSON, nullable=False, default=list)


class WebSession(Base):
    """A browser sign-in: the cookie carries a random token; only its SHA-256 is stored here.

    The session belongs to the API key it was opened with (revoking the key ends it) and expires
    at ``expires_at``; ``csrf_token`` is what every form of the session must send back.
    """

    __tablename__ = "web_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    org_id: Mapped[int] = _org_fk()
    api_key_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("api_keys.id", ondelete="CASCADE"), nullable=False, index=True
    )
    csrf_token: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = _created()
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, index=True)


class ServerSecret(Base):
    """A secret the service generated for itself and that every node must share.

    ``name`` says what it is for (``session_signing``: the HMAC key of the browser-session
    cookie when ``SLEUTH_SECRET_KEY`` is unset); ``value`` is URL-safe base64 text. The first
    node to need one inserts it; every other node reads that row.
    """

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(128), nullable=False)
    created_at: Mapped[datetime] = _created()


class DataSource(Base):
    """An observability system the agent queries at investigation time (``kind`` ``prometheus``:
    any Prometheus-compatible HTTP API at ``url``).

    ``headers`` is the AES-GCM ciphertext of the request headers' JSON (see
    :mod:`sleuth_shell.datasources.crypto`), or null when there are none; ``header_names`` lists
    their names (the values are never returned). ``service_label`` is the label that names a
    service in the source's series.
    """

    __tablename__ = "data_sources"
    __table_args__ = (UniqueConstraint("org_id", "name"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    kind: Mapped[str] = mapped_column(String(32), nullable=False)
    url: Mapped[str] = mapped_column(Text, nullable=False)
    service_label: Mapped[str] = mapped_column(String(200), nullable=False)
    headers: Mapped[str | None] = mapped_column(Text, nullable=True)
    header_names: Mapped[list[Any]] = mapped_column(JSON, nullable=False, default=list)
    created_at: Mapped[datetime] = _created()
    updated_at: Mapped[datetime] = _updated()


class EvidenceSnapshot(Base):
    """One query result an investigation or answer read from a data source, kept so its citation
    can be re-checked after the source has dropped the data.

    ``id`` is the ``artifact_id`` its source record carries (a random UUID, hex); ``points`` the
    result as the source gave it; ``sha256`` the digest of the snapshot's canonical serialization
    (:func:`sleuth_shell.datasources.snapshots.digest`). ``data_source_id`` is null once the source
    is deleted; ``data_source_name`` and ``data_source_url`` keep what it was.
    """

    __tablename__ = "evidence_snapshots"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    org_id: Mapped[int] = _org_fk()
    data_source_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("data_sources.id", ondelete="SET NULL"), nullable=True, index=True
    )
    data_source_name: Mapped[str] = mapped_column(String(200), nullable=False)
    data_source_url: Mapped[str] = mapped_column(Text, nullable=False)
    query: Mapped[str] = mapped_column(Text, nullable=False)
    start: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    end: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    step: Mapped[float] = mapped_column(Float, nullable=False)
    points: Mapped[list[Any]] = mapped_column(JSON, nullable=False)
    sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    fetched_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)


class OAuthClient(Base):
    """An OAuth client registered through dynamic client registration (RFC 7591, open).

    ``client_id`` is the public identifier; a confidential client's secret is kept only as its
    SHA-256 (``client_secret_hash``), a public client (``token_endpoint_auth_method`` ``none``) has
    none. ``client_metadata`` holds the other registered claims (``client_uri``, ...).
    """

    __tablename__ = "oauth_clients"
    __table_args__ = (NEVER_REUSE_IDS,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    client_secret_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    client_name: Mapped[str | None] = mapped_column(String(200), nullable=True)
    redirect_uris: Mapped[list[Any]] = mapped_column(JSON, nullable=False)
    grant_types: Mapped[list[Any]] = mapped_column(JSON, nullable=False)
    response_types: Mapped[list[Any]] = mapped_column(JSON, nullable=False)
    token_endpoint_auth_method: Mapped[str] = mapped_column(String(32), nullable=False)
    scope: Mapped[str] = mapped_column(String(200), nullable=False)
    client_metadata: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    created_at: Mapped[datetime] = _created()


class OAuthGrant(Base):
    """One approval of a client by a person signed in with an API key: the audit row of the grant.

    Its tokens act for the approving key's organization, team and admin flag; revoking the key, or
    the grant (``revoked_at``, the settings page or RFC 7009), ends every token issued under it.
    """

    __tablename__ = "oauth_grants"
    __table_args__ = (NEVER_REUSE_IDS,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = _org_fk()
    api_key_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("api_keys.id", ondelete="CASCADE"), nullable=False, index=True
    )
    client_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("oauth_clients.id", ondelete="CASCADE"), nullable=False, index=True
    )
    scope: Mapped[str] = mapped_column(String(200), nullable=False)
    redirect_uri: Mapped[str] = mapped_column(String(2000), nullable=False)
    remote_addr: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The client address the approval came from (audit)."""
    created_at: Mapped[datetime] = _created()
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class OAuthCode(Base):
    """An authorization code (stored as its SHA-256), bound to its grant, redirect URI and PKCE
    challenge; good once (``used_at``) until ``expires_at``."""

    __tablename__ = "oauth_codes"

    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    grant_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("oauth_grants.id", ondelete="CASCADE"), nullable=False, index=True
    )
    redirect_uri: Mapped[str] = mapped_column(String(2000), nullable=False)
    scope: Mapped[str] = mapped_column(String(200), nullable=False)
    code_challenge: Mapped[str] = mapped_column(String(128), nullable=False)
    code_challenge_method: Mapped[str] = mapped_column(String(16), nullable=False)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class OAuthToken(Base):
    """An access token and its refresh token (both stored as SHA-256) issued under a grant.

    The access token is good until ``access_expires_at``, the refresh token until
    ``refresh_expires_at`` and only once: using it sets ``rotated_at`` and issues a new pair.
    ``revoked_at`` ends both.
    """

    __tablename__ = "oauth_tokens"
    __table_args__ = (NEVER_REUSE_IDS,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    grant_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("oauth_grants.id", ondelete="CASCADE"), nullable=False, index=True
    )
    access_token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    refresh_token_hash: Mapped[str | None] = mapped_column(String(64), unique=True, nullable=True)
    scope: Mapped[str] = mapped_column(String(200), nullable=False)
    created_at: Mapped[datetime] = _created()
    access_expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    refresh_expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    rotated_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class Alert(Base):
    """One alert of an authenticated delivery, as the adapter read it (the alert log). Its
    decisions are the ``alert_decisions`` rows plus its quiet agents (``quiet_set_id`` less
    ``quiet_except``).

    ``match_text`` is what agents matched (and what explain and dry runs match again);
    ``payload`` is the delivery's body as text. Pruned after ``SLEUTH_ALERT_RETENTION_DAYS``.
    """

    __tablename__ = "alerts"
    __table_args__ = (
        Index(None, "org_id", "received_at", "id"),
        Index(None, "received_at"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False
    )
    subscription_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("webhook_subscriptions.id", ondelete="SET NULL"), nullable=True
    )
    source_type: Mapped[str] = mapped_column(String(32), nullable=False)
    source_remote_id: Mapped[str] = mapped_column(String(64), nullable=False)
    delivery_id: Mapped[str] = mapped_column(String(255), nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    event_type: Mapped[str] = mapped_column(String(200), nullable=False)
    title: Mapped[str] = mapped_column(String(200), nullable=False)
    service: Mapped[str] = mapped_column(String(200), nullable=False)
    severity: Mapped[str] = mapped_column(String(64), nullable=False)
    dedup_key: Mapped[str] = mapped_column(String(255), nullable=False)
    group_key: Mapped[str] = mapped_column(String(255), nullable=False)
    match_text: Mapped[str] = mapped_column(Text, nullable=False)
    payload: Mapped[str] = mapped_column(Text, nullable=False)
    occurred_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    received_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    quiet_decision: Mapped[str] = mapped_column(String(16), nullable=False, default="not_matched")
    """The decision of every quiet agent: ``not_matched`` or ``lifecycle``."""
    quiet_set_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("agent_sets.id"), nullable=True
    )
    """The agents subscribed to the alert's source when it arrived (an :class:`AgentSet`, shared
    by every alert with the same subscribers); its quiet agents are these but those of
    ``quiet_except``. NULL when no agent is quiet."""
    quiet_except: Mapped[str] = mapped_column(Text, nullable=False, default="")
    """The agents of ``quiet_set_id`` that are not quiet (their criteria matched: each has a
    decision row), as ``,<id>,<id>,`` (empty when none). So 1,000 subscribed agents cost an
    id and the few matched ones per alert, not a row or a list entry per agent."""


class AgentSet(Base):
    """A set of alert agents (the agents subscribed to a source when an alert arrived), stored
    once and shared by every alert that names it (``alerts.quiet_set_id``); ``digest`` is the
    SHA-256 of its sorted ids, so the same set is one row. Its ids are ``agent_ids``
    (``,<id>,<id>,``, what reading an alert splits) and, to find the sets holding an agent, its
    :class:`AgentSetMember` rows. Never changed once written."""

    __tablename__ = "agent_sets"
    __table_args__ = (NEVER_REUSE_IDS,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    digest: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    size: Mapped[int] = mapped_column(Integer, nullable=False)
    agent_ids: Mapped[str] = mapped_column(Text, nullable=False)


class AgentSetMember(Base):
    """One agent of an :class:`AgentSet` (indexed by agent: "the alerts on which agent X was
    quiet" is the alerts of the sets holding X, less those whose ``quiet_except`` names X)."""

    __tablename__ = "agent_set_members"
    __table_args__ = (Index(None, "agent_id", "set_id"),)

    set_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("agent_sets.id", ondelete="CASCADE"), primary_key=True
    )
    agent_id: Mapped[int] = mapped_column(Integer, primary_key=True)


class AlertDecision(Base):
    """What one agent subscribed to an alert's source decided about it, and why.

    ``alert_responder_id`` is kept when the agent is deleted (no foreign key), so the log keeps
    saying who decided; ``investigation_id`` is set on ``matched``, ``deduplicated`` and
    ``grouped``.
    """

    __tablename__ = "alert_decisions"
    __table_args__ = (
        UniqueConstraint("alert_id", "alert_responder_id"),
        Index(None, "org_id", "alert_responder_id", "decision", "alert_id"),
        Index(None, "investigation_id"),
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    alert_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("alerts.id", ondelete="CASCADE"), nullable=False
    )
    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False
    )
    alert_responder_id: Mapped[int] = mapped_column(Integer, nullable=False)
    decision: Mapped[str] = mapped_column(String(16), nullable=False)
    reason: Mapped[str] = mapped_column(String(300), nullable=False)
    investigation_id: Mapped[int | None] = mapped_column(Integer, nullable=True)


class Suppression(Base):
    """Alerts matching these criteria are recorded ``suppressed`` until ``expires_at``
    (org-wide, or for one agent when ``alert_responder_id`` is set)."""

    __tablename__ = "suppressions"
    __table_args__ = (Index(None, "org_id", "expires_at"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    org_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False
    )
    alert_responder_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("alert_responders.id", ondelete="CASCADE"), nullable=True
    )
    text_matches: Mapped[list[Any]] = mapped_column(JSON, nullable=False, default=list)
    match_rules: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    reason: Mapped[str] = mapped_column(Text, nullable=False)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    created_at: Mapped[datetime] = _created()


class TeamBudget(Base):
    """A team's monthly credit budget for automated runs (calendar month, UTC)."""

    __tablename__ = "team_budgets"

    team_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True
    )
    org_id: Mapped[int] = _org_fk()
    credits: Mapped[float] = mapped_column(Float, nullable=False)
