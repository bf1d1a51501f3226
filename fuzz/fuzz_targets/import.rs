//! Fuzz target: the dataset-import row readers (`read_rows`) for JSON lines, CSV and Excel.
//!
//! Input: one byte choosing the format (and the CSV separator), then the file's bytes, which
//! are written to a scratch file named with the format's extension and read row by row. Reading
//! must end in rows or an error; a panic anywhere but inside calamine (see below) is a failure.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ta::engine::search::{read_rows, FileKind};

/// libFuzzer's panic hook aborts on every panic, caught or not. A panic inside calamine is caught by
/// the importer and reported as the file's error (`search::import::first_sheet`), so it may unwind to
/// that catch; every other panic still aborts.
fn let_calamine_panics_unwind() {
    let abort = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.location().is_some_and(|l| l.file().contains("/calamine-")) {
            abort(info);
        }
    }));
}

fuzz_target!(init: let_calamine_panics_unwind(), |data: &[u8]| {
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
