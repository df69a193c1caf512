"""The company index on literal names: each rule of ``domain.companies`` once, and the vocabulary's checks."""

from __future__ import annotations

import pytest

from domain.companies import (
    EntityIndex,
    Vocabulary,
    add_directory_record,
    add_vocabulary_names,
    company_vocabulary,
    edgar_names,
    parse_vocabulary,
    reads_as_name,
    squash,
    variants,
)
from domain.vocabulary import VocabularyError

VOCAB = Vocabulary(names={"GOOGL": ("Google",), "PG": ("P&G",)},
                   generic=frozenset({"technologies", "aerospace", "texas", "instruments", "pacific", "land"}),
                   common=frozenset({"target", "ford", "meta", "all", "it", "f"}),
                   filing_words=frozenset({"10 k", "filing", "shares"}), emphasis=frozenset({"all"}),
                   abbreviations=frozenset({"it"}))  # as the reviewed list has it: "IT budgets" is no Gartner


def _index() -> EntityIndex:
    idx = EntityIndex(vocab=VOCAB)
    for name, ticker in (("Honeywell Technologies", "HON"), ("Honeywell Aerospace", "HONA"),
                         ("Walt Disney Company (The)", "DIS"), ("Alphabet Inc. (Class A)", "GOOGL"),
                         ("Procter & Gamble", "PG"), ("Target Corporation", "TGT"), ("Ford Motor Company", "F"),
                         ("Meta Platforms", "META"), ("Allstate", "ALL"), ("Gartner", "IT"),
                         ("Texas Instruments", "TXN"), ("Texas Pacific Land", "TPL"), ("lululemon athletica", "LULU"),
                         ("Berkshire Hathaway", "BRK-B"), ("Nestlé S.A.", "NSRGY"), ("J M Smucker Co", "SJM")):
        idx.add(name, ticker)
    add_directory_record(idx, {"ticker": "JBHT", "listed_name": "J.B. Hunt", "sec_title": "HUNT J B TRANSPORT SERVICES INC",
                               "former_names": [{"name": "ARKANSAS FREIGHTWAYS", "until": "2009-12-31"}]})
    idx.add("Commission File Number 1-234", "CFN", words=False)  # a cover parsed badly: its words name nobody
    add_vocabulary_names(idx)
    idx.finish(searchable={idx.tickers[t] for t in ("HON", "DIS", "GOOGL", "PG", "TGT", "F", "META", "ALL", "IT",
                                                    "TXN", "TPL", "LULU", "JBHT", "BRK-B", "CFN", "NSRGY",
                                                    "SJM")})
    return idx


def names(question: str) -> list[str]:
    return [e.name for e in _index().find(question)]


def test_names_compare_squashed_without_remarks_state_tags_or_possessives():
    assert squash("Walt Disney Company (The)") == squash("WALT DISNEY CO") == "waltdisney"
    assert squash("Alphabet Inc. (Class A)") == "alphabet"
    assert squash("NVIDIA CORP/CA") == "nvidia" and squash("Lowe's") == "lowe"
    assert variants("Lowe's") == ["Lowe's", "Lowes"]
    assert variants("SMUCKER J M CO")[-1] == "J M SMUCKER CO"
    assert edgar_names({"sec_title": "A CORP", "edgar_name": "A Corp.", "former_names": [
        {"name": "OLD A", "until": "2012-05-01"}, {"name": "OLDER A", "until": "2004-01-01"}]}) == ["A CORP", "A Corp.",
                                                                                                   "OLD A"]


def _built(vocab: Vocabulary, companies: tuple[tuple[str, str], ...]) -> EntityIndex:
    """An index of literal (name, ticker) pairs over a literal vocabulary."""
    idx = EntityIndex(vocab=vocab)
    for name, ticker in companies:
        idx.add(name, ticker)
    idx.finish()
    return idx


def _found(idx: EntityIndex, question: str) -> list[str]:
    return [e.name for e in idx.find(question)]


def test_distinctive_words_name_their_companies_and_a_shared_one_names_all():
    assert names("Which segments does Disney report?") == ["Walt Disney Company (The)"]
    assert names("Which segments does Honeywell report?") == ["Honeywell Technologies"]  # HONA: no documents
    idx = _index()
    assert idx.unindexed("Which segments does Honeywell report?") == []  # the name is HON's too: it answers
    assert [e.name for e in idx.unindexed("Which segments does Honeywell Aerospace report?")] == ["Honeywell Aerospace"]
    [(word, both)] = idx.ambiguous("Which segments does Honeywell report?")
    assert word == "Honeywell" and [e.name for e in both] == ["Honeywell Technologies", "Honeywell Aerospace"]
    assert names("Revenue in Texas grew; Pacific exposure.") == []  # generic words name nobody alone
    assert names("What is its Commission File Number?") == []
    assert names("What did Texas Instruments report?") == ["Texas Instruments"]


