"""Passage ranking (`sleuth_shell.passages`) and several-part questions (`catalog_answer`):
values in `key: value` lines and tables, the asked shape of an answer, each part its passage."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from llm_standin import MemoryChanges, MemoryLogs, MemoryMetrics
from rca_memory import MemoryKnowledge

from sleuth_shell.agents.base import AgentContext, AgentResult
from sleuth_shell.agents.catalog_answer import question_parts
from sleuth_shell.agents.retrieval import RetrievalAgent
from sleuth_shell.passages import (
    answer_cue,
    asked_value,
    expected_answer,
    key_terms,
    rank_passages,
)

FAILOVER = """# Ledger database failover

Owner: Core team. `ledger-db` runs on three nodes; ledger-db holds every posting.

Cluster: ledger-db (3 nodes: ledger-db-1, ledger-db-2, ledger-db-3)
RTO: 15 minutes
RPO: zero
rollback command: `lgctl rollback ledger-db`

## Before a rollback
Drain the posting queue first: `lgctl queue drain postings`.
"""
ROTA = """# Rota

| Team | Pager handle | Escalate after |
|---|---|---|
| Ledger | pg-ledger | 20 minutes |
| Cards | pg-cards | 5 minutes |
"""
FREEZE = """# Year-end freeze

From 2026-12-20T00:00:00Z to 2027-01-04T00:00:00Z no deploys to ledger-api.

Freeze approver: CFO office
"""
DOCS = [
    (1, "Ledger database failover", FAILOVER),
    (2, "Rota", ROTA),
    (3, "Year-end freeze", FREEZE),
]


def best(question: str, context: str = "") -> str:
    ranked = rank_passages(
        key_terms(question),
        DOCS,
        expects=expected_answer(question),
        context=key_terms(context),
        value_of=asked_value(question),
    )
    return ranked[0].passage.text


def test_the_key_that_names_the_asked_value_wins_over_the_subject_line() -> None:
    assert best("What is the ledger-db RTO?") == "RTO: 15 minutes"
    assert best("ledger-db RPO?") == "RPO: zero"
    # An action question names no value: no key is what it asks.
    assert asked_value("What must we drain before rolling it back?") == []


def test_a_table_row_holds_the_value_with_its_column() -> None:
    assert "pg-cards" in best("Pager handle of the Cards team?")


def test_when_asks_for_a_date_and_which_version_for_a_version() -> None:
    assert best("when does the year-end freeze end?").startswith("From 2026-12-20")
    shape = expected_answer("which version did we roll back to?")
    assert shape is not None and shape.search("rollback to v4.30.2")
    assert not shape.search("the rollback procedure now pauses the scheduler")


def test_each_part_of_a_question_is_its_own_part() -> None:
    assert question_parts(
        "Which provider failed in the March outage, and what did we change after it?"
    ) == ["Which provider failed in the March outage", "what did we change after it?"]
    assert question_parts("What is the ledger RTO? Also what's max_poll_records for ingest?") == [
        "What is the ledger RTO",
        "what's max_poll_records for ingest?",
    ]
    assert question_parts("How do I roll back and redeploy payments?") == [
        "How do I roll back and redeploy payments?"
    ]
    assert asked_value("what must we pause before rolling it back?") == []


def ask(question: str) -> AgentResult:
    ctx = AgentContext(
        org_id=1,
        now=datetime(2026, 12, 1, tzinfo=UTC),
        knowledge=MemoryKnowledge(
            [(title, content) for _, title, content in DOCS]
            + [("Postmortem: October ledger outage", POSTMORTEM)]
        ),
        logs=MemoryLogs([]),
        public_url="http://sleuth.test",
        changes=MemoryChanges([]),
        metrics=MemoryMetrics([]),
    )
    return asyncio.run(RetrievalAgent().answer(ctx, question))


POSTMORTEM = """# Postmortem: October ledger outage

## Summary
The ledger-db primary ran out of disk; no change was involved.

