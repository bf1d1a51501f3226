//! Streaming batch runs (`ta ... tag < in.jsonl > out.jsonl`): a reader thread reads JSON
//! lines in bounded chunks ahead of the work, lines are parsed in parallel, each chunk goes
//! to a processor (the local engine, or a remote server) that returns one JSON text per
//! line, and the results are written in input order. Memory stays bounded by two chunks;
//! a progress bar is drawn on a terminal.
use crate::engine::error::{Error, Result};
use crate::engine::lines::BatchItem;
use rayon::prelude::*;
use serde_json::Value;
use std::io::{BufRead, IsTerminal, Write};
use std::sync::mpsc;

/// Lines per chunk: large enough to keep all cores busy, small enough to stay flat.
const CHUNK: usize = 4096;

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

/// Read stdin in chunks on a separate thread, one chunk ahead of the consumer.
fn read_ahead() -> mpsc::Receiver<std::io::Result<Vec<String>>> {
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::spawn(move || {
        let mut lines = std::io::stdin().lock().lines().map(|line| {
            line.map(|mut l| {
                if l.ends_with('\r') {
                    l.pop();
                }
                l
            })
        });
        loop {
            let chunk: std::io::Result<Vec<String>> = lines.by_ref().take(CHUNK).collect();
            let done = matches!(&chunk, Ok(c) if c.len() < CHUNK) || chunk.is_err();
            if tx.send(chunk).is_err() || done {
                break;
            }
        }
    });
    rx
}

/// Write chunks of JSON texts to stdout on a separate thread, one chunk behind the work.
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
/// JSON texts to stdout in input order. Reading, processing and writing overlap.
pub fn run_lines(mut process: impl FnMut(&[String]) -> Result<Vec<String>>) -> Result<()> {
    let pb = progress_bar();
    let (out, writer) = write_behind();
    let mut outcome = Ok(());
    for chunk in read_ahead() {
        let lines = match chunk {
            Ok(l) if l.is_empty() => break,
            Ok(l) => l,
            Err(e) => {
                outcome = Err(Error::BadRequest(format!("cannot read input: {e}")));
                break;
            }
        };
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
