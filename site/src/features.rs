//! The feature files as pages of the site, and the docs' links pointed at
//! them.

use std::{fmt::Write, path::Path, sync::LazyLock};

use anyhow::{bail, Context, Result};
use mdbook_driver::book::{Book, BookItem, Chapter};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};
use regex::Regex;

/// A Markdown link to a feature file, optionally to one of its lines, as the
/// docs write it for a repository browser: `](../features/answer.feature#L42)`.
static FEATURE_LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\]\(\.\./features/([A-Za-z0-9_-]+)\.feature(#L[0-9]+)?\)").expect("a valid regex")
});

/// A rule tag in a feature file: `@TC-ANS-008`.
static RULE_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"@(TC-[A-Z]+-[0-9]+)\b").expect("a valid regex"));

/// Adds a "Feature files" chapter with one page per feature file, and
/// rewrites the docs' links to feature files into links to those pages.
pub(crate) struct FeaturePages {
    /// Each feature file's stem and text, in name order.
    files: Vec<(String, String)>,
}

impl FeaturePages {
    /// Reads every `.feature` file in `dir`.
    pub(crate) fn read(dir: &Path) -> Result<Self> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let path = entry?.path();
            if path
                .extension()
                .is_some_and(|extension| extension == "feature")
            {
                let stem = path
                    .file_stem()
                    .and_then(|stem| stem.to_str())
                    .with_context(|| format!("{} has no UTF-8 name", path.display()))?
                    .to_owned();
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("reading {}", path.display()))?;
                files.push((stem, text));
            }
        }
        if files.is_empty() {
            bail!("{} holds no feature file", dir.display());
        }
        files.sort();
        Ok(Self { files })
    }

    /// The chapter that lists the feature files, each with its `Feature:` title.
    fn index(&self) -> String {
        let mut page = String::from(
            "# Feature files\n\nThe scenarios, one file per section of the spec, as the harness \
             runs them. Each scenario carries the IDs of the rules it judges as tags.\n\n",
        );
        for (stem, text) in &self.files {
            let title = text
                .lines()
                .find_map(|line| line.trim().strip_prefix("Feature:"))
                .map(str::trim)
                .unwrap_or_default();
            let _ = writeln!(page, "- [{stem}.feature]({stem}.md): {title}");
        }
        page
    }
}

impl Preprocessor for FeaturePages {
    fn name(&self) -> &str {
        "feature-pages"
    }

    fn run(&self, _: &PreprocessorContext, mut book: Book) -> anyhow::Result<Book> {
        book.for_each_mut(|item| {
            if let BookItem::Chapter(chapter) = item {
                chapter.content = FEATURE_LINK
                    .replace_all(&chapter.content, "](features/$1.md$2)")
                    .into_owned();
            }
        });
        let parents = vec!["Feature files".to_owned()];
        let mut index = Chapter::new(
            "Feature files",
            self.index(),
            "features/index.md",
            Vec::new(),
        );
        for (stem, text) in &self.files {
            let page = Chapter::new(
                &format!("{stem}.feature"),
                page(stem, text),
                format!("features/{stem}.md"),
                parents.clone(),
            );
            index.sub_items.push(BookItem::Chapter(page));
        }
        book.push_item(BookItem::Chapter(index));
        Ok(book)
    }
}

/// One feature file as a page: its text, each line an anchor (`#L12`) as a
/// repository browser gives it, each rule tag a link to the rule.
fn page(stem: &str, text: &str) -> String {
    let mut page = format!(
        "# {stem}.feature\n\n`features/{stem}.feature`, as the harness runs it. Each line \
         links to itself (`#L12`), and each rule tag to its rule in [the rules](../rules.md).\n\n\
         <pre class=\"feature\">"
    );
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let escaped = escape(line);
        let line = RULE_TAG.replace_all(&escaped, "<a href=\"../rules.html#$1\">@$1</a>");
        let _ = writeln!(
            page,
            "<span id=\"L{number}\"><a class=\"line\" href=\"#L{number}\">{number:>4}</a>  {line}</span>"
        );
    }
    page.push_str("</pre>\n");
    page
}

/// The text made safe inside HTML.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feature_link_points_at_its_page_and_line() {
        let text = "see [x](../features/answer.feature#L42) and [y](../features/request.feature) \
                    but not [z](../features/answer.feature.bak)";
        assert_eq!(
            FEATURE_LINK.replace_all(text, "](features/$1.md$2)"),
            "see [x](features/answer.md#L42) and [y](features/request.md) \
             but not [z](../features/answer.feature.bak)"
        );
    }

    #[test]
    fn each_line_is_an_anchor_and_each_tag_a_link() {
        let page = page(
            "answer",
            "@TC-ANS-008 @recommended\nScenario: <a> & \"b\"\n",
        );
        assert!(page.contains(
            "<span id=\"L1\"><a class=\"line\" href=\"#L1\">   1</a>  \
             <a href=\"../rules.html#TC-ANS-008\">@TC-ANS-008</a> @recommended</span>"
        ));
        assert!(page.contains("&lt;a&gt; &amp; &quot;b&quot;</span>"));
        assert!(!page.contains("id=\"L3\""));
    }
}
