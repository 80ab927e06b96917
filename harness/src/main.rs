//! `hosted-mcp-conformance`: runs the conformance suite against a gateway.

use std::{path::PathBuf, process::ExitCode};

use clap::Parser;
use hosted_mcp_conformance::{
    launch::{Target, Template, Transport},
    run::{run, Options},
};

/// Checks an OpenAPI-to-MCP gateway against the conformance rules.
///
/// Every rule in docs/rules.md is a Gherkin scenario in the features
/// directory. For each scenario the harness starts a mock upstream API,
/// writes the scenario's OpenAPI document to a temporary file, launches the
/// gateway on it and talks MCP to it as a client would.
///
/// Without --gateway, the reference gateway of this workspace is used (built
/// first if needed). See harness/LAUNCH.md for how to plug in another one.
#[derive(Debug, Parser)]
#[command(
    name = "hosted-mcp-conformance",
    version,
    after_help = "\
Examples:
  hosted-mcp-conformance
      run every scenario against the reference gateway over HTTP
  hosted-mcp-conformance --tags '@TC-NAME-007'
      run the scenarios of one rule
  hosted-mcp-conformance --transport stdio --gateway 'python -m mygw --spec {openapi} --upstream {base_url}'
      check a Python gateway over stdio
  hosted-mcp-conformance --junit reports/junit.xml --json reports/rules.json --strict
      write reports for CI and fail on recommended rules too

Exit status: 0 when every required rule passed (and, with --strict, every
recommended one); 1 when a scenario failed or was skipped, or none ran;
2 on bad usage. The last line printed is `N passed, N failed`."
)]
struct Cli {
    /// Command that starts the gateway under test. Placeholders: {openapi}
    /// (the document's path), {base_url} (the mock upstream), {port} (the
    /// port to listen on, HTTP only). The credential is in the environment
    /// variable HOSTED_MCP_CREDENTIAL.
    #[arg(long, value_name = "TEMPLATE")]
    gateway: Option<String>,

    /// How to speak MCP to the gateway: Streamable HTTP at
    /// http://127.0.0.1:{port}/mcp, or the child's stdin/stdout. Scenarios
    /// tagged @http or @stdio use that transport when the gateway offers it.
    #[arg(long, value_enum, default_value_t = Transport::Http)]
    transport: Transport,

    /// Directory of .feature files.
    #[arg(long, value_name = "DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../features"))]
    features: PathBuf,

    /// Run only scenarios matching this tag expression, e.g. '@TC-NAME-007'
    /// or '@TC-PROTO-002 or @TC-PROTO-003' or 'not @recommended'.
    #[arg(long, value_name = "EXPR")]
    tags: Option<cucumber::gherkin::tagexpr::TagOperation>,

    /// Write a JUnit XML report here (one test case per scenario).
    #[arg(long, value_name = "PATH")]
    junit: Option<PathBuf>,

    /// Write a JSON report here (each rule with its status and scenarios).
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,

    /// Fail the run on recommended rules too, not only required ones.
    #[arg(long)]
    strict: bool,

    /// How many scenarios run at once.
    #[arg(long, value_name = "N", default_value_t = 64)]
    concurrency: usize,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let target = match &cli.gateway {
        Some(text) => {
            Template::parse(text, cli.transport).map(|t| Target::custom(t, cli.transport))
        }
        None => Target::reference(),
    };
    let target = match target {
        Ok(target) => target,
        Err(error) => {
            eprintln!("hosted-mcp-conformance: {error:#}");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        target,
        transport: cli.transport,
        features: cli.features,
        tags: cli.tags,
        junit: cli.junit,
        json: cli.json,
        strict: cli.strict,
        concurrency: cli.concurrency.max(1),
    };
    match run(options).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("hosted-mcp-conformance: {error:#}");
            ExitCode::FAILURE
        }
    }
}
