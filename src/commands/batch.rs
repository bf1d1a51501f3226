//! Streaming batch runs (`ta ... tag < in.jsonl > out.jsonl`): reads JSON lines in
//! bounded chunks, hands each chunk to a processor (the local engine, or a remote
//! server), and writes one output line per input line, in input order. Memory stays
//! bounded by the chunk size; a progress bar is drawn on a terminal.
use crate::engine::error::{Error, Result};
use crate::engine::regex_taggers::BatchItem;
use serde_json::Value;
use std::io::{BufRead, IsTerminal, Write};

/// Lines per chunk: large enough to keep all cores busy, small enough to stay flat.
const CHUNK: usize = 2048;

/// Parse one input line: a JSON string or a bare line is a text; a JSON object is a
/// document.
pub fn parse_line(line: &str) -> BatchItem {
    match serde_json::from_str::<Value>(line) {
        Ok(Value::String(s)) => BatchItem::Text(s),
        Ok(v @ Value::Object(_)) => BatchItem::Doc(v),
        _ => BatchItem::Text(line.to_string()),
    }
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

/// Run `process` over stdin chunk by chunk, writing results to stdout.
pub fn run(mut process: impl FnMut(&[BatchItem]) -> Result<Vec<Value>>) -> Result<()> {
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let pb = progress_bar();
    let mut lines = stdin.lines();
    loop {
        let mut chunk = Vec::with_capacity(CHUNK);
        for line in lines.by_ref() {
            let line = line.map_err(|e| Error::BadRequest(format!("cannot read input: {e}")))?;
            chunk.push(parse_line(line.trim_end_matches('\r')));
            if chunk.len() == CHUNK {
                break;
            }
        }
        if chunk.is_empty() {
            break;
        }
        for v in process(&chunk)? {
            serde_json::to_writer(&mut out, &v).map_err(Error::internal)?;
            out.write_all(b"\n").map_err(Error::internal)?;
        }
        pb.inc(chunk.len() as u64);
    }
    pb.finish_and_clear();
    out.flush().map_err(Error::internal)
}
