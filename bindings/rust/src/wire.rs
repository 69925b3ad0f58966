//! serde types for the neutral outcome and each provider's wire messages.
//! Open shapes (content blocks, JSON results) stay `serde_json::Value`, and
//! every struct keeps the members it does not name in `other`, so a value the
//! core returns deserializes whatever it holds and serializes back to the same
//! JSON (tests/typed.rs checks it on every serialize and parse fixture).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Envelope;

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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GeminiPart {
    /// The function response.
    pub function_response: GeminiFunctionResponse,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A Gemini user `Content` of `functionResponse` parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BedrockBlock {
    /// The tool result.
    pub tool_result: BedrockToolResult,
    /// Members this type does not name, kept as they came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A Bedrock Converse user `Message` of `toolResult` blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
