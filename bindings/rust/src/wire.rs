//! serde types for the neutral outcome and each provider's wire messages.
//! Open shapes (content blocks, JSON results) stay `serde_json::Value`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Envelope;

/// The call an outcome answers: the provider's call id ("" where the format
/// has none) and the function name (Gemini needs it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The provider's call id.
    #[serde(default)]
    pub id: String,
    /// The function name.
    #[serde(default)]
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
}

impl Outcome {
    /// A failed call.
    pub fn failed(id: &str, name: &str, error: Envelope) -> Self {
        Outcome { call: Call { id: id.into(), name: name.into() }, error: Some(error), result: None }
    }

    /// A successful call; `result` is `{}`, `{"text": ...}`, `{"json": ...}` or `{"blocks": [...]}`.
    pub fn succeeded(id: &str, name: &str, result: Value) -> Self {
        Outcome { call: Call { id: id.into(), name: name.into() }, error: None, result: Some(result) }
    }
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
}

/// An Anthropic user message of `tool_result` blocks (`MessageParam`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnthropicMessage {
    /// Always `user`.
    pub role: String,
    /// The blocks, one per outcome.
    pub content: Vec<AnthropicToolResult>,
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
}

/// A Gemini `Part` holding a `functionResponse`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GeminiPart {
    /// The function response.
    pub function_response: GeminiFunctionResponse,
}

/// A Gemini user `Content` of `functionResponse` parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeminiContent {
    /// Always `user`.
    pub role: String,
    /// The parts, one per outcome, in call order.
    pub parts: Vec<GeminiPart>,
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
}

/// A Bedrock content block holding a `toolResult`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BedrockBlock {
    /// The tool result.
    pub tool_result: BedrockToolResult,
}

/// A Bedrock Converse user `Message` of `toolResult` blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BedrockMessage {
    /// Always `user`.
    pub role: String,
    /// The blocks, one per outcome.
    pub content: Vec<BedrockBlock>,
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
}
