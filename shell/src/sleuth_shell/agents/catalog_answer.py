"""Answers from the knowledge catalog: the asked fact first, from the best passage.

`answer_from_catalog` searches the catalog, ranks every fine passage of the candidates
(`sleuth_shell.passages`: sentences, list items, table rows, ``key: value`` lines, code lines) and
answers with the best one as the first sentence, then the quoted block it comes from and a
confidence label. A question of several parts ("what is X set to, and what must we pause before
Y?") is split into its parts, each answered by its own passage and citation; a part that no
passage answers is named in the first paragraph ("I could not find anything on *...* in the
knowledge catalog"). Below the calibrated ``ABSTAIN_BELOW`` evidence the whole answer is "I could
not find ..." with no citation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from sleuth_core.language import STOPWORDS, stem
from sleuth_shell.agents.base import AgentResult
from sleuth_shell.agents.embedded_run import (
    EmbeddedRun,
    excerpt_block,
    inline,
    quote,
    sentence,
    short_title,
)
from sleuth_shell.passages import (
    Ranked,
    answer_cue,
    asked_value,
    asked_words,
    expected_answer,
    holds_term,
    key_terms,
    known_stems,
    rank_passages,
    split_fine,
    stated_values,
    stems_of,
)
from sleuth_shell.question import Question, told_first

__all__ = [
    "ABSTAIN_BELOW",
    "PAST_INCIDENT",
    "answer_from_catalog",
    "names_a_record",
    "question_parts",
]

_CATALOG_CANDIDATES = 10
#: Documents that tell what happened once (postmortems, incident reviews).
_RECORD_TITLE = re.compile(
    r"post-?mortem|incident (?:review|report)|retrospective|\brca\b", re.IGNORECASE
)
_RECORD_SHIFT = 0.15
_ASKS_CAUSE = re.compile(r"\bwhat\s+caused\b|\broot[- ]cause\b|\bwhy\s+did\b", re.IGNORECASE)
_CAUSE_HEADING = re.compile(r"cause|summary", re.IGNORECASE)
#: "What did we change afterwards?": answered by the section that lists what was changed.
_ASKS_CHANGE = re.compile(
    r"\bwhat\s+(?:did|have|has|was|were)\s+(?:we\s+|they\s+|you\s+)?(?:been\s+)?"
    r"(?:chang|fix|do\b|done|improv|add)|\b(?:changed|fixed|done)\s+(?:afterwards|after|since)\b|"
    r"\bfollow[- ]ups?\b|\baction\s+items\b",
    re.IGNORECASE,
)
_CHANGE_HEADING = re.compile(
    r"chang|action item|follow[- ]?up|remediat|lesson|prevent|fix", re.IGNORECASE
)
#: What a passage under that section gains: enough for a list item under "What we changed
#: afterwards" (which holds the asked word only in its heading) to outrank a sentence elsewhere
#: that holds it ("No change was involved").
_ANSWERING_SECTION = 0.45
_MONTH_WORDS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
#: A question about a past incident, answered from its postmortem.
PAST_INCIDENT = re.compile(
    rf"\b(?:post-?mortem|retro(?:spective)?|incident review|lessons learned|"
    rf"(?:changed|fixed|done) (?:afterwards|after(?:wards)? it|since)|"
    rf"(?:last|previous) (?:month|quarter|year)'?s?|"
    rf"(?:the|that|our) (?:{_MONTH_WORDS}|\d{{4}}) (?:\w+ )?(?:outage|incident|failure|breach))\b",
    re.IGNORECASE,
)
#: An identifier a record is filed under ("PM-0037", "INC-2231").
_RECORD_ID = re.compile(r"(?<![\w-])[A-Za-z]{2,6}-\d{2,}(?![\w-])")


async def names_a_record(run: EmbeddedRun, question: str, known: Sequence[str]) -> bool:
    """Whether ``question`` names a postmortem or incident review by its identifier ("PM-0037
    - root cause?"): an identifier (not a service name) that the title of such a record in the
    catalog holds. One knowledge search when the question holds an identifier; none otherwise."""
    names = {k.lower() for k in known}
    ids = [m for m in _RECORD_ID.findall(question) if m.lower() not in names]
    if not ids:
        return False
    hits = await run.search(" ".join(ids), limit=3)
    return any(
        _RECORD_TITLE.search(h.title) and any(i.lower() in h.title.lower() for i in ids)
        for h in hits
    )


#: The least share of a question's key-term weight the best passage (with its runbook) must carry
#: for the agent to answer from it; below it the answer is "I could not find ...". Calibrated on
#: the evaluation's tune split (evals/README.md, docs/agents.md): its unanswerable questions reach
#: at most 0.25, its answerable ones at least 0.59; 0.4 sits in that gap.
ABSTAIN_BELOW = 0.4
#: The words a question (or one part of it) starts with.
_QWORD = (
    r"(?:what|what's|which|who|who's|whom|whose|how|how's|when|when's|where|where's|why|is|are|"
    r"do|does|did|should|must|can|could|will|would)\b"
)
#: Where a question of several parts splits: "? " between questions, "; ", ", and what/how/...",
#: "and after how long ...", ", also", ", what/how/..." (a comma before a question word),
#: ", then what/how/...", and a " + ", " & ", " / ", "plus", "as well as", "along with" or
#: "together with" between the things a question lists.
_PART_SPLIT = re.compile(
    rf"\?\s+(?=\S)|;\s+|\s+[+&/]\s+|,?\s+and\s+(?=(?:(?:after|before|at|by|for|from|in|on|"
    rf"to|until|with)\s+)?{_QWORD})|,?\s+also\s+|,\s+(?={_QWORD})|"
    rf",?\s+(?:as\s+well\s+as|along\s+with|together\s+with|plus)\s+|,?\s+then\s+(?={_QWORD})",
    re.IGNORECASE,
)
#: A comma (or ", and") between two short pieces of a telegraphic question ("booking-db backup
#: time, retention").
_LIST_COMMA = re.compile(r",\s+(?:and\s+)?", re.IGNORECASE)
_LIST_AND = re.compile(r",\s+(?:and\s+)?|\s+and\s+", re.IGNORECASE)
#: The most words (stopwords aside) of a piece that a list comma separates.
_LIST_WORDS = 4
#: A topic before the question: "PM-0031: how many ...", "kiosk showing E-42 - what does it mean
#: ...", "For payments-api, what is ...". It names no question word and is short.
#: The longest topic, in characters (a situation told may be longer: `told_first`).
_TOPIC_CHARACTERS = 80
_TOPIC_WORDS = 7
_STORY_WORDS = 12
#: The words that ask wherever they stand.
_WH = r"(?<![\w'-])(?:what|what's|which|who|who's|whom|whose|how|how's|when|where|why)\b"


def _split_topic(question: str) -> tuple[str, str]:
    """``(topic, rest)``: the short subject written before the question proper ("PM-0031: ...",
    "kiosk showing E-42 - what ...", "records-db failover: who approves, max lag?"), or ``("",
    question)``. A topic asks nothing itself (no question word, no "?"); after a comma it must be
    followed by a question word ("For payments-api, what is ..."), else the comma lists parts."""
    found = told_first(question)
    if found is None or len(found[0]) > _TOPIC_CHARACTERS:
        return "", question
    topic, separator, rest = found[0].strip(), found[1], found[2]
    # A situation told before a dash or colon ("someone's SSN is showing in a public filing -
    # who approves sealing it?") may be longer and hold a verb, when the rest asks.
    # ... or a short telegraphic question ("acmepay still down at the deadline - settlement
    # desk number? and ...").
    first_ask = re.match(r"(?P<ask>[^?]{1,60})(?:\?|$)", rest)
    told = separator.strip() in ("-", "\u2013", "\u2014", ":") and bool(
        re.match(_QWORD, rest, re.IGNORECASE)
        or (first_ask and len(first_ask["ask"].split()) <= _LIST_WORDS + 1)
    )
    asks = re.search(rf"(?<![\w'-]){_QWORD}", topic, re.IGNORECASE)
    if told:
        asks = re.match(_QWORD, topic, re.IGNORECASE) or re.search(_WH, topic, re.IGNORECASE)
    longest = _STORY_WORDS if told else _TOPIC_WORDS
    if asks or len(topic.split()) > longest or not key_terms(topic):
        return "", question
    if separator.strip() == "," and not re.match(_QWORD, rest, re.IGNORECASE):
        return "", question
    return topic, rest


def _words(text: str) -> int:
    return sum(w not in STOPWORDS for w in re.findall(r"\w[\w.'-]*", text.lower()))


def _pieces(text: str) -> list[str]:
    pieces = [
        re.sub(r"^(?:also\s+|and\s+|[+&/]\s*)", "", p.strip(" ,"), flags=re.IGNORECASE)
        for p in _PART_SPLIT.split(text)
        if p and p.strip(" ,?")
    ]
    out: list[str] = []
    for piece in pieces:
        # A comma between short pieces lists the things a telegraphic question asks, and so
        # does "and" in a piece with no question word at all ("ordersdb RPO and window?",
        # "platform on-call handle and escalation time, then what ...").
        telegraphic = not re.search(rf"(?<![\w'-]){_QWORD}", piece, re.IGNORECASE)
        lister = _LIST_AND if telegraphic else _LIST_COMMA
        listed = [c.strip(" ,") for c in lister.split(piece) if c.strip(" ,?")]
        if len(listed) > 1 and all(_words(c) <= _LIST_WORDS for c in listed):
            out.extend(listed)
        else:
            out.append(piece)
    return out


_VERSUS = re.compile(r"\s+(?:vs\.?|versus)\s+(?P<other>[^?;,]+?)\s*(?P<end>\?|$)", re.I)


def _compared(text: str) -> str:
    """``text`` with a comparison written out as two questions: "search removal time for a seal
    vs a strike?" asks "search removal time for a seal? search removal time for a strike?" (the
    other subject takes the place of as many last words of the first); "staging deploy window vs
    prod deploy window?", whose other side ends as the first does, names both in full."""
    m = _VERSUS.search(text)
    if m is None:
        return text
    first, other = text[: m.start()], m["other"].strip()
    words, n = first.split(), len(other.split())
    if 1 < n <= 6 and words and other.split()[-1].lower() == words[-1].lower():
        return f"{first}? {other}{m['end'] or ''}"
    if n > 3 or n >= len(words) or re.search(_WH, other, re.IGNORECASE):
        return text
    return f"{first}? {' '.join(words[:-n])} {other}{m['end'] or ''}"


