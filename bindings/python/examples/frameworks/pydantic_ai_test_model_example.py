"""toolerr in pydantic-ai with no model API: seed 000's search tool (503, 503, then 400) in an agent run whose
model is pydantic-ai's own FunctionModel, scripted here, so it runs with the search service alone."""
import json
import sys
from typing import List

import httpx
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from toolerr.integrations.pydantic_ai import ToolErrors, tool
from toolerr.runtime import AsyncExecutor

if len(sys.argv) < 2:
    sys.exit("usage: pydantic_ai_test_model_example.py URL (a search service: bindings/python/examples/search_service.py in the clone starts one)")
search_url = sys.argv[-1]  # the search service


async def search(q: str, max_results: int) -> str:
    """Search for flights."""
    async with httpx.AsyncClient() as http:
        r = await http.get(search_url, params={"q": q, "max_results": max_results})
        r.raise_for_status()  # the 503s are retried by the executor; the 400 reaches the model as INVALID_ARGS
        return r.text


def scripted(messages: List[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The model: call search once, then say what the tool result it read was."""
    last = messages[-1]
    for part in last.parts if isinstance(last, ModelRequest) else []:
        if isinstance(part, ToolReturnPart) and part.tool_name == "search" and isinstance(part.content, str):
            env = json.loads(part.content)  # the envelope's JSON, what toolerr raised as ModelRetry
            return ModelResponse(parts=[TextPart(f"the model read {env['code']} ({part.outcome}), "
                                                 f"retryable: {env['retryable']}")])
    return ModelResponse(parts=[ToolCallPart("search", {"q": "flights", "max_results": 500})])


agent = Agent(FunctionModel(scripted), tools=[tool(search, executor=AsyncExecutor(retry={"max_attempts": 3, "base_ms": 20}))],
              capabilities=[ToolErrors()])
print(agent.run_sync("Flights to Lisbon?").output)
