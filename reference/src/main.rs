//! `hosted-mcp-gateway`: puts an MCP server in front of an HTTP API described by OpenAPI.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use hosted_mcp_gateway::agents::LimitSettings;
use hosted_mcp_gateway::agents::{self, AgentsSettings, KeysSettings, OAuthSettings, ScopeNames};
use hosted_mcp_gateway::cleartext::Cleartext;
use hosted_mcp_gateway::convert::{self, CredentialPlacement};
use hosted_mcp_gateway::gateway::{Limits, DEFAULT_CALLS_IN_FLIGHT};
use hosted_mcp_gateway::host::{
    self, log_serving, ApiSettings, ConfigError, ConnectionLimits, CredentialSource,
    ExchangeSettings, HostError, Origin, Server, ServerOptions, Settings,
};
use hosted_mcp_gateway::mcp::{self, HttpAccess, HttpOptions, McpServer, Sessions};
use hosted_mcp_gateway::watch::{self, Metrics};

/// What is logged when RUST_LOG does not say.
const DEFAULT_LOG_LEVELS: &str = "info,rmcp=warn";

/// The environment variable that holds the stored credential.
const CREDENTIAL_ENV: &str = "HOSTED_MCP_CREDENTIAL";

#[derive(Parser)]
#[command(
    name = "hosted-mcp-gateway",
    version,
    about = "Turn every operation of an OpenAPI document into an MCP tool, and call the API safely.",
    long_about = "Turn every operation of an OpenAPI document into an MCP tool, and call the API safely.\n\n\
        Each tool call is checked against the tool's input schema, then sent as exactly one request \
        to the base URL you give, with the credential from the HOSTED_MCP_CREDENTIAL environment \
        variable (or --credential-file). Nothing of the agent's own request is forwarded, and the \
        credential never comes back to the agent.\n\n\
        Examples:\n  \
        hosted-mcp-gateway tools --openapi petstore.yaml\n  \
        HOSTED_MCP_CREDENTIAL=sk-123 hosted-mcp-gateway serve --openapi petstore.yaml \\\n      \
        --base-url https://api.example.com/v1 --listen 127.0.0.1:8080"
)]
struct Cli {
    /// How log lines on stderr look: `text` for people, `json` (one object a
    /// line) for a log collector. Which events are written is set by RUST_LOG
    /// (default `info`: start-up, each call, stopping).
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t = LogFormat::Text,
        env = "HOSTED_MCP_LOG_FORMAT"
    )]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Print the tools/list result for a document as JSON, then exit.
    Tools {
        /// The OpenAPI document (3.0 or 3.1, JSON or YAML; Swagger 2.0 is converted).
        #[arg(long, value_name = "FILE", required_unless_present = "config")]
        openapi: Option<PathBuf>,
        #[command(flatten)]
        choice: ToolChoice,
        #[command(flatten)]
        config: ConfigChoice,
    },
    /// Serve the document's tools over MCP (Streamable HTTP at /mcp, or
    /// stdio); or, with --config, every API of a config file, each at
    /// /mcp/{name}.
    Serve(Box<ServeArgs>),
    /// Check a configuration whole without serving it, as `nginx -t` does:
    /// every document, credential and keys file read and every gateway
    /// built, as `serve` (and a reload) would; exit status 0, or 2 with the
    /// error a start would stop on. Takes the options of `serve`.
    Check(Box<ServeArgs>),
    /// Make a key for an agent: prints the key (give it to the agent) and,
    /// on stderr, the line to add to the keys file of --agent-keys, which
    /// holds only its hash. With --stdin, the key is read from stdin instead.
    AgentKey {
        /// What the log calls the agent that shows this key.
        #[arg(long, value_name = "NAME")]
        label: String,
        /// Read the key from stdin (one line) instead of making one.
        #[arg(long)]
        stdin: bool,
    },
    /// Explain an error code an agent got (`UPSTREAM_STATUS`, or `[UPSTREAM_STATUS]`):
    /// what it means, an example, what the agent and the operator should do, and
    /// the rules whose scenarios produce it.
    Explain {
        /// The code, as the message starts with it.
        code: String,
    },
}

