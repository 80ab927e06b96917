//! What a run found, as data: each scenario's result, each rule's, and the
//! run's verdict. The recorder fills a [`Summary`], the renderers only read
//! it, and the JSON report is a `Summary` written out.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::catalogue::{Catalogue, Level, Rule};
pub use crate::health::NeverStarted;

/// How one scenario ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Passed,
    /// A required rule is broken: the gateway's fault.
    Failed,
    /// A recommended rule is not met: reported, fails a run only with `--strict`.
    NotMet,
    /// Failed, not met or not judged, but listed in the expected failures.
    Expected,
    /// Not run, with the reason (a transport the gateway does not offer).
    NotRun,
    /// Ran, but could not see its rule: the gateway lacks something another
    /// rule requires, and that rule's scenarios judge it. Neither a pass nor
    /// a failure.
    NotJudged,
    /// Could not be judged: the gateway did not start or crashed, or the
    /// harness itself failed (a step without definition, say).
    Error,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Failed => "failed",
            Self::NotMet => "not met",
            Self::Expected => "expected failure",
            Self::NotRun => "not run",
            Self::NotJudged => "not judged",
            Self::Error => "error",
        }
    }

    /// Whether the scenario was judged and found wanting.
    fn broke_a_rule(self) -> bool {
        matches!(self, Self::Failed | Self::NotMet | Self::Expected)
    }
}

/// Why a scenario did not pass, with what the reader needs to act on it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// One line: what went wrong.
    pub summary: String,
    /// The failing step, as written (`Then the call succeeds ...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// The failing step's line in the feature file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_line: Option<usize>,
    /// The whole message: expected and got.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Every request the mock upstream received, as it received it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upstream: Vec<String>,
    /// The end of what the gateway wrote to stderr.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// The gateway's launch command as run, placeholders filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<String>,
    /// The variables the harness set for that launch (never the credential).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// Each MCP tool call made, with what the gateway answered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<String>,
    /// Where the scenario's document and the files beside it were kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<String>,
    /// A command that runs this scenario alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun: Option<String>,
}

/// One scenario's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioReport {
    /// The catalogue section (the feature's name when it is not catalogued).
    pub section: String,
    /// The feature file, as a reader finds it (`features/answer.feature`).
    pub file: String,
    pub line: usize,
    /// The scenario's name (outline placeholders filled in).
    pub name: String,
    /// Rule IDs from its tags, e.g. `TC-NAME-007`.
    pub rules: Vec<String>,
    pub level: Level,
    /// The transport it spoke (or needed, when not run).
    pub transport: String,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// The reason given in the expected failures, when listed there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// What it showed before the expected failures listed it, so another
    /// list can judge the same run again (`merge --expected-failures`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<Status>,
    /// Wall time, in seconds.
    #[serde(default)]
    pub seconds: f64,
    /// The error codes the gateway's answers carried in this scenario
    /// (`[UPSTREAM_STATUS]` and the like), so error docs can link each code
    /// to the scenarios that produce it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub codes: Vec<String>,
}

impl ScenarioReport {
    /// How the scenario is named in reports: its rules, then its name.
    pub fn title(&self) -> String {
        if self.rules.is_empty() {
            self.name.clone()
        } else {
            format!("{}: {}", self.rules.join(" "), self.name)
        }
    }

    /// `features/answer.feature:58`
    pub fn place(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }

    /// The one-line reason it did not pass, if it did not.
    pub fn summary(&self) -> Option<&str> {
        self.failure.as_ref().map(|f| f.summary.as_str())
    }

    /// Same scenario, same transport: one entry in a merged report.
    pub(super) fn key(&self) -> (&str, usize, &str, &str) {
        (&self.file, self.line, &self.name, &self.transport)
    }
}

/// What built the report: the kit and the rules it checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KitInfo {
    pub name: String,
    pub version: String,
    /// Digest of the scenarios, fixtures and catalogue that ran.
    pub rules_revision: String,
}

impl KitInfo {
    pub fn this_build() -> Self {
        Self {
            name: "hosted-mcp-conformance".into(),
            version: crate::kit::VERSION.into(),
            rules_revision: crate::kit::RULES_REVISION.into(),
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "{} {} (rules revision {})",
            self.name, self.version, self.rules_revision
        )
    }
}

/// A part of a run split over several jobs (`--shard I/N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// From 1.
    pub index: u32,
    pub count: u32,
}

/// A scenario run in another shard, by what a baseline entry names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Elsewhere {
    pub name: String,
    pub rules: Vec<String>,
}

