//! The kit's documentation site: `docs/` and the feature files, built with
//! mdBook, and a check that every link and anchor in it lands somewhere.
//!
//! Why a crate and not `mdbook build docs`: the error docs link each code to
//! the scenarios that produced it (`../features/answer.feature#L42`), and a
//! site must not link out of itself. So the build adds one page per feature
//! file, each line an anchor (`features/answer.html#L42`) and each rule tag
//! a link to its rule, and points the docs' feature links at those pages.
//! The docs stay plain Markdown that reads well in a repository browser too.
//!
//! ```no_run
//! use std::path::Path;
//!
//! let site = hosted_mcp_site::build(Path::new("."), Path::new("target/site"))?;
//! assert!(hosted_mcp_site::check_links(&site.root)?.broken.is_empty());
//! # anyhow::Ok(())
//! ```
//!
//! Limits: the link check reads the built HTML's `href`, `src` and `id`
//! attributes, not what scripts add; links that leave the site on purpose
//! (`https://…`) are not followed.

mod features;
mod field;
mod links;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use mdbook_driver::{config::Config, MDBook};

pub use links::{check_links, BrokenLink, Links};

/// A built site.
#[derive(Debug)]
pub struct Site {
    /// The folder that holds `index.html`: what gets published.
    pub root: PathBuf,
    /// How many pages it has.
    pub pages: usize,
}

/// Builds the site of the kit at `kit` (the repository's root: `docs/` and
/// `features/`) into `out`, replacing what was there.
pub fn build(kit: &Path, out: &Path) -> Result<Site> {
    let docs = kit.join("docs");
    let mut config = Config::from_disk(docs.join("book.toml"))
        .with_context(|| format!("reading {}", docs.join("book.toml").display()))?;
    let root = std::path::absolute(out)?;
    config.build.build_dir = root.clone();
    let mut book = MDBook::load_with_config(&docs, config)
        .with_context(|| format!("loading the book in {}", docs.display()))?;
    book.with_preprocessor(features::FeaturePages::read(&kit.join("features"))?);
    book.with_preprocessor(field::FieldStaleness);
    // mdBook empties the folder before it writes the pages.
    book.build().context("building the site")?;
    let pages = links::pages(&root)?.len();
    Ok(Site { root, pages })
}
