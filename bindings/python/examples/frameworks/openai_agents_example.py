"""toolerr in the OpenAI Agents SDK: seed 000's search tool (503, 503, then 400) inside an agent run."""
import asyncio
import sys

import httpx
from agents import Agent, OpenAIResponsesModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from toolerr.integrations.openai_agents import function_tool
from toolerr.runtime import AsyncExecutor

base_url, search_url = sys.argv[1], sys.argv[2]  # the model API and the search service (the test's, on loopback)
set_tracing_disabled(True)


@function_tool(executor=AsyncExecutor(retry={"max_attempts": 3, "base_ms": 20}))
async def search(q: str, max_results: int) -> str:
    """Search for flights."""
    async with httpx.AsyncClient() as http:
        r = await http.get(search_url, params={"q": q, "max_results": max_results})
        r.raise_for_status()  # the 503s are retried by the executor; the 400 reaches the model as INVALID_ARGS
        return r.text


model = OpenAIResponsesModel("gpt-4o", AsyncOpenAI(base_url=base_url))  # the key: OPENAI_API_KEY
agent = Agent(name="travel", instructions="Find flights.", tools=[search], model=model)
result = asyncio.run(Runner.run(agent, "Flights to Lisbon?", max_turns=6))
print(result.final_output)
