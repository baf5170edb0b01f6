"""The retrieval agent over the demo data: what it answers, cites, counts and charges."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import func, select

from sleuth_shell import admin
from sleuth_shell.agents import AgentContext, AgentResult, ContextMessage, load_agent
from sleuth_shell.agents.retrieval import RetrievalAgent
from sleuth_shell.agents.sources import CostModel
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory, migrate
from sleuth_shell.db.models import LogRecord
from sleuth_shell.demo import load_demo
from sleuth_shell.services import build_services

T = TypeVar("T")
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
PUBLIC = "http://sleuth.test"
SOURCE_MEMBERS = {
    "log_type_name": str,
    "query": str,
    "start": str,
    "end": str,
    "link": str,
    "artifact_id": (str, type(None)),
    "tool_id": str,
    "type": str,
    "source_id": int,
    "display_text": str,
}
ALERT = json.dumps(
    {
        "title": "Checkout 5xx rate high",
        "service": "checkout-api",
        "severity": "critical",
        "startsAt": "2026-11-22T09:50:00Z",
    }
)


class Demo:
    """A migrated database with the demo loaded into one organization (and an empty one)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.org_id = 0
        self.empty_org_id = 0

    def run(self, action: Callable[[Any], Awaitable[T]], org_id: int | None = None) -> T:
        async def go() -> T:
            engine = create_engine(self.url)
            sessions = create_session_factory(engine)
            try:
                if org_id is None:
                    async with sessions() as session:
                        return await action(session)
                services = build_services(Settings(public_url=PUBLIC), sessions)
                ctx = services.agent_context(org_id, now=NOW)
                return await action(ctx)
            finally:
                await engine.dispose()

        return asyncio.run(go())

    def agent(self, action: Callable[[AgentContext], Awaitable[T]], *, empty: bool = False) -> T:
        return self.run(action, self.empty_org_id if empty else self.org_id)

    def count(self, *where: Any) -> int:
        async def go(session: Any) -> int:
            statement = select(func.count()).select_from(LogRecord).where(*where)
            return int((await session.execute(statement)).scalar_one())

        return self.run(go)


# One xdist worker runs the whole module (``make test`` runs ``--dist loadgroup``), so its
# module-scoped demo database is set up once, not once per worker.
pytestmark = pytest.mark.xdist_group("agent_retrieval")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    path: Path = tmp_path_factory.mktemp("demo") / "sleuth.db"
    state = Demo(f"sqlite:///{path}")
    migrate(state.url)

    async def setup(session: Any) -> None:
        org = await admin.create_org(session, "pebble")
        empty = await admin.create_org(session, "empty")
        state.org_id, state.empty_org_id = org.id, empty.id
        assert await load_demo(session, org.id, now=NOW) == {
            "documents": 12,
            "log_records": 4978,
            "changes": 10,
            "metric_points": 7 * 24 * 60,
        }

    state.run(setup)
    return state


AGENT = RetrievalAgent()


def answer(demo: Demo, question: str, **kwargs: Any) -> AgentResult:
    return demo.agent(lambda ctx: AGENT.answer(ctx, question, **kwargs))


def markers(result: AgentResult) -> set[int]:
    return {int(n) for n in re.findall(r"\[\[source:(\d+)\]\]", result.markdown)}


def assert_well_formed(result: AgentResult) -> None:
    """Every source has the SPEC members and types, and markers and sources match one to one."""
    assert markers(result) == set(result.sources)
    for source_id, record in result.sources.items():
        assert set(record) == set(SOURCE_MEMBERS)
        for name, kind in SOURCE_MEMBERS.items():
            assert isinstance(record[name], kind), (name, record[name])
        assert record["source_id"] == source_id
        assert isinstance(json.loads(record["query"]), dict)
        assert datetime.fromisoformat(record["start"]) <= datetime.fromisoformat(record["end"])
        assert record["link"].startswith(PUBLIC + "/")
    assert result.markdown.count("§") % 2 == 0


def test_the_registry_builds_the_retrieval_agent() -> None:
    agent = load_agent("retrieval")
    assert isinstance(agent, RetrievalAgent) and agent.name == "retrieval"