_PREPOSITION = (
    r"(?:under|over|above|below|beyond|past|for|at|in|on|after|before|within|with|without|from|"
    r"to|by|during)"
)
#: ", and under 2 days?": the same question asked again for another value or subject.
_ELIDED = re.compile(
    rf",?\s+and\s+(?:then\s+)?(?P<other>(?P<prep>{_PREPOSITION})\s+[^?;,]{{1,80}}?)\s*(?P<end>\?|$)",
    re.IGNORECASE,
)


def _elided(text: str) -> str:
    """``text`` with a question asked again in a few words written out in full: "what do we do
    when the backups fall under 6 days of history, and under 2 days?" asks "... fall under 6
    days of history? what do we do when the backups fall under 2 days?" (the other side takes
    the place of the first's words from its last use of the same preposition on)."""
    m = _ELIDED.search(text)
    if m is None or len(m["other"].split()) > 5 or re.search(_WH, m["other"], re.IGNORECASE):
        return text
    first = text[: m.start()]
    at = [p.start() for p in re.finditer(rf"\b{re.escape(m['prep'])}\b", first, re.IGNORECASE)]
    if not at or not key_terms(first[: at[-1]]):
        return text
    return f"{first}? {first[: at[-1]]}{m['other']}{m['end'] or ''}"


