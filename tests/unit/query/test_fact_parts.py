"""A part of the company named by a question (a segment, a product line) takes its own facts, not the
consolidated figure: pure functions on literal facts."""

from __future__ import annotations

from domain.text import words
from kernel.search import Hit
from query.facts import (
    breakdown_axes,
    describe,
    fact_pages,
    member_initials,
    member_words,
    member_words_as_said,
    metric_words,
    named_members,
    of_a_part,
    question_initials,
    split_by,
)
from query.pins import _whole_of_part

SEGMENT = "us-gaap:StatementBusinessSegmentsAxis=t:CommunicationsMember"
MOBILITY = "us-gaap:SubsegmentsAxis=t:MobilityMember"
OPERATING = "srt:ConsolidationItemsAxis=us-gaap:OperatingSegmentsMember"


def _fact(dimensions: list[str], display: str) -> dict:
    return {"concept": "us-gaap:OperatingIncomeLoss", "dimensions": dimensions, "fiscal_year": 2023,
            "fiscal_period": "H1", "display": display, "scale": 6, "unit": "USD"}


def test_a_members_words_and_none_for_the_members_every_segment_table_has():
    assert member_words("srt:ProductOrServiceAxis=us-gaap:ProductMember") == ("product",)
    assert member_words("srt:ProductOrServiceAxis=tsla:AutomotiveRegulatoryCreditsMember") == (
        "automot", "regulatori", "credit")
    assert member_words(OPERATING) == ()
    # the axis's role glued in lowercase is no word of the part's name ("Merck's Animal Health sales")
    assert member_words("us-gaap:StatementBusinessSegmentsAxis=mrk:AnimalHealthsegmentMember") == ("anim", "health")


def test_a_members_dotted_initials_read_as_a_questions_do():
    """``sjm:U.S.RetailPetFoodsMember`` is the part "U.S. Retail Pet Foods" names (the question's "U.S." reads
    "US"): the fact pins take its rows; a dot after a lower-case letter or a digit is no initial's."""
    pet = _fact(["us-gaap:StatementBusinessSegmentsAxis=sjm:U.S.RetailPetFoodsMember"], "441.0")
    asked = metric_words("What were the net sales of Smucker's U.S. Retail Pet Foods segment?", ["Smucker"])
    assert named_members([pet], asked) == [pet]
    assert member_words("x=gd:NonU.S.CommercialMember") == ("non", "us", "commerci")
    assert member_words("x=csco:SplunkInc.SplunkMember") == ("splunk", "inc", "splunk")


def test_a_member_whose_name_joins_words_as_questions_write_it():
    """``jnj:MedTechMember`` splits at its capitals into "Med Tech"; a question writes "MedTech", "iPhone",
    "PepsiCo" as one word: the member's pieces join where the question says the joined word, else stay apart
    ("Health Care Benefits" said in three words still names CVS's segment)."""
    medtech = _fact(["us-gaap:StatementBusinessSegmentsAxis=jnj:MedTechMember"], "30,400")
    pharma = _fact(["us-gaap:StatementBusinessSegmentsAxis=jnj:InnovativeMedicineMember"], "54,759")
    asked = metric_words("How much did Johnson & Johnson's MedTech sales grow in 2023?", ["Johnson & Johnson"])
    assert named_members([pharma, medtech], asked) == [medtech]
    assert member_words_as_said("x=aapl:IPhoneMember", set(words("iPhone net sales"))) == ("iphon",)
    assert member_words_as_said("x=pep:PepsiCoBeveragesNorthAmericaMember", set(words("PepsiCo Beverages"))) == (
        "pepsico", "beverag", "north", "america")
    assert member_words_as_said("x=cvs:HealthCareBenefitsMember", set(words("Health Care Benefits"))) == (
        "health", "care", "benefit")
    assert member_words_as_said(OPERATING, set(words("operating segments"))) == ()


