//! The config file: every API a gateway hosts, in YAML.
//!
//! ```yaml
//! public_url: https://mcp.example.com     # where agents reach the gateway
//! agents:                                 # who may use every API (optional)
//!   keys: { file: agents.keys }
//! apis:
//!   - name: pets                          # served at /mcp/pets
//!     openapi: pets.yaml                  # relative to this file
//!     base_url: https://pets.example.com/v1
//!     credential: { env: PETS_API_KEY }   # or { file: secrets/pets }
//!     credential_in: header:X-Pet-Key     # optional
//!     tools: { include_tags: [pets] }     # optional
//! ```
//!
//! Unknown keys are errors, and every error names the file, the line and
//! the key, and the form expected. Secrets never stand in the file: a
//! credential names the variable or the file that holds it. An error never
//! repeats a value of the file, since that value may be a secret written
//! where its reference belongs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::errors::ConfigError;
use super::settings::{ApiSettings, CredentialSource, ExchangeSettings, Key, Origin, Settings};
use crate::agents::{self, AgentsSettings, KeysSettings, LimitSettings, OAuthSettings, ScopeNames};
use crate::cleartext::Cleartext;
use crate::convert::{self, CredentialPlacement, Selection};

/// Reads the config file at `path`: its APIs, with every path in it taken
/// from the file's own folder.
pub fn read(path: &Path) -> Result<Settings, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Unreadable {
        file: path.to_owned(),
        source,
    })?;
    parse(&text, path)
}

/// The settings of the config file `file` whose text is `text`, its
/// relative paths under the file's folder.
pub fn parse(text: &str, file: &Path) -> Result<Settings, ConfigError> {
    let invalid = |line: Option<usize>, message: String| ConfigError::Invalid {
        file: file.to_owned(),
        line,
        message,
    };
    let folder = file.parent().unwrap_or(Path::new("."));
    let parsed: File = yaml_serde::from_str(text).map_err(|error| {
        let message = without_values(without_location(&error.to_string()));
        match error.location() {
            Some(at) => {
                // A value refused after it was read is reported where its
                // API starts; its message names the key, whose own line is
                // below.
                let line = refused_key(&message)
                    .and_then(|key| key_line(text, at.line(), usize::MAX, key))
                    .unwrap_or(at.line());
                invalid(Some(line), message)
            }
            None => invalid(None, message),
        }
    })?;
    if parsed.apis.is_empty() {
        return Err(invalid(
            None,
            "`apis` lists no API: a gateway needs one to serve".to_owned(),
        ));
    }
    let outline = Outline::of(text);
    let mut names: Vec<&str> = Vec::new();
    for (index, api) in parsed.apis.iter().enumerate() {
        if names.contains(&api.name.0.as_str()) {
            return Err(invalid(
                outline.api_line(index),
                format!(
                    "apis[{index}].name: the name `{}` is given to two APIs; each API's endpoint \
                     is /mcp/{{name}}, so names must differ",
                    api.name.0
                ),
            ));
        }
        names.push(&api.name.0);
    }
    let default_agents = parsed.agents.map(|agents| agents.settings(folder));
    let default_limits = parsed.agent_limits.map(AgentLimits::settings);
    let apis = parsed
        .apis
        .into_iter()
        .enumerate()
        .map(|(index, api)| {
            let mut lines = outline.key_lines(text, index);
            let file_agents = api.agents.is_none();
            if let (true, Some(line)) = (file_agents, outline.agents) {
                lines.insert(Key::Agents, line);
            }
            let origin = Origin::Config {
                file: file.to_owned(),
                index,
                lines,
                file_agents,
            };
            api.settings(
                folder,
                default_agents.as_ref(),
                default_limits.as_ref(),
                origin,
            )
        })
        .collect();
    Ok(Settings {
        apis,
        public_url: parsed.public_url,
        limits_store: parsed.limits_store,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    public_url: Option<String>,
    #[serde(default)]
    agents: Option<Agents>,
    /// Every API's agents' limits, unless it has its own.
    #[serde(default)]
    agent_limits: Option<AgentLimits>,
    /// A Redis URL: copies of the gateway share the per-second limits.
    #[serde(default)]
    limits_store: Option<String>,
    apis: Vec<Api>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an API: a map with `name`, `openapi` and `base_url`"
)]
struct Api {
    name: Name,
    openapi: PathBuf,
    base_url: String,
    #[serde(default)]
    credential: Option<Credential>,
    #[serde(default)]
    credential_in: Option<Placement>,
    #[serde(default)]
    ca_file: Option<PathBuf>,
    #[serde(default)]
    tools: Tools,
    /// Replaces the file's `agents` for this API; `{}` lets anyone in.
    #[serde(default)]
    agents: Option<Agents>,
    /// Replaces the file's `agent_limits` for this API; `{}` limits none.
    #[serde(default)]
    agent_limits: Option<AgentLimits>,
}

/// What each agent may make of an API.
#[derive(Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct AgentLimits {
    #[serde(default)]
    calls_per_second: Option<PerSecond>,
    #[serde(default)]
    burst: Option<AtLeastOne>,
    #[serde(default)]
    calls_in_flight: Option<AtLeastOne>,
}

