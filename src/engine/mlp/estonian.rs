//! Estonian pipeline (mlp.md §10.3): Vabamorf (C++, compiled by build.rs) analyses and
//! disambiguates each sentence; the first analysis gives the lemma (estnltk's rule: compound
//! and phonetic markers removed, hyphen groups kept, verbs + `ma`) and the POS letter.
//!
//! Data: `et/et.dct` (analyser lexicon) and `et/et3.dct` (disambiguator model).
//!
//! Without `cfg(ta_vabamorf)` (build.rs found no sources) the C functions are stand-ins
//! that never open, so `Estonian::load` reports the missing build instead.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::Path;
use std::sync::Mutex;

#[cfg(ta_vabamorf)]
use ffi::*;
#[cfg(not(ta_vabamorf))]
use stand_in::*;

#[cfg(ta_vabamorf)]
mod ffi {
    use std::ffi::{c_char, c_int, c_void};
    extern "C" {
        pub fn ta_vm_open(lex_path: *const c_char, disamb_path: *const c_char) -> *mut c_void;
        pub fn ta_vm_close(handle: *mut c_void);
        pub fn ta_vm_analyze(handle: *mut c_void, words: *const *const c_char, n: c_int) -> *mut c_char;
        pub fn ta_vm_free(s: *mut c_char);
    }
}

/// The shim's signatures for a build without Vabamorf: nothing opens.
#[cfg(not(ta_vabamorf))]
mod stand_in {
    use std::ffi::{c_char, c_int, c_void};
    pub unsafe fn ta_vm_open(_lex: *const c_char, _disamb: *const c_char) -> *mut c_void {
        std::ptr::null_mut()
    }
    pub unsafe fn ta_vm_close(_handle: *mut c_void) {}
    pub unsafe fn ta_vm_analyze(_handle: *mut c_void, _words: *const *const c_char, _n: c_int) -> *mut c_char {
        std::ptr::null_mut()
    }
    pub unsafe fn ta_vm_free(_s: *mut c_char) {}
}

struct Handle(*mut c_void);

// The handle is only used while holding the engine's mutex.
unsafe impl Send for Handle {}

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { ta_vm_close(self.0) }
    }
}

/// Vabamorf instance; calls are serialised (Vabamorf keeps per-call state).
pub struct Estonian {
    handle: Mutex<Handle>,
}

fn c_path(p: &Path) -> Result<CString, String> {
    CString::new(p.to_string_lossy().as_bytes()).map_err(|e| e.to_string())
}

impl Estonian {
    pub fn load(dir: &Path) -> Result<Estonian, String> {
        if cfg!(not(ta_vabamorf)) {
            return Err(
                "Estonian morphology not built in: third_party/vabamorf/ was missing at build time (run scripts/setup.sh, then rebuild)"
                    .into(),
            );
        }
        let (lex, disamb) = (dir.join("et.dct"), dir.join("et3.dct"));
        for f in [&lex, &disamb] {
            if !f.is_file() {
                return Err(format!("{}: missing", f.display()));
            }
        }
        let handle = unsafe { ta_vm_open(c_path(&lex)?.as_ptr(), c_path(&disamb)?.as_ptr()) };
        if handle.is_null() {
            return Err(format!("{}: Vabamorf could not open the lexicons", dir.display()));
        }
        Ok(Estonian {
            handle: Mutex::new(Handle(handle)),
        })
    }

    /// (lemma, POS letter) per word of every sentence, flattened.
    pub fn analyze(&self, sentences: &[Vec<&str>]) -> Vec<(String, String)> {
        sentences.iter().flat_map(|s| self.analyze_sentence(s)).collect()
    }

    fn analyze_sentence(&self, words: &[&str]) -> Vec<(String, String)> {
        let raw = self.call(words).unwrap_or_default();
        let mut lines = raw.split('\n');
        words
            .iter()
            .map(|w| {
                let line = lines.next().unwrap_or("");
                match line.split_once('\t') {
                    Some((root, pos)) if !root.is_empty() => (lemma_from_root(root, pos), pos_tag(w, pos)),
                    _ => (w.to_string(), "X".to_string()),
                }
            })
            .collect()
    }

    fn call(&self, words: &[&str]) -> Option<String> {
        let owned: Vec<CString> = words
            .iter()
            .map(|w| CString::new(w.replace('\0', "")).unwrap_or_default())
            .collect();
        let ptrs: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
        let guard = self.handle.lock().unwrap_or_else(|e| e.into_inner());
        let out = unsafe { ta_vm_analyze(guard.0, ptrs.as_ptr(), ptrs.len() as c_int) };
        drop(guard);
        if out.is_null() {
            return None;
        }
        let text = unsafe { CStr::from_ptr(out) }.to_string_lossy().into_owned();
        unsafe { ta_vm_free(out) };
        Some(text)
    }
}

const PHONETIC_MARKERS: [char; 4] = ['~', '?', ']', '<'];
const COMPOUND_MARKERS: [char; 3] = ['_', '+', '='];

/// estnltk `get_group_tokens` + `get_lemma`.
fn lemma_from_root(root: &str, pos: &str) -> String {
    let is_marker = root.chars().count() == 1
        && root
            .chars()
            .all(|c| PHONETIC_MARKERS.contains(&c) || COMPOUND_MARKERS.contains(&c) || c == '-');
    let lemma = if is_marker {
        root.to_string()
    } else {
        root.split('-')
            .map(|group| group.split('_').map(trim_markers).collect::<String>())
            .collect::<Vec<_>>()
            .join("-")
    };
    if pos == "V" && lemma != "ei" && lemma != "ära" {
        format!("{lemma}ma")
    } else {
        lemma
    }
}

/// estnltk `trim_phonetics(trim_compounds(tok))`.
fn trim_markers(tok: &str) -> String {
    let tok: String = if tok.chars().count() == 1 && tok.chars().all(|c| COMPOUND_MARKERS.contains(&c)) {
        tok.to_string()
    } else {
        tok.chars().filter(|c| !COMPOUND_MARKERS.contains(c)).collect()
    };
    if !tok.is_empty() && tok.chars().all(|c| PHONETIC_MARKERS.contains(&c)) {
        return tok;
    }
    tok.chars().filter(|c| !PHONETIC_MARKERS.contains(c)).collect()
}

/// Vabamorf's POS letter; punctuation is `Z` (Vabamorf already says so for most marks).
fn pos_tag(word: &str, pos: &str) -> String {
    if pos.trim().is_empty() {
        let punct = word.chars().all(|c| !c.is_alphanumeric());
        return if punct { "Z".into() } else { "X".into() };
    }
    pos.to_string()
}

#[cfg(test)]
mod tests {
    use super::lemma_from_root;

    #[test]
    fn lemmas_from_roots() {
        assert_eq!(lemma_from_root("eesti_keelne", "A"), "eestikeelne");
        assert_eq!(lemma_from_root("ütle", "V"), "ütlema");
        assert_eq!(lemma_from_root("ei", "V"), "ei");
        assert_eq!(lemma_from_root("saun_a+mees-talli_mees", "S"), "saunamees-tallimees");
    }
}
