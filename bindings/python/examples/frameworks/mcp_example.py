"""toolerr in an MCP server: seed 000's search tool (503, 503, then 400) called through an in-memory client."""
import asyncio
import sys
import urllib.parse
import urllib.request

from mcp.client import Client
from mcp.server.mcpserver import MCPServer

from toolerr.integrations.mcp import tool_errors
from toolerr.runtime import AsyncExecutor

if len(sys.argv) < 2:
    sys.exit("usage: mcp_example.py URL (a search service: bindings/python/examples/search_service.py in the clone starts one)")
search_url = sys.argv[-1]  # the search service (the test's, on loopback)
server = MCPServer("travel")


@server.tool()
@tool_errors(executor=AsyncExecutor(retry={"max_attempts": 3, "base_ms": 20}))
async def search(q: str, max_results: int) -> str:
    """Search for flights."""
    url = search_url + "?" + urllib.parse.urlencode({"q": q, "max_results": max_results})

    def get() -> str:  # urllib raises HTTPError: the 503s are retried by the executor; the 400 is the result, isError: true
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.read().decode()

    return await asyncio.to_thread(get)


async def main() -> None:
    async with Client(server) as client:  # in memory; a host would connect over stdio or HTTP
        result = await client.call_tool("search", {"q": "flights", "max_results": 500})
        print("isError:", result.is_error)
        print(result.content[0].text)  # the envelope's JSON


asyncio.run(main())
