//! One run of the suite: pick the scenarios, run them, report, decide; and
//! the merging of several runs' JSON reports into one.

use std::{
    collections::BTreeMap,
    io,
    path::PathBuf,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use anyhow::Context as _;
use cucumber::{
    cli, event, gherkin,
    gherkin::tagexpr::TagOperation,
    tag::Ext as _,
    writer::{self, Coloring, Verbosity},
    World as _, WriterExt as _,
};
use futures::FutureExt as _;

use crate::{
    client_auth,
    health::{self, Health},
    interrupt::{Signals, Stop},
    kit,
    launch::{Launcher, Target, Template, Transport},
    leftovers, placement,
    pool::Pool,
    prepare::Preparation,
    report::{
        recorder::{LeftBehind, Origin},
        DocsUrl, Elsewhere, ExpectedEntry, Failure, Progress, Recorder, ScenarioReport, Shard,
        Status, Summary,
    },
    tags,
    world::{GatewayWorld, Settings},
};

/// What to run and how to report it.
#[derive(Debug)]
pub struct Options {
    pub target: Target,
    /// Its build per document (`--prepare`), for a gateway made from each.
    pub preparation: Option<Preparation>,
    /// The transport of scenarios that do not ask for one (`@http`, `@stdio`).
    pub transport: Transport,
    /// A folder of feature files instead of the embedded ones.
    pub features: Option<PathBuf>,
    pub tags: Option<TagOperation>,
    pub reports: Reports,
    pub strict: bool,
    /// Scenarios run at once.
    pub concurrency: usize,
    /// Gateways launching at once.
    pub launches: usize,
    /// How long a gateway may take to come up, from its launch.
    pub start_timeout: Duration,
    pub expected: Vec<ExpectedEntry>,
    pub shard: Option<Shard>,
    /// Launch no more gateways once this many scenarios failed the run.
    pub max_failures: Option<usize>,
    /// Every step of every scenario, as cucumber prints them.
    pub verbose: bool,
    /// Only the scenarios at these places: a feature file's canonical path
    /// and a line (see [`places`]).
    pub scenarios: Vec<(PathBuf, usize)>,
    /// Where each scenario's document and files are kept: every scenario's
    /// when given, else a failing one's in a folder of the temporary directory.
    pub keep: Option<PathBuf>,
    /// The command that reruns a scenario of this run, but for its place.
    pub rerun: String,
    /// One launch per scenario: no gateway is kept for the next (see
    /// [`crate::pool`]).
    pub isolate: bool,
    /// What the gateway is (`--gateway-name`), for the reports.
    pub gateway_name: Option<String>,
}

/// Where to write reports besides the terminal.
#[derive(Debug, Default)]
pub struct Reports {
    pub junit: Option<PathBuf>,
    pub json: Option<PathBuf>,
    pub html: Option<PathBuf>,
    /// The documentation site the HTML report also links to (`--docs-url`).
    pub docs_url: Option<DocsUrl>,
    /// An SVG badge of the verdict (`--badge`).
    pub badge: Option<PathBuf>,
}

/// Runs the suite, prints the outcome and, last, the counts line. Returns
/// the exit status.
pub async fn run(options: Options) -> anyhow::Result<u8> {
    // Before the first launch, so no signal ends the run with gateways up.
    let mut signals = Signals::install().context("cannot handle SIGINT and SIGTERM")?;
    // Timing scenarios ask how late this machine ran meanwhile.
    crate::lag::start();
    let clock = std::time::Instant::now();
    let (features, embedded) = match options.features {
        Some(folder) => (folder, false),
        None => (
            kit::features_folder().context("cannot write the embedded scenarios to disk")?,
            true,
        ),
    };
    let origin = Origin {
        features: features.clone(),
        embedded,
        default_transport: options.transport,
    };
    let mut gateway = BTreeMap::new();
    for transport in [Transport::Http, Transport::Stdio] {
        if let Some(template) = options.target.template(transport) {
            gateway.insert(transport.name().to_owned(), template.to_string());
        }
    }
    if let Some(step) = &options.preparation {
        gateway.insert("prepare".to_owned(), step.template().to_string());
    }
    let mut summary = Summary::new(gateway, options.strict);
    summary.gateway_name = options.gateway_name;
    summary.shards.extend(options.shard);
    // Known now, so listed failures do not count against --max-failures.
    summary.expected_failures.clone_from(&options.expected);
    let health = Arc::new(Health::new(options.max_failures));
    // Masked in every report at the end.
    let client_auth = options
        .target
        .template(Transport::Http)
        .and_then(Template::client_auth)
        .cloned();
    let launcher = Arc::new(Launcher::new(
        options.target,
        options.launches,
        options.start_timeout,
    ));
    let probe_launcher = Arc::clone(&launcher);

    let selected = Arc::new(AtomicUsize::new(0));
    let not_offered: Arc<Mutex<Vec<ScenarioReport>>> = Arc::default();
    let in_other_shards: Arc<Mutex<Vec<Elsewhere>>> = Arc::default();
    let filter = {
        let launcher = Arc::clone(&launcher);
        let selected = Arc::clone(&selected);
        let not_offered = Arc::clone(&not_offered);
        let in_other_shards = Arc::clone(&in_other_shards);
        let origin = origin.clone();
        let tags = options.tags;
        let places = options.scenarios;
        let shard = options.shard;
        // Scenarios of what a gateway does with its clients' credential
        // need one to show (`--client-auth`); else they are not run. Those
        // of MCP authorization need the run's authorization server.
        let shows_client_credential = client_auth.is_some();
        let has_issuer = client_auth.as_ref().is_some_and(|a| a.issuer().is_some());
        move |feature: &gherkin::Feature,
              rule: Option<&gherkin::Rule>,
              scenario: &gherkin::Scenario| {
            if !tags
                .as_ref()
                .is_none_or(|t| t.eval(tags::of(feature, rule, scenario)))
            {
                return false;
            }
            if !places.is_empty() {
                let file = feature.path.as_deref().and_then(|p| p.canonicalize().ok());
                let here = |(path, line): &(PathBuf, usize)| {
                    Some(path) == file.as_ref() && *line == scenario.position.line
                };
                if !places.iter().any(here) {
                    return false;
                }
            }
            if let Some(shard) = shard {
                if !in_shard(feature, scenario, shard) {
                    let report = crate::report::recorder::scenario_report(
                        &origin,
                        feature,
                        rule,
                        scenario,
                        Status::NotRun,
                    );
                    in_other_shards
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(Elsewhere {
                            name: report.name,
                            rules: report.rules,
                        });
                    return false;
                }
            }
            let transport =
                Transport::of_tags(tags::of(feature, rule, scenario), origin.default_transport);
            // Before the transport: over stdio, too, the reason is that no
            // client credential can be shown.
            let tagged = |wanted: &str| tags::of(feature, rule, scenario).any(|tag| tag == wanted);
            let why_not = if !shows_client_credential && tagged(client_auth::TAG) {
                Some(client_auth::not_run_reason(
                    launcher.target.template(Transport::Http).is_some(),
                ))
            } else if !has_issuer && tagged(client_auth::OAUTH_TAG) {
                Some(client_auth::oauth_not_run_reason())
            } else if launcher.target.template(transport).is_none() {
                Some(format!(
                    "the gateway under test was given no {transport} command"
                ))
            } else {
                None
            };
            if let Some(why) = why_not {
                let mut report = crate::report::recorder::scenario_report(
                    &origin,
                    feature,
                    rule,
                    scenario,
                    Status::NotRun,
                );
                report.failure = Some(Failure {
                    summary: why,
                    ..Failure::default()
                });
                not_offered
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(report);
                return false;
            }
            selected.fetch_add(1, Ordering::Relaxed);
            true
        }
    };

    let verbose_writer = options
        .verbose
        .then(|| writer::Basic::raw(io::stdout(), Coloring::Auto, Verbosity::Default).normalized());
    let progress = Progress::new(Arc::clone(&selected), options.verbose);
    let recorder = Recorder::new(
        summary,
        origin,
        progress,
        verbose_writer,
        Arc::clone(&health),
        options.rerun,
    );
    let so_far = recorder.so_far();
    let after_scenario = recorder.after_scenario();
    let (keep_root, keep_all) = match options.keep {
        Some(folder) => (folder, true),
        None => (
            std::env::temp_dir().join(format!(
                "hosted-mcp-conformance-kept-{}",
                std::process::id()
            )),
            false,
        ),
    };
    let recorder = recorder.assert_normalized();
    let default_transport = options.transport;
    let scenario_health = Arc::clone(&health);
    let pool = (!options.isolate).then(|| Arc::new(Pool::default()));
    let scenario_pool = pool.clone();
    let preparation = options.preparation.clone();
    let suite = GatewayWorld::cucumber()
        .max_concurrent_scenarios(options.concurrency)
        .before(move |feature, rule, scenario, world| {
            let tags = || tags::of(feature, rule, scenario);
            world.configure(Settings {
                launcher: Arc::clone(&launcher),
                health: Arc::clone(&scenario_health),
                pool: scenario_pool.clone(),
                preparation: preparation.clone(),
                transport: Transport::of_tags(tags(), default_transport),
                hint_credential: !tags().any(|tag| tag == placement::FROM_DOCUMENT_TAG),
                // Scenarios that judge names and their order find no tool by
                // operation; which operations are tools is no matter of names.
                resolve_names: !tags().any(|tag| {
                    (tag.starts_with(NAMING_RULES) && tag != DEPRECATED_RULE) || tag == ORDER_RULE
                }),
                rules: tags::rules_of(feature, rule, scenario),
            });
            async {}.boxed_local()
        })
        .after(move |feature, _, scenario, finished, world| {
            let passed = matches!(finished, event::ScenarioFinished::StepPassed);
            let Some(world) = world else {
                return async {}.boxed_local();
            };
            let into = keep_root.join(kept_name(feature, scenario));
            let after_scenario = after_scenario.clone();
            async move {
                if !passed {
                    world.settle_stderr().await;
                }
                world.hand_back().await;
                world.teardown();
                let kept = (keep_all || !passed)
                    .then(|| world.keep_files(&into))
                    .and_then(|kept| {
                        kept.unwrap_or_else(|error| {
                            eprintln!("hosted-mcp-conformance: {error:#}");
                            None
                        })
                    });
                after_scenario.record(
                    feature,
                    scenario,
                    LeftBehind {
                        codes: world.codes_seen(),
                        kept,
                    },
                );
            }
            .boxed_local()
        })
        .with_writer(recorder)
        .with_cli(cli::Opts::<_, _, _, cli::Empty>::default())
        .filter_run(&features, filter);
    let stopped = tokio::select! {
        finished = suite => {
            finished.progress().end();
            None
        }
        stop = signals.received() => Some(stop),
    };
    // The run's future is gone: what it launched and created goes with it.
    if let Some(pool) = &pool {
        pool.clear();
    }
    leftovers::remove_all();
    let mut summary = so_far.snapshot();
    if let Some(stop) = stopped {
        let total = selected.load(Ordering::Relaxed);
        println!();
        summary.problems.push(format!(
            "the run was stopped by {} after {} of {total} scenario(s); the rest were not judged",
            stop.name(),
            summary.scenarios.len()
        ));
    }
    summary.scenarios.extend(
        not_offered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..),
    );
    summary.in_other_shards.extend(
        in_other_shards
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..),
    );
    summary.relaunched = health.relaunches();
    summary.launches = health.launches();
    summary.reused = pool.as_ref().map_or(0, |pool| pool.reuses());
    if stopped.is_none() {
        without_start(&mut summary, probe_launcher, &health).await?;
    }
    summary.apply_expected(&options.expected);
    summary.seconds = clock.elapsed().as_secs_f64();
    if let Some(auth) = &client_auth {
        summary = summary.masked(auth.credential(), client_auth::SHOWN_AS)?;
        if let Some(issuer) = auth.issuer() {
            summary = summary.masked_all(&issuer.minted(), client_auth::SHOWN_AS)?;
        }
    }
    let verdict = finish(&summary, &options.reports)?;
    Ok(stopped.map_or(verdict, Stop::exit_code))
}

