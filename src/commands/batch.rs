//! Streaming batch runs (`ta ... tag < in.jsonl > out.jsonl`): a reader thread reads JSON
//! lines in bounded chunks ahead of the work (slicing them in place when stdin is a mapped
//! file, copying them from a pipe), lines are parsed in parallel, each chunk goes to a
//! processor (the local engine, or a remote server) that returns one JSON text per line (as
//! strings of one line each, or of several newline-separated lines), and the results are
//! written in input order. Memory stays bounded by two chunks (a mapped file's processed
//! pages are dropped); a progress bar is drawn on a terminal.
use crate::engine::error::{Error, Result};
use crate::engine::lines::BatchItem;
use rayon::prelude::*;
use serde_json::Value;
use std::borrow::Cow;
use std::io::{BufRead, IsTerminal, Read, Write};
use std::sync::mpsc;

/// Lines per chunk: large enough to keep all cores busy, small enough to stay flat.
const CHUNK: usize = 4096;

/// Remote mode of a model's batch: each line as one request, several at once, to the
/// resource at `base` (`.../taggers/1`): a text to its `tag_text/`, a document to its
/// `tag_doc/` (with `doc_fields` as its `fields` when given), each body with `options`
/// added; a refused line answers `{"error"}`. Results in input order.
pub fn per_line_requests(
    c: &super::client::Client,
    base: &str,
    lines: &[&str],
    options: &serde_json::Map<String, Value>,
    doc_fields: Option<&[String]>,
) -> Vec<String> {
    lines
        .par_iter()
        .map(|line| {
            let (path, mut body) = match BatchItem::parse(line) {
                BatchItem::Text(s) => (format!("{base}/tag_text/"), serde_json::json!({"text": s})),
                BatchItem::Doc(d) => {
                    let mut body = serde_json::json!({"doc": d});
                    if let Some(fields) = doc_fields {
                        body["fields"] = serde_json::json!(fields);
                    }
                    (format!("{base}/tag_doc/"), body)
                }
            };
            for (k, v) in options {
                body[k] = v.clone();
            }
            match c.send("POST", &path, Some(&body)) {
                Ok(v) => v.to_string(),
                Err(e) => serde_json::json!({"error": e.to_string()}).to_string(),
            }
        })
        .collect()
}

/// JSON texts of values a processor got as values (remote answers).
pub fn json_lines(values: impl IntoIterator<Item = Value>) -> Vec<String> {
    values.into_iter().map(|v| v.to_string()).collect()
}

fn progress_bar() -> indicatif::ProgressBar {
    if std::io::stderr().is_terminal() {
        let pb = indicatif::ProgressBar::new_spinner();
        pb.set_style(indicatif::ProgressStyle::with_template("{spinner} {pos} lines  {per_sec}  {elapsed}").expect("valid template"));
        pb
    } else {
        indicatif::ProgressBar::hidden()
    }
}

/// Up to `CHUNK` input lines in one buffer, borrowed from a mapped file or read from a
/// stream: line `i` is `text[spans[i].0..spans[i].1]` (line ends left out).
struct Chunk<'a> {
    text: Cow<'a, str>,
    spans: Vec<(usize, usize)>,
}

impl Chunk<'_> {
    fn lines(&self) -> Vec<&str> {
        self.spans.iter().map(|&(start, end)| &self.text[start..end]).collect()
    }
}

/// Stdin's unread rest, mapped into memory, when stdin is a regular file (`ta … < in.jsonl`):
/// its lines are then sliced in place, never copied. Stdin's offset moves to the end, as if
/// read. None for pipes, terminals, empty rests and anything that cannot be mapped.
#[cfg(unix)]
fn map_stdin() -> Option<memmap2::Mmap> {
    use std::io::{Seek, SeekFrom};
    use std::os::fd::AsFd;
    let mut file = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned().ok()?);
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let offset = file.stream_position().ok()?;
    let end = file.seek(SeekFrom::End(0)).ok()?;
    let len = usize::try_from(end.checked_sub(offset)?).ok().filter(|&len| len > 0)?;
    // SAFETY: the map is read-only and lives no longer than the run. As with any mapped
    // input (ripgrep's caveat), a file truncated by another process while it is being read
    // ends the run with SIGBUS; the output written so far stays intact.
    let map = unsafe { memmap2::MmapOptions::new().offset(offset).len(len).map(&file) }.ok();
    if map.is_none() {
        file.seek(SeekFrom::Start(offset)).ok()?;
    }
    map
}

/// Stdin is always read as a stream off Unix.
#[cfg(not(unix))]
fn map_stdin() -> Option<memmap2::Mmap> {
    None
}

/// Drop a processed chunk's pages from the mapped input, so that resident memory stays flat
/// however long the file is (the pages stay in the page cache).
#[cfg_attr(not(unix), allow(unused_variables))]
fn release(map: &memmap2::Mmap, text: &str) {
    #[cfg(unix)]
    {
        let offset = text.as_ptr() as usize - map.as_ptr() as usize;
        // SAFETY: the map is a shared read-only file mapping: a page touched again (the next
        // chunk may start on this chunk's last page) is read back from the file unchanged.
        let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, text.len()) };
    }
}

/// Read the input in chunks on a separate thread, one chunk ahead of the consumer: sliced
/// from `mapped` when stdin is a mapped file, otherwise read from stdin into one buffer per
/// chunk (rather than one string per line). The thread is not joined: a consumer that stops
/// early is never held by a read that waits on a pipe.
fn read_ahead(mapped: Option<&'static [u8]>) -> mpsc::Receiver<std::io::Result<Chunk<'static>>> {
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::spawn(move || {
        let send = |chunk: std::io::Result<Chunk<'static>>| {
            let done = !matches!(&chunk, Ok(c) if c.spans.len() == CHUNK);
            tx.send(chunk).is_ok() && !done
        };
        match mapped {
            Some(mut rest) => while send(slice_chunk(&mut rest)) {},
            None => {
                // Large reads: stdin's own buffer is 8 KiB, a system call per 40-odd lines.
                let mut input = std::io::BufReader::with_capacity(1 << 20, std::io::stdin().lock());
                let mut capacity = 0;
                while send(read_chunk(&mut input, &mut capacity)) {}
            }
        }
    });
    rx
}