def test_vocabulary_names_edgar_names_and_tickers():
    assert names("How much did Google spend on R&D?") == ["Alphabet Inc. (Class A)"]
    assert names("Which segments does P&G report?") == ["Procter & Gamble"]
    assert names("What did HUNT J B TRANSPORT SERVICES INC report?") == ["J.B. Hunt"]
    # a former name dropped before 2010 names the company as a whole name only, never by its words
    assert names("What did ARKANSAS FREIGHTWAYS report?") == ["J.B. Hunt"]
    assert names("What did Arkansas Freightways report in 2008?") == ["J.B. Hunt"]
    assert names("Which Arkansas companies report?") == []
    assert names("What did lululemon report?") == ["lululemon athletica"]  # its own spelling
    assert names("What did BRK.B report?") == ["Berkshire Hathaway"]


def test_common_words_are_companies_only_where_the_words_make_them_one():
    assert names("What was Target's revenue?") == ["Target Corporation"]  # possessive
    assert names("Which segments does Meta report?") == ["Meta Platforms"]  # capitalized inside a sentence
    assert names("What did the Ford 10-K say?") == ["Ford Motor Company"]
    assert names("Target margins of 5% are common. Meta-analysis agrees.") == []  # a sentence's first word
    assert names("what is a target of 5% for meta?") == []
    assert names("ALL companies raised IT budgets.") == []  # tickers that are words: not without a cue
    assert names("What did ALL's 10-K say?") == names("Compare the ALL filing") == ["Allstate"]
    assert names("F shares fell.") == ["Ford Motor Company"]  # a lone capital ticker beside a filing word


def test_the_vocabulary_is_checked():
    with pytest.raises(VocabularyError, match="'names' must map"):
        parse_vocabulary({"names": {"X": "not a list"}})
    with pytest.raises(VocabularyError, match="'common_words' must be a list"):
        parse_vocabulary({"common_words": [True]})  # an unquoted YAML "on"


def test_accents_and_a_final_s_without_apostrophe_name_the_company():
    """Issue 54's name classes: accented and plain spellings are one name; a surname-company said with a
    final "s" and no apostrophe is that company, unless the word is a guarded common word ("Targets")."""
    assert names("What did Nestle report in 2023?") == ["Nestlé S.A."]
    assert names("Nestlé's margins") == ["Nestlé S.A."]
    assert names("What were Smuckers net sales?") == ["J M Smucker Co"]
    assert names("Targets for 2024 were met") == []
    # a corporate noun with its "s" is no surname: "Adobe Systems" names no "Ryder System"
    idx = EntityIndex(vocab=Vocabulary(names={}, generic=frozenset({"systems"}), common=frozenset(),
                                       filing_words=frozenset()))
    for name, ticker in (("Adobe Inc.", "ADBE"), ("Ryder System", "R")):
        idx.add(name, ticker)
    idx.finish()
    assert [e.name for e in idx.find("What was Adobe Systems's revenue in 2023?")] == ["Adobe Inc."]
    # a whole name with its last word's plural "s" dropped is that name: "Texas Instrument's revenue"
    assert names("What was Texas Instrument's revenue?") == ["Texas Instruments"]


def test_a_reviewed_former_ticker_and_name_of_the_cik_name_the_company():
    """former_tickers.yaml's lines (each with its source) are the company's names too: UTX's filer is CIK
    101829, today's RTX."""
    idx = EntityIndex(vocab=VOCAB)
    add_directory_record(idx, {"ticker": "RTX", "listed_name": "RTX Corp", "cik": 101829})
    idx.finish()
    assert [e.name for e in idx.find("What backlog did United Technologies report?")] == ["RTX Corp"]
    assert [e.name for e in idx.find("UTX backlog in 2019")] == ["RTX Corp"]
    other = EntityIndex(vocab=VOCAB)
    add_directory_record(other, {"ticker": "XYZ", "listed_name": "Xyz Corp", "cik": 1})
    other.finish()
    assert other.find("What backlog did United Technologies report?") == []