/// No rule passes (or fails) on a transport over which no gateway ever came
/// up: a refusal may have been a crash, a silence a hang. When no launch of
/// the run came up, one on a plain document decides whether it can.
async fn without_start(
    summary: &mut Summary,
    launcher: Arc<Launcher>,
    health: &Arc<Health>,
) -> anyhow::Result<()> {
    for transport in [Transport::Http, Transport::Stdio] {
        let judged = summary
            .scenarios
            .iter()
            .any(|s| s.transport == transport.name() && s.status != Status::NotRun);
        if !judged || health.has_come_up(transport) {
            continue;
        }
        let cause = match health.never_started(transport) {
            Some(cause) => cause,
            None => match GatewayWorld::probe(Arc::clone(&launcher), Arc::clone(health), transport)
                .await?
            {
                Some(failure) => health::never_started(transport, &failure, 1),
                None => continue,
            },
        };
        summary.not_judged_without_start(cause);
    }
    Ok(())
}

/// The `--scenario` places (`features/answer.feature:58`, as reports write
/// them; `features/` is the embedded suite unless `features` is given) as a
/// feature file's canonical path and a line.
pub fn places(
    places: &[String],
    features: Option<&std::path::Path>,
) -> anyhow::Result<Vec<(PathBuf, usize)>> {
    let embedded = match (features, places.is_empty()) {
        (None, false) => Some(kit::features_folder()?),
        _ => None,
    };
    places
        .iter()
        .map(|place| {
            let (file, line) = place
                .rsplit_once(':')
                .and_then(|(file, line)| Some((file, line.parse().ok()?)))
                .with_context(|| {
                    format!("--scenario {place}: write it FILE:LINE, as reports do")
                })?;
            let path = match (file.strip_prefix("features/"), &embedded) {
                (Some(inner), Some(folder)) => folder.join(inner),
                _ => PathBuf::from(file),
            };
            let path = path
                .canonicalize()
                .with_context(|| format!("--scenario {place}: no feature file {file}"))?;
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("--scenario {place}: cannot read {file}"))?;
            let lines = scenario_lines(&text);
            if !lines.contains(&line) {
                let before = lines.iter().rev().find(|&&l| l < line);
                let after = lines.iter().find(|&&l| l > line);
                let nearest: Vec<String> = before
                    .into_iter()
                    .chain(after)
                    .map(|l| format!("{file}:{l}"))
                    .collect();
                anyhow::bail!(
                    "--scenario {place}: no scenario starts on that line; the nearest: {}",
                    if nearest.is_empty() {
                        "none, the file has no scenario".to_owned()
                    } else {
                        nearest.join(", ")
                    }
                );
            }
            Ok((path, line))
        })
        .collect()
}

