//! A small Markdown writer for the pages the harness writes into the docs
//! site (the field's): text taken literally inline, code and fenced blocks
//! whatever they hold, mdBook's heading anchors, file names, and a long
//! reason cut at a sentence or clause.

use std::fmt::Write as _;

/// The id mdBook gives a heading of `text`, so a link lands on it: lower
/// case, whitespace as dashes, other punctuation dropped.
pub(super) fn anchor(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

/// `text` on one line of about `max` characters at most: whole
/// when it fits, else up to its last sentence or clause boundary (a word's
/// end when it has none), with an ellipsis for the rest.
pub(super) fn gist(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut = cut_point(&flat, max);
    format!(
        "{}…",
        flat[..cut].trim_end_matches(|c: char| c.is_whitespace() || ",;:".contains(c))
    )
}

/// The byte at which to cut `text` to at most `max` characters, keeping at
/// least half of them: the last sentence boundary (". ", "; "), else the
/// last clause boundary (": ", ", "), neither inside brackets or quotes
/// (whose other half would be lost), else just before the last bracket or
/// quote opened, else the last space.
fn cut_point(text: &str, max: usize) -> usize {
    let (mut sentence, mut clause, mut opening, mut word) = (None, None, None, None);
    let (mut depth, mut quoted, mut escaped) = (0usize, false, false);
    let mut chars = text.char_indices().enumerate().peekable();
    while let Some((count, (at, c))) = chars.next() {
        if count >= max {
            // With no space late enough, the cut falls at the limit itself.
            word = word.or(Some(at));
            break;
        }
        let spaced = chars.peek().is_some_and(|(_, (_, next))| *next == ' ');
        let was_open = depth > 0 || quoted;
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            // A reason may quote JSON, whose strings escape their quotes.
            '"' if !escaped => quoted = !quoted,
            _ => {}
        }
        escaped = c == '\\' && !escaped;
        if count * 2 < max {
            continue;
        }
        let open = depth > 0 || quoted;
        match c {
            '.' | ';' if spaced && !open => sentence = Some(at),
            ':' | ',' if spaced && !open => clause = Some(at),
            ' ' => word = Some(at),
            _ if open && !was_open => opening = Some(at),
            _ => {}
        }
    }
    sentence
        .or(clause)
        .or(opening)
        .or(word)
        .unwrap_or(text.len())
}

/// `text` in a fence no line of it can close, indented under a list item.
pub(super) fn fenced(text: &str) -> String {
    let longest = text
        .lines()
        .map(|line| line.trim_start().chars().take_while(|&c| c == '~').count())
        .max()
        .unwrap_or(0);
    let fence = "~".repeat(longest.max(2) + 1);
    let mut out = format!("  {fence}text\n");
    for line in text.lines() {
        let _ = writeln!(out, "  {line}");
    }
    let _ = writeln!(out, "  {fence}");
    out
}

/// `text` as inline code, whatever backticks it holds.
pub(super) fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    if longest == 0 {
        return format!("`{text}`");
    }
    let ticks = "`".repeat(longest + 1);
    format!("{ticks} {text} {ticks}")
}

/// `text` on one line with Markdown's and HTML's special characters taken
/// literally.
pub(super) fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A gateway's name as a file name: its first word (the package), in lower
/// case, every run of other characters one dash.
pub(super) fn slug(name: &str) -> String {
    let package = name.split_whitespace().next().unwrap_or("gateway");
    let mut slug = String::new();
    for c in package.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "gateway".into()
    } else {
        slug.into()
    }
}