def question_parts(question: str) -> list[str]:
    """The parts of a question that asks several things: the first with at least two key terms
    (the subject), each later one with at least one (it is read in the first part's context);
    the whole question when it asks one thing. A topic written before the question ("PM-0031:",
    "records-db failover:", "kiosk showing E-42 -") is the subject of every part and is written
    before each ("records-db failover: who approves").

    >>> question_parts("What is the failover RTO, and what must we pause before failing over?")
    ['What is the failover RTO', 'what must we pause before failing over?']
    >>> question_parts("Which provider failed in the March outage, and what did we change?")
    ['Which provider failed in the March outage', 'what did we change?']
    >>> question_parts("How do I roll back and redeploy payments?")
    ['How do I roll back and redeploy payments?']
    >>> question_parts("records-db failover: who approves, max replica lag?")
    ['records-db failover: who approves', 'records-db failover: max replica lag?']
    >>> question_parts("booking-db backup time, retention")
    ['booking-db backup time', 'retention']
    """
    topic, rest = _split_topic(question)
    parts = _pieces(_compared(_elided(rest)))
    if topic:
        parts = [f"{topic}: {p}" for p in parts]
    # A later part that names nothing may still ask a shape of the first part's subject
    # ("how long out of range before we quarantine, and what's the command?").
    if (
        len(parts) < 2
        or not _names_a_subject(parts[0])
        or any(not key_terms(p) and expected_answer(_asked(p)) is None for p in parts)
    ):
        return [question]
    return parts[:4]


def _names_a_subject(part: str) -> bool:
    """Whether ``part`` can stand first: two key terms, or one named key (``retention.ms``)."""
    found = key_terms(part)
    return len(found) >= 2 or any(re.search(r"\w[_.]\w", t) for t in found)


#: "Who owns X?": what is owned names the document, the ``Owner:`` label the passage.
_WHO_OWNS = re.compile(
    r"^\s*who(?:'s|\s+is)?\s+(?:owns?|owning|the\s+owner\s+of)\s+(?P<what>\S.*)$", re.I
)


def _topic_terms(part: str) -> list[str]:
    """The key terms of the topic written before ``part`` that the rest does not ask itself
    (they pick the document; the rest, or the shape of what it asks, picks the passage); for
    "who owns X?", the terms of X (the owner is written once in X's runbook, often in a line
    that does not repeat X's name: "Owner: Storage team.")."""
    topic, rest = _split_topic(part)
    if not topic:
        owns = _WHO_OWNS.match(part)
        return key_terms(owns["what"]) if owns else []
    own = set(key_terms(rest))
    return [t for t in key_terms(topic) if t not in own]


def _asked(part: str) -> str:
    """What ``part`` asks, without the topic written before it (its answer's shape is read
    from it: "records-db failover: how long" asks for a duration)."""
    topic, rest = _split_topic(part)
    return rest if topic else part


#: Where a condition clause starts ("who gets paged when filing-gateway is refusing envelopes").
_CONDITION = re.compile(r"\s+(?:when(?:ever)?|if|while|once)\s+(?=\S)", re.IGNORECASE)
_NAME = re.compile(r"\w+(?:[-_.]\w+)+")


