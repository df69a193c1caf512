"""A part named by its initials is read as the name its company's filings print (``query.initials``)."""

from query.initials import printed_initials, read_initials, spelled_question, spelled_runs, written_initials
from query.plan import short_form

SEGMENTS = "Profit from reportable segments: Construction Industries $ 1,803 Resource Industries 740 " \
           "Energy & Transportation 1,269 Corporate Items and Eliminations (42)"
MD_AND_A = "Resource Industries’ profit was $740 million, compared with $355 million. Resource Industries sales rose."


def test_the_capitals_a_question_writes_are_its_initials():
    assert written_initials("What did Caterpillar's RI and E&T segments earn? RI only") == ["RI", "E&T"]
    assert written_initials("What were Honeywell's segment sales?") == []


def test_a_run_of_capitalized_words_spells_the_initials_joining_words_between_them():
    assert spelled_runs("RI", SEGMENTS) == ["Resource Industries"]
    assert spelled_runs("E&T", SEGMENTS) == ["Energy & Transportation"]
    assert spelled_runs("DPEP", "Disney Parks, Experiences and Products revenues") == [
        "Disney Parks, Experiences and Products"]
    assert spelled_runs("RI", MD_AND_A) == ["Resource Industries", "Resource Industries"]  # the possessive left out


def test_a_run_is_a_whole_name_of_words_not_initials_nor_letters():
    assert spelled_runs("RI", "Global Resource Industries Holdings reported") == []
    assert spelled_runs("GE", "GE Energy") == []  # "GE" is itself initials, no word of a name
    assert spelled_runs("PG", "P & G") == []


def test_the_name_most_passages_print_is_read_not_the_companys_own_nor_a_close_second():
    passages = [SEGMENTS, MD_AND_A, "Construction Industries sales", "Corporate Items (42)"]
    assert read_initials("RI", passages, "Caterpillar Inc.") == "Resource Industries"
    # Construction Industries four times, Corporate Items twice, Caterpillar Inc (the company's name) ignored
    clear = [*passages, "Construction Industries", "Construction Industries", "Caterpillar Inc", "Caterpillar Inc"]
    assert read_initials("CI", clear, "Caterpillar Inc.") == "Construction Industries"
    assert read_initials("CI", passages, "Caterpillar Inc.") is None  # two and two: either may be meant
    assert read_initials("RI", ["Resource Industries sales"], "Caterpillar Inc.") is None  # one passage


def test_initials_the_filings_print_are_read_only_as_a_name_they_define_and_print_more():
    defined = ["Energy & Transportation (E&T) sales", "E&T operating profit", "Energy & Transportation sales",
               "Energy & Transportation profit"]
    assert printed_initials("E&T", defined)
    assert read_initials("E&T", defined, "Caterpillar Inc.") == "Energy & Transportation"
    undefined = [t.replace(" (E&T)", "") for t in defined] + ["E&T margin"]
    assert read_initials("E&T", undefined, "Caterpillar Inc.") is None
    arr = ["Annualized Recurring Revenue (ARR) grew", "Digital Media ARR", "net new ARR", "ARR of $13 billion",
           "Annualized Recurring Revenue (ARR) is"]
    assert read_initials("ARR", arr, "Adobe Inc.") is None  # the initials printed more often than the name
    used = ["Adobe Illustrator and AI features", "generative AI in Adobe Illustrator"]
    assert read_initials("AI", used, "Adobe Inc.") is None


def test_the_question_says_the_name_and_keeps_initials_the_filings_print():
    assert spelled_question("Caterpillar's RI segment profit; RI's sales", {"RI": "Resource Industries"}) == \
        "Caterpillar's Resource Industries segment profit; Resource Industries's sales"
    assert spelled_question("What does Caterpillar mean by ME&T?", {"ME&T": "Machinery, Energy & Transportation"},
                            {"ME&T"}) == "What does Caterpillar mean by ME&T (Machinery, Energy & Transportation)?"


def test_the_trades_short_forms_are_no_companys_initials():
    assert short_form("M&A") and short_form("R&D")  # "Modal and Acelity" is no reading of 3M's "M&A"
    assert not short_form("RI")
