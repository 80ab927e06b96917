//! A request as it arrived on the wire.

use std::fmt;

use percent_encoding::percent_decode;

/// One request that reached the upstream, as the gateway sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    /// The method, e.g. `GET`.
    pub method: String,
    /// The raw request-target, exactly as on the wire: `/a%2Fb/..?x=1`.
    pub target: String,
    /// The raw target before any `?`.
    pub path: String,
    /// The raw target after the first `?`, if there is one.
    pub query: Option<String>,
    /// The headers in arrival order (repeated names grouped together), names
    /// in lower case, values as bytes.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The whole body.
    pub body: Vec<u8>,
}

impl RecordedRequest {
    pub(crate) fn new(
        method: String,
        target: String,
        headers: Vec<(String, Vec<u8>)>,
        body: Vec<u8>,
    ) -> Self {
        let (path, query) = match target.split_once('?') {
            Some((path, query)) => (path.to_owned(), Some(query.to_owned())),
            None => (target.clone(), None),
        };
        RecordedRequest {
            method,
            target,
            path,
            query,
            headers,
            body,
        }
    }

    /// The first value of the header `name`, compared without regard to case.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.header_all(name).into_iter().next()
    }

    /// Every value of the header `name`, compared without regard to case, in
    /// arrival order.
    pub fn header_all(&self, name: &str) -> Vec<&[u8]> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
            .collect()
    }

    /// The query's `name=value` pairs in order, decoded as a form would be
    /// (`%XX` escapes, and `+` as a space); invalid UTF-8 becomes U+FFFD.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        let Some(query) = &self.query else {
            return Vec::new();
        };
        query
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                (form_decode(name), form_decode(value))
            })
            .collect()
    }
}

/// The request as a failure message shows it: the request line, one
/// `name: value` line per header (bytes read as UTF-8, lossily), then the
/// body's first KiB after a blank line. A megabyte body would bury the rest.
impl fmt::Display for RecordedRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.method, self.target)?;
        for (name, value) in &self.headers {
            writeln!(f, "{name}: {}", String::from_utf8_lossy(value))?;
        }
        let shown = &self.body[..self.body.len().min(SHOWN_BODY_BYTES)];
        if !shown.is_empty() {
            writeln!(f, "\n{}", String::from_utf8_lossy(shown))?;
        }
        Ok(())
    }
}

const SHOWN_BODY_BYTES: usize = 1024;

fn form_decode(raw: &str) -> String {
    let plus_as_space = raw.replace('+', " ");
    percent_decode(plus_as_space.as_bytes())
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(target: &str) -> RecordedRequest {
        RecordedRequest::new(
            "GET".into(),
            target.into(),
            vec![
                ("x-a".into(), b"1".to_vec()),
                ("x-b".into(), b"2".to_vec()),
                ("x-a".into(), b"3".to_vec()),
            ],
            Vec::new(),
        )
    }

    #[test]
    fn splits_the_target_at_the_first_question_mark() {
        let r = request("/a%2Fb/..?x=1&y=?");
        assert_eq!(r.path, "/a%2Fb/..");
        assert_eq!(r.query.as_deref(), Some("x=1&y=?"));
        assert_eq!(request("/p").query, None);
    }

    #[test]
    fn decodes_query_pairs_like_a_form() {
        let r = request("/p?tag=a%20b&tag=c+d&flag&e=%E2%9C%93&plus=%2B");
        assert_eq!(
            r.query_pairs(),
            [
                ("tag", "a b"),
                ("tag", "c d"),
                ("flag", ""),
                ("e", "\u{2713}"),
                ("plus", "+")
            ]
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
        );
    }

    #[test]
    fn finds_headers_without_regard_to_case() {
        let r = request("/");
        assert_eq!(r.header("X-A"), Some(&b"1"[..]));
        assert_eq!(r.header_all("x-A"), vec![&b"1"[..], &b"3"[..]]);
        assert_eq!(r.header("x-c"), None);
    }
}
