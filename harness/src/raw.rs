//! Raw JSON-RPC over HTTP, for protocol checks that need exact control of
//! the bytes and headers on the wire (an SDK client would smooth them over).

use std::time::Duration;

use anyhow::{anyhow, Context as _};
use reqwest::header::{HeaderMap, CONTENT_TYPE};
use serde_json::{json, Value};
use tokio::time::timeout;

use crate::client_auth::{ClientAuth, Shown};

/// The 2026-07-28 revision of MCP: no handshake, metadata on every request.
pub const MODERN: &str = "2026-07-28";
/// Time allowed for one HTTP exchange.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a request shows a bearer token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenPlace {
    /// `Authorization: Bearer` (RFC 6750 section 2.1).
    Header,
    /// The URL's `access_token` query parameter, which MCP forbids.
    Query,
}

/// One HTTP exchange: the status, headers and the JSON-RPC answer if any.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub status: u16,
    pub headers: HeaderMap,
    /// The JSON-RPC response (from a JSON body or an SSE stream), if one came.
    pub message: Option<Value>,
    /// The body as received, for messages.
    pub body: String,
}

impl Exchange {
    /// The JSON-RPC `result`, or a failure that shows what came instead.
    pub fn result(&self) -> anyhow::Result<&Value> {
        self.message
            .as_ref()
            .and_then(|m| m.get("result"))
            .ok_or_else(|| {
                anyhow!(
                    "expected a JSON-RPC result, got HTTP {}: {}",
                    self.status,
                    self.body
                )
            })
    }
}

/// A hand-driven HTTP client of one MCP endpoint, of either era.
#[derive(Debug)]
pub struct RawHttp {
    http: reqwest::Client,
    url: String,
    /// The credential the gateway wants of its clients, on every request.
    client_auth: Option<ClientAuth>,
    /// What of it the requests show (TC-PROTO-010 sends none, or a wrong one).
    shown: Shown,
    /// A bearer token the requests show in its place (MCP authorization's
    /// scenarios), and whether it goes in the query string instead.
    token: Option<(String, TokenPlace)>,
    /// The version every request announces once a handshake or discovery chose it.
    protocol: Option<String>,
    session: Option<String>,
    /// Whether `server/discover` was answered with a result.
    discovered: bool,
    next_id: u64,
    last: Option<Exchange>,
}

impl RawHttp {
    pub fn new(url: String, client_auth: Option<ClientAuth>) -> Self {
        Self {
            http: crate::wire::http_client(),
            url,
            client_auth,
            shown: Shown::Credential,
            token: None,
            protocol: None,
            session: None,
            discovered: false,
            next_id: 1,
            last: None,
        }
    }