/// One accepted failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedEntry {
    /// A rule ID or a scenario name.
    pub key: String,
    pub reason: String,
    /// Where it is written, `file:line`.
    pub place: String,
}

impl ExpectedEntry {
    /// Whether this entry covers `scenario`.
    pub fn matches(&self, scenario: &ScenarioReport) -> bool {
        self.covers(&scenario.name, &scenario.rules)
    }

    /// Whether this entry covers the scenario `name` of `rules`.
    pub fn covers(&self, name: &str, rules: &[String]) -> bool {
        name == self.key || rules.contains(&self.key)
    }
}

/// Everything a run found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    pub kit: KitInfo,
    /// The command templates of the gateway under test, per transport.
    pub gateway: BTreeMap<String, String>,
    pub strict: bool,
    /// The shards this summary holds, when the run was split.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<Shard>,
    /// Scenarios of the run's selection left to other shards, so a shard
    /// calls a baseline entry stale only when it ran all the entry covers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub in_other_shards: Vec<Elsewhere>,
    pub scenarios: Vec<ScenarioReport>,
    /// What kept the harness from running scenarios (a feature file that does
    /// not parse, say).
    #[serde(default)]
    pub problems: Vec<String>,
    /// The expected failures the run was given.
    #[serde(default)]
    pub expected_failures: Vec<ExpectedEntry>,
    /// Transports over which the gateway never came up.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub never_started: Vec<NeverStarted>,
    /// Launches that stayed silent through the start-up window, on a gateway
    /// that had come up before in the run, and were made once more.
    #[serde(default)]
    pub relaunched: usize,
    /// Gateways launched in the run.
    #[serde(default)]
    pub launches: usize,
    /// Scenarios served by a gateway launched for an earlier scenario.
    #[serde(default)]
    pub reused: usize,
    /// When the run started (RFC 3339, local time with its offset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
    /// The run's wall time in seconds; a merge keeps its longest part's, as
    /// the shards of a CI matrix run side by side.
    #[serde(default)]
    pub seconds: f64,
    /// What the gateway under test is, as `--gateway-name` gave it
    /// (`FastMCP 4.2.3`): the field's table and the badge name it so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway_name: Option<String>,
}

/// Scenarios per status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub not_met: usize,
    pub expected: usize,
    pub not_run: usize,
    #[serde(default)]
    pub not_judged: usize,
    pub error: usize,
}

impl Counts {
    fn add(&mut self, status: Status) {
        *match status {
            Status::Passed => &mut self.passed,
            Status::Failed => &mut self.failed,
            Status::NotMet => &mut self.not_met,
            Status::Expected => &mut self.expected,
            Status::NotRun => &mut self.not_run,
            Status::NotJudged => &mut self.not_judged,
            Status::Error => &mut self.error,
        } += 1;
    }

    /// The scenarios of one status.
    pub fn of(&self, status: Status) -> usize {
        match status {
            Status::Passed => self.passed,
            Status::Failed => self.failed,
            Status::NotMet => self.not_met,
            Status::Expected => self.expected,
            Status::NotRun => self.not_run,
            Status::NotJudged => self.not_judged,
            Status::Error => self.error,
        }
    }

    /// Scenarios that reached a verdict or an error; a scenario not judged
    /// ran, but judged nothing.
    pub fn ran(&self) -> usize {
        self.passed + self.failed + self.not_met + self.expected + self.error
    }
}

/// One rule's result, over all its scenarios.
#[derive(Debug, Clone)]
pub struct RuleReport<'a> {
    pub id: &'a str,
    /// The catalogue's entry; `None` for a tag the catalogue does not know.
    pub rule: Option<&'a Rule>,
    pub level: Level,
    pub status: Status,
    pub scenarios: Vec<&'a ScenarioReport>,
}

impl RuleReport<'_> {
    pub fn section(&self) -> &str {
        self.rule
            .map(|r| r.section.as_str())
            .or_else(|| self.scenarios.first().map(|s| s.section.as_str()))
            .unwrap_or_default()
    }
}

/// The run's verdict: its exit status and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub exit_code: u8,
    /// `passed`, `failed` or `error` (could not be judged).
    pub outcome: &'static str,
    pub reasons: Vec<String>,
}

/// Exit status: every required rule passed.
pub const EXIT_PASSED: u8 = 0;
/// Exit status: a required rule failed (or, with `--strict`, a recommended
/// one), or an expected failure now passes.
pub const EXIT_FAILED: u8 = 1;
/// Exit status: bad usage (options, an unreadable expected-failures file).
pub const EXIT_USAGE: u8 = 2;
/// Exit status: nothing failed, but not everything could be judged: the
/// gateway did not start or crashed, a step has no definition, or no
/// scenario ran.
pub const EXIT_ERROR: u8 = 3;

