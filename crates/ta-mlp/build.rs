//! Build script: compiles Vabamorf (Estonian morphology, LGPL C++ from the estnltk 1.7.3
//! sdist, extracted by scripts/mlp-fetch.sh into the checkout's third_party/vabamorf/) and
//! the C ABI shim in src/vabamorf/shim.cpp, then sets `cfg(ta_vabamorf)`.
//!
//! The disambiguator's Viterbi search (etyhh/et3myh.cpp) is compiled from a patched copy in
//! OUT_DIR: third_party/patches/vabamorf/et3_viterbi.inc (a patch to Vabamorf, under its
//! licence) replaces the search block (same results, live states only; see the comment
//! there). When the block is not found (other sources), the original file is compiled and a
//! warning says so.
//!
//! Without the sources (a fresh clone before scripts/setup.sh) ta builds without Estonian
//! morphology: the language engine then reports Estonian as not loaded. The script reruns
//! when anything under third_party/ changes, so running setup and building again picks
//! Vabamorf up.
use std::path::{Path, PathBuf};

const VABAMORF_DIRS: [&str; 5] = ["etana", "etyhh", "fsc", "json", "proof"];

fn cpp_sources(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|ext| ext == "cpp"))
        .collect();
    files.sort();
    files
}

/// Where the original Viterbi search starts and what follows it (etyhh/et3myh.cpp).
const VITERBI_START: &str = "    SA3<UKAPROB> a(2, tags.idxLast, tags.idxLast);\n";
const VITERBI_NEXT: &str = "    TMPLPTRARRAY<PCFSAString> parimad(sProb.maxIdx1);\n";

/// et3myh.cpp with the Viterbi block of `viterbi` in place of the original search, written
/// to OUT_DIR; `None` when the file does not have the expected shape.
fn patched_et3myh(original: &Path, viterbi: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(original).ok()?;
    let block = std::fs::read_to_string(viterbi).ok()?;
    let start = text.find(VITERBI_START)?;
    let search_end = text[start..].find(VITERBI_NEXT)? + start;
    // up to the blank line before the comment that introduces `parimad`
    let end = start + text[start..search_end].rfind("\n\n")? + 1;
    let original_search = &text[start..end];
    if !original_search.contains("b.Obj(i, k, l) = j;") || !original_search.contains("bj = j;") {
        return None;
    }
    let include = "#include <assert.h>\n";
    let at = text.find(include)?;
    let mut out = String::with_capacity(text.len() + block.len());
    out.push_str(&text[..at]);
    out.push_str("#include <algorithm>\n#include <vector>\n");
    out.push_str(&text[at..start]);
    out.push_str(&block);
    out.push_str(&text[end..]);
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("et3myh.cpp");
    std::fs::write(&dest, out).ok()?;
    Some(dest)
}

fn build_vabamorf(vabamorf: &Path, shim: &Path, viterbi: &Path) {
    let mut build = cc::Build::new();
    build.cpp(true).flag_if_supported("-std=c++11").warnings(false).opt_level(2);
    let et3myh = vabamorf.join("etyhh/et3myh.cpp");
    let patched = patched_et3myh(&et3myh, viterbi);
    if patched.is_none() {
        println!("cargo::warning=etyhh/et3myh.cpp has an unexpected shape: compiling the original Viterbi search");
    }
    for dir in VABAMORF_DIRS {
        build.include(vabamorf.join("include").join(dir));
        for file in cpp_sources(&vabamorf.join(dir)) {
            match &patched {
                Some(p) if file == et3myh => build.file(p),
                _ => build.file(file),
            };
        }
    }
    build.include(vabamorf.join("include/fsc/fsjni"));
    build.file(shim);
    build.compile("ta_vabamorf");
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    // crates/ta-mlp in the checkout, whose third_party/ scripts/setup.sh fills
    let root = manifest.join("../..");
    let vabamorf = root.join("third_party/vabamorf");
    let shim = manifest.join("src/vabamorf/shim.cpp");
    let viterbi = root.join("third_party/patches/vabamorf/et3_viterbi.inc");
    println!("cargo::rustc-check-cfg=cfg(ta_vabamorf)");
    println!("cargo::rerun-if-changed={}", root.join("third_party").display());
    println!("cargo::rerun-if-changed={}", shim.display());
    println!("cargo::rerun-if-changed={}", viterbi.display());
    if vabamorf.join("etana").is_dir() {
        build_vabamorf(&vabamorf, &shim, &viterbi);
        println!("cargo::rustc-cfg=ta_vabamorf");
    } else {
        println!("cargo::warning=third_party/vabamorf/ missing: building without Estonian morphology (run scripts/setup.sh)");
    }
}
