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
//! the key. Secrets never stand in the file: a credential names the
//! variable or the file that holds it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::settings::{ApiSettings, CredentialSource, ExchangeSettings, Settings};
use crate::agents::{self, AgentsSettings, KeysSettings, OAuthSettings, ScopeNames};
use crate::convert::{self, CredentialPlacement, Selection};

/// Reads the config file at `path`: its APIs, with every path in it taken
/// from the file's own folder.
pub fn read(path: &Path) -> Result<Settings, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the config file {}: {e}", path.display()))?;
    parse(&text, path.parent().unwrap_or(Path::new(".")))
        .map_err(|why| format!("{}:{why}", path.display()))
}

/// The settings of a config file's text, its relative paths under `folder`.
/// An error starts with the line (`12: ...`) where one is known.
pub fn parse(text: &str, folder: &Path) -> Result<Settings, String> {
    let file: File = yaml_serde::from_str(text).map_err(|error| match error.location() {
        Some(at) => {
            let message = without_location(&error.to_string()).to_owned();
            // A value refused after it was read is reported where its API
            // starts; its message names the key, whose own line is below.
            let line = refused_key(&message)
                .and_then(|key| key_line(text, at.line(), key))
                .unwrap_or(at.line());
            format!("{line}: {message}")
        }
        None => format!(" {error}"),
    })?;
    if file.apis.is_empty() {
        return Err(" `apis` lists no API: a gateway needs one to serve".to_owned());
    }
    let mut names: Vec<&str> = Vec::new();
    for api in &file.apis {
        if names.contains(&api.name.0.as_str()) {
            return Err(format!(
                "{}: apis: the name `{}` is given to two APIs; each API's endpoint is \
                 /mcp/{{name}}, so names must differ",
                line_of(text, &format!("name: {}", api.name.0)).unwrap_or(0),
                api.name.0
            ));
        }
        names.push(&api.name.0);
    }
    let default_agents = file.agents.map(|agents| agents.settings(folder));
    let apis = file
        .apis
        .into_iter()
        .map(|api| api.settings(folder, default_agents.as_ref()))
        .collect();
    Ok(Settings {
        apis,
        public_url: file.public_url,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    public_url: Option<String>,
    #[serde(default)]
    agents: Option<Agents>,
    apis: Vec<Api>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
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
}

/// An API's name: its endpoint's last path segment.
#[derive(Deserialize)]
#[serde(try_from = "String")]
struct Name(String);

impl TryFrom<String> for Name {
    type Error = String;
    fn try_from(name: String) -> Result<Self, String> {
        let fits = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !name.starts_with('.');
        if fits {
            Ok(Name(name))
        } else {
            Err(format!(
                "name: `{name}` cannot name an API: use 1 to 64 letters, digits, `-`, `_` and \
                 `.` (not first), as it is the endpoint's path segment"
            ))
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
#[serde(deny_unknown_fields)]
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
        let exchange = match (fields.client_id, fields.token_url, fields.scopes.is_empty()) {
            (Some(client_id), token_url, _) => Some(ExchangeSettings {
                client_id,
                token_url,
                scopes: fields.scopes,
            }),
            (None, None, true) => None,
            (None, _, _) => {
                return Err(
                    "credential: `token_url` and `scopes` are for an OAuth client: give its \
                     `client_id`",
                )
            }
        };
        Ok(Credential { source, exchange })
    }
}

#[derive(Deserialize)]
#[serde(try_from = "String")]
struct Placement(CredentialPlacement);

impl TryFrom<String> for Placement {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        text.parse()
            .map(Placement)
            .map_err(|why: String| format!("credential_in: {why}"))
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
            .map_err(|e| format!("tools: `{text}` is not a glob: {e}"))
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
                "max_name_length: it must be from {} to {}, not {limit}",
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
    /// Seconds.
    #[serde(default)]
    key_refresh_interval: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scopes {
    read: String,
    write: String,
}

impl Api {
    fn settings(self, folder: &Path, default_agents: Option<&AgentsSettings>) -> ApiSettings {
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
            exchange,
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
                    .map_or(agents::DEFAULT_KEY_REFRESH_INTERVAL, Duration::from_secs),
            }),
        }
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

/// The first line from `from` (from 1) where `key:` is written.
fn key_line(text: &str, from: usize, key: &str) -> Option<usize> {
    let written = format!("{key}:");
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, line)| {
            let line = line.trim_start().trim_start_matches("- ");
            line.starts_with(&written)
                || line.contains(&format!("{{ {written}"))
                || line.contains(&format!(", {written}"))
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

/// The line (from 1) of the second line holding `needle`, for a name given
/// twice.
fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.contains(needle))
        .nth(1)
        .map(|(number, _)| number + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Settings, String> {
        parse(text, Path::new("/etc/gateway"))
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
                "unknown placement",
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
            assert!(error.starts_with(line), "{text}\n{error}");
            assert!(error.contains(why), "{text}\n{error}");
        }
    }
}
