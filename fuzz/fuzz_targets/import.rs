//! Fuzz target: the dataset-import row readers (`read_rows`) for JSON lines, CSV and Excel.
//!
//! Input: one byte choosing the format (and the CSV separator), then the file's bytes, which
//! are written to a scratch file named with the format's extension and read row by row.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ta::engine::search::{read_rows, FileKind};

fuzz_target!(|data: &[u8]| {
    let [choice, bytes @ ..] = data else { return };
    let (kind, ext) = match choice % 4 {
        0 => (FileKind::JsonLines, "jsonl"),
        1 => (FileKind::Csv, "csv"),
        2 => (FileKind::Excel, "xlsx"),
        _ => (FileKind::Excel, "xls"),
    };
    let separator = [b',', b';', b'\t', b'|'][usize::from(choice >> 6)];
    let path = std::env::temp_dir().join(format!("ta-fuzz-import-{}.{ext}", std::process::id()));
    std::fs::write(&path, bytes).expect("scratch file");
    if let Ok(rows) = read_rows(&path, kind, separator) {
        for source in rows.flatten() {
            std::hint::black_box(source.bytes());
        }
    }
});