/// Longest input line accepted (a guard against unbounded memory on input without newlines;
/// a mapped file is held to it too, so that a file and a pipe answer alike).
const MAX_LINE: usize = 64 << 20;

/// The error of a line over `MAX_LINE`.
fn too_long() -> std::io::Error {
    let message = format!("an input line is longer than {} MiB", MAX_LINE >> 20);
    std::io::Error::new(std::io::ErrorKind::InvalidData, message)
}

/// A chunk's bytes as text, or the error of bytes that are not UTF-8.
fn utf8(bytes: Cow<[u8]>) -> std::io::Result<Cow<str>> {
    let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8");
    match bytes {
        Cow::Borrowed(b) => std::str::from_utf8(b).map(Cow::Borrowed).map_err(|_| bad()),
        Cow::Owned(b) => String::from_utf8(b).map(Cow::Owned).map_err(|_| bad()),
    }
}

/// The line in `line` (which ends before or at its `\n`) without its `\r`, as a span from `start`.
fn span(start: usize, line: &[u8]) -> (usize, usize) {
    (start, start + line.strip_suffix(b"\r").unwrap_or(line).len())
}

/// The next chunk of mapped lines, taken off the front of `rest`.
fn slice_chunk<'a>(rest: &mut &'a [u8]) -> std::io::Result<Chunk<'a>> {
    let bytes = *rest;
    let mut spans = Vec::with_capacity(CHUNK);
    let mut pos = 0;
    while spans.len() < CHUNK && pos < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
        if end - pos > MAX_LINE {
            return Err(too_long());
        }
        spans.push(span(pos, &bytes[pos..end]));
        pos = (end + 1).min(bytes.len());
    }
    *rest = &bytes[pos..];
    Ok(Chunk {
        text: utf8(Cow::Borrowed(&bytes[..pos]))?,
        spans,
    })
}

/// The next chunk read from `input`; `capacity` is a guess at its size (the last chunk's),
/// to spare regrowing.
fn read_chunk(input: &mut impl BufRead, capacity: &mut usize) -> std::io::Result<Chunk<'static>> {
    let mut bytes = Vec::with_capacity(*capacity);
    let mut spans = Vec::with_capacity(CHUNK);
    while spans.len() < CHUNK {
        let start = bytes.len();
        let read = input.by_ref().take(MAX_LINE as u64 + 1).read_until(b'\n', &mut bytes)?;
        if read == 0 {
            break;
        }
        if bytes.ends_with(b"\n") {
            bytes.pop();
        }
        if bytes.len() - start > MAX_LINE {
            return Err(too_long());
        }
        spans.push(span(start, &bytes[start..]));
    }
    *capacity = bytes.len();
    Ok(Chunk {
        text: utf8(Cow::Owned(bytes))?,
        spans,
    })
}

/// Write chunks of JSON lines (strings of one or more lines, each written with a line end)
/// to stdout on a separate thread, one chunk behind the work.
fn write_behind() -> (mpsc::SyncSender<Vec<String>>, std::thread::JoinHandle<std::io::Result<()>>) {
    let (tx, rx) = mpsc::sync_channel::<Vec<String>>(1);
    let writer = std::thread::spawn(move || {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
        for chunk in rx {
            for line in chunk {
                out.write_all(line.as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
        out.flush()
    });
    (tx, writer)
}

/// Run `process` over stdin chunk by chunk, each line parsed whole (in parallel), writing
/// its JSON texts to stdout in input order.
pub fn run(mut process: impl FnMut(&[BatchItem]) -> Result<Vec<String>>) -> Result<()> {
    run_lines(|lines| {
        let items: Vec<BatchItem> = lines.par_iter().map(|l| BatchItem::parse(l)).collect();
        process(&items)
    })
}

/// Run `process` over the raw lines of stdin chunk by chunk (line ends removed), writing its
/// JSON lines (strings of one or more lines) to stdout in input order. Reading, processing
/// and writing overlap.
pub fn run_lines(mut process: impl FnMut(&[&str]) -> Result<Vec<String>>) -> Result<()> {
    let pb = progress_bar();
    // Mapped for the rest of the process: a run reads stdin once.
    let mapped: Option<&'static memmap2::Mmap> = map_stdin().map(|m| &*Box::leak(Box::new(m)));
    let (out, writer) = write_behind();
    let mut outcome = Ok(());
    for chunk in read_ahead(mapped.map(|m| &m[..])) {
        let chunk = match chunk {
            Ok(c) if c.spans.is_empty() => break,
            Ok(c) => c,
            Err(e) => {
                outcome = Err(Error::BadRequest(format!("cannot read input: {e}")));
                break;
            }
        };
        let lines = chunk.lines();
        match process(&lines) {
            Ok(results) => {
                if out.send(results).is_err() {
                    break;
                }
            }
            Err(e) => {
                outcome = Err(e);
                break;
            }
        }
        pb.inc(lines.len() as u64);
        if let Some(map) = mapped {
            release(map, &chunk.text);
        }
    }
    drop(out);
    pb.finish_and_clear();
    let written = writer.join().map_err(|_| Error::Internal("the output writer failed".into()))?;
    outcome?;
    written.map_err(Error::internal)
}