/// Many APIs from a config file, instead of one from the flags.
#[derive(Args)]
#[command(next_help_heading = "Hosting many APIs")]
struct ConfigChoice {
    /// Serve every API of this YAML file, each at /mcp/{name}, instead of
    /// the one API of --openapi and --base-url (docs/gateway.md, "Hosting
    /// many APIs"). SIGHUP reads it again, with every file it names.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Only the API of the config file with this name: the one to serve
    /// over stdio, or to preview with `tools`.
    #[arg(long, value_name = "NAME", requires = "config")]
    api: Option<String>,
}

impl ConfigChoice {
    /// The config file's APIs (the one named by --api, when it is given).
    fn settings(&self) -> Option<Result<Settings, HostError>> {
        let file = self.config.as_ref()?;
        Some(
            host::read_config(file)
                .and_then(|mut settings| {
                    if let Some(name) = &self.api {
                        let names: Vec<String> = settings
                            .apis
                            .iter()
                            .filter_map(|api| api.name.clone())
                            .collect();
                        settings.apis.retain(|api| api.name.as_ref() == Some(name));
                        if settings.apis.is_empty() {
                            return Err(ConfigError::NoSuchApi {
                                file: file.clone(),
                                names,
                            });
                        }
                    }
                    Ok(settings)
                })
                .map_err(HostError::from),
        )
    }
}

/// Which operations become tools, and how long their names may be. With
/// none given, every operation that is not deprecated is a tool, named as
/// the rules say. Includes are alternatives; an exclude always wins.
#[derive(Args)]
#[command(next_help_heading = "Choosing the tools")]
struct ToolChoice {
    /// Serve only operations with one of these tags (repeat, or separate
    /// with commas).
    #[arg(
        long,
        value_name = "TAG",
        value_delimiter = ',',
        conflicts_with = "config"
    )]
    include_tags: Vec<String>,
    /// Leave out operations with any of these tags.
    #[arg(
        long,
        value_name = "TAG",
        value_delimiter = ',',
        conflicts_with = "config"
    )]
    exclude_tags: Vec<String>,
    /// Serve only tools whose name matches one of these globs (`Get*`,
    /// `*Charge*`); the name as the naming rules give it.
    #[arg(long, value_name = "GLOB", value_parser = glob_pattern, conflicts_with = "config")]
    include_tools: Vec<glob::Pattern>,
    /// Leave out tools whose name matches any of these globs.
    #[arg(long, value_name = "GLOB", value_parser = glob_pattern, conflicts_with = "config")]
    exclude_tools: Vec<glob::Pattern>,
    /// The longest tool name, for clients that cap names below MCP's 128
    /// (some take 64). Longer names are shortened the same stable way.
    #[arg(
        long,
        value_name = "N",
        default_value_t = convert::MAX_NAME_LEN,
        value_parser = name_limit
    )]
    max_name_length: usize,
}

impl ToolChoice {
    fn options(&self) -> convert::Options {
        convert::Options {
            selection: convert::Selection {
                include_tags: self.include_tags.clone(),
                exclude_tags: self.exclude_tags.clone(),
                include_tools: self.include_tools.clone(),
                exclude_tools: self.exclude_tools.clone(),
            },
            max_name_length: self.max_name_length,
        }
    }
}

fn name_limit(text: &str) -> Result<usize, String> {
    let range = convert::MIN_NAME_LIMIT..=convert::MAX_NAME_LEN;
    match text.parse::<usize>() {
        Ok(limit) if range.contains(&limit) => Ok(limit),
        Ok(_) => Err(format!("must be from {} to {}", range.start(), range.end())),
        Err(error) => Err(error.to_string()),
    }
}

fn glob_pattern(text: &str) -> Result<glob::Pattern, String> {
    glob::Pattern::new(text).map_err(|error| error.to_string())
}

