"""The one normalizer: a phrase reads the same on the index side and the query side (literal inputs)."""

from __future__ import annotations

import re

from domain.text import (
    clean_question,
    compact,
    compact_map,
    lexemes,
    lower_words,
    phrase_text,
    plain_spaces,
    plain_term,
    spaced_pattern,
    surface_words,
    words,
)
from indexing.lexicon_job import concept_term, curated_terms
from indexing.tree_job import _top_terms
from query.concepts import concept_map
from query.facts import synonym_concepts, synonym_terms, synonyms
from query.scoring import flam_weights


def test_punctuation_splits_words_the_same_everywhere():
    assert lower_words("Gross margin? R&D, (capex); free-cash-flow") == \
        ["gross", "margin", "r", "d", "capex", "free", "cash", "flow"]
    assert plain_term("Gross margin?") == plain_term("gross   margin") == "gross margin"
    assert words("The company's cashflow & liabilities") == ("the", "compani", "cash", "flow", "and", "liabil")
    assert words("Operating Incomes") == words("operating income")
    assert surface_words("Apple's AT&T") == [("Apple's", 0), ("AT&T", 8)]
    assert compact("Item 7A. Quantitative and Qualitative") == "item7aquantitativeandqualitative"
    assert compact("Nestlé’s R&D") == "nestlesrd" and compact(None) == ""
    assert compact_map("a-B é") == ("abe", [0, 2, 4])  # where each kept character stands in the text
    assert clean_question("  a\x00 b \n c ") == "a b c"


def _chunk_grams(text: str, n_max: int = 4) -> set[str]:
    """The n-grams the lexicon job counts in a chunk (its Spark UDF is ``lower_words`` itself)."""
    tokens = lower_words(text)
    return {" ".join(tokens[i:i + n]) for n in range(1, n_max + 1) for i in range(len(tokens) - n + 1)}


def test_a_lexicon_term_before_punctuation_is_counted_and_matched():
    """FLAM: the index counts "gross margin" in "... gross margin." and the question "gross margin?" finds it;
    "R&D" too (the old query side split on spaces only and never matched either)."""
    lexicon = curated_terms()
    for written in ("Gross margin", "research and development"):
        key = plain_term(written)
        assert key in lexicon
        assert key in _chunk_grams(f"Our {written.lower()}, as reported.")
        weights = flam_weights([{"term": key, "item_weights": {"10-K:7": 1.0}}], f"What drove the {written}?")
        assert weights == {"10-K:7": 1.0}
    assert flam_weights([{"term": plain_term("R&D"), "item_weights": {"10-K:7": 1.0}}], "R&D spend in 2023?")
    assert concept_term("ResearchAndDevelopmentExpense") == "research and development expense"
    assert _top_terms(["Gross margin. Gross margin, again"], {"gross margin"}) == ["gross margin"]


def test_concept_cues_and_fact_synonyms_match_however_punctuated():
    cmap = concept_map()
    plain = [c.name for c in cmap.matching("what was the capital expenditure")]
    assert plain and [c.name for c in cmap.matching("Capital-expenditure?")] == plain
    term_ = next(t for t in synonyms() if " " in t)
    assert synonym_concepts(f"What is the {term_}?") == synonym_concepts(f"what is the {term_.upper()}")
    assert phrase_text(words(f"{term_}?")) == phrase_text(words(term_))


def test_a_vocabulary_patterns_spaces_match_a_no_break_space_but_not_a_line_break():
    title = re.compile(spaced_pattern(r"\bstatements? of (consolidated )?(operations|income)\b"), re.I)
    assert title.search("Consolidated\xa0Statements\xa0of\xa0Operations")
    assert not title.search("Consolidated Statements of\nOperations")
    assert not title.search("Consolidated Statement of Incom e")
    # a title's glyph set apart by the PDF's text ("Incom e", "Shee t"), one space between two letters only
    glyphs = re.compile(spaced_pattern(r"\b(balance sheets?|statements? of (operations|income))\b", glyphs=True), re.I)
    assert glyphs.search("Consolidated Statement of Incom e") and glyphs.search("Consolidated Balance Shee t")
    assert glyphs.search("Consolidated Balance Sheets") and not glyphs.search("Balance Sh  eet")
    assert not glyphs.search("Balance\nSheet") and not glyphs.search("Statement ofOperations")
    assert spaced_pattern(r"\bab[cd]e", glyphs=True) == r"\ba[^\S\n]?b[cd]e"  # escapes, classes: kept
    # a space inside a character class, or escaped, is the vocabulary's own
    assert spaced_pattern(r"[A-Z ]+ x\ y") == r"[A-Z ]+[^\S\n]x\ y"
    # a ']' first in a class is a member, not its end; an escaped one inside a class too
    assert spaced_pattern(r"[] ]a b") == r"[] ]a[^\S\n]b"
    assert spaced_pattern(r"[^] ] c") == r"[^] ][^\S\n]c"
    assert spaced_pattern(r"[\] ] d") == r"[\] ][^\S\n]d"
    assert spaced_pattern(r"[^^] e") == r"[^^][^\S\n]e"
    for p in (r"[] ]a b", r"[^] ] c", r"[\] ] d", r"[^^] e"):
        re.compile(spaced_pattern(p))
    assert plain_spaces("a\xa0b\u2009c\u202fd\ne\tf") == "a b c d\ne\tf"  # line breaks and tabs kept


