//! The field's pages (`docs/field*.md`, written by `hosted-mcp-conformance
//! field`) name the rules revision they were judged at. Where the rules
//! have changed since, each page says so under its title until the field is
//! judged again: a verdict at another revision may no longer hold.

use hosted_mcp_conformance::{kit::RULES_REVISION, report::field::REVISION_MARK};
use mdbook_driver::book::{Book, BookItem};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};

pub(crate) struct FieldStaleness;

impl Preprocessor for FieldStaleness {
    fn name(&self) -> &str {
        "field-staleness"
    }

    fn run(&self, _: &PreprocessorContext, mut book: Book) -> anyhow::Result<Book> {
        book.for_each_mut(|item| {
            if let BookItem::Chapter(chapter) = item {
                if let Some(marked) = marked_stale(&chapter.content, RULES_REVISION) {
                    chapter.content = marked;
                }
            }
        });
        Ok(book)
    }
}

/// `page` with a warning after its revision mark, when it names a revision
/// other than `current`; `None` when it names none or the current one.
fn marked_stale(page: &str, current: &str) -> Option<String> {
    let start = page.find(REVISION_MARK)? + REVISION_MARK.len();
    let end = start + page[start..].find(" -->")?;
    let judged = page[start..end].trim();
    if judged == current {
        return None;
    }
    let after = end + " -->".len();
    Some(format!(
        "{}\n\n> **Stale.** These results were judged at rules revision `{judged}`; the rules \
         are now at `{current}`. They hold for the rules as they were, and may not for the \
         rules as they are, until `examples/peers/table` judges the field again.{}",
        &page[..after],
        &page[after..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_judged_at_another_revision_says_it_is_stale() {
        let page = format!("# The field\n\n{REVISION_MARK}aaaa -->\n\nThe table.\n");
        let marked = marked_stale(&page, "bbbb").expect("stale");
        assert!(
            marked.starts_with(&format!(
                "# The field\n\n{REVISION_MARK}aaaa -->\n\n> **Stale.**"
            )),
            "{marked}"
        );
        assert!(
            marked.contains("`aaaa`") && marked.contains("`bbbb`"),
            "{marked}"
        );
        assert!(marked.ends_with("\n\nThe table.\n"), "{marked}");
        assert_eq!(marked_stale(&page, "aaaa"), None);
        assert_eq!(marked_stale("# Rules\n", "aaaa"), None);
    }
}
