//! `hosted-mcp-conformance`: runs the conformance suite against a gateway.

use std::{path::PathBuf, process::ExitCode, time::Duration};

use clap::{Args, Parser, Subcommand};
use hosted_mcp_conformance::{
    catalogue::Catalogue,
    client_auth::{self, ClientAuth},
    issuer::Issuer,
    kit,
    launch::{
        default_launches, shell_quoted, Target, Template, Transport, DEFAULT_ENDPOINT,
        DEFAULT_START_TIMEOUT,
    },
    listing::{Listing, Part, TagFilter},
    prepare::Preparation,
    report::{field, DocsUrl, ExpectedEntry, ExpectedFailures, Shard, EXIT_PASSED, EXIT_USAGE},
    run::{self, merge, read_parts, read_reports, run, Options, Reports},
    suite::Suite,
};

/// Checks an OpenAPI-to-MCP gateway against the conformance rules.
///
/// Every rule in docs/rules.md is a Gherkin scenario; the scenarios are
/// built into this program. For each scenario the harness starts a mock
/// upstream API, writes the scenario's OpenAPI document to a temporary file,
/// launches the gateway on it and talks MCP to it as a client would.
///
/// Without --gateway, the reference gateway is checked: built first when the
/// harness runs from the kit's workspace (cargo run), else the
/// hosted-mcp-gateway beside this program or on PATH. Over HTTP it lets in
/// only the harness's client, by tokens of the harness's own authorization
/// server (MCP authorization), so every scenario is judged. See
/// harness/LAUNCH.md for how to plug in another one.
#[derive(Debug, Parser)]
#[command(
    name = "hosted-mcp-conformance",
    version = concat!(env!("CARGO_PKG_VERSION"), " (rules revision ", include_str!(concat!(env!("OUT_DIR"), "/rules_revision.txt")), ")"),
    args_conflicts_with_subcommands = true,
    after_help = "\
Examples:
  hosted-mcp-conformance
      every scenario against the reference gateway over HTTP
  hosted-mcp-conformance --gateway 'node gw.js --spec {openapi} --upstream {base_url} --port {port}'
      check your gateway over HTTP
  hosted-mcp-conformance --gateway '...{port}' --stdio-gateway 'node gw.js --spec {openapi} --upstream {base_url} --stdio'
      check both transports in one run
  hosted-mcp-conformance --tags '@TC-NAME-007'
      the scenarios of one rule
  hosted-mcp-conformance --gateway '...' --expected-failures known.txt --junit junit.xml --json rules.json --html report.html
      gate a CI job on a baseline, with reports
  hosted-mcp-conformance --gateway '...' --shard 2/4 --json shard-2.json
  hosted-mcp-conformance merge shard-*.json --junit junit.xml --html report.html
      split a slow gateway's run over a CI matrix, then join the reports
  hosted-mcp-conformance list --tags 'not @recommended'
      the rules and scenarios a run would judge, and where the scenarios are
  hosted-mcp-conformance show TC-NAME-007
      one rule: its level, wording and scenarios' text

Exit status:
  0  every required rule passed (recommended rules not met, expected failures,
     scenarios not run, and scenarios not judged because the gateway breaks
     another rule they rely on, are reported and do not fail the run)
  1  a required rule failed (with --strict, also a recommended rule), or an
     expected failure now passes (stale)
  2  bad usage: an option, a template, --tags naming a tag no scenario
     carries or matching no scenario, an unreadable expected-failures file
     or one naming no rule or scenario of the suite, reports merge cannot
     join (a shard missing or twice, another gateway, kit or rules revision)
  3  nothing failed, but not everything could be judged: the gateway did not
     start or crashed, a step has no definition, or no scenario ran or was
     judged (a gateway whose first launches all fail alike is not launched
     again: its scenarios are errors of that one cause, shown once)
  130, 143  stopped by Ctrl-C (SIGINT) or SIGTERM: every gateway launched is
     killed, temporary folders removed, the summary so far printed