#[derive(Args)]
struct ServeArgs {
    /// The OpenAPI document (3.0 or 3.1, JSON or YAML; Swagger 2.0 is converted).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "config",
        conflicts_with = "config"
    )]
    openapi: Option<PathBuf>,
    #[command(flatten)]
    choice: ToolChoice,
    #[command(flatten)]
    config: ConfigChoice,
    /// The API owner's verified host; each operation's path is appended to it.
    #[arg(
        long,
        value_name = "URL",
        required_unless_present = "config",
        conflicts_with = "config"
    )]
    base_url: Option<String>,
    /// Address for Streamable HTTP. Loopback by default: expose it only on purpose.
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1:8080",
        conflicts_with = "stdio"
    )]
    listen: SocketAddr,
    /// Speak MCP over stdin and stdout instead of HTTP.
    #[arg(long)]
    stdio: bool,
    /// Read the credential from this file instead of HOSTED_MCP_CREDENTIAL
    /// (one trailing newline is ignored).
    #[arg(long, value_name = "FILE", conflicts_with = "config")]
    credential_file: Option<PathBuf>,
    /// Where the credential goes: `bearer`, `basic` (credential is user:password,
    /// or a user name alone with an empty password),
    /// `header:NAME` or `query:NAME`. Default: the document's security scheme.
    #[arg(long, value_name = "PLACE", value_parser = parse_placement, conflicts_with = "config")]
    credential_in: Option<CredentialPlacement>,
    /// Trust the certificate authorities in this PEM file for the base URL's
    /// host, besides the system's (an API behind a private CA). Certificates
    /// are always verified.
    #[arg(long, value_name = "FILE", conflicts_with = "config")]
    ca_file: Option<PathBuf>,
    /// The API takes access tokens of its own OAuth server: get them by the
    /// client-credentials grant for this client, whose secret is the stored
    /// credential, and send them as `Authorization: Bearer`.
    #[arg(long, value_name = "ID", conflicts_with = "config")]
    upstream_client_id: Option<String>,
    /// Where to ask for the API's tokens, when not where the document's
    /// oauth2 clientCredentials flow says (its `tokenUrl`).
    #[arg(long, value_name = "URL", requires = "upstream_client_id")]
    upstream_token_url: Option<String>,
    /// A scope to ask the API's OAuth server for (repeat for several).
    #[arg(long, value_name = "SCOPE", requires = "upstream_client_id")]
    upstream_scope: Vec<String>,
    /// Send the client's secret to --upstream-token-url over plain http
    /// even off loopback (by default only https, or http to a loopback
    /// host, is spoken to): only on a network you trust.
    #[arg(long, requires = "upstream_token_url")]
    upstream_token_allow_http: bool,
    /// Accept this Host header too (besides localhost), when serving behind a name.
    #[arg(long = "allowed-host", value_name = "HOST")]
    allowed_hosts: Vec<String>,
    /// Accept browser requests from this origin (e.g. https://app.example.com:443);
    /// requests from any other Origin are refused.
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    allowed_origins: Vec<String>,
    /// Threads that serve calls. One is the fastest per call (no wake-ups of
    /// idle workers between the steps of a call); more serve more calls at
    /// once on a host with cores to spare.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    threads: u16,
    /// Calls that may be sending or answering at once; each holds up to about
    /// 1 MB of answer, so this bounds memory. Further calls wait for a turn, up
    /// to the 15-second deadline, then get GATEWAY_BUSY.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CALLS_IN_FLIGHT, value_parser = calls_in_flight)]
    max_calls: usize,
    /// Serve clients of the `initialize` era without sessions, so that several
    /// copies can run behind a load balancer with no stickiness. Without it,
    /// such a client's session lives in one process and its requests must all
    /// reach that process. (2026-07-28 clients never have sessions.)
    #[arg(long, conflicts_with = "stdio")]
    stateless: bool,
    /// Close a session of the `initialize` era after this many seconds
    /// without a message from or to its client, so that the sessions of
    /// clients that left without closing them do not pile up. A client that
    /// comes back later gets 404 and starts a new session. Keep it above the
    /// 15-second call deadline: a call being answered sends no message.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = mcp::DEFAULT_SESSION_IDLE_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..),
        conflicts_with_all = ["stdio", "stateless"]
    )]
    session_idle_timeout: u64,
    /// Every this many seconds, log a census of live sessions, open
    /// connections, calls in flight and runtime tasks: a `debug` event on the
    /// target `hosted_mcp_gateway::census`, written only when RUST_LOG asks
    /// for it (e.g. `RUST_LOG=info,hosted_mcp_gateway::census=debug`).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = host::DEFAULT_CENSUS_INTERVAL.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..),
        conflicts_with = "stdio"
    )]
    census_interval: u64,
    /// Serve /healthz, /readyz and /metrics (Prometheus) on this address,
    /// apart from the MCP endpoint. None by default.
    #[arg(long, value_name = "ADDR", conflicts_with = "stdio")]
    admin_listen: Option<SocketAddr>,
    #[command(flatten)]
    agents: AgentChoice,
    #[command(flatten)]
    agent_limits: AgentLimitChoice,
    #[command(flatten)]
    front: FrontDoor,
}

