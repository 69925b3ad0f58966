"""The Python binding as an external target of the Go conformance suite
(conformance/external.go): reads {"id", "request": base64} lines on stdin,
answers {"id", "output": base64} per line on stdout, request bytes unchanged.

    go test ./conformance -target "python=bindings/python/.venv/bin/python bindings/python/tests/batch.py"
"""

import base64
import json
import sys

import toolerr

for line in sys.stdin:
    if line.strip():
        m = json.loads(line)
        out = toolerr.invoke_bytes(base64.b64decode(m["request"]))
        print(json.dumps({"id": m["id"], "output": base64.b64encode(out).decode()}), flush=False)
