//! Streaming batch runs (`ta ... tag < in.jsonl > out.jsonl`): a reader thread reads JSON
//! lines in bounded chunks ahead of the work, lines are parsed in parallel, each chunk goes
//! to a processor (the local engine, or a remote server) that returns one JSON text per
//! line (as strings of one line each, or of several newline-separated lines), and the
//! results are written in input order. Memory stays bounded by two chunks;
//! a progress bar is drawn on a terminal.
use crate::engine::error::{Error, Result};
use crate::engine::lines::BatchItem;
use rayon::prelude::*;
use serde_json::Value;
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

/// Up to `CHUNK` input lines in one buffer: `ends[i]` is where line `i` ends in `text`
/// (line ends removed).
struct Chunk {
    /// The text
    text: String,
    ends: Vec<usize>,
}

impl Chunk {
    fn lines(&self) -> Vec<&str> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let line = &self.text[start..end];
                start = end;
                line
            })
            .collect()
    }
}

/// Read stdin in chunks on a separate thread, one chunk ahead of the consumer: one buffer
/// per chunk rather than one string per line.
fn read_ahead() -> mpsc::Receiver<std::io::Result<Chunk>> {
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::spawn(move || {
        // Large reads: stdin's own buffer is 8 KiB, a system call per 40-odd lines.
        let mut input = std::io::BufReader::with_capacity(1 << 20, std::io::stdin().lock());
        let mut capacity = 0;
        loop {
            let chunk = read_chunk(&mut input, capacity);
            if let Ok(c) = &chunk {
                capacity = c.text.len();
            }
            let done = matches!(&chunk, Ok(c) if c.ends.len() < CHUNK) || chunk.is_err();
            if tx.send(chunk).is_err() || done {
                break;
            }
        }
    });
    rx
}

/// Longest input line accepted (a guard against unbounded memory on input without newlines).
const MAX_LINE: u64 = 64 << 20;

/// The next chunk; `capacity` is a guess at its size (the last chunk's), to spare regrowing.
fn read_chunk(input: &mut impl BufRead, capacity: usize) -> std::io::Result<Chunk> {
    let mut bytes = Vec::with_capacity(capacity);
    let mut ends = Vec::with_capacity(CHUNK);
    while ends.len() < CHUNK {
        let read = input.by_ref().take(MAX_LINE + 1).read_until(b'\n', &mut bytes)?;
        if read == 0 {
            break;
        }
        if read as u64 > MAX_LINE {
            let message = format!("an input line is longer than {} MiB", MAX_LINE >> 20);
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, message));
        }
        for end in [b'\n', b'\r'] {
            if bytes.last() == Some(&end) {
                bytes.pop();
            }
        }
        ends.push(bytes.len());
    }
    let text =
        String::from_utf8(bytes).map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"))?;
    Ok(Chunk { text, ends })
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
    let (out, writer) = write_behind();
    let mut outcome = Ok(());
    for chunk in read_ahead() {
        let chunk = match chunk {
            Ok(c) if c.ends.is_empty() => break,
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
    }
    drop(out);
    pb.finish_and_clear();
    let written = writer.join().map_err(|_| Error::Internal("the output writer failed".into()))?;
    outcome?;
    written.map_err(Error::internal)
}