def test_a_segment_whose_name_glues_a_joining_word_and_says_its_product_lines_words():
    """``tmo:LaboratoryProductsandServicesMember`` writes "and" in lower case glued to "Products": the piece
    reads as the word the question says before it; the segment's name then says the words of the Products
    and Services members too, which the fuller name said holds: its rows, not theirs. A place whose name
    ends in the letters of "and" stays whole."""
    lab = _fact(["us-gaap:StatementBusinessSegmentsAxis=tmo:LaboratoryProductsandServicesMember"], "5,831")
    services = _fact(["srt:ProductOrServiceAxis=us-gaap:ServiceMember"], "2,100")
    question = "What revenues did Thermo Fisher's Laboratory Products and Biopharma Services segment report?"
    asked = metric_words(question, ["Thermo Fisher"])
    assert member_words_as_said(lab["dimensions"][0], set(words(question))) == ("laboratori", "product", "servic")
    assert named_members([services, lab], asked) == [lab]
    assert named_members([services], metric_words("What were Thermo Fisher's services revenues?", [])) == [services]
    assert member_words_as_said("x=country:ThailandMember", set(words("Thai sales in Thailand"))) == ("thailand",)


def test_the_facts_of_the_part_the_question_names():
    mobility, total = _fact([OPERATING, SEGMENT, MOBILITY], "12,884"), _fact([OPERATING, SEGMENT], "13,300")
    facts = [total, mobility]
    assert named_members(facts, "What was Mobility operating income for the six months?") == [mobility]
    assert named_members(facts, "What was operating income of the operating segments?") == []  # generic member
    assert named_members(facts, "What was operating income?") == []


def test_a_member_the_metrics_own_words_name_is_no_part():
    """Merck's collaboration table tags Bayer's sales with a "Sales" member: "Merck's total sales" names the
    metric, not that part; a part's own name still picks its facts."""
    sales = _fact(["srt:ProductOrServiceAxis=us-gaap:SalesMember", "us-gaap:CollaborativeArrangementsAxis=mrk:BayerAGMember"], "142")
    facts = [sales]
    metric = frozenset(words("sales"))
    assert named_members(facts, "What were total sales in the second quarter?") == [sales]  # without the metric
    assert named_members(facts, "What were total sales in the second quarter?", metric) == []
    assert named_members(facts, "What were Bayer AG sales in the second quarter?", metric) == [sales]


def test_a_parts_reason_names_its_members():
    assert describe([_fact([OPERATING, SEGMENT, MOBILITY], "12,884")]) == \
        "us-gaap:OperatingIncomeLoss [Communications, Mobility] H12023 = 12,884 (x10^6 USD)"
    assert describe([_fact([], "24,000")]) == "us-gaap:OperatingIncomeLoss H12023 = 24,000 (x10^6 USD)"


def test_one_fact_page_each_when_several_companies_are_named():
    from query.pin_policy import FACT_PAGES, fact_page_limit

    assert fact_page_limit(1) == FACT_PAGES == 2 and fact_page_limit(0) == FACT_PAGES
    assert fact_page_limit(2) == fact_page_limit(3) == 1


def test_pinned_pages_run_on_only_for_one_company():
    from query.pin_policy import pins_run_on, several_companies

    assert [several_companies(n) for n in (0, 1, 2, 3)] == [False, False, True, True]
    assert pins_run_on(1) and pins_run_on(0) and not pins_run_on(2)


def test_no_facts_for_a_measure_no_statement_reports():
    """"comparable sales" is no revenue line: the question gets no fact pins, so no search runs (no backend).
    The measures are the concept map's (``unreported``), every name of them: "organic net sales" is not the
    "net sales" line, "constant currency revenues" not the revenue line."""
    from query.facts import question_facts

    assert question_facts(None, {}, "What was Lowe's comparable sales change in fiscal 2023?", ["Lowe's"], "LOW") == []
    for asked in ("What were Acme's Organic Net Sales in 2023?", "Acme constant-currency revenues, Q3 2023",
                  "What was Acme's currency-neutral revenue growth in fiscal 2024?", "Acme's order backlog in 2023",
                  "What was Acme's underwriting expense ratio?",
                  # the qualifier said after the line: the line's name alone, which stays the revenue line's term
                  "How much did Acme's net revenue grow on a currency-neutral basis in 2023?",
                  "What were Acme's revenues in constant currency terms?", "How much did Acme's sales grow organically?"):
        assert question_facts(None, {}, asked, ["Acme"], "ACME") == [], asked


