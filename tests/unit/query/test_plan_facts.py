"""A benefit plan's figure (its discount rate, its expected return on assets) is tagged plan by plan, with no
consolidated fact: the plans' rows stand for the whole, so the operating leases' discount rate, the one
consolidated "discount rate", does not answer a pension question. The embedded engine over literal facts."""

from __future__ import annotations

from query.concepts import concept_map
from query.facts import of_plans, question_facts
from tests.index_records import ACME_10K as DOC
from tests.index_records import acme_facts_backend

PENSION = "us-gaap:RetirementPlanTypeAxis=us-gaap:PensionPlansDefinedBenefitMember"
RETIREE = "us-gaap:RetirementPlanTypeAxis=us-gaap:OtherPostretirementBenefitPlansDefinedBenefitMember"
US, FOREIGN = "us-gaap:RetirementPlanSponsorLocationAxis=country:US", \
    "us-gaap:RetirementPlanSponsorLocationAxis=us-gaap:ForeignPlanMember"
RATE = "us-gaap:DefinedBenefitPlanAssumptionsUsedCalculatingBenefitObligationDiscountRate"
ROWS = [("us-gaap:OperatingLeaseWeightedAverageDiscountRatePercent", "Weighted-average discount rate", [], "4.1%", 119),
        (RATE, "Discount rate", [PENSION, US], "5.2%", 104), (RATE, "Discount rate", [PENSION, FOREIGN], "4.4%", 104),
        (RATE, "Discount rate", [RETIREE], "5.1%", 105),
        ("us-gaap:DefinedBenefitPlanFairValueOfPlanAssets", "Fair value of plan assets",
         [PENSION, "us-gaap:DefinedBenefitPlanByPlanAssetCategoriesAxis=us-gaap:EquitySecuritiesMember"], "900", 106),
        ("us-gaap:DefinedBenefitPlanFundedStatusOfPlan", "Funded status", [PENSION], "(650)", 103),
        ("us-gaap:DefinedBenefitPlanFundedStatusOfPlan", "Funded status", [RETIREE], "(120)", 103),
        ("acme:InsuranceTrustFundedStatus", "Funded status of the captive insurance trust", [], "40", 140)]


def _found(tmp_path, question: str) -> set[tuple[str, int]]:
    backend, targets = acme_facts_backend(tmp_path, ROWS)
    return {(f["display"], f["page"]) for f in question_facts(backend, targets, question, ["Acme"], DOC, "Acme Corp")}


def test_a_plans_figure_is_read_off_the_plans_rows(tmp_path):
    assert concept_map().by_plan("What discount rate did Acme use to measure its pension benefit obligations?")
    assert not concept_map().by_plan("What discount rate did Acme use for its operating leases?")
    assert _found(tmp_path, "What discount rate did Acme use to measure its pension benefit obligations in 2023?") \
        == {("5.2%", 104), ("4.4%", 104), ("5.1%", 105)}


def test_a_retirement_plans_figure_is_read_off_the_plans_rows(tmp_path):
    """Any figure of the retirement plans ("pension", "retiree"), not only an assumption: tagged plan by plan."""
    assert _found(tmp_path, "What was the funded status of Acme's pension plans at the end of 2023?") \
        == {("(650)", 103), ("(120)", 103)}


def test_a_discount_rate_of_no_plan_is_the_consolidated_one(tmp_path):
    assert _found(tmp_path, "What weighted-average discount rate did Acme use for its operating leases in 2023?") \
        == {("4.1%", 119)}


def test_a_plans_fact_is_on_plan_axes_alone():
    assert of_plans({"dimensions": [PENSION, US]}) and of_plans({"dimensions": [RETIREE]})
    assert of_plans({"dimensions": [PENSION, US, "srt:RangeAxis=srt:MaximumMember"]})  # a range's high end
    assert not of_plans({"dimensions": []}) and not of_plans({"dimensions": ["srt:RangeAxis=srt:MinimumMember"]})
    assert not of_plans({"dimensions": [PENSION, "us-gaap:DefinedBenefitPlanByPlanAssetCategoriesAxis=x:EquityMember"]})
