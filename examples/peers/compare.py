#!/usr/bin/env python3
"""Compare a harness JSON report (--json) with a peer's expected failures.

    compare.py BASELINE REPORT.json [--partial] [--sections]

BASELINE is in the harness's expected-failures format: one entry a line,
`KEY -- REASON`, KEY a rule ID (`TC-ANS-002`) or a scenario's name exactly as
the report shows it; `#` comments and blank lines are ignored; the reason is
mandatory. A rule ID covers every scenario of that rule; a scenario name
covers the scenarios of that name.

The verdicts match the baseline when every scenario that did not pass
(failed or skipped) is covered by an entry, and every entry covers at least
one scenario that did not pass. Exit status 0 when they match, 1 when they
differ, 2 on a bad baseline or report.

--partial: the run was narrowed (--tags), so entries about rules and
scenarios that did not run are not stale.
--sections: also print, per section of docs/rules.md, required rules passed
and recommended rules met, as the README's results table has them.

This is the stand-in for the harness's own `--expected-failures FILE`; the
check script uses that flag instead once the harness has it.
"""

import json
import re
import sys

RULE_ID = re.compile(r"^TC-[A-Z]+-\d{3}$")

# docs/rules.md's sections, in its order, by the rule IDs' middle part.
SECTIONS = [
    ("PROTO", "Protocol"),
    ("LOAD", "Loading"),
    ("NAME", "Names"),
    ("DESC", "Descriptions"),
    ("HINT", "Hints"),
    ("ARG", "Arguments"),
    ("SCHEMA", "Schemas"),
    ("CHECK", "Checking"),
    ("REQ", "Request"),
    ("SEND", "Delivery"),
    ("ANS", "Answer"),
    ("MASK", "Masking"),
]


def read_baseline(path):
    entries = []
    errors = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            key, sep, reason = text.partition(" -- ")
            key, reason = key.strip(), reason.strip()
            if not sep or not key or not reason:
                errors.append(f"{path}:{number}: want `KEY -- REASON`, got: {text}")
                continue
            entries.append((number, key, reason))
    keys = [k for _, k, _ in entries]
    for key in sorted({k for k in keys if keys.count(k) > 1}):
        errors.append(f"{path}: {key} is listed more than once")
    return entries, errors


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    flags = {a for a in argv if a.startswith("--")}
    if len(args) != 2 or flags - {"--partial", "--sections"}:
        print(__doc__, file=sys.stderr)
        return 2
    baseline_path, report_path = args
    partial = "--partial" in flags

    entries, errors = read_baseline(baseline_path)
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    if errors:
        for e in errors:
            print(e, file=sys.stderr)
        return 2

    # Every scenario once, with the rules it belongs to.
    scenarios = {}
    for rule in report["rules"]:
        for s in rule["scenarios"]:
            ident = (s.get("file"), s["line"], s["name"])
            entry = scenarios.setdefault(ident, dict(s, rules=[]))
            entry["rules"].append(rule["id"])
    for s in report.get("scenarios_without_rule", []):
        scenarios.setdefault((s.get("file"), s["line"], s["name"]), dict(s, rules=[]))
    rule_ids = {rule["id"] for rule in report["rules"]}
    names = {s["name"] for s in scenarios.values()}

    def covers(key, s):
        return key in s["rules"] if RULE_ID.match(key) else key == s["name"]

    not_passing = [s for s in scenarios.values() if s["status"] != "passed"]
    uncovered = [s for s in not_passing if not any(covers(k, s) for _, k, _ in entries)]
    stale, notes = [], []
    for number, key, reason in entries:
        known = key in rule_ids if RULE_ID.match(key) else key in names
        if not known:
            if not partial:
                stale.append((number, key, "matches no rule or scenario of this run"))
            continue
        matched = [s for s in scenarios.values() if covers(key, s)]
        failing = [s for s in matched if s["status"] != "passed"]
        if not failing:
            stale.append((number, key, "every scenario it covers now passes"))
        elif RULE_ID.match(key) and len(failing) < len(matched):
            notes.append(
                f"{key}: {len(matched) - len(failing)} of its {len(matched)} "
                "scenarios pass; the entry could name the failing ones"
            )

    if "--sections" in flags:
        print_sections(report)

    for note in notes:
        print(f"note: {note}")
    if uncovered:
        print(f"\n{len(uncovered)} scenario(s) not passing that the baseline does not expect:")
        for s in sorted(uncovered, key=lambda s: (s.get("file") or "", s["line"])):
            first = (s.get("message") or "").strip().splitlines()
            print(f"  {' '.join(s['rules']) or '-'}: {s['name']} [{s['status']}]")
            line = first[0] if first else ""
            print(f"      {line[:300]}{' [...]' if len(line) > 300 else ''}")
    if stale:
        print(f"\n{len(stale)} baseline entr{'y' if len(stale) == 1 else 'ies'} no longer true:")
        for number, key, why in stale:
            print(f"  {baseline_path}:{number}: {key}: {why}")
    expected = len(not_passing) - len(uncovered)
    if uncovered or stale:
        print(f"\nverdicts DIFFER from the baseline ({expected} expected failure(s) seen)")
        return 1
    print(f"verdicts match the baseline: {len(not_passing)} expected failure(s), "
          f"{len(scenarios) - len(not_passing)} scenario(s) passed")
    return 0


def print_sections(report):
    rows = []
    for prefix, title in SECTIONS:
        rules = [r for r in report["rules"] if r["id"].split("-")[1] == prefix]
        if not rules:
            continue
        req = [r for r in rules if r["level"] == "required"]
        rec = [r for r in rules if r["level"] == "recommended"]
        ok = lambda rs: sum(r["status"] == "passed" for r in rs)
        rows.append((title, f"{ok(req)}/{len(req)}", f"{ok(rec)}/{len(rec)}" if rec else "-"))
    print(f"{'section':<14} {'required passed':>16} {'recommended met':>16}")
    for title, req, rec in rows:
        print(f"{title:<14} {req:>16} {rec:>16}")
    print()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
