//! One run of the suite: pick the scenarios, run them, report, decide.

use std::{
    io,
    path::PathBuf,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
};

use anyhow::Context as _;
use cucumber::{
    cli, gherkin,
    gherkin::tagexpr::TagOperation,
    tag::Ext as _,
    writer::{self, Coloring, Verbosity},
    World as _, WriterExt as _,
};
use futures::FutureExt as _;

use crate::{
    launch::{Target, Transport},
    placement,
    report::{Recorder, Summary},
    world::GatewayWorld,
};

/// What to run and how to report it.
#[derive(Debug)]
pub struct Options {
    pub target: Target,
    /// The transport of scenarios that do not ask for one (`@http`, `@stdio`).
    pub transport: Transport,
    pub features: PathBuf,
    pub tags: Option<TagOperation>,
    pub junit: Option<PathBuf>,
    pub json: Option<PathBuf>,
    pub strict: bool,
    /// Scenarios run at once.
    pub concurrency: usize,
}

/// Runs the suite, prints the per-rule table and, last, `N passed, N failed`.
/// Returns whether the run succeeded.
pub async fn run(options: Options) -> anyhow::Result<bool> {
    let target = Arc::new(options.target);
    let default_transport = options.transport;
    let not_offered = Arc::new(AtomicUsize::new(0));

    let filter = {
        let target = Arc::clone(&target);
        let not_offered = Arc::clone(&not_offered);
        let tags = options.tags;
        move |feature: &gherkin::Feature,
              rule: Option<&gherkin::Rule>,
              scenario: &gherkin::Scenario| {
            let all_tags = feature
                .tags
                .iter()
                .chain(rule.iter().flat_map(|r| &r.tags))
                .chain(&scenario.tags);
            if !tags.as_ref().is_none_or(|t| t.eval(all_tags)) {
                return false;
            }
            let transport = transport_of(feature, scenario, default_transport);
            let offered = target.template(transport).is_some();
            if !offered {
                not_offered.fetch_add(1, Ordering::Relaxed);
            }
            offered
        }
    };

    let writer = Recorder::new(writer::Basic::raw(
        io::stdout(),
        Coloring::Auto,
        Verbosity::Default,
    ))
    .normalized();
    let finished = GatewayWorld::cucumber()
        .max_concurrent_scenarios(options.concurrency)
        .before(move |feature, _, scenario, world| {
            let from_document = feature
                .tags
                .iter()
                .chain(&scenario.tags)
                .any(|tag| tag == placement::FROM_DOCUMENT_TAG);
            world.configure(
                Arc::clone(&target),
                transport_of(feature, scenario, default_transport),
                !from_document,
            );
            async {}.boxed_local()
        })
        .after(|_, _, _, _, world| {
            if let Some(world) = world {
                world.teardown();
            }
            async {}.boxed_local()
        })
        .with_writer(writer)
        .with_cli(cli::Opts::<_, _, _, cli::Empty>::default())
        .filter_run(&options.features, filter)
        .await;
    let summary = finished.inner_writer().summary();

    let skipped_for_transport = not_offered.load(Ordering::Relaxed);
    if skipped_for_transport > 0 {
        println!(
            "\n{skipped_for_transport} scenario(s) not run: they need a transport this gateway was not given (see --transport)"
        );
    }
    print!("{}", summary.table(options.strict));
    write_reports(summary, &options.junit, &options.json, options.strict)?;
    let reasons = summary.verdict(options.strict);
    for reason in &reasons {
        println!("run failed: {reason}");
    }
    println!("{}", summary.last_line());
    Ok(reasons.is_empty())
}

/// `@http` or `@stdio` on a scenario (or its feature) fixes its transport.
fn transport_of(
    feature: &gherkin::Feature,
    scenario: &gherkin::Scenario,
    default: Transport,
) -> Transport {
    let tags = || feature.tags.iter().chain(&scenario.tags);
    [Transport::Http, Transport::Stdio]
        .into_iter()
        .find(|t| tags().any(|tag| tag == t.name()))
        .unwrap_or(default)
}

fn write_reports(
    summary: &Summary,
    junit: &Option<PathBuf>,
    json: &Option<PathBuf>,
    strict: bool,
) -> anyhow::Result<()> {
    if let Some(path) = junit {
        std::fs::write(path, summary.junit()?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&summary.json(strict))?;
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}
