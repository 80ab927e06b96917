//! A cucumber [`Writer`] that turns the events of a run into a [`Summary`]:
//! each scenario's outcome, with the failing step, its message and what the
//! scenario's world saw. It shows progress as scenarios finish; with
//! `--verbose` it also hands every event to cucumber's own step-by-step
//! writer.

use std::{
    collections::HashMap,
    io::{IsTerminal as _, Write as _},
    path::PathBuf,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::Instant,
};

use cucumber::{
    event::{self, Cucumber, Feature, Hook, Rule, Scenario, Step, StepError},
    gherkin, parser, Event, Writer,
};

use super::summary::{Failure, ScenarioReport, Status, Summary};
use crate::{
    catalogue::{Catalogue, Level},
    health::Health,
    kit,
    launch::{shell_quoted, Transport},
    tags::{self, RECOMMENDED_TAG},
    world::{Diagnostics, GatewayWorld},
};

/// How progress is shown while scenarios run.
#[derive(Debug)]
pub struct Progress {
    /// Scenarios selected to run; counted while the features are read.
    pub total: Arc<AtomicUsize>,
    mode: ProgressMode,
    done: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProgressMode {
    /// One line, rewritten as scenarios finish.
    Line,
    /// A character per scenario, as test runners print to CI logs.
    Dots,
    /// Nothing (cucumber's writer prints every step instead).
    Silent,
}

/// Characters per line of dots.
const DOTS_PER_LINE: usize = 60;

impl Progress {
    pub fn new(total: Arc<AtomicUsize>, verbose: bool) -> Self {
        let mode = if verbose {
            ProgressMode::Silent
        } else if std::io::stdout().is_terminal() {
            ProgressMode::Line
        } else {
            ProgressMode::Dots
        };
        Self {
            total,
            mode,
            done: 0,
        }
    }

    /// Shows the scenario `summary` received last. Its status is already
    /// judged as the verdict will judge it (recommended, expected), so the
    /// marks and the counts agree with the last line of the run.
    fn finished(&mut self, summary: &Summary) {
        let Some(scenario) = summary.scenarios.last() else {
            return;
        };
        self.done += 1;
        let total = self.total.load(Ordering::Relaxed).max(self.done);
        let mut out = std::io::stdout().lock();
        match self.mode {
            ProgressMode::Silent => {}
            ProgressMode::Line => {
                // `\x1b[K` clears what a longer line before left behind.
                let _ = write!(
                    out,
                    "\r[{}/{total}] {}\x1b[K",
                    self.done,
                    summary.last_line()
                );
            }
            ProgressMode::Dots => {
                let _ = write!(out, "{}", mark(scenario.status, summary.strict));
                if self.done.is_multiple_of(DOTS_PER_LINE) || self.done == total {
                    let _ = writeln!(
                        out,
                        " [{:>width$}/{total}]",
                        self.done,
                        width = digits(total)
                    );
                }
            }
        }
        let _ = out.flush();
    }

