//! A cucumber [`Writer`] that notes each scenario's result and hands every
//! event on to the writer it wraps (the terminal output).

use std::collections::HashMap;

use cucumber::{
    event::{self, Cucumber, Feature, Hook, Rule, Scenario, Step, StepError},
    gherkin, parser, Event, World, Writer,
};

use super::{Outcome, ScenarioReport, Summary};

/// Records scenario results while `inner` writes the usual output.
#[derive(Debug)]
pub struct Recorder<Inner> {
    inner: Inner,
    summary: Summary,
    /// Index into `summary.scenarios`, by feature file and scenario position.
    open: HashMap<(Option<String>, String, usize, usize), usize>,
}

impl<Inner> Recorder<Inner> {
    pub fn new(inner: Inner) -> Self {
        Self {
            inner,
            summary: Summary::default(),
            open: HashMap::new(),
        }
    }

    /// What has been recorded so far.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    fn scenario<W>(
        &mut self,
        feature: &gherkin::Feature,
        scenario: &gherkin::Scenario,
        event: &Scenario<W>,
    ) {
        let key = (
            feature.path.as_ref().map(|p| p.display().to_string()),
            feature.name.clone(),
            scenario.position.line,
            scenario.position.col,
        );
        let index = *self.open.entry(key).or_insert_with(|| {
            self.summary
                .scenarios
                .push(ScenarioReport::new(feature, scenario));
            self.summary.scenarios.len() - 1
        });
        let outcome = &mut self.summary.scenarios[index].outcome;
        // The first thing that went wrong is the scenario's outcome.
        if *outcome != Outcome::Passed {
            return;
        }
        match event {
            Scenario::Step(step, Step::Failed(_, _, _, error))
            | Scenario::Background(step, Step::Failed(_, _, _, error)) => {
                *outcome = Outcome::Failed(format!(
                    "{} {}: {}",
                    step.keyword.trim(),
                    step.value.trim_end_matches(':'),
                    describe(error)
                ));
            }
            Scenario::Step(step, Step::Skipped) | Scenario::Background(step, Step::Skipped) => {
                *outcome = Outcome::Skipped(format!(
                    "no step matches: {} {}",
                    step.keyword.trim(),
                    step.value
                ));
            }
            Scenario::Hook(which, Hook::Failed(_, info)) => {
                *outcome =
                    Outcome::Failed(format!("{which:?} hook failed: {}", panic_message(info)));
            }
            _ => {}
        }
    }
}

impl<W, Inner> Writer<W> for Recorder<Inner>
where
    W: World,
    Inner: Writer<W>,
{
    type Cli = Inner::Cli;

    async fn handle_event(
        &mut self,
        event: parser::Result<Event<event::Cucumber<W>>>,
        cli: &Self::Cli,
    ) {
        match &event {
            Err(error) => self.summary.parse_errors.push(error.to_string()),
            Ok(ev) => {
                if let Cucumber::Feature(feature, ev) = &ev.value {
                    match ev {
                        Feature::Scenario(scenario, ev) => {
                            self.scenario(feature, scenario, &ev.event)
                        }
                        Feature::Rule(_, Rule::Scenario(scenario, ev)) => {
                            self.scenario(feature, scenario, &ev.event)
                        }
                        _ => {}
                    }
                }
            }
        }
        self.inner.handle_event(event, cli).await;
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
