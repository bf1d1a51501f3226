//! Imports through the embedded backend: file kinds, JSON lines, CSV and Excel readers, row
//! errors, and the ids imports generate.
use super::*;

pub(super) fn write_file(dir: &TempDir, name: &str, content: &str) -> PathBuf {
    let path = dir.0.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

pub(super) fn import(backend: &TantivyBackend, index: &str, path: &Path, separator: u8) -> (ImportStats, Vec<ImportProgress>) {
    let mut reports = Vec::new();
    let kind = FileKind::from_file_name(path.to_str().unwrap());
    let stats = import_file(backend, index, path, kind, separator, 2, &mut |p| reports.push(p)).unwrap();
    (stats, reports)
}

#[test]
fn file_kinds_by_extension() {
    assert_eq!(FileKind::from_file_name("a.CSV"), FileKind::Csv);
    for name in ["a.json", "b.jsonl", "c.jsonlines"] {
        assert_eq!(FileKind::from_file_name(name), FileKind::JsonLines);
    }
    assert_eq!(FileKind::from_file_name("x.xls"), FileKind::Excel);
    assert_eq!(FileKind::from_file_name("x.xlsx"), FileKind::Excel);
    assert_eq!(FileKind::from_file_name("x.txt"), FileKind::Unknown);
    assert_eq!(FileKind::from_file_name("noext"), FileKind::Unknown);
    let err = read_rows(Path::new("x.txt"), FileKind::Unknown, b',').err().unwrap();
    assert_eq!(err.to_string(), "unknown file type");
}

#[test]
fn imports_json_lines_counting_malformed_rows() {
    let (dir, backend) = store("jsonl");
    let content =
        "{\"text\": \"üks\", \"n\": 1}\n\nnot json\n[1, 2]\n{\"text\": \"kaks\", \"nested\": {\"a\": true}}\n{\"text\": \"kolm\"}";
    let path = write_file(&dir, "data.jsonl", content);
    let (stats, reports) = import(&backend, "imported", &path, b',');
    assert_eq!((stats.num_documents, stats.num_documents_success), (5, 3));
    assert_eq!(stats.errors.len(), 2);
    assert!(stats.errors[0].starts_with("line 3: "), "{:?}", stats.errors);
    assert_eq!(stats.errors[1], "line 4: not a JSON object");
    let last = reports.last().unwrap();
    assert_eq!(
        (last.num_documents, last.bytes_read, last.percent()),
        (5, content.len() as u64, 100.0)
    );
    assert_eq!(reports.len(), 3);
    assert_eq!(matching_in(&backend, "imported", json!({"term": {"nested.a": true}})), 1);
}

#[test]
fn imported_lines_are_stored_as_read_and_a_repeated_key_keeps_its_last_value() {
    let (dir, backend) = store("jsonl-raw");
    let content =
        "{\"text\": \"Tere \\u00f5htust\", \"n\": 1.50}\r\n{\"label\": \"esimene\", \"label\": \"teine\", \"x\": {\"k\": 1, \"k\": 2}}\n";
    let path = write_file(&dir, "raw.jsonl", content);
    let (stats, _) = import(&backend, "raw", &path, b',');
    assert_eq!((stats.num_documents_success, stats.errors.len()), (2, 0));
    let mut sources = Vec::new();
    backend
        .scan(&["raw".into()], &json!({"match_all": {}}), 10, &mut |batch| {
            sources.extend(batch.into_iter().map(|hit| hit.source));
            Ok(())
        })
        .unwrap();
    assert!(sources.contains(&json!({"text": "Tere õhtust", "n": 1.5})), "{sources:?}");
    assert!(sources.contains(&json!({"label": "teine", "x": {"k": 2}})), "{sources:?}");
    assert_eq!(matching_in(&backend, "raw", json!({"match": {"text": "õhtust"}})), 1);
    assert_eq!(matching_in(&backend, "raw", json!({"term": {"label.keyword": "teine"}})), 1);
    assert_eq!(
        matching_in(&backend, "raw", json!({"match": {"label": "esimene"}})),
        0,
        "a replaced value is not indexed"
    );
    assert_eq!(matching_in(&backend, "raw", json!({"term": {"x.k": 1}})), 0);
}

/// A row read from a file, as JSON.
fn row_value(row: import::Row) -> Value {
    serde_json::from_slice(row.unwrap().bytes()).unwrap()
}

pub(super) fn matching_in(backend: &TantivyBackend, index: &str, query: Value) -> u64 {
    backend.count(&[index.to_string()], &query).unwrap()
}

#[test]
fn imports_csv_with_separator_keeping_strings() {
    let (dir, backend) = store("csv");
    let content = "text;label;n\nVaras peeti kinni;politsei;1\n\"Maja; põleng\";tuletõrje;2\nbad;row\n";
    let path = write_file(&dir, "data.csv", content);
    let (stats, _) = import(&backend, "csvidx", &path, b';');
    assert_eq!((stats.num_documents, stats.num_documents_success), (3, 2));
    assert!(stats.errors[0].starts_with("row 4: "), "{:?}", stats.errors);
    let mut rows = read_rows(&path, FileKind::Csv, b';').unwrap();
    assert_eq!(
        row_value(rows.next().unwrap()),
        json!({"text": "Varas peeti kinni", "label": "politsei", "n": "1"})
    );
    assert_eq!(row_value(rows.next().unwrap())["text"], json!("Maja; põleng"));
    assert_eq!(matching_in(&backend, "csvidx", json!({"match": {"text": "põleng"}})), 1);
}

#[test]
fn imports_the_first_excel_sheet() {
    let (_dir, backend) = store("xlsx");
    let path = fixture("search_import.xlsx");
    let rows: Vec<Value> = read_rows(&path, FileKind::Excel, b',').unwrap().map(row_value).collect();
    assert_eq!(
        rows,
        vec![
            json!({"text": "Varas peeti kinni eile õhtul.", "label": "politsei", "count": 3, "score": 0.5, "when": "2020-09-23 11:05:06"}),
            json!({"text": "Maja teisel korrusel toimus põleng.", "label": "tuletõrje", "count": 7}),
        ]
    );
    let (stats, _) = import(&backend, "excel", &path, b',');
    assert_eq!((stats.num_documents, stats.num_documents_success), (2, 2));
    assert_eq!(matching_in(&backend, "excel", json!({"range": {"count": {"gt": 5}}})), 1);
}

/// Found by fuzzing (fuzz/fuzz_targets/import.rs): a worksheet cell reference with more column letters
/// than a `u32` holds overflows inside calamine, a panic where overflow checks are on (debug builds).
/// The reader reports it as the file's error.
#[test]
fn a_malformed_excel_file_is_an_error_not_a_panic() {
    let path = fixture("malformed_cell_reference.xlsx");
    match read_rows(&path, FileKind::Excel, b',') {
        Err(e) => assert!(e.to_string().contains("cannot read the Excel file"), "{e}"),
        Ok(rows) if cfg!(debug_assertions) => panic!("overflow checks on, yet {} rows read", rows.count()),
        Ok(_) => {}
    }
}

#[test]
fn generated_ids_are_unique_ordered_and_url_safe() {
    let ids: Vec<String> = (0..100_000).map(|_| generate_id()).collect();
    for id in &ids {
        assert_eq!(id.len(), 20, "{id}");
        assert!(id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{id}");
    }
    let mut sorted = ids.clone();
    sorted.sort_by_key(|id| base64_bytes(id));
    assert_eq!(sorted, ids, "ids follow generation order");
    sorted.dedup();
    assert_eq!(sorted.len(), ids.len());
}

fn base64_bytes(id: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(id).unwrap()
}