def test_a_figure_asked_split_one_way_takes_that_splits_rows():
    region = "srt:StatementGeographicalAxis=srt:EuropeMember"
    for q in ("acme 2023 revenues by segment", "Acme's revenue by reportable segment?",
              "Which segment earned the most?", "How did each of its segments do?"):
        assert breakdown_axes(q) == ("StatementBusinessSegmentsAxis",), q
    assert breakdown_axes("Acme sales by region 2023") == ("StatementGeographicalAxis",)
    # the parts named as the company's ("which of Acme's regions"), or as its geographic segments
    for q in ("Which of Acme's regions grew most?", "Which of its geographic segments had the highest sales?",
              "Which of the operating regions grew fastest?", "In which geography did sales fall?",
              # a name of several words, its possessive an apostrophe alone; segments called regional
              "Which of Acme Controls' regional segments grew sales fastest?"):
        assert breakdown_axes(q) == ("StatementGeographicalAxis",), q
    assert breakdown_axes("Which of Acme's segments earned the most?") == ("StatementBusinessSegmentsAxis",)
    assert breakdown_axes("Which of the Acme Tools Company's segments earned the most?") == (
        "StatementBusinessSegmentsAxis",)
    assert breakdown_axes("revenue by product category") == ("ProductOrServiceAxis",)
    # a total, or one part named, is no split
    for q in ("What was Acme's segment revenue?", "What was Acme's Mobility segment revenue?", "Acme revenue 2023"):
        assert breakdown_axes(q) == (), q
    segment, europe, total = _fact([OPERATING, SEGMENT], "13,300"), _fact([region], "9"), _fact([], "20,000")
    assert split_by([total, segment, europe], ("StatementBusinessSegmentsAxis",)) == [segment]
    assert split_by([total, segment, europe], ("StatementGeographicalAxis",)) == [europe]
    assert split_by([total, segment], ()) == []


def test_a_part_named_with_the_companys_name():
    """"Walmart U.S. net sales": the member carries the company's name, which the question's words lose with
    the companies' names; said as one of the company's names it counts beside the part's own words ("U.S."),
    or as a name whole (a brand: "Amazon Web Services"); a member of some of a name's words ("Raytheon" of
    "Raytheon Technologies") or of the registrant's name alone (a legal entity's axis) is the company."""
    us = _fact(["us-gaap:StatementBusinessSegmentsAxis=wmt:WalmartUSSegmentMember"], "110,854")
    whole = _fact(["dei:LegalEntityAxis=wmt:WalmartMember"], "161,632")
    asked = metric_words("What were Walmart U.S. net sales in the second quarter?", ["Walmart Inc."])
    assert asked.split()[:4] == ["what", "were", "us", "net"]  # "U.S." as the member writes it
    walmart = [frozenset(words("Walmart"))]
    assert named_members([us, whole], asked) == []
    assert named_members([us, whole], asked, own=walmart, whole=frozenset(words("Walmart Inc."))) == [us]
    aws = _fact(["us-gaap:StatementBusinessSegmentsAxis=amzn:AmazonWebServicesSegmentMember"], "24,631")
    assert named_members([aws], "What was operating income in 2023?", own=[frozenset(words("Amazon Web Services"))],
                         whole=frozenset(words("Amazon.com, Inc."))) == [aws]
    raytheon = _fact(["us-gaap:StatementBusinessSegmentsAxis=rtx:RaytheonMember"], "6,565")
    assert named_members([raytheon], "What were net sales in 2023?", own=[frozenset(words("Raytheon Technologies"))],
                         whole=frozenset(words("RTX Corporation"))) == []


def test_a_part_named_by_a_business_of_the_company():
    """A segment written by the business name the company names list ("Colgate's Hill's Pet Nutrition", "RTX's
    Pratt & Whitney"): the company as a whole is its own name, the business's words name the member, all of
    them or all but one; a generic member one of them says ("Service" of "Amazon Web Services") is no part."""
    pet = _fact(["us-gaap:StatementBusinessSegmentsAxis=cl:PetNutritionMember"], "1,056")
    hills = [frozenset(words("Colgate-Palmolive")), frozenset(words("Hill's Pet Nutrition"))]
    assert named_members([pet], "What were net sales in Q2 2023?", own=hills,
                         whole=frozenset(words("Colgate-Palmolive"))) == [pet]
    assert named_members([pet], "What were net sales in Q2 2023?", own=hills,  # the business taken for the company
                         whole=frozenset(words("Colgate-Palmolive Hill's Pet Nutrition"))) == []
    pw = _fact(["us-gaap:StatementBusinessSegmentsAxis=rtx:PrattAndWhitneyMember"], "18,296")
    assert named_members([pw], "What were net sales in 2023?", own=[frozenset(words("Pratt & Whitney"))],
                         whole=frozenset(words("RTX Corporation"))) == [pw]
    service = _fact(["srt:ProductOrServiceAxis=us-gaap:ServiceMember"], "300,000")
    assert named_members([service], "What was operating income in 2023?",
                         own=[frozenset(words("Amazon Web Services"))], whole=frozenset(words("Amazon.com, Inc."))) == []


