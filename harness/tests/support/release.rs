//! The release workflow's build (`scripts/release-build`), run on the
//! binaries the tests already built: the archive, the wheel and the npm
//! packages a release publishes.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
    sync::OnceLock,
};

use hosted_mcp_conformance::reference;

use super::python_example::{checked, workspace};

/// The venv of the packing tools (`packaging/requirements.txt`), which
/// has the tools that try the packages and lint the workflows too:
/// installed once, by the project's one installer.
pub fn tools() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("packaging-venv");
        checked(
            Command::new(workspace().join("scripts/python-venv"))
                .arg(&venv)
                .arg(workspace().join("packaging/requirements.txt")),
        );
        venv
    })
}

/// A tool of [`tools`]'s venv.
pub fn tool(name: &str) -> PathBuf {
    tools().join("bin").join(name)
}

/// Runs the release script into `out` on the tests' own binaries, as the
/// release of `tag` when one is given, else as a rehearsal.
pub fn build(out: &Path, tag: Option<&str>) -> Output {
    let harness = Path::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"));
    // The reference gateway, built beside the harness as a run would build it.
    let gateway = reference::binary_for(harness).expect("the reference gateway builds");
    assert_eq!(gateway.parent(), harness.parent());
    let mut script = Command::new(workspace().join("scripts/release-build"));
    script
        .arg(out)
        .env("RELEASE_BINARIES_DIR", harness.parent().expect("a folder"))
        .env("PACKAGING_VENV", tools())
        .env_remove("RELEASE_TAG");
    if let Some(tag) = tag {
        script.env("RELEASE_TAG", tag);
    }
    script.output().expect("the release script runs")
}

/// One rehearsal of the release, shared by the tests that read it.
pub struct Rehearsal {
    /// Where it packed.
    pub dir: PathBuf,
    /// The files it says it packed, in its order.
    pub files: Vec<PathBuf>,
}

impl Rehearsal {
    /// The file packed whose name `pick` accepts.
    pub fn file(&self, what: &str, pick: impl Fn(&str) -> bool) -> &Path {
        self.files
            .iter()
            .find(|path| pick(&path.file_name().unwrap_or_default().to_string_lossy()))
            .unwrap_or_else(|| panic!("no {what} among {:?}", self.files))
    }
}

pub fn rehearsal() -> &'static Rehearsal {
    static BUILT: OnceLock<Rehearsal> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("release-rehearsal");
        let _ = std::fs::remove_dir_all(&dir);
        let built = build(&dir, None);
        assert!(
            built.status.success(),
            "{}: {}",
            built.status,
            String::from_utf8_lossy(&built.stderr)
        );
        let files = String::from_utf8_lossy(&built.stdout)
            .lines()
            .filter_map(|line| line.strip_prefix("release-build: "))
            .map(PathBuf::from)
            .collect();
        Rehearsal { dir, files }
    })
}
