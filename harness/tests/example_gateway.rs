//! The harness judges a gateway it was not written with: the example Python
//! gateway (`examples/python-gateway`, on the official MCP Python SDK) keeps
//! every required rule over HTTP and over stdio, and each of its broken
//! variants (`EXAMPLE_GATEWAY_BREAK=<rule ID>`) fails exactly the rule it
//! breaks, and nothing else changes in that rule's section. Shaped as a
//! hosted gateway that checks its clients, its variants of that shape
//! (`--list-breaks --hosted`) are judged the same way with `--client-auth`;
//! as one that checks access tokens of the harness's authorization server
//! (MCP authorization), those of that shape (`--list-breaks --oauth`) with
//! `--client-auth oauth`.
//!
//! The gateway and its dependencies are installed by this test into a
//! virtual environment under the target directory, once per version of its
//! `requirements.txt`; it needs `python3` and access to PyPI the first time.
//!
//! Most runs start the gateway through its fork server (`launch.py`, see the
//! gateway's README): a plain launch spends most of a second of CPU importing
//! the SDK, and these runs launch some 1,500 gateways. The stdio protocol
//! section runs with the plain template, exactly as the README gives it, so
//! the ordinary way of starting it stays proven too.
//!
//! `EXAMPLE_GATEWAY_VARIANTS=TC-REQ-002,TC-ANS-004` narrows the variant runs
//! (for working on one); by default every variant the gateway lists runs.

#![cfg(unix)]

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
    process::Command,
    sync::{Condvar, Mutex},
    time::Instant,
};

use serde_json::Value;

use crate::support::{
    python_example::{checked, gateway_dir, python, workspace, ForkServer},
    turns::Turn,
};

