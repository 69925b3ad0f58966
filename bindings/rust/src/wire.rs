//! serde types for the neutral outcome and each provider's wire messages.
//! Open shapes (content blocks, JSON results) stay `serde_json::Value`, and
//! every struct keeps the members it does not name in `other`, so a value the
//! core returns deserializes whatever it holds and serializes back to the same
//! JSON (tests/typed.rs checks it on every serialize and parse fixture).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Envelope;

/// An object key as serde_json reads it: borrowed from the input when it
/// holds no escape, else unescaped into a string of its own.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(s.into()))
            }
            fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(s.to_owned().into()))
            }
        }
        d.deserialize_str(V)
    }
}

/// `Deserialize` for a wire struct whose `other` map keeps the members it
/// does not name: what `#[serde(flatten)]` reads, member by member as the
/// object comes (flatten first buffers the whole object as serde's generic
/// content, then reads it again: most of a typed answer's cost). `req`
/// members must be present (serde's "missing field" error), `opt` members
/// are `Option`s (absent or null: `None`); a member given twice is serde's
/// "duplicate field" error, as the derive gives.
macro_rules! deserialize_keeping_other {
    ($ty:ident { $($kind:ident $field:ident: $fty:ty = $name:literal,)* }) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str(concat!("struct ", stringify!($ty)))
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$ty, A::Error> {
                        $(let mut $field: Option<Option<$fty>> = None;)*
                        let mut other = Map::new();
                        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
                            match &*k {
                                $($name => {
                                    if $field.is_some() {
                                        return Err(serde::de::Error::duplicate_field($name));
                                    }
                                    $field = Some(deserialize_keeping_other!(@value $kind map $fty));
                                })*
                                _ => {
                                    other.insert(k.into_owned(), map.next_value::<Value>()?);
                                }
                            }
                        }
                        Ok($ty { $($field: deserialize_keeping_other!(@take $kind $field $name),)* other })
                    }
                }
                d.deserialize_map(V)
            }
        }
    };
    (@value req $map:ident $fty:ty) => { Some($map.next_value::<$fty>()?) };
    (@value opt $map:ident $fty:ty) => { $map.next_value::<Option<$fty>>()? };
    (@take req $field:ident $name:literal) => {
        $field.flatten().ok_or_else(|| serde::de::Error::missing_field($name))?
    };
    (@take opt $field:ident $name:literal) => { $field.flatten() };
}

/// The call an outcome answers: the provider's call id ("" where the format
/// has none) and the function name (Gemini needs it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The provider's call id ("" is written as no member, as the core does).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// The function name ("" is written as no member).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
}

/// One tool call and what came of it: `error` (an envelope) or `result`:
/// `{}` (empty), `{"text"}`, `{"json"}` or `{"blocks": [...]}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Outcome {
    /// The call.
    pub call: Call,
    /// The failure, when the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Envelope>,
    /// The success, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Outcome {
    /// A failed call.
    pub fn failed(id: &str, name: &str, error: Envelope) -> Self {
        Outcome { call: Call { id: id.into(), name: name.into() }, error: Some(error), ..Default::default() }
    }

    /// A successful call; `result` is `{}`, `{"text": ...}`, `{"json": ...}` or `{"blocks": [...]}`.
    pub fn succeeded(id: &str, name: &str, result: Value) -> Self {
        Outcome { call: Call { id: id.into(), name: name.into() }, result: Some(result), ..Default::default() }
    }
}

/// A message the Chat Completions serializer returns (openai-chat and
/// gemini-openai): a tool message per outcome, then, when a result holds
/// images (which tool messages cannot carry), one user message with them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OpenAIChatMessage {
    /// `role: "tool"`: the result of one call.
    Tool(OpenAIChatToolMessage),
    /// `role: "user"`: the images of the results before it.
    User(OpenAIChatUserMessage),
}

impl OpenAIChatMessage {
    /// The tool message, or None for the user message.
    pub fn as_tool(&self) -> Option<&OpenAIChatToolMessage> {
        match self {
            OpenAIChatMessage::Tool(t) => Some(t),
            OpenAIChatMessage::User(_) => None,
        }
    }
}