/// What one agent may make of the API of the flags (the config file gives
/// them per API, as `agent_limits`). None by default.
#[derive(Args)]
#[command(next_help_heading = "Limiting each agent")]
struct AgentLimitChoice {
    /// Calls (each request an agent posts: a tool call, a listing) one
    /// agent may make a second, on average; over it, 429 and Retry-After.
    /// An agent is its key's label, its token's issuer and subject, or,
    /// where anyone may come in, its address.
    #[arg(long, value_name = "N", value_parser = per_second, conflicts_with = "config")]
    agent_calls_per_second: Option<f64>,
    /// Calls one agent may make at once above that rate (default: the rate).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), requires = "agent_calls_per_second")]
    agent_burst: Option<u32>,
    /// Calls one agent may have being answered at once.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "config")]
    agent_calls_in_flight: Option<u32>,
    /// Share the per-second limits with every copy of the gateway through
    /// this Redis (redis://HOST:PORT/DB); out of reach, each copy limits
    /// on its own and says so.
    #[arg(long, value_name = "URL", conflicts_with = "config")]
    agent_limits_redis: Option<String>,
}

/// How the listener holds connections (docs/gateway.md, "Facing the
/// internet").
#[derive(Args)]
#[command(next_help_heading = "Facing the internet")]
struct FrontDoor {
    /// The most connections held at once, every client's together. At it,
    /// the connection idle longest makes room; with every one busy, a new
    /// one gets 503. Default: the descriptor limit (raised to the hard
    /// limit at start-up) less room for the calls' own connections.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "stdio")]
    max_connections: Option<u64>,
    /// The most connections one client address may hold. None by default:
    /// behind a proxy, every agent has the proxy's address.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "stdio")]
    max_connections_per_client: Option<u64>,
    /// Seconds a connection has to send a request's head, from its first
    /// byte (or from being accepted).
    #[arg(long, value_name = "SECONDS", default_value_t = host::DEFAULT_HEAD_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    request_head_timeout: u64,
    /// Seconds a request's body has to arrive whole, from its head; over
    /// it, 408 and the connection closed.
    #[arg(long, value_name = "SECONDS", default_value_t = host::DEFAULT_BODY_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    request_body_timeout: u64,
    /// Seconds a connection may wait idle for its next request.
    #[arg(long, value_name = "SECONDS", default_value_t = host::DEFAULT_IDLE_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    keep_alive_timeout: u64,
    /// Seconds an answer may wait on a client that does not read it.
    #[arg(long, value_name = "SECONDS", default_value_t = host::DEFAULT_SEND_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    send_timeout: u64,
}

fn per_second(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 => Ok(rate),
        Ok(_) => Err("must be a number above 0, such as 5 or 0.5".to_owned()),
        Err(error) => Err(error.to_string()),
    }
}

impl ServeArgs {
    /// Each API's calls: the deadline, and how many at once.
    fn call_limits(&self) -> Limits {
        Limits {
            calls_in_flight: self.max_calls,
            ..Limits::default()
        }
    }

