//! The conformance cases the tests read live in `tests/conformance/`, a copy of
//! `../shared/conformance/` kept in the repository so a clone alone builds and tests. When the
//! shared folder sits beside the checkout, this test fails if the copy differs from it
//! (refresh with `scripts/sync-conformance.sh`); without it, it says it was skipped.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every file under `root`, by its path relative to `root`, with its bytes.
fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                out.insert(path.strip_prefix(root).expect("under root").to_path_buf(), bytes);
            }
        }
    }
    out
}

#[test]
fn copy_equals_shared_conformance() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = manifest.join("../shared/conformance");
    if !shared.is_dir() {
        println!("skipped: no ../shared/conformance beside the checkout to compare tests/conformance/ with");
        return;
    }
    let (copy, original) = (files(&manifest.join("tests/conformance")), files(&shared));
    let stale: Vec<_> = original
        .iter()
        .filter(|(p, b)| copy.get(*p) != Some(b))
        .map(|(p, _)| p.display().to_string())
        .collect();
    let extra: Vec<_> = copy
        .keys()
        .filter(|p| !original.contains_key(*p))
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        stale.is_empty() && extra.is_empty(),
        "tests/conformance/ differs from ../shared/conformance (run scripts/sync-conformance.sh): changed or missing {stale:?}, extra {extra:?}"
    );
}
