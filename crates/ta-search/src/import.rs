//! Dataset import: streaming row readers for JSON lines, CSV and Excel files, and a batched
//! import into a `SearchBackend` bulk load with progress reports.
//!
//! JSON lines and CSV are read incrementally, so memory stays flat whatever the file size
//! (the reference reads the whole file). Excel is the exception: calamine loads the first
//! sheet whole before rows can be produced. Reading and parsing run on their own thread,
//! overlapping with indexing, and hand over small chunks (at most two in flight), so memory
//! stays flat. A commit ends each batch of `batch_size` rows or `COMMIT_BYTES` of input, so a
//! crash keeps every reported batch and each commit is large enough to be cheap.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

use calamine::{open_workbook_auto, Data, Reader};
use serde_json::{Map, Value};

use super::backend::{BulkLoader, Result, SearchBackend, SearchError};
use super::source::Source;

/// File format, chosen by file-name extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Csv,
    JsonLines,
    Excel,
    Unknown,
}

impl FileKind {
    /// `.csv`; `.json`, `.jsonl`, `.jsonlines`; `.xls`, `.xlsx` (case-insensitive).
    pub fn from_file_name(name: &str) -> Self {
        let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
        match ext.as_str() {
            "csv" => FileKind::Csv,
            "json" | "jsonl" | "jsonlines" => FileKind::JsonLines,
            "xls" | "xlsx" => FileKind::Excel,
            _ => FileKind::Unknown,
        }
    }
}

/// One row: a document, or why the row could not be read (with its 1-based line/row number).
pub type Row = std::result::Result<Source, String>;
type Rows = Box<dyn Iterator<Item = Row> + Send>;

/// Progress of a running import. `bytes_read`/`total_bytes` give the share of the file done
/// (for Excel, `bytes_read` jumps to the total once the sheet is loaded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportProgress {
    pub num_documents: u64,
    pub num_documents_success: u64,
    pub bytes_read: u64,
    pub total_bytes: u64,
}

impl ImportProgress {
    /// Percent done, 0.0–100.0.
    pub fn percent(&self) -> f64 {
        if self.total_bytes == 0 {
            return 100.0;
        }
        (self.bytes_read as f64 * 100.0 / self.total_bytes as f64).min(100.0)
    }
}

/// Outcome of an import. `errors` keeps the first `MAX_ERRORS` messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportStats {
    pub num_documents: u64,
    pub num_documents_success: u64,
    pub errors: Vec<String>,
}

/// Most error messages an import keeps; the rest are only counted.
pub const MAX_ERRORS: usize = 100;

/// Input bytes after which a batch is committed even when it has fewer than `batch_size` rows.
const COMMIT_BYTES: u64 = 32 << 20;
/// Most rows and input bytes in one chunk handed from the reading thread to the indexer.
const CHUNK_ROWS: usize = 2048;
const CHUNK_BYTES: u64 = 1 << 20;

/// Streams the rows of a file. `separator` applies to CSV only.
pub fn read_rows(path: &Path, kind: FileKind, separator: u8) -> Result<Rows> {
    open_rows(path, kind, separator, Arc::new(AtomicU64::new(0)))
}

fn open_rows(path: &Path, kind: FileKind, separator: u8, counter: Arc<AtomicU64>) -> Result<Rows> {
    let io = |e: std::io::Error| SearchError::Backend(format!("{}: {e}", path.display()));
    match kind {
        FileKind::JsonLines => {
            let file = CountingReader {
                inner: File::open(path).map_err(io)?,
                counter,
            };
            Ok(Box::new(json_lines(BufReader::with_capacity(1 << 20, file))))
        }
        FileKind::Csv => {
            let file = CountingReader {
                inner: File::open(path).map_err(io)?,
                counter,
            };
            csv_rows(file, separator)
        }
        FileKind::Excel => {
            let rows = excel_rows(path)?;
            counter.store(std::fs::metadata(path).map_err(io)?.len(), Ordering::Relaxed);
            Ok(rows)
        }
        FileKind::Unknown => Err(SearchError::UnknownFileType),
    }
}