/// A Chat Completions user message (`ChatCompletionUserMessageParam`) with
/// content parts: the images tool results returned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenAIChatUserMessage {
    /// Always `user`.
    pub role: String,
    /// `text` and `image_url` content parts.
    pub content: Vec<Value>,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A Chat Completions tool message (`ChatCompletionToolMessageParam`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenAIChatToolMessage {
    /// Always `tool`.
    pub role: String,
    /// The id of the call answered.
    pub tool_call_id: String,
    /// The canonical envelope JSON text, or the result (text or text parts).
    pub content: Value,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A Responses API `function_call_output` input item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenAIResponsesOutput {
    /// Always `function_call_output`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The id of the call answered.
    pub call_id: String,
    /// The canonical envelope JSON text, or the result.
    pub output: Value,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// An Anthropic `tool_result` content block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnthropicToolResult {
    /// Always `tool_result`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The id of the `tool_use` answered.
    pub tool_use_id: String,
    /// A string or text/image blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Value>,
    /// `true` on every failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// An Anthropic user message of `tool_result` blocks (`MessageParam`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnthropicMessage {
    /// Always `user`.
    pub role: String,
    /// The blocks, one per outcome.
    pub content: Vec<AnthropicToolResult>,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A Gemini `FunctionResponse`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GeminiFunctionResponse {
    /// Copied only when the call had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function name.
    pub name: String,
    /// Always an object: the envelope under `error`, a success under `output`.
    pub response: Map<String, Value>,
    /// The result's images (`FunctionResponsePart` with `inlineData`), when it has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<Value>>,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A Gemini `Part` holding a `functionResponse`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GeminiPart {
    /// The function response.
    pub function_response: GeminiFunctionResponse,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A Gemini user `Content` of `functionResponse` parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GeminiContent {
    /// Always `user`.
    pub role: String,
    /// The parts, one per outcome, in call order.
    pub parts: Vec<GeminiPart>,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A Bedrock Converse `ToolResultBlock`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BedrockToolResult {
    /// The id of the `toolUse` answered.
    pub tool_use_id: String,
    /// Content blocks (`text`, `json`, `image`).
    pub content: Vec<Value>,
    /// `error` on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A Bedrock content block holding a `toolResult`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BedrockBlock {
    /// The tool result.
    pub tool_result: BedrockToolResult,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A Bedrock Converse user `Message` of `toolResult` blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BedrockMessage {
    /// Always `user`.
    pub role: String,
    /// The blocks, one per outcome.
    pub content: Vec<BedrockBlock>,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// An MCP `CallToolResult`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpCallToolResult {
    /// Content blocks (`text`, `image`).
    pub content: Vec<Value>,
    /// `true` on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// A JSON object result, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// `complete` (MCP 2026-07-28 `CallToolResult.resultType`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<String>,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

deserialize_keeping_other!(Outcome {
    req call: Call = "call",
    opt error: Envelope = "error",
    opt result: Value = "result",
});
deserialize_keeping_other!(OpenAIChatUserMessage {
    req role: String = "role",
    req content: Vec<Value> = "content",
});
deserialize_keeping_other!(OpenAIChatToolMessage {
    req role: String = "role",
    req tool_call_id: String = "tool_call_id",
    req content: Value = "content",
});
deserialize_keeping_other!(OpenAIResponsesOutput {
    req kind: String = "type",
    req call_id: String = "call_id",
    req output: Value = "output",
});
deserialize_keeping_other!(AnthropicToolResult {
    req kind: String = "type",
    req tool_use_id: String = "tool_use_id",
    opt content: Value = "content",
    opt is_error: bool = "is_error",
});
deserialize_keeping_other!(AnthropicMessage {
    req role: String = "role",
    req content: Vec<AnthropicToolResult> = "content",
});
deserialize_keeping_other!(GeminiFunctionResponse {
    opt id: String = "id",
    req name: String = "name",
    req response: Map<String, Value> = "response",
    opt parts: Vec<Value> = "parts",
});
deserialize_keeping_other!(GeminiPart {
    req function_response: GeminiFunctionResponse = "functionResponse",
});
deserialize_keeping_other!(GeminiContent {
    req role: String = "role",
    req parts: Vec<GeminiPart> = "parts",
});
deserialize_keeping_other!(BedrockToolResult {
    req tool_use_id: String = "toolUseId",
    req content: Vec<Value> = "content",
    opt status: String = "status",
});
deserialize_keeping_other!(BedrockBlock {
    req tool_result: BedrockToolResult = "toolResult",
});
deserialize_keeping_other!(BedrockMessage {
    req role: String = "role",
    req content: Vec<BedrockBlock> = "content",
});
deserialize_keeping_other!(McpCallToolResult {
    req content: Vec<Value> = "content",
    opt is_error: bool = "isError",
    opt structured_content: Value = "structuredContent",
    opt result_type: String = "resultType",
});
