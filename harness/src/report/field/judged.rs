//! What the pages are made of: a judged gateway and where each rule of
//! the catalogue stands for it, and a page as written.

use super::super::summary::{RuleReport, ScenarioReport, Status, Summary};
use crate::catalogue::{Catalogue, Level};

/// The comment that names the rules revision a page was judged at.
pub const REVISION_MARK: &str = "<!-- rules-revision: ";

/// One page of the field, as written to the docs folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Its file name in the docs folder (`field-fastmcp.md`).
    pub file: String,
    /// The gateway's name, or the table's title.
    pub title: String,
    pub text: String,
}

/// One judged gateway.
pub(super) struct Gateway<'a> {
    pub(super) origin: &'a str,
    pub(super) name: &'a str,
    pub(super) file: String,
    pub(super) run: &'a Summary,
    pub(super) rules: Vec<RuleReport<'a>>,
}

impl Gateway<'_> {
    /// Where a rule of the catalogue stands for this gateway. A rule not
    /// run as a whole, whose scenarios passed in every form the gateway
    /// could be given and were not run only in forms it cannot take (a
    /// place for the credential, a transport), passed in part.
    pub(super) fn outcome(&self, id: &str) -> Outcome {
        let Some(rule) = self.rules.iter().find(|rule| rule.id == id) else {
            return Outcome::NotRun;
        };
        match rule.status {
            Status::Passed => Outcome::Passed,
            Status::Failed | Status::NotMet | Status::Expected => Outcome::Failed,
            Status::NotJudged | Status::Error => Outcome::NotJudged,
            Status::NotRun if passed_where_run(&rule.scenarios) => Outcome::PassedInPart,
            Status::NotRun => Outcome::NotRun,
        }
    }

    /// Whether this is the kit's own reference gateway, listed first.
    pub(super) fn is_reference(&self) -> bool {
        self.name.starts_with(REFERENCE_NAME)
    }

    /// Rules of `level` (in `section`, or all) by outcome.
    pub(super) fn tally(&self, level: Level, section: Option<&str>) -> Tally {
        let mut tally = Tally::default();
        for rule in &Catalogue::embedded().rules {
            if rule.level != level || section.is_some_and(|s| s != rule.section) {
                continue;
            }
            tally.of += 1;
            match self.outcome(&rule.id) {
                Outcome::Passed => tally.passed += 1,
                Outcome::PassedInPart => tally.passed_in_part += 1,
                Outcome::Failed => tally.failed += 1,
                Outcome::NotJudged => tally.not_judged += 1,
                Outcome::NotRun => tally.not_run += 1,
            }
        }
        tally
    }

    pub(super) fn transports(&self) -> String {
        let names: Vec<&str> = self
            .run
            .gateway
            .keys()
            .filter(|command| command.as_str() != PREPARE)
            .map(|command| command_label(command))
            .collect();
        names.join(", ")
    }

    /// Whether the run showed the gateway a credential of its own clients
    /// (`--client-auth`): then the rule that a gateway checking its clients
    /// refuses unknown ones was judged, not left not run.
    pub(super) fn shown_a_client_credential(&self) -> bool {
        self.run.scenarios.iter().any(|scenario| {
            scenario.rules.iter().any(|rule| rule == CLIENT_RULE)
                && scenario.status != Status::NotRun
        })
    }

    /// Whether the run gave the gateway the harness's authorization server
    /// (`--client-auth oauth`): then the rules of MCP authorization were
    /// judged too.
    pub(super) fn judged_as_a_resource_server(&self) -> bool {
        self.run.scenarios.iter().any(|scenario| {
            scenario
                .rules
                .iter()
                .any(|rule| rule.starts_with(AUTHORIZATION_RULES))
                && scenario.status != Status::NotRun
        })
    }

    pub(super) fn date(&self) -> &str {
        self.run
            .started
            .as_deref()
            .and_then(|started| started.get(..10))
            .unwrap_or("unknown")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    Passed,
    /// Passed in every scenario run; the others were not run, for want of
    /// what the gateway cannot take.
    PassedInPart,
    /// Failed or not met, whether or not its baseline lists it.
    Failed,
    NotJudged,
    NotRun,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tally {
    pub(super) of: usize,
    pub(super) passed: usize,
    pub(super) passed_in_part: usize,
    pub(super) failed: usize,
    pub(super) not_judged: usize,
    pub(super) not_run: usize,
}

/// The rule judged only when a run shows the gateway a credential of its
/// own clients.
pub(super) const CLIENT_RULE: &str = "TC-PROTO-010";

/// The prefix of the rules of MCP authorization, judged only when a run
/// gives the gateway the harness's authorization server.
const AUTHORIZATION_RULES: &str = "TC-AUTH-";

/// How the kit's reference gateway names itself (`--gateway-name`).
const REFERENCE_NAME: &str = "hosted-mcp-gateway";

/// Whether `scenarios` of a rule not run as a whole passed wherever they
/// ran: at least one passed, and every other was not run.
fn passed_where_run(scenarios: &[&ScenarioReport]) -> bool {
    scenarios.iter().any(|s| s.status == Status::Passed)
        && scenarios
            .iter()
            .all(|s| matches!(s.status, Status::Passed | Status::NotRun))
}

/// The report's key for the build per document among the gateway's commands.
const PREPARE: &str = "prepare";

/// How a page names one of the gateway's commands (`http`, `stdio`, or the
/// build per document) as the JSON report keys them.
pub(super) fn command_label(key: &str) -> &str {
    match key {
        "http" => "Streamable HTTP",
        PREPARE => "the build per document",
        other => other,
    }
}