/// A reader that counts the bytes read through it.
struct CountingReader<R> {
    inner: R,
    counter: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// One JSON object per line; blank lines are skipped.
fn json_lines(mut reader: impl BufRead + Send + 'static) -> impl Iterator<Item = Row> + Send {
    let mut line = Vec::new();
    let mut number = 0u64;
    std::iter::from_fn(move || loop {
        line.clear();
        number += 1;
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => return None,
            Ok(_) if line.trim_ascii().is_empty() => continue,
            Ok(_) => return Some(Source::parse(line.trim_ascii_end().to_vec()).map_err(|e| format!("line {number}: {e}"))),
            Err(e) => return Some(Err(format!("line {number}: {e}"))).filter(|_| !line.is_empty()),
        }
    })
}

/// Header row = field names; every value stays a string.
fn csv_rows(reader: impl Read + Send + 'static, separator: u8) -> Result<Rows> {
    let mut csv = csv::ReaderBuilder::new().delimiter(separator).has_headers(true).from_reader(reader);
    let headers: Vec<String> = csv
        .headers()
        .map_err(|e| SearchError::Backend(format!("cannot read the CSV header: {e}")))?
        .iter()
        .map(str::to_string)
        .collect();
    let rows = csv.into_records().enumerate().map(move |(i, record)| {
        let record = record.map_err(|e| format!("row {}: {e}", i + 2))?;
        let map: Map<String, Value> = headers
            .iter()
            .zip(record.iter())
            .map(|(h, v)| (h.clone(), Value::from(v)))
            .collect();
        Ok(Source::from_map(&map))
    });
    Ok(Box::new(rows))
}

/// First sheet; first row = field names; empty cells are left out.
fn excel_rows(path: &Path) -> Result<Rows> {
    let Some(range) = first_sheet(path)? else {
        return Ok(Box::new(std::iter::empty()));
    };
    let mut rows = range.rows();
    let headers: Vec<String> = rows.next().map(|r| r.iter().map(|c| c.to_string()).collect()).unwrap_or_default();
    let docs: Vec<Row> = rows
        .map(|cells| {
            let map: Map<String, Value> = headers
                .iter()
                .zip(cells)
                .filter_map(|(h, cell)| cell_value(cell).map(|v| (h.clone(), v)))
                .collect();
            Ok(Source::from_map(&map))
        })
        .collect();
    Ok(Box::new(docs.into_iter()))
}

/// The first sheet of a workbook, `None` when it has no sheets. calamine can panic on malformed files
/// (fuzzing found an arithmetic overflow on a cell reference with too many column letters in
/// `xl/worksheets/*.xml`); such a panic is the file's error here, not the importer's.
fn first_sheet(path: &Path) -> Result<Option<calamine::Range<Data>>> {
    let excel = |e: calamine::Error| SearchError::Backend(format!("cannot read the Excel file: {e}"));
    let read = || -> Result<Option<calamine::Range<Data>>> {
        let mut workbook = open_workbook_auto(path).map_err(excel)?;
        workbook.worksheet_range_at(0).transpose().map_err(excel)
    };
    std::panic::catch_unwind(read).unwrap_or_else(|_| Err(SearchError::Backend("cannot read the Excel file: the file is malformed".into())))
}

