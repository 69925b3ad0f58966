"""toolerr inside the agent frameworks: one module per framework, each an optional extra.

=====================================  ==============================  ==========================
module                                 framework (extra)               its extension point
=====================================  ==============================  ==========================
``toolerr.integrations.openai_agents``  OpenAI Agents SDK               ``failure_error_function``,
                                       (``toolerr[openai-agents]``)    ``function_tool``
``toolerr.integrations.langgraph``      LangGraph / LangChain           ``ToolNode(handle_tool_errors=)``,
                                       (``toolerr[langgraph]``)        a ``BaseTool`` wrapper
``toolerr.integrations.pydantic_ai``    pydantic-ai                     a tool function wrapper
                                       (``toolerr[pydantic-ai]``)
``toolerr.integrations.mcp``            MCP Python SDK (``MCPServer``,  a tool function wrapper
                                       FastMCP in mcp 1.x)
                                       (``toolerr[mcp]``)
``toolerr.integrations.httpx``,         httpx, httpx2: the egress ops   ``httpx.BaseTransport``,
``toolerr.integrations.httpx2``         for the provider SDKs           ``AsyncBaseTransport``
                                       (``toolerr[httpx]``,            (docs/egress.md)
                                       ``toolerr[httpx2]``)
=====================================  ==============================  ==========================

Every module has the same shape (docs/frameworks.md): a failure becomes the
core's envelope (``toolerr.classify_response`` for HTTP errors and SDK
exceptions, ``classify_exception`` for the rest, a ``ToolFailure``'s own
envelope), its canonical JSON is the text the model reads, and a tool may
run under a ``toolerr.runtime`` executor so that retryable failures are
retried before the model sees them. No module decides anything itself.

Importing ``toolerr`` or this package imports no framework; each module
imports its framework when it is imported, and says which extra to install
when the framework is missing.
"""

__all__ = ["openai_agents", "langgraph", "pydantic_ai", "mcp", "httpx", "httpx2"]
