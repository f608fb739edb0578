//! Request lines as lenient as PostgREST's server (Warp), which takes a raw `"`, `<` or `>`
//! in the request target: PostgREST's docs and curl users write `?meta->>source=eq.x` and
//! `cs.{"a":1}` unencoded. hyper refuses those bytes, so this wrapper percent-encodes them
//! in each request line before hyper reads it. It follows message framing by
//! Content-Length; after a chunked body it stops rewriting for that connection.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

enum State {
    RequestLine,
    Headers { line: Vec<u8>, length: u64, chunked: bool },
    Body(u64),
    Passthrough,
}

pub struct Tolerant<S> {
    inner: S,
    state: State,
    out: Vec<u8>,
    pos: usize,
}

impl<S> Tolerant<S> {
    pub fn new(inner: S) -> Self {
        Tolerant { inner, state: State::RequestLine, out: Vec::new(), pos: 0 }
    }

    fn feed(&mut self, mut input: &[u8]) {
        while !input.is_empty() {
            match &mut self.state {
                State::Passthrough => {
                    self.out.extend_from_slice(input);
                    return;
                }
                State::Body(n) => {
                    let take = (*n).min(input.len() as u64) as usize;
                    self.out.extend_from_slice(&input[..take]);
                    input = &input[take..];
                    *n -= take as u64;
                    if *n == 0 {
                        self.state = State::RequestLine;
                    }
                }
                State::RequestLine => {
                    let b = input[0];
                    input = &input[1..];
                    match b {
                        b'"' => self.out.extend_from_slice(b"%22"),
                        b'<' => self.out.extend_from_slice(b"%3C"),
                        b'>' => self.out.extend_from_slice(b"%3E"),
                        b'\n' => {
                            self.out.push(b);
                            self.state = State::Headers { line: Vec::new(), length: 0, chunked: false };
                        }
                        _ => self.out.push(b),
                    }
                }
                State::Headers { line, length, chunked } => {
                    let b = input[0];
                    input = &input[1..];
                    self.out.push(b);
                    if b != b'\n' {
                        line.push(b);
                        continue;
                    }
                    let text = String::from_utf8_lossy(line).trim().to_ascii_lowercase();
                    line.clear();
                    if text.is_empty() {
                        self.state = match (*chunked, *length) {
                            (true, _) => State::Passthrough,
                            (false, 0) => State::RequestLine,
                            (false, n) => State::Body(n),
                        };
                    } else if let Some(v) = text.strip_prefix("content-length:") {
                        *length = v.trim().parse().unwrap_or(0);
                    } else if text.starts_with("transfer-encoding:") && text.contains("chunked") {
                        *chunked = true;
                    }
                }
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Tolerant<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.pos >= this.out.len() {
            this.out.clear();
            this.pos = 0;
            let mut raw = [0u8; 16 * 1024];
            let mut rb = ReadBuf::new(&mut raw);
            match Pin::new(&mut this.inner).poll_read(cx, &mut rb) {
                Poll::Ready(Ok(())) => {
                    let filled = rb.filled().to_vec();
                    if filled.is_empty() {
                        return Poll::Ready(Ok(()));
                    }
                    this.feed(&filled);
                }
                other => return other,
            }
        }
        let n = (this.out.len() - this.pos).min(buf.remaining());
        buf.put_slice(&this.out[this.pos..this.pos + n]);
        this.pos += n;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Tolerant<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(chunks: &[&[u8]]) -> String {
        let mut t = Tolerant::new(());
        for c in chunks {
            t.feed(c);
        }
        String::from_utf8(t.out).unwrap()
    }

    #[test]
    fn encodes_only_request_lines_across_keep_alive_requests() {
        let req = "GET /t?m->>s=eq.\"x\"&a=lt.<b HTTP/1.1\r\nContent-Length: 5\r\nX-A: \"<>\"\r\n\r\n<{\">}";
        let out = rewrite(&[req.as_bytes(), b"GET /u?x=gt.> HTTP/1.1\r\n\r\n"]);
        assert_eq!(
            out,
            "GET /t?m-%3E%3Es=eq.%22x%22&a=lt.%3Cb HTTP/1.1\r\nContent-Length: 5\r\nX-A: \"<>\"\r\n\r\n<{\">}\
             GET /u?x=gt.%3E HTTP/1.1\r\n\r\n",
            "headers and bodies are untouched"
        );
        // Split reads land mid-line and mid-body.
        let (a, b) = req.as_bytes().split_at(20);
        assert_eq!(rewrite(&[a, b]), rewrite(&[req.as_bytes()]));
    }

    #[test]
    fn chunked_bodies_end_the_rewriting() {
        let out = rewrite(&[
            b"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n>\r\n0\r\n\r\nGET /b?x=> HTTP/1.1\r\n\r\n",
        ]);
        assert!(out.ends_with("GET /b?x=> HTTP/1.1\r\n\r\n"));
    }
}
