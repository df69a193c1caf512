"""How many pages the pins take, and how pins read the index: the policies every pin kind shares (pure, on
plain counts) and the one search they all run (a document's passages by BM25). Used by ``query.pins``,
``query.part_pins`` and ``query.fact_pins``."""

from __future__ import annotations

from kernel.search import Filters, Hit, SearchReader
from query.catalog import DocInfo
from query.question import Question
from schemas.chunks import next_chunk_id
from schemas.index import INDEXES

PINNED_DOCUMENTS = 2  # pins look in the best document of each company, for this many companies at least
FACT_PAGES = 2  # pages pinned for printing the facts asked, in one company's document
TABLES_BACK = 8  # table chunks a table's caption may stand before (``PinReader._before``)


def pinned_documents(named: int) -> int:
    """How many companies' best documents pins look in: ``PINNED_DOCUMENTS``, or each company the question
    names (``named``) when it names more (Meta, Alphabet and Amazon: the third one's figure is asked too)."""
    return max(PINNED_DOCUMENTS, named)


def several_companies(companies: int) -> bool:
    """Whether the documents chosen are several companies' (``companies``: how many companies' best
    documents were chosen): then each company's best page must stand among the first five, so pins take
    fewer pages of any one company (:func:`fact_page_limit`, :func:`pins_run_on`)."""
    return companies >= 2


def fact_page_limit(companies: int) -> int:
    """Fact pages pinned in one company's document: ``FACT_PAGES``, or one when several companies are named,
    so that each company's best page stands among the first five, not two of one company's beside one of the
    other's (Home Depot's and Lowe's net sales: four statement pages, neither MD&A's discussion)."""
    return 1 if several_companies(companies) else FACT_PAGES


def pins_run_on(companies: int) -> bool:
    """Whether a pinned page's next page is pinned too (a statement, note or MD&A section running on). Not
    when several companies are named: each company's first pages are then the other pins and its best
    passage, not the second page of one of its pins (Alphabet's legal-matters note over two pages put
    its Item 3 page, and Apple's, below the fifth)."""
    return not several_companies(companies)


class PinReader:
    """What every pin kind reads with: one engine's passages, searched within a scope or looked up by id."""

    def __init__(self, backend: SearchReader):
        self.backend = backend

    def _bm25(self, q: Question, text: str, scope: Filters, k: int) -> list[Hit]:
        return self.backend.bm25(q.snap.target("passages"), INDEXES["passages"], text, scope, k)

    @staticmethod
    def _pinned(q: Question, best: list[DocInfo]) -> list[DocInfo]:
        """The companies' best documents pins look in (:func:`pinned_documents` of them, companies in rank order)."""
        return best[:pinned_documents(len(q.plan.analysis.entities))]

    def _get(self, q: Question, ids: list[str]) -> list[dict]:
        """The passages of these chunk ids (one lookup), those the index holds."""
        return self.backend.get(q.snap.target("passages"), INDEXES["passages"], ids)

    def _before(self, q: Question, chunks: list[dict], over_tables: bool = False) -> dict[str, str]:
        """The text of the chunk before each of ``chunks`` in its Item, by the chunk's id (one lookup); with
        ``over_tables``, a table chunk's is the nearest text passage before it, over up to ``TABLES_BACK``
        tables: an Item's chunks follow the page, and a table the conversion could not place on its page
        sits at the page's start, between a table placed below it and its caption (Colgate-Palmolive's
        shares of net sales, after four cash-flow tables of the page before)."""
        def reach(c: dict) -> int:  # how many chunks back a chunk's text may stand
            return 1 + (TABLES_BACK if over_tables and c.get("kind") == "table" else 0)

        back = {c["chunk_id"]: [i for k in range(1, reach(c) + 1) if (i := next_chunk_id(c, -k))] for c in chunks}
        found = self._by_id(q, back)
        return {chunk: _nearest_text([found[i] for i in ids if i in found]) for chunk, ids in back.items() if ids}

    def _by_id(self, q: Question, ids: dict[str, list[str]]) -> dict[str, dict]:
        """The passages of all these lists of chunk ids, by id (one lookup), those the index holds."""
        wanted = sorted({i for found in ids.values() for i in found})
        return {c["chunk_id"]: c for c in self._get(q, wanted)} if wanted else {}

    def _in_order(self, q: Question, ids: list[str]) -> list[dict]:
        """The passages of these chunk ids in the ids' order, those the index holds (one lookup)."""
        found = {f["chunk_id"]: f for f in self._get(q, ids)}
        return [found[i] for i in ids if i in found]

    def _next_chunks(self, q: Question, chunk: dict, n: int) -> list[dict]:
        """The ``n`` chunks after ``chunk`` in its Item, in order (one lookup by id)."""
        return self._in_order(q, [i for ahead in range(1, n + 1) if (i := next_chunk_id(chunk, ahead)) is not None])


def _nearest_text(prior: list[dict]) -> str:
    """The text of the nearest of ``prior`` (the chunks before one, nearest first): of one, whatever its kind;
    of several, the nearest passage that is no table ("" when all are)."""
    if len(prior) == 1:
        return prior[0].get("text") or ""
    return next((c.get("text") or "" for c in prior if c.get("kind") != "table"), "")
