//! `hosted-mcp-gateway`: puts an MCP server in front of an HTTP API described by OpenAPI.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use hosted_mcp_gateway::convert::{self, Catalogue, CredentialPlacement};
use hosted_mcp_gateway::gateway::{Gateway, Limits, UpstreamConfig, DEFAULT_CALLS_IN_FLIGHT};
use hosted_mcp_gateway::load;
use hosted_mcp_gateway::mcp::{self, HttpAccess, McpServer, Sessions};
use hosted_mcp_gateway::secret::Secret;

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
        #[arg(long, value_name = "FILE")]
        openapi: PathBuf,
        #[command(flatten)]
        choice: ToolChoice,
    },
    /// Serve the document's tools over MCP (Streamable HTTP at /mcp, or stdio).
    Serve(Box<ServeArgs>),
    /// Explain an error code an agent got (`UPSTREAM_STATUS`, or `[UPSTREAM_STATUS]`):
    /// what it means, an example, what the agent and the operator should do, and
    /// the rules whose scenarios produce it.
    Explain {
        /// The code, as the message starts with it.
        code: String,
    },
}

/// Which operations become tools, and how long their names may be. With
/// none given, every operation that is not deprecated is a tool, named as
/// the rules say. Includes are alternatives; an exclude always wins.
#[derive(Args)]
#[command(next_help_heading = "Choosing the tools")]
struct ToolChoice {
    /// Serve only operations with one of these tags (repeat, or separate
    /// with commas).
    #[arg(long, value_name = "TAG", value_delimiter = ',')]
    include_tags: Vec<String>,
    /// Leave out operations with any of these tags.
    #[arg(long, value_name = "TAG", value_delimiter = ',')]
    exclude_tags: Vec<String>,
    /// Serve only tools whose name matches one of these globs (`Get*`,
    /// `*Charge*`); the name as the naming rules give it.
    #[arg(long, value_name = "GLOB", value_parser = glob_pattern)]
    include_tools: Vec<glob::Pattern>,
    /// Leave out tools whose name matches any of these globs.
    #[arg(long, value_name = "GLOB", value_parser = glob_pattern)]
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
    #[arg(long, value_name = "FILE")]
    openapi: PathBuf,
    #[command(flatten)]
    choice: ToolChoice,
    /// The API owner's verified host; each operation's path is appended to it.
    #[arg(long, value_name = "URL")]
    base_url: String,
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
    #[arg(long, value_name = "FILE")]
    credential_file: Option<PathBuf>,
    /// Where the credential goes: `bearer`, `basic` (credential is user:password,
    /// or a user name alone with an empty password),
    /// `header:NAME` or `query:NAME`. Default: the document's security scheme.
    #[arg(long, value_name = "PLACE", value_parser = parse_placement)]
    credential_in: Option<CredentialPlacement>,
    /// Trust the certificate authorities in this PEM file for the base URL's
    /// host, besides the system's (an API behind a private CA). Certificates
    /// are always verified.
    #[arg(long, value_name = "FILE")]
    ca_file: Option<PathBuf>,
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
        default_value_t = mcp::DEFAULT_CENSUS_INTERVAL.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..),
        conflicts_with = "stdio"
    )]
    census_interval: u64,
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
    start_logs(cli.log_format);
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Tools { openapi, choice } => {
            let (catalogue, _) = catalogue(&openapi, &choice)?;
            let json = mcp::tools_list_json(&catalogue.tools);
            let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
            println!("{text}");
            Ok(())
        }
        Command::Serve(args) => serve(*args),
        Command::Explain { code } => {
            print!("{}", hosted_mcp_gateway::errors::explain(&code)?);
            Ok(())
        }
    }
}

/// The document's tools, and how many of its operations were left out as
/// deprecated (TC-NAME-010).
fn catalogue(openapi: &Path, choice: &ToolChoice) -> Result<(Catalogue, usize), String> {
    let document = load::load_path(openapi).map_err(|e| e.to_string())?;
    // What was passed over (an external `$ref`, a parameter in an unknown place)
    // is said in the log on stderr, which stays free of MCP traffic even over stdio.
    for warning in &document.warnings {
        tracing::warn!("{warning}");
    }
    let deprecated = document
        .operations
        .iter()
        .filter(|op| op.deprecated)
        .count();
    let catalogue =
        convert::convert_with(&document, &choice.options()).map_err(|e| e.to_string())?;
    for selector in &catalogue.unmatched_selectors {
        tracing::warn!("{selector} names no operation of the document: nothing is chosen by it");
    }
    Ok((catalogue, deprecated))
}

