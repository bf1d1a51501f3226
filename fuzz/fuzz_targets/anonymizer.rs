//! Fuzz target: the anonymizer's name parsing (`NameList::parse`) and matching
//! (`Anonymizer::new`, `anonymize_text`) with random names, settings and texts.
//!
//! Input: one setting byte, then sections separated by U+001E: the names (`Last, First`, one
//! a line) and the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ta::engine::anonymizer::{Anonymizer, AnonymizerConfig, NameList};

/// Builds the process-wide tables before fuzzing starts (built once per process, no per-input cost).
fn warm_up() {
    let names = NameList::parse(&["Tamm, Mari".into()]).expect("valid name");
    let anonymizer = Anonymizer::new(&AnonymizerConfig::default(), &names);
    anonymizer.anonymize_text("Mari Tamm ja Mari Tammele.", None).expect("no replacers given");
}

fuzz_target!(init: warm_up(), |data: &[u8]| {
    let [flags, rest @ ..] = data else { return };
    let rest = String::from_utf8_lossy(rest);
    let (names, text) = rest.split_once('\u{1e}').unwrap_or((&rest, ""));
    let names: Vec<String> = names.lines().map(String::from).collect();
    let Ok(names) = NameList::parse(&names) else { return };
    let cfg = AnonymizerConfig {
        replace_misspelled_names: flags & 1 != 0,
        replace_single_last_names: flags & 2 != 0,
        replace_single_first_names: flags & 4 != 0,
        mimic_casing: flags & 8 != 0,
        auto_adjust_threshold: flags & 16 != 0,
        misspelling_threshold: [0.9, 0.5, 0.0, 1.0][usize::from(flags >> 6)],
    };
    let anonymizer = Anonymizer::new(&cfg, &names);
    let replacers: Vec<String> = (0..names.len()).map(|i| format!("R.{i}")).collect();
    anonymizer.anonymize_text(text, Some(&replacers)).expect("one replacer per name");
});
