//! Build script: compiles Vabamorf (Estonian morphology, LGPL C++ from the estnltk 1.7.3
//! sdist, extracted by scripts/mlp-fetch.sh into third_party/vabamorf/) and the C ABI shim
//! in src/engine/mlp/vabamorf/shim.cpp, then sets `cfg(ta_vabamorf)`.
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

fn build_vabamorf(vabamorf: &Path, shim: &Path) {
    let mut build = cc::Build::new();
    build.cpp(true).flag_if_supported("-std=c++11").warnings(false).opt_level(2);
    for dir in VABAMORF_DIRS {
        build.include(vabamorf.join("include").join(dir));
        build.files(cpp_sources(&vabamorf.join(dir)));
    }
    build.include(vabamorf.join("include/fsc/fsjni"));
    build.file(shim);
    build.compile("ta_vabamorf");
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let vabamorf = root.join("third_party/vabamorf");
    let shim = root.join("src/engine/mlp/vabamorf/shim.cpp");
    println!("cargo::rustc-check-cfg=cfg(ta_vabamorf)");
    println!("cargo::rerun-if-changed={}", root.join("third_party").display());
    println!("cargo::rerun-if-changed={}", shim.display());
    if vabamorf.join("etana").is_dir() {
        build_vabamorf(&vabamorf, &shim);
        println!("cargo::rustc-cfg=ta_vabamorf");
    } else {
        println!("cargo::warning=third_party/vabamorf/ missing: building without Estonian morphology (run scripts/setup.sh)");
    }
}
