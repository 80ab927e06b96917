//! `tools/list` served from bytes built once.
//!
//! rmcp serializes every result it sends. For `tools/list` that is the whole
//! catalogue each time: Stripe's 464 tools are 1.25 MB of JSON, about 2 ms of
//! CPU per list, after cloning every tool into the result. Instead the result
//! handed to rmcp holds one small stand-in tool, and on their way out the
//! bytes rmcp wrote for it are replaced by the real tools, serialized once at
//! start-up: the list is the same byte for byte, and costs a copy at most.
//!
//! The stand-in is serialized as a JSON object (`{"name":"…",…}`), so it can
//! only be matched where JSON structure is written, never inside a string
//! such as an answer's text, where every `"` is escaped. Its name also holds a
//! per-process random part, so no document's tool can be named like it.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, SizeHint};
use memchr::memmem::Finder;
use rmcp::model::{JsonObject, ListToolsResult, Tool};
use tokio::io::AsyncWrite;

/// Which tools an agent may see and call. The HTTP layer in front of MCP
/// sets it from what let the agent in (a token's scopes); without one
/// (stdio, no agent checks) every tool is allowed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ToolsAllowed {
    #[default]
    All,
    /// Only the tools hinted read-only.
    ReadOnly,
}

/// The tools, serialized once, and the stand-in that marks where they go:
/// the whole list, and the read-only tools alone where agents may be
/// limited to them.
pub struct ToolList {
    all: Variant,
    read_only: Option<Variant>,
}

/// One list as it goes out.
struct Variant {
    stand_in: Tool,
    /// Finds the stand-in's JSON.
    marker: Finder<'static>,
    /// The tools' JSON objects, comma-separated: what goes between `[` and `]`.
    tools: Bytes,
}

impl ToolList {
    /// Every tool, to every agent.
    pub fn new(tools: &[Tool]) -> ToolList {
        ToolList {
            all: Variant::new(tools),
            read_only: None,
        }
    }

    /// Every tool, and the `read_only` ones alone for agents let in only
    /// for them.
    pub fn with_read_only(tools: &[Tool], read_only: &[Tool]) -> ToolList {
        ToolList {
            all: Variant::new(tools),
            read_only: Some(Variant::new(read_only)),
        }
    }

    /// Whether the read-only tools are also listed alone.
    pub fn lists_read_only(&self) -> bool {
        self.read_only.is_some()
    }

    /// The result to hand rmcp: the stand-in in place of every tool the
    /// agent may see.
    pub fn result(&self, allowed: ToolsAllowed) -> ListToolsResult {
        let variant = match (allowed, &self.read_only) {
            (ToolsAllowed::ReadOnly, Some(read_only)) => read_only,
            (ToolsAllowed::ReadOnly, None) => {
                return ListToolsResult::with_all_items(Vec::new());
            }
            (ToolsAllowed::All, _) => &self.all,
        };
        ListToolsResult::with_all_items(vec![variant.stand_in.clone()])
    }

    fn variants(&self) -> impl Iterator<Item = &Variant> {
        std::iter::once(&self.all).chain(&self.read_only)
    }

    /// The first stand-in in `bytes`: where it starts, and its list.
    fn find(&self, bytes: &[u8]) -> Option<(usize, &Variant)> {
        self.variants()
            .filter_map(|variant| Some((variant.marker.find(bytes)?, variant)))
            .min_by_key(|(at, _)| *at)
    }

    /// `bytes` with the stand-in replaced by the tools, as the pieces to send
    /// in turn; `None` when no stand-in is there.
    pub fn splice(&self, bytes: &Bytes) -> Option<[Bytes; 3]> {
        let (at, variant) = self.find(bytes)?;
        let end = at + variant.marker.needle().len();
        Some([bytes.slice(..at), variant.tools.clone(), bytes.slice(end..)])
    }

