"""toolerr in LangGraph with no model API: seed 000's search tool (503, 503, then 400) in a graph's agent loop whose
model is LangChain's own GenericFakeChatModel, so it runs with the search service alone."""
import json
import sys

import httpx
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from toolerr.integrations.langgraph import handle_tool_errors, tool
from toolerr.runtime import Executor

if len(sys.argv) < 2:
    sys.exit("usage: langgraph_test_model_example.py URL (a search service: bindings/python/examples/search_service.py in the clone starts one)")
search_url = sys.argv[-1]  # the search service


def search(q: str, max_results: int) -> str:
    """Search for flights."""
    r = httpx.get(search_url, params={"q": q, "max_results": max_results})
    r.raise_for_status()  # the 503s are retried by the executor; the 400 reaches the model with status="error"
    return r.text


# The model's two turns, fixed: call search, then answer (a fake model binds no tools; the ToolNode runs them).
llm = GenericFakeChatModel(messages=iter([
    AIMessage("", tool_calls=[{"name": "search", "args": {"q": "flights", "max_results": 500}, "id": "call_1"}]),
    AIMessage("No flights: the search arguments were rejected."),
]))
tools = [tool(search, executor=Executor(retry={"max_attempts": 3, "base_ms": 20}))]
graph = StateGraph(MessagesState)
graph.add_node("model", lambda state: {"messages": [llm.invoke(state["messages"])]})
graph.add_node("tools", ToolNode(tools, handle_tool_errors=handle_tool_errors))
graph.add_edge(START, "model")
graph.add_conditional_edges("model", tools_condition)
graph.add_edge("tools", "model")
result = graph.compile().invoke({"messages": [("user", "Flights to Lisbon?")]})
[read] = [m for m in result["messages"] if isinstance(m, ToolMessage)]  # what the model read
env = json.loads(str(read.content))
print(f"the model read {env['code']} (status={read.status}), retryable: {env['retryable']}")
