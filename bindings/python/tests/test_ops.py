"""Every op of the core's op table (conformance/ops.json, generated from
core.Ops()) is reachable through this binding's typed API, so a new op of
the core fails here until the binding says how it is reached."""

import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[3]

# Ops a caller reaches only through toolerr.invoke(), each with its reason.
INVOKE_ONLY = {
    "args_error": "no typed wrapper yet: validation failures are handed over as a request",
    "egress_endpoint": "the egress transports (toolerr.integrations.httpx) call it to pick the requests they rewrite",
    "egress_error": "the egress transports (issue 10, part 2) wrap it; until then through invoke",
    "egress_request": "the egress transports (issue 10, part 2) wrap it; until then through invoke",
    "egress_response": "the egress transports (issue 10, part 2) wrap it; until then through invoke",
    "egress_scan": "the egress transports (toolerr.integrations.httpx) call it for each chunk of a stream",
}


def _ops_called() -> set:
    src = "".join(p.read_text() for p in (ROOT / "bindings" / "python" / "toolerr").glob("*.py"))
    return set(re.findall(r'_op\("(\w+)"', src)) | set(re.findall(r'"op": ?"(\w+)"', src)) | set(re.findall(r'op="(\w+)"', src))


def test_every_op_of_the_table_is_reachable() -> None:
    ops = json.loads((ROOT / "conformance" / "ops.json").read_text())["ops"]
    called = _ops_called()
    missing = [op for op in ops if op not in called and op not in INVOKE_ONLY]
    assert missing == [], f"ops of the core with no wrapper in the Python binding: {missing}"
    assert sorted(called - set(ops)) == [], "the binding calls ops the core does not have"
    assert all(op in ops for op in INVOKE_ONLY), "INVOKE_ONLY names an op the core does not have"
