"""toolerr.integrations.langgraph on LangGraph's own agent loop (a StateGraph
of a chat model and a ToolNode), with langchain-anthropic, langchain-openai
and langchain-google-genai sending real requests through the anthropic,
openai and google-genai SDKs to the loopback provider."""

from __future__ import annotations

import json
import warnings
from typing import Annotated, Any, Dict, List

import httpx
import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.tools import tool as lc_tool
from langchain_google_genai import ChatGoogleGenerativeAI
from langchain_openai import ChatOpenAI
from langgraph.errors import GraphRecursionError
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from loopback import Loopback, run_example, search_tool
from pydantic import Field

import toolerr
from toolerr.integrations.langgraph import handle_tool_errors, tool
from toolerr.runtime import Executor

FIVE = ["code", "details", "message", "retryable", "source"]




def model(lb: Loopback, provider: str = "anthropic") -> Any:
    if provider == "anthropic":
        return ChatAnthropic(model_name="claude-sonnet-4-5", base_url=lb.url, api_key="sk-ant-test",  # type: ignore[call-arg]
                             max_retries=0, timeout=30, stop=None)
    if provider == "openai":
        return ChatOpenAI(model="gpt-4o", base_url=lb.url + "/v1", api_key="sk-test", max_retries=0)  # type: ignore[arg-type]
    return ChatGoogleGenerativeAI(model="gemini-2.5-flash", api_key="test-key", base_url=lb.url,  # type: ignore[arg-type]
                                  max_retries=0)


def run(lb: Loopback, tools: List[Any], provider: str = "anthropic", limit: int = 12, **node: Any) -> Dict[str, Any]:
    """LangGraph's agent loop: model -> tools -> model ... until the model answers."""
    llm = model(lb, provider).bind_tools(tools)
    g = StateGraph(MessagesState)
    g.add_node("model", lambda s: {"messages": [llm.invoke(s["messages"])]})
    g.add_node("tools", ToolNode(tools, **node))
    g.add_edge(START, "model")
    g.add_conditional_edges("model", tools_condition)
    g.add_edge("tools", "model")
    out: Dict[str, Any] = g.compile().invoke({"messages": [("user", "Flights to Lisbon?")]},
                                             {"recursion_limit": limit})
    return out