impl Summary {
    pub fn new(gateway: BTreeMap<String, String>, strict: bool) -> Self {
        Self {
            kit: KitInfo::this_build(),
            gateway,
            strict,
            shards: Vec::new(),
            in_other_shards: Vec::new(),
            scenarios: Vec::new(),
            problems: Vec::new(),
            expected_failures: Vec::new(),
            never_started: Vec::new(),
            relaunched: 0,
            launches: 0,
            reused: 0,
            started: Some(chrono::Local::now().fixed_offset().to_rfc3339()),
            seconds: 0.0,
            gateway_name: None,
        }
    }

    /// The same summary with `secret` written as `shown_as` wherever it
    /// shows (a failure, the gateway's stderr, a call, a command), so no
    /// report can give it away.
    pub fn masked(self, secret: &str, shown_as: &str) -> anyhow::Result<Self> {
        self.masked_all(&[secret.to_owned()], shown_as)
    }

    /// The same summary with every one of `secrets` (the tokens a run's
    /// authorization server minted, say) written as `shown_as`. Secrets
    /// are grouped by their first bytes (tokens of one key share a header),
    /// so a text is searched for each group's start before its members.
    pub fn masked_all(self, secrets: &[String], shown_as: &str) -> anyhow::Result<Self> {
        type Groups<'a> = BTreeMap<&'a str, Vec<&'a str>>;
        fn mask(value: &mut serde_json::Value, groups: &Groups<'_>, shown_as: &str) {
            match value {
                serde_json::Value::String(text) => {
                    for (start, members) in groups {
                        if !text.contains(start) {
                            continue;
                        }
                        for secret in members {
                            if text.contains(secret) {
                                *text = text.replace(secret, shown_as);
                            }
                        }
                    }
                }
                serde_json::Value::Array(items) => {
                    items
                        .iter_mut()
                        .for_each(|item| mask(item, groups, shown_as));
                }
                serde_json::Value::Object(members) => {
                    members
                        .values_mut()
                        .for_each(|member| mask(member, groups, shown_as));
                }
                _ => {}
            }
        }
        let mut groups = Groups::new();
        for secret in secrets.iter().filter(|s| !s.is_empty()) {
            let cut = (1..=secret.len().min(24))
                .rev()
                .find(|&at| secret.is_char_boundary(at))
                .unwrap_or(secret.len());
            groups.entry(&secret[..cut]).or_default().push(secret);
        }
        if groups.is_empty() {
            return Ok(self);
        }
        // Longest first, so no secret is cut by one it contains.
        for members in groups.values_mut() {
            members.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
        }
        let mut value = serde_json::to_value(&self)?;
        mask(&mut value, &groups, shown_as);
        Ok(serde_json::from_value(value)?)
    }

