//! Which tools a POSTed message calls, read before rmcp reads it, so the
//! HTTP layer in front can refuse a call the agent is not allowed with a
//! status of its own (403) rather than inside MCP.

use serde::de::IgnoredAny;
use serde::Deserialize;

/// The tools the JSON-RPC message (or batch) in `body` calls. A body that
/// is not JSON-RPC calls none: rmcp refuses it on its own.
pub fn tools_called(body: &[u8]) -> Vec<String> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Posted {
        One(Message),
        Batch(Vec<Message>),
    }
    #[derive(Deserialize)]
    struct Message {
        method: Option<String>,
        params: Option<Params>,
    }
    #[derive(Deserialize)]
    struct Params {
        name: Option<String>,
        #[serde(flatten)]
        _rest: IgnoredAny,
    }
    let messages = match serde_json::from_slice::<Posted>(body) {
        Ok(Posted::One(message)) => vec![message],
        Ok(Posted::Batch(messages)) => messages,
        Err(_) => return Vec::new(),
    };
    messages
        .into_iter()
        .filter(|message| message.method.as_deref() == Some("tools/call"))
        .map(|message| {
            message
                .params
                .and_then(|params| params.name)
                .unwrap_or_default()
        })
        .collect()
}

/// How many requests the JSON-RPC message (or batch) in `body` makes:
/// messages with a method and an id, not notifications nor answers. A
/// body that is not JSON-RPC makes none: rmcp refuses it on its own.
pub fn requests_in(body: &[u8]) -> usize {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Posted {
        One(Message),
        Batch(Vec<Message>),
    }
    #[derive(Deserialize)]
    struct Message {
        method: Option<IgnoredAny>,
        id: Option<IgnoredAny>,
    }
    let is_request = |message: &Message| message.method.is_some() && message.id.is_some();
    match serde_json::from_slice::<Posted>(body) {
        Ok(Posted::One(message)) => usize::from(is_request(&message)),
        Ok(Posted::Batch(messages)) => messages.iter().filter(|m| is_request(m)).count(),
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::{requests_in, tools_called};

    #[test]
    fn counts_the_requests_not_the_notifications() {
        assert_eq!(
            requests_in(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            1
        );
        assert_eq!(
            requests_in(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            0
        );
        let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}},
            {"jsonrpc":"2.0","method":"notifications/cancelled"},
            {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"b"}}]"#;
        assert_eq!(requests_in(batch), 2);
        assert_eq!(requests_in(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#), 0);
        assert_eq!(requests_in(b"not json"), 0);
    }

    #[test]
    fn names_the_tools_a_message_or_a_batch_calls() {
        let one = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deletePet","arguments":{"petId":"1"}}}"#;
        assert_eq!(tools_called(one), ["deletePet"]);
        let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"},
            {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a"}},
            {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"b"}}]"#;
        assert_eq!(tools_called(batch), ["a", "b"]);
        assert!(tools_called(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).is_empty());
        assert!(tools_called(b"not json").is_empty());
    }

    #[test]
    fn a_call_without_a_name_is_still_a_call() {
        let nameless =
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#;
        assert_eq!(tools_called(nameless), [""]);
    }
}
