"""A line item of a primary statement asked by its own name ("purchased transportation expense", "How much did
Amazon spend on fulfillment", "membership and other income"): outside the reviewed vocabulary, so the plan
names no statement, and the search ranks MD&A's and the notes' discussions of it above the statement that
prints it (a statement's page is mostly figures; the item's words fill a 10-K). The statement's own pages are
found by their titles (``query.statements``) and read for a row labelled by the item: a short line of the
item's words, as the question says them less its spending and expense words ("spend on", "expense",
"costs": the row is "Purchased transportation", "Fulfillment", "Medical costs"), the label adding at most a
sign's or a net's words ("Interest and other income (expense), net", "Equity income (loss) - net"), then
figures. Pure: plain text in, pages out; :meth:`query.pins.Pins._line_item_pin` pins the page found."""

from __future__ import annotations

from domain.text import FUNCTION_WORDS, words
from query.stated import MEASURE_WORDS, measure_words
from query.statements import COST_WORDS, ROW_FIGURES, label_cells, labelled_lines, page_position

# A question's words before the item that say it is spent ("spend on", "spent on") or, of a liability, owed
# ("owe in trade payables") ...
_SPENT_OR_OWED = frozenset(words("spend spent spending on owe owed owes owing"))
# ... and after it that say it is a cost (``query.statements.COST_WORDS``): a statement labels the row by the
# item alone, or with them. A sum's or a balance's word, said or not by either: "total loans" is the balance
# sheet's "Loans" row, "Card Member loans" its "Total Card Member loans" row, "trade payables outstanding" and
# "the accrued liabilities balance" the "Trade payables" and "Accrued liabilities" rows. Words a row's label
# may add to the item's: a cost's, a sum's or a balance's, a sign's ("(loss)", "(expense)"), a net's.
_SUM_OR_BALANCE = frozenset(words("total balance balances outstanding"))
_LABEL_EXTRAS = COST_WORDS | _SUM_OR_BALANCE | frozenset(words("loss losses net"))
LABEL_SLACK = 3  # words (joining ones included) a row's label may say beyond the item's


def line_item(lexical: str) -> tuple[str, ...]:
    """The item's stems a figure question names (``lexical``: the question without its companies' names;
    ``query.stated.measure_words``), its leading spending and owing words and trailing cost words dropped,
    and its joining, sum and balance words (a label's "and" is the question's "and"; a sum's row may say
    "Total" or not); empty when more than ``MEASURE_WORDS`` remain."""
    named = measure_words(lexical)
    start, end = 0, len(named)
    while start < end and named[start] in _SPENT_OR_OWED:
        start += 1
    while end > start + 1 and named[end - 1] in COST_WORDS:
        end -= 1
    item = tuple(w for w in named[start:end] if w not in FUNCTION_WORDS and w not in _SUM_OR_BALANCE)
    return item if len(item) <= MEASURE_WORDS else ()


def labels_item(label: str, item: tuple[str, ...]) -> bool:
    """Whether a row's label names the item: its words (joining ones aside) are the item's and at most
    :data:`_LABEL_EXTRAS` besides, each of the item's said, in few words."""
    said = words(label)
    own = [w for w in said if w not in FUNCTION_WORDS]
    return bool(item) and len(said) <= len(item) + LABEL_SLACK and set(item) <= set(own) and \
        set(own) - set(item) <= _LABEL_EXTRAS


def line_item_page(item: tuple[str, ...], chunk: dict) -> int | None:
    """The page on which a chunk prints the item's row: a line whose text before its first figure labels the
    item (:func:`labels_item`), with at least ``ROW_FIGURES`` figures on it or on the lines after it up to
    the next line with words (a page's text puts a row's cells beside its label or below it)."""
    lines = (chunk.get("text") or "").split("\n")
    for i, label, at in labelled_lines(lines):
        if labels_item(label, item) and len(label_cells(lines, i, label)) >= ROW_FIGURES:
            return page_position(chunk, at)[0]
    return None
