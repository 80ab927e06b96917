//! The documentation site as a writer publishes it: built by the code behind
//! `hosted-mcp-site`, every link and anchor landing, every scenario link of
//! the docs pointing at its line of a feature page, and the errors page
//! rendered in a real browser with an entry, and what to do, for every code.
//!
//! Needs Chromium at `/usr/bin/chromium` (or the path in `CHROMIUM`); it
//! fails, not skips, without it. `.ci/run` installs it.

use std::{
    path::{Path, PathBuf},
    sync::OnceLock,
};

#[path = "../../harness/tests/support/chromium.rs"]
mod chromium;

use chromium::browse;

fn kit() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The site, built once for the tests of this file.
fn site() -> &'static Path {
    static SITE: OnceLock<PathBuf> = OnceLock::new();
    SITE.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("site");
        let site = hosted_mcp_site::build(&kit(), &out).expect("the site builds");
        assert!(site.pages > 10, "only {} pages were built", site.pages);
        site.root
    })
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The codes of docs/errors.md, from its `## CODE` headings.
fn codes() -> Vec<String> {
    let codes: Vec<String> = read(&kit().join("docs/errors.md"))
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .filter(|heading| heading.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .map(str::to_owned)
        .collect();
    assert!(codes.len() > 10, "docs/errors.md has only {codes:?}");
    codes
}

#[test]
fn every_link_and_anchor_lands() {
    let links = hosted_mcp_site::check_links(site()).expect("the links can be read");
    let broken: Vec<String> = links.broken.iter().map(ToString::to_string).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(
        links.followed > 1000,
        "only {} links followed",
        links.followed
    );
}

/// The harness's HTML report, given `--docs-url`, links each rule to
/// `rules.html#ID` and each code to `errors.html#code`: those must be there.
#[test]
fn every_rule_and_code_has_the_anchor_reports_link_to() {
    let rules = read(&site().join("rules.html"));
    let catalogue = read(&kit().join("docs/rules.md"));
    let ids: Vec<&str> = catalogue
        .lines()
        .filter_map(|line| line.strip_prefix("| <a id=\""))
        .filter_map(|line| line.split('"').next())
        .collect();
    assert!(ids.len() > 50, "docs/rules.md has only {} rules", ids.len());
    for id in ids {
        assert!(
            rules.contains(&format!("id=\"{id}\"")),
            "rules.html lacks {id}"
        );
    }
    let errors = read(&site().join("errors.html"));
    for code in codes() {
        let anchor = code.to_ascii_lowercase();
        assert!(
            errors.contains(&format!("id=\"{anchor}\"")),
            "errors.html lacks {code}"
        );
    }
}

#[test]
fn every_scenario_link_lands_on_its_line_of_a_feature_page() {
    let docs = read(&kit().join("docs/scenarios.md"));
    let page = read(&site().join("scenarios.html"));
    let mut seen = 0;
    for (at, _) in docs.match_indices("](../features/") {
        let link = &docs[at + 2..];
        let link = &link[..link.find(')').expect("a closed link")];
        let (file, line) = link
            .trim_start_matches("../features/")
            .split_once(".feature#L")
            .unwrap_or_else(|| panic!("{link} names no line"));
        let want = format!("href=\"features/{file}.html#L{line}\"");
        assert!(
            page.contains(&want),
            "scenarios.html lacks {want} for {link}"
        );
        let feature = read(&kit().join(format!("features/{file}.feature")));
        let number: usize = line.parse().expect("a line number");
        assert!(
            number <= feature.lines().count(),
            "{link} is past the end of the file"
        );
        seen += 1;
    }
    assert!(seen > 100, "docs/scenarios.md links only {seen} scenarios");
    assert!(
        !page.contains(".feature\""),
        "scenarios.html still links a feature file outside the site"
    );
}

#[test]
fn each_feature_file_is_a_page_with_every_line_an_anchor() {
    for entry in std::fs::read_dir(kit().join("features")).expect("features/") {
        let path = entry.expect("an entry").path();
        let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()) else {
            continue;
        };
        let lines = read(&path).lines().count();
        let page = read(&site().join(format!("features/{stem}.html")));
        assert!(
            page.contains(&format!("id=\"L{lines}\"")),
            "{stem}: no last line"
        );
        assert!(
            !page.contains(&format!("id=\"L{}\"", lines + 1)),
            "{stem}: a line too many"
        );
    }
}

#[test]
fn the_errors_page_renders_with_an_entry_for_every_code() {
    let page = site().join("errors.html");
    let dom = rendered(&page);
    // The sidebar is written by mdBook's script: seeing it shows the page ran
    // as a reader's browser runs it, not only that the file was read.
    assert!(
        !read(&page).contains("class=\"chapter\"") && dom.contains("class=\"chapter\""),
        "the sidebar was not rendered by the page's script"
    );
    for code in codes() {
        let anchor = code.to_ascii_lowercase();
        let at = dom
            .find(&format!("id=\"{anchor}\""))
            .unwrap_or_else(|| panic!("the rendered page has no entry for {code}"));
        let entry = &dom[at..];
        let entry = &entry[..entry[1..].find("<h2 ").map_or(entry.len(), |end| end + 1)];
        for part in ["Example:", "What to do:", "The agent:", "The operator:"] {
            assert!(entry.contains(part), "the entry for {code} lacks {part:?}");
        }
    }
    let feature = rendered(&site().join("features/answer.html"));
    assert!(
        feature.contains("<span id=\"L1\">") && feature.contains("href=\"../rules.html#TC-ANS-"),
        "the rendered feature page lost its line anchors or rule links"
    );
}

/// The DOM of `page` once Chromium ran its scripts.
fn rendered(page: &Path) -> String {
    let run = page
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("page");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&dir).expect("a folder for the browser");
    browse(&dir, run, page, &["--dump-dom"])
}
