//! The documentation site as a writer publishes it: built by the code behind
//! `hosted-mcp-site`, every link and anchor landing, every scenario link of
//! the docs pointing at its line of a feature page, the errors page
//! rendered in a real browser with an entry, and what to do, for every code,
//! and each guide rendered with its sections and in the sidebar.
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

/// The guides the README sends readers to, each with a command the page
/// exists to give, as a reader copies it from the rendered page.
const GUIDES: [(&str, &str); 4] = [
    (
        "checking",
        "hosted-mcp-conformance --gateway '…' --scenario features/answer.feature:58",
    ),
    (
        "ci",
        "hosted-mcp-conformance merge report.json --expected-failures new.txt",
    ),
    (
        "gateway",
        "hosted-mcp-gateway serve --openapi petstore.yaml",
    ),
    (
        "developing",
        "cargo clippy --workspace --all-targets -- -D warnings",
    ),
];

#[test]
fn each_guide_renders_with_its_sections_and_is_in_the_sidebar() {
    let front = read(&site().join("index.html"));
    let front = &front[front.find("<main>").expect("the front page has a <main>")..];
    for (stem, _) in GUIDES {
        assert!(
            front.contains(&format!("href=\"{stem}.html\"")),
            "the front page does not lead to {stem}.html"
        );
    }
    for (stem, command) in GUIDES {
        let page = site().join(format!("{stem}.html"));
        let dom = rendered(&page);
        // The sidebar is written by mdBook's script, and marks the page shown.
        assert!(
            !read(&page).contains("class=\"chapter\"") && dom.contains("class=\"chapter\""),
            "{stem}: the sidebar was not rendered by the page's script"
        );
        assert!(
            dom.contains(&format!("<a href=\"{stem}.html\" class=\"active\"")),
            "{stem}: the sidebar does not mark the page as the one shown"
        );
        for (other, _) in GUIDES {
            assert!(
                dom.contains(&format!("<a href=\"{other}.html\"")),
                "{stem}: the sidebar lacks {other}.html"
            );
        }
        let shown = headings(&dom);
        let written = markdown_headings(&read(&kit().join(format!("docs/{stem}.md"))));
        assert!(written.len() > 4, "docs/{stem}.md has only {written:?}");
        for heading in written {
            assert!(
                shown.contains(&heading),
                "{stem}: the heading {heading:?} is not rendered; the page shows {shown:?}"
            );
        }
        // Code is highlighted by a script that splits it into spans, so the
        // command is looked for in the text a reader sees.
        assert!(
            text(&dom).contains(command),
            "{stem}: the rendered page lacks `{command}`"
        );
    }
}

/// The `##` to `####` headings of a Markdown page, outside code blocks,
/// without their backticks.
fn markdown_headings(markdown: &str) -> Vec<String> {
    let mut fenced = false;
    let mut headings = Vec::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            if let Some((hashes, title)) = line.split_once(' ') {
                if (2..=4).contains(&hashes.len()) && hashes.chars().all(|c| c == '#') {
                    headings.push(title.replace('`', ""));
                }
            }
        }
    }
    headings
}

/// The text of every `h2` to `h4` element of a rendered page.
fn headings(dom: &str) -> Vec<String> {
    let mut found = Vec::new();
    for level in ["h2", "h3", "h4"] {
        let open = format!("<{level} id=");
        let close = format!("</{level}>");
        for (at, _) in dom.match_indices(&open) {
            let rest = &dom[at..];
            let end = rest.find(&close).unwrap_or(rest.len());
            found.push(text(&rest[..end]));
        }
    }
    found
}

/// What a reader sees of some HTML: its tags left out and the characters
/// Chromium escapes in text turned back.
fn text(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
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
