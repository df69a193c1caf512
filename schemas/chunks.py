"""Structure datasets of the segmentation stage: items (with their page spans) and chunks."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ItemRecord(BaseModel):
    """One SEC Item of a document, or an explicit record that it is missing."""

    doc_id: str
    item: str = Field(description="10-K 1, 1A..16; 10-Q part1item1..part2item6; 8-K 2.02; cover; unknown")
    title: str
    status: str = Field(description="found | combined (filed under another item's heading) | missing | cover | unknown")
    order: int = Field(description="Position in the document (missing items: -1)")
    page_start: int | None = None
    page_end: int | None = Field(None, description="Last page (inclusive) holding text of the item")
    char_start: int | None = Field(None, description="Offset of the item's start in page_start's text")
    char_end: int | None = Field(None, description="Offset where the item ends in page_end's text (exclusive)")
    heading: str | None = None
    method: str = Field(description="headings | cross-reference | none")


def chunk_id(doc_id: str, item: str, seq: int) -> str:
    """A chunk's id: its document, its Item and its place in the Item (stable across reruns)."""
    return f"{doc_id}:{item}:{seq:04d}"


def next_chunk_id(chunk: dict, ahead: int = 1) -> str | None:
    """The id of the chunk that follows ``chunk`` (a record with doc_id, item and seq) in its Item, or the
    ``ahead``-th after it: what its text runs on into (a statement's title in one chunk, its table in the
    next)."""
    if chunk.get("seq") is None or not chunk.get("doc_id") or chunk.get("item") is None:
        return None
    return chunk_id(chunk["doc_id"], chunk["item"], int(chunk["seq"]) + ahead)


def shared_chars(chunk: dict, after: dict) -> int:
    """How many characters ``after`` (the chunk following ``chunk`` in its Item) opens with that ``chunk``
    ends with: neighbouring text chunks overlap (``etl.segment.chunking``), on the page one ends and the other
    starts. None for a table chunk, whose text is its rows, not its page's."""
    if "table" in (chunk.get("kind"), after.get("kind")) or after.get("char_start") is None or \
            chunk.get("page_end") != after.get("page_start"):
        return 0
    return max(0, int(chunk.get("char_end") or 0) - int(after["char_start"]))


def placed_before(chunk: dict, table: dict) -> bool:
    """Whether ``table``, a table chunk following the text chunk ``chunk`` in its Item, starts before the
    text ends: a table the conversion could not place on its page is set at the page's start, so it follows
    the text run of its page in the Item's order while it belongs before it (``etl.segment.chunking``)."""
    if chunk.get("kind") == "table" or table.get("kind") != "table" or table.get("page_start") is None:
        return False
    return (int(table["page_start"]), int(table.get("char_start") or 0)) < \
        (int(chunk.get("page_end") or 0), int(chunk.get("char_end") or 0))


class ChunkRecord(BaseModel):
    """A retrieval unit inside one item, with its page provenance.

    ``text`` kind: verbatim page text (pages joined by a newline). ``table`` kind: the table's header line
    and rows (one per line, cells separated by ' | '); its cells sit in order at the recorded place."""

    chunk_id: str = Field(description="<doc_id>:<item>:<seq>, stable across reruns")
    doc_id: str
    item: str
    item_title: str = Field(json_schema_extra={"es": "text"})
    kind: str = Field(description="text | table")
    seq: int = Field(description="Order of the chunk within its item")
    text: str = Field(json_schema_extra={"es": "text"})
    token_count: int = Field(description="Tokens of the embedding model's tokenizer, without special tokens")
    page_start: int
    page_end: int
    char_start: int = Field(description="Offset in page_start's text")
    char_end: int = Field(description="Offset in page_end's text (exclusive)")
