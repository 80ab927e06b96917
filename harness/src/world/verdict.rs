//! The verdict's bookkeeping: the rules a scenario judges, why it could not
//! see its rule, and what its report mentions besides its failure.

use std::fmt;

use anyhow::anyhow;

use crate::{json::UnusableSchema, launch::Invocation};

/// The rule that input schemas are JSON Schema 2020-12 a validator can use,
/// self-contained.
const SELF_CONTAINED: &str = "TC-SCHEMA-002";

/// What a report shows about a scenario besides its failed step: whether
/// it could be judged at all, the gateway's stderr, and what the upstream got.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    /// Why the scenario could not be judged (the gateway did not start, or
    /// crashed); `None` when the failure is a verdict on the gateway.
    pub not_judged: Option<String>,
    /// Why the scenario was not run (`--max-failures` was reached).
    pub not_run: Option<String>,
    /// Why the scenario ran but could not see its rule, and which rule
    /// judges the cause (see [`Verdict::not_judged`]).
    pub unseen: Option<String>,
    pub stderr: String,
    /// Every request the mock upstream received, as text.
    pub upstream: Vec<String>,
    /// How the latest gateway was launched.
    pub launch: Option<Invocation>,
    /// Each tool call made and what came back.
    pub calls: Vec<String>,
    /// What else the reader should know (a tool found under another name).
    pub notes: Vec<String>,
}

/// What decides whether a scenario's failure is a verdict, and what its
/// report notes.
pub(super) struct Verdict {
    /// The rules this scenario judges.
    rules: Vec<String>,
    notes: Notes,
    /// Why the scenario could not see its rule, set by the step that found it.
    unseen: Option<String>,
}

/// What a report of this scenario should mention besides its failure, in
/// the order the scenario came upon it.
pub(super) struct Notes(Vec<String>);

impl Verdict {
    pub(super) fn new() -> Self {
        Self {
            rules: Vec::new(),
            notes: Notes(Vec::new()),
            unseen: None,
        }
    }

    /// Sets the rules the scenario judges (its `@TC-...` tags).
    pub(super) fn judge(&mut self, rules: Vec<String>) {
        self.rules = rules;
    }

    /// Whether this scenario judges `rule`: then what breaks it is a
    /// verdict here, never a reason to leave the scenario not judged.
    pub(super) fn judges(&self, rule: &str) -> bool {
        self.rules.iter().any(|own| own == rule)
    }

    /// Whether the scenario judges a rule whose ID starts with `prefix`
    /// (`TC-ARG-`).
    pub(super) fn judges_rules_of(&self, prefix: &str) -> bool {
        self.rules.iter().any(|own| own.starts_with(prefix))
    }

    /// Records why the scenario cannot see its rule: what it needed is
    /// missing because the gateway breaks `judged_by`, whose own scenarios
    /// judge that. The error the step returns.
    pub(super) fn not_judged(&mut self, judged_by: &str, why: impl fmt::Display) -> anyhow::Error {
        let unseen = format!("not judged: {why}; {judged_by} judges that");
        self.unseen = Some(unseen.clone());
        anyhow!(unseen)
    }

    /// Records that the scenario cannot time what it judges: the machine
    /// running the check was too busy, as `why` says. The error the step
    /// returns.
    pub(super) fn too_busy(&mut self, why: impl fmt::Display) -> anyhow::Error {
        self.cannot_judge(why)
    }

    /// Records that the scenario has nothing to judge its rule on, as
    /// `why` says. The error the step returns.
    pub(super) fn cannot_judge(&mut self, why: impl fmt::Display) -> anyhow::Error {
        let unseen = format!("not judged: {why}");
        self.unseen = Some(unseen.clone());
        anyhow!(unseen)
    }

    /// Passes `found` on, unless it failed on a schema no validator can use
    /// as published ([`UnusableSchema`]): that breaks the rule that input
    /// schemas are self-contained, whose own scenarios judge it; in any
    /// other scenario it leaves the scenario not judged.
    pub(super) fn unless_unusable<T>(&mut self, found: anyhow::Result<T>) -> anyhow::Result<T> {
        match found {
            Err(error)
                if error.downcast_ref::<UnusableSchema>().is_some()
                    && !self.judges(SELF_CONTAINED) =>
            {
                Err(self.not_judged(SELF_CONTAINED, format!("{error:#}")))
            }
            found => found,
        }
    }

    /// A verdict was reached on what could be seen, so what could not be
    /// seen no longer makes the scenario not judged.
    pub(super) fn judged_after_all(&mut self) {
        self.unseen = None;
    }

    /// Why the scenario could not see its rule, if it could not.
    pub(super) fn unseen(&self) -> Option<&String> {
        self.unseen.as_ref()
    }

    pub(super) fn notes(&mut self) -> &mut Notes {
        &mut self.notes
    }

    /// The notes so far, for the report.
    pub(super) fn noted(&self) -> &[String] {
        &self.notes.0
    }
}

impl Notes {
    pub(super) fn add(&mut self, note: String) {
        self.0.push(note);
    }

    /// Adds `note` unless the report has it already: what every call
    /// shows is told once.
    pub(super) fn add_once(&mut self, note: String) {
        if !self.0.contains(&note) {
            self.0.push(note);
        }
    }
}