def _situation_terms(part: str) -> list[str]:
    """The key terms only a condition clause of ``part`` holds ("who gets paged when
    filing-gateway is refusing envelopes": ``refus``, ``envelop``), names aside (the service
    it names is what the question is about); none when the clause before it asks nothing of its
    own ("what do we do when the hotlist stalls?": the condition is the whole topic)."""
    asked = _asked(part)
    m = _CONDITION.search(asked)
    if m is None:
        return []
    main, condition = asked[: m.start()], asked[m.end() :]
    if not key_terms(main):
        return []
    own = set(key_terms(main))
    for name in _NAME.findall(condition):
        own |= set(key_terms(name))
    return [t for t in key_terms(condition) if t not in own]


#: Words that ask about the present ("what do we pause before rolling back now?").
_NOW = re.compile(r"\b(?:now|nowadays|currently|these\s+days|today)\b", re.IGNORECASE)
#: Words by which a later part refers back to the first ("what did we change after *it*?").
_REFERS_BACK = re.compile(
    r"\b(?:it|its|it's|their|theirs|them|they|this|that|these|those|there)\b", re.IGNORECASE
)
#: The most the first part, as context, adds to a passage's score when a later part asks in
#: words of its own and does not refer back: it steers, the part's own words decide ("QVI
#: cutoff? and the pager handle for supply": the rota's row, not a sentence of the orders
#: runbook that says "Supply" and "pager").
_CONTEXT_MOST = 0.3


def _context_most(part: str) -> float:
    asked = _asked(part)
    if _REFERS_BACK.search(asked) or len(key_terms(asked)) < 2:
        return math.inf
    return _CONTEXT_MOST


async def _rank(
    run: EmbeddedRun, search: str, how_to: bool, context: str = ""
) -> tuple[list[Ranked], dict[int, Any]]:
    wanted = key_terms(search)
    borrowed = not key_terms(_asked(search)) and bool(context)
    if borrowed:
        # A later part that names nothing ("and what's the command?", "records-db failover: by
        # when?") asks its shape of the part before: those terms pick the runbook and the
        # passage among those of that shape.
        wanted = list(dict.fromkeys(key_terms(context) + wanted))
    hits = await run.search(f"{search} {context}".strip(), limit=_CATALOG_CANDIDATES)
    documents = [(h.id, h.title, h.content) for h in hits]
    topic = [] if borrowed else _topic_terms(search)
    # The words of a situation told before the question that no candidate holds ("orders-api
    # v4.40.0 *looks bad*: ...") are the asker's, and tell no runbook: they weigh nothing.
    unheld = {t for t, n in _documents_holding(topic, hits)[0].items() if not n}
    if unheld and len(unheld) < len(wanted):
        wanted = [t for t in wanted if t not in unheld]
        topic = [t for t in topic if t not in unheld]
    prefer = ("code", "item") if how_to else ("pair", "row")
    ranked = rank_passages(
        wanted,
        documents,
        catalog_size=max(len(documents), _CATALOG_CANDIDATES),
        prefer=prefer,
        expects=expected_answer(_asked(search)),
        context=key_terms(context) if context and not borrowed else (),
        value_of=asked_value(search),
        subject=wanted if borrowed else topic,
        cue=answer_cue(search),
        values=stated_values(_asked(search)),
        situation=_situation_terms(search),
        context_most=_context_most(search),
    )
    # A question in the present ("what is the timeout?") is answered from what holds now, not
    # from a postmortem's account of the past; a question about a past incident the other way.
    past = bool(PAST_INCIDENT.search(search))
    now = not past and bool(_NOW.search(_asked(search)))
    asks_cause = bool(_ASKS_CAUSE.search(search))
    asks_change = bool(_ASKS_CHANGE.search(search))
    titles = {h.id: h.title for h in hits}

    def adjusted(r: Ranked) -> float:
        score = r.score
        if _RECORD_TITLE.search(titles[r.passage.doc]):
            # "... now?" asks what holds now: a record of the past weighs less still.
            score += _RECORD_SHIFT if past else -_RECORD_SHIFT * (2 if now else 1)
        if asks_cause and _CAUSE_HEADING.search(r.passage.heading):
            score += _RECORD_SHIFT  # "what caused X?" is answered by X's root cause or summary
        if asks_change and _CHANGE_HEADING.search(r.passage.heading):
            score += _ANSWERING_SECTION
        return score

    ranked = sorted(ranked, key=lambda r: -adjusted(r))
    return ranked, {h.id: h for h in hits}


