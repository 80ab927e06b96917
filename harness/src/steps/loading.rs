//! Steps for TC-LOAD-*: documents that load, and documents that must not.

use cucumber::{gherkin::Step, given, then, when};

use super::failure::{fail, StepResult};
use super::support::doc_string;
use crate::world::GatewayWorld;

/// Marks of a crash rather than a handled error, in the languages gateways
/// are commonly written in.
const CRASH_MARKS: [&str; 3] = [
    "panicked at",
    "Traceback (most recent call last)",
    "Uncaught",
];

/// A split document's root in a folder of its own, so that a file beside
/// that folder is outside the document's folder tree.
#[given(expr = "the OpenAPI document is in the folder {string}")]
async fn document_folder(world: &mut GatewayWorld, folder: String) -> StepResult {
    world.set_document_folder(&folder)?;
    Ok(())
}

/// Another file of a split document, by its path from the document's folder.
#[given(expr = "beside the document, the file {string}:")]
async fn file_beside(world: &mut GatewayWorld, path: String, step: &Step) -> StepResult {
    world.add_file(&path, doc_string(step)?)?;
    Ok(())
}

/// The gateway must have read the document: it started (listing forces a
/// lazy gateway to read it), or it exited at start-up by itself, refusing
/// the document (how cleanly is another rule's matter). A command that never
/// ran proves nothing: that is reported as not judged.
#[when("the gateway loads the document, whether it accepts it or not")]
async fn loads_either_way(world: &mut GatewayWorld) -> StepResult {
    world.put_start_under_test();
    if world.list_tools().await.is_ok() {
        return Ok(());
    }
    let Some(failure) = world.ended_at_start().await else {
        // It started; what it lists is not this rule's matter.
        return Ok(());
    };
    match failure
        .status
        .map(|status| (status.success(), status.code()))
    {
        // 126 and 127: a wrapper (`env`, a shell) could not find or run the command.
        Some((false, code)) if !matches!(code, Some(126 | 127)) => Ok(()),
        _ => fail!("the gateway neither started nor refused the document: {failure}"),
    }
}

/// The gateway's refusal, provided it reported an error rather than crashing.
async fn refusal(world: &mut GatewayWorld) -> anyhow::Result<String> {
    let failure = world.start_refused().await?;
    if let Some(mark) = CRASH_MARKS.iter().find(|m| failure.stderr.contains(*m)) {
        fail!(
            "the gateway crashed ({mark:?}) instead of reporting the error:\n{}",
            failure.stderr
        );
    }
    Ok(failure.stderr)
}

#[then(expr = "the gateway refuses to start, and its error names {string}")]
async fn refuses_naming(world: &mut GatewayWorld, place: String) -> StepResult {
    let stderr = refusal(world).await?;
    if !stderr.to_lowercase().contains(&place.to_lowercase()) {
        fail!("the gateway refused the document, but its error does not name {place:?}:\n{stderr}");
    }
    Ok(())
}

#[then(expr = "the gateway refuses to start, and its error names line {int}")]
async fn refuses_naming_line(world: &mut GatewayWorld, line: usize) -> StepResult {
    let stderr = refusal(world).await?;
    if !names_line(&stderr, line) {
        fail!(
            "the gateway refused the document, but its error does not name line {line}:\n{stderr}"
        );
    }
    Ok(())
}

/// A line is named as `line 5`, `line: 5`, `file:5:` or `5:2` (line and
/// column) after a character that is not a digit, as in `file:5:2` or
/// js-yaml's `bad indentation of a mapping entry (5:2)`.
fn names_line(text: &str, line: usize) -> bool {
    let text = text.to_lowercase();
    let digit = |c: char| c.is_ascii_digit();
    let ends_number = |rest: &str| !rest.starts_with(digit);
    let line_and_column = format!("{line}:");
    [format!("line {line}"), format!("line: {line}")]
        .iter()
        .any(|form| {
            text.match_indices(form.as_str())
                .any(|(i, m)| ends_number(&text[i + m.len()..]))
        })
        || text.contains(&format!(":{line}:"))
        || text
            .match_indices(&line_and_column)
            .any(|(i, m)| !text[..i].ends_with(digit) && text[i + m.len()..].starts_with(digit))
}

#[cfg(test)]
mod tests {
    use super::names_line;

    #[test]
    fn recognises_a_named_line() {
        assert!(names_line("error: document.yaml:5:2: not valid YAML", 5));
        assert!(names_line(
            "YAMLException: bad indentation at line 5, column 2",
            5
        ));
        assert!(names_line("Line: 5", 5));
        assert!(names_line(
            "document.yaml:5: mapping values are not allowed",
            5
        ));
        assert!(names_line(
            "YAMLException: bad indentation of a mapping entry (5:2)",
            5
        ));
        assert!(names_line("at 5:12 in the document", 5));
        assert!(!names_line("at line 55", 5));
        assert!(!names_line("error: document.yaml:15:2", 5));
        assert!(!names_line("bad indentation of a mapping entry (15:2)", 5));
        assert!(!names_line("started at 10:05:33", 5));
        assert!(!names_line("a ratio of 5:x", 5));
    }
}
