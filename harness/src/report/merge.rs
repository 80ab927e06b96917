//! `merge`: the JSON reports of several runs (the shards of a CI matrix, an
//! HTTP and a stdio run) joined into one. Only reports of one gateway, kit
//! and rules revision are joined, and each split run whole: a shard missing
//! or there twice would make the merged verdict speak for a suite it did
//! not see.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::bail;

use super::summary::{Status, Summary};

impl Summary {
    /// Joins the summaries of several shards (or of an HTTP and a stdio run)
    /// into one, each named by where it was read. A scenario not run in one
    /// part but run in another counts as run.
    pub fn merge(parts: Vec<(String, Summary)>) -> anyhow::Result<Summary> {
        check_parts(&parts)?;
        let mut parts = parts.into_iter().map(|(_, part)| part);
        let Some(mut merged) = parts.next() else {
            bail!("nothing to merge");
        };
        for part in parts {
            for (transport, template) in part.gateway {
                merged.gateway.entry(transport).or_insert(template);
            }
            merged.strict |= part.strict;
            merged.shards.extend(part.shards);
            merged.in_other_shards.extend(part.in_other_shards);
            merged.scenarios.extend(part.scenarios);
            merged.problems.extend(part.problems);
            merged.never_started.extend(part.never_started);
            merged.relaunched += part.relaunched;
            merged.launches += part.launches;
            merged.reused += part.reused;
            // The merged run started with its first part.
            merged.started = merged.started.into_iter().chain(part.started).min();
            merged.seconds = merged.seconds.max(part.seconds);
            merged.gateway_name = merged.gateway_name.or(part.gateway_name);
            for entry in part.expected_failures {
                if !merged.expected_failures.contains(&entry) {
                    merged.expected_failures.push(entry);
                }
            }
        }
        merged.shards.sort_by_key(|s| s.index);
        merged.shards.dedup();
        // Where one part ran a scenario that another did not, the run comes first.
        merged.scenarios.sort_by(|a, b| {
            (a.key(), a.status == Status::NotRun).cmp(&(b.key(), b.status == Status::NotRun))
        });
        merged
            .scenarios
            .dedup_by(|later, earlier| later.key() == earlier.key());
        let ran: BTreeSet<(String, usize, String)> = merged
            .scenarios
            .iter()
            .filter(|s| s.status != Status::NotRun)
            .map(|s| (s.file.clone(), s.line, s.name.clone()))
            .collect();
        merged.scenarios.retain(|s| {
            s.status != Status::NotRun || !ran.contains(&(s.file.clone(), s.line, s.name.clone()))
        });
        // Every shard is here: what one left to another has run.
        let scenarios = &merged.scenarios;
        merged.in_other_shards.retain(|elsewhere| {
            !scenarios
                .iter()
                .any(|s| s.name == elsewhere.name && s.rules == elsewhere.rules)
        });
        merged.in_other_shards.dedup();
        Ok(merged)
    }
}