/// How the harness starts the gateway.
#[derive(Clone, Copy)]
enum Launch<'a> {
    /// `python -m hosted_mcp_example`, as the gateway's README gives it.
    Plain,
    /// `python -S launch.py`, through this fork server.
    Fork(&'a ForkServer),
    /// Through the fork server, shaped as a hosted gateway: MCP at
    /// [`HOSTED_ENDPOINT`], for clients that show the run's client
    /// credential as a bearer token only.
    Hosted(&'a ForkServer),
    /// Through the fork server, at [`HOSTED_ENDPOINT`], for clients that
    /// show an access token of the harness's authorization server
    /// (`--client-auth oauth`) with the scope [`OAUTH_SCOPE`].
    OAuth(&'a ForkServer),
}

/// The scope the [`Launch::OAuth`] gateway asks of every token.
const OAUTH_SCOPE: &str = "mcp";

/// Where the [`Launch::Hosted`] gateway serves MCP.
const HOSTED_ENDPOINT: &str = "/api/mcp";

impl Launch<'_> {
    fn fork_server(&self) -> Option<&ForkServer> {
        match self {
            Launch::Plain => None,
            Launch::Fork(server) | Launch::Hosted(server) | Launch::OAuth(server) => Some(server),
        }
    }
}

/// The `--gateway` template for `transport`.
fn template(launch: Launch, transport: &str) -> String {
    let start = match launch {
        Launch::Plain => format!(
            "env PYTHONPATH='{}' '{}' -m hosted_mcp_example",
            gateway_dir().display(),
            python().display()
        ),
        Launch::Fork(_) | Launch::Hosted(_) | Launch::OAuth(_) => format!(
            "'{}' -S '{}'",
            python().display(),
            gateway_dir().join("launch.py").display()
        ),
    };
    let start = match launch {
        Launch::Hosted(_) => format!(
            "{start} --path {HOSTED_ENDPOINT} --client-token-env HOSTED_MCP_CLIENT_CREDENTIAL"
        ),
        Launch::OAuth(_) => format!(
            "{start} --path {HOSTED_ENDPOINT} --oauth-issuer {{issuer}} --resource {{resource}} \
             --oauth-scope {OAUTH_SCOPE}"
        ),
        _ => start,
    };
    let start = format!("{start} --openapi {{openapi}} --base-url {{base_url}}");
    match transport {
        "http" => format!("{start} --port {{port}}"),
        _ => format!("{start} --stdio"),
    }
}

/// A broken variant, as the gateway lists it.
#[derive(serde::Deserialize)]
struct Variant {
    /// What it does wrong.
    what: String,
    /// Other rules, of any section or level, and the status each must have under it
    /// (`passed`: it saw its own matter only; `not_judged`: it said it
    /// could not see it).
    #[serde(default)]
    also: BTreeMap<String, String>,
    /// Whether it renames every tool (`names:...`): then it is judged over
    /// the whole suite, not on one rule's section.
    #[serde(default)]
    renames: bool,
    /// Whether it takes every argument otherwise (`args:...`): judged over
    /// the whole suite too.
    #[serde(default)]
    regroups: bool,
}

impl Variant {
    /// The rules a variant that breaks a group of them as a whole may fail:
    /// the naming rules for a renaming one, those of the arguments' names
    /// and places for a regrouping one.
    fn breaks_as_a_whole(&self) -> Option<fn(&str) -> bool> {
        if self.renames {
            Some(|id| id.starts_with("TC-NAME-"))
        } else if self.regroups {
            Some(|id| ["TC-ARG-001", "TC-ARG-002", "TC-ARG-003", "TC-ARG-004"].contains(&id))
        } else {
            None
        }
    }
}

/// The broken variants judged over `transport`, from the gateway itself:
/// key -> variant. A key is the rule ID it breaks, or `<rule ID>+<what>` for
/// another variant of it.
fn variants(transport: &str) -> BTreeMap<String, Variant> {
    let mut command = Command::new(python());
    command
        .env("PYTHONPATH", gateway_dir())
        .args(["-m", "hosted_mcp_example", "--list-breaks"]);
    if transport == "stdio" {
        command.arg("--stdio");
    }
    let output = checked(&mut command);
    serde_json::from_slice(&output.stdout).expect("--list-breaks prints a JSON object")
}

/// The broken variants of the gateway shaped as a hosted one, which checks
/// its clients ([`Launch::Hosted`]): key -> variant.
fn hosted_variants() -> BTreeMap<String, Variant> {
    shaped_variants("--hosted")
}

/// The broken variants listed with `flag` (`--hosted`, `--oauth`).
fn shaped_variants(flag: &str) -> BTreeMap<String, Variant> {
    let output = checked(
        Command::new(python())
            .env("PYTHONPATH", gateway_dir())
            .args(["-m", "hosted_mcp_example", "--list-breaks", flag]),
    );
    serde_json::from_slice(&output.stdout).expect("--list-breaks prints a JSON object")
}

/// The rule a variant key breaks: `TC-SCHEMA-004+maximum` -> `TC-SCHEMA-004`.
fn rule_of(key: &str) -> &str {
    key.split('+').next().unwrap_or(key)
}

/// The feature file of a rule's section (`TC-REQ-002` -> `request.feature`).
fn section_of(rule: &str) -> &'static str {
    let prefix = rule.split('-').nth(1).unwrap_or_default();
    match prefix {
        "PROTO" => "protocol",
        "LOAD" => "loading",
        "NAME" => "names",
        "DESC" => "descriptions",
        "HINT" => "hints",
        "ARG" => "arguments",
        "SCHEMA" => "schemas",
        "CHECK" => "checking",
        "REQ" => "request",
        "SEND" => "delivery",
        "ANS" => "answer",
        "MASK" => "masking",
        "AUTH" => "authorization",
        other => panic!("no section for rule prefix {other:?}"),
    }
}

/// One harness run: its exit status, JSON report and wall time.
struct Run {
    success: bool,
    report: Value,
    seconds: f64,
    stdout: String,
}

/// Harness runs at once. Through the fork server a launch costs a few tens
/// of milliseconds of CPU, and a section run spends most of its time waiting
/// out its slowest scenario (the 15 s deadline ones), so a few runs share two
/// cores well. A run with the plain template takes every slot: each of its
/// launches imports the SDK, and the harness throttles launches to the CPUs
/// within one run, not across runs.
const RUN_SLOTS: usize = 3;

/// Slots in use, and whether a run that wants them all is waiting (it goes
/// first, or the variant runs would keep it waiting to the end).
static SLOTS: Mutex<(usize, bool)> = Mutex::new((0, false));
static SLOT_FREED: Condvar = Condvar::new();

/// `n` run slots, given back when dropped.
struct Slots(usize);

impl Slots {
    fn take(n: usize) -> Self {
        let mut slots = SLOTS.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let (used, all_wanted) = *slots;
            if used + n <= RUN_SLOTS && (n == RUN_SLOTS || !all_wanted) {
                slots.0 += n;
                if n == RUN_SLOTS {
                    slots.1 = false;
                }
                return Self(n);
            }
            if n == RUN_SLOTS {
                slots.1 = true;
            }
            slots = SLOT_FREED.wait(slots).unwrap_or_else(|p| p.into_inner());
        }
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        SLOTS.lock().unwrap_or_else(|p| p.into_inner()).0 -= self.0;
        SLOT_FREED.notify_all();
    }
}

