"""A whole request body in, a whole request body out (the README's transcript example)."""

import toolerr

body = {
    "model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "Answer briefly.",
    "tools": [{"name": "search", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}],
    "messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "x"}}]}],
}
fixed = toolerr.repair("anthropic", body=body)  # the unanswered call gets a NO_RESULT failure
print(fixed["changes"]["synthesized"], fixed["body"]["model"], fixed["body"]["system"])
gemini = toolerr.convert(from_format="anthropic", to_format="gemini", body=fixed["body"])
print(gemini["body"]["systemInstruction"], gemini["body"]["generationConfig"])
print(gemini["notes"])
