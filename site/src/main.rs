//! `hosted-mcp-site`: builds the kit's documentation site and checks that
//! every link and anchor in it lands. Exits 1, naming each broken link, when
//! one does not: what it leaves in the folder must not be published.

use std::{path::PathBuf, process::ExitCode};

use clap::Parser;
use hosted_mcp_site::Links;

/// Build the documentation site (docs/ and the feature files) with mdBook.
#[derive(Parser)]
#[command(version)]
struct Options {
    /// Where to write the site; its contents are replaced.
    #[arg(default_value = "target/site")]
    out: PathBuf,
    /// The kit's root: the folder with docs/ and features/.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/.."))]
    kit: PathBuf,
}

fn main() -> ExitCode {
    let options = Options::parse();
    let site = match hosted_mcp_site::build(&options.kit, &options.out) {
        Ok(site) => site,
        Err(error) => {
            eprintln!("error: {error:#}");
            return ExitCode::FAILURE;
        }
    };
    match hosted_mcp_site::check_links(&site.root) {
        Ok(links) if links.broken.is_empty() => {
            println!(
                "built {} pages in {}; all {} links and anchors land",
                site.pages,
                site.root.display(),
                links.followed
            );
            ExitCode::SUCCESS
        }
        Ok(Links { broken, .. }) => {
            for link in &broken {
                eprintln!("broken link: {link}");
            }
            eprintln!(
                "error: {} broken link{} in {}; do not publish it",
                broken.len(),
                if broken.len() == 1 { "" } else { "s" },
                site.root.display()
            );
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("error: checking the links: {error:#}");
            ExitCode::FAILURE
        }
    }
}