def test_leading_words_of_a_full_name_and_a_ticker_word_in_capitals():
    """Issue 54's name classes: "Bank of New York" (each word alone a place or a noun) leads one company's
    name; a ticker that is an English word names its company written alone in capitals, unless the whole
    question is in capitals, it is an abbreviation people write so ("COO"), or it opens a sentence as a word
    people stress there ("ALL companies"); one of two letters only inside a sentence ("What did SO disclose")."""
    vocab = Vocabulary(names={}, generic=frozenset({"bank", "new", "york"}),
                       common=frozenset({"all", "key", "coo", "it", "ups", "so"}), filing_words=frozenset(),
                       abbreviations=frozenset({"coo"}), emphasis=frozenset({"all"}))
    idx = EntityIndex(vocab=vocab)
    for name, ticker in (("The Bank of New York Mellon Corporation", "BK"), ("Bank of America", "BAC"),
                         ("Allstate", "ALL"), ("KeyCorp", "KEY"), ("Cooper Companies", "COO"), ("Gartner", "IT"),
                         ("New York Times", "NYT"), ("New York Community Bancorp", "NYCB"),
                         ("United Parcel Service", "UPS"), ("The Southern Company", "SO")):
        idx.add(name, ticker)
    idx.finish()

    def found(question):
        return [e.name for e in idx.find(question)]

    assert found("What did Bank of New York report in 2023?") == ["The Bank of New York Mellon Corporation"]
    assert found("What did Bank of America report?") == ["Bank of America"]  # a whole name stays its own
    assert found("What did New York report?") == []  # two words, and they lead two companies' names
    assert found("How did ALL do in 2023?") == ["Allstate"] and found("What was KEY net interest income?") == ["KeyCorp"]
    assert found("ALL companies raised budgets.") == []  # at a sentence start: emphasis
    assert found("UPS revenue in 2023?") == found("Fiscal 2023. UPS capex?") == ["United Parcel Service"]
    assert found("KEY net interest income 2023") == ["KeyCorp"] and found("ups and downs of margins") == []
    assert found("all of the segments") == [] and found("HOW DID ALL DO") == []
    assert found("What did the COO say?") == [] and found("IT spending rose") == []
    assert found("What did SO disclose in its December 2019 8-K?") == ["The Southern Company"]
    assert found("SO what changed in 2023?") == [] and found("so what did it disclose?") == []
    # a terse query's capitals are its tickers, period codes and abbreviations: not shouted (thirty-third pass)
    assert found("UPS KEY COO Q2 2023") == ["United Parcel Service", "KeyCorp"]
    assert found("UPS KEY COO REPORTS") == []  # its other words in capitals too: shouted


def test_a_ticker_in_capitals_before_a_period_code_names_its_company():
    """Issue 54's sixteenth set: an analyst's terminal form ("LOW FY23 SG&A", "V FY24 net revenue") names the
    company even where its ticker is a word people stress, one letter, or the question is mostly capitals; a
    bare year, lower case and the abbreviations people write in capitals ("EPS") do not."""
    vocab = Vocabulary(names={}, generic=frozenset(), common=frozenset({"low", "v", "a", "eps"}),
                       filing_words=frozenset(), abbreviations=frozenset({"eps"}), emphasis=frozenset({"low"}))
    idx = EntityIndex(vocab=vocab)
    for name, ticker in (("Lowe's Companies", "LOW"), ("Visa Inc.", "V"), ("Agilent Technologies", "A"),
                         ("EPS Holdings", "EPS")):
        idx.add(name, ticker)
    idx.finish()

    def found(question):
        return [e.name for e in idx.find(question)]

    assert found("LOW FY23 SG&A EXPENSE") == ["Lowe's Companies"] and found("V FY24 net revenue") == ["Visa Inc."]
    assert found("V 2Q23 payments volume") == ["Visa Inc."] and found("LOW Q3'23 comps") == ["Lowe's Companies"]
    assert found("LOW 2023 inventory levels") == [] and found("A 2023 revenue decline") == []
    assert found("low fy23 margins") == [] and found("EPS FY23 guidance") == []


def test_a_companys_services_and_subsidiaries_name_it():
    """The reviewed vocabulary's service and subsidiary brands (each line with its 10-K source)."""
    idx = EntityIndex()
    for name, ticker in (("Alphabet Inc.", "GOOGL"), ("Amazon", "AMZN"), ("UnitedHealth Group", "UNH"),
                         ("RTX Corp", "RTX"), ("Intel", "INTC"), ("Cisco", "CSCO"), ("General Motors", "GM"),
                         ("Comcast", "CMCSA")):
        idx.add(name, ticker)
    add_vocabulary_names(idx)
    idx.finish()
    for question, company in (("YouTube ad revenue in 2024", "Alphabet Inc."), ("AWS operating income", "Amazon"),
                              ("Optum revenue growth", "UnitedHealth Group"), ("Pratt & Whitney charges", "RTX Corp"),
                              ("Mobileye revenue in Q2 2023", "Intel"), ("Splunk acquisition costs", "Cisco"),
                              ("Waymo's losses", "Alphabet Inc."), ("Chevrolet Bolt recall", "General Motors"),
                              ("Peacock subscribers", "Comcast")):
        assert [e.name for e in idx.find(question)] == [company], question
    assert idx.find("a peacock's feathers") == []  # the brand is capitalized