The last line printed is `N passed, N failed`, followed by the other counts."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Join the JSON reports of several runs (the shards of a CI matrix, or an
    /// HTTP and a stdio run) into one report: terminal, JUnit, JSON, HTML.
    /// With --expected-failures, the joined run is judged against that list
    /// alone, in place of the lists the runs were judged with: so a baseline
    /// edited since is checked on the same run without running it again.
    Merge {
        /// The JSON reports written with --json.
        #[arg(required = true, value_name = "REPORT")]
        reports: Vec<PathBuf>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// List the rules (ID, level, wording) and, under each, its scenarios
    /// (file:line, name, tags); say where the built-in feature files are.
    List {
        /// Only the rules.
        #[arg(long, conflicts_with_all = ["scenarios", "json"])]
        rules: bool,
        /// Only the scenarios, one a line.
        #[arg(long, conflicts_with = "json")]
        scenarios: bool,
        /// Print the listing as JSON.
        #[arg(long)]
        json: bool,
        /// Only what this tag expression selects, as a run's --tags would.
        #[arg(long, value_name = "EXPR")]
        tags: Option<TagFilter>,
        /// A folder of .feature files to list instead of the built-in ones.
        #[arg(long, value_name = "DIR")]
        features: Option<PathBuf>,
    },
    /// Show one rule: its level, wording and source, and the full text of
    /// its scenarios with their file:line.
    Show {
        /// The rule's ID, e.g. TC-NAME-007.
        #[arg(value_name = "RULE")]
        rule: String,
        /// A folder of .feature files to read instead of the built-in ones.
        #[arg(long, value_name = "DIR")]
        features: Option<PathBuf>,
    },
    /// Write the field's pages for the docs site from the JSON reports of
    /// several gateways, each run with --gateway-name: a table of every
    /// gateway by section, and a page per gateway with its failures and
    /// their evidence (`examples/peers/table` runs it).
    Field {
        /// The JSON reports, one per gateway.
        #[arg(required = true, value_name = "REPORT")]
        reports: Vec<PathBuf>,
        /// The docs folder: field.md and field-GATEWAY.md go there, listed
        /// in its SUMMARY.md.
        #[arg(long, value_name = "DIR", default_value = "docs")]
        docs: PathBuf,
    },
}

#[derive(Debug, Args)]
struct RunArgs {
    /// Command that starts the gateway under test. Placeholders: {openapi}
    /// (the document's path), {base_url} (the mock upstream), {port} (the
    /// port to listen on, HTTP only); with --client-auth oauth, {issuer} and
    /// {jwks_uri} (the harness's authorization server) and {resource} (the
    /// endpoint's URL). The credential is in the environment variable
    /// HOSTED_MCP_CREDENTIAL, where it goes in HOSTED_MCP_CREDENTIAL_IN.
    /// It speaks the transport of --transport.
    #[arg(long, value_name = "TEMPLATE")]
    gateway: Option<String>,

    /// A second command, for the same gateway over stdio, when --gateway is
    /// the HTTP one: scenarios of both transports then run in one go.
    #[arg(long, value_name = "TEMPLATE", requires = "gateway")]
    stdio_gateway: Option<String>,

    /// How to speak MCP to the --gateway command: Streamable HTTP at
    /// http://127.0.0.1:{port}/mcp (see --endpoint), or the child's stdin/stdout. Scenarios
    /// tagged @http or @stdio need that transport; the others use this one.
    #[arg(long, value_enum, default_value_t = Transport::Http)]
    transport: Transport,

    /// The path the HTTP gateway serves MCP at, for a gateway that does not
    /// use /mcp (`/api/mcp`, `/`).
    #[arg(long, value_name = "PATH", default_value = DEFAULT_ENDPOINT, requires = "gateway")]
    endpoint: String,

    /// For an HTTP gateway that lets in only clients it knows: where the
    /// harness's client puts its credential, `bearer` (Authorization:
    /// Bearer) or `header:NAME`. The credential is new to each run, handed
    /// to the gateway in HOSTED_MCP_CLIENT_CREDENTIAL, and masked in every
    /// report; it is not the upstream credential. `oauth`: the gateway
    /// checks access tokens (MCP authorization); the harness runs an
    /// authorization server on loopback, tells the gateway of it through
    /// {issuer} or {jwks_uri}, and shows tokens it mints for the resource
    /// the gateway names. Without it, the scenarios tagged @client-auth
    /// (what a gateway does with that credential) are not run, nor without
    /// `oauth` those tagged @oauth (MCP authorization).
    #[arg(long, value_name = "PLACE", requires = "gateway")]
    client_auth: Option<String>,

    /// A command that builds the gateway from each document before its first
    /// launch, as code generators do: run once per distinct document and
    /// kept for the run. Placeholders: {openapi}, and {prepared}, the folder
    /// to build in, which the gateway's template may use too. A step that
    /// exits non-zero refuses the document, as a gateway that exits would.
    #[arg(long, value_name = "TEMPLATE", requires = "gateway")]
    prepare: Option<String>,

    /// Keep what --prepare makes in this folder across runs: a later run
    /// with the same step on the same document runs nothing. Clear it (or
    /// use another) when the step's program changes.
    #[arg(long, value_name = "DIR", requires = "prepare")]
    prepare_cache: Option<PathBuf>,