async def answer_from_catalog(
    run: EmbeddedRun, search: str, asked: Question, have_logs: bool
) -> AgentResult:
    """The fact first (the best passage across the catalog), then its supporting block."""
    parts = question_parts(search)
    if len(parts) > 1:
        answered = await _answer_parts(run, search, parts, asked)
        if answered is not None:
            return answered
    ranked, by_id = await _rank(run, search, asked.intent == "how-to")
    best = ranked[0] if ranked else None
    if best is None or best.coverage < ABSTAIN_BELOW:
        wanted = asked_words(search)
        quoted = [f'"{inline(w, 40)}"' for w in wanted[:6]]  # a bounded excerpt
        searched = ", ".join(quoted) or f'"{inline(search, 80)}"'
        logs_note = (
            "I did not query the logs, since the question does not ask about them."
            if have_logs
            else "No logs are stored for this organization, so there were none to query."
        )
        return run.result(
            f"I could not find anything about {searched} in the knowledge catalog: no "
            f"runbook passage holds the question's key terms. {logs_note} Ask about a "
            "service, a symptom or a time window, or add a runbook that covers it."
        )
    hit = by_id[best.passage.doc]
    cite = run.cite_document(hit, search)
    title = short_title(hit.title)
    lead = [best]
    for other in ranked[1:6]:
        if (
            other.passage.doc == hit.id
            and other.coverage >= 0.9 * best.coverage
            and other.passage.block != best.passage.block
            and len(lead) < 2
        ):
            lead.append(other)
    lead += _values_for_the_rest(search, lead, ranked, hit)
    first = _whole_list(search, best, hit.content)
    if named := _who_it_names(search, best, hit.content):
        first = f"{sentence(first)} {sentence(named)}"
    facts = " ".join(
        [sentence(first)]
        + [sentence(r.passage.text) for r in lead[1:] if r.passage.text.rstrip(".") not in first]
    )
    confidence = "high" if best.coverage >= 0.75 else "medium"
    where = f", section *{inline(best.passage.heading, 120)}*" if best.passage.heading else ""
    out = [f"{facts} {cite}", f"From *{inline(title, 200)}*{where} {cite}:"]
    out.append(quote(excerpt_block(best.passage.block)))
    reason = (
        "the passage and its runbook hold nearly all of the question's key terms"
        if confidence == "high"
        else "the passage holds the question's rarest key terms, not all of them"
    )
    out.append(f"_Confidence: {confidence} ({reason})._")
    return run.result("\n\n".join(out))


def _values_for_the_rest(
    search: str, lead: list[Ranked], ranked: list[Ranked], hit: Any
) -> list[Ranked]:
    """The ``key: value`` lines and table rows of the answering document that hold asked terms
    the lead does not ("ordersdb RPO and maintenance window?": the window's line leads, the RPO's
    line joins it), at most two; terms of the document's title name its subject, not a value."""
    held = set(stems_of(hit.title))
    for r in lead:
        held |= stems_of(r.passage.text)
    added: list[Ranked] = []
    for other in ranked[1 : _CATALOG_CANDIDATES * 3]:
        if len(added) == 2:
            break
        if other.passage.doc != hit.id or other.passage.kind not in ("pair", "row"):
            continue
        new = [t for t in key_terms(search) if t not in held and t in stems_of(other.passage.text)]
        if new and other not in lead:
            added.append(other)
            held |= stems_of(other.passage.text)
    return added


