"""Scoring, apart from orchestration: pure functions over hits, documents and the question's analysis.

Document scores (rank, passage votes, metadata agreement), the round-robin over named companies, passage
rescoring (document rank, FLAM Item weights, tree nodes), and page attribution (which page a chunk stands
for, one evidence item per page). ``query.retrieve`` decides what to search; this module decides the order.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from domain.periods import FORECAST_TERMS, forecast_sentences
from domain.rules import (
    ANNUAL,
    CURRENT,
    EARNINGS,
    PERIODIC,
    as_date,
    event_fiscal_year,
    exhibit_label,
    year_end_of,
)
from domain.sec_items import item_label
from domain.statements import driver_labels
from domain.text import FUNCTION_WORDS, lower_words, phrase_text, terms, words
from kernel.search import Filters, Hit
from query.analysis import QueryAnalysis
from query.api import Evidence
from query.catalog import Catalog, DocInfo
from query.event_filings import events_after
from query.plan import (
    Choice,
    QueryPlan,
    document_choice,
    document_tier,
    event_in_month,
    latest_moved,
    on_day,
    quarter_document,
)
from query.statements import page_break, row_line


class ScoredDoc(NamedTuple):
    """A candidate document, its score and why (shown by ``--explain``)."""

    doc: DocInfo
    score: float
    why: str
    after: str | None = None  # an 8-K taking rule L from its company's newest report: that report's doc_id



# exact-valued metadata a filter may name that the catalog holds as the indexes do (dates are left to the engine)
DOCUMENT_FILTERS = ("doc_id", "doc_name", "source_name", "company", "ticker", "form", "fiscal_year", "fiscal_period",
                    "sp500_member")


def filter_docs(docs: Iterable[DocInfo], filters: Filters | None) -> list[DocInfo]:
    """The documents whose catalog fields match the exact-valued filters (other filters apply to passages)."""
    out = list(docs)
    for name, value in (filters or {}).items():
        values = set(value) if isinstance(value, list | tuple | set) else {value}
        if name in DOCUMENT_FILTERS:
            out = [d for d in out if getattr(d, name) in values]
    return out


TIER_WEIGHT = (1.0, 0.75, 0.5)  # how much a passage of a document of that tier weighs


def document_year(d: DocInfo) -> int | None:
    """The year a document speaks for: its fiscal year, or for an 8-K's cover (an event, no fiscal period) the
    year of its event ("its December 2025 8-K")."""
    if d.fiscal_year is None and d.form == CURRENT and d.period_end:
        return d.period_end.year
    return d.fiscal_year


def fiscal_ends(docs: Iterable[DocInfo]) -> dict[str | None, tuple[str, int]]:
    """Each company's fiscal calendar, read off its newest periodic report among ``docs``
    (``domain.rules.year_end_of``): (the day its years end as MMDD, the shift of their numbers from the
    calendar year they end in)."""
    newest: dict[str | None, tuple[dt.date, int, str]] = {}
    for d in docs:
        day = as_date(d.period_end) if d.period_end and d.fiscal_year and d.form in (*PERIODIC, EARNINGS) else None
        year_end = year_end_of(day, d.fiscal_period) if day else None
        if year_end and (d.entity not in newest or day > newest[d.entity][0]):
            newest[d.entity] = (day, d.fiscal_year, year_end)
    return {entity: (year_end, fiscal_year - event_fiscal_year(day, year_end))
            for entity, (day, fiscal_year, year_end) in newest.items()}


def speaks_for(d: DocInfo, plan: QueryPlan, releases: dict[str, DocInfo],
               calendars: dict[str | None, tuple[str, int]]) -> tuple[int | None, str | None, str | None]:
    """(fiscal year, form, period) a document speaks for under the plan, as ``document_tier`` takes them: its
    own; an 8-K's cover, the release it furnishes (one filing, which reports that quarter: ``releases``,
    accession -> its earnings release) unless a figure is asked (the release prints it, the cover does not);
    another exhibit of that filing (Caterpillar's retail statistics), the release's quarter even when a figure
    is asked (it prints that quarter's); else its event's year: the fiscal year the event falls in when the
    question names that one (NVIDIA's March 2026 plan is of its fiscal 2027: ``calendars``,
    :func:`fiscal_ends`), else the calendar's."""
    year = document_year(d)
    release = releases.get(d.accession or "") if d.form == CURRENT else None
    if release is not None and (d.exhibit_type or not plan.figure):  # the cover prints no figure, an exhibit may
        return release.fiscal_year, d.form if d.form in plan.doc_types else release.form, release.fiscal_period
    if d.form != CURRENT or d.fiscal_year is not None:
        return year, d.form, d.fiscal_period
    fiscal = calendars.get(d.entity)
    if fiscal and d.period_end and plan.target_year not in (None, year) and \
            event_fiscal_year(as_date(d.period_end), *fiscal) == plan.target_year:
        return plan.target_year, d.form, None
    return year, d.form, None


def newest_forms(plan: QueryPlan) -> tuple[str, ...]:
    """The forms rule L takes the newest of: only an annual report answers (``QueryPlan.annual``: "the last
    three years", the workforce), the annual report; else any periodic report."""
    return (ANNUAL,) if plan.annual else PERIODIC


def newest_reports(docs: Iterable[DocInfo], forms: tuple[str, ...] = PERIODIC) -> list[DocInfo]:
    """Each company's newest report of ``forms`` (by period end, then doc_id) among ``docs``: the one a question
    naming no period is answered from (rule L); companies in the order of their first such document."""
    newest: dict[str | None, DocInfo] = {}
    for d in docs:
        if d.form in forms and d.period_end:
            best = newest.get(d.entity)
            if best is None or (str(d.period_end), d.doc_id) > (str(best.period_end), best.doc_id):
                newest[d.entity] = d
    return list(newest.values())


def document_tiers(docs: Iterable[DocInfo], plan: QueryPlan) -> dict[str, Choice]:
    """doc_id -> its :class:`~query.plan.Choice` (tier and points) under the plan; a company's fallback (R2)
    applies only when it has no document of the target year and type (for a quarter asked, no quarter's
    report of that year either: another quarter's 10-Q or release is closer than the year's 10-K), its
    reports not dated the day asked are behind only when it has one that is (D), and "latest" is per
    company."""
    docs = list(docs)
    releases = {d.accession: d for d in docs if d.form == EARNINGS and d.accession}
    events = plan.target_year is not None and any(d.form == CURRENT and d.fiscal_year is None for d in docs)
    calendars = fiscal_ends(docs) if events else {}  # read only where an 8-K's event may be of a fiscal year
    spoken = {d.doc_id: speaks_for(d, plan, releases, calendars) for d in docs}
    far = farther_from_day(docs, plan)
    ends = {d.doc_id: None if d.doc_id in far else d.period_end for d in docs}
    has_target = {d.entity for d in docs if document_tier(plan, *spoken[d.doc_id], True, ends[d.doc_id])[0] == 0}
    has_quarter = {d.entity for d in docs if plan.analysis.quarters and spoken[d.doc_id][0] == plan.target_year and
                   quarter_document(d.form, d.fiscal_period)}
    has_day = {d.entity for d in docs if on_day(plan, d.form, ends[d.doc_id])}
    has_annual = {d.entity for d in docs if spoken[d.doc_id][:2] == (plan.target_year, ANNUAL)}
    latest_ids = {d.doc_id for d in newest_reports(docs, newest_forms(plan))}
    return {d.doc_id: document_choice(plan, *spoken[d.doc_id], d.entity in has_target, d.doc_id in latest_ids,
                                      ends[d.doc_id], d.entity in has_day, d.entity in has_quarter,
                                      d.entity in has_annual) for d in docs}


def farther_from_day(docs: list[DocInfo], plan: QueryPlan) -> set[str]:
    """D's documents (:func:`~query.plan.on_day`) farther from the day asked than another of their company's:
    the 52/53-week slack lets a report ending near the day stand for it, not when a filing is dated that day
    itself (Amcor's 8-K of July 1, 2022 against its fiscal 2022 10-K ending June 30). They are the company's
    other reports (tier 1, no points). An 8-K of the month an event is asked of stands on the day asked
    (:func:`~query.plan.event_in_month`)."""
    day = plan.analysis.day
    if day is None:
        return set()
    near = {d.doc_id: (d.entity, 0 if event_in_month(plan, d.form, d.period_end) else
                       abs((as_date(d.period_end) - day).days)) for d in docs if on_day(plan, d.form, d.period_end)}
    nearest: dict[str | None, int] = {}
    for entity, gap in near.values():
        nearest[entity] = min(gap, nearest.get(entity, gap))
    return {doc_id for doc_id, (entity, gap) in near.items() if gap > nearest[entity]}


def voters(allowed: list[DocInfo], tiers: dict[str, Choice], doc_rank: list[str], most: int) -> list[str]:
    """The documents whose passages vote in document ranking: all the allowed ones (sorted) up to ``most``,
    else the best by plan tier, then by the document search's rank (``doc_rank``: ids best first), then id;
    so the vote costs a few documents' rows however many filings the named companies have."""
    if len(allowed) <= most:
        return sorted(d.doc_id for d in allowed)
    rank = {doc_id: n for n, doc_id in enumerate(doc_rank)}
    best = sorted(allowed, key=lambda d: (tiers[d.doc_id][0], rank.get(d.doc_id, len(rank)), d.doc_id))
    return [d.doc_id for d in best[:most]]


OWNER_HITS = 10  # passages of the whole corpus read for the company whose filings print a product's name
OWNER_SHARE = 0.7  # the share of them one company's filings must hold to be the one asked about
OWNER_LEAST = 3  # and at least this many (a word two passages print names nobody)


def prints_any(text: str | None, names: list[str]) -> bool:
    """Whether a passage prints one of ``names`` as written, case and spacing aside: "Solar Turbines" is
    Caterpillar's, and a passage on GE's turbines does not print it."""
    flat = " ".join((text or "").lower().split())
    return any(" ".join(n.lower().split()) in flat for n in names)


def owner(entities: list[str | None], share: float = OWNER_SHARE, least: int = OWNER_LEAST) -> str | None:
    """The company whose filings hold ``share`` of the passages a corpus-wide search for a question's
    unnamed words found (``entities``: each hit's company, best first), at least ``least`` of them: "Humira"
    is printed in AbbVie's filings and nobody else's, so the question is AbbVie's; a word every company
    prints ("Board") names nobody."""
    best = Counter(e for e in entities if e).most_common(1)
    return best[0][0] if best and best[0][1] >= least and best[0][1] >= share * len(entities) else None


def score_documents(allowed: list[DocInfo], doc_hits: list[Hit], passage_hits: list[Hit],
                    tiers: dict[str, Choice], plan: QueryPlan | None = None) -> list[ScoredDoc]:
    """Half the document search's rank, half the passage votes (documents whose chunks answer directly),
    plus the points of the plan's document choice (``tiers``: :func:`document_tiers` of ``allowed``; with the
    ``plan``, rule L's points moved to an 8-K dated after the newest report that the question's words match
    better: :func:`take_events`); best first. ``why`` lists the points and the text match."""
    base = {h.id: 1.0 - i / max(1, len(doc_hits)) for i, h in enumerate(doc_hits)}  # rank-based, in [0, 1]
    votes: dict[str, float] = {}
    for rank, h in enumerate(passage_hits):
        votes[h.source["doc_id"]] = votes.get(h.source["doc_id"], 0.0) + 1.0 / (rank + 3)
    top_vote = max(votes.values(), default=1.0)
    text = {d.doc_id: 0.5 * base.get(d.doc_id, 0.0) + 0.5 * votes.get(d.doc_id, 0.0) / top_vote
            for d in allowed if d.doc_id in base or d.doc_id in votes}
    moved = events_after(allowed, newest_reports(allowed, newest_forms(plan)), text, plan) if plan else {}
    tiers = take_events(tiers, moved)
    after = {doc_id: report for report, filing in moved.items() for doc_id in filing}
    scored = []
    for d in allowed:
        if d.doc_id not in text:
            continue
        choice = tiers[d.doc_id]
        why = ", ".join(w for w in (choice.why, f"text match {text[d.doc_id]:.2f}") if w)
        scored.append(ScoredDoc(d, text[d.doc_id] + choice.bonus, why, after.get(d.doc_id)))
    return prefer_restatements(scored)


def take_events(tiers: dict[str, Choice], moved: dict[str, list[str]]) -> dict[str, Choice]:
    """``tiers`` with rule L's points moved from each newest report that an 8-K filed after it answers better
    to that 8-K's documents (``moved``: ``query.event_filings.events_after``)."""
    if not moved:
        return tiers
    out = dict(tiers)
    for report, filing in moved.items():
        out[report] = latest_moved(out[report], False)
        out.update({doc_id: latest_moved(out[doc_id], True) for doc_id in filing})
    return out


RESTATES = 0.5  # an amendment with at least this share of its original's pages restates the whole report


def prefer_restatements(scored: list[ScoredDoc]) -> list[ScoredDoc]:
    """Best first, with an amendment that restates its original (a whole report, not a Part III or exhibit
    amendment) just above the original when both are candidates: the amended figures are the filer's last word."""
    at = {d.doc.doc_id: n for n, d in enumerate(scored)}
    out = list(scored)
    for n, t in enumerate(scored):
        original = scored[at[t.doc.amends]] if t.doc.amends in at else None
        if original and t.doc.page_count >= RESTATES * original.doc.page_count and t.score <= original.score:
            out[n] = t._replace(score=original.score + 1e-3, why=f"{t.why}, restates {t.doc.amends}")
    out.sort(key=lambda t: (-t.score, t.doc.doc_id))
    return out


def diversify(scored: list[ScoredDoc], analysis: QueryAnalysis, k: int) -> list[ScoredDoc]:
    """The best ``k`` documents, taken round-robin over the named companies when there are several."""
    keys = [e.key for e in analysis.entities]
    if len(keys) < 2:
        return scored[:k]
    queues = {key: [t for t in scored if t.doc.entity == key] for key in keys}
    out: list = []
    while len(out) < k and any(queues.values()):
        for key in keys:
            if queues[key] and len(out) < k:
                out.append(queues[key].pop(0))
    rest = [t for t in scored if t not in out]
    return out + rest[: k - len(out)]


def previous_report(doc: DocInfo, candidates: Iterable[DocInfo],
                    forms: tuple[str, ...] | None = None) -> DocInfo | None:
    """The same company's report just before ``doc`` (by period end) among ``candidates``, of ``forms`` (rule
    L's, :func:`newest_forms`; default: ``doc``'s own form): before a newest 10-K, the 10-Q of a quarter
    that year when any periodic report answers (an accrual, a stake, a merger's terms the quarter reported),
    the 10-K before when only an annual report does (a trend over years)."""
    forms = forms or (doc.form,)
    earlier = [d for d in candidates if d.entity == doc.entity and d.form in forms and d.period_end
               and doc.period_end and d.period_end < doc.period_end]
    return max(earlier, key=lambda d: (str(d.period_end), d.doc_id), default=None)


def with_previous(chosen: list[ScoredDoc], scored: list[ScoredDoc], plan: QueryPlan) -> list[ScoredDoc]:
    """A question naming no period takes each company's newest report (rule L), and the one before it stays a
    candidate (the question may have been written against it): appended when the best documents left it out;
    for an 8-K that took rule L from the newest report (:func:`take_events`), that report."""
    if plan.target_year is not None or plan.analysis.quarters:
        return chosen
    have = {d.doc.doc_id for d in chosen}
    out = list(chosen)
    for _, before in taken(chosen, [t.doc for t in scored], plan):
        if before is not None and before.doc_id not in have:
            out.extend(t for t in scored if t.doc.doc_id == before.doc_id)
            have.add(before.doc_id)
    return out


def taken(chosen: list[ScoredDoc], candidates: list[DocInfo], plan: QueryPlan) -> list[tuple[DocInfo, DocInfo | None]]:
    """Rule L's documents among ``chosen``, each with the one before it among ``candidates``: each company's
    newest report and the report before it (:func:`previous_report`), or the 8-K filed after that report which
    took its points (:func:`take_events`) and the report."""
    forms = newest_forms(plan)
    events: dict[str | None, ScoredDoc] = {}
    for t in chosen:  # best first: the filing's best matched document names it
        if t.after:
            events.setdefault(t.doc.entity, t)
    by_id = {d.doc_id: d for d in candidates}
    out: list[tuple[DocInfo, DocInfo | None]] = [(t.doc, by_id.get(t.after or "")) for t in events.values()]
    out += [(doc, previous_report(doc, candidates, forms))
            for doc in newest_reports((t.doc for t in chosen), forms) if doc.entity not in events]
    return out


def company_turns(evidence: list[Evidence], entity_of: dict[str, str | None], companies: list[str]) -> list[Evidence]:
    """Several companies named: each one's best page (its first in ``evidence``) in the first places, in the
    order those pages ranked, then the rest as ranked; so every named company with pages is among the first
    k >= len(companies), each at its own best page. ``entity_of``: doc_id -> company key."""
    if len(companies) < 2:
        return evidence
    firsts: dict[str, Evidence] = {}
    for e in evidence:
        key = entity_of.get(e.doc_id)
        if key in companies and key not in firsts:
            firsts[key] = e
    head = list(firsts.values())
    return head + [e for e in evidence if e not in head]


FIRST_PAGES = 5  # the pages a reader reads first, and the benchmarks score: the same whatever k a caller asks
SECOND_DOCUMENT = 0.5  # a document scoring this share of the first one's is worth a page among them


def second_scores(docs: list[ScoredDoc], plan: QueryPlan, before: dict[str, DocInfo | None]) -> dict[str, float]:
    """The documents' scores as :func:`second_document` weighs them: with no period named, the report before
    each company's newest counts as scoring ``SECOND_DOCUMENT`` of the newest at least, so a question
    written against it (rule L's other reading) finds it among the first pages. ``before``: each newest
    report's doc_id -> the report before it among ``docs`` (:func:`previous_report`)."""
    scores = {d.doc.doc_id: d.score for d in docs}
    if plan.target_year is not None or plan.analysis.quarters:
        return scores
    for newest, previous in before.items():
        if previous is not None:
            scores[previous.doc_id] = max(scores[previous.doc_id], SECOND_DOCUMENT * scores[newest])
    return scores


def second_document(evidence: list[Evidence], doc_score: dict[str, float], first: int = FIRST_PAGES,
                    share: float = SECOND_DOCUMENT) -> list[Evidence]:
    """When the ``first`` pages all come from one document, the best page of the next-best document scoring at
    least ``share`` of it takes the place of the first document's weakest match among them (never its first
    page), at the end of them: a 10-K and its year's earnings release, or a report and the quarter or year
    before it, score close, and the answer is often in the one just behind (the figures a release summarises,
    the event a 10-Q reported). The order does not depend on k: k = 3 reads a prefix of k = 10's answer.
    ``doc_score``: doc_id -> document score."""
    head = evidence[:first]
    if first < 2 or len(head) < first or len({e.doc_id for e in head}) > 1:
        return evidence
    top = doc_score.get(head[0].doc_id, 0.0)
    others = sorted((d for d, s in doc_score.items() if d != head[0].doc_id and s >= share * top > 0),
                    key=lambda d: (-doc_score[d], d))
    for doc_id in others:
        page = next((e for e in evidence[first:] if e.doc_id == doc_id), None)
        if page is not None:
            weakest = min(range(1, first), key=lambda i: (head[i].score, -i))
            kept = head[:weakest] + head[weakest + 1:]
            share_of = f"{doc_score[doc_id] / top:.0%}"
            why = f"{page.reason}; the next document's best page ({share_of} of the first's score)"
            rest = [e for e in evidence[first:] if e is not page]
            return kept + [page.model_copy(update={"reason": why}), head[weakest]] + rest
    return evidence


# Words by which a metric's label says it is the company's whole ("worldwide net sales", "total revenues"):
# not a part the question leaves unnamed, so not counted against the label's fit.
_WHOLE_WORDS = frozenset(words("worldwide total consolidated overall global"))  # as words() stems them
_NOT_A_PART = FUNCTION_WORDS | _WHOLE_WORDS  # a label's words that name no part of the metric


def page_texts(pages: list[int], passages: list[dict]) -> dict[int, str]:
    """Each of ``pages`` (in their order) with the text of the passages that count for it
    (:func:`evidence_page`); passages of other pages are left out."""
    texts: dict[int, list[str]] = {page: [] for page in pages}
    for source in passages:
        page = evidence_page(source)
        if page in texts and source.get("text"):
            texts[page].append(source["text"])
    return {page: "\n".join(parts) for page, parts in texts.items()}


def page_head(chunk: dict, page: int) -> str:
    """What a passage holds of the top of ``page``: all of it when it opens the page, the head of the page it
    runs on to (after the page break it spans) when that is ``page``; else nothing."""
    text = chunk.get("text") or ""
    if chunk.get("page_start") == page and not chunk.get("char_start"):
        return text
    broken = page_break(chunk)
    if chunk.get("page_end") == page and broken is not None and chunk.get("char_end"):
        return text[broken:]
    return ""


def explaining_first(texts: dict[int, str], question: str, rows: tuple[tuple[str, ...], ...] = (),
                     part: frozenset[str] = frozenset(), headed: frozenset[int] = frozenset()) -> list[int]:
    """Pages (page -> its text, :func:`page_texts`, in the search's order) whose prose explains a change of a metric
    the question names first ("Net sales decreased 3% ... driven by ...", ``domain.statements``), the page
    whose metric is most wholly the question's ahead ("worldwide net sales" before "net sales in Latin
    America" for a question on net sales: a part the question does not name is another page's answer). A ratio
    asked (``rows``: :func:`query.statements.ratio_rows`) is explained where its row of percents is printed
    above the sentences on its lines (3M's "Operating income margin 19.1 % 20.8 %" over why cost of sales
    rose): such a page comes after one explaining the ratio by name, before those explaining another metric
    or a part of it ("business segment operating income margins"). Then the pages headed by the part of the
    company the question names (``part``: its name's stems; ``headed``: those pages), a segment's table and its
    "Revenue Change Drivers"; then the others; ties in the search's order. When a part is named, a sentence
    explains its metric only if its label names the part or its page is headed by it: the whole's "revenues
    increased" is not the part's."""
    asked = set(words(question))

    def fit(page: int) -> tuple[bool, float, int]:
        """(whether a label is the metric asked, the share of the best label's words the question says, their
        count)."""
        best = (False, 0.0, 0)
        for label in driver_labels(texts[page]):
            named = [w for w in words(label) if w not in _NOT_A_PART] or [""]
            hits = sum(w in asked for w in named)
            whole = hits == len(named) and (not part or page in headed or part <= set(words(label)))
            if hits:
                best = max(best, (whole, hits / len(named), hits))
        return best
    fits = {page: fit(page) for page in texts}
    printed = {page for page in texts if any(row_line(label, {"text": texts[page]}, percent=True) for label in rows)}
    tier = {page: 3 if fits[page][0] else 2 if page in printed else int(page in headed) for page in texts}
    return sorted(texts, key=lambda page: (-tier[page], -fits[page][1], -fits[page][2]))


def forecasting_first(texts: dict[int, str], question: str, year: int, least: int = 0) -> list[int]:
    """Pages (page -> its chunks' text, in the search's order) holding a sentence of expectation for ``year``
    (``domain.periods.forecast_sentences``), the one sharing most of the question's words first (its expected
    tax rate, not its expected inflation); pages with none are left out; ties in the search's order. With
    ``least``, a sentence counts only if it shares that many of the question's words naming what is forecast
    (not the year, not a word of expectation): "payments ... through 2024" is no forecast of retiree benefits."""
    asked = set(words(question)) - FUNCTION_WORDS
    what = terms(question) - terms(f"{year} {FORECAST_TERMS}")

    def fit(page: int) -> int:
        return max((len(asked & set(words(s))) for s in forecast_sentences(texts[page], year)
                    if len(what & terms(s)) >= least), default=-1)
    fits = {page: fit(page) for page in texts}
    return sorted((page for page in texts if fits[page] >= 0), key=lambda page: -fits[page])


def document_weights(docs: list[ScoredDoc], plan: QueryPlan | None = None) -> dict[str, float]:
    """The weight of a document's passages: its plan tier's weight, times 0.85 ** its rank within its
    company and tier (so a comparison's second company is not discounted). Tiers are taken among the chosen
    documents: a company whose target-year document was not chosen gets its fallback (R2) weighed as one."""
    chosen = [d.doc for d in docs]
    tiers = document_tiers(chosen, plan) if plan is not None else {}
    seen: dict[tuple, int] = {}
    weights = {}
    for d in chosen:
        tier = tiers.get(d.doc_id, (0, ""))[0]
        weights[d.doc_id] = TIER_WEIGHT[tier] * 0.85 ** seen.get((d.entity, tier), 0)
        seen[(d.entity, tier)] = seen.get((d.entity, tier), 0) + 1
    return weights


def flam_weights(lexicon: list[dict], question: str) -> dict[str, float]:
    """'<form>:<item>' -> mean weight over the lexicon terms the question contains."""
    text = phrase_text(tuple(lower_words(question)))  # the lexicon's words (plain_term): "margin?" is "margin"
    matched = [t for t in lexicon if f" {t['term']} " in text]
    totals: dict[str, float] = {}
    for t in matched:
        for key, w in (t["item_weights"].items() if isinstance(t["item_weights"], dict) else t["item_weights"]):
            totals[key] = totals.get(key, 0.0) + w / len(matched)
    return totals


def rescore_passages(hits: list[Hit], doc_weight: dict[str, float], item_weights: dict[str, float],
                     tree_chunks: set[str], items: Iterable[str] = (), item_boost: float = 1.3) -> list[Hit]:
    """Passage scores relative to the best, times the document's weight, FLAM's Item weight, a boost in an
    Item the plan names and a boost under a matching tree node; the reasons travel in ``_reason``."""
    items = set(items)
    if not hits:
        return []
    top = hits[0].score or 1.0
    rescored = []
    for h in hits:
        s = h.source
        score = (h.score / top) * doc_weight.get(s["doc_id"], 0.5)
        reasons = []
        w = item_weights.get(f"{s.get('form')}:{s.get('item')}")
        if w:
            score *= 1.0 + 0.5 * w
            reasons.append(f"FLAM weight {w:.2f} for {item_label(s.get('form'), s.get('item'))}")
        if s.get("item") in items:
            score *= item_boost
            reasons.append(f"{item_label(s.get('form'), s.get('item'))}: the question's evidence")
        if h.id in tree_chunks:
            score *= 1.15
            reasons.append("under a matching tree node")
        rescored.append(Hit(h.id, score, {**s, "_reason": "; ".join(reasons)}))
    rescored.sort(key=lambda h: (-h.score, h.id))
    return rescored


SHORT_FILING_PAGES = 10  # an 8-K this short (cover, Items, signature, a short exhibit) is read whole
WHOLE_SHARE = 0.95  # a short filing's other passages join just below its best one


def current_report(doc: DocInfo) -> bool:
    """An 8-K's own document (not an exhibit): a cover, its Items, its signatures (``query.report_body``)."""
    return doc.form == CURRENT and not doc.exhibit_type


def short_filing(doc: DocInfo) -> bool:
    """An 8-K of its own (not an exhibit) of at most ``SHORT_FILING_PAGES`` pages: the question it is chosen
    for (by its date, its event) is answered by its Item's page, whatever words that page shares with it."""
    return current_report(doc) and 0 < doc.page_count <= SHORT_FILING_PAGES


def read_whole(hits: list[Hit], doc_id: str, own: list[Hit], named: bool = False) -> list[Hit]:
    """``hits`` with the document's ``own`` passages (its search's, best first) that they lack, scored on the
    hits' scale: the best of them ``WHOLE_SHARE`` of the document's best hit, the others in proportion.
    ``named``: the question names the filing by its form and its day ("its 8-K dated May 5, 2023"), so it is
    read at the top of the hits' scale, all its passages (found or not) in its own search's order: its words
    need not be the question's (PepsiCo's 8-K of its shareholders' votes, asked what securities it lists,
    shares those words less than the 10-Ks' exhibit lists do)."""
    best = next((h.score for h in hits if h.source["doc_id"] == doc_id), None)
    if not hits or not own or (best is None and not named):
        return hits
    if named:
        scale = (hits[0].score or 1.0) / (own[0].score or 1.0)
        hits = [h for h in hits if h.source["doc_id"] != doc_id]
        return sorted(hits + [Hit(h.id, h.score * scale, h.source) for h in own],
                      key=lambda h: (-h.score, h.source["doc_id"] != doc_id, h.id))  # a tie: the filing named
    have = {h.id for h in hits}
    scale = WHOLE_SHARE * best / (own[0].score or 1.0)
    added = [Hit(h.id, h.score * scale, h.source) for h in own if h.id not in have]
    return sorted(hits + added, key=lambda h: (-h.score, h.id))


ASKED_MARGIN = 2  # distinct words: one is often the company's name or the year, which every page repeats


def evidence_page(chunk: dict, asked: frozenset[str] = frozenset()) -> int:
    """The page holding most of a chunk. A text chunk is verbatim page text: the tail of ``page_start`` from
    ``char_start``, a newline, ..., the head of ``page_end`` up to ``char_end``; a chunk that starts with the
    last lines of one page and runs on into the next (a statement's title and table) belongs to the next.
    With ``asked`` (the question's terms, ``domain.text.terms``), a chunk over two pages belongs to the one
    whose part holds ``ASKED_MARGIN`` more of them: the bullet at a page's foot naming the acquisition
    asked about, whose chunk runs on into the next page's segment results, answers on its own page. A pinned
    chunk (``_page``) and a chunk's other page (``_spill``, :func:`with_spills`) stand for the page they name."""
    return chunk_pages(chunk, asked)[0]


SPILL_SHARE = 0.8  # a chunk's other page, holding the question's words, ranks below the page it credits
_DATING = terms("january february march april may june july august september october november december")


def telling(found: frozenset[str]) -> frozenset[str]:
    """The terms of ``found`` that say where an answer is: not a number or a month (a page's header and every
    date print the year asked), nor a lone letter (a possessive's)."""
    return frozenset(t for t in found if len(t) > 1 and not t.isdigit() and t not in _DATING)


def spill_page(chunk: dict, asked: frozenset[str]) -> int | None:
    """The other page of a text chunk over two pages (:func:`evidence_page` credits one), when its part there
    holds ``ASKED_MARGIN`` of the question's :func:`telling` terms: the segment's quarter sentence at one
    page's foot, whose chunk runs on into the next page's six-month paragraph, is on the page a reader cites.
    ``None`` else."""
    return chunk_pages(chunk, asked)[1]


def chunk_pages(chunk: dict, asked: frozenset[str] = frozenset()) -> tuple[int, int | None]:
    """(:func:`evidence_page`, :func:`spill_page`) of a chunk, its two parts' terms read once."""
    if chunk.get("_page") is not None:
        return int(chunk["_page"]), None
    if chunk.get("_spill") is not None:
        return int(chunk["_spill"]), None
    start = int(chunk.get("page_start") or 0)
    end = int(chunk.get("page_end") or start)
    if end <= start or chunk.get("kind", "text") != "text":
        return start, None
    on_last = int(chunk.get("char_end") or 0)
    on_first = (page_break(chunk) or 0) - (end - start)  # the newlines between its pages aside
    if end - start > 1:  # the middle pages are wholly inside: the chunk's body is there
        return (start + 1 if on_first < on_last else end - 1), None
    most = end if on_last > on_first else start
    if not asked or on_first <= 0 or on_last <= 0:
        return most, None
    text = chunk.get("text") or ""  # the page holding more of the question's words: the match's
    first, last = asked & terms(text[:on_first]), asked & terms(text[-on_last:])
    if abs(len(first) - len(last)) >= ASKED_MARGIN:
        most = start if len(first) > len(last) else end
    other, found = (end, last) if most == start else (start, first)
    return most, (other if len(telling(found)) >= ASKED_MARGIN else None)


def with_spills(hits: list[Hit], asked: frozenset[str], share: float = SPILL_SHARE) -> list[Hit]:
    """``hits`` with, after each hit whose chunk spills onto another page (:func:`spill_page`), that page's
    entry at ``share`` of its score, merged into the unpinned hits by score: a page the question's words sit
    on competes for a place instead of vanishing into its neighbour."""
    spills = sorted((Hit(h.id, h.score * share, {**h.source, "_spill": page}) for h in hits
                     if (page := spill_page(h.source, asked)) is not None), key=lambda h: -h.score)
    out: list[Hit] = []
    for h in hits:
        while spills and h.source.get("_page") is None and spills[0].score > h.score:
            out.append(spills.pop(0))
        out.append(h)
    return out + spills


def pages(hits: list[Hit], catalog: Catalog, reason: str, coverage: float = 0.0,
          asked: frozenset[str] = frozenset()) -> list[Evidence]:
    """One evidence item per (document, page), represented by its best chunk. With ``coverage`` > 0 a page
    scores its best chunk plus ``coverage`` times its other chunks' scores (a page several chunks point to
    rises), and the pages are reordered by that; pinned pages (a ``_page`` set by the plan) stay first."""
    best: dict[tuple[str, int], Hit] = {}
    total: dict[tuple[str, int], float] = {}
    order: list[tuple[str, int]] = []
    for h in with_spills(hits, asked):
        key = (h.source["doc_id"], evidence_page(h.source, asked))
        if key not in best:
            best[key] = h
            order.append(key)
        else:
            total[key] = total.get(key, 0.0) + max(0.0, h.score)
    pinned = [key for key in order if best[key].source.get("_page") is not None]
    rest = [key for key in order if key not in set(pinned)]
    if coverage:
        rest.sort(key=lambda key: -(best[key].score + coverage * total.get(key, 0.0)))
    out = []
    for key in pinned + rest:
        h, (doc_id, page) = best[key], key
        s = h.source
        info = catalog.docs.get(doc_id)
        out.append(Evidence(
            doc_id=doc_id, doc_name=s.get("doc_name") or (info.doc_name if info else None),
            source_name=s.get("source_name") or (info.source_name if info else None),
            company=s.get("company"), ticker=s.get("ticker"), form=s.get("form"), fiscal_year=s.get("fiscal_year"),
            fiscal_period=s.get("fiscal_period"), exhibit_type=s.get("exhibit_type"),
            document=exhibit_label(s.get("exhibit_type"), s.get("form"), info.accession if info else None),
            item=s.get("item", ""), item_title=s.get("item_title", ""),
            item_label=item_label(s.get("form"), s.get("item")),
            page=page, chunk_id=h.id, text=s.get("text", ""),
            score=round(float(h.score + coverage * total.get(key, 0.0)), 6), reason=s.get("_reason") or reason,
            basis=s.get("_basis", "match")))
    return out
