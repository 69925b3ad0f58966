"""toolerr's egress ops as an httpx2 transport (the wheel's ``httpx2`` extra):
the classes of toolerr.integrations.httpx (see its doc) built for ``httpx2``,
the module the openai (3.x) and anthropic (2.x) SDKs take clients of::

    from toolerr.integrations.httpx2 import AsyncEgressTransport, EgressTransport

    openai.OpenAI(http_client=httpx2.Client(transport=EgressTransport()))
    anthropic.AsyncAnthropic(http_client=httpx2.AsyncClient(transport=AsyncEgressTransport()))
"""

from __future__ import annotations

from ._common import require
from ._egress_http import Endpoint, StreamError, build, endpoint_of

_module = require("httpx2", "httpx2")

__all__ = ["AsyncEgressTransport", "EgressTransport", "Endpoint", "StreamError", "endpoint_of"]

#: The sync and async transports, over ``httpx2.HTTPTransport()`` and
#: ``httpx2.AsyncHTTPTransport()`` by default (options as in toolerr.integrations.httpx).
EgressTransport, AsyncEgressTransport = build(_module)
