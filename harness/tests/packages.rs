//! The kit as a gateway author installs it: the wheel into a fresh virtual
//! environment and the npm packages into a fresh prefix, from the files the
//! release workflow publishes (`scripts/release-build`, run here on the
//! tests' own binaries), with no cargo or rustc on PATH and no network.
//! Each installed harness is the kit's version, checks the reference
//! gateway it carries (no `--gateway`) and the example Python gateway;
//! `uvx`, `pipx run` and `npx` run it; the npm launcher passes signals on,
//! and names the other ways to install where it has no build.
//!
//! Each install is timed and the time printed (`--nocapture`); the figures
//! of the release build are in benches/README.md.

#![cfg(unix)]

use std::{
    ffi::OsString,
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    sync::{Mutex, OnceLock, PoisonError},
    time::Instant,
};

use hosted_mcp_conformance::kit;
use serde_json::Value;

use crate::support::{
    python_example::{checked, gateway_dir, python, ForkServer},
    release::{rehearsal, tool},
    turns::Turn,
};

/// The packages of the release's rehearsal.
struct Packages {
    wheel: PathBuf,
    npm_main: PathBuf,
    npm_platform: PathBuf,
}

fn packages() -> Packages {
    let built = rehearsal();
    let version = kit::VERSION;
    Packages {
        wheel: built
            .file("wheel", |name| {
                name.starts_with(&format!(
                    "hosted_mcp_conformance-{version}-py3-none-manylinux_"
                )) && name.ends_with(".whl")
            })
            .to_path_buf(),
        npm_main: built
            .file("npm package", |name| {
                name == format!("hosted-mcp-conformance-{version}.tgz")
            })
            .to_path_buf(),
        npm_platform: built
            .file("npm platform package", |name| {
                name == format!("hosted-mcp-conformance-{}-{version}.tgz", npm_platform())
            })
            .to_path_buf(),
    }
}

/// This machine's npm platform package, as the launcher names it.
fn npm_platform() -> String {
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("linux-{cpu}-gnu")
}

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("packages-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch folder");
    dir
}

/// This PATH without every folder that holds cargo or rustc: what a gateway
/// author with no Rust toolchain has.
fn path_without_rust() -> OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|dir| !dir.join("cargo").exists() && !dir.join("rustc").exists())
        .collect();
    let kept = std::env::join_paths(kept).expect("a PATH");
    for tool in ["cargo", "rustc"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .env("PATH", &kept)
            .output()
            .expect("sh runs");
        assert!(!found.status.success(), "{tool} is still on {kept:?}");
    }
    kept
}

