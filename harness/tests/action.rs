//! The GitHub Action's steps (`action/install`, `action/run`), run as the
//! runner runs them: from the action's folder under `_actions/OWNER/REPO/REF`,
//! with the runner's environment, against the release's rehearsal served
//! from loopback as the kit's release page would serve it. It installs only
//! the archive whose SHA-256 it knows (or is given), puts the harness on
//! PATH, runs it with the inputs, writes the reports where it says, and
//! ends as the harness ends. (`action.yml`'s wiring of inputs to these
//! steps is checked by actionlint: `workflows.rs`.)

#![cfg(unix)]

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use hosted_mcp_conformance::kit;
use wiremock::{
    matchers::{method, path},
    Mock, MockServer, ResponseTemplate,
};

use crate::support::{python_example::workspace, release::rehearsal, said};

const TARGET: &str = "x86_64-unknown-linux-gnu";

fn archive_name() -> String {
    format!("hosted-mcp-conformance-{}-{TARGET}.tar.gz", kit::VERSION)
}

/// The rehearsal's archive, and its SHA-256 as SHA256SUMS gives it.
fn archive() -> (Vec<u8>, String) {
    let dir = &rehearsal().dir;
    let bytes = std::fs::read(dir.join(archive_name())).expect("the archive");
    let sums = std::fs::read_to_string(dir.join("SHA256SUMS")).expect("SHA256SUMS");
    let sha = sums
        .lines()
        .find_map(|line| line.strip_suffix(&format!("  {}", archive_name())))
        .expect("the archive's line")
        .to_owned();
    (bytes, sha)
}

/// The kit's release page, on loopback, and a runner's folders.
struct Runner {
    _runtime: tokio::runtime::Runtime,
    server: MockServer,
    dir: PathBuf,
    action: PathBuf,
}

impl Runner {
    /// The action at ref v0 of `hosted-mcp/conformance-kit`, its
    /// known-releases ending with `known` lines.
    fn new(name: &str, known: &[String]) -> Self {
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        let (bytes, _) = archive();
        let server = runtime.block_on(async {
            let server = MockServer::start().await;
            Mock::given(method("GET"))
                .and(path(format!(
                    "/hosted-mcp/conformance-kit/releases/download/v{}/{}",
                    kit::VERSION,
                    archive_name()
                )))
                .respond_with(ResponseTemplate::new(200).set_body_bytes(bytes))
                .mount(&server)
                .await;
            server
        });
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("action-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        let action = dir.join("_actions/hosted-mcp/conformance-kit/v0");
        std::fs::create_dir_all(action.join("action")).expect("the action's folder");
        std::fs::create_dir_all(dir.join("temp")).expect("the runner's temp");
        std::fs::create_dir_all(dir.join("work")).expect("the workspace");
        for script in ["install", "run"] {
            std::fs::copy(
                workspace().join("action").join(script),
                action.join("action").join(script),
            )
            .expect("copy a step");
        }
        let mut releases =
            std::fs::read_to_string(workspace().join("action/known-releases")).expect("known");
        for line in known {
            releases.push_str(line);
            releases.push('\n');
        }
        std::fs::write(action.join("action/known-releases"), releases).expect("write known");
        for file in ["path", "output"] {
            std::fs::write(dir.join(file), "").expect("a runner file");
        }
        Runner {
            _runtime: runtime,
            server,
            dir,
            action,
        }
    }

    /// A step's script, with the runner's environment and `inputs`.
    fn step(&self, script: &str, inputs: &[(&str, &str)], path: Option<&Path>) -> Output {
        let mut command = Command::new(self.action.join("action").join(script));
        command
            .current_dir(self.dir.join("work"))
            .env("GITHUB_ACTION_PATH", &self.action)
            .env("GITHUB_SERVER_URL", self.server.uri())
            .env("GITHUB_REPOSITORY", "someone/their-gateway")
            .env("GITHUB_PATH", self.dir.join("path"))
            .env("GITHUB_OUTPUT", self.dir.join("output"))
            .env("RUNNER_TEMP", self.dir.join("temp"))
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64");
        if let Some(dir) = path {
            // As the runner does with GITHUB_PATH's lines.
            let system = std::env::var_os("PATH").unwrap_or_default();
            let mut paths = vec![dir.to_path_buf()];
            paths.extend(std::env::split_paths(&system));
            command.env("PATH", std::env::join_paths(paths).expect("a PATH"));
        }
        for (name, value) in inputs {
            command.env(name, value);
        }
        command.output().expect("the step runs")
    }

    fn added_paths(&self) -> Vec<PathBuf> {
        std::fs::read_to_string(self.dir.join("path"))
            .expect("GITHUB_PATH")
            .lines()
            .map(PathBuf::from)
            .collect()
    }

    fn output(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.join("output"))
            .expect("GITHUB_OUTPUT")
            .lines()
            .rev()
            .find_map(|line| line.strip_prefix(&format!("{name}=")).map(str::to_owned))
    }
}

fn known_line(sha: &str) -> String {
    format!("{} {TARGET} {sha}", kit::VERSION)
}

