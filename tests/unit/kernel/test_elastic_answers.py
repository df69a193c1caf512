"""Whether an engine's search answer is whole: every shard answered and the server did not time out."""

from kernel.search.elastic.backend import failed_phase, partial_reason


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


def test_a_phase_every_shard_copy_failed_is_asked_again_other_errors_are_not():
    """While a lost node's replicas are promoted, a search may fail its phase on every copy of a shard (HTTP
    500 "search_phase_execution_exception"): asked again like a partial answer. A malformed query's 400 of
    the same type, or another 500, is the caller's error at once."""

    class EngineError(Exception):
        def __init__(self, status: int, kind: str):
            super().__init__(status, kind)
            self.status_code = status

    assert "HTTP 500" in failed_phase(EngineError(500, "search_phase_execution_exception"))
    assert failed_phase(EngineError(400, "search_phase_execution_exception")) is None
    assert failed_phase(EngineError(500, "index_not_found_exception")) is None
    assert failed_phase(ValueError("search_phase_execution_exception")) is None