    /// How the HTTP server serves, from the flags; the descriptor limit is
    /// raised and read here.
    fn server_options(&self) -> Result<ServerOptions, String> {
        let limits = self.call_limits();
        let idle_timeout = Duration::from_secs(self.session_idle_timeout);
        if !self.stateless && idle_timeout <= limits.deadline {
            tracing::warn!(
                "--session-idle-timeout {}s is not above the {}s call deadline: a session whose \
                 only activity is a call waiting on the API is closed under it, and the call goes \
                 unanswered",
                idle_timeout.as_secs(),
                limits.deadline.as_secs()
            );
        }
        let http = HttpOptions {
            access: HttpAccess {
                allowed_hosts: self.allowed_hosts.clone(),
                allowed_origins: self.allowed_origins.clone(),
            },
            sessions: if self.stateless {
                Sessions::Stateless
            } else {
                Sessions::InMemory { idle_timeout }
            },
            on_loopback: self.listen.ip().is_loopback(),
        };
        let descriptors = host::descriptor_limit()
            .map_err(|e| format!("cannot read the process's descriptor limit: {e}"))?;
        let room = host::max_open_below(descriptors.now, limits.calls_in_flight);
        let max_open = match self.front.max_connections {
            None => room,
            Some(asked) if asked as usize <= room => asked as usize,
            Some(asked) => {
                return Err(format!(
                    "--max-connections {asked} leaves no room below the descriptor limit {} for \
                     the calls' own connections: at most {room}; raise the limit (ulimit -n) or \
                     take fewer",
                    descriptors.now
                ))
            }
        };
        if max_open == 0 {
            return Err(format!(
                "the descriptor limit {} leaves no room for connections: raise it (ulimit -n)",
                descriptors.now
            ));
        }
        let seconds = Duration::from_secs;
        Ok(ServerOptions {
            http,
            limits,
            connections: ConnectionLimits {
                max_open,
                per_client: self.front.max_connections_per_client.map(|n| n as usize),
                head_timeout: seconds(self.front.request_head_timeout),
                idle_timeout: seconds(self.front.keep_alive_timeout),
                send_timeout: seconds(self.front.send_timeout),
            },
            body_timeout: seconds(self.front.request_body_timeout),
            descriptors: Some(descriptors),
            // Agents reach it at the address it listens on, unless that is
            // any address or a port picked at start-up.
            listen_url: (!self.listen.ip().is_unspecified() && self.listen.port() != 0)
                .then(|| format!("http://{}", self.listen)),
            census_interval: Duration::from_secs(self.census_interval),
        })
    }
}

/// Who may use the gateway over HTTP. With neither keys nor an
/// authorization server, anyone who reaches the port may: fine on loopback,
/// and warned about on any other address.
#[derive(Args)]
#[command(next_help_heading = "Letting agents in")]
struct AgentChoice {
    /// Let in agents that show one of the keys this file lists by their
    /// SHA-256 (`agent-key` makes them); re-read on SIGHUP, so a key is added
    /// or revoked without a restart.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["stdio", "config"])]
    agent_keys: Option<PathBuf>,
    /// The header agents show their key in, instead of `Authorization: Bearer`.
    #[arg(long, value_name = "NAME", requires = "agent_keys")]
    agent_key_header: Option<String>,
    /// Let in agents with an access token (a JWT) of this authorization
    /// server, given by its issuer URL: MCP authorization, with this gateway
    /// as the OAuth resource server. Repeat for several.
    #[arg(long, value_name = "URL", conflicts_with_all = ["stdio", "config"])]
    oauth_issuer: Vec<String>,
    /// The scope that lets a token call the read-only tools (by their
    /// hints); tools/list shows such a token those alone.
    #[arg(long, value_name = "SCOPE", requires_all = ["oauth_issuer", "oauth_write_scope"])]
    oauth_read_scope: Option<String>,
    /// The scope that lets a token call every tool.
    #[arg(long, value_name = "SCOPE", requires_all = ["oauth_issuer", "oauth_read_scope"])]
    oauth_write_scope: Option<String>,
    /// Fetch an authorization server's keys again for a token naming an
    /// unknown key (a rotation) at most once in this many seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = agents::DEFAULT_KEY_REFRESH_INTERVAL.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..),
        requires = "oauth_issuer"
    )]
    oauth_key_refresh_interval: u64,
    /// Take authorization servers over plain http even off loopback (by
    /// default only https, or http to a loopback host): their keys decide
    /// who gets in, so only on a network you trust.
    #[arg(long, requires = "oauth_issuer")]
    oauth_allow_http: bool,
    /// The URL agents reach this gateway at (scheme and host, such as
    /// https://mcp.example.com), which tokens must be issued for. Default:
    /// the address it listens on.
    #[arg(long, value_name = "URL", conflicts_with = "config")]
    public_url: Option<String>,
}