def test_a_segment_named_by_its_initials():
    """"AWS net sales", "Caterpillar's E&T segment": a question's capitals that are the initials of a segment's
    or a region's words (joining words left out) name that member; a metric's capitals ("EPS", "R&D") are no
    member's, a product line's initials are not a part, and a one-word member has no initials."""
    assert question_initials("What were AWS net sales? Caterpillar's E&T? Its EPS and R&D in Q2 2023?") == \
        frozenset({"AWS", "ET", "EPS", "RD"})
    assert member_initials("us-gaap:StatementBusinessSegmentsAxis=amzn:AmazonWebServicesSegmentMember") == "AWS"
    assert member_initials("us-gaap:StatementBusinessSegmentsAxis=hon:SafetyAndProductivitySolutionsMember") == "SPS"
    assert member_initials("us-gaap:StatementBusinessSegmentsAxis=ge:AerospaceSegmentMember") == ""
    aws = _fact(["us-gaap:StatementBusinessSegmentsAxis=amzn:AmazonWebServicesSegmentMember"], "22,140")
    asked = "What were AWS net sales in the second quarter of 2023?"
    assert named_members([aws], asked, initials=question_initials(asked)) == [aws]
    assert named_members([aws], asked) == []  # no initials read: no part named
    product = _fact(["srt:ProductOrServiceAxis=t:AmazonWebServicesMember"], "22,140")
    assert named_members([product], asked, initials=question_initials(asked)) == []  # a product line's, no part
    own = _fact(["us-gaap:StatementBusinessSegmentsAxis=x:InternationalBusinessMachinesMember"], "1")
    assert named_members([own], "IBM's revenue", initials={"IBM"},
                         whole=frozenset(words("International Business Machines"))) == []  # the company itself


def _on(page: int, period: str, display: str) -> dict:
    return {**_fact([], display), "page": page, "fiscal_period": period}


def test_a_quarters_facts_pages_keep_to_the_period_asked():
    """A 10-Q printing the quarter's statement and the six months' on different pages: the quarter's question
    takes the quarter's page, the six months' question the six months', neither the other; a period no fact
    of the year has (a balance asked "for the first half") leaves the year's facts as they were."""
    quarter, six, both = _on(2, "Q2", "962"), _on(3, "H1", "1,900"), _on(22, "Q2", "962")
    facts = [quarter, six, both, _on(22, "H1", "1,900")]
    assert [p for p, _ in fact_pages(facts, 2023, 3, ["Q2"])] == [22, 2]  # both periods' page first, as before
    assert [p for p, _ in fact_pages(facts, 2023, 3, ["H1"])] == [22, 3]
    assert fact_pages(facts, 2023, 3, ["H1"])[0][1] == [facts[3]]  # the page's facts of the period only
    assert [p for p, _ in fact_pages(facts, 2023, 3)] == [22, 2, 3]
    assert [p for p, _ in fact_pages(facts, 2023, 3, ["9M"])] == [22, 2, 3]