def test_a_glued_corporate_word_and_a_hyphenated_compound_name_the_company():
    """Issue 54's name classes: a brand said without the corporate word its name glues to it ("Pepsi" for
    PepsiCo, read from the capital inside the word, so "Costco" is no "Cost"); the leading two words of a
    name written as a compound ("Bristol-Myers") or as two capitalized words ("Bristol Myers", "United Parcel"),
    never as two words the vocabulary knows as a place ("Las Vegas"), nor as initials."""
    vocab = Vocabulary(names={}, generic=frozenset({"united", "bristol", "myers", "vegas"}), common=frozenset(),
                       filing_words=frozenset(), places=frozenset({"lasvegas"}))
    idx = EntityIndex(vocab=vocab)
    for name, ticker in (("PepsiCo", "PEP"), ("PulteGroup", "PHM"), ("UnitedHealth Group", "UNH"),
                         ("United Parcel Service", "UPS"), ("United Rentals", "URI"), ("Costco", "COST"),
                         ("Bristol Myers Squibb", "BMY"), ("Las Vegas Sands", "LVS")):
        idx.add(name, ticker)
    idx.finish()

    def found(question):
        return [e.name for e in idx.find(question)]

    assert found("What was Pepsi's revenue in 2023?") == ["PepsiCo"] and found("Pulte deliveries") == ["PulteGroup"]
    assert found("What did United report?") == []  # "United" leads three names: no company's alone
    assert found("Cost of sales rose.") == []
    assert found("Bristol-Myers revenue in 2023") == ["Bristol Myers Squibb"]
    assert found("Which casinos operate in Las Vegas?") == []
    assert found("Las Vegas Sands revenue") == ["Las Vegas Sands"]
    assert found("Bristol Myers revenue in 2023") == ["Bristol Myers Squibb"]
    assert found("What did United Parcel report?") == ["United Parcel Service"]
    assert found("the bristol myers case") == []  # not written as a name


def test_a_short_name_is_what_a_sentence_says():
    from domain.companies import short_name

    assert short_name("The Coca-Cola Company") == short_name("Coca-Cola Company (The)") == "Coca-Cola"
    assert short_name("Apple Inc.") == "Apple" and short_name("Abbott Laboratories") == "Abbott Laboratories"


def test_names_as_people_type_them_joined_mixed_case_and_without_an_ampersand():
    """A name's ampersand between letters left out ("ATT", "AT and T"), a capital anywhere in the first word
    ("nVidia"), leading words written as one ("BristolMyers"), a possessive after two leading words ("Bristol
    Myers's"); a ticker starts with a capital ("JnJ"), so "mRNA" is no ticker."""
    vocab = Vocabulary(names={}, generic=frozenset({"bristol", "myers"}), common=frozenset(),
                       filing_words=frozenset())
    idx = EntityIndex(vocab=vocab)
    for name, ticker in (("AT&T", "T"), ("NVIDIA Corp", "NVDA"), ("Bristol Myers Squibb", "BMY"),
                         ("Johnson & Johnson", "JNJ"), ("Moderna", "MRNA"), ("Pfizer", "PFE")):
        idx.add(name, ticker)
    idx.finish()

    def found(question):
        return [e.name for e in idx.find(question)]

    assert found("What was ATT's revenue?") == found("What did AT and T report?") == ["AT&T"]
    assert found("What was nVidia's revenue?") == ["NVIDIA Corp"]
    assert found("What did BristolMyers report?") == found("Bristol Myers's margin") == ["Bristol Myers Squibb"]
    assert found("What did JnJ report?") == ["Johnson & Johnson"]
    assert found("What did Pfizer say about mRNA vaccines?") == ["Pfizer"]
    assert found("Our att table and bristolmyers") == []  # lower case names nothing where capitals are used
    assert found("att revenue 2023 and bristolmyers") == ["AT&T"]  # a question typed without capitals


def test_a_former_name_of_decades_ago_names_the_company_as_a_whole_name_only():
    """The vocabulary's ``former_names`` (each line with its source) read as EDGAR's old names: the whole
    name is the company; its words alone name nobody."""
    vocab = Vocabulary(names={}, generic=frozenset(), common=frozenset(), filing_words=frozenset(),
                       former={"VZ": ("Bell Atlantic",), "XYZ": ("Nobody Here",)})
    idx = EntityIndex(vocab=vocab)
    idx.add("Verizon", "VZ")
    add_vocabulary_names(idx)
    idx.finish()
    assert [e.name for e in idx.find("What did Bell Atlantic report in 1998?")] == ["Verizon"]
    assert idx.find("Atlantic hurricane losses") == [] and idx.find("What did Nobody Here report?") == []
    assert parse_vocabulary({"former_names": {"vz": ["Bell Atlantic"]}}).former == {"VZ": ("Bell Atlantic",)}
    with pytest.raises(VocabularyError, match="'former_names' must map"):
        parse_vocabulary({"former_names": {"VZ": []}})


def test_a_tickers_reviewed_names_stay_with_it_when_another_company_shares_a_word():
    """A former member listed first ("Raytheon Company", RTN) shares the word "Raytheon" with a reviewed
    name of RTX: RTX's names ("Raytheon Technologies") name RTX, not the company holding the word first."""
    vocab = Vocabulary(names={"RTX": ("Raytheon Technologies", "Raytheon", "Pratt & Whitney")},
                       generic=frozenset({"technologies"}), common=frozenset(), filing_words=frozenset())
    idx = EntityIndex(vocab=vocab)
    idx.add("Raytheon Company", "RTN")
    idx.add("RTX Corporation", "RTX")
    add_vocabulary_names(idx)
    idx.finish(searchable={idx.tickers["RTX"]})
    assert [e.tickers for e in idx.find("What were Raytheon Technologies' net sales in 2023?")] == \
        [frozenset({"RTX"})]
    assert [e.name for e in idx.find("Pratt & Whitney charges")] == ["RTX Corporation"]
    assert idx.entities[idx.tickers["RTN"]].tickers == frozenset({"RTN"})  # RTX's ticker not lent to RTN


