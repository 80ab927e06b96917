//! What a gateway says of itself as an OAuth protected resource: the
//! challenge of its 401 (`WWW-Authenticate: Bearer resource_metadata=...`,
//! RFC 9728 section 5.1, RFC 6750) and its protected-resource metadata
//! (RFC 9728), found as an MCP client finds them. The harness asks its
//! authorization server for tokens for the resource the metadata names.

use std::time::Duration;

use anyhow::{bail, Context as _};
use reqwest::header::WWW_AUTHENTICATE;
use serde_json::{json, Value};

/// What RFC 9728 puts before a resource's path for its metadata.
pub const METADATA_PREFIX: &str = "/.well-known/oauth-protected-resource";

/// How long one look at the gateway may take.
const LOOK_TIMEOUT: Duration = Duration::from_secs(10);

/// A `WWW-Authenticate` challenge: its scheme and parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    pub scheme: String,
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// Reads the first challenge of a `WWW-Authenticate` value (RFC 9110's
    /// `auth-scheme [ 1*SP auth-param *( "," auth-param ) ]`).
    pub fn parse(value: &str) -> Option<Self> {
        let value = value.trim();
        let (scheme, rest) = value.split_once(' ').unwrap_or((value, ""));
        if scheme.is_empty() {
            return None;
        }
        let mut params = Vec::new();
        let mut rest = rest.trim_start();
        while !rest.is_empty() {
            let Some((name, after)) = rest.split_once('=') else {
                break;
            };
            let name = name.trim().to_ascii_lowercase();
            let after = after.trim_start();
            let (value, left) = if let Some(quoted) = after.strip_prefix('"') {
                let mut value = String::new();
                let mut chars = quoted.char_indices();
                let mut end = quoted.len();
                while let Some((at, c)) = chars.next() {
                    match c {
                        '\\' => value.extend(chars.next().map(|(_, c)| c)),
                        '"' => {
                            end = at + 1;
                            break;
                        }
                        c => value.push(c),
                    }
                }
                (value, &quoted[end..])
            } else {
                let end = after.find(',').unwrap_or(after.len());
                (after[..end].trim().to_owned(), &after[end..])
            };
            params.push((name, value));
            rest = left.trim_start().trim_start_matches(',').trim_start();
        }
        Some(Self {
            scheme: scheme.to_owned(),
            params,
        })
    }

    /// A parameter's value, its name in any case.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn is_bearer(&self) -> bool {
        self.scheme.eq_ignore_ascii_case("Bearer")
    }
}

/// The metadata's URL derived from the endpoint's (RFC 9728 section 3.1:
/// the well-known prefix inserted before the path).
pub fn well_known_for(endpoint: &str) -> Option<String> {
    let (origin, path) = split_origin(endpoint)?;
    let path = if path == "/" { "" } else { path };
    Some(format!("{origin}{METADATA_PREFIX}{path}"))
}

/// `http://host:port` and the path of an absolute URL (without query).
fn split_origin(url: &str) -> Option<(&str, &str)> {
    let start = url.find("://")? + 3;
    let path_at = url[start..].find('/').map_or(url.len(), |at| start + at);
    let path = &url[path_at..];
    let path = path.split(['?', '#']).next().unwrap_or_default();
    Some((&url[..path_at], if path.is_empty() { "/" } else { path }))
}

/// `reference` resolved against `base`, for the relative URLs some
/// gateways write: an absolute URL as it is, an absolute path on the base's
/// origin. Anything else is taken as relative to the base's folder.
pub fn resolve(base: &str, reference: &str) -> Option<String> {
    if reference.contains("://") {
        return Some(reference.to_owned());
    }
    let (origin, path) = split_origin(base)?;
    if reference.starts_with('/') {
        return Some(format!("{origin}{reference}"));
    }
    let folder = &path[..path.rfind('/').map_or(0, |at| at + 1)];
    Some(format!("{origin}{folder}{reference}"))
}

/// The gateway's protected-resource metadata, as fetched.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// Where it was served.
    pub url: String,
    pub document: Value,
}

impl Metadata {
    /// The `resource` it names.
    pub fn resource(&self) -> Option<&str> {
        self.document.get("resource").and_then(Value::as_str)
    }

    pub fn authorization_servers(&self) -> Vec<&str> {
        strings(self.document.get("authorization_servers"))
    }

    pub fn scopes_supported(&self) -> Vec<&str> {
        strings(self.document.get("scopes_supported"))
    }
}

