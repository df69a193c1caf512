"""Whether an engine's search answer is whole: every shard answered and the server did not time out."""

from kernel.search.elastic.backend import partial_reason


def test_a_whole_answer_has_no_reason():
    assert partial_reason({"timed_out": False, "_shards": {"total": 3, "successful": 3, "failed": 0}}) is None
    assert partial_reason({"hits": {"hits": []}}) is None  # an engine that leaves the header out


def test_a_missing_shard_names_the_count_and_the_first_reason():
    resp = {"_shards": {"total": 2, "successful": 1, "failed": 1,
                        "failures": [{"reason": {"type": "node_disconnected_exception", "reason": "gone"}}]}}
    assert partial_reason(resp) == "1 of 2 shards did not answer (node_disconnected_exception)"
    assert partial_reason({"_shards": {"total": 2, "failed": 2}}) == "2 of 2 shards did not answer (no reason given)"
    assert partial_reason({"_shards": {"total": 1, "failed": 1, "failures": [{"reason": "busy"}]}}) == \
        "1 of 1 shards did not answer (busy)"


def test_a_server_timeout_is_partial():
    assert partial_reason({"timed_out": True, "_shards": {"total": 1, "failed": 0}}) == \
        "the search timed out on the server"
