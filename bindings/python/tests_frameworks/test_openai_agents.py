"""toolerr.integrations.openai_agents on the Agents SDK's own Runner, with the
openai SDK sending real requests to the loopback provider."""

from __future__ import annotations

import asyncio
import json
from typing import Any, List

import pytest
from agents import (Agent, MaxTurnsExceeded, OpenAIChatCompletionsModel, OpenAIResponsesModel, Runner,
                    set_tracing_disabled)
from agents import function_tool as sdk_function_tool
from agents.tool import default_tool_error_function
from loopback import Loopback, run_example, search_tool
from openai import AsyncOpenAI

import toolerr
from toolerr.integrations.openai_agents import failure_error_function, function_tool
from toolerr.runtime import AsyncExecutor

set_tracing_disabled(True)
FIVE = ["code", "details", "message", "retryable", "source"]




def run(lb: Loopback, tool: Any, *, chat: bool = False, max_turns: int = 6) -> Any:
    client = AsyncOpenAI(base_url=lb.url + "/v1", api_key="sk-test")
    model = OpenAIChatCompletionsModel("gpt-4o", client) if chat else OpenAIResponsesModel("gpt-4o", client)
    agent = Agent(name="travel", instructions="Find flights.", tools=[tool], model=model)
    return asyncio.run(Runner.run(agent, "Flights to Lisbon?", max_turns=max_turns))


def outputs(lb: Loopback) -> List[str]:
    """Every function_call_output the SDK sent, as the last request holds them."""
    last = lb.model_requests("responses")[-1]
    return [i["output"] for i in last["input"] if isinstance(i, dict) and i.get("type") == "function_call_output"]


def executor() -> AsyncExecutor:
    return AsyncExecutor(retry={"max_attempts": 3, "base_ms": 1, "cap_ms": 2}, draw=lambda: 0.5)


def test_default_failure_function_sends_please_try_again_and_the_agent_loops(loopback: Loopback) -> None:
    # Before toolerr: the SDK's default failure function, on the same 503, 503, 400 trace.
    with pytest.raises(MaxTurnsExceeded):
        run(loopback, sdk_function_tool(search_tool(loopback)), max_turns=6)
    before = default_tool_error_function(None, RuntimeError())  # type: ignore[arg-type]
    assert before == "An error occurred while running the tool. Please try again."
    assert outputs(loopback) == [before] * 5  # every failure, 503 or 400, reads the same
    # It never stops by itself: six model turns, six calls of a tool that answers 400 from the third on.
    assert len(loopback.model_requests()) == 6 and len(loopback.searches()) == 6


def test_failure_function_sends_the_envelope_and_the_agent_stops_after_the_400(loopback: Loopback) -> None:
    result = run(loopback, function_tool(search_tool(loopback)))
    assert result.final_output == "stopped: INVALID_ARGS"
    sent = [json.loads(o) for o in outputs(loopback)]
    assert [(e["code"], e["retryable"], e["details"]["status"]) for e in sent] == [
        ("TRANSPORT", True, 503), ("TRANSPORT", True, 503), ("INVALID_ARGS", False, 400)]
    assert all(sorted(e) == FIVE and e["source"] == "tool" and e["details"]["tool"] == "search" for e in sent)
    assert sent[2]["details"]["tool_message"] == "invalid argument: 'max_results' must be at most 50."
    assert outputs(loopback)[2] == toolerr.canonicalize(sent[2])  # canonical JSON, not a code fence or prose
    assert len(loopback.model_requests()) == 4


def test_executor_retries_the_503s_silently_and_the_model_reads_only_the_400(loopback: Loopback) -> None:
    result = run(loopback, function_tool(search_tool(loopback), executor=executor()))
    assert result.final_output == "stopped: INVALID_ARGS"
    assert len(loopback.searches()) == 3  # 503, 503 retried by the runtime, then the 400
    assert len(loopback.model_requests()) == 2  # the model saw one failure, and stopped
    [only] = outputs(loopback)
    env = json.loads(only)
    assert (env["code"], env["retryable"], env["source"]) == ("INVALID_ARGS", False, "tool")
    assert env["details"]["status"] == 400 and env["details"]["tool_message"].startswith("invalid argument")


def test_chat_completions_tool_message_content_parses_as_the_envelope(loopback: Loopback) -> None:
    result = run(loopback, function_tool(search_tool(loopback), executor=executor()), chat=True)
    assert result.final_output == "stopped: INVALID_ARGS"
    msgs = loopback.model_requests("chat")[-1]["messages"]
    [tool_msg] = [m for m in msgs if m["role"] == "tool"]
    assert tool_msg["tool_call_id"] == "call_1"
    [out] = toolerr.parse("openai-chat", [tool_msg])  # the core reads the failure back from the content
    assert out.error is not None and out.error.code == "INVALID_ARGS" and out.error.retryable is False


def test_an_exception_becomes_tool_error_without_its_text_or_trace(loopback: Loopback) -> None:
    @function_tool
    def search(q: str, max_results: int) -> str:
        """Search for flights."""
        raise KeyError("index 'flights' missing; api_key=sk-proj-abcdefghijklmnopqrstuvwx")

    result = run(loopback, search)
    assert result.final_output == "stopped: TOOL_ERROR"
    [only] = outputs(loopback)
    env = json.loads(only)
    assert env["code"] == "TOOL_ERROR" and env["details"]["exception_type"] == "KeyError"
    raw = json.dumps(loopback.model_requests())
    assert "sk-proj-abcdefghijklmnopqrstuvwx" not in raw and "Traceback" not in raw


def test_failure_error_function_alone_on_the_sdks_own_decorator(loopback: Loopback) -> None:
    result = run(loopback, sdk_function_tool(search_tool(loopback), failure_error_function=failure_error_function))
    assert result.final_output == "stopped: INVALID_ARGS"
    assert [json.loads(o)["code"] for o in outputs(loopback)] == ["TRANSPORT", "TRANSPORT", "INVALID_ARGS"]


def test_example_runs_seed_000_through_an_agent(loopback: Loopback) -> None:
    assert run_example("openai_agents_example.py", loopback) == ["stopped: INVALID_ARGS"]


def test_arguments_failing_the_schema_become_invalid_args_naming_the_field(loopback: Loopback) -> None:
    @function_tool
    async def search(q: int, max_results: int) -> str:  # the scripted model sends q: "flights"
        """Search for flights."""
        raise AssertionError("the SDK validates the arguments before the tool runs")

    result = run(loopback, search)
    assert result.final_output == "stopped: INVALID_ARGS", outputs(loopback)
    [only] = outputs(loopback)
    env = json.loads(only)
    # The SDK drops pydantic's error unless OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0, so no field is named.
    assert (env["code"], env["retryable"], env["details"]["fields"]) == ("INVALID_ARGS", False, [""])
    assert env["message"].startswith("Fix the arguments for search and call the tool again")
    assert loopback.searches() == []