def test_a_one_word_cue_is_said_by_its_own_words_forms_not_by_a_word_sharing_its_stem():
    """The stemmer cuts "receivables" and "receive" to one stem: the balance sheet's receivables are not what
    shareholders "receive" in a spin-off; "profit" is said by its own cue, not by "profitability"'s stem."""
    assert words("receivables") == words("receive")
    assert lexemes("receivables") == lexemes("receivable") != lexemes("receive") == lexemes("received")
    assert lexemes("retirement") != lexemes("retire") and lexemes("inventories") == lexemes("inventory")
    cmap = concept_map()
    said = [c.name for c in cmap.matching("How many shares will shareholders receive in the spin-off?")]
    assert "balance sheet items" not in said
    assert "balance sheet items" in [c.name for c in cmap.matching("What were its receivables at year end?")]
    assert "margins" in [c.name for c in cmap.matching("What was the Aerospace segment's profit in 2023?")]
    # the facts' synonyms, the same: no receivables fact is pinned for what holders receive
    assert "receivables" in synonym_terms("What were its receivables?")
    assert "receivables" not in synonym_terms("What will holders of the right receive per share?")


def test_a_sentence_opens_at_the_start_and_after_its_end_not_after_an_initial_or_abbreviation():
    """A capital at a sentence's start says nothing of a name; "U.S." and "Inc." end no sentence, so the
    word after them is read as written ("U.S. Domestic Package", "Alphabet Inc. Google Cloud")."""
    from domain.text import opens_sentence

    text = 'Revenue in 2023. Which U.S. Domestic line of Alphabet Inc. Google? "Cloud'
    assert opens_sentence(text, 0)
    assert opens_sentence(text, text.index("Which"))
    assert opens_sentence(text, text.index("Cloud"))  # after a question mark and a quote
    assert not opens_sentence(text, text.index("Domestic"))
    assert not opens_sentence(text, text.index("Google"))
    assert not opens_sentence(text, text.index("line"))
    assert not opens_sentence("ALPHABET INC. Google", len("ALPHABET INC. "))  # capitals abbreviate too


def test_a_line_ends_a_sentence_with_a_dot_that_abbreviates_nothing():
    """"... fourth quarter of 2019." ends its sentence; a company's name titling a column ("NIKE, INC.", "Walt
    Disney Co.") or an initial ("U.S.") does not."""
    from domain.text import ends_sentence

    assert ends_sentence("fourth quarter of 2019.") and ends_sentence("as follows. ")
    assert not ends_sentence("NIKE, INC.") and not ends_sentence("Walt Disney Co.") and not ends_sentence("U.S.")
    assert not ends_sentence("Total revenues")


def test_sentences_run_over_line_breaks_and_initials_and_end_at_a_stop_before_a_capital():
    from domain.text import sentence_spans

    text = ("Walmart U.S. generated approximately 64% of our net sales in fiscal 2018 ,\nup from 63%. Sam's Club "
            "accounted for 12%.\n\n2022 was a year. ● A bullet")
    said = [text[a:b].strip() for a, b in sentence_spans(text)]
    assert said == ["Walmart U.S. generated approximately 64% of our net sales in fiscal 2018 ,\nup from 63%.",
                    "Sam's Club accounted for 12%.", "2022 was a year.", "● A bullet"]


def test_a_hyphenated_compound_is_one_run_of_stems():
    """Each hyphenated compound a text says, as its stems in order; words joined by no hyphen are none."""
    from domain.text import hyphenated, words

    assert hyphenated("What were company-operated sales and year-over-year growth?") == \
        [words("company operated"), words("year over year")]
    assert hyphenated("What were operating company sales?") == []
