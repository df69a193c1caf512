"""Which consolidated row a question no reviewed term covers asks for: a statement row whose whole label it
says asks for that row's figure, though no concept cue or synonym names it ("membership and other income":
Walmart's income statement row); its asking and period words find none. The embedded engine over literal
facts."""

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


def test_a_measure_no_row_names_finds_no_fact_by_its_asking_and_period_words(tmp_path):
    """With no reviewed term, the consolidated facts are searched by what is measured: "how much ... third
    quarter" matched "Cash dividends declared ... at a quarterly amount", which is not what a volume's growth
    asks; the dividends row still answers a question about dividends."""
    from query.facts import question_facts

    rows = [("us-gaap:DividendsCash", "Cash dividends declared and paid, at a quarterly amount of $0.45", [], "927", 5),
            ("us-gaap:Revenues", "Net revenue", [], "8,123", 3)]
    backend, targets = acme_facts_backend(tmp_path, rows)

    def found(question: str) -> set[str]:
        return {f["display"] for f in question_facts(backend, targets, question, ["Acme"], DOC, "Acme Corp")}

    assert found("How much did Acme's cross-border volume grow in the third quarter of fiscal 2024?") == set()
    assert found("How much did Acme pay in cash dividends in the third quarter of fiscal 2024?") == {"927"}
