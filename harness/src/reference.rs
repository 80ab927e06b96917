//! Where the reference gateway comes from when no `--gateway` is given.
//!
//! Run from this workspace's build (`cargo run`, `cargo test`), the harness
//! builds the reference beside itself first, so an edited reference is never
//! checked through a stale binary. Installed (`cargo install`, a release
//! archive), there is no workspace to build in: it takes the
//! `hosted-mcp-gateway` beside it or on `PATH`, or says how to get one.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};

/// The reference gateway's executable name.
const NAME: &str = "hosted-mcp-gateway";

/// The reference gateway for the running harness.
pub fn binary() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot locate the harness executable")?;
    binary_for(&exe)
}

/// The reference gateway for the harness executable `exe`: built beside it
/// when `exe` is this workspace's build, else found beside it or on `PATH`.
pub fn binary_for(exe: &Path) -> anyhow::Result<PathBuf> {
    let dir = exe
        .parent()
        .context("the harness executable has no directory")?;
    let file_name = format!("{NAME}{}", std::env::consts::EXE_SUFFIX);
    let beside = dir.join(&file_name);
    if let Some(workspace) = workspace_of_build(dir) {
        build(workspace, dir)?;
        if !beside.is_file() {
            bail!(
                "the reference gateway was built, but is not at {}",
                beside.display()
            );
        }
        return Ok(beside);
    }
    if is_executable(&beside) {
        return Ok(beside);
    }
    if let Some(found) = on_path(&file_name) {
        return Ok(found);
    }
    bail!(
        "no gateway to check: --gateway was not given, and the reference gateway \
         ({file_name}) is neither beside this harness in {} nor on PATH. Pass your \
         gateway's command with --gateway (see --help), or install the reference: \
         `cargo install --locked --git <this kit's repository> {NAME}` (the same \
         source as the harness), or take it from the same release archive",
        dir.display()
    )
}

/// The workspace this harness was built from, when `dir` is a profile
/// folder of a cargo build of it (`<target>/debug`): cargo keeps its
/// fingerprints there. An installed copy (`~/.cargo/bin`, an unpacked
/// release) has none, even where the source it was built from still exists.
fn workspace_of_build(dir: &Path) -> Option<&'static Path> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let is_build = dir.join(".fingerprint").is_dir() && dir.join("deps").is_dir();
    (is_build && workspace.join("reference").join("Cargo.toml").is_file()).then_some(workspace)
}

/// Builds the reference gateway into the build `dir` belongs to.
fn build(workspace: &Path, dir: &Path) -> anyhow::Result<()> {
    // `dir` is `<target>/<profile>`: build into the same place.
    let target_dir = dir.parent().context("no target directory")?;
    let mut cargo = std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()));
    cargo
        .current_dir(workspace)
        // The gateway's binary alone, with no package named: features unify
        // over the whole workspace, as in `cargo run --bin
        // hosted-mcp-conformance` (the README's command), so what that built
        // is reused and only the gateway's own code is left to compile.
        // Nothing else: the docs site's binary would bring mdBook along.
        .args(["build", "--quiet", "--bin", NAME, "--target-dir"])
        .arg(target_dir);
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(set_by_cargo_for_this_process) {
            cargo.env_remove(name);
        }
    }
    match dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => {}
        Some("release") => {
            cargo.arg("--release");
        }
        Some(profile) => {
            cargo.args(["--profile", profile]);
        }
    }
    eprintln!("hosted-mcp-conformance: building the reference gateway (cargo build --bin {NAME})");
    let status = cargo.status().context("cannot run cargo")?;
    if !status.success() {
        bail!("building the reference gateway failed ({status})");
    }
    Ok(())
}

/// Whether `name` is one of the variables `cargo run` and `cargo test` set
/// for the harness itself (its package's name, version, manifest, ...).
/// Left in place, they reach the nested build, where a build script that
/// watches them (ring's watches `CARGO_PKG_NAME` and `CARGO_MANIFEST_DIR`)
/// sees them changed since the outer build: ring and everything above it,
/// rustls, reqwest and rmcp, were built again, 50 s of the first run, and
/// again by the next plain build.
fn set_by_cargo_for_this_process(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || matches!(
            name,
            "CARGO_MANIFEST_DIR"
                | "CARGO_MANIFEST_PATH"
                | "CARGO_MANIFEST_LINKS"
                | "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "CARGO_TARGET_TMPDIR"
                | "OUT_DIR"
        )
}

/// The first executable `file_name` in a folder of `PATH`.
fn on_path(file_name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|folder| folder.join(file_name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

#[cfg(test)]
mod tests {
    use super::set_by_cargo_for_this_process as cleared;

    #[test]
    fn the_nested_build_keeps_the_user_s_cargo_settings_only() {
        for name in [
            "CARGO_PKG_NAME",
            "CARGO_PKG_VERSION_MAJOR",
            "CARGO_MANIFEST_DIR",
            "OUT_DIR",
        ] {
            assert!(cleared(name), "{name}");
        }
        for name in [
            "CARGO_HOME",
            "CARGO_TARGET_DIR",
            "CARGO_BUILD_JOBS",
            "RUSTFLAGS",
            "PATH",
        ] {
            assert!(!cleared(name), "{name}");
        }
    }
}