def test_a_share_class_letter_names_no_company():
    """"class A common stock" is Visa's share class, not Agilent's ticker beside a filing word; the ticker
    still names its company as a possessive."""
    vocab = Vocabulary(names={}, generic=frozenset(), common=frozenset({"a", "c"}),
                       filing_words=frozenset({"common stock", "shares"}))
    idx = EntityIndex(vocab=vocab)
    for name, ticker in (("Agilent Technologies", "A"), ("Visa", "V"), ("Citigroup", "C")):
        idx.add(name, ticker)
    idx.finish()
    assert [e.name for e in idx.find("How much did Visa spend repurchasing class A common stock?")] == ["Visa"]
    assert [e.name for e in idx.find("Citigroup's Series C shares")] == ["Citigroup"]
    assert [e.name for e in idx.find("A's common stock in 2023")] == ["Agilent Technologies"]


def test_a_companys_own_names_as_written_not_its_brands():
    """What the lexical query leaves out (``query.plan.lexical_query``): the company's own name, a leading
    part of it, a name it filed under or its ticker as written; a brand says what is asked about and stays."""
    idx = _index()
    assert idx.own_names("What did Procter & Gamble's 10-K say?") == ["Procter & Gamble's"]
    assert idx.own_names("Walt Disney revenue and Texas Instruments margins") == ["Walt Disney", "Texas Instruments"]
    assert idx.own_names("Why did Disney's revenues rise? Smucker sales") == ["Disney's", "Smucker"]  # whole words of it
    assert idx.own_names("Google's ad revenue") == []  # a reviewed name of Alphabet, not its own
    assert idx.written("Google's ad revenue and ARKANSAS FREIGHTWAYS") == ["Google's", "ARKANSAS FREIGHTWAYS"]
    assert idx.own_names("ARKANSAS FREIGHTWAYS results in 1995") == ["ARKANSAS FREIGHTWAYS"]  # EDGAR's former name


def test_a_name_the_company_filed_under_is_its_own_unless_it_is_also_a_brand():
    """``filed_names`` (and EDGAR's and the reviewed former filers' names): the company's whole, so left out
    of the search words ("Raytheon Technologies" found RTX's Raytheon segment); a filed name that is also a
    reviewed brand ("Google", the Google Inc. that filed until 2015) stays, as it says what is asked."""
    vocab = parse_vocabulary({"names": {"RTX": ["Raytheon", "Pratt & Whitney"], "GOOGL": ["Google"]},
                              "filed_names": {"RTX": ["Raytheon Technologies"]}})
    assert vocab.filed == {"RTX": ("Raytheon Technologies",)}
    assert vocab.names["RTX"] == ("Raytheon", "Pratt & Whitney", "Raytheon Technologies")  # a filed name names it
    idx = EntityIndex(vocab=vocab)
    idx.add("RTX Corporation", "RTX")
    add_directory_record(idx, {"ticker": "GOOGL", "listed_name": "Alphabet Inc.", "former_names": [
        {"name": "GOOGLE INC", "until": "2015-10-02"}]})
    add_vocabulary_names(idx)
    idx.finish()
    assert idx.own_names("What was Raytheon Technologies' total backlog in 2023?") == ["Raytheon Technologies"]
    assert idx.own_names("Raytheon sales in 2023") == []  # the segment, a brand: what is asked about
    assert idx.own_names("Pratt & Whitney's operating profit") == []
    assert idx.own_names("Google's ad revenue") == []  # filed under it once, a brand now


def test_a_business_names_its_company_as_a_whole_name_and_beside_a_filer_of_that_name():
    """``business_names``: "Ford Credit" names Ford and "Credit" nobody; a business that filed under its own
    name before it was acquired ("Whole Foods Market", its own entity from the universe) names both, the one
    with documents answers, and the one without is no unindexed subject of the question."""
    vocab = Vocabulary(names={}, generic=frozenset({"market", "foods"}), common=frozenset({"ford"}),
                       filing_words=frozenset(),
                       businesses={"F": ("Ford Credit",), "AMZN": ("Whole Foods Market", "Whole Foods")})
    idx = EntityIndex(vocab=vocab)
    for name, ticker in (("Whole Foods Market", "WFM"), ("Ford Motor Company", "F"), ("Amazon", "AMZN")):
        idx.add(name, ticker)
    add_vocabulary_names(idx)
    idx.finish(searchable={idx.tickers["F"], idx.tickers["AMZN"]})
    assert [e.name for e in idx.find("Ford Credit earnings before taxes 2023")] == ["Ford Motor Company"]
    assert idx.own_names("Ford Credit earnings before taxes 2023") == ["Ford"]  # who; "Credit" is what is asked
    assert idx.own_names("What was Whole Foods' revenue in 2023?") == []  # no word of Amazon's own name
    assert idx.find("Credit losses rose in 2023.") == []
    # typed without capitals, a reviewed whole name of two words or more still names its company
    assert [e.name for e in idx.find("ford credit ebt 2023")] == ["Ford Motor Company"]
    assert idx.find("credit losses rose in 2023") == []
    assert [e.name for e in idx.find("What was Whole Foods' revenue in 2023?")] == ["Amazon"]
    assert idx.unindexed("What was Whole Foods' revenue in 2023?") == []  # Amazon's filings answer it
    assert [w for w, _ in idx.ambiguous("Whole Foods Market revenue")] == ["Whole Foods Market"]
    assert parse_vocabulary({"business_names": {"f": ["Ford Credit"]}}).businesses == {"F": ("Ford Credit",)}