def test_a_parts_figure_is_read_where_no_further_axis_splits_it():
    """A segment's figure printed by the segment note (its rows split by segment alone, the reconciling axis
    aside) and again as the subtotal of a table splitting each segment by customer or into its external and
    intersegment sales: the note's page comes
    first, though the customer table prints many more of the concept's figures; the consolidated figure
    (no axis anywhere) keeps the order by figures printed."""
    customers = "us-gaap:ConcentrationRiskByTypeAxis=x:DoDMember"
    note = [{**_fact([SEGMENT, OPERATING], d), "page": 22, "fiscal_period": "Q2"} for d in ("3,216", "3,005")]
    table = [{**_fact([SEGMENT], "3,216"), "page": 13, "fiscal_period": "Q2"}] + [
        {**_fact([SEGMENT, customers], str(n)), "page": 13, "fiscal_period": "Q2"} for n in range(1, 9)]
    assert [p for p, _ in fact_pages(table + note, 2023, 2, ["Q2"])] == [22, 13]
    eliminations = "srt:ConsolidationItemsAxis=us-gaap:IntersegmentEliminationMember"
    sales = [{**_fact([SEGMENT], "4,000"), "page": 24, "fiscal_period": "Q2"}] + [
        {**_fact([SEGMENT, m], d), "page": 27, "fiscal_period": "Q2"}
        for m, d in ((OPERATING, "4,000"), (OPERATING, "3,558"), (eliminations, "(891)"), (eliminations, "(794)"))]
    assert [p for p, _ in fact_pages(sales, 2023, 2, ["Q2"])] == [24, 27]  # external and intersegment: a split
    whole = [{**_on(4, "Q2", "10,152")}, *[_on(11, "Q2", str(n)) for n in range(1, 4)]]
    assert [p for p, _ in fact_pages(whole, 2023, 2, ["Q2"])] == [11, 4]


def test_the_concepts_a_questions_words_find_and_a_lenders_reviewed_terms():
    """The best concept and those within the floor of it; a lender's and an insurer's terms reach their
    tagged concepts, and premiums written and the underwriting ratios reach none (MD&A's, untagged)."""
    from query.facts import best_concepts, synonym_terms, synonyms

    scored = [("us-gaap:GrossProfit", 10.0), ("us-gaap:GrossProfit", 9.0), ("us-gaap:Revenues", 8.5),
              ("us-gaap:CostOfRevenue", 8.0)]
    assert best_concepts(scored) == ["us-gaap:GrossProfit", "us-gaap:Revenues"]
    assert best_concepts(scored, floor=0.9) == ["us-gaap:GrossProfit"] and best_concepts([]) == []
    assert synonym_terms("What provisions for credit losses did Acme record?") == ["provision for credit losses"]
    assert "us-gaap:InterestIncomeExpenseNet" in synonyms()["net interest income"]
    untagged = synonym_terms("What were Acme's net written premiums and combined ratio?")
    assert sorted(untagged) == ["combined ratio", "written premium"] and [synonyms()[t] for t in untagged] == [(), ()]


def test_a_part_said_after_the_companys_possessive_is_a_metric_word():
    """"GE's Aerospace segment profit": the question writes the company as "GE", so "Aerospace" (also a word of
    the company's name today, GE Aerospace) is the part asked about and stays among the words facts match."""
    assert "aerospace" in metric_words("What was GE's Aerospace segment profit?", ["GE's", "GE"]).split()
    assert "aerospace" not in metric_words("What was GE's Aerospace segment profit?", ["GE Aerospace"]).split()
    from query.facts import proper_words

    assert proper_words("What was GE's Aerospace segment profit?", ["GE's"]).split() == ["what", "aerospace"]
    spent = proper_words("How much did Amazon and Alphabet each spend on property and equipment?", ["Amazon", "Alphabet"])
    assert spent.split() == ["how"]  # the metric's words name no part
    equipment = _fact(["us-gaap:PropertyPlantAndEquipmentByTypeAxis=us-gaap:PropertyAndEquipmentMember"], "1")
    assert named_members([equipment], spent) == []


def test_a_parts_figure_found_leaves_the_consolidated_statement_unpinned():
    """Colgate's Hill's Pet Nutrition net sales: the facts found are the segment's, so the income statement,
    which prints the company's net sales, gives its place to the segment's own pages; another document's
    statement, and the facts' own pins, stay."""

    def pin(doc_id: str, basis: str) -> Hit:
        return Hit(f"{doc_id}:1", 1.0, {"doc_id": doc_id, "_basis": basis, "_page": 1})

    parts = frozenset({"CL_2023Q2_10Q"})
    assert _whole_of_part(pin("CL_2023Q2_10Q", "statement"), parts)
    assert _whole_of_part(pin("CL_2023Q2_10Q", "continuation"), parts)
    assert not _whole_of_part(pin("CL_2023Q2_10Q", "fact"), parts)
    assert not _whole_of_part(pin("CL_2023_10K", "statement"), parts)
    assert not _whole_of_part(pin("CL_2023Q2_10Q", "statement"), frozenset())  # the whole's figure found


