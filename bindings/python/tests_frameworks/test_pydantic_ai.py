"""toolerr.integrations.pydantic_ai on pydantic-ai's own agent loop: its
FunctionModel for the framework's behaviour, and AnthropicModel,
OpenAIChatModel and GoogleModel sending real requests through the anthropic,
openai and google-genai SDKs to the loopback provider."""

from __future__ import annotations

import json
from typing import Annotated, Any, Dict, List

import httpx
import pytest
from loopback import Loopback, run_example, search_tool, envelope_in
from pydantic import Field
from pydantic_ai import Agent, ToolFailed, UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.google import GoogleModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.google import GoogleProvider
from pydantic_ai.providers.openai import OpenAIProvider

import toolerr
from toolerr.integrations.pydantic_ai import ToolErrors, tool
from toolerr.runtime import AsyncExecutor

FIVE = ["code", "details", "message", "retryable", "source"]




def executor() -> AsyncExecutor:
    return AsyncExecutor(retry={"max_attempts": 3, "base_ms": 1, "cap_ms": 2}, draw=lambda: 0.5)


def scripted(seen: List[ToolReturnPart]) -> FunctionModel:
    """pydantic-ai's FunctionModel playing the loopback's scripted model."""
    def respond(messages: List[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
        seen.extend(returns)
        env = envelope_in(returns[-1].content) if returns else None
        if env is not None and env["retryable"] is False:
            return ModelResponse(parts=[TextPart(f"stopped: {env['code']}")])
        if len(messages) > 12:
            return ModelResponse(parts=[TextPart("stopped: bound")])
        return ModelResponse(parts=[ToolCallPart("search", {"q": "flights", "max_results": 500})])
    return FunctionModel(respond)


def model(lb: Loopback, provider: str) -> Any:
    if provider == "anthropic":
        return AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(api_key="sk-ant-test", base_url=lb.url))
    if provider == "openai":
        return OpenAIChatModel("gpt-4o", provider=OpenAIProvider(base_url=lb.url + "/v1", api_key="sk-test"))
    return GoogleModel("gemini-2.5-flash", provider=GoogleProvider(api_key="test-key", base_url=lb.url))


def test_an_exception_in_a_tool_ends_the_run_before_toolerr(loopback: Loopback) -> None:
    seen: List[ToolReturnPart] = []
    agent = Agent(scripted(seen), tools=[search_tool(loopback)])
    with pytest.raises(httpx.HTTPStatusError):
        agent.run_sync("Flights to Lisbon?")
    assert seen == [] and len(loopback.searches()) == 1  # the model never hears of the call again


def test_failures_reach_the_model_as_failed_results_carrying_the_envelope(loopback: Loopback) -> None:
    seen: List[ToolReturnPart] = []
    agent = Agent(scripted(seen), tools=[tool(search_tool(loopback))])
    assert agent.run_sync("Flights to Lisbon?").output == "stopped: INVALID_ARGS"
    envs = [json.loads(p.content) for p in seen]
    assert [(p.outcome, e["code"]) for p, e in zip(seen, envs)] == [
        ("failed", "TRANSPORT"), ("failed", "TRANSPORT"), ("retried", "INVALID_ARGS")]  # ToolFailed, then ModelRetry
    assert all(sorted(e) == FIVE for e in envs)


def test_executor_retries_silently_and_the_model_reads_invalid_args_as_model_retry(loopback: Loopback) -> None:
    seen: List[ToolReturnPart] = []
    agent = Agent(scripted(seen), tools=[tool(search_tool(loopback), executor=executor())])
    assert agent.run_sync("Flights to Lisbon?").output == "stopped: INVALID_ARGS"
    assert len(loopback.searches()) == 3
    [only] = seen
    assert only.outcome == "retried" and json.loads(only.content)["details"]["status"] == 400


def test_invalid_args_counts_against_the_tools_retries_like_pydantic_ai_own_validation(loopback: Loopback) -> None:
    calls = []

    def respond(messages: List[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        return ModelResponse(parts=[ToolCallPart("search", {"q": "flights", "max_results": 500})])  # never corrects

    loopback.trace = [loopback.trace[2]]  # every search answers 400
    agent = Agent(FunctionModel(respond), tools=[tool(search_tool(loopback))])
    with pytest.raises(UnexpectedModelBehavior, match="exceeded max retries count of 1"):
        agent.run_sync("Flights to Lisbon?")
    assert len(calls) == 2 and len(loopback.searches()) == 2  # the loop is bounded by the tool's retries


def test_model_retry_and_tool_failed_raised_by_the_tool_pass_through(loopback: Loopback) -> None:
    seen: List[ToolReturnPart] = []

    async def search(q: str, max_results: int) -> str:
        """Search for flights."""
        raise ToolFailed("no flights on that date")

    agent = Agent(scripted(seen), tools=[tool(search, executor=executor())])
    assert agent.run_sync("Flights to Lisbon?", usage_limits=None).output == "stopped: bound"
    assert seen[0].outcome == "failed" and seen[0].content == "no flights on that date"


def test_capability_turns_schema_failures_into_invalid_args(loopback: Loopback) -> None:
    seen: List[ToolReturnPart] = []

    async def search(q: str, max_results: Annotated[int, Field(le=50)]) -> str:
        """Search for flights."""
        raise AssertionError("pydantic-ai validates the arguments before the tool runs")

    agent = Agent(scripted(seen), tools=[search], capabilities=[ToolErrors()])
    assert agent.run_sync("Flights to Lisbon?").output == "stopped: INVALID_ARGS"
    [only] = seen
    env = json.loads(only.content)
    assert only.outcome == "retried" and env["details"]["fields"] == ["/max_results"]
    assert env["message"].startswith("Fix the arguments for search and call the tool again: /max_results must be at most 50.")


def test_capability_answers_any_tools_exception(loopback: Loopback) -> None:
    seen: List[ToolReturnPart] = []
    agent = Agent(scripted(seen), tools=[search_tool(loopback)], capabilities=[ToolErrors()])
    assert agent.run_sync("Flights to Lisbon?").output == "stopped: INVALID_ARGS"
    assert [json.loads(p.content)["code"] for p in seen] == ["TRANSPORT", "TRANSPORT", "INVALID_ARGS"]


def last_tool_results(lb: Loopback) -> List[Dict[str, Any]]:
    last = lb.model_requests("anthropic")[-1]
    return [b for m in last["messages"] if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_result"]


def test_anthropic_tool_result_has_is_error_and_the_envelope(loopback: Loopback) -> None:
    agent = Agent(model(loopback, "anthropic"), tools=[tool(search_tool(loopback))])
    assert agent.run_sync("Flights to Lisbon?").output == "stopped: INVALID_ARGS"
    results = last_tool_results(loopback)
    assert [r["is_error"] for r in results] == [True, True, True]
    texts = [r["content"][0]["text"] if isinstance(r["content"], list) else r["content"] for r in results]
    assert json.loads(texts[0])["code"] == "TRANSPORT" and sorted(json.loads(texts[0])) == FIVE  # ToolFailed: the envelope alone
    env = json.loads(texts[2])  # ModelRetry: Anthropic has a native error flag, so the envelope alone too
    assert sorted(env) == FIVE and (env["code"], env["retryable"]) == ("INVALID_ARGS", False)
    assert texts[2] == toolerr.canonicalize(env)


def test_openai_tool_message_carries_the_envelope(loopback: Loopback) -> None:
    agent = Agent(model(loopback, "openai"), tools=[tool(search_tool(loopback), executor=executor())])
    assert agent.run_sync("Flights to Lisbon?").output == "stopped: INVALID_ARGS"
    [msg] = [m for m in loopback.model_requests("chat")[-1]["messages"] if m["role"] == "tool"]
    # OpenAI has no error flag, so pydantic-ai wraps a failed result as {"error": <its text>}:
    # the envelope arrives as a JSON string under "error".
    outer = json.loads(msg["content"])
    assert list(outer) == ["error"] and isinstance(outer["error"], str)
    env = json.loads(outer["error"])
    assert sorted(env) == FIVE and env["code"] == "INVALID_ARGS" and outer["error"] == toolerr.canonicalize(env)


def test_gemini_function_response_carries_the_envelope(loopback: Loopback) -> None:
    agent = Agent(model(loopback, "gemini"), tools=[tool(search_tool(loopback))])
    assert agent.run_sync("Flights to Lisbon?").output == "stopped: INVALID_ARGS"
    last = loopback.model_requests("gemini")[-1]
    resps = [p["functionResponse"] for c in last["contents"] for p in c["parts"] if "functionResponse" in p]
    assert [r["name"] for r in resps] == ["search"] * 3
    # Google's "error" key marks each failure; pydantic-ai puts the envelope's text there.
    assert all(list(r["response"]) == ["error"] and isinstance(r["response"]["error"], str) for r in resps), resps
    envs = [json.loads(r["response"]["error"]) for r in resps]
    assert [e["code"] for e in envs] == ["TRANSPORT", "TRANSPORT", "INVALID_ARGS"] and all(sorted(e) == FIVE for e in envs)


def test_example_runs_seed_000_through_an_agent(loopback: Loopback) -> None:
    assert run_example("pydantic_ai_example.py", loopback) == ["stopped: INVALID_ARGS"]
    [result] = last_tool_results(loopback)
    assert result["is_error"] is True


def test_test_model_example_runs_seed_000_with_no_model_api(loopback: Loopback) -> None:
    # FunctionModel stands for the model: the search service is the only server it needs.
    assert run_example("pydantic_ai_test_model_example.py", loopback, model_requests=0) == \
        ["the model read INVALID_ARGS (retried), retryable: False"]


def test_schema_failures_reach_the_model_as_pydantic_errors_before_toolerr(loopback: Loopback) -> None:
    seen: List[ToolReturnPart] = []

    async def search(q: str, max_results: Annotated[int, Field(le=50)]) -> str:
        """Search for flights."""
        raise AssertionError("pydantic-ai validates the arguments before the tool runs")

    agent = Agent(scripted(seen), tools=[search])
    with pytest.raises(UnexpectedModelBehavior):  # pydantic's error list is no envelope: the model calls again
        agent.run_sync("Flights to Lisbon?")
    assert seen[0].outcome == "retried"
    [err] = seen[0].content
    assert (err["type"], err["loc"], err["msg"]) == ("less_than_equal", ["max_results"], "Input should be less than or equal to 50")