    /// Ends the progress display so what follows starts on a fresh line.
    pub fn end(&self) {
        let open_line = match self.mode {
            ProgressMode::Line => self.done > 0,
            ProgressMode::Dots => {
                !self.done.is_multiple_of(DOTS_PER_LINE)
                    && self.done != self.total.load(Ordering::Relaxed)
            }
            ProgressMode::Silent => false,
        };
        if open_line {
            println!();
        }
    }
}

/// A scenario's character in CI logs. With `--strict` a recommended rule
/// not met fails the run, and is marked as a failure.
fn mark(status: Status, strict: bool) -> char {
    match status {
        Status::Passed => '.',
        Status::Failed => 'F',
        Status::NotMet if strict => 'F',
        Status::NotMet => 'r',
        Status::Expected => 'x',
        Status::NotRun => 's',
        Status::NotJudged => 'n',
        Status::Error => 'E',
    }
}

fn digits(n: usize) -> usize {
    n.to_string().len()
}

/// Where the features come from, to name their files as a reader finds them.
#[derive(Debug, Clone)]
pub struct Origin {
    pub features: PathBuf,
    /// The features are the embedded ones, extracted to `features`.
    pub embedded: bool,
    /// The transport of scenarios that do not ask for one.
    pub default_transport: Transport,
}

/// A scenario under way.
#[derive(Debug)]
struct Open {
    started: Instant,
    failure: Option<(Status, Failure)>,
}

/// Records scenario results while showing progress (and, verbose, every step).
#[derive(Debug)]
pub struct Recorder<Inner> {
    inner: Option<Inner>,
    origin: Origin,
    summary: SoFar,
    progress: Progress,
    open: HashMap<ScenarioKey, Open>,
    after: AfterScenario,
    /// The command that reruns a scenario of this run, but for its place.
    rerun: String,
    /// Told of each scenario that fails the run, for `--max-failures`.
    health: Arc<Health>,
}

/// A scenario of a run: its feature file, line and column.
type ScenarioKey = (Option<PathBuf>, usize, usize);

fn key_of(feature: &gherkin::Feature, scenario: &gherkin::Scenario) -> ScenarioKey {
    (
        feature.path.clone(),
        scenario.position.line,
        scenario.position.col,
    )
}

/// The summary a [`Recorder`] fills, shared with the run.
#[derive(Debug, Clone)]
pub struct SoFar(Arc<Mutex<Summary>>);

impl SoFar {
    /// The scenarios finished so far, and what else was recorded.
    pub fn snapshot(&self) -> Summary {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Summary> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What the run's `after` hook (which holds the world) hands over before
/// the scenario's end reaches the recorder (which does not).
#[derive(Debug, Default)]
pub struct LeftBehind {
    /// The error codes the scenario's answers carried.
    pub codes: Vec<String>,
    /// Where the scenario's document and files were, and where they were kept.
    pub kept: Option<(PathBuf, PathBuf)>,
}

/// [`LeftBehind`] of each scenario, until the recorder takes it.
#[derive(Debug, Clone, Default)]
pub struct AfterScenario(Arc<Mutex<HashMap<ScenarioKey, LeftBehind>>>);

impl AfterScenario {
    pub fn record(
        &self,
        feature: &gherkin::Feature,
        scenario: &gherkin::Scenario,
        left: LeftBehind,
    ) {
        self.lock().insert(key_of(feature, scenario), left);
    }

    fn take(&self, key: &ScenarioKey) -> LeftBehind {
        self.lock().remove(key).unwrap_or_default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ScenarioKey, LeftBehind>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl<Inner> Recorder<Inner> {
    pub fn new(
        summary: Summary,
        origin: Origin,
        progress: Progress,
        inner: Option<Inner>,
        health: Arc<Health>,
        rerun: String,
    ) -> Self {
        Self {
            inner,
            origin,
            summary: SoFar(Arc::new(Mutex::new(summary))),
            progress,
            open: HashMap::new(),
            after: AfterScenario::default(),
            rerun,
            health,
        }
    }

    /// Where the run's `after` hook leaves what each scenario saw.
    pub fn after_scenario(&self) -> AfterScenario {
        self.after.clone()
    }

    /// What has been recorded so far, readable after the recorder is gone
    /// (a run stopped by a signal drops it unfinished).
    pub fn so_far(&self) -> SoFar {
        self.summary.clone()
    }

    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    fn event(
        &mut self,
        feature: &gherkin::Feature,
        rule: Option<&gherkin::Rule>,
        scenario: &gherkin::Scenario,
        event: &Scenario<GatewayWorld>,
    ) {
        let key = key_of(feature, scenario);
        match event {
            Scenario::Started => {
                self.open.insert(
                    key,
                    Open {
                        started: Instant::now(),
                        failure: None,
                    },
                );
            }
            Scenario::Step(step, Step::Failed(_, _, world, error))
            | Scenario::Background(step, Step::Failed(_, _, world, error)) => {
                let failure = step_failure(step, describe(error));
                self.fail(key, failure, world.as_deref());
            }
            Scenario::Step(step, Step::Skipped) | Scenario::Background(step, Step::Skipped) => {
                let failure = Failure {
                    summary: format!(
                        "no step definition matches `{} {}`: the harness cannot run this scenario",
                        step.keyword.trim(),
                        step.value
                    ),
                    step: Some(step_text(step)),
                    step_line: Some(step.position.line),
                    ..Failure::default()
                };
                self.set(key, Status::Error, failure);
            }
            Scenario::Hook(which, Hook::Failed(world, info)) => {
                let failure = Failure {
                    summary: format!(
                        "the harness's {which:?} hook failed: {}",
                        panic_message(info)
                    ),
                    ..Failure::default()
                };
                let failure = with_diagnostics(failure, world.as_deref()).0;
                self.set(key, Status::Error, failure);
            }
            Scenario::Finished => {
                let Some(open) = self.open.remove(&key) else {
                    return;
                };
                let (status, failure) =
                    open.failure.unwrap_or((Status::Passed, Failure::default()));
                let mut report = scenario_report(&self.origin, feature, rule, scenario, status);
                report.seconds = open.started.elapsed().as_secs_f64();
                let left = self.after.take(&key);
                report.codes = left.codes;
                if status != Status::Passed {
                    let mut failure = failure;
                    if let Some((was, now)) = left.kept {
                        let (was, now) = (was.display().to_string(), now.display().to_string());
                        // The launch line then names files that still exist.
                        failure.launch = failure.launch.map(|line| line.replace(&was, &now));
                        failure.files = Some(now);
                    }
                    failure.rerun = Some(format!(
                        "{} --scenario {}",
                        self.rerun,
                        shell_quoted(&report.place())
                    ));
                    report.failure = Some(failure);
                }
                let mut summary = self.summary.lock();
                summary.expect(&mut report);
                if summary.spends_a_failure(report.status) {
                    self.health.scenario_failed();
                }
                summary.scenarios.push(report);
                self.progress.finished(&summary);
            }
            _ => {}
        }
    }

    /// A failed step: a verdict on the gateway, unless the world says the
    /// scenario could not be judged.
    fn fail(
        &mut self,
        key: (Option<PathBuf>, usize, usize),
        failure: Failure,
        world: Option<&GatewayWorld>,
    ) {
        let (failure, diagnostics) = with_diagnostics(failure, world);
        let status = match diagnostics {
            Some(Diagnostics {
                not_run: Some(_), ..
            }) => Status::NotRun,
            Some(Diagnostics {
                not_judged: Some(_),
                ..
            }) => Status::Error,
            Some(Diagnostics {
                unseen: Some(_), ..
            }) => Status::NotJudged,
            _ => Status::Failed,
        };
        self.set(key, status, failure);
    }

    /// Keeps the first thing that went wrong as the scenario's outcome.
    fn set(&mut self, key: (Option<PathBuf>, usize, usize), status: Status, failure: Failure) {
        let open = self.open.entry(key).or_insert_with(|| Open {
            started: Instant::now(),
            failure: None,
        });
        if open.failure.is_none() {
            open.failure = Some((status, failure));
        }
    }
}

/// The report of a scenario with its place and rules; a failure of a
/// recommended rule's scenario is "not met".
pub fn scenario_report(
    origin: &Origin,
    feature: &gherkin::Feature,
    rule: Option<&gherkin::Rule>,
    scenario: &gherkin::Scenario,
    status: Status,
) -> ScenarioReport {
    let tags = || tags::of(feature, rule, scenario);
    let rules = tags::rules_of(feature, rule, scenario);
    let level = if tags().any(|t| t == RECOMMENDED_TAG) {
        Level::Recommended
    } else {
        Level::Required
    };
    let file = feature_file(origin, feature);
    let section = Catalogue::embedded()
        .section_of_file(&file)
        .map(|s| s.name.clone())
        .unwrap_or_else(|| feature.name.clone());
    let status = match (status, level) {
        (Status::Failed, Level::Recommended) => Status::NotMet,
        (status, _) => status,
    };
    ScenarioReport {
        section,
        file,
        line: scenario.position.line,
        name: scenario.name.clone(),
        rules,
        level,
        transport: Transport::of_tags(tags(), origin.default_transport)
            .name()
            .to_owned(),
        status,
        failure: None,
        expected: None,
        observed: None,
        seconds: 0.0,
        codes: Vec::new(),
    }
}

/// A feature's file as reports name it (`features/answer.feature`).
pub fn feature_file(origin: &Origin, feature: &gherkin::Feature) -> String {
    feature
        .path
        .as_deref()
        .map(|p| kit::display_path(p, &origin.features, origin.embedded))
        .unwrap_or_else(|| feature.name.clone())
}

fn step_text(step: &gherkin::Step) -> String {
    format!("{} {}", step.keyword.trim(), step.value)
}

fn step_failure(step: &gherkin::Step, message: String) -> Failure {
    let summary = message.lines().next().unwrap_or_default().to_owned();
    Failure {
        summary,
        step: Some(step_text(step)),
        step_line: Some(step.position.line),
        message,
        ..Failure::default()
    }
}

/// Adds what the world saw, and returns it.
fn with_diagnostics(
    mut failure: Failure,
    world: Option<&GatewayWorld>,
) -> (Failure, Option<Diagnostics>) {
    let Some(world) = world else {
        return (failure, None);
    };
    let diagnostics = world.diagnostics();
    for note in &diagnostics.notes {
        failure.message.push_str(&format!("\nnote: {note}"));
    }
    failure.stderr = diagnostics.stderr.clone();
    failure.upstream = diagnostics.upstream.clone();
    if let Some(launch) = &diagnostics.launch {
        failure.launch = Some(launch.command.clone());
        failure.environment = Some(launch.environment());
    }
    failure.calls = diagnostics.calls.clone();
    if let Some(why) = diagnostics
        .not_run
        .as_ref()
        .or(diagnostics.not_judged.as_ref())
        .or(diagnostics.unseen.as_ref())
    {
        // The step's own message follows; the headline says why it proves nothing.
        failure.summary = why.clone();
    }
    (failure, Some(diagnostics))
}

impl<Inner> Writer<GatewayWorld> for Recorder<Inner>
where
    Inner: Writer<GatewayWorld>,
{
    type Cli = Inner::Cli;

    async fn handle_event(
        &mut self,
        event: parser::Result<Event<event::Cucumber<GatewayWorld>>>,
        cli: &Self::Cli,
    ) {
        match &event {
            Err(error) => self
                .summary
                .lock()
                .problems
                .push(format!("a feature file could not be read: {error}")),
            Ok(ev) => {
                if let Cucumber::Feature(feature, ev) = &ev.value {
                    match ev {
                        Feature::Scenario(scenario, ev) => {
                            self.event(feature, None, scenario, &ev.event)
                        }
                        Feature::Rule(rule, Rule::Scenario(scenario, ev)) => {
                            self.event(feature, Some(rule), scenario, &ev.event)
                        }
                        _ => {}
                    }
                }
            }
        }
        if let Some(inner) = &mut self.inner {
            inner.handle_event(event, cli).await;
        }
    }
}

fn describe(error: &StepError) -> String {
    match error {
        StepError::Panic(info) => panic_message(info),
        other => other.to_string(),
    }
}

fn panic_message(info: &event::Info) -> String {
    info.downcast_ref::<String>()
        .cloned()
        .or_else(|| info.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "the step panicked".to_owned())
}