def test_a_parts_own_pages_go_above_the_facts_that_found_the_wholes_figure_alone():
    """Where the facts found the company's figure alone (no member's: ``wholes``), the part pins' pages come
    before them; the facts stay first in a document whose facts found a member's, and before other pins."""
    from query.fact_pins import FactPinned
    from query.pins import with_facts

    def pin(doc_id: str, page: int, basis: str, part: bool = False) -> Hit:
        return Hit(f"{doc_id}:{page}", 1.0, {"doc_id": doc_id, "_basis": basis, "_page": page} |
                   ({"_part": True} if part else {}))

    fact, row, statement = pin("ABT_Q", 2, "fact"), pin("ABT_Q", 23, "row", part=True), pin("ABT_Q", 5, "statement")
    pages = [h.source["_page"] for h in with_facts([statement, row], FactPinned([fact], wholes=frozenset({"ABT_Q"})))]
    assert pages == [23, 2, 5]
    pages = [h.source["_page"] for h in with_facts([statement, row], FactPinned([fact]))]  # a member's facts
    assert pages == [2, 5, 23]
    pages = [h.source["_page"] for h in with_facts([statement, row], FactPinned([fact], parts=frozenset({"ABT_Q"})))]
    assert pages == [2, 23]  # the part's facts found: the consolidated statement prints no figure asked


def test_the_table_of_the_regions_compared_goes_above_its_documents_facts():
    """"Which of Apple's geographic segments grew most?": the facts found state one region's figure each (or
    the company's), the regions' table all of them with their change, so the table comes first; in a document
    whose facts pinned nothing (a PDF), and below another document's facts, the pins keep their order."""
    from query.fact_pins import FactPinned
    from query.pins import COMPARED, with_facts

    def pin(doc_id: str, page: int, basis: str, compared: bool = False) -> Hit:
        return Hit(f"{doc_id}:{page}", 1.0, {"doc_id": doc_id, "_basis": basis, "_page": page} |
                   ({COMPARED: True} if compared else {}))

    note, table, fact = pin("AAPL_K", 47, "note"), pin("AAPL_K", 23, "row", compared=True), pin("AAPL_K", 48, "fact")
    for found in (FactPinned([fact], parts=frozenset({"AAPL_K"})), FactPinned([fact], wholes=frozenset({"AAPL_K"}))):
        assert [h.source["_page"] for h in with_facts([note, table], found)] == [23, 48, 47]
    assert [h.source["_page"] for h in with_facts([note, table], FactPinned([]))] == [47, 23]
    other = pin("MSFT_K", 30, "fact")
    assert [h.source["_page"] for h in with_facts([note, table], FactPinned([other]))] == [30, 47, 23]


def test_a_part_is_a_segments_or_a_regions_not_a_product_lines_or_a_class_of_stocks():
    """The consolidated statements print no segment's or region's row, but may print a product line's (Oracle's
    cloud services and license support) or a class of stock's (Visa's class A repurchases): only the first
    two leave the statement unpinned."""
    assert of_a_part(_fact(["us-gaap:StatementBusinessSegmentsAxis=cl:PetNutritionMember"], "1,056"))
    assert of_a_part(_fact(["srt:StatementGeographicalAxis=country:US"], "9"))
    assert not of_a_part(_fact(["srt:ProductOrServiceAxis=orcl:CloudServicesAndLicenseSupportMember"], "9,553"))
    assert not of_a_part(_fact(["us-gaap:StatementClassOfStockAxis=us-gaap:CommonClassAMember"], "4,000"))
    assert not of_a_part(_fact([], "20,000"))


def test_a_country_code_that_is_a_stop_word_names_no_part():
    """"Abbott's net sales in 2023": "in" is no country, though India's member is ``country:IN``."""
    india = _fact(["srt:StatementGeographicalAxis=country:IN"], "1,750")
    assert member_words("srt:StatementGeographicalAxis=country:IN") == ()
    assert named_members([india], "What were net sales in 2023?") == []
    assert member_words("srt:StatementGeographicalAxis=country:US") == ("us",)


