//! The kit's GitHub files pass the linters a careful CI runs (both from
//! PyPI, pinned in packaging/requirements.txt): actionlint, with shellcheck
//! on every `run:`, on the workflows; zizmor's audits on the workflows and
//! `action.yml`. So does the workflow docs/ci.md gives users: actionlint
//! checks its inputs against this `action.yml` (its `uses:` of the kit
//! pointed at this checkout), and zizmor audits it as printed, allowing the
//! kit's own action a tag (`@v0`) as the page tells zizmor users to. The
//! scripts the action and the release run pass shellcheck.

#![cfg(unix)]

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use crate::support::{python_example::workspace, release::tool, said};

/// The action as docs/ci.md names it.
const KIT_ACTION: &str = "hosted-mcp/conformance-kit@v0";

/// The zizmor configuration docs/ci.md gives.
const ZIZMOR_CONFIG: &str = "rules:
  unpinned-uses:
    config:
      policies:
        hosted-mcp/conformance-kit: ref-pin
";

/// actionlint on the workflows of `project`, named one by one (so that
/// none is missed, and none outside is linted); it finds the project, and
/// a local action's `action.yml`, by the `.git` at its root.
fn actionlint(project: &Path) -> Output {
    assert!(
        project.join(".git").exists(),
        "{} is no project",
        project.display()
    );
    Command::new(tool("actionlint"))
        .args(["-no-color", "-shellcheck"])
        .arg(tool("shellcheck"))
        .args(workflows(project))
        .current_dir(project)
        .output()
        .expect("actionlint runs")
}

fn zizmor(files: &[PathBuf], config: Option<&Path>) -> Output {
    let mut command = Command::new(tool("zizmor"));
    command.args(["--offline", "--no-progress", "--color", "never"]);
    if let Some(config) = config {
        command.arg("--config").arg(config);
    } else {
        command.arg("--no-config");
    }
    command.args(files).output().expect("zizmor runs")
}

/// The workflows of `project`.
fn workflows(project: &Path) -> Vec<PathBuf> {
    let dir = project.join(".github/workflows");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the workflows' folder")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no workflow in {}", dir.display());
    files
}

#[test]
fn the_workflows_and_the_action_pass_actionlint_and_zizmor() {
    let linted = actionlint(workspace());
    assert!(linted.status.success(), "actionlint: {}", said(&linted));

    let mut files = workflows(workspace());
    files.push(workspace().join("action.yml"));
    let audited = zizmor(&files, None);
    assert!(audited.status.success(), "zizmor: {}", said(&audited));
}

/// The project a user's repository would be, with docs/ci.md's workflow in
/// it; `local` points its `uses:` of the kit at this checkout's action.
fn docs_workflow_project(name: &str, local: bool) -> PathBuf {
    let page = std::fs::read_to_string(workspace().join("docs/ci.md")).expect("docs/ci.md");
    let section = &page[page
        .find("## The workflow")
        .expect("the workflow's section")..];
    let start = section.find("```yaml\n").expect("a YAML block") + "```yaml\n".len();
    let workflow = &section[start..start + section[start..].find("```").expect("its end")];
    assert!(workflow.contains(KIT_ACTION), "{workflow}");

    let project = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("docs-workflow-{name}"));
    let _ = std::fs::remove_dir_all(&project);
    std::fs::create_dir_all(project.join(".github/workflows")).expect("a project");
    std::fs::create_dir_all(project.join(".git")).expect("a project's root");
    let workflow = if local {
        workflow.replace(KIT_ACTION, "./")
    } else {
        workflow.to_owned()
    };
    std::fs::write(project.join(".github/workflows/conformance.yml"), workflow)
        .expect("write the workflow");
    if local {
        std::fs::copy(workspace().join("action.yml"), project.join("action.yml"))
            .expect("copy action.yml");
    }
    project
}

#[test]
fn the_workflow_docs_give_passes_actionlint_and_zizmor() {
    let project = docs_workflow_project("actionlint", true);
    let linted = actionlint(&project);
    assert!(linted.status.success(), "actionlint: {}", said(&linted));

    let page = std::fs::read_to_string(workspace().join("docs/ci.md")).expect("docs/ci.md");
    assert!(
        page.contains(ZIZMOR_CONFIG),
        "docs/ci.md no longer gives zizmor's configuration"
    );
    let project = docs_workflow_project("zizmor", false);
    let config = project.join("zizmor.yml");
    std::fs::write(&config, ZIZMOR_CONFIG).expect("write zizmor's configuration");
    let audited = zizmor(
        &[project.join(".github/workflows/conformance.yml")],
        Some(&config),
    );
    assert!(audited.status.success(), "zizmor: {}", said(&audited));
}

#[test]
fn an_input_the_action_does_not_have_fails_actionlint() {
    // The check above can fail: a misspelt input is caught.
    let project = docs_workflow_project("misspelt", true);
    let workflow = project.join(".github/workflows/conformance.yml");
    let text = std::fs::read_to_string(&workflow).expect("the workflow");
    std::fs::write(
        &workflow,
        text.replace("expected-failures:", "expected-failure:"),
    )
    .expect("rewrite the workflow");
    let linted = actionlint(&project);
    assert!(!linted.status.success());
    assert!(
        said(&linted).contains("input \"expected-failure\" is not defined"),
        "{}",
        said(&linted)
    );
}

#[test]
fn the_action_and_release_scripts_pass_shellcheck() {
    let scripts = [
        "action/install",
        "action/run",
        "packaging/pack-wheel",
        "packaging/pack-npm",
        "scripts/release-build",
    ];
    let checked = Command::new(tool("shellcheck"))
        .args(scripts.iter().map(|script| workspace().join(script)))
        .output()
        .expect("shellcheck runs");
    assert!(checked.status.success(), "shellcheck: {}", said(&checked));
}