    /// The kinds of place the gateway can put the upstream credential in,
    /// of bearer, basic, header and query (`bearer,header`), for a gateway
    /// that cannot take some: a scenario that wants it elsewhere is not run,
    /// with the reason, and its rule is not reported as passed.
    #[arg(long, value_name = "KINDS", requires = "gateway")]
    credential_in: Option<String>,

    /// A folder of .feature files to run instead of the built-in scenarios
    /// (`list` prints where those are written: copy and edit them).
    #[arg(long, value_name = "DIR")]
    features: Option<PathBuf>,

    /// Run only scenarios matching this tag expression, e.g. '@TC-NAME-007'
    /// or '@TC-PROTO-002 or @TC-PROTO-003' or 'not @recommended'. A tag no
    /// scenario carries, or an expression matching none, is refused.
    #[arg(long, value_name = "EXPR")]
    tags: Option<TagFilter>,

    /// Run one part of the suite, I of N (from 1): a stable split by
    /// scenario, for a CI matrix; join the parts' --json reports with `merge`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<Shard>,

    /// Run only the scenario at this place, written as reports write it
    /// (`features/answer.feature:58`); may be given more than once. Each
    /// failure in a report ends with the command that reruns it this way.
    #[arg(long, value_name = "FILE:LINE")]
    scenario: Vec<String>,

    /// Keep every scenario's document (and the files beside it) in DIR, one
    /// folder per scenario. Without it, only failing scenarios' files are
    /// kept, in a folder of the temporary directory; reports give the path.
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,

    /// How many scenarios run at once.
    #[arg(long, value_name = "N", default_value_t = 32)]
    concurrency: usize,

    /// How many gateways may be starting at once; the others wait their
    /// turn, and a gateway's start-up window opens only with its launch.
    /// Default: the number of CPUs.
    #[arg(long, value_name = "N")]
    launches: Option<usize>,

    /// How long a gateway may take from its launch to accept TCP connections
    /// (HTTP) or answer the handshake (stdio), or to exit when it refuses its
    /// document.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_START_TIMEOUT.as_secs_f64())]
    start_timeout: f64,

    /// Stop after N scenarios failed the run or could not be judged: launch
    /// no more gateways, and report the scenarios left as not run (those
    /// under way finish).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_failures: Option<u64>,

    /// Launch a gateway for every scenario. By default an HTTP gateway that
    /// served a scenario, and answered its every call, is kept for the next
    /// one with the same document, credential and placement, with a fresh
    /// MCP session and a reset mock upstream; scenarios about starting or
    /// stopping, and stdio ones, always launch their own.
    #[arg(long)]
    isolate: bool,

    /// What the gateway under test is, with its version (`FastMCP 4.2.3`):
    /// the reports and the badge name it so, and `field` needs it.
    #[arg(long, value_name = "NAME")]
    gateway_name: Option<String>,

    /// Print every step of every scenario as it runs, not just progress and
    /// what failed.
    #[arg(long, short)]
    verbose: bool,

    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Debug, Args)]
struct OutputArgs {
    /// Write a JUnit XML report here: one test case per scenario; only broken
    /// required rules are failures, start-up problems are errors.
    #[arg(long, value_name = "PATH")]
    junit: Option<PathBuf>,

    /// Write a JSON report here: the verdict, each rule with its level,
    /// source and scenarios, and each scenario in full (see `merge`).
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,

    /// Write a self-contained HTML report here (opens from disk, no network).
    #[arg(long, value_name = "PATH")]
    html: Option<PathBuf>,

    /// The kit's documentation site (docs/ built with mdBook), e.g.
    /// https://example.org/conformance: the HTML report then also links each
    /// failure's rule to URL/rules.html#TC-... and each error code it explains
    /// to URL/errors.html#code. Without it the page links only within itself.
    #[arg(long, value_name = "URL", requires = "html")]
    docs_url: Option<DocsUrl>,

    /// Write an SVG badge here for a README: required rules passed of all,
    /// recommended ones met, and the rules revision they were judged at.
    #[arg(long, value_name = "PATH")]
    badge: Option<PathBuf>,

    /// Failures known and accepted for now: lines of `KEY -- REASON`, KEY a
    /// rule ID or a scenario's name (one that names neither is refused).
    /// They do not fail the run, nor do listed scenarios that could not be
    /// judged; a listed one that passes fails it as stale (in a shard, only
    /// when every scenario it covers ran there).
    #[arg(long, value_name = "FILE")]
    expected_failures: Option<PathBuf>,

    /// Fail the run on recommended rules too, not only required ones.
    #[arg(long)]
    strict: bool,
}