/// A cell as JSON: whole floats become integers (as pandas reads such columns), dates
/// `YYYY-MM-DD HH:MM:SS`.
fn cell_value(cell: &Data) -> Option<Value> {
    match cell {
        Data::Empty => None,
        Data::Int(i) => Some(Value::from(*i)),
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 9e15 => Some(Value::from(*f as i64)),
        Data::Float(f) => Some(Value::from(*f)),
        Data::Bool(b) => Some(Value::from(*b)),
        Data::DateTime(dt) => {
            let (y, mo, d, h, mi, s, _) = dt.to_ymd_hms_milli();
            Some(Value::from(format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}")))
        }
        other => Some(Value::from(other.to_string())),
    }
}

/// Imports a file into `index` (created if missing), committing after every `batch_size`
/// documents or `COMMIT_BYTES` of input and reporting progress after each commit (a crash
/// keeps every batch whose progress was reported); malformed rows are counted and reported,
/// not fatal.
pub fn import_file(
    backend: &dyn SearchBackend,
    index: &str,
    path: &Path,
    kind: FileKind,
    separator: u8,
    batch_size: usize,
    progress: &mut dyn FnMut(ImportProgress),
) -> Result<ImportStats> {
    let counter = Arc::new(AtomicU64::new(0));
    let rows = open_rows(path, kind, separator, counter.clone())?;
    let total_bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut loader = backend.bulk_loader(index)?;
    let batch_size = batch_size.max(1);
    let mut stats = ImportStats::default();
    let mut row_errors = 0u64;
    let (sender, receiver) = mpsc::sync_channel::<Vec<Row>>(1);
    stats.num_documents_success = std::thread::scope(|scope| {
        let bytes_read = &counter;
        scope.spawn(move || read_chunks(rows, batch_size.min(CHUNK_ROWS), bytes_read, sender));
        let (mut rows_since_commit, mut bytes_at_commit) = (0usize, 0u64);
        let mut added = 0u64;
        let mut commit = |loader: &mut Box<dyn BulkLoader + '_>, stats: &ImportStats, added: u64| -> Result<()> {
            loader.commit()?;
            progress(ImportProgress {
                num_documents: stats.num_documents,
                num_documents_success: added,
                bytes_read: counter.load(Ordering::Relaxed).min(total_bytes),
                total_bytes,
            });
            Ok(())
        };
        for chunk in receiver {
            rows_since_commit += chunk.len();
            let mut docs = Vec::with_capacity(chunk.len());
            for row in chunk {
                stats.num_documents += 1;
                match row {
                    Ok(source) => docs.push(source),
                    Err(message) => record_error(&mut stats.errors, &mut row_errors, message),
                }
            }
            for result in loader.add(docs)? {
                match result {
                    Ok(_) => added += 1,
                    Err(message) => record_error(&mut stats.errors, &mut row_errors, message),
                }
            }
            let read = counter.load(Ordering::Relaxed);
            if rows_since_commit >= batch_size || read - bytes_at_commit >= COMMIT_BYTES {
                commit(&mut loader, &stats, added)?;
                (rows_since_commit, bytes_at_commit) = (0, read);
            }
        }
        if rows_since_commit > 0 {
            commit(&mut loader, &stats, added)?;
        }
        Ok::<u64, SearchError>(added)
    })?;
    if row_errors > MAX_ERRORS as u64 {
        stats.errors.push(format!("... and {} more errors", row_errors - MAX_ERRORS as u64));
    }
    Ok(stats)
}

fn read_chunks(mut rows: Rows, chunk_rows: usize, bytes_read: &AtomicU64, sender: mpsc::SyncSender<Vec<Row>>) {
    loop {
        let start = bytes_read.load(Ordering::Relaxed);
        let mut chunk = Vec::with_capacity(chunk_rows);
        while chunk.len() < chunk_rows && bytes_read.load(Ordering::Relaxed) - start < CHUNK_BYTES {
            match rows.next() {
                Some(row) => chunk.push(row),
                None => break,
            }
        }
        if chunk.is_empty() || sender.send(chunk).is_err() {
            return;
        }
    }
}

fn record_error(errors: &mut Vec<String>, total: &mut u64, message: String) {
    *total += 1;
    if errors.len() < MAX_ERRORS {
        errors.push(message);
    }
}
