"""toolerr's egress ops as an httpx transport (the wheel's ``httpx`` extra).

``EgressTransport`` (sync, an ``httpx.BaseTransport``) and
``AsyncEgressTransport`` (an ``httpx.AsyncBaseTransport``) wrap the transport
that makes the requests, so the official provider SDKs run through them by
their HTTP client option. Each SDK takes clients of its own module: openai
(3.x) and anthropic (2.x) are on ``httpx2`` (toolerr.integrations.httpx2,
the same classes built for it, the wheel's ``httpx2`` extra),
google-genai takes an ``httpx`` client::

    from toolerr.integrations import httpx as egress_httpx, httpx2 as egress_httpx2

    openai.OpenAI(http_client=httpx2.Client(transport=egress_httpx2.EgressTransport()))
    anthropic.AsyncAnthropic(http_client=httpx2.AsyncClient(transport=egress_httpx2.AsyncEgressTransport()))
    genai.Client(api_key=..., http_options=types.HttpOptions(
        httpx_client=httpx.Client(transport=egress_httpx.EgressTransport()),
        httpx_async_client=httpx.AsyncClient(transport=egress_httpx.AsyncEgressTransport())))

For each request of a provider API (``endpoint_of``: Chat Completions,
Responses, Anthropic Messages and count_tokens, Gemini generateContent and
streamGenerateContent), as docs/egress.md, "For the in-process transports",
says and the gateway (``gateway/``) does:

1. the body goes through the core's ``egress_request`` op (the format from
   the path, a Gemini model from the path): the body sent is the op's when
   it changed something, else the very bytes the SDK wrote; a body the op
   cannot read (not JSON, past the core's bounds) is sent as it came;
2. an answer of status 400-599 is rewritten by the ``egress_error`` op: the
   status kept (529 stays 529), the error body in the SDK's own shape with
   the envelope under ``error.toolerr``, ``retry-after``,
   ``retry-after-ms``, ``x-should-retry`` and ``x-toolerr-envelope``
   replacing the upstream's headers of those names (an upstream
   ``retry-after`` or ``retry-after-ms`` the op gives none for, such as
   ``-5``, ``abc`` or ``1e9``, is dropped), every other header kept; so the SDK raises its own exception class and retries by its own
   rule, once (this transport never retries);
3. a ``text/event-stream`` answer passes event by event as it arrives,
   never held for the next; an error event inside it is replaced by the
   error op's event for the client's API and reported to
   ``on_stream_error`` (default: a warning on the ``toolerr.egress``
   logger with the code and retryable), and the stream goes on;
4. a request the upstream never answered (a refused or reset connection)
   is answered by the error op in the native shape (502), so the SDK reads
   ``x-should-retry``; a timeout is the caller's own deadline
   (``httpx.Timeout``) and is raised as it came.

Every decision is the core's; this module does I/O only. Any other request
passes to the wrapped transport untouched.
"""

from __future__ import annotations

from ._common import require
from ._egress_http import Endpoint, StreamError, build, endpoint_of

_module = require("httpx", "httpx")

__all__ = ["AsyncEgressTransport", "EgressTransport", "Endpoint", "StreamError", "endpoint_of"]

#: ``EgressTransport(transport=None, *, drop_upstream_message=False, on_prepare=None,
#: on_stream_error=None, clock=time.time)``: the sync transport, over ``transport``
#: (default ``httpx.HTTPTransport()``); ``AsyncEgressTransport``: its asyncio twin.
EgressTransport, AsyncEgressTransport = build(_module)
