//! Every link and anchor of a built site, checked: a link must land on a
//! file inside the site, and its `#fragment` on an element with that id.

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt,
    path::{Component, Path, PathBuf},
    sync::LazyLock,
};

use anyhow::{Context, Result};
use regex::Regex;

/// An attribute that names another file or an anchor.
static REFERENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\s(?:href|src)="([^"]*)""#).expect("a valid regex"));
/// An element's id.
static ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\sid="([^"]*)""#).expect("a valid regex"));
/// `<base href="…">`, which mdBook's 404 page uses.
static BASE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"<base href="([^"]*)""#).expect("a valid regex"));
/// A URL with a scheme (`https:`, `mailto:`, `data:`) or a network path.
static EXTERNAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)").expect("a valid regex"));

/// A link that lands nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenLink {
    /// The page that has it, relative to the site's root.
    pub page: PathBuf,
    /// The link as written.
    pub link: String,
    /// Why it lands nowhere.
    pub problem: &'static str,
}

impl fmt::Display for BrokenLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} ({})",
            self.page.display(),
            self.link,
            self.problem
        )
    }
}

/// Every HTML page under `root`, relative to it, in name order.
pub(crate) fn pages(root: &Path) -> Result<Vec<PathBuf>> {
    let mut pages = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in
            std::fs::read_dir(&folder).with_context(|| format!("reading {}", folder.display()))?
        {
            let path = entry?.path();
            if path.is_dir() {
                folders.push(path);
            } else if path
                .extension()
                .is_some_and(|extension| extension == "html")
            {
                pages.push(path.strip_prefix(root)?.to_path_buf());
            }
        }
    }
    pages.sort();
    Ok(pages)
}

/// What checking a site's links found.
#[derive(Debug)]
pub struct Links {
    /// How many links were followed (within the site).
    pub followed: usize,
    /// The ones that land nowhere.
    pub broken: Vec<BrokenLink>,
}

/// Follows every link of the site at `root`: each must land on a file of the
/// site and, with a fragment, on an element with that id. Links with a scheme
/// are not followed.
pub fn check_links(root: &Path) -> Result<Links> {
    let pages = pages(root)?;
    let mut ids: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mut texts = BTreeMap::new();
    for page in &pages {
        let text = std::fs::read_to_string(root.join(page))
            .with_context(|| format!("reading {}", page.display()))?;
        let found = ID.captures_iter(&text).map(|id| unescape(&id[1])).collect();
        ids.insert(page.clone(), found);
        texts.insert(page.clone(), text);
    }
    let mut broken = Vec::new();
    let mut followed = 0;
    for (page, text) in &texts {
        let base = match BASE.captures(text) {
            // A base of "/" (mdBook's `site-url`) means the site's root.
            Some(base) if base[1].starts_with('/') => PathBuf::new(),
            _ => page.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        for reference in REFERENCE.captures_iter(text) {
            let link = unescape(&reference[1]);
            if EXTERNAL.is_match(&link) {
                continue;
            }
            followed += 1;
            if let Err(problem) = lands(&ids, root, page, &base, &link) {
                broken.push(BrokenLink {
                    page: page.clone(),
                    link,
                    problem,
                });
            }
        }
    }
    Ok(Links { followed, broken })
}

/// Whether `link`, on `page`, lands on a file of the site and an element.
fn lands(
    ids: &BTreeMap<PathBuf, BTreeSet<String>>,
    root: &Path,
    page: &Path,
    base: &Path,
    link: &str,
) -> Result<(), &'static str> {
    let (path, fragment) = match link.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (link, None),
    };
    let path = path.split('?').next().unwrap_or_default();
    let target = if path.is_empty() {
        page.to_path_buf()
    } else {
        let start = if path.starts_with('/') {
            Path::new("")
        } else {
            base
        };
        let mut target =
            normalise(&start.join(path.trim_start_matches('/'))).ok_or("leaves the site")?;
        if target.as_os_str().is_empty() || root.join(&target).is_dir() {
            target.push("index.html");
        }
        target
    };
    match fragment.filter(|fragment| !fragment.is_empty()) {
        None if root.join(&target).is_file() => Ok(()),
        None => Err("no such file"),
        Some(fragment) => match ids.get(&target) {
            Some(found) if found.contains(fragment) => Ok(()),
            Some(_) => Err("no element has this id"),
            None if root.join(&target).is_file() => Err("anchor into a file that is not a page"),
            None => Err("no such file"),
        },
    }
}

/// The path with `.` and `..` resolved, or `None` when it climbs above the
/// site's root.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

/// An attribute value with HTML's character references for the characters
/// mdBook escapes turned back.
fn unescape(value: &str) -> String {
    value
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder of the test's own, removed when dropped.
    struct Folder(PathBuf);

    impl Drop for Folder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn site(pages: &[(&str, &str)]) -> Folder {
        let folder =
            Folder(std::env::temp_dir().join(format!("hosted-mcp-site-{}", std::process::id())));
        for (name, text) in pages {
            let path = folder.0.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        folder
    }

    #[test]
    fn links_that_land_pass_and_the_rest_are_named() {
        let folder = site(&[
            (
                "index.html",
                r##"<a href="rules.html#TC-A-001">ok</a> <a href="rules.html#TC-A-002">gone</a>
                   <a href="missing.html">missing</a> <a href="../outside.html">out</a>
                   <a href="https://example.com/x">external</a> <a href="#top">self</a>
                   <h1 id="top">t</h1> <script src="book.js"></script> <a href="features/">dir</a>
                   <a href="book.js#x">into a script</a> <a href="rules.html?x=1&amp;y=2">query</a>"##,
            ),
            (
                "rules.html",
                r#"<td id="TC-A-001"></td> <a href="index.html">back</a>"#,
            ),
            ("book.js", ""),
            (
                "features/index.html",
                r#"<a href="../rules.html#TC-A-001">up</a>"#,
            ),
            (
                "404.html",
                r#"<base href="/"><a href="rules.html">from the root</a>"#,
            ),
        ]);
        let links = check_links(&folder.0).unwrap();
        assert_eq!(links.followed, 13);
        let named: Vec<(String, &str)> = links
            .broken
            .iter()
            .map(|link| {
                (
                    format!("{}: {}", link.page.display(), link.link),
                    link.problem,
                )
            })
            .collect();
        assert_eq!(
            named,
            [
                (
                    "index.html: rules.html#TC-A-002".to_owned(),
                    "no element has this id"
                ),
                ("index.html: missing.html".to_owned(), "no such file"),
                ("index.html: ../outside.html".to_owned(), "leaves the site"),
                (
                    "index.html: book.js#x".to_owned(),
                    "anchor into a file that is not a page"
                ),
            ]
        );
    }
}
