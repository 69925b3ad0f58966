"""toolerr in LangGraph: seed 000's search tool (503, 503, then 400) in a graph's agent loop with Claude."""
import sys

import httpx
from langchain_anthropic import ChatAnthropic
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from toolerr.integrations.langgraph import handle_tool_errors, tool
from toolerr.runtime import Executor

base_url, search_url = sys.argv[1], sys.argv[2]  # the model API and the search service (the test's, on loopback)


def search(q: str, max_results: int) -> str:
    """Search for flights."""
    r = httpx.get(search_url, params={"q": q, "max_results": max_results})
    r.raise_for_status()  # the 503s are retried by the executor; the 400 reaches Claude with is_error
    return r.text


tools = [tool(search, executor=Executor(retry={"max_attempts": 3, "base_ms": 20}))]
llm = ChatAnthropic(model_name="claude-sonnet-4-5", base_url=base_url).bind_tools(tools)  # the key: ANTHROPIC_API_KEY
graph = StateGraph(MessagesState)
graph.add_node("model", lambda state: {"messages": [llm.invoke(state["messages"])]})
graph.add_node("tools", ToolNode(tools, handle_tool_errors=handle_tool_errors))  # for tools toolerr did not wrap
graph.add_edge(START, "model")
graph.add_conditional_edges("model", tools_condition)
graph.add_edge("tools", "model")
result = graph.compile().invoke({"messages": [("user", "Flights to Lisbon?")]})
print(result["messages"][-1].content)