def tool_results(lb: Loopback) -> List[Dict[str, Any]]:
    """The tool_result blocks of the last Anthropic request."""
    last = lb.model_requests("anthropic")[-1]
    return [b for m in last["messages"] if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_result"]


def executor() -> Executor:
    return Executor(retry={"max_attempts": 3, "base_ms": 1, "cap_ms": 2}, draw=lambda: 0.5)


def test_default_tool_node_raises_and_leaves_the_call_unanswered(loopback: Loopback) -> None:
    # Before toolerr, default ToolNode: the tool's HTTP error propagates out of the graph.
    with pytest.raises(httpx.HTTPStatusError):
        run(loopback, [lc_tool(search_tool(loopback, sync=True))])
    assert len(loopback.model_requests()) == 1 and len(loopback.searches()) == 1  # no tool_result was ever sent


def test_handle_tool_errors_true_sends_the_exception_repr_and_the_agent_loops(loopback: Loopback) -> None:
    # Before toolerr, handle_tool_errors=True: is_error is set, but the text is the exception's repr.
    with pytest.raises(GraphRecursionError):
        run(loopback, [lc_tool(search_tool(loopback, sync=True))], limit=12, handle_tool_errors=True)
    results = tool_results(loopback)
    assert all(r["is_error"] is True for r in results) and len(results) == 5
    assert results[0]["content"].startswith("Error: HTTPStatusError(\"Server error '503 Service Unavailable' for url ")
    assert results[0]["content"].endswith("\n Please fix your mistakes.")
    assert loopback.search_url in results[0]["content"]  # the tool's URL reaches the model


def test_handler_on_tool_node_sends_is_error_and_the_envelope_and_the_agent_stops(loopback: Loopback) -> None:
    out = run(loopback, [lc_tool(search_tool(loopback, sync=True))], handle_tool_errors=handle_tool_errors)
    assert out["messages"][-1].content == "stopped: INVALID_ARGS"
    results = tool_results(loopback)
    assert [r["is_error"] for r in results] == [True, True, True]
    envs = [json.loads(r["content"]) for r in results]
    assert [(e["code"], e["retryable"]) for e in envs] == [("TRANSPORT", True), ("TRANSPORT", True),
                                                          ("INVALID_ARGS", False)]
    assert all(sorted(e) == FIVE for e in envs)
    assert envs[2]["details"]["tool_message"] == "invalid argument: 'max_results' must be at most 50."


def test_tool_wrapper_with_executor_retries_silently_and_claude_reads_is_error(loopback: Loopback) -> None:
    out = run(loopback, [tool(search_tool(loopback, sync=True), executor=executor())])
    assert out["messages"][-1].content == "stopped: INVALID_ARGS"
    assert len(loopback.searches()) == 3 and len(loopback.model_requests()) == 2
    [result] = tool_results(loopback)
    assert result["is_error"] is True and result["tool_use_id"] == "toolu_01"
    env = json.loads(result["content"])
    assert sorted(env) == FIVE and (env["code"], env["retryable"], env["source"]) == ("INVALID_ARGS", False, "tool")
    assert env["details"] == {"status": 400, "tool": "search",
                              "tool_message": "invalid argument: 'max_results' must be at most 50."}
    assert result["content"] == toolerr.canonicalize(env)


def test_openai_tool_message_content_parses_as_the_envelope(loopback: Loopback) -> None:
    out = run(loopback, [tool(search_tool(loopback, sync=True), executor=executor())], provider="openai")
    assert out["messages"][-1].content == "stopped: INVALID_ARGS"
    [msg] = [m for m in loopback.model_requests("chat")[-1]["messages"] if m["role"] == "tool"]
    [parsed] = toolerr.parse("openai-chat", [msg])
    assert parsed.error is not None and parsed.error.code == "INVALID_ARGS" and sorted(json.loads(msg["content"])) == FIVE


def test_gemini_gets_the_five_fields_as_the_response_not_under_error(loopback: Loopback) -> None:
    # langchain-google-genai ignores ToolMessage.status and sends a JSON object content as the
    # functionResponse.response itself: the five fields arrive, Google's "error" key does not.
    out = run(loopback, [tool(search_tool(loopback, sync=True), executor=executor())], provider="gemini")
    assert out["messages"][-1].content == "stopped: INVALID_ARGS"
    last = loopback.model_requests("gemini")[-1]
    [resp] = [p["functionResponse"] for c in last["contents"] for p in c["parts"] if "functionResponse" in p]
    assert resp["name"] == "search"
    assert sorted(resp["response"]) == FIVE and resp["response"]["code"] == "INVALID_ARGS"
    assert "error" not in resp["response"]


def test_tool_wrapper_turns_schema_failures_into_invalid_args(loopback: Loopback) -> None:
    def search(q: str, max_results: Annotated[int, Field(le=50)]) -> str:
        """Search for flights."""
        raise AssertionError("LangChain validates the arguments before the tool runs")

    out = run(loopback, [tool(search)])
    assert out["messages"][-1].content == "stopped: INVALID_ARGS"
    [result] = tool_results(loopback)
    env = json.loads(result["content"])
    assert result["is_error"] is True and env["details"]["fields"] == ["/max_results"]
    assert env["message"].startswith("Fix the arguments for search and call the tool again: /max_results must be at most 50.")


def test_handler_turns_tool_node_validation_errors_into_invalid_args(loopback: Loopback) -> None:
    @lc_tool
    def search(q: str, max_results: Annotated[int, Field(le=50)]) -> str:
        """Search for flights."""
        raise AssertionError("ToolNode validates the arguments before the tool runs")

    with warnings.catch_warnings():
        out = run(loopback, [search], handle_tool_errors=handle_tool_errors)
    assert out["messages"][-1].content == "stopped: INVALID_ARGS"
    [result] = tool_results(loopback)
    env = json.loads(result["content"])
    assert (env["code"], env["details"]["tool"], env["details"]["fields"]) == ("INVALID_ARGS", "search", ["/max_results"])


def test_example_runs_seed_000_through_a_graph(loopback: Loopback) -> None:
    assert run_example("langgraph_example.py", loopback) == ["stopped: INVALID_ARGS"]
    [result] = tool_results(loopback)
    assert result["is_error"] is True and json.loads(result["content"])["code"] == "INVALID_ARGS"


def test_test_model_example_runs_seed_000_with_no_model_api(loopback: Loopback) -> None:
    # GenericFakeChatModel stands for the model: the search service is the only server it needs.
    assert run_example("langgraph_test_model_example.py", loopback, model_requests=0) == \
        ["the model read INVALID_ARGS (status=error), retryable: False"]
