"""A statement's line item asked by its own name is read off the statement's row that the item labels: the
question's spending and cost words aside, the label's sign and net words aside, never another item's row."""

from __future__ import annotations

from query.line_items import labels_item, line_item, line_item_page


def _item(question: str) -> tuple[str, ...]:
    return line_item(question)


def test_the_item_is_the_measure_less_its_spending_and_trailing_cost_words():
    assert _item("How much did spend on fulfillment in the second quarter of 2023?") == ("fulfil",)
    assert _item("What was programming and production expense in 2023?") == ("program", "product")
    assert _item("How much did report in medical costs in 2023?") == ("medic",)
    assert _item("What was cost of sales in 2023?") == ("cost", "sale")  # a cost word that is the item's own
    assert _item("What were expenses in 2023?") == ("expens",)  # nothing but the cost word: kept
    assert _item("How much did spend on card member rewards in 2023?") == ("card", "member", "reward")
    assert _item("How much did owe in trade payables at year-end 2023?") == ("trade", "payabl")  # a liability owed
    assert _item("What did the 10-Q say about the labor contract talks with the union?") == ()  # a sentence


def test_a_label_names_the_item_with_a_sign_or_a_net_beside_it():
    assert labels_item("Programming and production", _item("What was programming and production expense?"))
    assert labels_item("Interest and other income (expense), net", _item("What interest and other income?"))
    assert labels_item("Equity income (loss) — net", _item("How much equity income did record?"))
    assert labels_item("Medical costs", _item("How much did report in medical costs?"))


def test_a_sum_s_word_is_neither_the_item_s_nor_another_item_s():
    loans = _item("What were total loans at September 30, 2021?")
    assert loans == ("loan",)
    assert labels_item("Loans", loans) and labels_item("Total loans", loans)
    card = _item("How large were total Card Member loans at the end of 2022?")
    assert labels_item("Card Member loans", card) and labels_item("Total Card Member loans", card)
    assert not labels_item("Total deposits", loans) and not labels_item("Loans held-for-sale", loans)
    payables = _item("What were trade payables outstanding at December 30, 2023?")
    assert payables == _item("What was the trade payables balance at the end of 2023?") == ("trade", "payabl")
    assert labels_item("Trade payables", payables) and labels_item("Loans outstanding", loans)


def test_a_label_of_another_item_or_a_sentence_does_not():
    interest = _item("What was interest expense in 2023?")
    assert labels_item("Interest expense, net", interest)
    assert not labels_item("Interest income", interest)  # income is not a sign's word
    assert not labels_item("Interest income (expense), net", interest)
    assert not labels_item("Sales", _item("What was cost of sales?"))
    assert not labels_item("Fulfillment costs rose because of higher volumes in our network", _item(
        "How much did spend on fulfillment?"))
    assert not labels_item("Programming", _item("What was programming and production expense?"))


def test_the_row_s_page_is_the_one_its_label_is_on_with_figures_beside_or_below():
    item = _item("What was purchased transportation expense in the quarter?")
    beside = {"text": "Operating Expenses:\nCompensation and benefits $ 11,908 $ 11,829\nPurchased transportation "
                      "3,870 4,851\nFuel 1,026", "page_start": 4, "page_end": 4, "char_start": 0, "char_end": 0}
    tail = "Purchased transportation\n3,870\n4,851\nFuel"  # the head of page 57
    below = {"text": f"Prose about the quarter ends.\n{tail}", "page_start": 56, "page_end": 57, "char_start": 100,
             "char_end": len(tail)}
    assert line_item_page(item, beside) == 4 and line_item_page(item, below) == 57
    prose = {**beside, "text": "Purchased transportation\nexpense decreased because of lower volumes."}
    one_figure = {**beside, "text": "Purchased transportation 3,870\nFuel 1,026"}
    assert line_item_page(item, prose) is None and line_item_page(item, one_figure) is None