impl OutputArgs {
    fn reports(&self) -> Reports {
        Reports {
            junit: self.junit.clone(),
            json: self.json.clone(),
            html: self.html.clone(),
            docs_url: self.docs_url.clone(),
            badge: self.badge.clone(),
        }
    }

    /// The expected failures, each naming a rule or scenario of `suite`.
    fn expected(
        &self,
        suite: impl FnOnce() -> anyhow::Result<Suite>,
    ) -> anyhow::Result<Vec<ExpectedEntry>> {
        let Some(path) = &self.expected_failures else {
            return Ok(Vec::new());
        };
        let list = ExpectedFailures::read(path)?;
        list.check(&suite()?)?;
        Ok(list.entries)
    }
}

fn parse_shard(text: &str) -> Result<Shard, String> {
    let (index, count) = text
        .split_once('/')
        .ok_or("write the shard as I/N, e.g. 2/4")?;
    let index: u32 = index.trim().parse().map_err(|_| "I is not a number")?;
    let count: u32 = count.trim().parse().map_err(|_| "N is not a number")?;
    if count == 0 || index == 0 || index > count {
        return Err(format!("shard {index}/{count}: I goes from 1 to N"));
    }
    Ok(Shard { index, count })
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Some(Command::Merge { reports, output }) => (|| {
            // Reports that cannot be joined are bad input, as a bad option is.
            let merged = read_parts(&reports).map_err(usage)?;
            let expected = output
                .expected(|| {
                    // The suite that ran: the kit's, and any scenario of the reports.
                    let mut suite = Suite::read(&kit::features_folder()?)?;
                    suite.extend(
                        merged
                            .scenarios
                            .iter()
                            .map(|s| (s.name.as_str(), s.rules.as_slice())),
                    );
                    suite.extend(
                        merged
                            .in_other_shards
                            .iter()
                            .map(|s| (s.name.as_str(), s.rules.as_slice())),
                    );
                    Ok(suite)
                })
                .map_err(usage)?;
            merge(merged, &expected, &output.reports()).map_err(failure)
        })(),
        Some(Command::Field { reports, docs }) => (|| {
            let runs = read_reports(&reports).map_err(usage)?;
            // Paths under the working folder are written relative to it.
            let root = std::env::current_dir()
                .map(|dir| format!("{}/", dir.display()))
                .unwrap_or_default();
            let pages = field::pages(&runs, &root).map_err(usage)?;
            for path in field::write(&docs, &pages).map_err(failure)? {
                println!("wrote {}", path.display());
            }
            Ok(EXIT_PASSED)
        })(),
        Some(Command::List {
            rules,
            scenarios,
            json,
            tags,
            features,
        }) => {
            let part = match (rules, scenarios) {
                (true, _) => Part::Rules,
                (_, true) => Part::Scenarios,
                _ => Part::Both,
            };
            list(features.as_deref(), tags.as_ref(), part, json)
        }
        Some(Command::Show { rule, features }) => (|| {
            let listing = Listing::of(features.as_deref()).map_err(usage)?;
            let text = listing.show(Catalogue::embedded(), &rule).map_err(usage)?;
            print_out(&text)
        })(),
        None => run_suite(cli.run).await,
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(code) => ExitCode::from(code),
    }
}

/// Prints the suite's rules and scenarios, as text or JSON.
fn list(
    features: Option<&std::path::Path>,
    tags: Option<&TagFilter>,
    part: Part,
    json: bool,
) -> Result<u8, u8> {
    let listing = Listing::of(features).map_err(usage)?;
    if let Some(filter) = tags {
        listing.check(filter).map_err(usage)?;
    }
    let catalogue = Catalogue::embedded();
    if json {
        print_out(&format!("{:#}\n", listing.json(catalogue, tags)))
    } else {
        print_out(&listing.text(catalogue, part, tags))
    }
}

/// Prints a listing; a reader that stops early (`| head`) is no error.
fn print_out(text: &str) -> Result<u8, u8> {
    use std::io::Write as _;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => Err(failure(error.into())),
        _ => Ok(0),
    }
}