def test_a_common_word_name_before_a_reported_figure_names_its_company():
    """The terse form opens a sentence, where a capital says nothing: "Apple net income 2023" names Apple;
    "Apple trees" and "Target price" stay words."""
    vocab = Vocabulary(names={}, generic=frozenset(), common=frozenset({"apple", "target", "visa"}),
                       filing_words=frozenset(), figure_words=frozenset({"net", "revenue", "sales"}))
    idx = _built(vocab, (("Apple Inc.", "AAPL"), ("Target Corporation", "TGT"), ("Visa Inc.", "V")))

    def found(question):
        return _found(idx, question)

    assert found("Apple net income 2023") == ["Apple Inc."] and found("Visa revenue, last three years?") == ["Visa Inc."]
    assert found("Target net sales fiscal 2023") == ["Target Corporation"]
    assert found("Apple trees bloom.") == [] and found("Target price of the stock?") == []
    assert found("Target sales of 5% a year are common.") == ["Target Corporation"]  # a period: the figure's
    assert found("Target sales of 5% are common.") == []  # no period named: a figure's word alone is not enough
    assert parse_vocabulary({"figure_words": ["Revenue"]}).figure_words == frozenset({"revenue"})


def test_a_question_typed_without_capitals_reads_names_in_lower_case():
    """"nvidia revenue 2023": a whole name or a ticker of three letters or more names its company in lower case;
    a common word, a word of a name, a name that is a word in lower case ("gap") and a two-letter ticker only
    beside a filing word or before a reported figure (a search box's first word: within three words); a name that is a phrase first ("waste management")
    never; a question with capitals anywhere reads lower case as words."""
    vocab = Vocabulary(names={"XOM": ("Exxon",), "IBM": ("Red Hat",), "PG": ("P&G",)},
                       generic=frozenset({"waste", "management"}),
                       common=frozenset({"apple", "on"}),
                       filing_words=frozenset({"10 k"}), figure_words=frozenset({"revenue", "net"}),
                       phrases=frozenset({"wastemanagement"}), lower_words=frozenset({"gap"}),
                       places=frozenset({"lasvegas"}))
    idx = _built(vocab, (("NVIDIA Corporation", "NVDA"), ("Apple Inc.", "AAPL"), ("The Gap, Inc.", "GAP"),
                         ("General Electric", "GE"), ("Waste Management", "WM"), ("ON Semiconductor", "ON"),
                         ("Exxon Mobil", "XOM"), ("Colgate-Palmolive", "CL"), ("IBM", "IBM"),
                         ("Bristol-Myers Squibb", "BMY"), ("Las Vegas Sands", "LVS"), ("Procter & Gamble", "PG")))
    add_vocabulary_names(idx)
    idx.finish()

    def found(question):
        return _found(idx, question)

    assert found("how much did nvidia spend on r&d in 2022?") == ["NVIDIA Corporation"]
    assert found("exxon mobil capex 2023") == ["Exxon Mobil"] and found("aapl and xom buybacks") == ["Apple Inc.", "Exxon Mobil"]
    assert found("apple's revenue in 2023") == ["Apple Inc."] and found("apple orchards in 2023") == []
    # a search box's first word, a segment's words before the figure; not mid-sentence, nor with no period
    assert found("apple services revenue fy24") == ["Apple Inc."] and found("apple services revenue") == []
    assert found("what apple orchards revenue in 2023") == [] and found("apple orchards and pears net 2023") == []
    assert found("gap net sales 2023") == ["The Gap, Inc."] and found("the gap between 2022 and 2023") == []
    assert found("ge revenue 2023") == found("ge's backlog") == ["General Electric"] and found("ge and the plan") == []
    assert found("exxon revenue 2023") == ["Exxon Mobil"] and found("the exxon valdez") == []  # a one-word brand
    assert found("red hat subscriptions") == ["IBM"]  # a brand of two words or more reads as a whole name
    assert found("how much did p&g spend on ads") == ["Procter & Gamble"]  # an abbreviation "&" joins is no word
    # a name's two leading words, unless they are a place first ("las vegas" stays the city)
    assert found("bristol myers eliquis revenue 2023") == ["Bristol-Myers Squibb"] and found("las vegas hotels") == []
    # listed with a company named, a word that names one only with a cue is one ("apple and alphabet")
    assert found("ge, apple and nvidia capex") == ["General Electric", "Apple Inc.", "NVIDIA Corporation"]
    assert found("nvidia vs colgate") == ["NVIDIA Corporation", "Colgate-Palmolive"]
    assert found("apple orchards and nvidia") == ["NVIDIA Corporation"] and found("apple and pears") == []
    assert found("colgate revenue in 2023") == ["Colgate-Palmolive"] and found("colgate toothpaste") == []
    assert found("waste management costs at nvidia") == ["NVIDIA Corporation"]
    assert found("spend on leases in 2023") == []  # "on": a two-letter word, never ON Semiconductor
    assert found("Our nvidia table") == []  # capitals elsewhere: lower case is a word
    parsed = parse_vocabulary({"ordinary_phrases": ["Waste Management"], "lower_case_words": ["Gap"]})
    assert parsed.phrases == frozenset({"wastemanagement"}) and parsed.lower_words == frozenset({"gap"})