/// Below this many characters a credential is likely to stand in ordinary
/// text (a credential `e` masks `method` as `m[credential]thod`).
const SHORT_CREDENTIAL: usize = 8;

/// Where the credential goes and why, for the start-up line; and, once
/// each, the warnings an operator should act on before the first call.
fn review_setup(catalogue: &Catalogue, upstream: &UpstreamConfig, args: &ServeArgs) -> String {
    if catalogue.tools.is_empty() {
        tracing::warn!(
            document = %args.openapi.display(),
            "the document gives no tool: it has no operation that is not deprecated"
        );
    }
    let not_json: Vec<&str> = catalogue
        .tools
        .iter()
        .filter(|tool| {
            tool.plan
                .body
                .as_ref()
                .is_some_and(|body| !is_json(&body.content_type))
        })
        .map(|tool| tool.name.as_str())
        .collect();
    if let Some(first) = not_json.first() {
        tracing::warn!(
            operations = not_json.len(),
            first = %first,
            "operations whose request body the document gives only in a media type that is not \
             JSON: the gateway sends their body as JSON with that type, which the API may refuse"
        );
    }
    let Some(credential) = &upstream.credential else {
        tracing::warn!(
            "no credential is set ({CREDENTIAL_ENV} or --credential-file): requests go to the API \
             without one"
        );
        return "none".to_owned();
    };
    let length = credential.expose().chars().count();
    if length < SHORT_CREDENTIAL {
        tracing::warn!(
            "the credential is only {length} characters long: every occurrence of it in an answer \
             is masked as [credential], which garbles ordinary text"
        );
    }
    let (placement, why) = match (&upstream.placement, &catalogue.default_credential) {
        (Some(placement), _) => (placement, "--credential-in".to_owned()),
        (None, Some(placement)) => (
            placement,
            format!(
                "the document's security scheme {}",
                catalogue.credential_scheme.as_deref().unwrap_or_default()
            ),
        ),
        (None, None) => (
            &CredentialPlacement::Bearer,
            "the default: the document names no usable security scheme".to_owned(),
        ),
    };
    let place = match placement {
        CredentialPlacement::Header(name) => format!("header {name}"),
        CredentialPlacement::Bearer => "Authorization: Bearer".to_owned(),
        CredentialPlacement::Basic => "Authorization: Basic".to_owned(),
        CredentialPlacement::Query(name) => format!("query parameter {name}"),
    };
    format!("{place}, from {why}")
}

/// `application/json` or a `+json` type, whatever its parameters.
fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    essence.eq_ignore_ascii_case("application/json")
        || essence.to_ascii_lowercase().ends_with("+json")
}

