//! `--html FILE`: the run as one self-contained page.

use super::Summary;

impl Summary {
    /// The run as an HTML page that needs nothing but itself.
    pub fn html(&self) -> String {
        let mut out =
            String::from("<!doctype html><meta charset=utf-8><title>conformance</title><table>");
        for rule in self.rules() {
            out.push_str(&format!(
                "<tr><td>{}</td><td>{}</td></tr>",
                escape(rule.id),
                rule.status.label()
            ));
        }
        out.push_str("</table>");
        out
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
