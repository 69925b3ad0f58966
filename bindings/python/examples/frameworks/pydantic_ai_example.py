"""toolerr in pydantic-ai: seed 000's search tool (503, 503, then 400) in an agent run with Claude."""
import sys

import httpx
from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider

from toolerr.integrations.pydantic_ai import ToolErrors, tool
from toolerr.runtime import AsyncExecutor

base_url, search_url = sys.argv[1], sys.argv[2]  # the model API and the search service (the test's, on loopback)


async def search(q: str, max_results: int) -> str:
    """Search for flights."""
    async with httpx.AsyncClient() as http:
        r = await http.get(search_url, params={"q": q, "max_results": max_results})
        r.raise_for_status()  # the 503s are retried by the executor; the 400 reaches Claude as INVALID_ARGS
        return r.text


model = AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(base_url=base_url))  # the key: ANTHROPIC_API_KEY
agent = Agent(model, tools=[tool(search, executor=AsyncExecutor(retry={"max_attempts": 3, "base_ms": 20}))],
              capabilities=[ToolErrors()])  # also: schema failures and other tools' exceptions as envelopes
print(agent.run_sync("Flights to Lisbon?").output)
