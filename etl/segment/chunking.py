"""Chunks inside items, counted in the embedding model's tokens, with page provenance.

An item's text runs across pages; tables inside it are cut out of the running text and become chunks of
their own (header line + rows, from :mod:`etl.convert.html_tables`), kept whole when they fit and otherwise split
at row boundaries with the header repeated. The prose between tables is cut into windows of
``ChunkOptions.tokens`` tokens with ``overlap`` tokens shared between neighbours, ending at a line or
sentence end when one is near, never inside a word. A chunk never crosses an item boundary, and no chunk
exceeds what the model reads (``max_seq_length`` minus its special tokens): no silent truncation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from domain.text import compact, compact_map
from etl.segment.items import Position, Segmentation
from kernel.models import TokenCounter
from schemas.chunks import ChunkRecord, chunk_id
from schemas.table_text import table_rows

PAGE_JOIN = "\n"  # how a chunk's text joins the pieces of consecutive pages
_SENTENCE_END = re.compile(r"[.;:!?)\]]\s*$")


class ChunkConfigError(ValueError):
    """Chunk sizes do not fit the embedding model."""


@dataclass(frozen=True)
class ChunkOptions:
    tokens: int = 240
    overlap: int = 32
    min_tokens: int = 1  # prose pieces shorter than this are dropped (1: keep everything)

    def check(self, counter: TokenCounter) -> None:
        if self.tokens > counter.max_content_tokens:
            raise ChunkConfigError(
                f"CHUNK_TOKENS={self.tokens} exceeds the embedding model's {counter.max_content_tokens} content "
                f"tokens (max_seq_length {counter.max_seq_length} minus {counter.special_tokens} special tokens)")
        if not 0 <= self.overlap < self.tokens // 2:
            raise ChunkConfigError(f"CHUNK_OVERLAP={self.overlap} must be >= 0 and below half of CHUNK_TOKENS")


@dataclass
class _Piece:
    page: int
    start: int
    end: int


@dataclass
class _Table:
    page: int
    start: int  # located region in the page text (-1 when the cells could not be located)
    end: int
    text: str


def locate_table(page_text: str, table: str) -> tuple[int, int]:
    """Where a table's cells sit in the page text, as (start, end) line-aligned offsets; (-1, -1) if not."""
    header, rows = table_rows(table)
    hay, offsets = compact_map(page_text)
    body = compact("".join(rows))
    if not body:
        return -1, -1
    at = hay.find(body)
    if at < 0:
        return -1, -1
    start, end = offsets[at], offsets[at + len(body) - 1] + 1
    head = compact(header)
    if head and at >= len(head) and hay[at - len(head):at] == head:
        start = offsets[at - len(head)]
    start = page_text.rfind("\n", 0, start) + 1
    nl = page_text.find("\n", end)
    return start, (len(page_text) if nl < 0 else nl)