def test_runbook_question_cites_the_runbook_and_quotes_the_passage(demo: Demo) -> None:
    result = answer(demo, "How do I roll back a deploy?")
    assert_well_formed(result)
    first = result.sources[1]
    assert first["display_text"] == "Runbook: Deploys and rollbacks"
    assert (first["tool_id"], first["type"], first["log_type_name"]) == (
        "knowledge_search",
        "knowledge",
        "Knowledge catalog",
    )
    assert first["link"] == f"{PUBLIC}/knowledge/{first['artifact_id']}"
    assert json.loads(first["query"])["document_id"] == int(first["artifact_id"])
    quoted = [line for line in result.markdown.splitlines() if line.startswith(">")]
    assert any("`deployctl rollback <service>`" in line for line in quoted)
    assert "*Rolling back*" in result.markdown
    assert all(s["type"] == "knowledge" for s in result.sources.values())  # no log queries
    assert result.credits == pytest.approx(1.25)  # run + one knowledge search


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("Who do I page for a SEV-1?", "On-call escalation policy"),
        ("How do I fix a Redis eviction storm?", "Cache: Redis evictions and hit-rate drop"),
        ("The TLS certificate expired, what do we do?", "TLS certificate renewal"),
        (
            "How do I replay the orders dead-letter queue?",
            "Orders queue: backlog and stuck messages",
        ),
    ],
)
def test_runbook_questions_find_the_right_runbook(demo: Demo, question: str, title: str) -> None:
    result = answer(demo, question)
    assert_well_formed(result)
    assert result.sources[1]["display_text"] == f"Runbook: {title}"


def test_error_question_reports_counts_that_match_the_database(demo: Demo) -> None:
    result = answer(demo, "What errors did payments-api log in the last 3 hours?")
    assert_well_formed(result)
    start, end = NOW - timedelta(hours=3), NOW
    window = (LogRecord.timestamp >= start, LogRecord.timestamp < end)
    service = LogRecord.service == "payments-api"
    errors = demo.count(*window, service, LogRecord.level.in_(["ERROR", "CRITICAL"]))
    total = demo.count(*window, service)
    exhausted = demo.count(
        *window, service, LogRecord.message.like("DB connection pool exhausted%")
    )
    assert errors > 100
    # The fact first: the error count and the distinct messages, for exactly that service/window.
    first = result.markdown.split("\n\n", 1)[0]
    assert first.startswith(
        "Between §2026-11-22T09:00:00Z§ and §2026-11-22T12:00:00Z§, **payments-api** logged "
        f"{errors} errors (2 distinct messages) [[source:1]]"
    )
    assert (
        f"`DB connection pool exhausted (20/20 in use, waited 5000ms)` {exhausted} times" in first
    )
    assert total > errors
    logs = [s for s in result.sources.values() if s["tool_id"] == "log_query"]
    assert logs == list(result.sources.values())  # no runbook for a log question
    counts = logs[0]
    query = json.loads(counts["query"])
    assert query == {
        "start": "2026-11-22T09:00:00Z",
        "end": "2026-11-22T12:00:00Z",
        "services": ["payments-api"],
        "levels": ["ERROR", "CRITICAL"],
        "text": None,
    }
    assert (counts["start"], counts["end"]) == (query["start"], query["end"])
    assert counts["artifact_id"] is None
    link = urlsplit(counts["link"])
    assert f"{link.scheme}://{link.netloc}{link.path}" == f"{PUBLIC}/logs"
    assert json.loads(parse_qs(link.query)["query"][0]) == query
    assert result.credits == pytest.approx(1.1)  # run + one log query


def test_why_question_names_the_deploy_first(demo: Demo) -> None:
    # The demo has change records, so "why" goes through the root-cause engine.
    result = answer(demo, "Why is checkout failing?")
    assert_well_formed(result)
    lead = result.markdown.split("\n\n", 1)[0]
    assert lead.startswith("**Root cause: commit `f41c9a7e2b65`**")
    assert "shipped by deploy `payments-api@v2.14.0` (payments-api v2.14.0)" in lead
    # The pool warnings start the failure; its errors are dated by their own first record.
    assert (
        "**payments-api** began failing at §2026-11-22T09:33:30Z§; `DB connection pool exhausted"
        " (20/20 in use, waited 5000ms)` from §2026-11-22T09:42:36Z§, then **checkout-api**"
    ) in lead


def test_empty_window_says_when_the_service_last_logged_errors(demo: Demo) -> None:
    result = answer(demo, "What errors did payments-api log between 11:00 and 12:00?")
    assert_well_formed(result)
    assert result.markdown.startswith("**payments-api** logged no errors between")
    lead = result.markdown.split("\n\n", 1)[0]  # when it last did is part of the lead
    assert "The last error **payments-api** logged was at §2026-11-22T10:2" in lead