    /// `initialize` asking for `version`, then `notifications/initialized`
    /// when it succeeded. Later requests carry the session, if one was given.
    pub async fn initialize(
        &mut self,
        version: &str,
        headers: &[(String, String)],
    ) -> anyhow::Result<&Exchange> {
        let params = json!({
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "hosted-mcp-conformance", "version": env!("CARGO_PKG_VERSION")},
        });
        let exchange = self.send("initialize", params, headers).await?;
        if let Ok(result) = exchange.result() {
            self.protocol = result["protocolVersion"].as_str().map(str::to_owned);
            self.session = exchange
                .headers
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            self.post(&note, &[], headers).await?;
        }
        Ok(self.last.insert(exchange))
    }

    /// `server/discover` as a 2026-07-28 client; later requests are
    /// self-contained 2026-07-28 requests without a session.
    pub async fn discover(&mut self, headers: &[(String, String)]) -> anyhow::Result<&Exchange> {
        self.protocol = Some(MODERN.to_owned());
        self.session = None;
        let exchange = self.send("server/discover", json!({}), headers).await?;
        self.discovered = exchange.result().is_ok();
        Ok(self.last.insert(exchange))
    }

    /// Whether the gateway answered `server/discover` (offers 2026-07-28).
    pub fn discovered(&self) -> bool {
        self.discovered
    }

    /// Any request in the era chosen so far.
    pub async fn request(
        &mut self,
        method: &str,
        params: Value,
        headers: &[(String, String)],
    ) -> anyhow::Result<&Exchange> {
        let exchange = self.send(method, params, headers).await?;
        Ok(self.last.insert(exchange))
    }

    /// Makes the requests from now on show `shown` of the client
    /// credential, where the gateway wants one.
    pub fn show(&mut self, shown: Shown) {
        self.shown = shown;
    }

    /// What of the client credential the requests show.
    pub fn shown(&self) -> Shown {
        self.shown
    }

    /// Makes the requests from now on show `token` where `place` says, in
    /// place of the client credential.
    pub fn show_token(&mut self, token: String, place: TokenPlace) {
        self.token = Some((token, place));
    }

    /// The MCP endpoint's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The latest answer to a request.
    pub fn last(&self) -> anyhow::Result<&Exchange> {
        self.last
            .as_ref()
            .context("no HTTP request has been sent in this scenario")
    }

    async fn send(
        &mut self,
        method: &str,
        mut params: Value,
        headers: &[(String, String)],
    ) -> anyhow::Result<Exchange> {
        let mut protocol_headers = Vec::new();
        if let Some(version) = &self.protocol {
            protocol_headers.push(("MCP-Protocol-Version".to_owned(), version.clone()));
        }
        if let Some(session) = &self.session {
            protocol_headers.push(("Mcp-Session-Id".to_owned(), session.clone()));
        }
        if self.protocol.as_deref() == Some(MODERN) {
            // 2026-07-28 requests name themselves in headers and carry the
            // client's identity in `_meta`, since there is no handshake.
            protocol_headers.push(("Mcp-Method".to_owned(), method.to_owned()));
            if let Some(name) = params.get("name").and_then(Value::as_str) {
                if method == "tools/call" {
                    protocol_headers.push(("Mcp-Name".to_owned(), name.to_owned()));
                }
            }
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientInfo": {"name": "hosted-mcp-conformance", "version": env!("CARGO_PKG_VERSION")},
                "io.modelcontextprotocol/clientCapabilities": {},
            });
        }
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.post(&message, &protocol_headers, headers).await
    }

    async fn post(
        &self,
        message: &Value,
        protocol: &[(String, String)],
        extra: &[(String, String)],
    ) -> anyhow::Result<Exchange> {
        let url = match &self.token {
            Some((token, TokenPlace::Query)) => format!(
                "{}{}access_token={}",
                self.url,
                if self.url.contains('?') { '&' } else { '?' },
                percent_encoding::utf8_percent_encode(token, percent_encoding::NON_ALPHANUMERIC)
            ),
            _ => self.url.clone(),
        };
        let mut request = self
            .http
            .post(&url)
            .header("Accept", "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(message.to_string());
        let mut extra = match (&self.client_auth, &self.token) {
            (Some(auth), Some(_)) => auth.showing(Shown::Nothing, extra),
            (Some(auth), None) => auth.showing(self.shown, extra),
            (None, _) => extra.to_vec(),
        };
        if let Some((token, TokenPlace::Header)) = &self.token {
            extra.retain(|(name, _)| !name.eq_ignore_ascii_case("authorization"));
            extra.insert(0, ("Authorization".to_owned(), format!("Bearer {token}")));
        }
        for (name, value) in protocol.iter().chain(&extra) {
            request = request.header(name.as_str(), value.as_str());
        }
        let id = message.get("id").cloned();
        timeout(EXCHANGE_TIMEOUT, async {
            let mut response = request.send().await.context("the HTTP request failed")?;
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let sse = headers
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("text/event-stream"));
            let mut body = Vec::new();
            // An SSE stream may stay open after the answer: stop at the answer.
            while let Some(chunk) = response
                .chunk()
                .await
                .context("reading the HTTP body failed")?
            {
                body.extend_from_slice(&chunk);
                // Only where an event may have ended: a 2 MB event comes in
                // hundreds of chunks.
                if sse
                    && chunk.contains(&b'\n')
                    && find_answer(&String::from_utf8_lossy(&body), true, id.as_ref()).is_some()
                {
                    break;
                }
            }
            let body = String::from_utf8_lossy(&body).into_owned();
            let message = find_answer(&body, sse, id.as_ref());
            Ok(Exchange {
                status,
                headers,
                message,
                body,
            })
        })
        .await
        .map_err(|_| anyhow!("no HTTP answer within {} s", EXCHANGE_TIMEOUT.as_secs()))?
    }
}

/// The JSON-RPC response to `id` in a JSON body or an SSE stream.
fn find_answer(body: &str, sse: bool, id: Option<&Value>) -> Option<Value> {
    let id = id?;
    let candidates: Vec<Value> = if sse {
        sse_data(body)
            .into_iter()
            .filter_map(|data| serde_json::from_str(&data).ok())
            .collect()
    } else {
        serde_json::from_str(body).into_iter().collect()
    };
    candidates.into_iter().find(|m| m.get("id") == Some(id))
}

/// Each SSE event's data: one event per blank-line-separated block, its
/// data lines joined.
fn sse_data(body: &str) -> Vec<String> {
    body.replace("\r\n", "\n")
        .split("\n\n")
        .map(|event| {
            event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|data| data.strip_prefix(' ').unwrap_or(data))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_answer_in_sse_and_json() {
        let sse = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n";
        assert_eq!(
            find_answer(sse, true, Some(&json!(3))),
            Some(json!({"jsonrpc":"2.0","id":3,"result":{}}))
        );
        assert_eq!(find_answer(sse, true, Some(&json!(4))), None);
        assert!(find_answer(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1}}"#,
            false,
            Some(&json!(1))
        )
        .is_some());
    }
}