#[test]
fn the_action_installs_the_release_it_knows_and_runs_the_harness_with_its_inputs() {
    let (_, sha) = archive();
    let runner = Runner::new("installs", &[known_line(&sha)]);
    let installed = runner.step("install", &[], None);
    assert!(installed.status.success(), "{}", said(&installed));
    assert_eq!(runner.output("version").as_deref(), Some(kit::VERSION));
    let added = runner.added_paths();
    assert_eq!(added.len(), 1, "{added:?}");
    assert!(added[0].join("hosted-mcp-conformance").is_file());

    // No gateway input: the reference gateway installed beside it.
    let ran = runner.step(
        "run",
        &[("INPUT_ARGS", "--tags\n@TC-HINT-001 or @TC-NAME-005\n")],
        Some(&added[0]),
    );
    assert!(ran.status.success(), "{}", said(&ran));
    assert_eq!(runner.output("status").as_deref(), Some("0"));
    assert_eq!(
        runner.output("artifact").as_deref(),
        Some("conformance-reports")
    );
    let reports = runner.dir.join("work/conformance-reports");
    for report in ["report.json", "junit.xml", "report.html"] {
        assert!(
            reports.join(report).is_file(),
            "no {report}: {}",
            said(&ran)
        );
    }

    // merge: the run's report joined again, into a report of its own.
    let merged = runner.step(
        "run",
        &[
            ("INPUT_MERGE", "conformance-reports/report*.json"),
            ("INPUT_JSON", "merged.json"),
        ],
        Some(&added[0]),
    );
    assert!(merged.status.success(), "{}", said(&merged));
    assert!(runner.dir.join("work/merged.json").is_file());
}

#[test]
fn the_action_ends_as_the_harness_ends_and_names_a_shard_s_reports_after_it() {
    let (_, sha) = archive();
    let runner = Runner::new("fails", &[known_line(&sha)]);
    let installed = runner.step("install", &[], None);
    assert!(installed.status.success(), "{}", said(&installed));
    // A gateway that never starts: the harness gives up at once, with 3.
    let ran = runner.step(
        "run",
        &[
            ("INPUT_GATEWAY", "false {openapi} {base_url} {port}"),
            ("INPUT_SHARD", "1/2"),
        ],
        Some(&runner.added_paths()[0]),
    );
    assert_eq!(ran.status.code(), Some(3), "{}", said(&ran));
    assert_eq!(runner.output("status").as_deref(), Some("3"));
    assert_eq!(
        runner.output("artifact").as_deref(),
        Some("conformance-reports-shard-1-of-2")
    );
    assert_eq!(
        runner.output("json").as_deref(),
        Some("conformance-reports/report-shard-1-of-2.json")
    );
}

#[test]
fn the_action_refuses_an_archive_whose_checksum_it_does_not_know() {
    let (_, sha) = archive();
    // A release asset replaced after the action recorded it.
    let other = format!("{:0>64}", "1");
    let runner = Runner::new("tampered", &[known_line(&other)]);
    let refused = runner.step("install", &[], None);
    assert!(!refused.status.success());
    assert!(said(&refused).contains("refused"), "{}", said(&refused));
    assert!(runner.added_paths().is_empty());

    // A release newer than the action: refused without a checksum, and
    // installed with the one given.
    let runner = Runner::new("unknown", &[]);
    let version = [("INPUT_VERSION", kit::VERSION)];
    let refused = runner.step("install", &version, None);
    assert!(!refused.status.success());
    assert!(
        said(&refused).contains("is not among this action's known releases"),
        "{}",
        said(&refused)
    );
    let given = runner.step(
        "install",
        &[("INPUT_VERSION", kit::VERSION), ("INPUT_SHA256", &sha)],
        None,
    );
    assert!(given.status.success(), "{}", said(&given));
    assert_eq!(runner.added_paths().len(), 1);
}

#[test]
fn the_action_installs_the_archive_of_the_runner_s_platform_only() {
    let (_, sha) = archive();
    let arm = format!("{} aarch64-unknown-linux-gnu {sha}", kit::VERSION);
    let runner = Runner::new("platforms", &[known_line(&sha), arm]);
    // An arm64 runner asks for the arm64 archive (which this page lacks).
    let arm64 = runner.step("install", &[("RUNNER_ARCH", "ARM64")], None);
    assert!(!arm64.status.success());
    assert!(
        said(&arm64).contains(&format!(
            "cannot download {}/hosted-mcp/conformance-kit/releases/download/v{}/hosted-mcp-conformance-{}-aarch64-unknown-linux-gnu.tar.gz",
            runner.server.uri(),
            kit::VERSION,
            kit::VERSION
        )),
        "{}",
        said(&arm64)
    );
    let mac = runner.step("install", &[("RUNNER_OS", "macOS")], None);
    assert!(!mac.status.success());
    assert!(
        said(&mac).contains("built for Linux x86_64 and arm64; this runner is macOS X64"),
        "{}",
        said(&mac)
    );
    assert!(runner.added_paths().is_empty());
}
