"""A question saying a statement row's whole label asks for that row's figure, though no concept cue or
synonym names it ("membership and other income": Walmart's income statement row). The embedded engine over
literal facts."""

from __future__ import annotations

from query.facts import says_a_row
from tests.index_records import ACME_10K as DOC
from tests.index_records import acme_facts_backend

ROWS = [("us-gaap:OtherIncome", "Membership and other income", [], "5,488", 53),
        ("us-gaap:Revenues", "Revenues", [], "648,125", 53),
        ("us-gaap:OperatingIncomeLoss", "Operating income", [], "27,012", 53),
        ("us-gaap:InterestExpense", "Interest, net", [], "2,137", 53)]


def _says(tmp_path, question: str) -> bool:
    backend, targets = acme_facts_backend(tmp_path, ROWS)
    return says_a_row(backend, targets, question, ["Acme"], DOC)


def test_a_row_label_said_whole_asks_for_its_figure(tmp_path):
    assert _says(tmp_path, "What membership and other income did Acme report in fiscal 2024?")


def test_a_label_said_in_part_or_of_one_word_asks_for_nothing(tmp_path):
    """"membership income" leaves out the label's "other"; "Revenues" alone is said by many questions asking
    for no figure (which risks a business faces to its revenues)."""
    assert not _says(tmp_path, "How did Acme's membership income grow in 2024?")
    assert not _says(tmp_path, "What risks to its revenues does Acme describe?")
    assert not _says(tmp_path, "What does Acme mean by adjusted membership?")