async def _answer_parts(
    run: EmbeddedRun, question: str, parts: list[str], asked: Question
) -> AgentResult | None:
    """Each part of a several-part question answered by its own passage and citation; None when
    no part finds a passage (the whole question is then answered as one). A part that finds none
    while others do is named in the answer's first paragraph as not found (`_not_found`), never
    left out in silence. A later part is read with the first part as its context ("and what must
    we pause before rolling it back?" is about the first part's service), which steers the
    ranking but not the coverage; a later part that asks for another column of the table row
    answering the part before is answered by that row (`_same_row`). A part too short to find
    a passage alone is read in the whole question (`_in_the_whole`) before it is said not
    found."""
    slots: list[tuple[str, Ranked | None, Any]] = []
    for n, part in enumerate(parts):
        last = next(((b, hit) for _, b, hit in reversed(slots) if b is not None), None)
        if last is not None and (same := _same_row(part, last[0])) is not None:
            slots.append((part, same, last[1]))
            continue
        how_to = bool(
            re.match(r"\s*(?:how\s+(?:do|to|can|should)|which command)", _asked(part), re.I)
        )
        context = ""
        if n:
            # A part naming nothing of its own, or one word and a word referring back ("what
            # was it supposed to be?"), asks about the part right before it.
            own = key_terms(_asked(part))
            bare = not own or (len(own) < 2 and bool(_REFERS_BACK.search(_asked(part))))
            context = parts[n - 1] if bare else _context_for(part, parts[0])
        ranked, by_id = await _rank(run, part, how_to or asked.intent == "how-to", context)
        topic, own_ask = _split_topic(part)
        if topic and ranked and not _holds_what_is_asked(part, ranked[0]):
            # The topic steers; it does not answer a part whose own words the passage lacks
            # ("acmepay down at the deadline - ..., and pager handle for payments?": the rota's
            # row, not the deadline's line): the part is ranked again on its own words.
            alone, alone_by_id = await _rank(run, own_ask, how_to or asked.intent == "how-to")
            if (
                alone
                and alone[0].coverage >= ABSTAIN_BELOW
                and _holds_what_is_asked(part, alone[0])
            ):
                ranked, by_id = alone, alone_by_id
        if (
            not ranked
            or ranked[0].coverage < ABSTAIN_BELOW
            or _asks_what_none_holds(part, ranked[0], list(by_id.values()))
        ):
            slots.append((part, None, None))
            continue
        slots.append((part, ranked[0], by_id[ranked[0].passage.doc]))
    if all(best is None for _, best, _ in slots):
        return None
    if any(best is None for _, best, _ in slots):
        whole, whole_by_id = await _rank(run, question, asked.intent == "how-to")
        for i, (part, best, _) in enumerate(slots):
            rescued = _in_the_whole(part, whole, list(whole_by_id.values())) if not best else None
            if rescued is not None:
                slots[i] = (part, rescued, whole_by_id[rescued.passage.doc])
    found = [(part, best, hit) for part, best, hit in slots if best is not None]
    missing = [part for part, best, _ in slots if best is None]
    answers = [(part, best, hit, run.cite_document(hit, part)) for part, best, hit in found]
    # One passage answering two parts is stated once, with each part's citation.
    stated: dict[str, list[str]] = {}
    for part, best, hit, cite in answers:
        text = sentence(_whole_list(part, best, hit.content))
        if named := _who_it_names(part, best, hit.content):
            # The role's definition follows the passage, or stands alone when an earlier part
            # already stated that passage.
            text = sentence(named) if text in stated else f"{text} {sentence(named)}"
        cites = stated.setdefault(text, [])
        cites += [cite] if cite not in cites else []
    lead = [f"{text} {' '.join(cites)}" for text, cites in stated.items()]
    lines = [" ".join(lead + [_not_found(part) for part in missing])]
    for part, best, hit, cite in answers:
        where = f", section *{inline(best.passage.heading, 120)}*" if best.passage.heading else ""
        title = inline(short_title(hit.title), 200)
        label = inline(part.rstrip("?"), 200)
        # A one-word part ("action?") is a label, not a name the answer claims.
        label = f"**{label}?**" if " " in label.strip() else f"*{label}?*"
        lines.append(
            f"{label} From *{title}*{where} {cite}:\n\n"
            + quote(excerpt_block(best.passage.block, 500))
        )
    return run.result("\n\n".join(lines))


_DETERMINER = re.compile(r"\b(?:the|our|their|its|your|his|her|a|an)\s+", re.IGNORECASE)
#: "what firmware are ...", "whose approval does ...": the noun right after it is what is asked.
_WHAT_NOUN = re.compile(
    r"^\s*(?:what|which|whose)\s+(?!(?:is|are|was|were|do|does|did|can|should|must)\b)"
    r"(?P<head>[\w-]+(?:\s+[\w-]+)?)\s+(?:is|are|was|were|do|does|did|can|should|must)\b",
    re.IGNORECASE,
)
#: The object of the question's verb ("where do we keep *the* signing key passphrase"), not of a
#: preposition ("who do I call *at the* vendor's support desk": where, not what, is asked).
_OBJECT = re.compile(
    r"(?<!\bon)(?<!\bof)(?<!\bfor)(?<!\bin)(?<!\bat)(?<!\bto)(?<!\bfrom)(?<!\bwith)(?<!\bby)"
    r"(?<!\bduring)(?<!\bunder)(?<!\bover)\s+(?:the|our|their|its|your|his|her|a|an)\s+",
    re.IGNORECASE,
)
#: A verb telling what happened or is happening.
_TELLS = re.compile(
    r"\b(?:is|are|was|were|has|have|had|got|gets|keeps?|kept)\b|\b[a-z]{3,}(?:ed|ing)\b", re.I
)
#: Words naming the kind of value asked ("warn level", "alert threshold", "storage temp"), not a
#: thing: a runbook states the value, not the word.
_VALUE_KIND = frozenset(
    stem(w)
    for w in [
        "level",
        "threshold",
        "limit",
        "value",
        "setting",
        "amount",
        "number",
        "count",
        "time",
        "date",
        "day",
        "version",
        "release",
        "size",
        "rate",
        "duration",
        "period",
        "temp",
        "temperature",
        "percent",
        "percentage",
        "speed",
        "capacity",
        "length",
        "frequency",
        "interval",
        "target",
        "minimum",
        "maximum",
        "min",
        "max",
    ]
)
_WHAT_IS = re.compile(r"^\s*(?:what|which)(?:'s|\s+(?:is|are|was|were))\s+(?P<head>.+)$", re.I)
#: Where the words naming the asked thing end: a relative clause, or a preposition before its
#: subject ("the replication factor *on events.clicks*").
_RELATIVE = re.compile(r"\s+(?:that|which|we|we're|they|you|i)\b.*$", re.IGNORECASE)
_PREPOSITION_AFTER = re.compile(
    r"\s+(?:on|of|for|in|at|to|from|with|by|per|during|when|if|before|after|under|over)\s+.*$",
    re.IGNORECASE,
)