impl AgentLimits {
    fn settings(self) -> LimitSettings {
        LimitSettings {
            calls_per_second: self.calls_per_second.map(|rate| rate.0),
            burst: self.burst.map(|burst| burst.0),
            calls_in_flight: self.calls_in_flight.map(|calls| calls.0),
        }
    }
}

/// Calls a second: a number above zero.
#[derive(Deserialize, Clone, Copy)]
#[serde(try_from = "f64")]
struct PerSecond(f64);

impl TryFrom<f64> for PerSecond {
    type Error = &'static str;
    fn try_from(rate: f64) -> Result<Self, Self::Error> {
        if rate.is_finite() && rate > 0.0 {
            Ok(PerSecond(rate))
        } else {
            Err("calls_per_second: it must be a number of calls a second above 0, such as 5 or 0.5")
        }
    }
}

/// A count of at least one.
#[derive(Deserialize, Clone, Copy)]
#[serde(try_from = "u32")]
struct AtLeastOne(u32);

impl TryFrom<u32> for AtLeastOne {
    type Error = &'static str;
    fn try_from(count: u32) -> Result<Self, Self::Error> {
        if count >= 1 {
            Ok(AtLeastOne(count))
        } else {
            Err("agent_limits: `burst` and `calls_in_flight` must be at least 1")
        }
    }
}

/// An API's name: its endpoint's last path segment.
#[derive(Deserialize)]
#[serde(try_from = "String")]
struct Name(String);

impl TryFrom<String> for Name {
    type Error = &'static str;
    fn try_from(name: String) -> Result<Self, Self::Error> {
        let fits = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !name.starts_with('.');
        if fits {
            Ok(Name(name))
        } else {
            Err(
                "name: it cannot name an API: use 1 to 64 letters, digits, `-`, `_` and `.` \
                 (not first), as it is the endpoint's path segment",
            )
        }
    }
}

/// Where the credential is read from (`{ env: NAME }` or `{ file: PATH }`),
/// and, with `client_id`, the OAuth client it is the secret of.
#[derive(Deserialize)]
#[serde(try_from = "CredentialFields")]
struct Credential {
    source: Source,
    exchange: Option<ExchangeSettings>,
}

enum Source {
    /// The name of an environment variable that holds it.
    Env(String),
    /// A file that holds it.
    File(PathBuf),
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "where the credential is read from, never the credential itself: \
                 `{ env: VARIABLE }` or `{ file: PATH }`"
)]
struct CredentialFields {
    #[serde(default)]
    env: Option<String>,
    #[serde(default)]
    file: Option<PathBuf>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    token_url: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    /// A `token_url` over plain http off loopback is taken.
    #[serde(default)]
    allow_http: bool,
}

impl TryFrom<CredentialFields> for Credential {
    type Error = &'static str;
    fn try_from(fields: CredentialFields) -> Result<Self, Self::Error> {
        let source =
            match (fields.env, fields.file) {
                (Some(name), None) => Source::Env(name),
                (None, Some(file)) => Source::File(file),
                _ => return Err(
                    "credential: it is read from `{ env: NAME }` or `{ file: PATH }`, one of them",
                ),
            };
        let exchange =
            match (fields.client_id, fields.token_url, fields.scopes.is_empty()) {
                (Some(client_id), token_url, _) => Some(ExchangeSettings {
                    client_id,
                    token_url,
                    scopes: fields.scopes,
                    cleartext: cleartext(fields.allow_http),
                }),
                (None, None, true) if !fields.allow_http => None,
                (None, _, _) => return Err(
                    "credential: `token_url`, `scopes` and `allow_http` are for an OAuth client: \
                     give its `client_id`",
                ),
            };
        Ok(Credential { source, exchange })
    }
}