/// Refuses parts of other kits or gateways, and split runs not whole: a
/// shard missing or there twice.
fn check_parts(parts: &[(String, Summary)]) -> anyhow::Result<()> {
    let Some((first_origin, first)) = parts.first() else {
        return Ok(());
    };
    let mut templates: BTreeMap<&str, (&str, &str)> = BTreeMap::new();
    // A split run is known by the transports it was given commands for.
    let mut runs: BTreeMap<Vec<&str>, Vec<(&str, &Summary)>> = BTreeMap::new();
    for (origin, part) in parts {
        if part.kit != first.kit {
            bail!(
                "{first_origin} and {origin} come from different kits: {} and {}",
                first.kit.describe(),
                part.kit.describe()
            );
        }
        for (transport, template) in &part.gateway {
            match templates.get(transport.as_str()) {
                Some((other, other_origin)) if other != template => bail!(
                    "{other_origin} and {origin} are reports of different gateways: over {transport}, `{other}` and `{template}`"
                ),
                Some(_) => {}
                None => {
                    templates.insert(transport, (template, origin));
                }
            }
        }
        if let (Some(name), Some(other)) = (&first.gateway_name, &part.gateway_name) {
            if name != other {
                bail!("{first_origin} and {origin} are reports of different gateways: {name} and {other}");
            }
        }
        if !part.shards.is_empty() {
            let transports = part.gateway.keys().map(String::as_str).collect();
            runs.entry(transports).or_default().push((origin, part));
        }
    }
    for (transports, run) in runs {
        let what = format!("the {} run", transports.join(" and "));
        let count = run[0].1.shards[0].count;
        let mut seen: BTreeMap<u32, &str> = BTreeMap::new();
        for (origin, part) in &run {
            for shard in &part.shards {
                if shard.count != count {
                    bail!(
                        "{origin} holds shard {}/{} of {what}, split {count} ways elsewhere",
                        shard.index,
                        shard.count
                    );
                }
                if let Some(other) = seen.insert(shard.index, origin) {
                    bail!(
                        "shard {}/{count} of {what} is there twice: {other} and {origin}",
                        shard.index
                    );
                }
            }
        }
        let missing: Vec<String> = (1..=count)
            .filter(|index| !seen.contains_key(index))
            .map(|index| format!("{index}/{count}"))
            .collect();
        if !missing.is_empty() {
            bail!(
                "shard {} of {what} is missing: merge the report of every shard",
                missing.join(", ")
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{scenario, summary};
    use super::super::{Shard, Status};
    use super::*;
    use crate::catalogue::Level;

    fn part(transport: &str, shard: Option<(u32, u32)>, summary: Summary) -> (String, Summary) {
        let mut summary = summary;
        summary
            .gateway
            .insert(transport.into(), format!("gw --{transport}"));
        summary
            .shards
            .extend(shard.map(|(index, count)| Shard { index, count }));
        (format!("{transport}-{shard:?}.json"), summary)
    }

    #[test]
    fn merging_counts_a_scenario_run_in_any_part() {
        let mut http = scenario("TC-PROTO-001", Level::Required, Status::Passed);
        http.line = 20;
        let mut stdio_missing = scenario("TC-PROTO-001", Level::Required, Status::NotRun);
        stdio_missing.line = 30;
        stdio_missing.transport = "stdio".into();
        let mut http_missing = http.clone();
        http_missing.status = Status::NotRun;
        let mut stdio = stdio_missing.clone();
        stdio.status = Status::Passed;
        let merged = Summary::merge(vec![
            part("http", None, summary(vec![http, stdio_missing])),
            part("stdio", None, summary(vec![http_missing, stdio])),
        ])
        .unwrap();
        assert_eq!(merged.scenarios.len(), 2);
        assert!(merged.scenarios.iter().all(|s| s.status == Status::Passed));
        assert_eq!(merged.rules()[0].status, Status::Passed);
    }

    #[test]
    fn merging_refuses_reports_of_other_kits_and_gateways() {
        let mut other = part("http", Some((2, 2)), summary(vec![]));
        other.1.kit.rules_revision = "000000000000".into();
        let error = Summary::merge(vec![part("http", Some((1, 2)), summary(vec![])), other])
            .unwrap_err()
            .to_string();
        assert!(error.contains("different kits"), "{error}");

        let mut other = part("http", Some((2, 2)), summary(vec![]));
        other.1.gateway.insert("http".into(), "other-gw".into());
        let error = Summary::merge(vec![part("http", Some((1, 2)), summary(vec![])), other])
            .unwrap_err()
            .to_string();
        assert!(error.contains("different gateways"), "{error}");
    }

    #[test]
    fn merging_wants_every_shard_once() {
        let shard = |index| part("http", Some((index, 3)), summary(vec![]));
        let error = Summary::merge(vec![shard(1), shard(3)])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("shard 2/3 of the http run is missing"),
            "{error}"
        );
        let error = Summary::merge(vec![shard(1), shard(2), shard(2), shard(3)])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("shard 2/3 of the http run is there twice"),
            "{error}"
        );
        assert!(Summary::merge(vec![shard(1), shard(2), shard(3)]).is_ok());
        // Runs not split (by transport, by tags) are joined as they are.
        let unsplit = || part("http", None, summary(vec![]));
        assert!(Summary::merge(vec![unsplit(), unsplit()]).is_ok());
    }
}
