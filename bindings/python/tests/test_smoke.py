"""Smoke test: the library loads and answers; errors carry the envelope."""

import toolerr


def test_version_matches_abi() -> None:
    v = toolerr.version()
    assert v["abi"] == toolerr.abi_version() == 1
    assert isinstance(v["version"], str) and v["version"]


def test_envelope_gets_registry_defaults() -> None:
    e = toolerr.envelope("TIMEOUT", "Search timed out after 10 s")
    assert e == toolerr.Envelope("TIMEOUT", "Search timed out after 10 s.", True, {}, "tool")


def test_canonicalize_sorts_keys_and_shortens_numbers() -> None:
    assert toolerr.canonicalize({"b": 1.0, "a": [2.5e30, "é"]}) == '{"a":[2.5e+30,"é"],"b":1}'


def test_toolerr_error_pickles_with_its_envelope() -> None:
    import pickle

    e = toolerr.ToolerrError(toolerr.Envelope("INVALID_INPUT", "bad.", False, {"path": "op"}, "orchestrator"))
    assert pickle.loads(pickle.dumps(e)).envelope == e.envelope
