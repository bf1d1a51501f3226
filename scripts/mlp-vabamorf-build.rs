//! Build script part for the MLP engine: compiles Vabamorf (Estonian morphology, LGPL C++
//! from the estnltk 1.7.3 sdist, fetched by scripts/mlp-fetch.sh into third_party/vabamorf/)
//! plus the C ABI shim in src/engine/mlp/vabamorf/shim.cpp.
//!
//! Without the sources the build fails with a message naming the fetch script.
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

fn build_vabamorf(root: &Path) {
    let vabamorf = root.join("third_party/vabamorf");
    let shim = root.join("src/engine/mlp/vabamorf/shim.cpp");
    if !vabamorf.join("etana").is_dir() {
        panic!(
            "Vabamorf sources missing in {}: run scripts/mlp-fetch.sh first",
            vabamorf.display()
        );
    }
    let mut build = cc::Build::new();
    build.cpp(true).flag_if_supported("-std=c++11").warnings(false).opt_level(2);
    for dir in VABAMORF_DIRS {
        build.include(vabamorf.join("include").join(dir));
        build.files(cpp_sources(&vabamorf.join(dir)));
    }
    build.include(vabamorf.join("include/fsc/fsjni"));
    build.file(&shim);
    build.compile("ta_vabamorf");
    println!("cargo:rerun-if-changed={}", shim.display());
    println!("cargo:rerun-if-changed={}", vabamorf.join("etana").display());
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    println!("cargo:rerun-if-env-changed=TA_SOURCE_ROOT");
    let root = std::env::var("TA_SOURCE_ROOT").map(PathBuf::from).unwrap_or(root);
    build_vabamorf(&root);
}