def test_unanswerable_question_abstains_without_citations(demo: Demo) -> None:
    result = answer(demo, "How do I reset a customer's loyalty points?")
    # The asker's words, not the search's stems ("loyalti", "point").
    assert result.markdown.startswith(
        'I could not find anything about "reset", "customer", "loyalty", "points" in the'
    )
    assert result.sources == {} and result.credits == pytest.approx(1.25)


def test_a_part_the_catalog_does_not_hold_is_named_as_not_found(demo: Demo) -> None:
    # Two parts, the second in no runbook: the first is answered and cited, and the answer's
    # first paragraph says which part it found nothing on (not silence, not a whole abstention).
    result = answer(demo, "What is the Redis maxmemory, and who approves a data center evacuation?")
    assert_well_formed(result)
    lead = result.markdown.split("\n\n", 1)[0]
    assert "`maxmemory 8gb`" in lead and "[[source:1]]" in lead
    assert "I could not find anything on *who approves a data center evacuation*" in lead
    assert [s["display_text"] for s in result.sources.values()] == [
        "Runbook: Cache: Redis evictions and hit-rate drop"
    ]


def test_catalog_answer_states_the_fact_first_without_log_noise(demo: Demo) -> None:
    result = answer(demo, "How long does a payments-api rollback take?")
    assert_well_formed(result)
    assert "about 3 minutes" in result.markdown.split("\n\n", 1)[0]
    assert all(s["type"] == "knowledge" for s in result.sources.values())
    assert "No log records" not in result.markdown and "Related runbooks" not in result.markdown
    assert "Runbook: Runbook:" not in json.dumps(result.sources)


def test_follow_up_takes_the_window_and_service_from_history(demo: Demo) -> None:
    history = [
        ContextMessage("user", "errors in payments-api since 09:00?"),
        ContextMessage("assistant", "Many."),
    ]
    follow = answer(demo, "and the warnings?", history=history)
    assert follow.markdown.startswith("Between §2026-11-22T09:00:00Z§ and §2026-11-22T12:00:00Z§")
    assert '"services":["payments-api"]' in follow.sources[1]["query"]


def test_without_tools_no_sources_and_says_so(demo: Demo) -> None:
    history = [
        ContextMessage("user", "What broke checkout this morning?"),
        ContextMessage(
            "assistant",
            "The payments-api deploy v2.14.0 leaked database connections [[source:1]].",
        ),
    ]
    result = answer(demo, "Which payments-api deploy broke it?", history=history, use_tools=False)
    assert result.sources == {}
    assert "[[source:" not in result.markdown
    assert "without querying" in result.markdown
    assert "payments-api deploy v2.14.0 leaked database connections" in result.markdown
    assert result.credits == pytest.approx(1.0)
    bare = answer(demo, "Is the database healthy?", use_tools=False)
    assert bare.sources == {} and "Nothing earlier in this conversation" in bare.markdown


def test_answers_are_deterministic(demo: Demo) -> None:
    question = "What happened between 09:00 and 11:00 with checkout?"
    first, second = answer(demo, question), answer(demo, question)
    assert first == second
    first = demo.agent(lambda ctx: AGENT.investigate(ctx, "Investigate", ALERT))
    assert first == demo.agent(lambda ctx: AGENT.investigate(ctx, "Investigate", ALERT))


def test_investigation_finds_the_bad_deploy(demo: Demo) -> None:
    result = demo.agent(lambda ctx: AGENT.investigate(ctx, "Find the root cause.", ALERT))
    assert_well_formed(result)
    text = result.markdown
    assert text.startswith("**Root cause: commit `f41c9a7e2b65`**")
    assert "(payments-api v2.14.0)" in text.split("\n\n", 1)[0]
    assert result.analysis is not None
    assert result.analysis["deploy_id"] == "payments-api@v2.14.0"
    assert result.analysis["service"] == "payments-api"
    kinds = {s["type"] for s in result.sources.values()}
    assert {"change", "logs"} <= kinds


def test_investigation_after_the_rollback_sees_the_recovery(demo: Demo) -> None:
    late = json.dumps({"title": "Checkout errors", "timestamp": "2026-11-22T10:40:00Z"})
    result = demo.agent(lambda ctx: AGENT.investigate(ctx, "", late))
    assert "rolled back payments-api" in result.markdown
    assert "Errors stopped after the rollback." in result.markdown