fn serve(args: ServeArgs) -> Result<(), String> {
    let (catalogue, deprecated) = catalogue(&args.openapi, &args.choice)?;
    let unselected = catalogue.left_out_by_selection;
    let credential = read_credential(args.credential_file.as_deref())?;
    let trusted_ca_pem = match &args.ca_file {
        Some(path) => Some(
            std::fs::read(path)
                .map_err(|e| format!("cannot read the CA file {}: {e}", path.display()))?,
        ),
        None => None,
    };
    let upstream = UpstreamConfig {
        base_url: args.base_url.clone(),
        credential,
        placement: args.credential_in.clone(),
        trusted_ca_pem,
    };
    let credential_goes = review_setup(&catalogue, &upstream, &args);
    let tool_count = catalogue.tools.len();
    let limits = Limits {
        calls_in_flight: args.max_calls,
        ..Limits::default()
    };
    let idle_timeout = Duration::from_secs(args.session_idle_timeout);
    if !args.stdio && !args.stateless && idle_timeout <= limits.deadline {
        tracing::warn!(
            "--session-idle-timeout {}s is not above the {}s call deadline: a session whose only \
             activity is a call waiting on the API is closed under it, and the call goes \
             unanswered",
            idle_timeout.as_secs(),
            limits.deadline.as_secs()
        );
    }
    let gateway = Gateway::with_limits(catalogue, upstream, limits).map_err(|e| e.to_string())?;
    let server = McpServer::new(Arc::new(gateway));

    // By default one thread serves every connection. A call is a few hops
    // between tasks (hyper, rmcp's session, the handler, reqwest): on one
    // thread a hop is a queue push, while tokio's multi-thread scheduler wakes
    // an idle worker for it (a futex and a context switch), which cost about
    // 70 µs of CPU a call at one call at a time. Large answers, the only long
    // CPU work, are interpreted on the blocking pool (`gateway::INLINE_ANSWER`).
    // `--threads` trades that for more calls at once on a many-core host.
    let runtime = match args.threads {
        1 => tokio::runtime::Builder::new_current_thread(),
        threads => {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            builder.worker_threads(usize::from(threads));
            builder
        }
    }
    .enable_all()
    .build()
    .map_err(|e| e.to_string())?;
    runtime
        .block_on(async move {
            if args.stdio {
                // stdout belongs to MCP; the log goes to stderr.
                tracing::info!(
                    tools = tool_count,
                    deprecated_left_out = deprecated,
                    not_chosen = unselected,
                    document = %args.openapi.display(),
                    base_url = %args.base_url,
                    credential = %credential_goes,
                    "serving over stdio"
                );
                mcp::serve_stdio(server).await
            } else {
                let listener = tokio::net::TcpListener::bind(args.listen)
                    .await
                    .map_err(|e| {
                        std::io::Error::new(
                            e.kind(),
                            format!("cannot listen on {}: {e}", args.listen),
                        )
                    })?;
                if let Some(address) = mcp::bound_address(&listener) {
                    let url = format!("http://{address}{}", mcp::ENDPOINT);
                    tracing::info!(
                        tools = tool_count,
                        deprecated_left_out = deprecated,
                        not_chosen = unselected,
                        document = %args.openapi.display(),
                        base_url = %args.base_url,
                        credential = %credential_goes,
                        url = %url,
                        "serving over HTTP"
                    );
                }
                let access = HttpAccess {
                    allowed_hosts: args.allowed_hosts,
                    allowed_origins: args.allowed_origins,
                };
                let sessions = if args.stateless {
                    Sessions::Stateless
                } else {
                    Sessions::InMemory { idle_timeout }
                };
                mcp::serve_http(
                    server,
                    listener,
                    access,
                    sessions,
                    Duration::from_secs(args.census_interval),
                    shutdown_signal(),
                )
                .await
            }
        })
        .map_err(|e| e.to_string())
}

/// Log lines go to stderr (stdout may be the MCP channel: TC-PROTO-001), at
/// the levels RUST_LOG asks for. Unset or unreadable: the gateway's own events
/// at `info`, and only warnings from the MCP SDK, which otherwise logs every
/// session's start and end.
///
/// Whatever RUST_LOG says, the SDK's `debug` and `trace` events are never
/// written: they print whole messages, the agent's arguments and the
/// answers' bodies among them.
fn start_logs(format: LogFormat) {
    use tracing_subscriber::filter::{filter_fn, EnvFilter};
    use tracing_subscriber::prelude::*;
    let levels =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_LOG_LEVELS));
    let no_message_contents = filter_fn(|event| {
        let message_contents =
            event.target().starts_with("rmcp") && *event.level() > tracing::Level::INFO;
        !(message_contents || is_explained_refusal(event))
    });
    let lines = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
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

/// The credential from `--credential-file` or the environment, never from the
/// command line, where the process list would show it.
fn read_credential(file: Option<&Path>) -> Result<Option<Secret>, String> {
    let raw = match file {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read credential file {}: {e}", path.display()))?,
        None => match std::env::var(CREDENTIAL_ENV) {
            Ok(value) => value,
            Err(std::env::VarError::NotPresent) => return Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(format!("{CREDENTIAL_ENV} is not valid UTF-8"))
            }
        },
    };
    let credential = raw.strip_suffix('\n').unwrap_or(&raw);
    let credential = credential.strip_suffix('\r').unwrap_or(credential);
    Ok((!credential.is_empty()).then(|| Secret::new(credential)))
}

fn parse_placement(text: &str) -> Result<CredentialPlacement, String> {
    let named = |name: &str| {
        if name.is_empty() {
            Err(format!("`{text}` needs a name after the colon"))
        } else {
            Ok(name.to_string())
        }
    };
    match text.split_once(':') {
        None if text.eq_ignore_ascii_case("bearer") => Ok(CredentialPlacement::Bearer),
        None if text.eq_ignore_ascii_case("basic") => Ok(CredentialPlacement::Basic),
        Some(("header", name)) => named(name).map(CredentialPlacement::Header),
        Some(("query", name)) => named(name).map(CredentialPlacement::Query),
        _ => Err(format!(
            "unknown placement `{text}`: use bearer, basic, header:NAME or query:NAME"
        )),
    }
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