    /// An HTTP response with the stand-in replaced wherever rmcp wrote it.
    ///
    /// A JSON answer is one buffer already (so its length stays exact); an
    /// SSE stream is spliced event by event, each event being one frame.
    pub async fn splice_response<B>(
        self: &Arc<Self>,
        response: hyper::Response<B>,
    ) -> hyper::Response<SplicedBody>
    where
        B: Body<Data = Bytes, Error = Infallible> + Send + Sync + 'static,
    {
        let (parts, body) = response.into_parts();
        let streamed = parts
            .headers
            .get(hyper::header::CONTENT_TYPE)
            .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
        let body = if streamed {
            SplicedBody::Streamed {
                inner: body.boxed(),
                list: Arc::clone(self),
                pending: VecDeque::new(),
            }
        } else {
            let whole = match body.collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(never) => match never {},
            };
            let pieces = match self.splice(&whole) {
                Some(pieces) => VecDeque::from(pieces),
                None => VecDeque::from([whole]),
            };
            SplicedBody::Whole(pieces)
        };
        hyper::Response::from_parts(parts, body)
    }
}

impl Variant {
    fn new(tools: &[Tool]) -> Variant {
        let random = std::collections::hash_map::RandomState::new();
        let nonce = [random.build_hasher().finish(), random.hash_one(tools.len())];
        let stand_in = Tool::new_with_raw(
            format!(
                "hosted-mcp-gateway tool list {:016x}{:016x}",
                nonce[0], nonce[1]
            ),
            None,
            Arc::new(JsonObject::new()),
        );
        let marker = serde_json::to_vec(&stand_in).expect("a tool serializes");
        let mut joined = Vec::new();
        for (position, tool) in tools.iter().enumerate() {
            if position > 0 {
                joined.push(b',');
            }
            serde_json::to_writer(&mut joined, tool).expect("a tool serializes");
        }
        Variant {
            stand_in,
            marker: Finder::new(&marker).into_owned(),
            tools: joined.into(),
        }
    }
}

/// A response body with the tool list spliced in.
pub enum SplicedBody {
    /// Known in full: its pieces, with an exact length.
    Whole(VecDeque<Bytes>),
    /// An SSE stream, and the pieces of a spliced event not yet sent.
    Streamed {
        inner: http_body_util::combinators::BoxBody<Bytes, Infallible>,
        list: Arc<ToolList>,
        pending: VecDeque<Bytes>,
    },
}

/// A whole body of the gateway's own (a refusal, a 404).
impl From<Bytes> for SplicedBody {
    fn from(bytes: Bytes) -> Self {
        SplicedBody::Whole(VecDeque::from([bytes]))
    }
}

impl Body for SplicedBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            SplicedBody::Whole(pieces) => {
                Poll::Ready(pieces.pop_front().map(|b| Ok(Frame::data(b))))
            }
            SplicedBody::Streamed {
                inner,
                list,
                pending,
            } => {
                if let Some(piece) = pending.pop_front() {
                    return Poll::Ready(Some(Ok(Frame::data(piece))));
                }
                let frame = match ready!(Pin::new(inner).poll_frame(cx)) {
                    Some(Ok(frame)) => frame,
                    other => return Poll::Ready(other),
                };
                let frame = match frame.into_data() {
                    Ok(data) => match list.splice(&data) {
                        Some([before, tools, after]) => {
                            pending.extend([tools, after]);
                            Frame::data(before)
                        }
                        None => Frame::data(data),
                    },
                    Err(frame) => frame,
                };
                Poll::Ready(Some(Ok(frame)))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            SplicedBody::Whole(pieces) => pieces.is_empty(),
            SplicedBody::Streamed { inner, pending, .. } => {
                pending.is_empty() && inner.is_end_stream()
            }
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            SplicedBody::Whole(pieces) => {
                SizeHint::with_exact(pieces.iter().map(|piece| piece.len() as u64).sum())
            }
            SplicedBody::Streamed { .. } => SizeHint::default(),
        }
    }
}

/// A writer (stdout, for stdio) that writes the tools where the stand-in is.
///
/// rmcp's codec writes whole messages and, after a short write, writes the
/// rest: a write never goes past the start of the stand-in, so the stand-in
/// is always found whole at the start of a later write.
pub struct SplicingWriter<W> {
    inner: W,
    list: Arc<ToolList>,
    /// The tools being written in place of a stand-in, and how far.
    pending: Option<(Bytes, usize)>,
}

impl<W> SplicingWriter<W> {
    pub fn new(inner: W, list: Arc<ToolList>) -> Self {
        Self {
            inner,
            list,
            pending: None,
        }
    }
}