fn cleartext(allowed: bool) -> Cleartext {
    if allowed {
        Cleartext::Allowed
    } else {
        Cleartext::LoopbackOnly
    }
}

#[derive(Deserialize)]
#[serde(try_from = "String")]
struct Placement(CredentialPlacement);

impl TryFrom<String> for Placement {
    type Error = &'static str;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse().map(Placement).map_err(|_| {
            "credential_in: it is not a placement: use bearer, basic, header:NAME or query:NAME"
        })
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Tools {
    #[serde(default)]
    include_tags: Vec<String>,
    #[serde(default)]
    exclude_tags: Vec<String>,
    #[serde(default)]
    include_tools: Vec<Glob>,
    #[serde(default)]
    exclude_tools: Vec<Glob>,
    #[serde(default)]
    max_name_length: Option<NameLimit>,
}

#[derive(Deserialize)]
#[serde(try_from = "String")]
struct Glob(glob::Pattern);

impl TryFrom<String> for Glob {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        glob::Pattern::new(&text)
            .map(Glob)
            .map_err(|e| format!("tools: a pattern is not a glob: {}", e.msg))
    }
}

#[derive(Deserialize)]
#[serde(try_from = "usize")]
struct NameLimit(usize);

impl TryFrom<usize> for NameLimit {
    type Error = String;
    fn try_from(limit: usize) -> Result<Self, String> {
        let range = convert::MIN_NAME_LIMIT..=convert::MAX_NAME_LEN;
        if range.contains(&limit) {
            Ok(NameLimit(limit))
        } else {
            Err(format!(
                "max_name_length: it must be from {} to {}",
                range.start(),
                range.end()
            ))
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Agents {
    #[serde(default)]
    keys: Option<Keys>,
    #[serde(default)]
    oauth: Option<OAuth>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    file: PathBuf,
    #[serde(default)]
    header: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OAuth {
    issuers: Vec<String>,
    #[serde(default)]
    scopes: Option<Scopes>,
    #[serde(default)]
    algorithms: Vec<String>,
    #[serde(default)]
    key_refresh_interval: Option<RefreshInterval>,
    /// Issuers over plain http off loopback are taken.
    #[serde(default)]
    allow_http: bool,
}

/// Seconds, at least one: with none, every token naming an unknown key
/// would fetch the keys.
#[derive(Deserialize)]
#[serde(try_from = "u64")]
struct RefreshInterval(u64);

impl TryFrom<u64> for RefreshInterval {
    type Error = &'static str;
    fn try_from(seconds: u64) -> Result<Self, Self::Error> {
        if seconds == 0 {
            Err(
                "key_refresh_interval: it must be at least 1 (seconds): with 0, every token \
                 naming an unknown key would fetch the authorization server's keys",
            )
        } else {
            Ok(RefreshInterval(seconds))
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scopes {
    read: String,
    write: String,
}

impl Api {
    fn settings(
        self,
        folder: &Path,
        default_agents: Option<&AgentsSettings>,
        default_limits: Option<&LimitSettings>,
        origin: Origin,
    ) -> ApiSettings {
        let (credential, exchange) = match self.credential {
            None => (CredentialSource::None, None),
            Some(Credential { source, exchange }) => (
                match source {
                    Source::Env(name) => CredentialSource::Env {
                        name,
                        required: true,
                    },
                    Source::File(file) => CredentialSource::File(folder.join(file)),
                },
                exchange,
            ),
        };
        let agents = match self.agents {
            Some(agents) => agents.settings(folder),
            None => default_agents.cloned().unwrap_or_default(),
        };
        let globs = |globs: Vec<Glob>| globs.into_iter().map(|glob| glob.0).collect();
        ApiSettings {
            name: Some(self.name.0),
            openapi: folder.join(self.openapi),
            tools: convert::Options {
                selection: Selection {
                    include_tags: self.tools.include_tags,
                    exclude_tags: self.tools.exclude_tags,
                    include_tools: globs(self.tools.include_tools),
                    exclude_tools: globs(self.tools.exclude_tools),
                },
                max_name_length: self
                    .tools
                    .max_name_length
                    .map_or(convert::MAX_NAME_LEN, |limit| limit.0),
            },
            base_url: self.base_url,
            credential,
            placement: self.credential_in.map(|placement| placement.0),
            ca_file: self.ca_file.map(|file| folder.join(file)),
            agents,
            limits: match self.agent_limits {
                Some(limits) => limits.settings(),
                None => default_limits.cloned().unwrap_or_default(),
            },
            exchange,
            origin,
        }
    }
}

impl Agents {
    fn settings(self, folder: &Path) -> AgentsSettings {
        AgentsSettings {
            keys: self.keys.map(|keys| KeysSettings {
                file: folder.join(keys.file),
                header: keys.header,
            }),
            oauth: self.oauth.map(|oauth| OAuthSettings {
                issuers: oauth.issuers,
                scopes: oauth.scopes.map(|scopes| ScopeNames {
                    read: scopes.read,
                    write: scopes.write,
                }),
                algorithms: oauth.algorithms,
                key_refresh_interval: oauth
                    .key_refresh_interval
                    .map_or(agents::DEFAULT_KEY_REFRESH_INTERVAL, |interval| {
                        Duration::from_secs(interval.0)
                    }),
                cleartext: cleartext(oauth.allow_http),
            }),
        }
    }
}

/// Where the APIs of the file's text start, and its `agents`.
struct Outline {
    /// The line (from 1) of each API's entry under `apis`.
    apis: Vec<usize>,
    agents: Option<usize>,
    lines: usize,
}

impl Outline {
    fn of(text: &str) -> Outline {
        let mut apis = Vec::new();
        let mut agents = None;
        let mut in_apis = false;
        let mut item_indent = None;
        for (number, line) in text.lines().enumerate().map(|(n, l)| (n + 1, l)) {
            let content = line.trim_start();
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            let indent = line.len() - content.len();
            if indent == 0 && !content.starts_with('-') {
                in_apis = content.starts_with("apis:");
                if content.starts_with("agents:") {
                    agents = Some(number);
                }
                continue;
            }
            if in_apis && (content.starts_with("- ") || content == "-") {
                let indent = *item_indent.get_or_insert(indent);
                if line.len() - content.len() == indent {
                    apis.push(number);
                }
            }
        }
        Outline {
            apis,
            agents,
            lines: text.lines().count(),
        }
    }

    fn api_line(&self, index: usize) -> Option<usize> {
        self.apis.get(index).copied()
    }

    /// The lines of the `index`th API's keys that messages name.
    fn key_lines(&self, text: &str, index: usize) -> BTreeMap<Key, usize> {
        let mut lines = BTreeMap::new();
        let Some(start) = self.api_line(index) else {
            return lines;
        };
        let end = self.api_line(index + 1).unwrap_or(self.lines + 1);
        lines.insert(Key::Api, start);
        let find = |from: usize, key: &str| key_line(text, from, end, key);
        for (key, written) in [
            (Key::OpenApi, "openapi"),
            (Key::BaseUrl, "base_url"),
            (Key::CaFile, "ca_file"),
            (Key::Agents, "agents"),
        ] {
            if let Some(line) = find(start, written) {
                lines.insert(key, line);
            }
        }
        if let Some(credential) = find(start, "credential") {
            lines.insert(Key::Credential, credential);
            for (key, written) in [
                (Key::CredentialEnv, "env"),
                (Key::CredentialFile, "file"),
                (Key::TokenUrl, "token_url"),
            ] {
                if let Some(line) = find(credential, written) {
                    lines.insert(key, line);
                }
            }
        }
        lines
    }
}

/// The key a value's own check names, as its message starts after the
/// path: `apis[0]: credential_in: ...`.
fn refused_key(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once(": ")?;
    let (key, _) = rest.split_once(": ")?;
    key.chars()
        .all(|c| c.is_ascii_lowercase() || c == '_')
        .then_some(key)
}

/// The first line from `from` (from 1) and before `end` where `key:` is
/// written.
fn key_line(text: &str, from: usize, end: usize, key: &str) -> Option<usize> {
    let written = format!("{key}:");
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .take_while(|(number, _)| number + 1 < end)
        .find(|(_, line)| {
            let line = line.trim_start().trim_start_matches("- ");
            line.starts_with(&written)
                || line.contains(&format!("{{ {written}"))
                || line.contains(&format!("{{{written}"))
                || line.contains(&format!(", {written}"))
                || line.contains(&format!(",{written}"))
        })
        .map(|(number, _)| number + 1)
}

/// yaml_serde's message without the ` at line L column C` it ends with,
/// which the caller puts first.
fn without_location(message: &str) -> &str {
    message
        .rfind(" at line ")
        .map_or(message, |at| &message[..at])
}

/// A deserializer's message with the value it quotes taken out: serde
/// writes `invalid type: string "sk_live_...", expected ...`, and the
/// value may be a secret written where its reference belongs. What is
/// left names the key, the kind of value found and the form expected.
fn without_values(message: &str) -> String {
    for said in ["invalid type: ", "invalid value: "] {
        if let Some(at) = message.find(said) {
            let rest = &message[at + said.len()..];
            let (found, expected) = match rest.find(", expected ") {
                Some(cut) => (&rest[..cut], &rest[cut..]),
                None => (rest, ""),
            };
            return format!("{}{said}{}{expected}", &message[..at], kind_of(found));
        }
    }
    if let Some(at) = message.find("unknown variant `") {
        let rest = &message[at + "unknown variant `".len()..];
        let after = rest.find('`').map_or("", |end| &rest[end + 1..]);
        return format!("{}unknown variant{after}", &message[..at]);
    }
    message.to_owned()
}

/// What serde calls a value it did not expect, without the value: the
/// words before its quoted form (`string`, `integer`, `boolean`, ...).
fn kind_of(found: &str) -> &'static str {
    const KINDS: [(&str, &str); 12] = [
        ("string", "a string"),
        ("integer", "an integer"),
        ("floating point", "a number"),
        ("boolean", "a boolean"),
        ("character", "a character"),
        ("byte array", "bytes"),
        ("unit value", "nothing (null)"),
        ("Option value", "an optional value"),
        ("sequence", "a list"),
        ("map", "a map"),
        ("enum", "a tagged value"),
        ("unit variant", "a tagged value"),
    ];
    let words = found.split(['`', '"']).next().unwrap_or_default().trim();
    KINDS
        .iter()
        .find(|(kind, _)| words == *kind)
        .map_or("a value of another form", |(_, said)| said)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Settings, String> {
        parse(text, Path::new("/etc/gateway/c.yaml")).map_err(|error| error.to_string())
    }

    #[test]
    fn a_file_gives_each_api_its_settings_with_paths_from_its_folder() {
        let settings = parsed(
            "public_url: https://mcp.example.com\n\
             agents:\n  keys: { file: all.keys }\n\
             apis:\n\
             \x20 - name: pets\n    openapi: docs/pets.yaml\n    base_url: https://pets.example.com/v1\n\
             \x20   credential: { env: PETS_KEY }\n    credential_in: header:X-Pet-Key\n\
             \x20   tools: { include_tags: [pets], max_name_length: 64 }\n\
             \x20 - name: store\n    openapi: /srv/store.json\n    base_url: https://store.example.com\n\
             \x20   credential: { file: secrets/store }\n    agents: {}\n",
        )
        .expect("parses");
        assert_eq!(
            settings.public_url.as_deref(),
            Some("https://mcp.example.com")
        );
        let [pets, store] = &settings.apis[..] else {
            panic!("two APIs")
        };
        assert_eq!(pets.path(), "/mcp/pets");
        assert_eq!(pets.openapi, Path::new("/etc/gateway/docs/pets.yaml"));
        assert_eq!(
            pets.credential,
            CredentialSource::Env {
                name: "PETS_KEY".into(),
                required: true
            }
        );
        assert_eq!(
            pets.placement,
            Some(CredentialPlacement::Header("X-Pet-Key".into()))
        );
        assert_eq!(pets.tools.max_name_length, 64);
        assert_eq!(
            pets.agents.keys.as_ref().map(|keys| keys.file.clone()),
            Some(PathBuf::from("/etc/gateway/all.keys"))
        );
        assert_eq!(store.openapi, Path::new("/srv/store.json"));
        assert_eq!(
            store.credential,
            CredentialSource::File("/etc/gateway/secrets/store".into())
        );
        assert_eq!(
            store.agents,
            AgentsSettings::default(),
            "its own agents: anyone"
        );
    }

    #[test]
    fn every_error_names_its_line_and_key() {
        let api = "apis:\n  - name: pets\n    openapi: p.yaml\n    base_url: https://x\n";
        let cases = [
            (
                format!("{api}    colour: blue\n"),
                "5:",
                "unknown field `colour`",
            ),
            (
                "apis:\n  - name: pets\n    openapi: p.yaml\n".to_owned(),
                "2:",
                "missing field `base_url`",
            ),
            (
                format!("{api}    credential: {{ secret: abc }}\n"),
                "5:",
                "unknown field `secret`",
            ),
            (
                format!("{api}    credential: {{ env: A, file: b }}\n"),
                "5:",
                "one of them",
            ),
            (
                format!("{api}    credential_in: cookie:x\n"),
                "5:",
                "not a placement",
            ),
            (
                "apis:\n  - name: my pets\n    openapi: p.yaml\n    base_url: https://x\n"
                    .to_owned(),
                "2:",
                "cannot name an API",
            ),
            (
                format!("{api}    tools: {{ max_name_length: 8 }}\n"),
                "5:",
                "from 16 to 128",
            ),
            (
                format!("{api}    tools: {{ include_tools: ['[a'] }}\n"),
                "5:",
                "not a glob",
            ),
            (
                format!("{api}  - name: pets\n    openapi: q.yaml\n    base_url: https://y\n"),
                "5:",
                "given to two APIs",
            ),
            ("apis: []\n".to_owned(), "", "lists no API"),
        ];
        for (text, line, why) in cases {
            let error = parsed(&text).expect_err(&text);
            let at = format!("/etc/gateway/c.yaml:{line}");
            assert!(error.starts_with(&at), "{text}\n{error}");
            assert!(error.contains(why), "{text}\n{error}");
        }
    }

    /// A secret written where a reference, a name or a number belongs is
    /// never printed back: the error names the line and key instead.
    #[test]
    fn no_error_repeats_a_value_of_the_file() {
        const SECRET: &str = "sk_live_5ecret0fTheOperator";
        let api = "apis:\n  - name: pets\n    openapi: p.yaml\n    base_url: https://x\n";
        let wrong = [
            format!("{api}    credential: {SECRET}\n"),
            format!("{api}    credential: [{SECRET}]\n"),
            format!("{api}    credential: {{ env: [{SECRET}] }}\n"),
            format!("{api}    credential_in: {SECRET}\n"),
            format!("{api}    tools: {{ include_tools: ['[{SECRET}'] }}\n"),
            format!("{api}    tools: {{ max_name_length: {SECRET} }}\n"),
            format!("{api}    tools: {SECRET}\n"),
            format!("{api}    agents: {SECRET}\n"),
            format!("{api}    agents: {{ oauth: {{ issuers: {SECRET} }} }}\n"),
            format!(
                "{api}    agents: {{ oauth: {{ issuers: [x], key_refresh_interval: {SECRET} }} }}\n"
            ),
            format!("apis:\n  - name: {SECRET}/x\n    openapi: p.yaml\n    base_url: https://x\n"),
            format!("apis:\n  - name: [{SECRET}]\n    openapi: p.yaml\n    base_url: https://x\n"),
            format!("apis:\n  - {SECRET}\n"),
            format!("apis: {SECRET}\n"),
            format!("public_url: [{SECRET}]\n{api}"),
            format!("{SECRET}\n"),
        ];
        for text in wrong {
            let error = parsed(&text).expect_err(&text);
            assert!(
                !error.contains("5ecret0f"),
                "the value is printed back:\n{text}\n{error}"
            );
            assert!(error.starts_with("/etc/gateway/c.yaml:"), "{error}");
        }
    }

    #[test]
    fn a_refresh_interval_of_zero_is_refused_and_plain_http_is_asked_for() {
        let api = "apis:\n  - name: pets\n    openapi: p.yaml\n    base_url: https://x\n";
        let error = parsed(&format!(
            "{api}    agents: {{ oauth: {{ issuers: [x], key_refresh_interval: 0 }} }}\n"
        ))
        .expect_err("refused");
        assert!(error.contains("at least 1"), "{error}");
        let settings = parsed(&format!(
            "{api}    agents: {{ oauth: {{ issuers: [x], allow_http: true }} }}\n"
        ))
        .expect("parses");
        let oauth = settings.apis[0].agents.oauth.as_ref().expect("oauth");
        assert_eq!(oauth.cleartext, Cleartext::Allowed);
        let settings = parsed(&format!(
            "{api}    credential: {{ file: s, client_id: c, token_url: http://auth, allow_http: true }}\n"
        ))
        .expect("parses");
        let exchange = settings.apis[0].exchange.as_ref().expect("an exchange");
        assert_eq!(exchange.cleartext, Cleartext::Allowed);
    }

    #[test]
    fn agents_limits_for_every_api_or_each_its_own() {
        let settings = parsed(
            "limits_store: redis://127.0.0.1:6379/0\n\
             agent_limits: { calls_per_second: 5, burst: 10 }\n\
             apis:\n  - name: a\n    openapi: a.yaml\n    base_url: https://a\n\
             \x20 - name: b\n    openapi: b.yaml\n    base_url: https://b\n\
             \x20   agent_limits: { calls_in_flight: 2 }\n\
             \x20 - name: c\n    openapi: c.yaml\n    base_url: https://c\n    agent_limits: {}\n",
        )
        .expect("parses");
        assert_eq!(
            settings.limits_store.as_deref(),
            Some("redis://127.0.0.1:6379/0")
        );
        let limits: Vec<LimitSettings> = settings.apis.iter().map(|a| a.limits.clone()).collect();
        assert_eq!(
            limits,
            [
                LimitSettings {
                    calls_per_second: Some(5.0),
                    burst: Some(10),
                    calls_in_flight: None
                },
                LimitSettings {
                    calls_per_second: None,
                    burst: None,
                    calls_in_flight: Some(2)
                },
                LimitSettings::default(),
            ]
        );
        for wrong in [
            "agent_limits: { calls_per_second: 0 }\n",
            "agent_limits: { calls_per_second: -1 }\n",
            "agent_limits: { calls_in_flight: 0 }\n",
            "agent_limits: { per_minute: 3 }\n",
        ] {
            let text = format!("{wrong}apis:\n  - name: a\n    openapi: a.yaml\n    base_url: x\n");
            let error = parsed(&text).expect_err(wrong);
            assert!(error.starts_with("/etc/gateway/c.yaml:1:"), "{error}");
        }
    }

    #[test]
    fn messages_name_where_each_key_is_written() {
        let settings = parsed(
            "agents:\n  keys: { file: k }\napis:\n  - name: a\n    openapi: a.yaml\n    \
             base_url: https://a\n  - name: b\n    base_url: https://b\n    openapi: b.yaml\n    \
             credential:\n      env: B_KEY\n    agents: {}\n",
        )
        .expect("parses");
        let at = |api: usize, key| settings.apis[api].written(key).to_string();
        assert_eq!(
            at(0, Key::OpenApi),
            "/etc/gateway/c.yaml:5: apis[0].openapi (API `a`)"
        );
        assert_eq!(
            at(0, Key::Agents),
            "/etc/gateway/c.yaml:1: agents (API `a`)"
        );
        assert_eq!(
            at(1, Key::OpenApi),
            "/etc/gateway/c.yaml:9: apis[1].openapi (API `b`)"
        );
        assert_eq!(
            at(1, Key::CredentialEnv),
            "/etc/gateway/c.yaml:11: apis[1].credential.env (API `b`)"
        );
        assert_eq!(
            at(1, Key::Agents),
            "/etc/gateway/c.yaml:12: apis[1].agents (API `b`)"
        );
        assert_eq!(
            at(1, Key::CaFile),
            "/etc/gateway/c.yaml:7: apis[1].ca_file (API `b`)"
        );
    }
}