fn run_harness(
    name: &str,
    launch: Launch,
    transport: &str,
    features: &str,
    broken: Option<&str>,
) -> Run {
    run_harness_with(name, launch, transport, features, broken, &[])
}

/// [`run_harness`] with more of the harness's options (`--tags`, `--isolate`).
fn run_harness_with(
    name: &str,
    launch: Launch,
    transport: &str,
    features: &str,
    broken: Option<&str>,
    options: &[&str],
) -> Run {
    let template = template(launch, transport);
    let _turn = Turn::take(module_path!());
    let _slots = Slots::take(match launch {
        Launch::Plain => RUN_SLOTS,
        Launch::Fork(_) | Launch::Hosted(_) | Launch::OAuth(_) => 1,
    });
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("example-gateway-reports");
    std::fs::create_dir_all(&dir).expect("create the report directory");
    let json = dir.join(format!("{name}.json"));
    let _ = std::fs::remove_file(&json);
    let mut command = Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"));
    command
        .args(["--transport", transport, "--gateway", &template])
        .args(["--features", features, "--json"])
        .arg(&json)
        .env_remove("EXAMPLE_GATEWAY_BREAK")
        .env_remove("EXAMPLE_GATEWAY_FORKSERVER");
    command.args(options);
    if let Some(rule) = broken {
        command.env("EXAMPLE_GATEWAY_BREAK", rule);
    }
    if let Some(server) = launch.fork_server() {
        // The harness passes its environment on to the launches.
        command.env("EXAMPLE_GATEWAY_FORKSERVER", &server.socket);
    }
    let started = Instant::now();
    let output = command.output().expect("run the harness");
    let seconds = started.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let report = std::fs::read_to_string(&json)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| {
            panic!(
                "{name}: the harness wrote no JSON report ({}):\n{stdout}\n{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            )
        });
    eprintln!("{name}: {seconds:.0} s");
    if let Some(server) = launch.fork_server() {
        let fallbacks = server.fallbacks();
        assert!(
            fallbacks.is_empty(),
            "{name}: {} launch(es) could not use the fork server:\n{}",
            fallbacks.len(),
            fallbacks.join("\n")
        );
    }
    Run {
        success: output.status.success(),
        report,
        seconds,
        stdout,
    }
}

/// The rules of `level` whose status in the report is one of `statuses`.
///
/// The one place that reads rule statuses (`passed`, `failed`, `not_met`,
/// `expected`, `not_run`, `not_judged`, `error`: `harness/src/report/mod.rs`).
/// `not_run`, a transport the run was not given, is neither a failure nor a
/// miss; nor is `not_judged`, a rule that could not be seen.
fn rules_with_status(report: &Value, level: &str, statuses: &[&str]) -> BTreeSet<String> {
    report["rules"]
        .as_array()
        .expect("the report lists rules")
        .iter()
        .filter(|rule| {
            rule["level"] == level
                && rule["status"]
                    .as_str()
                    .is_some_and(|status| statuses.contains(&status))
        })
        .filter_map(|rule| rule["id"].as_str().map(str::to_owned))
        .collect()
}

/// The status of the rule `id`, whatever its level.
fn status_of<'a>(report: &'a Value, id: &str) -> Option<&'a str> {
    report["rules"]
        .as_array()
        .expect("the report lists rules")
        .iter()
        .find(|rule| rule["id"] == id)
        .and_then(|rule| rule["status"].as_str())
}

/// Required rules that failed, or could not be judged.
fn required_failures(report: &Value) -> BTreeSet<String> {
    rules_with_status(report, "required", &["failed", "error"])
}

/// Recommended rules not met.
fn recommended_misses(report: &Value) -> BTreeSet<String> {
    rules_with_status(report, "recommended", &["not_met"])
}

/// Recommended rules that could not be judged (a gateway that did not start,
/// say): no run here should have any.
fn recommended_errors(report: &Value) -> BTreeSet<String> {
    rules_with_status(report, "recommended", &["error"])
}

/// Whether the required rule `id` was judged broken (`failed`), rather than
/// left unjudged (`error`).
fn judged_broken(report: &Value, id: &str) -> bool {
    rules_with_status(report, "required", &["failed"]).contains(id)
}

/// The first line of each failure message of `rules`, for assertion messages.
fn failure_lines(report: &Value, rules: &BTreeSet<String>) -> String {
    let mut out = String::new();
    for rule in report["rules"].as_array().into_iter().flatten() {
        let Some(id) = rule["id"].as_str().filter(|id| rules.contains(*id)) else {
            continue;
        };
        for scenario in rule["scenarios"].as_array().into_iter().flatten() {
            if ["passed", "not_run"].contains(&scenario["status"].as_str().unwrap_or_default()) {
                continue;
            }
            out.push_str(&format!(
                "  {id} {} ({}): {}\n      {}\n",
                scenario["place"].as_str().unwrap_or("?"),
                scenario["status"].as_str().unwrap_or("?"),
                scenario["name"].as_str().unwrap_or("?"),
                scenario["summary"].as_str().unwrap_or("(no summary)")
            ));
        }
    }
    out
}