impl<W: AsyncWrite + Unpin> SplicingWriter<W> {
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((tools, written)) = &mut self.pending {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &tools[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
            if *written == tools.len() {
                self.pending = None;
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for SplicingWriter<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        match this.list.find(buf) {
            Some((0, variant)) => {
                this.pending = Some((variant.tools.clone(), 0));
                Poll::Ready(Ok(variant.marker.needle().len()))
            }
            Some((at, _)) => Pin::new(&mut this.inner).poll_write(cx, &buf[..at]),
            None => Pin::new(&mut this.inner).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{RequestId, ServerJsonRpcMessage, ServerResult};
    use tokio::io::AsyncWriteExt;

    fn tools() -> Vec<Tool> {
        (0..3)
            .map(|n| {
                let mut schema = JsonObject::new();
                schema.insert("type".into(), "object".into());
                schema.insert(
                    "description".into(),
                    format!("quote \" and {{}} {n}").into(),
                );
                Tool::new_with_raw(
                    format!("tool{n}"),
                    Some(format!("does {n}").into()),
                    Arc::new(schema),
                )
            })
            .collect()
    }

    fn message(result: ListToolsResult) -> Vec<u8> {
        let message = ServerJsonRpcMessage::response(
            ServerResult::ListToolsResult(result),
            RequestId::Number(7),
        );
        serde_json::to_vec(&message).expect("serializes")
    }

    #[test]
    fn the_spliced_message_is_the_full_list_byte_for_byte() {
        let tools = tools();
        let list = ToolList::new(&tools);
        let pieces = list
            .splice(&Bytes::from(message(list.result(ToolsAllowed::All))))
            .expect("the stand-in is found");
        assert_eq!(
            pieces.concat(),
            message(ListToolsResult::with_all_items(tools))
        );
    }

    #[test]
    fn text_that_quotes_the_stand_in_is_left_alone() {
        let list = ToolList::new(&tools());
        let stand_in = serde_json::to_string(&list.all.stand_in).expect("serializes");
        // Inside a JSON string every quote is escaped.
        let text = serde_json::to_vec(&stand_in).expect("serializes");
        assert!(list.splice(&Bytes::from(text)).is_none());
    }

    /// Accepts at most `step` bytes a write.
    struct Trickle {
        written: Vec<u8>,
        step: usize,
    }

    impl AsyncWrite for Trickle {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            let this = self.get_mut();
            let n = buf.len().min(this.step);
            this.written.extend_from_slice(&buf[..n]);
            Poll::Ready(Ok(n))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn short_writes_still_splice_the_whole_list() {
        let tools = tools();
        let list = Arc::new(ToolList::new(&tools));
        let mut sent = message(list.result(ToolsAllowed::All));
        sent.push(b'\n');
        sent.extend_from_slice(b"{\"next\":1}\n");
        let mut expected = message(ListToolsResult::with_all_items(tools));
        expected.push(b'\n');
        expected.extend_from_slice(b"{\"next\":1}\n");
        for step in [1, 7, 64, usize::MAX] {
            let mut writer = SplicingWriter::new(
                Trickle {
                    written: Vec::new(),
                    step,
                },
                list.clone(),
            );
            writer.write_all(&sent).await.expect("written");
            writer.flush().await.expect("flushed");
            assert_eq!(writer.inner.written, expected, "{step} bytes a write");
        }
    }

    #[tokio::test]
    async fn responses_are_spliced_with_exact_lengths_for_json() {
        let tools = tools();
        let list = Arc::new(ToolList::new(&tools));
        let json = hyper::Response::builder()
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(http_body_util::Full::new(Bytes::from(message(
                list.result(ToolsAllowed::All),
            ))))
            .expect("a response");
        let spliced = list.splice_response(json).await;
        let expected = message(ListToolsResult::with_all_items(tools.clone()));
        assert_eq!(
            spliced.body().size_hint().exact(),
            Some(expected.len() as u64)
        );
        let body = spliced
            .into_body()
            .collect()
            .await
            .expect("read")
            .to_bytes();
        assert_eq!(body, expected);

        let event = [
            b"data: ".as_slice(),
            &message(list.result(ToolsAllowed::All)),
            b"\n\n",
        ]
        .concat();
        let sse = hyper::Response::builder()
            .header(hyper::header::CONTENT_TYPE, "text/event-stream")
            .body(http_body_util::Full::new(Bytes::from(event)))
            .expect("a response");
        let body = list
            .splice_response(sse)
            .await
            .into_body()
            .collect()
            .await
            .expect("read")
            .to_bytes();
        assert_eq!(body, [b"data: ".as_slice(), &expected, b"\n\n"].concat());
    }
}
