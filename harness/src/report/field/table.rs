//! `field.md`: every gateway judged, on a line of one table and by section
//! in another, the reference first.

use std::fmt::Write as _;

use super::judged::{Gateway, Page, Tally, REVISION_MARK};
use crate::catalogue::{Catalogue, Level};
use crate::report::markdown::inline;

/// Around each of the table's tables: the site's stylesheet (`docs/site.css`)
/// fits a table in this class to the page's width, however many gateways.
const TABLE_OPEN: &str = "<div class=\"field-table\">\n\n";
const TABLE_CLOSE: &str = "\n</div>\n";

/// A tally's cell: required rules passed of all, then those passed in part
/// (~), failed (✗), not judged (?) and not run (–), where there are any.
fn tally_cell(tally: &Tally) -> String {
    let mut cell = format!("{}/{}", tally.passed, tally.of);
    for (count, sign) in [
        (tally.passed_in_part, "~"),
        (tally.failed, "✗"),
        (tally.not_judged, "?"),
        (tally.not_run, "–"),
    ] {
        if count > 0 {
            let _ = write!(cell, " {sign}{count}");
        }
    }
    cell
}

/// The gateways in the table's order: the reference first, then by
/// required rules passed, most first, then by name.
fn in_table_order<'g, 'a>(gateways: &'g [Gateway<'a>]) -> Vec<&'g Gateway<'a>> {
    let mut ordered: Vec<&Gateway<'_>> = gateways.iter().collect();
    ordered.sort_by(|a, b| {
        b.is_reference()
            .cmp(&a.is_reference())
            .then_with(|| {
                let passed = |g: &Gateway<'_>| g.tally(Level::Required, None).passed;
                passed(b).cmp(&passed(a))
            })
            .then_with(|| a.name.cmp(b.name))
    });
    ordered
}

/// `field.md`: every gateway on a line, then every section by gateway.
pub(super) fn table(gateways: &[Gateway<'_>]) -> Page {
    let kit = &gateways[0].run.kit;
    let newest = gateways
        .iter()
        .map(Gateway::date)
        .max()
        .unwrap_or("unknown");
    let mut text = format!(
        "# The field\n\n{REVISION_MARK}{revision} -->\n\n\
         How the OpenAPI-to-MCP gateways people use fare against [the rules](rules.md), each \
         judged as a black box by {kit} {version} at rules revision `{revision}`, at the harness's defaults \
         and with the options its shape asks for (its page says which), over every transport it \
         has. Last judged on {newest}.\n\n\
         A rule passes when every one of its scenarios passes. It *passed in part* (~) when its \
         scenarios passed in every form the gateway could be given and were not run only in forms \
         it cannot take (a place for the credential, a transport). It is *not judged* (?) when a \
         scenario could not see it (each gateway's page gives the reason), and *not run* (–) when \
         the gateway lacks what its scenarios need; ✗ counts the rules it fails. *Own clients* \
         says whether the gateway was run letting in only the harness's client (`--client-auth`), \
         where it has a way to check its clients at all. The reference comes first, then the \
         gateways by required rules passed. Each gateway's \
         known failures are its baseline in `examples/peers/`, every entry traced to what the \
         gateway does; `examples/peers/table` judges them all again and writes these pages.\n\n\
         {TABLE_OPEN}\
         | Gateway | Transports | Own clients | Required | Recommended | Run | Judged on |\n\
         |---|---|---|---|---:|---|---|\n",
        revision = kit.rules_revision,
        kit = kit.name,
        version = kit.version,
    );
    let ordered = in_table_order(gateways);
    for gateway in &ordered {
        let required = gateway.tally(Level::Required, None);
        let recommended = gateway.tally(Level::Recommended, None);
        let _ = writeln!(
            text,
            "| [{}]({}) | {} | {} | {} | {}/{} | {:.0} s, {} launches | {} |",
            inline(gateway.name),
            gateway.file,
            gateway.transports(),
            if gateway.shown_a_client_credential() {
                "checked"
            } else {
                "–"
            },
            tally_cell(&required),
            recommended.passed,
            recommended.of,
            gateway.run.seconds,
            gateway.run.launches,
            gateway.date(),
        );
    }
    text.push_str(TABLE_CLOSE);
    text.push_str(
        "\n## By section\n\nEach cell: the section's required rules passed of all of them, then \
         those passed in part (~), failed (✗), not judged (?) and not run (–), and its recommended \
         rules met (r).\n\n",
    );
    text.push_str(TABLE_OPEN);
    text.push_str("| Section |");
    for gateway in &ordered {
        let _ = write!(text, " [{}]({}) |", inline(gateway.name), gateway.file);
    }
    text.push_str("\n|---|");
    text.push_str(&"---|".repeat(ordered.len()));
    text.push('\n');
    for section in &Catalogue::embedded().sections {
        let _ = write!(text, "| {} |", inline(&section.name));
        for gateway in &ordered {
            let required = gateway.tally(Level::Required, Some(&section.name));
            let recommended = gateway.tally(Level::Recommended, Some(&section.name));
            let mut cell = tally_cell(&required);
            if recommended.of > 0 {
                let _ = write!(cell, " · r {}/{}", recommended.passed, recommended.of);
            }
            let _ = write!(text, " {cell} |");
        }
        text.push('\n');
    }
    text.push_str(TABLE_CLOSE);
    Page {
        file: "field.md".into(),
        title: "The field".into(),
        text,
    }
}
