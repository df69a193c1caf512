"""The Elasticsearch backend's partition layout on literal names: which year a row goes to, which partitions a
version holds, what a write copies or creates, and the alias moves a switch sends."""

from __future__ import annotations

from kernel.search.elastic import partitions as parts

V1, V2 = "p-passages-v20260101000000000", "p-passages-v20260102000000000"


def test_a_row_goes_to_its_fiscal_years_partition():
    assert parts.partition_key({"fiscal_year": 2023}, "fiscal_year") == "y2023"
    assert parts.partition_key({"fiscal_year": None}, "fiscal_year") == "ynone"
    assert parts.partition_key({"term": "revenue"}, None) == "ynone"
    assert parts.key_of(f"{V1}-y2021") == "y2021" and parts.key_of(V1) == "ynone"  # a pre-partition index


def test_versions_are_read_from_the_aliases_of_their_partitions():
    indices = {f"{V1}-y2021": [V1, V2], f"{V1}-y2022": [V1], f"{V2}-y2022": [V2, "p-passages"],
               "p-passages-v20251231000000000": [], "p-release-r1": ["p-release"]}
    assert parts.versions_of(indices, "p-passages") == {
        "p-passages-v20251231000000000": ["p-passages-v20251231000000000"],
        V1: [f"{V1}-y2021", f"{V1}-y2022"], V2: [f"{V1}-y2021", f"{V2}-y2022"]}


def test_a_write_copies_shared_partitions_and_creates_missing_ones_once():
    members = [f"{V1}-y2021", f"{V1}-y2022", f"{V2}-y2023"]
    copies, creates = parts.plan_writes(V2, members, {"y2022", "y2023", "y2024"})
    assert copies == [(f"{V1}-y2022", f"{V2}-y2022")] and creates == [f"{V2}-y2024"]
    assert parts.plan_writes(V2, [V1], {"ynone"}) == ([(V1, f"{V2}-ynone")], [])  # a pre-partition version
    assert parts.plan_writes(V1, members, {"y2021"}) == ([], [])


def test_an_alias_is_moved_to_exactly_the_wanted_indices():
    assert parts.alias_moves("p-passages", ["a", "b"], ["b", "c"]) == [
        {"remove": {"index": "a", "alias": "p-passages"}}, {"add": {"index": "c", "alias": "p-passages"}}]
    assert parts.alias_moves("p-passages", ["a"], ["a"]) == []