async fn run_suite(args: RunArgs) -> Result<u8, u8> {
    // Before the gateway is looked for (or built): a typo is the first news.
    if let Some(filter) = &args.tags {
        Listing::of(args.features.as_deref())
            .and_then(|listing| listing.check(filter))
            .map_err(usage)?;
    }
    let target = match &args.gateway {
        Some(text) => {
            let mut main = Template::parse(text, args.transport).map_err(usage)?;
            if args.transport == Transport::Http {
                main = main.at_endpoint(&args.endpoint).map_err(usage)?;
                if let Some(place) = &args.client_auth {
                    let auth = if place.eq_ignore_ascii_case(client_auth::OAUTH) {
                        ClientAuth::oauth(Issuer::start().await.map_err(failure)?)
                    } else {
                        ClientAuth::parse(place).map_err(usage)?
                    };
                    main = main.with_client_auth(auth).map_err(usage)?;
                }
            } else if args.client_auth.is_some() {
                return Err(usage(anyhow::anyhow!(
                    "--client-auth is for an HTTP gateway; a stdio gateway's client is the process that started it"
                )));
            }
            let mut target = Target::custom(main, args.transport);
            if let Some(stdio) = &args.stdio_gateway {
                if args.transport == Transport::Stdio {
                    return Err(usage(anyhow::anyhow!(
                        "--stdio-gateway goes with an HTTP --gateway; drop --transport stdio"
                    )));
                }
                target =
                    target.with_stdio(Template::parse(stdio, Transport::Stdio).map_err(usage)?);
            }
            if let Some(kinds) = &args.credential_in {
                target = target.taking_credential_in(kinds).map_err(usage)?;
            }
            target
        }
        None => Target::reference(Issuer::start().await.map_err(failure)?).map_err(usage)?,
    };
    if !(args.start_timeout.is_finite() && args.start_timeout > 0.0) {
        return Err(usage(anyhow::anyhow!(
            "--start-timeout must be a positive number of seconds"
        )));
    }
    let expected = args
        .output
        .expected(|| match &args.features {
            Some(folder) => Suite::read(folder),
            None => Suite::read(&kit::features_folder()?),
        })
        .map_err(usage)?;
    let scenarios = run::places(&args.scenario, args.features.as_deref()).map_err(usage)?;
    let rerun = rerun_command(&args);
    let preparation = match &args.prepare {
        Some(step) => Some(Preparation::new(
            Template::parse_preparation(step).map_err(usage)?,
            args.prepare_cache.clone(),
        )),
        None => None,
    };
    let options = Options {
        target,
        preparation,
        transport: args.transport,
        features: args.features,
        tags: args.tags.map(|filter| filter.expression),
        reports: args.output.reports(),
        strict: args.output.strict,
        concurrency: args.concurrency.max(1),
        launches: args.launches.unwrap_or_else(default_launches).max(1),
        start_timeout: Duration::from_secs_f64(args.start_timeout),
        expected,
        shard: args.shard,
        max_failures: args
            .max_failures
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        verbose: args.verbose,
        scenarios,
        keep: args.keep,
        rerun,
        isolate: args.isolate,
        gateway_name: args.gateway_name,
    };
    run(options).await.map_err(failure)
}

/// The command line that reruns one scenario of this run: the same gateway,
/// transport, features and start-up window, and no reports; the recorder
/// adds `--scenario PLACE`.
fn rerun_command(args: &RunArgs) -> String {
    let mut words = vec!["hosted-mcp-conformance".to_owned()];
    let mut option = |name: &str, value: &str| {
        words.push(name.to_owned());
        words.push(shell_quoted(value));
    };
    if let Some(gateway) = &args.gateway {
        option("--gateway", gateway);
    }
    if let Some(stdio) = &args.stdio_gateway {
        option("--stdio-gateway", stdio);
    }
    if args.transport != Transport::Http {
        option("--transport", args.transport.name());
    }
    if args.endpoint != DEFAULT_ENDPOINT {
        option("--endpoint", &args.endpoint);
    }
    if let Some(place) = &args.client_auth {
        option("--client-auth", place);
    }
    if let Some(kinds) = &args.credential_in {
        option("--credential-in", kinds);
    }
    if let Some(step) = &args.prepare {
        option("--prepare", step);
    }
    if let Some(folder) = &args.prepare_cache {
        option("--prepare-cache", &folder.display().to_string());
    }
    if let Some(folder) = &args.features {
        let folder = folder.canonicalize().unwrap_or_else(|_| folder.clone());
        option("--features", &folder.display().to_string());
    }
    if args.start_timeout != DEFAULT_START_TIMEOUT.as_secs_f64() {
        option("--start-timeout", &args.start_timeout.to_string());
    }
    words.join(" ")
}

fn usage(error: anyhow::Error) -> u8 {
    eprintln!("hosted-mcp-conformance: {error:#}");
    EXIT_USAGE
}

/// The harness itself failed (a report it could not write, say): the run
/// could not be judged.
fn failure(error: anyhow::Error) -> u8 {
    eprintln!("hosted-mcp-conformance: {error:#}");
    hosted_mcp_conformance::report::EXIT_ERROR
}