def _asked_head(part: str) -> str:
    """The words naming the thing ``part`` asks for, its subject aside: "what's the replication
    factor on events.clicks?": "replication factor"; "where do we keep the signing key
    passphrase": "signing key passphrase"; "what firmware are the kiosks running": "firmware"; a
    telegraphic part names it before any preposition ("min free disk for a node": "min
    free disk"); empty for a question asking no thing ("who do we page?", "how long before we
    quarantine it?").

    >>> _asked_head("who holds the service contract on the printers")
    'service contract'
    """
    asked = _asked(part).strip().rstrip(" ?")
    if (m := _WHAT_NOUN.match(asked)) is not None:
        return m["head"]
    if not re.search(_WH, asked, re.IGNORECASE):
        # A telegraphic part names the thing, unless it tells what happened ("customer paid
        # twice for one order", "pushes timing out"): a situation asks no thing.
        return "" if _TELLS.search(asked) else _PREPOSITION_AFTER.sub("", _RELATIVE.sub("", asked))
    if (m := _WHAT_IS.match(asked)) is not None:
        head = m["head"]
    elif re.match(r"\s*(?:how|when)\b", asked, re.IGNORECASE):
        return ""  # a quantity, manner or time is asked, not a thing
    elif (d := _OBJECT.search(asked)) is not None:
        head = asked[d.end() :]
    else:
        return ""
    head = head[d.end() :] if (d := _DETERMINER.match(head)) is not None else head
    return _PREPOSITION_AFTER.sub("", _RELATIVE.sub("", head))


def _holds_what_is_asked(part: str, best: Ranked) -> bool:
    """Whether ``best`` itself (not its heading or title) holds more than half the words of the
    thing ``part`` asks for (`_asked_head`), or the part asks no thing."""
    head = [t for t in key_terms(_asked_head(part)) if t not in _VALUE_KIND]
    if not _asked_head(part) and _ASKS_WHO.search(_asked(part)):
        # "who gets paged for metrics-bridge?" asks a person by the words of its own.
        head = [t for t in key_terms(_asked(part)) if t not in _VALUE_KIND]
    return not head or 2 * sum(holds_term(t, best.passage.text) for t in head) > len(head)


def _documents_holding(
    terms: Sequence[str], hits: Sequence[Any]
) -> tuple[dict[str, int], frozenset[str]]:
    """How many of the candidate documents ``hits`` hold each of ``terms`` (title or content,
    matched as the ranking matches: `holds_term`), and the candidates' vocabulary it matched
    against (`known_stems`)."""
    texts = [f"{h.title}\n{h.content}" for h in hits]
    known = known_stems(texts)
    return {t: sum(holds_term(t, text, known) for text in texts) for t in terms}, known


def _asks_what_none_holds(part: str, best: Ranked, hits: Sequence[Any]) -> bool:
    """Whether ``part`` asks for a thing no candidate runbook names, so that its best passage
    (found by the part's subject: "acmepay", "events.clicks", a topic) cannot answer it:
    a word of the asked thing (`_asked_head`) that no candidate holds, and the passage holding
    less than half the weight of the asked thing's words ("whats our acmepay merchant id?":
    the runbook of AcmePay names no merchant id). Words of the runbook's title, of a name
    (``events.clicks``) and of a topic written before the part are its subject, not the
    thing asked."""
    head = [t for t in key_terms(_asked_head(part)) if t not in _VALUE_KIND]
    if not head:
        return False
    title_text = next((h.title for h in hits if h.id == best.passage.doc), "")
    # Whose thing is asked ("the backup vendor's api endpoint"): a passage naming neither that
    # owner nor under its title tells another's.
    owners = [t for n in re.findall(r"([\w.-]+)'s\b", _asked_head(part)) for t in key_terms(n)]
    if owners and not any(holds_term(t, f"{title_text}\n{best.passage.text}") for t in owners):
        return True
    title = stems_of(title_text)
    subject = set(_topic_terms(part)) | title
    for name in _NAME.findall(part):
        subject |= set(key_terms(name))
    asked = [t for t in head if t not in subject]
    if not asked:
        return False
    df, known = _documents_holding(asked, hits)
    if all(df.values()):
        return False  # every asked word is somewhere: the ranking decides
    weight = {t: math.log(1 + max(len(hits), 1) / (1 + df[t])) for t in asked}
    here = f"{best.passage.heading}\n{best.passage.text}"
    shown = sum(w for t, w in weight.items() if holds_term(t, here, known))
    return shown < 0.5 * sum(weight.values())


def _in_the_whole(part: str, whole: list[Ranked], hits: Sequence[Any]) -> Ranked | None:
    """For a ``part`` that finds no passage alone ("which service cannot deploy during it?"),
    the best passage of the whole question that answers it: above the abstention threshold,
    holding one of the part's own key terms and of the shape the part asks for (it may be the
    passage answering another part: "no deploys to ledger-api" answers both "when does the
    freeze end" and that); None when there is none (the part is then said not found)."""
    own = set(key_terms(_asked(part)))
    shape = expected_answer(_asked(part))
    for r in whole[:_CATALOG_CANDIDATES]:
        if r.coverage < ABSTAIN_BELOW or not own & stems_of(r.passage.text):
            continue
        if (
            (shape is None or shape.search(r.passage.text))
            and _holds_what_is_asked(part, r)
            and not _asks_what_none_holds(part, r, hits)
        ):
            return r
    return None