/// `command` with no Rust toolchain on its PATH.
fn without_rust(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(program);
    command.env("PATH", path_without_rust());
    command
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// Runs `install`, failing the test unless it succeeds, and prints its time.
fn timed_install(what: &str, install: &mut Command) {
    let started = Instant::now();
    checked(install);
    eprintln!(
        "{what}: installed in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// Both installed binaries say they are the kit's version.
fn assert_versions(bin: &Path) {
    let harness = stdout(&checked(
        without_rust(bin.join("hosted-mcp-conformance")).arg("--version"),
    ));
    assert_eq!(
        harness,
        format!(
            "hosted-mcp-conformance {} (rules revision {})",
            kit::VERSION,
            kit::RULES_REVISION
        )
    );
    let gateway = stdout(&checked(
        without_rust(bin.join("hosted-mcp-gateway")).arg("--version"),
    ));
    assert_eq!(gateway, format!("hosted-mcp-gateway {}", kit::VERSION));
}

/// Why the example gateway's suites may leave a scenario not run: they give
/// it no client credential and no authorization server.
const NO_CLIENT_AUTH: &str = "the run has no --client-auth";

/// Runs the whole suite with the installed `harness` and `options` from a
/// folder of its own, and returns its JSON report once it has passed with
/// every scenario run but those whose reason not to starts with one of
/// `excused`.
fn suite_passes(
    name: &str,
    harness: &Path,
    options: &[String],
    excused: &[&str],
    fork: Option<&ForkServer>,
) -> Value {
    // Two suites at a time, one of each gateway: the harness judges
    // timing only where the machine was free enough to see it (issue 50),
    // and two suites on two cores is what it is proven under; all four at
    // once would be more than that.
    static REFERENCE: Mutex<()> = Mutex::new(());
    static EXAMPLE: Mutex<()> = Mutex::new(());
    let _turn = Turn::take(module_path!());
    let _one = if fork.is_some() { &EXAMPLE } else { &REFERENCE }
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let dir = scratch(name);
    let mut command = without_rust(harness);
    command
        .current_dir(&dir)
        .args(options)
        .args(["--json", "report.json"])
        .env_remove("EXAMPLE_GATEWAY_BREAK")
        .env_remove("EXAMPLE_GATEWAY_FORKSERVER");
    if let Some(server) = fork {
        command.env("EXAMPLE_GATEWAY_FORKSERVER", &server.socket);
    }
    let started = Instant::now();
    let output = command.output().expect("the installed harness runs");
    eprintln!("{name}: {:.0} s", started.elapsed().as_secs_f64());
    assert!(
        output.status.success(),
        "{name}: {}\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("report.json")).expect("the JSON report"),
    )
    .expect("JSON");
    assert_eq!(report["kit"]["version"], kit::VERSION);
    assert_eq!(
        report["counts"]["failed"], 0,
        "{name}: {}",
        report["counts"]
    );
    assert_eq!(report["counts"]["error"], 0, "{name}: {}", report["counts"]);
    let passed = report["counts"]["passed"].as_u64().unwrap_or(0);
    assert!(passed >= 600, "{name}: {}", report["counts"]);
    for scenario in report["scenarios"].as_array().into_iter().flatten() {
        let why = scenario["failure"]["summary"].as_str().unwrap_or_default();
        assert!(
            scenario["status"] != "not_run" || excused.iter().any(|reason| why.starts_with(reason)),
            "{name}: a scenario was not run: {scenario}"
        );
    }
    if let Some(server) = fork {
        assert_eq!(server.fallbacks(), Vec::<String>::new(), "{name}");
    }
    report
}

/// The harness installed in `bin` checks the reference gateway the package
/// put in `carried`.
fn checks_the_reference_it_carries(name: &str, bin: &Path, carried: &Path) {
    let report = suite_passes(name, &bin.join("hosted-mcp-conformance"), &[], &[], None);
    let judged = report["gateway"]["http"].as_str().unwrap_or_default();
    let gateway = carried.join("hosted-mcp-gateway");
    assert!(
        judged.starts_with(&format!("{} serve ", gateway.display())),
        "{name} judged {judged}, not the reference at {}",
        gateway.display()
    );
}

/// The installed harness checks the example Python gateway, started
/// through its fork server.
fn checks_the_example_gateway(name: &str, harness: &Path) {
    let fork = ForkServer::new(name);
    let template = format!(
        "'{}' -S '{}' --openapi {{openapi}} --base-url {{base_url}} --port {{port}}",
        python().display(),
        gateway_dir().join("launch.py").display()
    );
    suite_passes(
        name,
        harness,
        &[
            "--transport".into(),
            "http".into(),
            "--gateway".into(),
            template,
        ],
        // Run over HTTP alone: the example's stdio is checked elsewhere.
        &[
            NO_CLIENT_AUTH,
            "the gateway under test was given no stdio command",
        ],
        Some(&fork),
    );
}

fn venv_with_the_wheel() -> PathBuf {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let venv = scratch("venv").join("venv");
        timed_install(
            "the wheel, into a fresh venv with pip",
            without_rust("sh").arg("-c").arg(format!(
                "python3 -m venv '{venv}' && '{venv}/bin/pip' install --quiet --no-index \
                 --no-cache-dir --disable-pip-version-check '{wheel}'",
                venv = venv.display(),
                wheel = packages().wheel.display()
            )),
        );
        venv
    })
    .clone()
}

#[test]
fn the_wheel_installs_without_rust_and_checks_the_reference_it_carries() {
    let venv = venv_with_the_wheel();
    let bin = venv.join("bin");
    assert_versions(&bin);
    let metadata = stdout(&checked(without_rust(bin.join("python")).args([
        "-c",
        "import importlib.metadata as m; print(m.version('hosted-mcp-conformance'))",
    ])));
    assert_eq!(metadata, kit::VERSION);
    checks_the_reference_it_carries("wheel-reference", &bin, &bin);
}

#[test]
fn the_wheel_checks_the_example_gateway() {
    let venv = venv_with_the_wheel();
    checks_the_example_gateway("wheel-example", &venv.join("bin/hosted-mcp-conformance"));
}

#[test]
fn uvx_and_pipx_run_the_wheel() {
    let home = scratch("runners");
    let wheel = packages().wheel.display().to_string();
    let expected = format!(
        "hosted-mcp-conformance {} (rules revision {})",
        kit::VERSION,
        kit::RULES_REVISION
    );
    let started = Instant::now();
    let uvx = checked(
        without_rust(tool("uvx"))
            .args([
                "--offline",
                "--from",
                &wheel,
                "hosted-mcp-conformance",
                "--version",
            ])
            .env("UV_CACHE_DIR", home.join("uv-cache"))
            .env("UV_TOOL_DIR", home.join("uv-tools"))
            .env("UV_PYTHON_DOWNLOADS", "never"),
    );
    eprintln!(
        "uvx --from the wheel: ran in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(stdout(&uvx), expected);
    let pipx = checked(
        without_rust(tool("pipx"))
            .args(["run", "--pip-args=--no-index", "--spec", &wheel])
            .args(["hosted-mcp-conformance", "--version"])
            .env("PIPX_HOME", home.join("pipx"))
            .env("PIPX_BIN_DIR", home.join("pipx-bin")),
    );
    assert!(stdout(&pipx).ends_with(&expected), "{}", stdout(&pipx));
}

/// `npm install` of `tarballs`, offline, with an empty cache in `dir` and no
/// lock file: where to, and other options, are the caller's.
fn npm_install(dir: &Path, tarballs: &[&PathBuf]) -> Command {
    let mut command = without_rust("npm");
    command
        .args(["install", "--offline", "--no-audit", "--no-fund"])
        .args(["--no-package-lock", "--loglevel=error", "--cache"])
        .arg(dir.join("cache"))
        .args(tarballs);
    command
}

/// A fresh npm prefix with the two packages installed from their tarballs,
/// offline, with an empty cache.
fn npm_prefix() -> PathBuf {
    static PREFIX: OnceLock<PathBuf> = OnceLock::new();
    PREFIX
        .get_or_init(|| {
            let dir = scratch("npm");
            let prefix = dir.join("prefix");
            timed_install(
                "the npm packages, into a fresh prefix",
                npm_install(&dir, &[&packages().npm_platform, &packages().npm_main])
                    .arg("--prefix")
                    .arg(&prefix),
            );
            prefix
        })
        .clone()
}

#[test]
fn the_npm_packages_install_without_rust_and_check_the_reference_they_carry() {
    let prefix = npm_prefix();
    let bin = prefix.join("node_modules/.bin");
    assert_versions(&bin);
    let platform = format!("@hosted-mcp-conformance/{}", npm_platform());
    for package in ["hosted-mcp-conformance", &platform] {
        let manifest: Value = serde_json::from_str(
            &std::fs::read_to_string(
                prefix
                    .join("node_modules")
                    .join(package)
                    .join("package.json"),
            )
            .expect("the installed package's manifest"),
        )
        .expect("JSON");
        assert_eq!(manifest["version"], kit::VERSION, "{package}");
    }
    // npx finds it in the prefix, as in a project that depends on it.
    let npx = checked(
        without_rust("npx")
            .args(["--offline", "hosted-mcp-conformance", "--version"])
            .current_dir(&prefix),
    );
    assert!(stdout(&npx).starts_with(&format!("hosted-mcp-conformance {} ", kit::VERSION)));
    let carried = prefix.join("node_modules").join(&platform).join("bin");
    checks_the_reference_it_carries("npm-reference", &bin, &carried);
}

#[test]
fn the_npm_packages_check_the_example_gateway() {
    let prefix = npm_prefix();
    checks_the_example_gateway(
        "npm-example",
        &prefix.join("node_modules/.bin/hosted-mcp-conformance"),
    );
}

#[test]
fn the_npm_launcher_passes_a_signal_on_and_ends_as_the_harness_does() {
    let prefix = npm_prefix();
    let dir = scratch("npm-signal");
    let mut run = without_rust(prefix.join("node_modules/.bin/hosted-mcp-conformance"))
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the launcher starts");
    // Once the harness has judged a scenario, it has gateways to stop.
    let mut lines = BufReader::new(run.stdout.take().expect("stdout")).lines();
    let first = lines.next().and_then(Result::ok).unwrap_or_default();
    assert!(!first.is_empty(), "the harness printed nothing");
    let launcher = i32::try_from(run.id()).expect("a pid");
    // SAFETY: kill(2) on the launcher this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(launcher, libc::SIGTERM) }, 0);
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = run.wait().expect("the launcher ends");
    // The harness's own status for SIGTERM, after its summary so far.
    assert_eq!(status.code(), Some(143), "{status}: {}", rest.join("\n"));
    assert!(
        rest.iter().any(|line| line.contains(" passed, ")),
        "{}",
        rest.join("\n")
    );
}

#[test]
fn the_npm_launcher_names_the_other_ways_where_it_has_no_build() {
    let prefix = npm_prefix();
    let launch = prefix.join("node_modules/hosted-mcp-conformance/lib/launch.js");
    // The launcher as it would run on a platform with no package of its own.
    let elsewhere = without_rust("node")
        .arg("-e")
        .arg(format!(
            "Object.defineProperty(process, 'arch', {{ value: 's390x' }}); \
             require('{}').run('hosted-mcp-conformance')",
            launch.display()
        ))
        .output()
        .expect("node runs");
    let said = String::from_utf8_lossy(&elsewhere.stderr);
    assert_eq!(elsewhere.status.code(), Some(1), "{said}");
    assert!(
        said.contains("for this platform (linux-s390x-gnu)")
            && said.contains(&format!("builds for {}", npm_platform()))
            && said.contains("cargo install --locked"),
        "{said}"
    );

    // The main package alone, as `npm install --omit=optional` leaves it.
    let dir = scratch("npm-omitted");
    checked(
        npm_install(&dir, &[&packages().npm_main])
            .arg("--omit=optional")
            .arg("--prefix")
            .arg(dir.join("prefix")),
    );
    let omitted = without_rust(dir.join("prefix/node_modules/.bin/hosted-mcp-conformance"))
        .arg("--version")
        .output()
        .expect("the launcher runs");
    let said = String::from_utf8_lossy(&omitted.stderr);
    assert_eq!(omitted.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("@hosted-mcp-conformance/{}", npm_platform()))
            && said.contains("--omit=optional")
            && said.contains("uvx hosted-mcp-conformance"),
        "{said}"
    );
}