fn features(section: &str) -> String {
    workspace()
        .join(format!("features/{section}.feature"))
        .display()
        .to_string()
}

fn assert_passes(name: &str, run: &Run) {
    let failed = required_failures(&run.report);
    assert!(
        run.success && failed.is_empty(),
        "{name}: the example gateway should keep every required rule; failed: {failed:?}\n{}\n{}",
        failure_lines(&run.report, &failed),
        run.stdout
            .lines()
            .rev()
            .take(3)
            .collect::<Vec<_>>()
            .join("\n")
    );
    let unjudged = recommended_errors(&run.report);
    assert!(
        unjudged.is_empty(),
        "{name}: recommended rules not judged: {unjudged:?}\n{}",
        failure_lines(&run.report, &unjudged)
    );
    let missed = recommended_misses(&run.report);
    eprintln!("{name}: recommended rules not met (allowed): {missed:?}");
}

#[test]
fn the_python_gateway_passes_over_stdio() {
    let fork = ForkServer::new("stdio");
    // The plain template, as the README gives it; then the fork server's.
    for (section, launch) in [
        ("protocol", Launch::Plain),
        ("masking", Launch::Fork(&fork)),
    ] {
        let name = format!("stdio-{section}");
        let run = run_harness(&name, launch, "stdio", &features(section), None);
        assert_passes(&name, &run);
    }
    // The variants only a stdio client can see, each on its section.
    let wrong: Vec<String> = variants("stdio")
        .iter()
        .filter_map(|(rule, variant)| {
            let baseline_misses = BTreeSet::new();
            judge_variant(&fork, "stdio", rule, &variant.what, &baseline_misses).1
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_python_gateway_passes_over_http_and_each_variant_fails_its_rule_only() {
    let fork = ForkServer::new("http");
    let all = workspace().join("features").display().to_string();
    let baseline = run_harness("http-all", Launch::Fork(&fork), "http", &all, None);
    assert_passes("http-all", &baseline);
    let baseline_misses = recommended_misses(&baseline.report);

    let only: Option<BTreeSet<String>> = std::env::var("EXAMPLE_GATEWAY_VARIANTS")
        .ok()
        .map(|list| list.split(',').map(|s| s.trim().to_owned()).collect());
    let mut queue: Vec<(String, Variant)> = variants("http")
        .into_iter()
        .filter(|(key, _)| only.as_ref().is_none_or(|only| only.contains(key)))
        .collect();
    // The slowest sections last in the queue, so taken first: the short runs
    // then fill the slots beside them.
    let slowest = slowest_scenario_per_section(&baseline.report);
    let queue_variants: BTreeMap<String, bool> = queue
        .iter()
        .map(|(key, variant)| (key.clone(), variant.breaks_as_a_whole().is_some()))
        .collect();
    queue.sort_by(|(a, _), (b, _)| {
        let seconds = |key: &str| match queue_variants.get(key) {
            Some(true) => f64::INFINITY,
            _ => slowest
                .get(section_of(rule_of(key)))
                .copied()
                .unwrap_or(0.0),
        };
        seconds(a).total_cmp(&seconds(b)).then(b.cmp(a))
    });
    let queue = Mutex::new(queue);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..RUN_SLOTS {
            scope.spawn(|| loop {
                let Some((key, variant)) = queue.lock().unwrap_or_else(|p| p.into_inner()).pop()
                else {
                    break;
                };
                if let Some(broken) = variant.breaks_as_a_whole() {
                    let judged = judge_whole(&fork, &key, &variant.what, broken, &baseline.report);
                    results
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((key, judged));
                    continue;
                }
                let mut judged =
                    judge_variant(&fork, "http", &key, &variant.what, &baseline_misses);
                if let Some(wrong) = judge_others(&fork, &key, &variant) {
                    let before = judged.1.take().map(|w| w + "\n").unwrap_or_default();
                    judged.1 = Some(before + &wrong);
                }
                results
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((key, judged));
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    results.sort_by(|(a, _), (b, _)| a.cmp(b));
    let timings: Vec<&str> = results
        .iter()
        .map(|(_, (timing, _))| timing.as_str())
        .collect();
    eprintln!("variant runs:\n  {}", timings.join("\n  "));
    let wrong: Vec<&str> = results
        .iter()
        .filter_map(|(_, (_, wrong))| wrong.as_deref())
        .collect();
    assert!(
        wrong.is_empty(),
        "{} variant(s) not judged as breaking exactly their rule:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// A gateway shaped as hosted ones are (MCP at another path, and only for
/// clients that show its bearer token) is judged as any other with
/// `--endpoint` and `--client-auth bearer`: raw HTTP and SDK sessions alike
/// reach it and carry the run's credential, the scenarios about the agent's
/// own headers still see what reaches the upstream, and no report shows the
/// credential. At the wrong path, or with the credential in the wrong
/// place, nothing gets in and nothing passes.
#[test]
fn a_gateway_at_another_path_that_checks_its_clients_is_judged() {
    let fork = ForkServer::new("hosted");
    let all = workspace().join("features").display().to_string();
    let tags = "@TC-PROTO-002 or @TC-PROTO-003 or @TC-PROTO-008 or @TC-REQ-009 or @TC-REQ-001";
    let hosted = |name: &str, options: &[&str]| {
        let options = [options, &["--tags", tags]].concat();
        run_harness_with(name, Launch::Hosted(&fork), "http", &all, None, &options)
    };
    let run = hosted(
        "hosted",
        &["--endpoint", HOSTED_ENDPOINT, "--client-auth", "bearer"],
    );
    assert_passes("hosted", &run);
    assert!(
        !run.report.to_string().contains("AGENT-CLIENT-"),
        "a report shows the client credential"
    );
    for (name, options) in [
        ("hosted-wrong-path", &["--client-auth", "bearer"][..]),
        (
            "hosted-wrong-place",
            &[
                "--endpoint",
                HOSTED_ENDPOINT,
                "--client-auth",
                "header:X-Api-Key",
            ][..],
        ),
    ] {
        let run = hosted(name, options);
        assert!(!run.success, "{name}: {}", run.stdout);
        assert_eq!(
            run.report["counts"]["passed"], 0,
            "{name}: a scenario passed on a gateway the client could not reach:\n{}",
            run.stdout
        );
    }
}

/// The level of the rule `id` in a report (`required`, `recommended`).
fn level_of<'a>(report: &'a Value, id: &str) -> Option<&'a str> {
    report["rules"]
        .as_array()?
        .iter()
        .find(|rule| rule["id"] == id)
        .and_then(|rule| rule["level"].as_str())
}

/// Each variant of the gateway shaped as a hosted one (`--list-breaks
/// --hosted`: one that passes its clients' credential on to the API, one
/// that lets every client in) is judged as the unbroken one is, with
/// `--endpoint` and `--client-auth bearer`, on its rule's section: it fails
/// exactly its rule (a recommended one is not met), every other rule of the
/// section fares as on the unbroken gateway, and the rules its `also` names
/// have the status given there. The unbroken gateway passes both rules.
#[test]
fn each_variant_of_a_gateway_that_checks_its_clients_fails_its_rule_only() {
    let fork = ForkServer::new("hosted-variants");
    let hosted = ["--endpoint", HOSTED_ENDPOINT, "--client-auth", "bearer"];
    let mut baselines: BTreeMap<&str, Run> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (key, variant) in hosted_variants() {
        let rule = rule_of(&key).to_owned();
        let section = section_of(&rule);
        let baseline = baselines.entry(section).or_insert_with(|| {
            let name = format!("hosted-{section}");
            let run = run_harness_with(
                &name,
                Launch::Hosted(&fork),
                "http",
                &features(section),
                None,
                &hosted,
            );
            assert_passes(&name, &run);
            run
        });
        let run = run_harness_with(
            &format!("hosted-break-{key}"),
            Launch::Hosted(&fork),
            "http",
            &features(section),
            Some(&key),
            &hosted,
        );
        wrong.extend(judge_shaped_variant(&key, &variant, baseline, &run));
        assert!(
            !run.report.to_string().contains("AGENT-CLIENT-"),
            "{key}: a report shows the client credential"
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The gateway shaped as one that checks access tokens ([`Launch::OAuth`],
/// `--client-auth oauth`) passes every rule of MCP authorization, and each
/// of its variants of that shape (`--list-breaks --oauth`) fails exactly
/// its rule, as [`judge_shaped_variant`] says; a few runs at once, since
/// the key-change scenarios spend their time waiting. No report shows a
/// token of the harness's authorization server.
#[test]
fn each_variant_of_a_gateway_that_checks_tokens_fails_its_rule_only() {
    let fork = ForkServer::new("oauth-variants");
    let oauth = ["--endpoint", HOSTED_ENDPOINT, "--client-auth", "oauth"];
    let section = features("authorization");
    let baseline = run_harness_with(
        "oauth-authorization",
        Launch::OAuth(&fork),
        "http",
        &section,
        None,
        &oauth,
    );
    assert_passes("oauth-authorization", &baseline);
    let not_passed: Vec<String> = baseline.report["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|rule| rule["status"] != "passed")
        .map(|rule| rule["id"].to_string())
        .collect();
    assert!(
        not_passed.is_empty(),
        "the unbroken gateway should pass every rule of MCP authorization: {not_passed:?}\n{}",
        baseline.stdout
    );
    let queue = Mutex::new(shaped_variants("--oauth").into_iter().collect::<Vec<_>>());
    let wrong = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..RUN_SLOTS {
            scope.spawn(|| loop {
                let Some((key, variant)) = queue.lock().unwrap_or_else(|p| p.into_inner()).pop()
                else {
                    break;
                };
                let run = run_harness_with(
                    &format!("oauth-break-{key}"),
                    Launch::OAuth(&fork),
                    "http",
                    &section,
                    Some(&key),
                    &oauth,
                );
                let mut found = judge_shaped_variant(&key, &variant, &baseline, &run);
                if run.report.to_string().contains("eyJhbGci") {
                    found.push(format!("{key}: a report shows a token"));
                }
                wrong
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .extend(found);
            });
        }
    });
    let wrong = wrong.into_inner().unwrap_or_else(|p| p.into_inner());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Whether the run of variant `key` of a shaped gateway (hosted, or
/// checking tokens) judged it as breaking its rule only, against the
/// unbroken gateway's `baseline` run on the same section: its rule failed
/// (a recommended one not met), every other rule fares as in the baseline,
/// and the rules its `also` names have the status given there. What was
/// wrong, if anything.
fn judge_shaped_variant(key: &str, variant: &Variant, baseline: &Run, run: &Run) -> Vec<String> {
    let rule = rule_of(key).to_owned();
    let mut wrong = Vec::new();
    if status_of(&baseline.report, &rule) != Some("passed") {
        wrong.push(format!(
            "the unbroken gateway should pass {rule}:\n{}",
            failure_lines(&baseline.report, &BTreeSet::from([rule.clone()]))
        ));
    }
    let required = level_of(&run.report, &rule) == Some("required");
    let own = BTreeSet::from([rule.clone()]);
    let mut expected_misses = recommended_misses(&baseline.report);
    let expected_failures = if required {
        own.clone()
    } else {
        expected_misses.insert(rule.clone());
        BTreeSet::new()
    };
    let failed = required_failures(&run.report);
    let misses = recommended_misses(&run.report);
    let own_status = status_of(&run.report, &rule);
    let others: Vec<String> = variant
        .also
        .iter()
        .filter(|(id, status)| status_of(&run.report, id) != Some(status.as_str()))
        .map(|(id, status)| format!("{id} should be {status}"))
        .collect();
    let kept = failed == expected_failures
        && misses == expected_misses
        && own_status == Some(if required { "failed" } else { "not_met" })
        && run.success != required
        && others.is_empty();
    if !kept {
        let shown: BTreeSet<String> = failed
            .union(&misses)
            .cloned()
            .chain(variant.also.keys().cloned())
            .chain([rule.clone()])
            .collect();
        wrong.push(format!(
            "variant {key} ({}), {}.feature: its rule {rule} is {own_status:?}; \
             required failures {failed:?} (expected {expected_failures:?}); recommended \
             not met {misses:?} (expected {expected_misses:?}); other rules: {others:?}; \
             exit status success: {}\n{}",
            variant.what,
            section_of(&rule),
            run.success,
            failure_lines(&run.report, &shown)
        ));
    }
    wrong
}

/// Each scenario's outcome in a report, by place and transport.
fn outcomes(report: &Value) -> BTreeMap<String, String> {
    report["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|scenario| {
            (
                format!(
                    "{}:{} {} ({})",
                    scenario["file"].as_str().unwrap_or("?"),
                    scenario["line"],
                    scenario["name"].as_str().unwrap_or("?"),
                    scenario["transport"].as_str().unwrap_or("?"),
                ),
                scenario["status"].as_str().unwrap_or("?").to_owned(),
            )
        })
        .collect()
}

/// The verdicts do not depend on whether gateways are kept between
/// scenarios (`--isolate` or not): under variants that break a rule of
/// sessions, answers, masking and checking (whose scenarios set up the
/// upstream before their document), each scenario has the same outcome both
/// ways, and the default run did keep gateways. The whole suite and every
/// variant run with gateways kept, in the test above.
#[test]
fn keeping_gateways_between_scenarios_changes_no_verdict() {
    let fork = ForkServer::new("modes");
    let mut wrong = Vec::new();
    for (key, tags) in [
        ("TC-PROTO-006", None),
        ("TC-ANS-007", None),
        ("TC-MASK-003", None),
        ("TC-CHECK-015", Some("@TC-CHECK-015 or @TC-CHECK-001")),
    ] {
        let section = features(section_of(rule_of(key)));
        let narrowed: Vec<&str> = tags.into_iter().flat_map(|t| ["--tags", t]).collect();
        // Launches through the fork server take milliseconds, so a scenario
        // launches rather than wait for a gateway in use; a few scenarios at
        // a time make later ones find gateways idle, in both modes alike.
        let at_a_time = ["--concurrency", "4"];
        let [kept, isolated] = [&[][..], &["--isolate"][..]].map(|mode| {
            let options = [narrowed.as_slice(), &at_a_time, mode].concat();
            let name = format!(
                "modes-{key}-{}",
                if mode.is_empty() { "kept" } else { "isolated" }
            );
            let run = run_harness_with(
                &name,
                Launch::Fork(&fork),
                "http",
                &section,
                Some(key),
                &options,
            );
            (
                run.report["reused"].as_u64().unwrap_or(0),
                outcomes(&run.report),
            )
        });
        assert!(
            kept.0 > 0,
            "{key}: no gateway was kept, so nothing was compared"
        );
        assert_eq!(isolated.0, 0, "{key}: --isolate kept a gateway");
        let differ: Vec<String> = kept
            .1
            .iter()
            .filter(|(place, status)| isolated.1.get(*place) != Some(*status))
            .map(|(place, status)| {
                format!(
                    "  {place}: {status} kept, {:?} isolated",
                    isolated.1.get(place)
                )
            })
            .collect();
        if !differ.is_empty() || kept.1.len() != isolated.1.len() {
            wrong.push(format!("variant {key}:\n{}", differ.join("\n")));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The longest scenario of each section in `report` (seconds), which bounds
/// how long a run of that section takes.
fn slowest_scenario_per_section(report: &Value) -> BTreeMap<String, f64> {
    let mut slowest = BTreeMap::new();
    for scenario in report["scenarios"].as_array().into_iter().flatten() {
        let Some(section) = scenario["file"]
            .as_str()
            .and_then(|file| Path::new(file).file_stem())
            .and_then(|stem| stem.to_str())
        else {
            continue;
        };
        let seconds = scenario["seconds"].as_f64().unwrap_or(0.0);
        let entry = slowest.entry(section.to_owned()).or_insert(0.0_f64);
        *entry = entry.max(seconds);
    }
    slowest
}

/// Runs, under the variant `key`, the scenarios of the rules it lists in
/// `also` (other rules): what is wrong if one of them has not the status
/// listed.
fn judge_others(fork: &ForkServer, key: &str, variant: &Variant) -> Option<String> {
    if variant.also.is_empty() {
        return None;
    }
    let tags: Vec<String> = variant.also.keys().map(|id| format!("@{id}")).collect();
    let run = run_harness_with(
        &format!("break-{key}-others"),
        Launch::Fork(fork),
        "http",
        &workspace().join("features").display().to_string(),
        Some(key),
        &["--tags", &tags.join(" or ")],
    );
    let wrong: Vec<String> = variant
        .also
        .iter()
        .filter(|(id, status)| status_of(&run.report, id) != Some(status.as_str()))
        .map(|(id, status)| format!("{id} should be {status}"))
        .collect();
    if wrong.is_empty() {
        return None;
    }
    let shown: BTreeSet<String> = variant.also.keys().cloned().collect();
    Some(format!(
        "variant {key} ({}), other rules: {}\n{}",
        variant.what,
        wrong.join(", "),
        failure_lines(&run.report, &shown)
    ))
}

/// Runs the variant `key`, which breaks the rules `broken` as a whole, over
/// the whole suite (HTTP): its timing line, and what is wrong unless it
/// failed those rules only, at least one of them judged broken, and every
/// scenario of another rule's has the outcome it has on the unbroken
/// gateway (`baseline`): found its tool and arguments and judged its own
/// rule.
fn judge_whole(
    fork: &ForkServer,
    key: &str,
    what: &str,
    broken: fn(&str) -> bool,
    baseline: &Value,
) -> (String, Option<String>) {
    let all = workspace().join("features").display().to_string();
    let run = run_harness(
        &format!("whole-{key}"),
        Launch::Fork(fork),
        "http",
        &all,
        Some(key),
    );
    let timing = format!("{key} (whole suite): {:.0} s", run.seconds);
    let breaks = |id: &String| broken(id);
    let failed = required_failures(&run.report);
    let judged: BTreeSet<String> = rules_with_status(&run.report, "required", &["failed"]);
    let others = |report: &Value| -> BTreeMap<String, String> {
        outcomes_by_rule(report)
            .into_iter()
            .filter(|((rule, _), _)| !breaks(rule))
            .map(|((rule, scenario), status)| (format!("{rule} {scenario}"), status))
            .collect()
    };
    let (now, before) = (others(&run.report), others(baseline));
    let changed: Vec<String> = before
        .iter()
        .filter(|(scenario, status)| now.get(*scenario) != Some(*status))
        .map(|(scenario, status)| {
            let now = now.get(scenario).map_or("absent", String::as_str);
            format!("  {scenario}: {status} on the unbroken gateway, {now} here")
        })
        .collect();
    if changed.is_empty() && failed.iter().all(breaks) && judged.iter().any(breaks) && !run.success
    {
        return (timing, None);
    }
    let not_broken: BTreeSet<String> = failed.iter().filter(|id| !breaks(id)).cloned().collect();
    let wrong = format!(
        "variant {key} ({what}), whole suite:
  rules it breaks judged broken: {:?}
  other rules failed: {not_broken:?}
  scenarios of other rules whose outcome changed:
{}
{}",
        judged.iter().filter(|id| breaks(id)).collect::<Vec<_>>(),
        changed.join("\n"),
        failure_lines(&run.report, &not_broken),
    );
    (timing, Some(wrong))
}

/// Each scenario's outcome under each rule it judges: (rule, scenario as
/// place, name and transport) -> status.
fn outcomes_by_rule(report: &Value) -> BTreeMap<(String, String), String> {
    let mut outcomes = BTreeMap::new();
    for rule in report["rules"].as_array().into_iter().flatten() {
        let id = rule["id"].as_str().unwrap_or("?").to_owned();
        for scenario in rule["scenarios"].as_array().into_iter().flatten() {
            let name = format!(
                "{} {} ({})",
                scenario["place"].as_str().unwrap_or("?"),
                scenario["name"].as_str().unwrap_or("?"),
                scenario["transport"].as_str().unwrap_or("?"),
            );
            let status = scenario["status"].as_str().unwrap_or("?").to_owned();
            outcomes.insert((id.clone(), name), status);
        }
    }
    outcomes
}

/// Runs the variant `key` on its rule's section over `transport`: its
/// timing line, and what is wrong if the run did not fail exactly that rule.
fn judge_variant(
    fork: &ForkServer,
    transport: &str,
    key: &str,
    what: &str,
    baseline_misses: &BTreeSet<String>,
) -> (String, Option<String>) {
    let rule = rule_of(key);
    let section = section_of(rule);
    let run = run_harness(
        &format!("break-{key}-{transport}"),
        Launch::Fork(fork),
        transport,
        &features(section),
        Some(key),
    );
    let timing = format!("{key} ({section}): {:.0} s", run.seconds);
    let expected = BTreeSet::from([rule.to_owned()]);
    let failed = required_failures(&run.report);
    let expected_misses: BTreeSet<String> = baseline_misses
        .iter()
        .filter(|id| section_of(id) == section)
        .cloned()
        .collect();
    let misses = recommended_misses(&run.report);
    let unjudged = recommended_errors(&run.report);
    let judged = judged_broken(&run.report, rule);
    if failed == expected
        && judged
        && misses == expected_misses
        && unjudged.is_empty()
        && !run.success
    {
        return (timing, None);
    }
    let unexpected: BTreeSet<String> = failed.difference(&expected).cloned().collect();
    let changed: BTreeSet<String> = misses
        .symmetric_difference(&expected_misses)
        .chain(&unjudged)
        .cloned()
        .collect();
    let mut shown: BTreeSet<String> = unexpected.union(&changed).cloned().collect();
    if !judged {
        shown.insert(rule.to_owned());
    }
    let wrong = format!(
        "variant {key} ({what}), {section}.feature:\n  missing failure: {:?}\n  its rule judged broken (not just an error): {judged}\n  unexpected required failures: {unexpected:?}\n  recommended rules that changed or were not judged: {changed:?}\n  exit status success: {}\n{}",
        expected.difference(&failed).collect::<Vec<_>>(),
        run.success,
        failure_lines(&run.report, &shown),
    );
    (timing, Some(wrong))
}
