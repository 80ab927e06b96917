//! The field's pages (`hosted-mcp-conformance field`): the JSON reports of
//! several gateways, each run with `--gateway-name`, as pages of the docs
//! site. `field.md` holds the table, every gateway by section; each
//! gateway's page (`field-NAME.md`) a line per rule it breaks, at a glance,
//! then its failures by rule with their evidence, and what could not be
//! judged or run, and why.
//!
//! Why Markdown in docs/ and not another report: the site checks every link
//! of it (to the rules, the scenarios' lines, the error entries), and a
//! reader finds the field where the rules are. Each page carries the rules
//! revision it was judged at in a comment (`<!-- rules-revision: … -->`), so
//! the site can say when the rules have moved on since. The Markdown itself
//! (literal text, code, fences, anchors) is written by `markdown`.
//!
//! Here: which reports make the pages and where they are written;
//! `judged` holds how a gateway's rules stand, `table` writes `field.md`,
//! `gateway_page` each gateway's page.

mod gateway_page;
mod judged;
mod table;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};

use super::markdown::slug;
use super::summary::Summary;
use gateway_page::gateway_page;
use judged::Gateway;
pub use judged::{Page, REVISION_MARK};
use table::table;

/// The table and a page per gateway, from each run's report (named by
/// where it was read). `root` is written out of commands and evidence, so a
/// page does not name the machine it was made on.
pub fn pages(runs: &[(String, Summary)], root: &str) -> anyhow::Result<Vec<Page>> {
    let Some((first_origin, first)) = runs.first() else {
        bail!("no report to make the field's pages of");
    };
    let mut gateways: Vec<Gateway<'_>> = Vec::new();
    for (origin, run) in runs {
        if run.kit != first.kit {
            bail!(
                "{first_origin} and {origin} were judged by different kits ({} and {}): run them again with one",
                first.kit.describe(),
                run.kit.describe()
            );
        }
        let Some(name) = run.gateway_name.as_deref() else {
            bail!("{origin} does not name its gateway: run it with --gateway-name");
        };
        let file = format!("field-{}.md", slug(name));
        if let Some(twin) = gateways.iter().find(|g| g.file == file) {
            bail!(
                "{origin} and {} both judge {name}; give the table one report per gateway (merge a split run first)",
                twin.origin
            );
        }
        gateways.push(Gateway {
            origin,
            name,
            file,
            run,
            rules: run.rules(),
        });
    }
    let mut pages = vec![table(&gateways)];
    pages.extend(gateways.iter().map(|gateway| gateway_page(gateway, root)));
    Ok(pages)
}

/// Writes the pages into `docs`, removes field pages no run made any more,
/// and lists them in `docs/SUMMARY.md` under the table. Returns what it
/// wrote.
pub fn write(docs: &Path, pages: &[Page]) -> anyhow::Result<Vec<PathBuf>> {
    let summary_path = docs.join("SUMMARY.md");
    let summary = std::fs::read_to_string(&summary_path)
        .with_context(|| format!("reading {}", summary_path.display()))?;
    for entry in std::fs::read_dir(docs).with_context(|| format!("reading {}", docs.display()))? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("field-") && name.ends_with(".md") {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        }
    }
    let mut written = Vec::new();
    for page in pages {
        let path = docs.join(&page.file);
        std::fs::write(&path, &page.text).with_context(|| format!("writing {}", path.display()))?;
        written.push(path);
    }
    std::fs::write(&summary_path, listed(&summary, pages))
        .with_context(|| format!("writing {}", summary_path.display()))?;
    written.push(summary_path);
    Ok(written)
}

/// `summary` (mdBook's SUMMARY.md) with the table and, under it, each
/// gateway's page, in place of the ones listed before.
fn listed(summary: &str, pages: &[Page]) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut entries = pages.iter().map(|page| {
        let indent = if page.file == "field.md" { "" } else { "  " };
        format!("{indent}- [{}]({})", page.title, page.file)
    });
    let mut placed = false;
    for line in summary.lines() {
        let trimmed = line.trim_start();
        let ours = trimmed.starts_with("- [")
            && (trimmed.ends_with("(field.md)") || trimmed.contains("](field-"));
        if ours {
            if !placed {
                lines.extend(entries.by_ref());
                placed = true;
            }
        } else {
            lines.push(line.to_owned());
        }
    }
    if !placed {
        lines.extend(entries);
    }
    lines.join("\n") + "\n"
}
