//! A minimal HTTP/2 client over cleartext (prior knowledge), enough to send requests whose `:path` or header
//! values hold bytes that are not UTF-8, which HTTP client libraries refuse to build. It sends GET requests on one
//! connection (so on one Envoy worker), several at once if asked, and reads back each stream's status and body.
//!
//! Header blocks are written as literals without indexing, and read with the dynamic table turned off
//! (`SETTINGS_HEADER_TABLE_SIZE` 0): only the `:status` pseudo-header is decoded, from the static table or a literal
//! whose value may be Huffman-coded (RFC 7541: digits are 5- and 6-bit codes).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const DATA: u8 = 0;
const HEADERS: u8 = 1;
const RST_STREAM: u8 = 3;
const SETTINGS: u8 = 4;
const PING: u8 = 6;
const GOAWAY: u8 = 7;
const CONTINUATION: u8 = 9;
const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;

/// One stream's answer; `status` 0 if it was reset or the connection went away first.
#[derive(Debug, Clone, Default)]
pub struct H2Response {
    pub status: u16,
    pub body: Vec<u8>,
}

pub struct H2c {
    stream: TcpStream,
    next_stream: u32,
    /// Streams sent and not yet ended, with what came back so far.
    open: HashMap<u32, H2Response>,
    done: HashMap<u32, H2Response>,
    /// The stream whose header block is being continued, if any.
    continuing: Option<(u32, Vec<u8>, bool)>,
}