def test_a_name_a_slashed_row_label_lists_names_its_member():
    """"Gardasil/Gardasil 9" names a product family's member (``GardasilGardasil9Member``) by either name: a
    question saying "Gardasil" names it though not the member's "9"; a label's name the member does not
    spell names nothing, nor a segment's slashed label ("Corporate/Other": "other" names no part)."""
    product = "srt:ProductOrServiceAxis=mrk:GardasilGardasil9Member"
    gardasil = {**_fact([product], "2,458"), "row_label": "Gardasil/Gardasil 9"}
    other = {**_fact(["srt:ProductOrServiceAxis=mrk:JanuviaMember"], "835"), "row_label": "Januvia/Janumet"}
    corporate = "us-gaap:StatementBusinessSegmentsAxis=jci:CorporateAndOtherMember"
    region = {**_fact([corporate], "786"), "row_label": "Corporate/Other"}
    asked = metric_words("What were Merck's Gardasil sales in the second quarter of 2023?", ["Merck"])
    assert named_members([gardasil, other], asked) == [gardasil]
    assert named_members([gardasil, other], metric_words("What were Merck's Janumet sales?", ["Merck"])) == []
    assert named_members([region], metric_words("What other income did Acme report?", ["Acme"])) == []


def test_a_year_asked_is_read_from_the_years_figures_not_its_quarters():
    """A 10-K printing the year's figure on its statement and each quarter's in a table of quarterly results:
    a question asking no quarter takes the statement's page, not the table's, though it prints more of the
    year's figures; the fourth quarter asked takes the table's."""
    year = [_on(50, "FY", "9,299"), _on(50, "FY", "9,509")]
    quarters = [_on(109, q, d) for q, d in (("Q1", "2,2"), ("Q2", "2,3"), ("Q3", "2,4"), ("Q4", "2,5"))]
    assert [p for p, _ in fact_pages(quarters + year, 2023, 2)] == [50]
    assert [p for p, _ in fact_pages(quarters + year, 2023, 2, ["Q4"])] == [109]


def test_a_parts_figure_comes_before_pages_printing_only_its_finer_splits():
    """A segment's year printed once as its total on a page of its products' rows and on pages of product rows
    alone: the total's page comes first, then the page of most product rows (Johnson & Johnson's Innovative
    Medicine: its product pages held more figures and were pinned before it)."""
    product = "srt:ProductOrServiceAxis=x:Product{}Member"
    rows = lambda page, n: [{**_fact([SEGMENT, product.format(i)], f"{i},1"), "page": page, "fiscal_period": "FY"}  # noqa: E731
                            for i in range(n)]
    total = {**_fact([SEGMENT], "54,759"), "page": 88, "fiscal_period": "FY"}
    pages = fact_pages(rows(86, 30) + rows(87, 20) + rows(88, 5) + [total], 2023, 2)
    assert [p for p, _ in pages] == [88, 86]
    assert pages[0][1][0] is total  # the reason names the part's own figure first


def test_the_page_most_wholly_printing_a_parts_figure_comes_first():
    """Every page prints the segment's figure beside finer splits of it: the segment note (each segment's
    revenue and its U.S. government revenue, half its figures the segment's own) comes before the tables
    splitting it by product line or customer, though they print more figures (General Dynamics' Combat
    Systems revenue in its 10-K: the revenue-by-customer table was pinned before the segment note)."""
    customer = "srt:MajorCustomersAxis=x:{}Member"
    own = lambda page: {**_fact([SEGMENT, OPERATING], "8,268"), "page": page, "fiscal_period": "FY"}  # noqa: E731
    table = lambda page, n: [own(page)] + [  # noqa: E731
        {**_fact([SEGMENT, customer.format(i)], f"{i},2"), "page": page, "fiscal_period": "FY"} for i in range(n)]
    assert [p for p, _ in fact_pages(table(65, 23) + table(63, 11) + table(80, 1), 2023, 2)] == [80, 63]


def test_one_figure_tagged_under_two_concepts_or_reprinted_counts_once():
    """RTX's geographic sales tables tag the consolidated net sales under both ``Revenues`` and
    ``RevenueFromContractWithCustomer...`` and reprint the total in each section: the income statement, printing
    the same three years once under one concept, comes first (the tables took both pins before); a margin's
    two concepts, two figures, still make a page printing both come first."""
    def on(page: int, concept: str, display: str, value: float) -> dict:
        return {**_fact([], display), "concept": concept, "page": page, "fiscal_period": "FY", "value": value,
                "fiscal_year": 2023 if display.startswith("68") else 2022}

    statement = [on(64, "us-gaap:Revenues", "68,920", 68.92), on(64, "us-gaap:Revenues", "67,074", 67.074)]
    contract = "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
    geographic = [on(109, "us-gaap:Revenues", "68,920", 68.92), on(109, contract, "68,920", 68.92),
                  on(109, "us-gaap:Revenues", "67,074", 67.074)]
    reprinted = [on(110, contract, "68,920", 68.92), on(110, contract, "67,074", 67.074)] * 3
    assert [p for p, _ in fact_pages(geographic + reprinted + statement, 2023, 2)] == [64, 109]
    margin = [on(40, "us-gaap:GrossProfit", "68,100", 68.1), on(40, "us-gaap:Revenues", "68,920", 68.92)]
    assert [p for p, _ in fact_pages(statement + margin, 2023, 1)] == [40]