def test_capitalized_words_no_company_takes_are_what_a_question_naming_none_searches_for():
    """A product's name ("Humira") names no company, yet only its company's pages print it; a company's
    name, a sentence's first word, a month, a word in capitals and the reviewed words are no such word."""
    idx = _index()
    assert idx.unnamed("How much did Humira's U.S. sales fall in 2023?") == ["Humira"]
    assert idx.unnamed("What did Walt Disney say about Hulu in June 2023?") == ["Hulu"]
    assert idx.unnamed("Keytruda sales in 2023? Humira's too.") == []  # each opens its sentence
    assert idx.unnamed("What was GAAP revenue on Monday?") == []
    # the name holding such a word, as written, is what the filings that name it print
    assert idx.unnamed_runs("How much did Humira's U.S. sales fall in 2023?") == ["Humira"]
    assert idx.unnamed_runs("What did Solar Turbines sell in 2023?") == ["Solar Turbines"]
    assert idx.unnamed_runs("What did Walt Disney say about Hulu in June 2023?") == ["Hulu"]


def test_a_business_spun_off_under_its_parents_name_reads_as_the_parents_when_it_has_no_filings():
    """"GE Vernova", "Honeywell Aerospace": no filing of theirs is indexed, but their names open with the name
    of a company whose filings are, which reported them as segments; a name opening with no indexed company's
    ("Solventum") or with a word that names several ("General") has no parent."""
    idx = EntityIndex(vocab=Vocabulary(names={}, generic=frozenset({"general"}), common=frozenset(),
                                       filing_words=frozenset()))
    for name, ticker in (("GE Aerospace", "GE"), ("GE Vernova", "GEV"), ("Honeywell Technologies", "HON"),
                         ("Honeywell Aerospace", "HONA"), ("Solventum", "SOLV"), ("3M", "MMM"),
                         ("General Mills", "GIS"), ("General Motors", "GM"), ("General Dynamics", "GD")):
        idx.add(name, ticker)
    idx.finish(searchable={idx.tickers[t] for t in ("GE", "HON", "MMM", "GIS", "GM")})

    def parents(question):
        return [(written, e.name) for written, e in idx.parents(question)]

    assert parents("What were GE Vernova's orders in 2023?") == [("GE Vernova", "GE Aerospace")]
    assert parents("honeywell aerospace segment profit q2 2023") == [("honeywell aerospace", "Honeywell Technologies")]
    assert parents("Solventum sales in 2023") == parents("General Dynamics backlog in 2023") == []
    assert parents("GE Aerospace orders in 2023") == []  # indexed itself


def test_a_questions_names_are_read_once_and_read_again_after_the_index_changes():
    """Every accessor reads the question's matches; they are kept per question, and a name added (or the
    index finished again) reads them anew, so a company added later is found."""
    idx = EntityIndex(vocab=VOCAB)
    idx.add("Honeywell Technologies", "HON")
    idx.finish()
    q = "What did Gartner report for 2023?"
    assert idx.find(q) == [] and idx.written(q) == []
    assert idx._matches(q) is idx._matches(q)  # read once
    idx.add("Gartner", "IT")
    idx.finish()
    assert [e.name for e in idx.find(q)] == ["Gartner"] and idx.written(q) == ["Gartner"]
    idx.finish(searchable=set())  # no company with documents: names only
    assert idx.find(q) == [] and idx.unindexed(q)[0].name == "Gartner"


@pytest.mark.parametrize("line, ok", [
    ("FOOT LOCKER, INC.", True), ("The Coca-Cola Company", True), ("3M COMPANY", True),
    ("Commission File No. 1-10299", False), ("Commission File Number: 001-02217", False),
    ("(I.R.S. Employer Identification No.)", False), ("13-3513936", False), ("(State or other jurisdiction of", False),
])
def test_a_cover_line_reads_as_a_name_unless_it_is_another_cover_field(line, ok):
    assert reads_as_name(line) is ok


