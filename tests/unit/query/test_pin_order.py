"""The order of one document's pins: a row printing the figure asked inside a pinned note comes before the
note's heading page (``query.pins.rows_before_notes``)."""

from kernel.search import Hit
from query.pins import NOTE_SPAN, rows_before_notes


def _pin(basis: str, page: int, doc: str = "MMM_2022_10K") -> Hit:
    return Hit(f"{doc}:{basis}:{page}", 1.0, {"doc_id": doc, "_page": page, "_basis": basis})


def _order(pins: list[Hit]) -> list[tuple[str, int]]:
    return [(h.source["_basis"], h.source["_page"]) for h in rows_before_notes(pins)]


def test_a_row_inside_a_pinned_note_comes_before_the_notes_heading_page():
    pins = [_pin("statement", 50), _pin("note", 76), _pin("note", 77), _pin("row", 79)]
    assert _order(pins) == [("statement", 50), ("row", 79), ("note", 76), ("note", 77)]


def test_a_row_outside_the_note_or_of_another_document_keeps_its_place():
    md_and_a = [_pin("note", 76), _pin("row", 40)]  # MD&A's table, before the notes
    assert _order(md_and_a) == [("note", 76), ("row", 40)]
    far = [_pin("note", 76), _pin("row", 76 + NOTE_SPAN + 1)]  # past the note's reach: another note's table
    assert _order(far) == [("note", 76), ("row", 76 + NOTE_SPAN + 1)]
    other = [_pin("note", 76), _pin("row", 79, doc="KO_2022_10K")]
    assert _order(other) == [("note", 76), ("row", 79)]
    assert rows_before_notes([]) == []