def test_a_parts_organisational_word_is_left_out_like_its_segment_suffix():
    """Filers glue "Group" or "Division" to a part's name (``vz:VerizonBusinessGroupSegmentMember``,
    ``mdt:DiabetesGroupMember``) as they glue "Segment"; questions say "Verizon Business" or "Medtronic's
    Diabetes segment", so the part is named without it, and still when the question says it. A member that is
    the word alone keeps it."""
    segments = "us-gaap:StatementBusinessSegmentsAxis=vz:Verizon{}GroupSegmentMember"
    business, consumer = (_fact([OPERATING, segments.format(p)], d) for p, d in (("Business", "2,066"),
                                                                                  ("Consumer", "29,011")))
    verizon = dict(own=[frozenset(words("Verizon"))], whole=frozenset(words("Verizon Communications Inc.")))
    asked = metric_words("What was Verizon Business segment operating income in 2023?", ["Verizon"])
    assert named_members([business, consumer], asked, **verizon) == [business]
    diabetes = _fact(["us-gaap:StatementBusinessSegmentsAxis=mdt:DiabetesGroupMember"], "2,488")
    for question in ("What was Medtronic's Diabetes segment revenue?", "What did Medtronic's Diabetes Group sell?"):
        assert named_members([diabetes], metric_words(question, ["Medtronic"])) == [diabetes]
    assert member_words("us-gaap:StatementBusinessSegmentsAxis=x:GroupMember") == ("group",)
    assert member_words("srt:SubsegmentsAxis=mdt:NeuromodulationDivisionMember") == ("neuromodul",)


def test_a_tax_reconciliations_item_is_no_concept_of_the_item_itself():
    """Johnson Controls tags its restructuring and impairment costs' effect on the tax rate under a concept
    named for them (``jci:EffectiveIncomeTaxReconciliationRestructuringAndImpairmentCostsAmount``): a
    question asking the costs takes ``RestructuringCharges`` alone; one asking tax keeps both."""
    from query.facts import best_concepts

    tax_item = "jci:EffectiveIncomeTaxReconciliationRestructuringAndImpairmentCostsAmount"
    scored = [(tax_item, 10.0), ("us-gaap:RestructuringCharges", 9.0),
              ("us-gaap:EffectiveIncomeTaxRateReconciliationNondeductibleExpenseImpairmentLosses", 8.9)]
    assert best_concepts(scored) == ["us-gaap:RestructuringCharges"]
    assert best_concepts(scored, taxes=True) == [tax_item, "us-gaap:RestructuringCharges"]


def test_a_term_said_with_a_verb_of_paying_asks_what_was_paid():
    """"How much did Home Depot pay in income taxes": the cash flow statement's income taxes paid, not the
    income statement's provision; the provision asked without the verb, and a term with no paid entry as it was."""
    from query.facts import synonym_terms, synonyms

    assert synonym_terms("How much did Home Depot pay in income taxes in fiscal 2023?") == ["income taxes paid"]
    assert synonym_terms("What income taxes did Meta's parent company pay?") == ["income taxes paid"]
    assert synonym_terms("What were Apple's income taxes in 2023?") == ["income taxes"]
    assert synonym_terms("How much revenue did Apple make, and what did it pay?") == ["revenue"]
    assert synonyms()["income taxes paid"][0] == "us-gaap:IncomeTaxesPaidNet"


def test_pins_look_in_every_named_companys_document():
    from query.pin_policy import PINNED_DOCUMENTS, pinned_documents
    assert pinned_documents(0) == pinned_documents(1) == PINNED_DOCUMENTS == 2  # one company, or none named
    assert pinned_documents(3) == 3  # "Meta, Alphabet and Amazon": the third company's figure is asked too