fn strings(value: Option<&Value>) -> Vec<&str> {
    value
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// GETs the metadata at `url`: a JSON object, or why not.
pub async fn fetch(url: &str) -> anyhow::Result<Metadata> {
    let answer = crate::wire::http_client()
        .get(url)
        .timeout(LOOK_TIMEOUT)
        .send()
        .await
        .with_context(|| format!("GET {url} failed"))?;
    let status = answer.status();
    let text = answer.text().await.unwrap_or_default();
    if !status.is_success() {
        bail!("GET {url} was answered with HTTP {}", status.as_u16());
    }
    let document: Value = serde_json::from_str(&text)
        .with_context(|| format!("GET {url} did not answer JSON: {}", excerpt(&text)))?;
    if !document.is_object() {
        bail!(
            "GET {url} answered JSON that is no object: {}",
            excerpt(&text)
        );
    }
    Ok(Metadata {
        url: url.to_owned(),
        document,
    })
}

/// What an MCP request without a token is answered: its status and
/// `WWW-Authenticate` value, if any.
pub async fn unauthenticated(endpoint: &str) -> anyhow::Result<(u16, Option<String>)> {
    let answer = crate::wire::http_client()
        .post(endpoint)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(initialize().to_string())
        .timeout(LOOK_TIMEOUT)
        .send()
        .await
        .with_context(|| format!("POST {endpoint} failed"))?;
    let challenge = answer
        .headers()
        .get(WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    Ok((answer.status().as_u16(), challenge))
}

/// An `initialize` request, as the first of a session.
pub fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "hosted-mcp-conformance", "version": env!("CARGO_PKG_VERSION")}
        }
    })
}

/// The gateway's metadata as a client finds it: where its challenge
/// points, else at the well-known URL derived from the endpoint's.
pub async fn discover(endpoint: &str) -> Option<Metadata> {
    let pointed = match unauthenticated(endpoint).await {
        Ok((_, Some(value))) => Challenge::parse(&value)
            .and_then(|c| c.param("resource_metadata").map(str::to_owned))
            .and_then(|at| resolve(endpoint, &at)),
        _ => None,
    };
    for url in pointed.into_iter().chain(well_known_for(endpoint)) {
        // Only the gateway's own host: the harness talks to nothing else.
        if split_origin(&url).map(|(o, _)| o) != split_origin(endpoint).map(|(o, _)| o) {
            continue;
        }
        if let Ok(metadata) = fetch(&url).await {
            return Some(metadata);
        }
    }
    None
}

/// The resource to ask tokens for, and the scopes: what the gateway's
/// metadata names, else its endpoint's URL and no scope.
pub async fn resource_and_scopes(endpoint: &str) -> (String, Option<String>) {
    match discover(endpoint).await {
        Some(metadata) => {
            let scopes = metadata.scopes_supported().join(" ");
            (
                metadata.resource().unwrap_or(endpoint).to_owned(),
                (!scopes.is_empty()).then_some(scopes),
            )
        }
        None => (endpoint.to_owned(), None),
    }
}

fn excerpt(text: &str) -> String {
    let cut: String = text.chars().take(300).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_challenges() {
        let c = Challenge::parse(
            r#"Bearer realm="x", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp", scope="a b", error=invalid_token"#,
        )
        .unwrap();
        assert!(c.is_bearer());
        assert_eq!(
            c.param("Resource_Metadata"),
            Some("http://h/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.param("scope"), Some("a b"));
        assert_eq!(c.param("error"), Some("invalid_token"));
        let quoted = Challenge::parse(r#"Bearer error_description="say \"no\", twice""#).unwrap();
        assert_eq!(
            quoted.param("error_description"),
            Some(r#"say "no", twice"#)
        );
        assert_eq!(Challenge::parse("Bearer").unwrap().params, []);
        assert!(Challenge::parse("  ").is_none());
    }

    #[test]
    fn derives_and_resolves_urls() {
        assert_eq!(
            well_known_for("http://127.0.0.1:8/api/mcp").as_deref(),
            Some("http://127.0.0.1:8/.well-known/oauth-protected-resource/api/mcp")
        );
        assert_eq!(
            well_known_for("http://127.0.0.1:8/").as_deref(),
            Some("http://127.0.0.1:8/.well-known/oauth-protected-resource")
        );
        assert_eq!(
            resolve("http://h:1/a/mcp", "/.well-known/x").as_deref(),
            Some("http://h:1/.well-known/x")
        );
        assert_eq!(
            resolve("http://h:1/a/mcp", "meta").as_deref(),
            Some("http://h:1/a/meta")
        );
        assert_eq!(
            resolve("http://h:1/a/mcp", "https://o/m").as_deref(),
            Some("https://o/m")
        );
    }
}