## What we changed afterwards
- Disk alerts now page at 70%.
- Postings older than a year move to cold storage.
"""


def test_each_part_is_answered_with_its_own_citation() -> None:
    result = ask("What is the ledger-db RTO, and what do we drain before a rollback?")
    lead = result.markdown.split("\n\n", 1)[0]
    assert "RTO: 15 minutes" in lead and "lgctl queue drain postings" in lead
    assert len(result.sources) == 2  # one citation per part
    assert result.analysis is not None and result.analysis["claims"]["dropped"] == 0


def test_a_part_the_catalog_does_not_hold_is_said_not_found_and_the_others_answered() -> None:
    # The second part asks about something no runbook holds: the first is answered with its
    # citation, and the first paragraph says plainly which part was not found.
    result = ask("What is the ledger-db RTO, and which Kafka topic holds the audit trail?")
    lead = result.markdown.split("\n\n", 1)[0]
    assert "RTO: 15 minutes" in lead and "[[source:1]]" in lead
    missing = "I could not find anything on *which Kafka topic holds the audit trail*"
    assert f"{missing} in the knowledge catalog" in lead
    assert result.markdown.count("I could not find") == 1  # the question is answered, in part
    assert len(result.sources) == 1
    assert result.analysis is not None and result.analysis["claims"]["dropped"] == 0
    # The same with the missing part first, and one holding a number (the claim check would
    # drop a sentence stating a number no cited source holds: the note leaves it out).
    result = ask("Which Kafka topic keeps 90 days of audit trail, and who approves a freeze?")
    lead = result.markdown.split("\n\n", 1)[0]
    assert "Freeze approver: CFO office" in lead
    assert "I could not find anything on *which Kafka topic keeps days of audit trail*" in lead
    assert result.analysis is not None and result.analysis["claims"]["dropped"] == 0


def test_a_part_too_short_to_stand_alone_is_read_in_the_whole_question() -> None:
    # "which service cannot deploy during it?" finds nothing alone; read in the whole question,
    # the freeze's line answers it (the same line as the first part: stated once, both cited).
    result = ask("when does the year-end freeze end, and which service cannot deploy during it?")
    lead = result.markdown.split("\n\n", 1)[0]
    assert "no deploys to ledger-api" in lead and "I could not find" not in result.markdown


def test_a_question_no_part_of_which_the_catalog_holds_is_not_answered() -> None:
    result = ask("Which Kafka topic holds the audit trail, and who signs the vendor contract?")
    assert result.markdown.startswith("I could not find anything about")
    assert not result.sources


def test_a_telegraphic_question_gets_every_asked_value() -> None:
    lead = ask("ledger-db RTO and RPO?").markdown.split("\n\n", 1)[0]
    assert "RTO: 15 minutes" in lead and "RPO: zero" in lead


def test_what_was_changed_afterwards_comes_from_that_section() -> None:
    result = ask("What caused the October ledger outage, and what did we change after it?")
    lead = result.markdown.split("\n\n", 1)[0]
    assert "out of disk" in lead and "Disk alerts now page at 70%" in lead


def test_terse_questions_split_at_lists_topics_and_commas() -> None:
    assert question_parts("ledger-db RTO + RPO?") == ["ledger-db RTO", "RPO?"]
    assert question_parts("Cards pager handle / escalate after") == [
        "Cards pager handle",
        "escalate after",
    ]
    assert question_parts("ledger-db RTO, rollback command") == [
        "ledger-db RTO",
        "rollback command",
    ]
    assert question_parts("ledger-db RTO and its rollback command?") == [
        "ledger-db RTO",
        "its rollback command?",
    ]
    assert question_parts("who approves a freeze exception, when does it end") == [
        "who approves a freeze exception",
        "when does it end",
    ]
    assert question_parts("Who pages ledger-db and after how long do we escalate?") == [
        "Who pages ledger-db",
        "after how long do we escalate?",
    ]
    # A topic before the question is written before each part.
    assert question_parts("ledger-db failover: RTO, rollback command?") == [
        "ledger-db failover: RTO",
        "ledger-db failover: rollback command?",
    ]
    assert question_parts("Ledger outage - what broke and what did we change?") == [
        "Ledger outage: what broke",
        "Ledger outage: what did we change?",
    ]
    # A comma after a clause that asks nothing is not a list, and one thing asked stays whole.
    assert question_parts("If ledger-db fails over, what do we drain first?") == [
        "If ledger-db fails over, what do we drain first?"
    ]
    assert question_parts("For ledger-db, what is the RTO?") == ["For ledger-db, what is the RTO?"]
    assert question_parts("retention.ms + max_poll_records?") == [
        "retention.ms",
        "max_poll_records?",
    ]


def test_a_topic_picks_the_document_and_each_part_its_passage() -> None:
    result = ask("ledger-db failover: what do we drain + the rollback command?")
    lead = result.markdown.split("\n\n", 1)[0]
    assert lead.startswith("Drain the posting queue first: `lgctl queue drain postings`.")
    assert "rollback command: `lgctl rollback ledger-db`" in lead
    assert "**ledger-db failover: what do we drain?**" in result.markdown


def test_a_later_part_asking_for_another_column_is_answered_by_the_same_row() -> None:
    lead = ask("Cards pager handle? escalate after?").markdown.split("\n\n", 1)[0]
    assert "Pager handle: pg-cards; Escalate after: 5 minutes" in lead
    assert "20 minutes" not in lead


def test_what_was_changed_lists_every_change_even_asked_as_one_question() -> None:
    lead = ask("what did we change after the October ledger outage").markdown.split("\n\n")[0]
    assert "Disk alerts now page at 70%" in lead
    assert "Postings older than a year move to cold storage" in lead


OUTAGE = """# Postmortem: card outage