impl AgentChoice {
    fn settings(&self) -> AgentsSettings {
        AgentsSettings {
            keys: self.agent_keys.as_ref().map(|file| KeysSettings {
                file: file.clone(),
                header: self.agent_key_header.clone(),
            }),
            oauth: (!self.oauth_issuer.is_empty()).then(|| OAuthSettings {
                issuers: self.oauth_issuer.clone(),
                scopes: self
                    .oauth_read_scope
                    .clone()
                    .zip(self.oauth_write_scope.clone())
                    .map(|(read, write)| ScopeNames { read, write }),
                algorithms: Vec::new(),
                key_refresh_interval: Duration::from_secs(self.oauth_key_refresh_interval),
                cleartext: cleartext(self.oauth_allow_http),
            }),
        }
    }
}

fn cleartext(allowed: bool) -> Cleartext {
    if allowed {
        Cleartext::Allowed
    } else {
        Cleartext::LoopbackOnly
    }
}

fn calls_in_flight(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(calls) => Ok(calls),
        Err(error) => Err(error.to_string()),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let log_lines = start_logs(cli.log_format);
    let ran = run(cli);
    // The lines still waiting are written before anything else is said.
    drop(log_lines);
    match ran {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Tools {
            openapi,
            choice,
            config,
        } => {
            let (openapi, options) = match (config.settings(), openapi) {
                (Some(settings), _) => {
                    let mut settings = settings.map_err(|e| e.to_string())?;
                    if settings.apis.len() > 1 {
                        return Err(one_api_please(&settings, "tools previews one API"));
                    }
                    let api = settings.apis.remove(0);
                    (api.openapi, api.tools)
                }
                (None, Some(openapi)) => (openapi, choice.options()),
                (None, None) => return Err("give --openapi or --config".to_owned()),
            };
            let (catalogue, _) = host::catalogue(&openapi, &options).map_err(|e| e.to_string())?;
            let json = mcp::tools_list_json(&catalogue.tools);
            let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
            // A reader that stops early (`| head`) is not an error.
            match writeln!(std::io::stdout(), "{text}") {
                Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(format!("cannot write the tools: {error}"))
                }
                _ => Ok(()),
            }
        }
        Command::Serve(args) => serve(*args),
        Command::Check(args) => check(*args),
        Command::AgentKey { label, stdin } => {
            let key = if stdin {
                let mut line = String::new();
                std::io::stdin()
                    .read_line(&mut line)
                    .map_err(|e| format!("cannot read the key from stdin: {e}"))?;
                line.trim_end_matches(['\r', '\n']).to_owned()
            } else {
                agents::new_key().map_err(|e| e.to_string())?
            };
            if key.is_empty() {
                return Err("the key read from stdin is empty".to_owned());
            }
            if !stdin {
                println!("{key}");
            }
            eprintln!("{}", agents::line_for(&key, &label));
            Ok(())
        }
        Command::Explain { code } => {
            print!("{}", hosted_mcp_gateway::errors::explain(&code)?);
            Ok(())
        }
    }
}

/// What `serve` serves: the config file's APIs, or the one API of the flags.
fn read_settings(args: &ServeArgs) -> Result<Settings, HostError> {
    args.config
        .settings()
        .unwrap_or_else(|| Ok(flag_settings(args)))
}