def _not_found(part: str) -> str:
    """The sentence saying that no passage answers ``part`` ("I could not find anything on
    *what is the Kafka retention* in the knowledge catalog: ..."), naming it in the asker's
    words. It holds no claim (`sleuth_core.claims.claims_of`): no code span, quote or bold name,
    and no number (which the claim check would look up in the sources cited before it)."""
    words = re.sub(r"[`*\"_\[\]§]", " ", part).rstrip(" ?")
    # A token holding a number is left out whole (one pass over the tokens: a regex for it
    # retries from every position of a long token).
    words = " ".join(t for t in words.split() if not any(c.isdigit() for c in t))
    label = inline(words, 160).strip(" ,;:-") or "one part of the question"
    if re.match(_QWORD, label, re.IGNORECASE):
        label = label[0].lower() + label[1:]  # mid-sentence
    return (
        f"I could not find anything on *{label}* in the knowledge catalog: no runbook passage "
        "answers that part of the question."
    )


def _context_for(part: str, first: str) -> str:
    """The first part, as the context a later ``part`` is read in ("and what must we pause
    before rolling it back?"); none when ``part`` names a subject of its own, a hyphenated or
    dotted name the first part does not ("CLP's rate limit? and who gets paged when
    filing-gateway is refusing envelopes": the second part is about filing-gateway)."""
    before = {n.lower() for n in _NAME.findall(first)}
    own = [n for n in _NAME.findall(_asked(part)) if n.lower() not in before]
    if _NOW.search(_asked(part)) and PAST_INCIDENT.search(first):
        # "..., and what do we pause before rolling back now?" after a past incident: what
        # holds now, not what the incident's record says.
        return ""
    topic = _split_topic(part)[0]
    if topic and topic == _split_topic(first)[0]:
        # A topic written before every part ("records-db failover: max lag, and what must be
        # filed afterwards?") is the context each part already holds; the first part's own ask
        # (the lag) is not what a later one is about.
        return ""
    return "" if own else first


#: A question (or part) asking for a person, team or company.
_ASKS_WHO = re.compile(
    r"^\s*(?:who|whom|whose)\b|\b(?:which|what)\s+(?:team|company|vendor|provider|carrier|"
    r"contractor|person|contact)\b",
    re.IGNORECASE,
)


def _who_it_names(question: str, best: Ranked, content: str) -> str | None:
    """For a "who" question whose best passage names a role the runbook defines in a ``key:
    value`` line ("vault pickup by the armored carrier", defined by "armored carrier: Sentinel
    Cash Logistics ..."), that line; None otherwise (or when the passage is that line)."""
    if not _ASKS_WHO.search(_asked(question)) or best.passage.kind == "pair":
        return None
    said = best.passage.text.lower()
    for line in split_fine(best.passage.doc, content):
        if line.kind != "pair" or line.text == best.passage.text:
            continue
        key = line.text.split(":", 1)[0].strip().lower()
        if len(key) >= 6 and re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", said):
            return line.text
    return None


def _same_row(part: str, before: Ranked) -> Ranked | None:
    """The table row that answered the part before, when ``part`` asks for another of its
    columns ("RX-340 meaning? action?", "booking-db backup time, retention"): every key term of
    ``part`` is in one column header of that row. None otherwise."""
    if before.passage.kind != "row":
        return None
    asked = key_terms(_asked(part))
    headers = [stems_of(cell.split(":", 1)[0]) for cell in before.passage.text.split("; ")]
    if asked and any(all(t in h for t in asked) for h in headers):
        return before
    return None


def _whole_list(question: str, best: Ranked, content: str) -> str:
    """The best passage, or, when it is one item of a list whose heading is what the question
    asks about ("what did we change afterwards?" under *What we changed afterwards*; any
    question asking what was changed under a heading of changes, action items or follow-ups),
    every item of that list (bounded)."""
    passage = best.passage
    if passage.kind != "item":
        return passage.text
    asked = set(key_terms(question))
    changes = bool(_ASKS_CHANGE.search(question) and _CHANGE_HEADING.search(passage.heading))
    if not changes and (not asked or len(asked & set(key_terms(passage.heading))) * 2 < len(asked)):
        return passage.text
    section = [c for c in split_fine(passage.doc, content) if c.heading == passage.heading]
    items = [c.text for c in section if c.kind == "item"]
    text = "; ".join(item.rstrip(".") for item in items)
    # The section's own sentences before its list say what the list is for ("Envelopes over
    # the limit are held, not refused ..." above the steps), when the heading is what is asked.
    told = [c.text for c in section if c.kind == "sentence"] if not changes else []
    if told and len(" ".join(told)) + len(text) <= 600:
        text = f"{' '.join(told)} {text}"
    return text if len(text) <= 600 else passage.text