Status: final. Duration: 2 hours 5 minutes.

## Summary
For a while 312 cards were refused at 40 gates; a retry took 30 seconds each time.
"""


def test_how_many_and_how_long_are_answered_in_their_own_words() -> None:
    docs = [(1, "Postmortem: card outage", OUTAGE)]

    def top(question: str) -> str:
        return rank_passages(
            key_terms(question),
            docs,
            expects=expected_answer(question),
            cue=answer_cue(question),
        )[0].passage.text

    assert top("how many cards were refused in the card outage?").startswith("For a while 312")
    assert top("how long did the card outage last?").startswith("Status: final. Duration")
    assert answer_cue("how many gates refused cards?").search("at 40 gates")
    assert not answer_cue("how many gates refused cards?").search("312 cards were refused")


KIOSKS = """# Kiosks: faults

| Fault | Meaning | Field action |
|---|---|---|
| K-7 | coin box full | box collection by the cash courier |
| K-9 | screen dead | replace the screen |

cash courier: Harbor Armored Services (dispatch +1 555 0100)
collection cutoff: 14:00 local time
"""


def test_who_follows_the_role_a_passage_names_to_the_line_defining_it() -> None:
    ctx = AgentContext(
        org_id=1,
        now=datetime(2026, 12, 1, tzinfo=UTC),
        knowledge=MemoryKnowledge([("Kiosks: faults", KIOSKS), ("Rota", ROTA)]),
        logs=MemoryLogs([]),
        public_url="http://sleuth.test",
        changes=MemoryChanges([]),
        metrics=MemoryMetrics([]),
    )
    result = asyncio.run(
        RetrievalAgent().answer(ctx, "kiosk K-7 - what does it mean and who do we call for it?")
    )
    lead = result.markdown.split("\n\n", 1)[0]
    assert "coin box full" in lead and "Harbor Armored Services" in lead
    assert lead.count("coin box full") == 1  # the row is stated once


CONTACTS = """# Ledger contacts

