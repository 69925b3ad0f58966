"""Hostile input to the binding's request builders: options that would replace
the request's own members, values nested past what can be written, requests
over the core's 32 MiB bound (refused before they are copied)."""

import tracemalloc

import pytest

import toolerr

MSGS = [{"role": "user", "content": "hi"}]
LIMIT = 32 << 20  # core.MaxRequestBytes (cshared/toolerr.h TOOLERR_MAX_REQUEST_BYTES)


@pytest.mark.parametrize("name", ["op", "raw_len"])
@pytest.mark.parametrize("fn", [toolerr.check, toolerr.repair, toolerr.trim, toolerr.normalize_ids])
def test_an_option_cannot_replace_the_requests_own_member(fn, name) -> None:
    with pytest.raises(TypeError, match=f"'{name}'"):
        fn("openai-chat", MSGS, **{name: "convert" if name == "op" else 2})
    with pytest.raises(TypeError, match=f"'{name}'"):  # with JSON text (framed by raw_len) too
        fn("openai-chat", b"[]", **{name: "convert" if name == "op" else 2})


@pytest.mark.parametrize("name", ["op", "raw_len", "from", "to"])
def test_convert_options_cannot_replace_its_members(name) -> None:
    with pytest.raises(TypeError, match=f"'{name}'"):
        toolerr.convert(MSGS, from_format="openai-chat", to_format="anthropic", **{name: "gemini"})


def test_loop_guard_members_cannot_replace_op() -> None:
    with pytest.raises(TypeError, match="'op'"):
        toolerr.loop_guard(op="version")


def test_the_options_that_are_members_still_go() -> None:
    out = toolerr.check("openai-chat", MSGS, model="gpt-4o")
    assert out == toolerr.check("openai-chat", MSGS)


def _nested(depth: int) -> list:
    v: list = []
    for _ in range(depth):
        v = [v]
    return v


@pytest.mark.parametrize("fn", [
    lambda v: toolerr.check("openai-chat", [{"role": "user", "content": v}]),
    lambda v: toolerr.invoke({"op": "canonicalize", "value": v}),
    lambda v: toolerr.canonicalize(v),
    lambda v: toolerr.envelope("TIMEOUT", "slow", details={"x": v}),
])
def test_a_value_nested_100000_deep_is_a_value_error_not_a_recursion_error(fn) -> None:
    with pytest.raises(ValueError, match="nested too deep") as e:
        fn(_nested(100_000))
    assert not isinstance(e.value, RecursionError)


def test_a_value_nested_600_deep_is_the_cores_depth_error() -> None:
    with pytest.raises(toolerr.ToolerrError) as e:
        toolerr.canonicalize(_nested(600))
    assert e.value.code == "INVALID_INPUT" and e.value.details["bound"] == "depth"


def _peak(fn) -> int:
    tracemalloc.start()
    try:
        fn()
    except toolerr.ToolerrError as e:
        err = e
    else:
        raise AssertionError("no error")
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert err.code == "INVALID_INPUT" and err.details["bound"] == "request_bytes", err.details
    return peak


def test_a_transcript_text_over_32_mib_is_refused_before_the_request_is_joined() -> None:
    text = b"[" + b" " * LIMIT + b"]"
    want = len(b'{"op":"check","format":"openai-chat","messages":') + len(text) + len(b',"raw_len":%d}' % len(text))
    with pytest.raises(toolerr.ToolerrError) as e:
        toolerr.check("openai-chat", text)
    assert e.value.details["count"] == want
    assert _peak(lambda: toolerr.check("openai-chat", text)) < 1 << 20  # the join took 32 MiB
    view = memoryview(bytearray(text))
    assert _peak(lambda: toolerr.check("openai-chat", view)) < 1 << 20  # bytes(view) took 32 MiB


def test_a_bytes_like_request_over_32_mib_is_not_copied() -> None:
    buf = bytearray(LIMIT + 1)
    assert _peak(lambda: toolerr._answer(toolerr.invoke_bytes(buf))) < 1 << 20  # tobytes() took 32 MiB
    with pytest.raises(toolerr.ToolerrError) as e:
        toolerr._answer(toolerr.invoke_bytes(memoryview(buf)))
    assert e.value.details["count"] == LIMIT + 1


@pytest.mark.parametrize("call, name", [
    (lambda: toolerr.check("openai-chat", MSGS, id_rule="anthropic"), "id_rule"),
    (lambda: toolerr.check("openai-chat", b"[]", modle="gpt-4o"), "modle"),  # with JSON text (framed) too
    (lambda: toolerr.trim("openai-chat", MSGS, max_message=1), "max_message"),
    (lambda: toolerr.convert(MSGS, from_format="openai-chat", to_format="anthropic", id_rule="x"), "id_rule"),
])
def test_a_misspelled_option_is_refused_by_name(call, name) -> None:
    # before, the core dropped it and answered with the option's default
    with pytest.raises(toolerr.ToolerrError) as e:
        call()
    assert e.value.code == "INVALID_INPUT" and e.value.details["path"] == name
    assert "is not a known member" in e.value.envelope.message