/// The lines a scenario of `feature` (Gherkin text) is known by: each
/// `Scenario:` line, and each example row of an outline.
fn scenario_lines(feature: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    // In an Examples table: whether its header row has been read.
    let mut examples: Option<bool> = None;
    for (index, line) in feature.lines().enumerate() {
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let keyword = text.split(':').next().unwrap_or_default();
        if text.starts_with('|') {
            match examples {
                Some(true) => lines.push(index + 1),
                Some(false) => examples = Some(true),
                None => {}
            }
        } else if matches!(keyword, "Examples" | "Scenarios") {
            examples = Some(false);
        } else if matches!(keyword, "Scenario" | "Example") {
            lines.push(index + 1);
            examples = None;
        } else if !text.starts_with('@') {
            examples = None;
        }
    }
    lines
}

/// The folder a scenario's files are kept in: `protocol.feature-129-x`,
/// unique within a run, since no two scenarios share a file and line.
fn kept_name(feature: &gherkin::Feature, scenario: &gherkin::Scenario) -> String {
    let file = feature
        .path
        .as_ref()
        .and_then(|p| p.file_name())
        .map_or_else(
            || feature.name.clone(),
            |n| n.to_string_lossy().into_owned(),
        );
    format!("{file}-{}", scenario.position.line)
}