Owner: Ledger team (#ledger-oncall). Vendor support: help@ledgerco.example.

manual replay approval: Ledger on-call lead
max_replays: 3
ledger_write_timeout: 45 seconds
"""


def test_typos_short_forms_and_asked_forms_still_find_the_line() -> None:
    docs = [(1, "Ledger contacts", CONTACTS), *DOCS]

    def top(question: str) -> str:
        return rank_passages(
            key_terms(question), docs, value_of=asked_value(question), expects=None
        )[0].passage.text

    assert top("ledger write timout?") == "ledger_write_timeout: 45 seconds"  # a typo
    assert top("who approves a ledger replay?") == "manual replay approval: Ledger on-call lead"
    assert top("ledger max replays?") == "max_replays: 3"  # a key written as one token
    assert "#ledger-oncall" in top("who owns the ledger, and what's their slack channel")
    assert "help@ledgerco.example" in top("ledger vendor email")
    assert key_terms("who owns it") == ["owner"]


def test_a_why_question_naming_a_postmortem_is_answered_from_it() -> None:
    ctx = AgentContext(
        org_id=1,
        now=datetime(2026, 12, 1, tzinfo=UTC),
        knowledge=MemoryKnowledge(
            [
                (
                    "Postmortem PM-0042: disk outage",
                    "# Postmortem PM-0042\n\n## Root cause\nThe ledger-db primary ran out of "
                    "disk: nothing pruned the WAL archive.\n",
                ),
                ("Ledger database failover", FAILOVER),
            ]
        ),
        logs=MemoryLogs([]),
        public_url="http://sleuth.test",
        changes=MemoryChanges([]),
        metrics=MemoryMetrics([]),
    )
    result = asyncio.run(RetrievalAgent().answer(ctx, "PM-0042 - root cause?"))
    assert "ran out of disk" in result.markdown.split("\n\n", 1)[0]
    assert result.analysis is None or "category" not in result.analysis


def test_a_hyphenated_question_word_matches_the_words_written_apart() -> None:
    gates = "# Gates\n\nSwitch on: `gatectl open`\n\nSwitch off early: `gatectl shut`\n"
    docs = [(1, "Gates", gates)]
    question = "gates switch-off command"
    found = rank_passages(key_terms(question), docs, value_of=asked_value(question))
    assert found[0].passage.text == "Switch off early: `gatectl shut`"


PRIVACY = """# Pulling a leaked record

Owner: Ledger team. When a statement exposes protected data (a Social Security number, a card
number), the statement is pulled from the portal.

approver: Ledger duty manager
deadline: pulled within 3 hours of the report
command: `lgctl statement pull --id <id>`
"""
LEDGER_PM = """# Postmortem PM-0090: ledger refusals

## Summary
ledger-api refused postings for an hour: 12,000 postings queued at the peak and 3,100 postings
were refused in all.

## Timeline (UTC)
- 2026-10-01T10:00:00Z ledger-api refuses postings with 503.
"""
LEDGER_ROTA = """# Ledger rota

| Team | Services | Pager handle |
|---|---|---|
| Ledger | ledger-api, ledger-db | pg-ledger |
| Cards | cards-api | pg-cards |
"""
LIMITS = """# Card limits

Cards over their daily limit are declined by cards-api.

## A card is over its limit
A card over its limit is held for review, not closed.

1. Check it: `cardctl show <card>`.
2. Never raise a limit above 5,000 USD: the bank refuses it.
3. Bounce the limit cache afterwards: `cardctl restart limit-cache`.
"""


def ranked_over(question: str, docs: list[tuple[int, str, str]], *, situation: bool = False) -> str:
    from sleuth_shell.agents.catalog_answer import _situation_terms

    return rank_passages(
        key_terms(question),
        docs,
        expects=expected_answer(question),
        value_of=asked_value(question),
        cue=answer_cue(question),
        situation=_situation_terms(question) if situation else (),
    )[0].passage.text


def test_an_abbreviation_no_runbook_holds_matches_the_words_it_stands_for() -> None:
    docs = [(1, "Pulling a leaked record", PRIVACY), *DOCS]
    # "SSN" is written nowhere; "Social Security number" is.
    question = "SSN showing on a statement: who approves pulling it?"
    assert ranked_over(question, docs) == "approver: Ledger duty manager"
    found = rank_passages(key_terms("SSN exposure?"), docs)
    assert found[0].passage.doc == 1 and found[0].coverage > 0.4
    # Lowercase words that merely start with those letters are no name.
    assert rank_passages(key_terms("SSN?"), [(2, "x", "some service now")])[0].coverage == 0


def test_a_verb_matches_the_noun_of_its_root_but_not_a_noun_another() -> None:
    docs = [(1, "Ledger rota", LEDGER_ROTA), (2, "Card limits", LIMITS)]
    # "paged" is the root of the "Pager handle" column.
    assert "pg-cards" in ranked_over("who gets paged for cards-api?", docs)
    # A noun of the question does not match another form of its root.
    scheduling = [(1, "Jobs", "# Jobs\n\nRestart the scheduling pods: `jobctl restart`.\n")]
    hit = rank_passages(key_terms("restart the MRI scheduler"), scheduling)[0]
    assert hit.coverage < 0.4


def test_who_is_answered_by_a_role_and_a_condition_only_tells_the_situation() -> None:
    docs = [(1, "Ledger rota", LEDGER_ROTA), (2, "Postmortem PM-0090: ledger refusals", LEDGER_PM)]
    question = "who gets paged when ledger-api is refusing postings?"
    assert "pg-ledger" in ranked_over(question, docs, situation=True)
    # Without the condition weighing half and the answer's form, the postmortem's account of
    # the refusals wins.
    plain = rank_passages(key_terms(question), docs)[0].passage.text
    assert "pg-ledger" not in plain


def test_a_count_followed_by_the_asked_verb_wins_over_other_counts_of_the_noun() -> None:
    docs = [(1, "Postmortem PM-0090: ledger refusals", LEDGER_PM)]
    assert "3,100 postings were refused" in ranked_over("how many postings got refused?", docs)
    cue = answer_cue("how many postings got refused?")
    assert cue is not None
    said = cue.search("3,100 postings were refused")
    assert said is not None and said["verb"] == "refused"


def test_synonyms_a_section_named_by_the_question_and_what_not_to_do() -> None:
    docs = [(1, "Card limits", LIMITS), *DOCS]
    # "outage" is an incident; "several" and "else" ask nothing.
    assert key_terms("who else gets paged in several regions") == ["paged", "region"]
    rota = [(1, "Rota", "# Rota\n\nAn incident in two regions pages the CTO: `page cto`.\n")]
    assert rank_passages(key_terms("outage in two regions?"), rota)[0].coverage == 1.0
    # "bounce" is a restart.
    assert "cardctl restart limit-cache" in ranked_over("how do I bounce the limit cache?", docs)
    # The section whose heading holds every asked term answers "what happens when ...".
    what = ranked_over("what happens when a card goes over its limit?", docs)
    assert what.startswith(("Check it", "Never raise", "Bounce", "A card over its limit"))
    # "what should we not do" is answered by a warning against something.
    assert ranked_over("card limits: what should we never do?", docs).startswith("Never raise")


def test_a_situation_before_a_dash_is_the_topic_of_every_part() -> None:
    assert question_parts(
        "a card number is showing on a statement - who approves pulling it and how fast?"
    ) == [
        "a card number is showing on a statement: who approves pulling it",
        "a card number is showing on a statement: how fast?",
    ]
    assert question_parts("reminder deadline? + backlog threshold") == [
        "reminder deadline",
        "backlog threshold",
    ]


def test_a_later_part_naming_its_own_service_is_not_read_in_the_first_ones_context() -> None:
    from sleuth_shell.agents.catalog_answer import _context_for

    first = "card limit cap?"
    assert _context_for("who gets paged when ledger-api is refusing postings", first) == ""
    assert _context_for("and what do we bounce afterwards?", first) == first
    assert _context_for("what about cards-api?", "cards-api limit cap?") == "cards-api limit cap?"
    ctx = AgentContext(
        org_id=1,
        now=datetime(2026, 12, 1, tzinfo=UTC),
        knowledge=MemoryKnowledge(
            [
                ("Card limits", LIMITS),
                ("Ledger rota", LEDGER_ROTA),
                ("Postmortem PM-0090: ledger refusals", LEDGER_PM),
            ]
        ),
        logs=MemoryLogs([]),
        public_url="http://sleuth.test",
        changes=MemoryChanges([]),
        metrics=MemoryMetrics([]),
    )
    result = asyncio.run(
        RetrievalAgent().answer(
            ctx, "card limit cap? and who gets paged when ledger-api is refusing postings"
        )
    )
    lead = result.markdown.split("\n\n", 1)[0]
    assert "5,000 USD" in lead and "pg-ledger" in lead


ORDERS = """# Hospital orders

Owner: Supply team. The order cutoff for next-morning delivery is 15:30 UTC at every hub.

A STAT order not dispatched after 15 minutes is escalated to the Supply lead by phone, whatever
the pager says.
"""
SUPPLY_ROTA = """# Rota

| Team | Services | Pager handle |
|---|---|---|
| Supply | order-router | fbn-supply |
| Logistics | courier-dispatch | fbn-logistics |
"""


def test_a_later_part_in_words_of_its_own_is_steered_not_decided_by_the_first() -> None:
    ctx = AgentContext(
        org_id=1,
        now=datetime(2026, 12, 1, tzinfo=UTC),
        knowledge=MemoryKnowledge([("Hospital orders", ORDERS), ("Rota", SUPPLY_ROTA)]),
        logs=MemoryLogs([]),
        public_url="http://sleuth.test",
        changes=MemoryChanges([]),
        metrics=MemoryMetrics([]),
    )
    result = asyncio.run(
        RetrievalAgent().answer(
            ctx, "order cutoff for next-morning delivery? and the pager handle for supply"
        )
    )
    lead = result.markdown.split("\n\n", 1)[0]
    assert "15:30 UTC" in lead and "fbn-supply" in lead
    # "handle" after a noun names what is asked; as a verb it does not.
    assert key_terms("the pager handle for supply") == ["pager", "handl", "supply"]
    assert key_terms("how do I handle a stuck queue") == ["stuck", "queue"]


def test_a_word_cut_short_and_a_phrase_for_a_noun_find_the_line() -> None:
    stock = (
        "# Stock\n\nA negative reserve: 40 units per hub, issued with the duty officer's approval\n"
        "screening hold: 36 hours\n"
    )
    docs = [(9, "Stock", stock), *DOCS]
    # "neg" is "negative" cut short; "hold back" is a reserve; "per" asks nothing.
    found = rank_passages(key_terms("how many A neg do we hold back per hub"), docs)
    assert found[0].passage.text.startswith("A negative reserve") and found[0].coverage > 0.7


FRIDGES = """# Fridges

storage range: 2-6 °C
quarantine after: 30 minutes outside the range
quarantine approver: hub quality manager
quarantine command: `fridgectl quarantine --id <FRIDGE>`
"""


def test_a_later_part_naming_nothing_asks_its_shape_of_the_first_parts_subject() -> None:
    question = "how long out of range before we quarantine, and what's the command"
    assert question_parts(question) == [
        "how long out of range before we quarantine",
        "what's the command",
    ]
    ctx = AgentContext(
        org_id=1,
        now=datetime(2026, 12, 1, tzinfo=UTC),
        knowledge=MemoryKnowledge([("Fridges", FRIDGES), ("Rota", ROTA)]),
        logs=MemoryLogs([]),
        public_url="http://sleuth.test",
        changes=MemoryChanges([]),
        metrics=MemoryMetrics([]),
    )
    lead = asyncio.run(RetrievalAgent().answer(ctx, question)).markdown.split("\n\n", 1)[0]
    assert "30 minutes" in lead and "fridgectl quarantine" in lead
    # "signs off" is an approval.
    docs = [(1, "Fridges", FRIDGES), (2, "Rota", ROTA)]
    assert ranked_over("fridges: who signs off a quarantine?", docs).startswith(
        "quarantine approver"
    )


def test_a_comparison_is_two_questions_and_a_later_part_keeps_the_first_ones_row() -> None:
    assert question_parts("search removal time for a seal vs a strike?") == [
        "search removal time for a seal",
        "search removal time for a strike?",
    ]
    assert question_parts("approver for sealing versus striking?") == [
        "approver for sealing",
        "approver for striking?",
    ]
    codes = (
        "# Codes\n\n| Code | Meaning | What to do |\n|---|---|---|\n"
        '| X-204 | encrypted document | reject with reason "password" |\n'
        '| X-309 | page too large | reject with reason "page size" |\n'
    )
    docs = [(9, "Codes", codes), *DOCS]
    found = rank_passages(
        key_terms("the reason we give the filer?"), docs, context=key_terms("X-309 meaning")
    )
    assert "X-309" in found[0].passage.text


def test_after_how_long_asks_for_a_duration() -> None:
    shape = expected_answer("after how long do we switch to the fallback?")
    assert shape is not None and shape.search("after 15 minutes of failures")
    assert not shape.search("Approval: duty manager")


QUEUE = """# Mail queue backlog

Owner: Messaging team (#messaging). `mail-worker` drains the queue `mail.out` and sends
e-mail through the relay.

Backlog alert threshold: 2000 messages
Maintenance announcement: at least 72 hours before, on the status page

## Symptoms
- `mail-worker` logs `provider returned 429`: we exceed the provider's rate limit.

## Mitigation
- Every purge of `mail.out` is a reportable event: file the purge form within 24 hours.
- Check the queue depth first: `mqctl depth mail.out` (a purge under 30 seconds of backlog is
  never needed).
"""


def ask_over(docs: list[tuple[str, str]], question: str) -> AgentResult:
    ctx = AgentContext(
        org_id=1,
        now=datetime(2026, 12, 1, tzinfo=UTC),
        knowledge=MemoryKnowledge(docs),
        logs=MemoryLogs([]),
        public_url="http://sleuth.test",
        changes=MemoryChanges([]),
        metrics=MemoryMetrics([]),
    )
    return asyncio.run(RetrievalAgent().answer(ctx, question))


def test_who_owns_x_is_answered_by_the_owner_line_of_xs_runbook() -> None:
    # The owner line does not repeat the service's name; lines that do (a symptom) hold no owner.
    docs = [(title, content) for _, title, content in DOCS] + [("Mail queue backlog", QUEUE)]
    lead = ask_over(docs, "who owns mail-worker, and what's the backlog alert threshold?")
    first = lead.markdown.split("\n\n", 1)[0]
    assert "Owner: Messaging team (#messaging)" in first and "2000 messages" in first


def test_a_later_part_is_read_with_the_shared_topic_and_a_bare_one_with_the_part_before() -> None:
    docs = [(title, content) for _, title, content in DOCS] + [("Mail queue backlog", QUEUE)]
    # A topic before every part is the context each holds: the first part's own ask (the
    # threshold) does not pull the second one's passage; "by when?" asks about "what must be
    # filed", the part right before it, not the first.
    question = "mail.out purge: backlog threshold, and what must be filed and by when?"
    first = ask_over(docs, question).markdown.split("\n\n", 1)[0]
    assert "2000 messages" in first and "file the purge form within 24 hours" in first
    # "whose" is a question word, not a term; "notice" is an announcement.
    assert key_terms("whose approval does a freeze need") == ["approval", "freez"]
    found = rank_passages(key_terms("how much notice for maintenance"), [(1, "Mail", QUEUE)])
    assert found[0].passage.text.startswith("Maintenance announcement")


def test_a_typo_is_a_letter_next_to_the_right_one_not_another_word() -> None:
    docs = [(1, "Ledger contacts", CONTACTS)]
    assert rank_passages(key_terms("ledger write tineout"), docs)[0].passage.text == (
        "ledger_write_timeout: 45 seconds"
    )
    # "retention" (stem "retent") is not a typo of "recent", one letter off on distant keys.
    recent = [(1, "Deploys", "# Deploys\n\nRoll back a recent deploy first.\n")]
    assert rank_passages(key_terms("retention"), recent)[0].coverage == 0.0


LEVELS = """# Stock levels

| Level | Units on hand | What we do |
|---|---|---|
| Green | 6 days of supply or more | nothing |
| Amber | under 6 days of supply | transfer from another hub |
| Red | under 2 days of supply | appeal for donors |

minimum stock: 2 days of supply at the smallest hub
"""


def test_a_question_asked_again_for_another_value_is_two_and_each_finds_its_row() -> None:
    # ", and under 2 days?" asks the first question again for another value; the value the
    # question states picks the row that states it (numbers are no key terms).
    question = "what do we do when units drop under 6 days of supply, and under 2 days?"
    assert question_parts(question) == [
        "what do we do when units drop under 6 days of supply",
        "what do we do when units drop under 2 days?",
    ]
    docs = [(title, content) for _, title, content in DOCS] + [("Stock levels", LEVELS)]
    lead = ask_over(docs, question).markdown.split("\n\n", 1)[0]
    assert "transfer from another hub" in lead and "appeal for donors" in lead
    # A comparison whose other side ends as the first does names both in full.
    assert question_parts("fridge alarm delay vs incubator alarm delay?") == [
        "fridge alarm delay",
        "incubator alarm delay?",
    ]


def test_more_ways_of_joining_parts_and_asking_for_a_value() -> None:
    assert question_parts("ledger-db RTO as well as the rollback command?") == [
        "ledger-db RTO",
        "the rollback command?",
    ]
    assert question_parts("ledger-db RTO along with its RPO") == ["ledger-db RTO", "its RPO"]
    # A piece with no question word lists its things with "and" even when another piece asks.
    assert question_parts(
        "cards pager handle and escalation time, then who approves a freeze?"
    ) == [
        "cards pager handle",
        "escalation time",
        "who approves a freeze?",
    ]
    # "how big" asks a size, "who do I call" a phone number, "can it hold" names nothing.
    assert key_terms("how big can an envelope be") == ["size", "envelop"]
    assert key_terms("how many documents can it hold?") == ["document"]
    assert key_terms("who do I call at the desk") == ["phon", "desk"]
    gateway = (
        "# Gateway\n\nmax_envelope_size: 150 MB\nenvelope_timeout: 45s\n\n"
        "desk hotline: +1 312 555 0147\ndesk after hours: page gw-duty\n"
    )
    docs = [(1, "Gateway", gateway)]
    question = "how big can an envelope be"
    assert rank_passages(key_terms(question), docs)[0].passage.text.startswith("max_envelope_size")
    question = "who do I call at the desk"
    found = rank_passages(key_terms(question), docs, expects=expected_answer(question))
    assert found[0].passage.text.startswith("desk hotline")


OUTAGE_PM = """# Postmortem PM-0101: March ledger outage

## Summary
ledger-api v2.4.0 cut the posting timeout; we rolled back to v2.3.9 after an hour.

## What we changed afterwards
- The rollback procedure now drains the posting queue before rolling back.
- The posting timeout is now a reviewed setting (`posting_timeout: 5s`).
"""


def test_a_part_asking_what_holds_now_is_answered_from_the_runbook_not_the_record() -> None:
    rollbacks = (
        "# Ledger rollbacks\n\nBefore rolling back, drain the posting queue: `lgctl drain`.\n"
    )
    docs = [(title, content) for _, title, content in DOCS] + [
        ("Postmortem PM-0101: March ledger outage", OUTAGE_PM),
        ("Ledger rollbacks", rollbacks),
    ]
    question = (
        "which version did the March ledger outage roll back to, and what do we drain before "
        "rolling back now?"
    )
    lead = ask_over(docs, question).markdown.split("\n\n", 1)[0]
    assert "v2.3.9" in lead and "`lgctl drain`" in lead
    # A part of one word referring back asks about the part right before it, not the first.
    assert question_parts("PM-0101: how long, what was cut, and what was it supposed to be?")[
        2
    ] == ("PM-0101: what was it supposed to be?")
    assert key_terms("what was it supposed to be") == []


FEES = """# Card fees and Paylane

Owner: Intake team. `fee-service` charges each filing fee through our processor, Paylane.

processor: Paylane
charge_timeout: 8s

| Filing | Fee |
|---|---|
| Motion | 60.00 USD |
| Appeal | 505.00 USD |
"""


def test_a_part_asking_for_a_thing_no_runbook_names_is_not_answered_by_its_subject() -> None:
    # Paylane's runbook names Paylane, not a merchant id: the part is said not found, in the
    # asker's words, rather than answered with a line about Paylane.
    docs = [(title, content) for _, title, content in DOCS] + [("Card fees and Paylane", FEES)]
    result = ask_over(docs, "appeal fee, and what's our paylane merchant id?")
    lead = result.markdown.split("\n\n", 1)[0]
    assert "505.00 USD" in lead
    assert "I could not find anything on *what's our paylane merchant id*" in lead
    assert "processor, Paylane" not in lead


def test_a_situation_the_catalog_does_not_word_weighs_nothing() -> None:
    # "v2.4.0 looks bad" is the asker's situation: no runbook holds it, so it does not drown
    # what the parts ask; the note for a part names no number.
    question = "ledger-api v2.4.0 looks bad: cards pager handle, and who signs the vendor contract?"
    lead = ask_over([(t, c) for _, t, c in DOCS], question).markdown.split("\n\n", 1)[0]
    assert "pg-cards" in lead
    assert "*ledger-api looks bad: who signs the vendor contract*" in lead


SETTLEMENT = """# Card settlement

late file deadline: 06:00 UTC (after it the day settles late)

## The file did not go
1. Resubmit the file: `settlectl resubmit`.
2. If the acquirer is still down at the late file deadline, call their settlement desk:
   +1 617 555 0199.
"""
ONCALL = """# On-call

| Team | Services | Pager handle |
|---|---|---|
| Payments | settle-batch | pg-payments |
| Ledger | ledger-api | pg-ledger |
"""


def test_a_topic_steers_but_a_part_is_answered_by_a_passage_holding_its_own_words() -> None:
    # The situation told first is every part's topic; a part whose best passage holds none of
    # what it asks (the deadline's line for "pager handle for payments") is ranked again in the
    # topic's context, and the rota's row answers it.
    docs = [("Card settlement", SETTLEMENT), ("On-call", ONCALL)]
    question = (
        "acquirer still down at the late file deadline - settlement desk number? and pager "
        "handle for payments"
    )
    lead = ask_over(docs, question).markdown.split("\n\n", 1)[0]
    assert "+1 617 555 0199" in lead and "pg-payments" in lead


FORECAST = """# Forecast feed and the supply curve

provider: Skyhollow Weather
forecast_endpoint: https://api.skyhollow.example/v3/forecast
backup provider: Northwind Met

| Outdoor temperature | Supply temperature |
|---|---|
| 5C | 80C |
| -5C | 96C |

## Skyhollow is down
If fetches have failed for an hour, switch to Northwind Met: `fcctl source --use backup`.
"""


def test_whose_thing_a_command_to_and_a_stated_value_below_zero() -> None:
    docs = [("Forecast feed and the supply curve", FORECAST)]
    # "northwind's api endpoint": the endpoint the runbook gives is Skyhollow's, so that part
    # is not found; "cmd to switch" asks a command.
    question = "skyhollow down: cmd to switch to northwind, and whats northwind's api endpoint"
    lead = ask_over(docs, question).markdown.split("\n\n", 1)[0]
    assert "`fcctl source --use backup`" in lead
    assert "I could not find anything on *skyhollow down: what's northwind's api endpoint*" in lead
    assert "api.skyhollow.example" not in lead
    # "-5C" is the value the row states ("temp" is "temperature").
    lead = ask_over(docs, "supply temp at -5C outside per the curve?").markdown.split("\n\n")[0]
    assert "96C" in lead