/// Asks for --api where one API of several is wanted.
fn one_api_please(settings: &Settings, why: &str) -> String {
    let names: Vec<&str> = settings
        .apis
        .iter()
        .filter_map(|api| api.name.as_deref())
        .collect();
    format!("{why}: name it with --api (one of: {})", names.join(", "))
}

/// The one API the flags describe, served at `/mcp`.
fn flag_settings(args: &ServeArgs) -> Settings {
    let credential = match &args.credential_file {
        Some(path) => CredentialSource::File(path.clone()),
        None => CredentialSource::Env {
            name: CREDENTIAL_ENV.to_owned(),
            required: false,
        },
    };
    Settings {
        apis: vec![ApiSettings {
            name: None,
            openapi: args.openapi.clone().unwrap_or_default(),
            tools: args.choice.options(),
            base_url: args.base_url.clone().unwrap_or_default(),
            credential,
            placement: args.credential_in.clone(),
            ca_file: args.ca_file.clone(),
            agents: args.agents.settings(),
            exchange: args
                .upstream_client_id
                .clone()
                .map(|client_id| ExchangeSettings {
                    client_id,
                    token_url: args.upstream_token_url.clone(),
                    scopes: args.upstream_scope.clone(),
                    cleartext: cleartext(args.upstream_token_allow_http),
                }),
            limits: LimitSettings {
                calls_per_second: args.agent_limits.agent_calls_per_second,
                burst: args.agent_limits.agent_burst,
                calls_in_flight: args.agent_limits.agent_calls_in_flight,
            },
            origin: Origin::Flags,
        }],
        public_url: args.agents.public_url.clone(),
        limits_store: args.agent_limits.agent_limits_redis.clone(),
    }
}

fn serve(args: ServeArgs) -> Result<(), String> {
    let settings = read_settings(&args).map_err(|e| e.to_string())?;
    let limits = args.call_limits();
    let runtime = runtime(args.threads)?;
    if args.stdio {
        if settings.apis.len() > 1 {
            return Err(one_api_please(&settings, "over stdio one API is served"));
        }
        let built = host::build_all(&settings, limits, &Arc::new(Metrics::new()))
            .map_err(|e| e.to_string())?
            .pop()
            .ok_or("no API to serve")?;
        return runtime
            .block_on(async move {
                // stdout belongs to MCP; the log goes to stderr.
                log_serving(&built.settings, &built.summary, "serving over stdio", None);
                mcp::serve_stdio(McpServer::new(built.gateway)).await
            })
            .map_err(|e| e.to_string());
    }
    let options = args.server_options()?;
    // Everything is read before the port is bound: a gateway that cannot
    // serve its documents never accepts a connection.
    let metrics = Arc::new(Metrics::new());
    let server =
        Arc::new(Server::new(&settings, options, Arc::clone(&metrics)).map_err(|e| e.to_string())?);
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        if let Some(admin) = args.admin_listen {
            let admin = tokio::net::TcpListener::bind(admin)
                .await
                .map_err(|e| format!("cannot listen on {admin} (--admin-listen): {e}"))?;
            if let Ok(at) = admin.local_addr() {
                tracing::info!(url = %format!("http://{at}/metrics"), "serving metrics");
            }
            // Ends with the runtime, when the gateway has stopped.
            tokio::spawn(watch::serve_admin(
                admin,
                metrics,
                server.before_scrape(),
                std::future::pending(),
            ));
        }
        tokio::spawn(host::reload_on_hangup(Arc::clone(&server), move || {
            read_settings(&args)
        }));
        server
            .serve(listener, shutdown_signal())
            .await
            .map_err(|e| e.to_string())
    })
}

