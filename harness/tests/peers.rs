//! The real gateways of examples/peers/ stay runnable and their baselines
//! stay true to the suite, with no peer installed (CI installs none; the
//! table is run by hand): each folder `check --list` names describes itself
//! (`check --describe`), its command templates are ones the harness accepts,
//! the options it hands the harness exist, its baseline parses and names
//! only rules and scenarios of the suite, and the peers' README has its row.

use std::{path::PathBuf, process::Command};

use hosted_mcp_conformance::{
    launch::{Template, Transport},
    report::ExpectedFailures,
    suite::Suite,
};

fn peers_folder() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/peers"))
}

/// Runs examples/peers/check with `args`; its stdout, or a panic with stderr.
fn check(args: &[&str]) -> String {
    let output = Command::new(peers_folder().join("check"))
        .args(args)
        .output()
        .expect("examples/peers/check runs");
    assert!(
        output.status.success(),
        "check {args:?}: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("check prints UTF-8")
}

/// What `check --describe` says of a peer.
#[derive(Default)]
struct Described {
    name: String,
    http: Option<String>,
    stdio: Option<String>,
    options: Vec<String>,
}

fn describe(peer: &str) -> Described {
    let mut described = Described::default();
    for line in check(&["--describe", peer]).lines() {
        let (what, value) = line
            .split_once(": ")
            .unwrap_or_else(|| panic!("{peer}: check --describe printed {line:?}"));
        let value = value.to_owned();
        match what {
            "name" => described.name = value,
            "http" => described.http = Some(value),
            "stdio" => described.stdio = Some(value),
            "option" => described.options.push(value),
            other => panic!("{peer}: check --describe printed an unknown item {other:?}"),
        }
    }
    described
}

fn harness_help() -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
        .arg("--help")
        .output()
        .expect("the harness runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn every_peer_describes_a_run_the_harness_accepts() {
    let peers: Vec<String> = check(&["--list"]).lines().map(str::to_owned).collect();
    assert!(peers.len() >= 8, "check --list names only {peers:?}");
    let suite = Suite::read(&PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../features"
    )))
    .expect("the features parse");
    let help = harness_help();
    let readme = std::fs::read_to_string(peers_folder().join("README.md")).expect("README");
    let mut wrong = Vec::new();
    for peer in &peers {
        let described = describe(peer);
        if described.name.is_empty() {
            wrong.push(format!("{peer}: peer.sh sets no name"));
        }
        if described.http.is_none() && described.stdio.is_none() {
            wrong.push(format!("{peer}: peer.sh sets no command"));
        }
        for (template, transport) in [
            (&described.http, Transport::Http),
            (&described.stdio, Transport::Stdio),
        ] {
            if let Some(Err(error)) = template.as_deref().map(|t| Template::parse(t, transport)) {
                wrong.push(format!("{peer}: its {transport:?} command: {error:#}"));
            }
        }
        let mut options = described.options.iter();
        while let Some(option) = options.next() {
            if !option.starts_with("--") {
                continue;
            }
            if !help.contains(&format!("{option} ")) {
                wrong.push(format!("{peer}: the harness has no option {option}"));
            }
            if option == "--prepare" {
                let step = options.next().map(|t| Template::parse_preparation(t));
                if !matches!(step, Some(Ok(_))) {
                    wrong.push(format!("{peer}: its --prepare step: {step:?}"));
                }
            }
        }
        let baseline = peers_folder().join(peer).join("expected-failures.txt");
        if let Err(error) = ExpectedFailures::read(&baseline).and_then(|b| b.check(&suite)) {
            wrong.push(format!("{peer}: {error:#}"));
        }
        if !readme.contains(&format!("]({peer}/")) {
            wrong.push(format!(
                "{peer}: examples/peers/README.md has no row linking its folder"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
