//! The JSON report: the [`Summary`] as data, plus what follows from it (the
//! verdict, counts, and each rule with its catalogue entry and scenarios).
//! `hosted-mcp-conformance merge` reads these files back.

use anyhow::{bail, Context as _};
use serde_json::{json, Value};

use super::summary::Summary;

/// Bumped when a reader of the report would need to change.
pub const FORMAT: u32 = 1;

impl Summary {
    /// The run as a JSON document.
    pub fn json(&self) -> Value {
        let verdict = self.verdict();
        let rules: Vec<Value> = self
            .rules()
            .iter()
            .map(|rule| {
                json!({
                    "id": rule.id,
                    "level": rule.level,
                    "section": rule.section(),
                    "statement": rule.rule.map(|r| r.statement.as_str()),
                    "source": rule.rule.map(|r| r.source.as_str()),
                    "status": rule.status,
                    "scenarios": rule.scenarios.iter().map(|s| json!({
                        "name": s.name,
                        "place": s.place(),
                        "transport": s.transport,
                        "status": s.status,
                        "summary": s.summary(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let stale: Vec<Value> = self.stale().iter().map(|entry| json!(entry)).collect();
        let mut report = json!({
            "format": FORMAT,
            "verdict": verdict,
            "counts": self.counts(),
            "rules": rules,
            "stale_expected_failures": stale,
        });
        if let (Value::Object(report), Value::Object(data)) =
            (&mut report, serde_json::to_value(self).unwrap_or_default())
        {
            report.extend(data);
        }
        report
    }

    /// Reads a JSON report back, for merging.
    pub fn from_json(text: &str, origin: &str) -> anyhow::Result<Summary> {
        let value: Value =
            serde_json::from_str(text).with_context(|| format!("{origin} is not JSON"))?;
        match value.get("format").and_then(Value::as_u64) {
            Some(format) if format == u64::from(FORMAT) => {}
            Some(format) => {
                bail!("{origin} is a report of format {format}; this harness reads format {FORMAT}")
            }
            None => bail!("{origin} is not a hosted-mcp-conformance JSON report"),
        }
        serde_json::from_value(value).with_context(|| format!("{origin} is not a complete report"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{scenario, summary};
    use super::super::Status;
    use super::*;
    use crate::catalogue::Level;

    #[test]
    fn names_the_kit_and_each_rules_source() {
        let s = summary(vec![scenario(
            "TC-ANS-008",
            Level::Required,
            Status::Failed,
        )]);
        let json = s.json();
        assert_eq!(json["format"], 1);
        assert_eq!(json["kit"]["rules_revision"], crate::kit::RULES_REVISION);
        assert_eq!(json["verdict"]["exit_code"], 1);
        assert_eq!(json["counts"]["failed"], 1);
        let rule = &json["rules"][0];
        assert_eq!(rule["id"], "TC-ANS-008");
        assert_eq!(rule["status"], "failed");
        assert_eq!(rule["section"], "The answer");
        assert!(rule["source"].as_str().unwrap().contains("clarifications"));
        assert_eq!(rule["scenarios"][0]["place"], "features/names.feature:3");
    }

    #[test]
    fn reads_back_what_it_wrote() {
        let s = summary(vec![scenario(
            "TC-ANS-008",
            Level::Required,
            Status::NotRun,
        )]);
        let text = s.json().to_string();
        let back = Summary::from_json(&text, "r.json").unwrap();
        assert_eq!(back.scenarios, s.scenarios);
        assert!(Summary::from_json("{}", "r.json").is_err());
        assert!(Summary::from_json(r#"{"format": 99}"#, "r.json").is_err());
    }
}