    /// No launch over `cause`'s transport came up, so nothing seen there is
    /// evidence: a pass (a refusal that was only a crash) nor a failure. Its
    /// scenarios become errors of that one cause.
    pub fn not_judged_without_start(&mut self, cause: NeverStarted) {
        for scenario in &mut self.scenarios {
            if scenario.transport != cause.transport || scenario.status == Status::NotRun {
                continue;
            }
            let step = scenario.failure.take().unwrap_or_default();
            scenario.status = Status::Error;
            scenario.failure = Some(Failure {
                summary: format!(
                    "not judged: the gateway never started over {} (shown once, before the verdict)",
                    cause.transport
                ),
                step: step.step,
                step_line: step.step_line,
                ..Failure::default()
            });
        }
        self.never_started.push(cause);
    }

    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for scenario in &self.scenarios {
            counts.add(scenario.status);
        }
        counts
    }

    /// Expected failures that now pass: each fails the run until removed.
    pub fn stale(&self) -> Vec<&ExpectedEntry> {
        self.expected_failures
            .iter()
            .filter(|entry| {
                let matching: Vec<_> = self.scenarios.iter().filter(|s| entry.matches(s)).collect();
                let ran_elsewhere = || {
                    self.in_other_shards
                        .iter()
                        .any(|s| entry.covers(&s.name, &s.rules))
                };
                matching.iter().any(|s| s.status == Status::Passed)
                    && !ran_elsewhere()
                    && !matching
                        .iter()
                        .any(|s| s.status.broke_a_rule() || s.status == Status::Error)
            })
            .collect()
    }

    /// Every rule that has a scenario in this run, in catalogue order (tags
    /// the catalogue does not know come last).
    pub fn rules(&self) -> Vec<RuleReport<'_>> {
        let catalogue = Catalogue::embedded();
        let mut by_id: BTreeMap<&str, Vec<&ScenarioReport>> = BTreeMap::new();
        for scenario in &self.scenarios {
            for id in &scenario.rules {
                by_id.entry(id).or_default().push(scenario);
            }
        }
        let mut rules = Vec::new();
        for rule in &catalogue.rules {
            if let Some(scenarios) = by_id.remove(rule.id.as_str()) {
                rules.push(rule_report(&rule.id, Some(rule), scenarios));
            }
        }
        for (id, scenarios) in by_id {
            rules.push(rule_report(id, None, scenarios));
        }
        rules
    }

    /// Exit status and reasons.
    pub fn verdict(&self) -> Verdict {
        let counts = self.counts();
        let mut failures = Vec::new();
        // The one cause of many errors comes first.
        let mut errors: Vec<String> = self.never_started.iter().map(|n| n.headline()).collect();
        if counts.failed > 0 {
            failures.push(format!(
                "{} scenario(s) of required rules failed",
                counts.failed
            ));
        }
        if self.strict && counts.not_met > 0 {
            failures.push(format!(
                "{} scenario(s) of recommended rules not met (--strict)",
                counts.not_met
            ));
        }
        let stale = self.stale();
        if !stale.is_empty() {
            failures.push(format!(
                "{} expected failure(s) now pass; remove them from the list: {}",
                stale.len(),
                stale
                    .iter()
                    .map(|e| e.key.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if counts.error > 0 {
            errors.push(format!(
                "{} scenario(s) could not be judged (the gateway did not start or crashed, or a step failed in the harness)",
                counts.error
            ));
        }
        errors.extend(self.problems.iter().cloned());
        if counts.ran() == 0 {
            errors.push(if counts.not_judged > 0 {
                "no scenario was judged".to_owned()
            } else {
                "no scenario ran".to_owned()
            });
        }
        let (exit_code, outcome) = if !failures.is_empty() {
            (EXIT_FAILED, "failed")
        } else if !errors.is_empty() {
            (EXIT_ERROR, "error")
        } else {
            (EXIT_PASSED, "passed")
        };
        failures.extend(errors);
        Verdict {
            exit_code,
            outcome,
            reasons: failures,
        }
    }

    /// Whether a scenario of this status fails the run (its expected
    /// failures already judged).
    pub fn fails_the_run(&self, status: Status) -> bool {
        status == Status::Failed || (self.strict && status == Status::NotMet)
    }

    /// Whether a scenario of this status counts toward `--max-failures`:
    /// one that fails the run, and one that could not be judged, which
    /// fails it too (a gateway that hangs on a document should stop a
    /// capped run as soon as one that answers wrongly does).
    pub fn spends_a_failure(&self, status: Status) -> bool {
        self.fails_the_run(status) || status == Status::Error
    }

    /// The last line of a run, for CI to read.
    pub fn last_line(&self) -> String {
        let counts = self.counts();
        let failed = counts.failed + if self.strict { counts.not_met } else { 0 };
        let mut line = format!("{} passed, {failed} failed", counts.passed);
        for (count, label) in [
            (
                if self.strict { 0 } else { counts.not_met },
                "recommended not met",
            ),
            (counts.expected, "expected failures"),
            (counts.not_run, "not run"),
            (counts.not_judged, "not judged"),
            (counts.error, "errors"),
        ] {
            if count > 0 {
                line.push_str(&format!(", {count} {label}"));
            }
        }
        line
    }
}

/// A rule's status: the worst of its scenarios; see [`worst`].
fn rule_report<'a>(
    id: &'a str,
    rule: Option<&'a Rule>,
    scenarios: Vec<&'a ScenarioReport>,
) -> RuleReport<'a> {
    let status = worst(scenarios.iter().map(|s| s.status));
    let level = rule.map(|r| r.level).unwrap_or_else(|| {
        scenarios
            .first()
            .map(|s| s.level)
            .unwrap_or(Level::Required)
    });
    RuleReport {
        id,
        rule,
        level,
        status,
        scenarios,
    }
}

/// The status of a group (a rule's scenarios, a section's rules): the worst,
/// where a verdict outranks an error, and a group with something not judged
/// or not run has not passed.
pub(crate) fn worst(statuses: impl IntoIterator<Item = Status>) -> Status {
    let statuses: Vec<Status> = statuses.into_iter().collect();
    [
        Status::Failed,
        Status::NotMet,
        Status::Error,
        Status::Expected,
        Status::NotJudged,
        Status::NotRun,
    ]
    .into_iter()
    .find(|status| statuses.contains(status))
    .unwrap_or(Status::Passed)
}