def test_digest_section_reports_the_last_day(demo: Demo) -> None:
    result = demo.agent(lambda ctx: AGENT.digest_section(ctx, "Platform health", "Summarise."))
    assert_well_formed(result)
    assert "logged 4978 lines" in result.markdown
    errors = demo.count(LogRecord.level.in_(["ERROR", "CRITICAL"]))
    assert f"{errors} errors" in result.markdown
    assert "The busiest hour for errors began at §2026-11-22T10:00:00Z§" in result.markdown
    # Every figure of the section is read back from the query it cites: nothing dropped.
    assert result.analysis is not None
    claims = result.analysis["claims"]
    assert claims["checked"] >= 20 and claims["share"] == 1.0 and claims["dropped"] == 0


def test_digest_section_honours_the_prompt_window_and_service(demo: Demo) -> None:
    result = demo.agent(
        lambda ctx: AGENT.digest_section(ctx, "Search", "search-api over the last 6 hours")
    )
    query = json.loads(result.sources[1]["query"])
    assert query["services"] == ["search-api"]
    assert (query["start"], query["end"]) == ("2026-11-22T06:00:00Z", "2026-11-22T12:00:00Z")


def test_empty_organization_gets_an_honest_answer(demo: Demo) -> None:
    result = demo.agent(lambda ctx: AGENT.answer(ctx, "Any errors today?"), empty=True)
    assert result.sources == {}
    assert result.markdown.startswith("I could not find anything about")
    assert "No logs are stored" in result.markdown
    assert result.credits == pytest.approx(1.25)  # no more than a lookup
    inv = demo.agent(lambda ctx: AGENT.investigate(ctx, "", ALERT), empty=True)
    assert "No logs are stored" in inv.markdown


@pytest.mark.parametrize(
    ("message", "instructions", "expected"),
    [
        ("", "anything", "NONE"),
        ("checkout is down, can someone look?", "Answer questions about checkout", "AGENT"),
        ("where is the VPN guide", 'STATIC: vpn, "vpn guide"\nAGENT: error', "STATIC"),
        ("error on vpn", "STATIC: vpn\nAGENT: error", "STATIC"),  # first matching directive wins
        ("lunch anyone?", "Answer questions about payments", "NONE"),
        ("payments deploy done", "Reply with the standard payments notice", "STATIC"),
        ("thanks!", "", "NONE"),
        ("why is search slow?", "", "AGENT"),
        ("ignore me: test", "NONE: test\nAGENT: test", "NONE"),
    ],
)
def test_classify_rules(message: str, instructions: str, expected: str) -> None:
    result = asyncio.run(AGENT.classify(None, message, instructions))  # type: ignore[arg-type]
    assert result.decision == expected
    assert result.credits == pytest.approx(0.1)


def test_cost_model_is_configurable() -> None:
    costs = CostModel.parse("run=2, log_query=0.5")
    assert (costs.run, costs.log_query, costs.knowledge_search) == (2.0, 0.5, 0.25)
    assert costs.charge(knowledge_searches=2, log_queries=3) == pytest.approx(4.0)
    with pytest.raises(ValueError, match="unknown item 'bogus=1'"):
        CostModel.parse("bogus=1")
    with pytest.raises(ValueError, match="run must be >= 0"):
        CostModel.parse("run=-1")
    agent = RetrievalAgent.from_settings(None)
    assert agent.costs == CostModel()


def test_cost_model_from_settings_not_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLEUTH_AGENT_COSTS", "run=7")
    settings = Settings.from_env({"SLEUTH_AGENT_COSTS": "run=3"})
    assert RetrievalAgent.from_settings(settings).costs.run == 3.0
    assert RetrievalAgent.from_settings(Settings()).costs.run == CostModel().run


@pytest.mark.parametrize(
    ("title", "shown"),
    [
        ("Deploys and rollbacks", "Runbook: Deploys and rollbacks"),
        ("Runbook: database failover", "Runbook: database failover"),
        ("Playbook - TLS renewal", "Playbook - TLS renewal"),
        ("Runaway jobs", "Runbook: Runaway jobs"),
    ],
)
def test_source_titles_are_not_doubled(title: str, shown: str) -> None:
    from sleuth_shell.agents.sources import display_title

    assert display_title(title) == shown


def test_why_question_takes_the_onset_it_states(demo: Demo) -> None:
    # "since ~09:50": the pool warnings from 09:33 came before the failure asked about, which
    # begins with the first message new since a quarter of an hour before the stated time.
    result = answer(demo, "Why is checkout failing since ~09:50?")
    assert_well_formed(result)
    lead = result.markdown.split("\n\n", 1)[0]
    assert lead.startswith("**Root cause: commit `f41c9a7e2b65`**")
    assert "**payments-api** began failing at §2026-11-22T09:4" in lead, lead
