//! The command template: a gateway's command line with placeholders, split
//! as a shell would, and the gateway under test as a template for each
//! transport it offers.

use std::{fmt, sync::Arc};

use anyhow::bail;

use crate::{client_auth::ClientAuth, issuer::Issuer};

/// Every placeholder a command template may hold, in the order a reader
/// meets them: the document, the upstream's base URL, the port to listen on,
/// the preparation's output folder, and for a gateway checking its clients'
/// tokens the authorization server's issuer URL, its key set's URL, and the
/// gateway's own resource URL.
pub const PLACEHOLDERS: [&str; 7] = [
    "{openapi}",
    "{base_url}",
    "{port}",
    "{prepared}",
    "{issuer}",
    "{jwks_uri}",
    "{resource}",
];

/// How the harness speaks MCP to a gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Transport {
    /// MCP Streamable HTTP at `http://127.0.0.1:{port}/mcp`.
    Http,
    /// MCP over the child's stdin and stdout.
    Stdio,
}

impl Transport {
    /// The name used in tags (`@http`, `@stdio`) and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Stdio => "stdio",
        }
    }
}

impl Transport {
    /// The transport a scenario asks for with a tag (`@http`, `@stdio`),
    /// else `default`.
    pub fn of_tags<'a>(tags: impl Iterator<Item = &'a String> + Clone, default: Self) -> Self {
        [Self::Http, Self::Stdio]
            .into_iter()
            .find(|t| tags.clone().any(|tag| tag == t.name()))
            .unwrap_or(default)
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A command line with placeholders, split into words the way a shell would
/// (quotes and backslashes respected) but run without a shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    words: Vec<String>,
    /// The path of the MCP endpoint an HTTP gateway serves.
    endpoint: String,
    /// The credential the gateway wants of its clients, if it checks them.
    client_auth: Option<ClientAuth>,
}

/// Where an HTTP gateway serves MCP unless told otherwise (`--endpoint`).
pub const DEFAULT_ENDPOINT: &str = "/mcp";

impl Template {
    /// Parses a template and checks it has the placeholders `transport` needs.
    pub fn parse(text: &str, transport: Transport) -> anyhow::Result<Self> {
        let words = split_words(text)?;
        if words.is_empty() {
            bail!("the gateway command is empty");
        }
        let mut needed = vec!["{openapi}", "{base_url}"];
        if transport == Transport::Http {
            needed.push("{port}");
        }
        for placeholder in needed {
            if !words.iter().any(|w| w.contains(placeholder)) {
                bail!("a {transport} gateway command must contain {placeholder}: `{text}`");
            }
        }
        Ok(Self {
            words,
            endpoint: DEFAULT_ENDPOINT.to_owned(),
            client_auth: None,
        })
    }

    /// The preparation step of a gateway built per document (`--prepare`):
    /// it needs `{openapi}` and `{prepared}`.
    pub fn parse_preparation(text: &str) -> anyhow::Result<Self> {
        let words = split_words(text)?;
        if words.is_empty() {
            bail!("the preparation command is empty");
        }
        for placeholder in ["{openapi}", "{prepared}"] {
            if !words.iter().any(|w| w.contains(placeholder)) {
                bail!("the preparation command must contain {placeholder}: `{text}`");
            }
        }
        Ok(Self {
            words,
            endpoint: DEFAULT_ENDPOINT.to_owned(),
            client_auth: None,
        })
    }

    /// The same command, serving MCP at `path` (`/api/mcp`) rather than
    /// [`DEFAULT_ENDPOINT`].
    pub fn at_endpoint(self, path: &str) -> anyhow::Result<Self> {
        let plain = path.starts_with('/')
            && !path.contains(['?', '#'])
            && path.chars().all(|c| c.is_ascii_graphic());
        if !plain {
            bail!("--endpoint must be a URL path such as /api/mcp (a leading '/', no query): `{path}`");
        }
        Ok(Self {
            endpoint: path.to_owned(),
            ..self
        })
    }

    /// The same command, for a gateway that lets in only clients showing
    /// `auth`'s credential. One that takes tokens of the harness's
    /// authorization server must be told where it is.
    pub fn with_client_auth(self, auth: ClientAuth) -> anyhow::Result<Self> {
        let told = |placeholder| self.words.iter().any(|w| w.contains(placeholder));
        if auth.issuer().is_some() && !told("{issuer}") && !told("{jwks_uri}") {
            bail!(
                "with --client-auth oauth the gateway command must contain {{issuer}} or \
                 {{jwks_uri}}, to be told which authorization server to trust: `{self}`"
            );
        }
        Ok(Self {
            client_auth: Some(auth),
            ..self
        })
    }

    /// The credential the gateway wants of its clients, if any.
    pub fn client_auth(&self) -> Option<&ClientAuth> {
        self.client_auth.as_ref()
    }

    /// The path of the MCP endpoint an HTTP gateway serves.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    pub(crate) fn render(&self, vars: &[(&str, &str)]) -> Vec<String> {
        self.words
            .iter()
            .map(|word| {
                vars.iter()
                    .fold(word.clone(), |w, (key, value)| w.replace(key, value))
            })
            .collect()
    }
}