def test_names_read_off_documents_name_their_company_whatever_their_order():
    """A cover's name beats a file name's, then the name most documents give: two builds of the same documents,
    whose index rows come in another order, name the company the same (the first one added used to)."""
    said = [("FOOTLOCKER", 1, 4), ("Foot Locker, Inc.", 0, 2), ("FOOT LOCKER INC", 0, 1)]
    shown = set()
    for order in (said, said[::-1], said[1:] + said[:1]):
        idx = EntityIndex(vocab=VOCAB)
        keys = {idx.add(name, "FL", words=False, votes=votes, rank=rank) for name, rank, votes in order}
        assert len(keys) == 1
        shown.add(idx.entities[keys.pop()].name)
    assert shown == {"Foot Locker, Inc."}


def test_a_name_from_data_is_kept_over_the_documents_names():
    idx = EntityIndex(vocab=VOCAB)
    key = idx.add("Foot Locker", "FL")
    idx.add("FOOT LOCKER, INC.", "FL", words=False, votes=9)
    assert idx.entities[key].name == "Foot Locker"


def test_a_possessive_ends_a_name_unless_the_name_has_it():
    """"GE's Aerospace segment" is GE's segment, not the company named GE Aerospace; a name that carries the
    possessive itself reads across it ("McDonald's Corporation", "Dick's Sporting Goods")."""
    idx = _built(Vocabulary(names={}, generic=frozenset({"aerospace", "technologies"}), common=frozenset(),
                            filing_words=frozenset()),
                 (("GE", "GE"), ("GE Aerospace", "GEA"), ("McDonald's Corp", "MCD"), ("Dick's Sporting Goods", "DKS")))
    assert _found(idx, "What was GE's Aerospace segment profit in 2023?") == ["GE"]
    assert _found(idx, "What was GE Aerospace's revenue in 2024?") == ["GE Aerospace"]
    assert _found(idx, "What were McDonald's Corporation's revenues?") == ["McDonald's Corp"]
    assert _found(idx, "What were Dick's Sporting Goods' net sales?") == ["Dick's Sporting Goods"]
    # a corporate word opening a hyphenated compound is said of the company, not the end of its name
    assert idx.written("What were McDonald's company-operated sales in 2023?") == ["McDonald's"]
    assert idx.written("What were McDonald's Corp company-operated sales?") == ["McDonald's Corp"]


def test_a_sector_noun_in_the_singular_names_no_company_with_the_reviewed_vocabulary():
    """The reviewed list holds the singular of its sector plurals that the universe's names use: "Chemical
    Products" is Exxon Mobil's segment, not Dow (Dow Chemical) or Eastman Chemical."""
    idx = EntityIndex(vocab=company_vocabulary())
    for name, ticker in (("Exxon Mobil Corporation", "XOM"), ("Dow Chemical Company", "DOW"),
                         ("Eastman Chemical Co", "EMN"), ("Electronic Arts Inc.", "EA"), ("Ryder System Inc", "R"),
                         ("Waters Corporation", "WAT")):
        idx.add(name, ticker)
    idx.finish()
    found = [e.name for e in idx.find("What were Exxon Mobil's Chemical Products earnings in Q2 2023?")]
    assert found == ["Exxon Mobil Corporation"]
    assert [e.name for e in idx.find("How did the Electronic segment and the System segment do?")] == []
    assert [e.name for e in idx.find("What was Dow Chemical's revenue?")] == ["Dow Chemical Company"]
    assert [e.name for e in idx.find("What did Waters report for 2023?")] == ["Waters Corporation"]  # a surname


def test_a_business_name_written_after_another_company_s_name_is_that_name_s_tail():
    """"Cruise" is GM's segment (``business_names``), yet in "Carnival Cruise Line" it follows Carnival's name
    with a space alone: one proper name, Carnival's brand, so GM is not named (its pages would leak into a
    Carnival question). After a possessive, or beside the same company's name, it still names GM."""
    vocab = Vocabulary(names={}, generic=frozenset({"cruise", "line", "general", "motors"}), common=frozenset(),
                       filing_words=frozenset(), businesses={"GM": ("Cruise",)})
    idx = EntityIndex(vocab=vocab)
    for name, ticker in (("General Motors Company", "GM"), ("Carnival Corp", "CCL")):
        idx.add(name, ticker)
    add_vocabulary_names(idx)
    idx.finish(searchable={idx.tickers["GM"]})
    assert [e.name for e in idx.find("What was Cruise's EBIT-adjusted in 2023?")] == ["General Motors Company"]
    assert idx.find("What were Carnival Cruise Line's revenues?") == []  # Carnival has no documents
    assert [e.name for e in idx.unindexed("What were Carnival Cruise Line's revenues?")] == ["Carnival Corp"]
    assert [e.name for e in idx.find("Did Carnival's Cruise unit grow?")] == ["General Motors Company"]
    assert [e.name for e in idx.find("What did GM Cruise lose in 2023?")] == ["General Motors Company"]
    # an ordinary word opening the sentence, beside another company named, is the word ("cruise ships")
    assert idx.find("Cruise ship revenue at Carnival in 2023?") == []
    assert [e.name for e in idx.find("Cruise losses in 2023?")] == ["General Motors Company"]
    assert [e.name for e in idx.find("Cruise's losses at GM in 2023?")] == ["General Motors Company"]
