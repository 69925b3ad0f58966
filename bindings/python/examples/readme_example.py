import toolerr

# A tool's HTTP call failed: classify it, then tell Claude in its own wire shape.
err = toolerr.classify_http(429, {"retry-after": "7"}, tool="get_weather")
print(err.code, err.retryable, err.details["retry_after_seconds"])
[msg] = toolerr.to_anthropic([toolerr.Outcome("toolu_01", "get_weather", error=err)])
print(msg["content"][0]["type"], msg["content"][0]["is_error"])
try:
    toolerr.invoke({"op": "no_such_op"})
except toolerr.ToolerrError as e:
    print(e.code, e.details["path"])