impl Template {
    /// The template as a shell command line, each word quoted where needed,
    /// for a line the reader can paste back.
    pub fn shell_text(&self) -> String {
        self.words
            .iter()
            .map(|word| shell_quoted(word))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words.join(" "))
    }
}

fn split_words(text: &str) -> anyhow::Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => bail!("unclosed ' in the gateway command: `{text}`"),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => w.push(c),
                            None => bail!("trailing \\ in the gateway command: `{text}`"),
                        },
                        Some(c) => w.push(c),
                        None => bail!("unclosed \" in the gateway command: `{text}`"),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => bail!("trailing \\ in the gateway command: `{text}`"),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

/// The gateway under test: a command template for each transport it offers.
#[derive(Debug, Clone)]
pub struct Target {
    http: Option<Template>,
    stdio: Option<Template>,
    /// The kinds of place it can put the upstream credential in
    /// (`--credential-in`); `None`: every kind.
    credential_kinds: Option<Vec<String>>,
}

impl Target {
    /// A gateway given on the command line, offering one transport.
    pub fn custom(template: Template, transport: Transport) -> Self {
        match transport {
            Transport::Http => Self {
                http: Some(template),
                stdio: None,
                credential_kinds: None,
            },
            Transport::Stdio => Self {
                http: None,
                stdio: Some(template),
                credential_kinds: None,
            },
        }
    }

    /// The same gateway over stdio too, from a second template.
    pub fn with_stdio(self, template: Template) -> Self {
        Self {
            stdio: Some(template),
            ..self
        }
    }

    /// The reference gateway, offering both transports: built first in
    /// this workspace, else found beside the harness or on `PATH`. Over
    /// HTTP it lets in only the harness's client, by tokens of `issuer`
    /// (MCP authorization, with the scopes of its read-only and other
    /// tools), so that every scenario is judged.
    pub fn reference(issuer: Arc<Issuer>) -> anyhow::Result<Self> {
        let bin = crate::reference::binary()?;
        let bin = bin.to_string_lossy();
        let quoted = format!("'{}'", bin.replace('\'', r"'\''"));
        let http = format!(
            "{quoted} serve --openapi {{openapi}} --base-url {{base_url}} --listen 127.0.0.1:{{port}} \
             --oauth-issuer {{issuer}} --oauth-read-scope mcp:read --oauth-write-scope mcp:write"
        );
        let stdio = format!("{quoted} serve --openapi {{openapi}} --base-url {{base_url}} --stdio");
        Ok(Self {
            http: Some(
                Template::parse(&http, Transport::Http)?
                    .with_client_auth(ClientAuth::oauth(issuer))?,
            ),
            stdio: Some(Template::parse(&stdio, Transport::Stdio)?),
            credential_kinds: None,
        })
    }

    /// The same gateway, able to put the upstream credential only in places
    /// of these kinds (`--credential-in bearer,header`): scenarios that want
    /// it elsewhere are not run.
    pub fn taking_credential_in(self, list: &str) -> anyhow::Result<Self> {
        Ok(Self {
            credential_kinds: Some(crate::placement::kinds(list)?),
            ..self
        })
    }

    /// Why a scenario that wants the credential at `place` cannot run on
    /// this gateway, if it cannot.
    pub fn cannot_take_credential_at(&self, place: &str) -> Option<String> {
        let kinds = self.credential_kinds.as_ref()?;
        let kind = crate::placement::kind(place);
        (!kinds.iter().any(|k| k == kind)).then(|| {
            format!(
                "the scenario wants the upstream credential at {place}, and the gateway \
                 takes it only as {} (--credential-in)",
                kinds.join(", ")
            )
        })
    }

    /// The template for `transport`, if the gateway offers it.
    pub fn template(&self, transport: Transport) -> Option<&Template> {
        match transport {
            Transport::Http => self.http.as_ref(),
            Transport::Stdio => self.stdio.as_ref(),
        }
    }
}

/// A word as a shell reads it back: quoted when it holds anything special.
pub fn shell_quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=@%+,{}".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_a_shell() {
        let t = Template::parse(
            r#"python -m "my gw" serve --openapi {openapi} --base-url '{base_url}' --port={port} a\ b"#,
            Transport::Http,
        )
        .unwrap();
        assert_eq!(
            t.render(&[
                ("{openapi}", "/t/d.yaml"),
                ("{base_url}", "http://u"),
                ("{port}", "9")
            ]),
            [
                "python",
                "-m",
                "my gw",
                "serve",
                "--openapi",
                "/t/d.yaml",
                "--base-url",
                "http://u",
                "--port=9",
                "a b"
            ]
        );
    }

    #[test]
    fn requires_placeholders() {
        assert!(Template::parse("gw {openapi} {base_url}", Transport::Http).is_err());
        assert!(Template::parse("gw {openapi} {base_url}", Transport::Stdio).is_ok());
        assert!(Template::parse("gw 'unclosed {openapi} {base_url}", Transport::Stdio).is_err());
        assert!(Template::parse("  ", Transport::Stdio).is_err());
    }
}