impl H2c {
    pub fn connect(port: u16) -> std::io::Result<H2c> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_nodelay(true)?;
        let mut client = H2c { stream, next_stream: 1, open: HashMap::new(), done: HashMap::new(), continuing: None };
        client.stream.write_all(PREFACE)?;
        // SETTINGS_HEADER_TABLE_SIZE (1) = 0: no dynamic table, so that status codes come from the static table or
        // as literals; SETTINGS_ENABLE_PUSH (2) = 0.
        let settings = [0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0];
        client.frame(SETTINGS, 0, 0, &settings)?;
        Ok(client)
    }

    fn frame(&mut self, kind: u8, flags: u8, stream: u32, payload: &[u8]) -> std::io::Result<()> {
        let len = payload.len() as u32;
        let mut out = vec![(len >> 16) as u8, (len >> 8) as u8, len as u8, kind, flags];
        out.extend_from_slice(&stream.to_be_bytes());
        out.extend_from_slice(payload);
        self.stream.write_all(&out)
    }

    /// Sends `GET path` with the given extra headers (lower-case names) and returns its stream id.
    pub fn send(&mut self, path: &[u8], headers: &[(&[u8], &[u8])]) -> std::io::Result<u32> {
        let id = self.next_stream;
        self.next_stream += 2;
        let mut block = Vec::new();
        let pseudo: [(&[u8], &[u8]); 4] =
            [(b":method", b"GET"), (b":scheme", b"http"), (b":path", path), (b":authority", b"localhost")];
        for (name, value) in pseudo.iter().chain(headers) {
            // Literal header field without indexing, new name; neither string Huffman-coded.
            block.push(0);
            string(&mut block, name);
            string(&mut block, value);
        }
        self.frame(HEADERS, END_HEADERS | END_STREAM, id, &block)?;
        self.open.insert(id, H2Response::default());
        Ok(id)
    }

    /// Reads until every stream in `ids` has ended or `timeout` passed; the answers of those that ended.
    pub fn wait(&mut self, ids: &[u32], timeout: Duration) -> HashMap<u32, H2Response> {
        let deadline = Instant::now() + timeout;
        while ids.iter().any(|id| !self.done.contains_key(id)) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.read_frame(left).is_err() {
                break;
            }
        }
        ids.iter().filter_map(|id| self.done.remove(id).map(|r| (*id, r))).collect()
    }

    fn read_frame(&mut self, timeout: Duration) -> std::io::Result<()> {
        self.stream.set_read_timeout(Some(timeout))?;
        let mut head = [0u8; 9];
        self.stream.read_exact(&mut head)?;
        let len = (usize::from(head[0]) << 16) | (usize::from(head[1]) << 8) | usize::from(head[2]);
        let (kind, flags) = (head[3], head[4]);
        let id = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
        let mut payload = vec![0u8; len];
        self.stream.read_exact(&mut payload)?;
        match kind {
            SETTINGS if flags & ACK == 0 => self.frame(SETTINGS, ACK, 0, &[])?,
            PING if flags & ACK == 0 => self.frame(PING, ACK, 0, &payload)?,
            HEADERS => {
                let block = unpad(&payload, flags, true);
                if flags & END_HEADERS == 0 {
                    self.continuing = Some((id, block.to_vec(), flags & END_STREAM != 0));
                } else {
                    self.headers(id, block, flags & END_STREAM != 0);
                }
            }
            CONTINUATION => {
                if let Some((stream, mut block, end)) = self.continuing.take() {
                    block.extend_from_slice(&payload);
                    if flags & END_HEADERS == 0 {
                        self.continuing = Some((stream, block, end));
                    } else {
                        self.headers(stream, &block, end);
                    }
                }
            }
            DATA => {
                let data = unpad(&payload, flags, false).to_vec();
                if let Some(response) = self.open.get_mut(&id) {
                    response.body.extend_from_slice(&data);
                }
                if !data.is_empty() {
                    // Give the flow-control credit back, on the connection and on the stream.
                    let credit = (data.len() as u32).to_be_bytes();
                    self.frame(8, 0, 0, &credit)?;
                    if flags & END_STREAM == 0 {
                        self.frame(8, 0, id, &credit)?;
                    }
                }
                if flags & END_STREAM != 0 {
                    self.end(id);
                }
            }
            RST_STREAM => {
                if let Some(mut response) = self.open.remove(&id) {
                    response.status = 0;
                    self.done.insert(id, response);
                }
            }
            GOAWAY => {
                for (id, mut response) in self.open.drain() {
                    response.status = 0;
                    self.done.insert(id, response);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn headers(&mut self, id: u32, block: &[u8], end_stream: bool) {
        if let Some(response) = self.open.get_mut(&id) {
            // The first block is the response's; a later one (trailers) carries no status.
            if response.status == 0 {
                response.status = status(block).unwrap_or(0);
            }
        }
        if end_stream {
            self.end(id);
        }
    }

    fn end(&mut self, id: u32) {
        if let Some(response) = self.open.remove(&id) {
            self.done.insert(id, response);
        }
    }
}

/// A string literal, not Huffman-coded.
fn string(out: &mut Vec<u8>, value: &[u8]) {
    integer(out, 0, 7, value.len());
    out.extend_from_slice(value);
}

/// An HPACK integer with an `n`-bit prefix, the bits above it set to `high`.
fn integer(out: &mut Vec<u8>, high: u8, n: u32, mut value: usize) {
    let max = (1usize << n) - 1;
    if value < max {
        out.push(high | value as u8);
        return;
    }
    out.push(high | max as u8);
    value -= max;
    while value >= 128 {
        out.push((value % 128 + 128) as u8);
        value /= 128;
    }
    out.push(value as u8);
}

fn unpad(payload: &[u8], flags: u8, headers: bool) -> &[u8] {
    let mut body = payload;
    let mut pad = 0;
    if flags & PADDED != 0 && !body.is_empty() {
        pad = usize::from(body[0]);
        body = &body[1..];
    }
    if headers && flags & PRIORITY != 0 && body.len() >= 5 {
        body = &body[5..];
    }
    &body[..body.len().saturating_sub(pad)]
}

/// Reads an HPACK integer with an `n`-bit prefix at `at`: its value and where the next field starts.
fn read_integer(block: &[u8], at: usize, n: u32) -> Option<(usize, usize)> {
    let max = (1usize << n) - 1;
    let mut value = usize::from(*block.get(at)?) & max;
    let mut i = at + 1;
    if value < max {
        return Some((value, i));
    }
    let mut shift = 0;
    loop {
        let b = *block.get(i)?;
        i += 1;
        value += usize::from(b & 0x7f) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            return Some((value, i));
        }
    }
}

/// Reads a string literal at `at`: its bytes, whether they are Huffman-coded, and where the next field starts.
fn read_string(block: &[u8], at: usize) -> Option<(&[u8], bool, usize)> {
    let huffman = *block.get(at)? & 0x80 != 0;
    let (len, start) = read_integer(block, at, 7)?;
    Some((block.get(start..start + len)?, huffman, start + len))
}

/// The `:status` of a header block (static table entries 8 to 14 are `:status`).
fn status(block: &[u8]) -> Option<u16> {
    const STATIC_STATUS: [u16; 7] = [200, 204, 206, 304, 400, 404, 500];
    let mut i = 0;
    while i < block.len() {
        let b = block[i];
        if b & 0x80 != 0 {
            let (index, next) = read_integer(block, i, 7)?;
            if (8..=14).contains(&index) {
                return Some(STATIC_STATUS[index - 8]);
            }
            i = next;
            continue;
        }
        if b & 0xe0 == 0x20 {
            // A dynamic table size update.
            i = read_integer(block, i, 5)?.1;
            continue;
        }
        let prefix = if b & 0xc0 == 0x40 { 6 } else { 4 };
        let (index, mut next) = read_integer(block, i, prefix)?;
        if index == 0 {
            next = read_string(block, next)?.2;
        }
        let (value, huffman, after) = read_string(block, next)?;
        if (8..=14).contains(&index) {
            let digits = if huffman { huffman_digits(value)? } else { String::from_utf8(value.to_vec()).ok()? };
            return digits.parse().ok();
        }
        i = after;
    }
    None
}

/// Decodes a Huffman-coded string of decimal digits: `0` to `2` are the 5-bit codes 0 to 2, `3` to `9` the 6-bit
/// codes 0x19 to 0x1f; the padding is the high bits of the end-of-string code, all ones.
fn huffman_digits(bytes: &[u8]) -> Option<String> {
    let bits: Vec<u8> = bytes.iter().flat_map(|b| (0..8).rev().map(move |i| (b >> i) & 1)).collect();
    let take = |at: usize, n: usize| bits[at..at + n].iter().fold(0u8, |v, b| (v << 1) | b);
    let mut out = String::new();
    let mut at = 0;
    while bits.len() - at >= 5 {
        let five = take(at, 5);
        if five == 0x1f {
            break;
        }
        if five <= 2 {
            out.push(char::from(b'0' + five));
            at += 5;
        } else if bits.len() - at >= 6 && (0x19..=0x1f).contains(&take(at, 6)) {
            out.push(char::from(b'3' + take(at, 6) - 0x19));
            at += 6;
        } else {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huffman_coded_status_codes_decode() {
        // "503": 011011 00000 011001, padded with ones.
        assert_eq!(huffman_digits(&[0b0110_1100, 0b0000_1100, 0b1111_1111]).as_deref(), Some("503"));
        // "200": 00010 00000 00000, padded.
        assert_eq!(huffman_digits(&[0b0001_0000, 0b0000_0001]).as_deref(), Some("200"));
    }
}