/// By default one thread serves every connection. A call is a few hops
/// between tasks: on one thread a hop is a queue push, while tokio's
/// multi-thread scheduler wakes an idle worker for it (a futex and a context
/// switch), which cost about 70 µs of CPU a call at one call at a time.
/// Large answers, the only long CPU work, are interpreted on the blocking
/// pool (`gateway::INLINE_ANSWER`). `--threads` trades that for more calls
/// at once on a host with cores to spare.
fn runtime(threads: u16) -> Result<tokio::runtime::Runtime, String> {
    match threads {
        1 => tokio::runtime::Builder::new_current_thread(),
        threads => {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            builder.worker_threads(usize::from(threads));
            builder
        }
    }
    .enable_all()
    .build()
    .map_err(|e| e.to_string())
}

/// `check`: every API built as `serve` would build it (documents,
/// credentials, keys files, gateways), nothing served.
fn check(args: ServeArgs) -> Result<(), String> {
    let settings = read_settings(&args).map_err(|e| e.to_string())?;
    let options = args.server_options()?;
    let server =
        Server::new(&settings, options, Arc::new(Metrics::new())).map_err(|e| e.to_string())?;
    let routes = server.routes();
    for hosted in routes.apis() {
        println!(
            "{}: {} tools, credential {}; letting in {}",
            hosted.settings.path(),
            hosted.summary.tools,
            hosted.summary.credential,
            hosted.gate.describe()
        );
    }
    println!("ok: {} APIs", routes.apis().len());
    Ok(())
}

/// Log lines go to stderr (stdout may be the MCP channel: TC-PROTO-001), at
/// the levels RUST_LOG asks for. Unset or unreadable: the gateway's own events
/// at `info`, and only warnings from the MCP SDK, which otherwise logs every
/// session's start and end.
///
/// Whatever RUST_LOG says, the SDK's `debug` and `trace` events are never
/// written: they print whole messages, the agent's arguments and the
/// answers' bodies among them.
///
/// Lines are written by a thread of their own, in batches
/// ([`watch::LogLines`]), so a call's answer never waits on a write to
/// stderr; none is dropped.
fn start_logs(format: LogFormat) -> watch::Flushed {
    use tracing_subscriber::filter::{filter_fn, EnvFilter};
    use tracing_subscriber::prelude::*;
    let levels =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_LOG_LEVELS));
    let no_message_contents = filter_fn(|event| {
        let message_contents =
            event.target().starts_with("rmcp") && *event.level() > tracing::Level::INFO;
        !(message_contents || is_explained_refusal(event))
    });
    let (writer, written) = watch::LogLines::to_stderr();
    let lines = tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_ansi(false)
        .with_target(false);
    let logs = tracing_subscriber::registry().with(levels);
    match format {
        LogFormat::Text => logs.with(lines.with_filter(no_message_contents)).init(),
        LogFormat::Json => logs
            .with(
                lines
                    .json()
                    .flatten_event(true)
                    .with_filter(no_message_contents),
            )
            .init(),
    }
    written
}

/// rmcp's own warning of a refused `Host` or `Origin`, which prints the host
/// as a Rust debug struct: the gateway logs the refusal itself, naming the
/// option that accepts it (mcp::refusal).
fn is_explained_refusal(event: &tracing::Metadata<'_>) -> bool {
    event.target() == "rmcp::transport::streamable_http_server::tower"
        && event
            .fields()
            .field("host")
            .or(event.fields().field("origin"))
            .is_some()
}

fn parse_placement(text: &str) -> Result<CredentialPlacement, String> {
    text.parse()
}

/// Completes on Ctrl-C or SIGTERM, so the server stops accepting and exits cleanly.
async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(signal) => signal,
                Err(_) => {
                    let _ = interrupt.await;
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_parse_from_their_written_forms() {
        assert_eq!(parse_placement("bearer"), Ok(CredentialPlacement::Bearer));
        assert_eq!(parse_placement("basic"), Ok(CredentialPlacement::Basic));
        assert_eq!(
            parse_placement("header:X-Api-Key"),
            Ok(CredentialPlacement::Header("X-Api-Key".into()))
        );
        assert_eq!(
            parse_placement("query:api_key"),
            Ok(CredentialPlacement::Query("api_key".into()))
        );
        assert!(parse_placement("header:").is_err());
        assert!(parse_placement("cookie:session").is_err());
    }
}
