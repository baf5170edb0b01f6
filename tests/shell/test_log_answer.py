"""Log answers (`sleuth_shell.agents.log_answer`) when the asked window holds no errors."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta

from llm_standin import MemoryChanges, MemoryLogs, MemoryMetrics
from rca_memory import MemoryKnowledge

from sleuth_shell.agents.base import AgentContext, AgentResult, LogRecord
from sleuth_shell.agents.retrieval import RetrievalAgent

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def ask(question: str, warn: bool = True) -> AgentResult:
    records = [
        LogRecord(i, NOW - timedelta(hours=3) + timedelta(minutes=i), "mailer", "INFO", "sent")
        for i in range(170)
    ]
    if warn:
        records += [
            LogRecord(
                1000 + i,
                NOW - timedelta(minutes=20 - i),
                "mailer",
                "WARNING",
                "delivery deferred: 421 too many connections",
            )
            for i in range(5)
        ]
    ctx = AgentContext(
        org_id=1,
        now=NOW,
        knowledge=MemoryKnowledge([]),
        logs=MemoryLogs(records),
        public_url="http://sleuth.test",
        changes=MemoryChanges([]),
        metrics=MemoryMetrics([]),
    )
    return asyncio.run(RetrievalAgent().answer(ctx, question))


def test_no_errors_and_no_level_asked_gives_the_warnings_first() -> None:
    result = ask("mailer: anything off in the past half hour?")
    lead = result.markdown.split("\n\n", 1)[0]
    assert lead.startswith("**mailer** logged no errors between")
    assert "5 warnings" in lead and "421 too many connections" in lead
    # Errors asked for by name are answered about errors only.
    named = ask("mailer errors in the past half hour?").markdown.split("\n\n", 1)[0]
    assert "warning" not in named


def test_every_sentence_of_an_empty_answer_is_cited() -> None:
    result = ask("mailer: anything off in the past half hour?", warn=False)
    lead = result.markdown.split("\n\n", 1)[0]
    assert "has logged no errors in the stored logs" in lead
    for sentence in re.split(r"(?<=\.)\s+(?=\*|[A-Z])", lead):
        assert "[[source:" in sentence, sentence


def test_a_why_question_about_an_instant_is_analysed_with_a_baseline_before_it() -> None:
    quiet = [
        LogRecord(i, NOW - timedelta(hours=10) + timedelta(minutes=5 * i), "fees", "INFO", "ok")
        for i in range(110)
    ]
    failing = [
        LogRecord(
            500 + i,
            NOW - timedelta(hours=2, minutes=50) + timedelta(minutes=3 * i),
            "fees",
            "ERROR",
            "charge failed: POST https://api.payco.example/v2/charges returned 503",
        )
        for i in range(15)
    ]
    ctx = AgentContext(
        org_id=1,
        now=NOW,
        knowledge=MemoryKnowledge([]),
        logs=MemoryLogs(quiet + failing),
        public_url="http://sleuth.test",
        changes=MemoryChanges([]),
        metrics=MemoryMetrics([]),
    )
    # 09:30 is 30 minutes into the failure: the engine needs the quiet hours before it.
    result = asyncio.run(RetrievalAgent().answer(ctx, "fees failing around 09:30 - why?"))
    assert result.analysis is not None and result.analysis.get("category") == "dependency_failure"