class Chunker:
    def __init__(self, counter: TokenCounter, options: ChunkOptions | None = None):
        self.counter = counter
        self.options = options or ChunkOptions()
        self.options.check(counter)

    # --- prose --------------------------------------------------------------------------------
    def _windows(self, text: str) -> list[tuple[int, int]]:
        """Character windows of at most ``tokens`` tokens, overlapping by ``overlap`` tokens."""
        spans = self.counter.spans(text)
        n, size, overlap = len(spans), self.options.tokens, self.options.overlap
        out = []
        i = 0
        while i < n:
            j = min(i + size, n)
            if j < n:
                j = self._break_at(text, spans, i, j)
            out.append((spans[i].start, spans[j - 1].end))
            if j >= n:
                break
            nxt = max(j - overlap, i + 1)
            while nxt < j and nxt > i + 1 and spans[nxt].start == spans[nxt - 1].end:
                nxt -= 1  # start the overlap at a word start
            i = nxt
        return out

    @staticmethod
    def _break_at(text: str, spans, i: int, j: int) -> int:
        """Best end (exclusive token index) in the window's last quarter: a line end, a sentence end, or at
        least a word end."""
        floor = i + max(1, (j - i) * 3 // 4)
        word_end = None
        for k in range(j, floor, -1):
            end = spans[k - 1].end
            nxt_start = spans[k].start
            if nxt_start == end:
                continue  # inside a word ("##" pieces) or punctuation glued to it
            gap = text[end:nxt_start]
            if "\n" in gap and _SENTENCE_END.search(text[max(0, end - 3):end] + " "):
                return k
            if word_end is None:
                word_end = k
            if _SENTENCE_END.search(text[max(0, end - 2):end]):
                return k
        return word_end or j

    # --- tables -------------------------------------------------------------------------------
    def _table_pieces(self, table: str) -> list[str]:
        header, rows = table_rows(table)
        limit = self.options.tokens
        if self.counter.count(table) <= limit:
            return [table]
        head_tokens = self.counter.count(header) + 1
        if head_tokens > limit // 3:  # a layout table whose "header" is a paragraph: it is a row like the others
            header, rows, head_tokens = "", [header, *rows], 1
        pieces, current, used = [], [], head_tokens
        for row, n in zip(rows, self.counter.count_many(rows), strict=True):
            if n + head_tokens > limit:  # one huge row: cut it into windows, each under the header
                if current:
                    pieces.append("\n".join([header, *current]))
                    current, used = [], head_tokens
                spans = self.counter.spans(row)
                step = max(1, limit - head_tokens - 1)
                for a in range(0, len(spans), step):
                    b = min(len(spans), a + step)
                    pieces.append(f"{header}\n{row[spans[a].start:spans[b - 1].end]}")
                continue
            if used + n + 1 > limit and current:
                pieces.append("\n".join([header, *current]))
                current, used = [], head_tokens
            current.append(row)
            used += n + 1
        if current:
            pieces.append("\n".join([header, *current]))
        return pieces

    # --- documents ----------------------------------------------------------------------------
    def chunk(self, doc_id: str, pages: list[str], tables: list[list[str]], seg: Segmentation) -> list[ChunkRecord]:
        """Chunks of every item span of a segmented document, in document order."""
        located: list[_Table] = []
        for p, page_tables in enumerate(tables):
            for t in page_tables:
                a, b = locate_table(pages[p], t)
                located.append(_Table(p, a, b, t))
        chunks: list[ChunkRecord] = []
        spans = [s for s in (seg.chunk_spans or seg.spans) if s.status != "combined"]
        numbered: dict[str, int] = {}  # an Item of several page ranges numbers its chunks across them
        for span in spans:
            made = self._chunk_span(doc_id, pages, span, located, numbered.get(span.item, 0))
            numbered[span.item] = numbered.get(span.item, 0) + len(made)
            chunks.extend(made)
        return chunks

    def _chunk_span(self, doc_id: str, pages: list[str], span, tables: list[_Table], seq0: int = 0
                    ) -> list[ChunkRecord]:
        def inside(pos: Position) -> bool:
            return not (pos < span.start) and pos < span.end

        mine = [t for t in tables if inside(Position(t.page, max(t.start, 0)))]
        # Running text of the span, cut at located tables.
        runs: list[list[_Piece]] = [[]]
        for p in range(span.start.page, span.end.page + 1):
            a = span.start.offset if p == span.start.page else 0
            b = span.end.offset if p == span.end.page else len(pages[p])
            cuts = sorted((t.start, t.end) for t in mine if t.page == p and t.start >= 0)
            for ts, te in cuts:
                ts, te = max(ts, a), min(te, b)
                if ts > a:
                    runs[-1].append(_Piece(p, a, ts))
                runs.append([])  # a table interrupts the running text
                a = max(a, te)
            if b > a:
                runs[-1].append(_Piece(p, a, b))
        out: list[ChunkRecord] = []
        blocks: list[tuple[Position, str, object]] = []
        for run in runs:
            if run:
                blocks.append((Position(run[0].page, run[0].start), "text", run))
        for t in mine:
            blocks.append((Position(t.page, max(t.start, 0)), "table", t))
        blocks.sort(key=lambda b: (b[0].page, b[0].offset))
        for _, kind, block in blocks:
            if kind == "text":
                out.extend(self._text_chunks(doc_id, pages, span, block, seq0 + len(out)))
            else:
                out.extend(self._table_chunks(doc_id, pages, span, block, seq0 + len(out)))
        return out

    def _record(self, doc_id: str, span, kind: str, seq: int, text: str, tokens: int, start: Position,
                end: Position) -> ChunkRecord:
        return ChunkRecord(chunk_id=chunk_id(doc_id, span.item, seq), doc_id=doc_id, item=span.item,
                           item_title=span.title, kind=kind, seq=seq, text=text, token_count=tokens,
                           page_start=start.page, page_end=end.page, char_start=start.offset, char_end=end.offset)

    def _text_chunks(self, doc_id, pages, span, run: list[_Piece], seq0: int) -> list[ChunkRecord]:
        text = PAGE_JOIN.join(pages[pc.page][pc.start:pc.end] for pc in run)
        bases = []
        at = 0
        for pc in run:
            bases.append(at)
            at += pc.end - pc.start + len(PAGE_JOIN)

        def where(offset: int, is_end: bool) -> Position:
            k = max(i for i, base in enumerate(bases) if base <= (offset - 1 if is_end else offset))
            return Position(run[k].page, run[k].start + offset - bases[k])

        out = []
        for a, b in self._windows(text):
            piece = text[a:b]
            if not piece.strip():
                continue
            n = self.counter.count(piece)
            if n < self.options.min_tokens:
                continue
            out.append(self._record(doc_id, span, "text", seq0 + len(out), piece, n, where(a, False),
                                    where(b, True)))
        return out

    def _table_chunks(self, doc_id, pages, span, table: _Table, seq0: int) -> list[ChunkRecord]:
        start = Position(table.page, max(table.start, 0))
        end = Position(table.page, table.end if table.start >= 0 else len(pages[table.page]))
        return [self._record(doc_id, span, "table", seq0 + i, piece, self.counter.count(piece), start, end)
                for i, piece in enumerate(self._table_pieces(table.text))]