/// The tag prefix of the naming rules.
const NAMING_RULES: &str = "TC-NAME-";
/// The naming rule that says which operations are tools (deprecated ones
/// are not), whatever their names.
const DEPRECATED_RULE: &str = "TC-NAME-010";
/// The rule of the tool list's order.
const ORDER_RULE: &str = "TC-PROTO-006";

/// Prints the outcome, writes the reports and returns the exit status.
pub fn finish(summary: &Summary, reports: &Reports) -> anyhow::Result<u8> {
    print!(
        "{}",
        summary.terminal(crate::report::terminal::Style::detect())
    );
    write_reports(summary, reports)?;
    println!("{}", summary.last_line());
    Ok(summary.verdict().exit_code)
}

/// Reads the JSON reports of several runs (shards, or an HTTP and a stdio
/// run) and joins them into one run's summary.
pub fn read_parts(parts: &[PathBuf]) -> anyhow::Result<Summary> {
    Summary::merge(read_reports(parts)?)
}

/// JSON reports, each named by its path.
pub fn read_reports(paths: &[PathBuf]) -> anyhow::Result<Vec<(String, Summary)>> {
    let mut summaries = Vec::new();
    for path in paths {
        let origin = path.display().to_string();
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read {origin}"))?;
        summaries.push((origin.clone(), Summary::from_json(&text, &origin)?));
    }
    Ok(summaries)
}

/// Reports merged parts as one run: judged against `expected` alone when it
/// lists anything (a baseline edited since, say), else against the expected
/// failures the parts were judged with.
pub fn merge(
    mut merged: Summary,
    expected: &[ExpectedEntry],
    reports: &Reports,
) -> anyhow::Result<u8> {
    if expected.is_empty() {
        merged.apply_expected(&[]);
    } else {
        merged.rebaseline(expected);
    }
    finish(&merged, reports)
}

/// Whether a scenario falls in `shard`: a stable hash of its file name and
/// line, so every shard of a CI matrix computes the same split.
fn in_shard(feature: &gherkin::Feature, scenario: &gherkin::Scenario, shard: Shard) -> bool {
    let file = feature
        .path
        .as_ref()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| feature.name.clone());
    let key = format!("{file}:{}", scenario.position.line);
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    hash % u64::from(shard.count) == u64::from(shard.index - 1)
}

fn write_reports(summary: &Summary, reports: &Reports) -> anyhow::Result<()> {
    let write = |path: &Option<PathBuf>, text: String| -> anyhow::Result<()> {
        if let Some(path) = path {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            std::fs::write(path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    };
    write(&reports.junit, summary.junit()?)?;
    write(
        &reports.json,
        serde_json::to_string_pretty(&summary.json())?,
    )?;
    write(&reports.html, summary.html_with(reports.docs_url.as_ref()))?;
    write(&reports.badge, summary.badge())?;
    Ok(())
}
