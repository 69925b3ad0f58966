"""The transcript helpers take a whole request body and JSON text, and the provider table's aliases."""

import json

import pytest

import toolerr

BODY = {
    "model": "claude-sonnet-4-5", "max_tokens": 100, "system": "Be brief.", "metadata": {"user_id": "u1"},
    "tools": [{"name": "get_weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
    "messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                                                    "input": {"city": "Paris"}}]}],
}


def test_repair_takes_a_whole_body_and_keeps_every_other_member() -> None:
    r = toolerr.repair("anthropic", body=BODY)
    assert r["changes"]["synthesized"] == 1
    for k in ("model", "max_tokens", "system", "metadata", "tools"):
        assert r["body"][k] == BODY[k], k
    assert r["body"]["messages"][1]["content"][0]["is_error"] is True
    assert toolerr.check("claude", body=r["body"])["findings"] == []


def test_convert_puts_system_prompt_and_tools_in_the_targets_place() -> None:
    r = toolerr.convert(from_format="anthropic", to_format="google", body=BODY)
    assert r["body"]["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert r["body"]["tools"][0]["functionDeclarations"][0]["name"] == "get_weather"
    assert r["body"]["generationConfig"] == {"maxOutputTokens": 100}
    assert any("metadata" in n for n in r["notes"])


def test_trim_and_normalize_ids_take_a_whole_body() -> None:
    assert toolerr.trim("anthropic", body=BODY, max_messages=5)["body"]["model"] == "claude-sonnet-4-5"
    assert toolerr.normalize_ids("anthropic", body=BODY, target="mistral")["body"]["system"] == "Be brief."


def test_json_text_goes_to_the_core_unparsed() -> None:
    text = ('[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},'
            '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"real","tool_use_id":"toolu_X"}]}]')
    assert len(json.loads(text)[1]["content"][0]) == 3  # json.loads keeps the last tool_use_id silently
    with pytest.raises(toolerr.ToolerrError) as e:
        toolerr.repair("anthropic", text)
    assert e.value.code == "INVALID_INPUT" and "duplicate object key" in e.value.message
    assert toolerr.repair("anthropic", body=json.dumps(BODY).encode())["body"]["system"] == "Be brief."
    assert toolerr.check("gemini", "[]")["findings"] == []


CALL = '{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]}'


@pytest.mark.parametrize("op, key, text", [
    ("check", "messages", "[" + CALL + '],"id_rules":"mistral"'),  # a member added after the list
    ("repair", "messages", "[],\"raw_len\":2"),  # the framing forged
    ("check", "messages", "[] []"),  # two values
    ("convert", "messages", "[]x"),  # trailing bytes
    ("repair", "body", '{"messages":[]},"open_calls":["toolu_1"]'),
    ("check", "body", '{"messages":[]}}'),
])
def test_json_text_must_be_one_value_else_the_member_is_named(op: str, key: str, text: str) -> None:
    run = {"check": toolerr.check, "repair": toolerr.repair,
           "convert": lambda _f, m=None, **kw: toolerr.convert(m, from_format="anthropic", to_format="gemini", **kw)}[op]
    for given in (text, text.encode()):
        with pytest.raises(toolerr.ToolerrError) as e:
            run("anthropic", given) if key == "messages" else run("anthropic", body=given)
        assert e.value.code == "INVALID_INPUT" and e.value.details["path"] == key
        assert "must be exactly one JSON value" in e.value.message


def test_json_text_as_any_bytes_like_value_is_read_as_bytes() -> None:
    # a memoryview was list()ed: the core got its bytes as numbers ("messages[0]: must be an object, got number")
    text = ("[" + CALL + "]").encode()
    want = toolerr.check("anthropic", text)
    assert want["findings"][0]["ids"] == ["toolu_1"]
    body = b'{"messages":' + text + b"}"
    for wrap in (bytearray, memoryview, lambda b: memoryview(b"xx" + b)[2:]):
        assert toolerr.check("anthropic", wrap(text)) == want
        assert toolerr.check("anthropic", body=wrap(body)) == want
    with pytest.raises(toolerr.ToolerrError) as e:
        toolerr.check("anthropic", memoryview(text + b',"id_rules":"mistral"'))
    assert e.value.details["path"] == "messages" and "must be exactly one JSON value" in e.value.message


def test_json_text_with_white_space_and_quoted_commas_is_read_as_its_value() -> None:
    text = ' \n[' + CALL + ',{"role":"user","content":"\\",\\"id_rules\\":\\"x"}]\t '
    assert toolerr.check("anthropic", text) == toolerr.check("anthropic", json.loads(text))
    assert toolerr.check("anthropic", text)["findings"][0]["ids"] == ["toolu_1"]


def test_both_or_neither_is_a_bad_request_naming_the_member() -> None:
    with pytest.raises(toolerr.ToolerrError) as e:
        toolerr.check("anthropic", [], body=BODY)
    assert e.value.details["path"] == "body"
    with pytest.raises(toolerr.ToolerrError) as e:
        toolerr.check("anthropic")
    assert e.value.details["path"] == "messages"


def test_aliases_name_formats_everywhere() -> None:
    [m] = toolerr.serialize("openai", [toolerr.Outcome("call_1", "f", error=toolerr.envelope("TIMEOUT", "Timed out."))])
    assert m["role"] == "tool"
    assert toolerr.classify_http(503, {}, provider="google").details["provider"] == "gemini"


def test_the_readme_body_example_prints_the_documented_lines() -> None:
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "body_example.py"
    out = subprocess.run([sys.executable, str(example)], check=True, capture_output=True, text=True).stdout
    assert out.splitlines() == [
        "1 claude-sonnet-4-5 Answer briefly.",
        "{'parts': [{'text': 'Answer briefly.'}]} {'maxOutputTokens': 1024}",
        "['dropped the model parameter: gemini takes the model in the URL, not the body']",
    ]
