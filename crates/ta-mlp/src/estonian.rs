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
use std::sync::{Condvar, Mutex, MutexGuard};

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
        pub fn ta_vm_analyze_all(handle: *mut c_void, words: *const *const c_char, n: c_int) -> *mut c_char;
        pub fn ta_vm_free(s: *mut c_char);
    }
}

/// The shim's signatures for a build without Vabamorf: nothing opens.
#[cfg(not(ta_vabamorf))]
mod stand_in {
    use std::ffi::{c_char, c_int, c_void};
    pub unsafe extern "C" fn ta_vm_open(_lex: *const c_char, _disamb: *const c_char) -> *mut c_void {
        std::ptr::null_mut()
    }
    pub unsafe extern "C" fn ta_vm_close(_handle: *mut c_void) {}
    pub unsafe extern "C" fn ta_vm_analyze(_handle: *mut c_void, _words: *const *const c_char, _n: c_int) -> *mut c_char {
        std::ptr::null_mut()
    }
    pub unsafe extern "C" fn ta_vm_analyze_all(_handle: *mut c_void, _words: *const *const c_char, _n: c_int) -> *mut c_char {
        std::ptr::null_mut()
    }
    pub unsafe extern "C" fn ta_vm_free(_s: *mut c_char) {}
}

struct Handle(*mut c_void);

// SAFETY: a handle is used by one thread at a time (it is taken out of the pool for a
// call), and a Vabamorf instance keeps no thread-local state.
unsafe impl Send for Handle {}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the handle came from `ta_vm_open`, is non-null, and is closed only here.
        unsafe { ta_vm_close(self.0) }
    }
}

/// Vabamorf instances. One instance keeps per-call state (its analyser and disambiguator),
/// so a call takes an instance out of the pool for the text and puts it back afterwards.
/// Separate instances share no mutable state (README, "Estonian concurrency"), so calls on
/// different instances run in parallel. One instance opens at load; more open on demand when
/// calls overlap, up to `max` (the core count unless `TA_MLP_ET_INSTANCES` says otherwise).
pub struct Estonian {
    lex: CString,
    disamb: CString,
    max: usize,
    pool: Mutex<Pool>,
    returned: Condvar,
}

struct Pool {
    idle: Vec<Handle>,
    /// Instances opened (idle + in use).
    opened: usize,
    /// Set when opening another instance failed: stay with those already open.
    full: bool,
}

/// An instance taken from the pool; goes back on drop.
struct Lease<'a> {
    owner: &'a Estonian,
    handle: Option<Handle>,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            self.owner.lock_pool().idle.push(h);
            self.owner.returned.notify_one();
        }
    }
}

fn c_path(p: &Path) -> Result<CString, String> {
    CString::new(p.to_string_lossy().as_bytes()).map_err(|e| e.to_string())
}

impl Estonian {
    /// Opens one instance; up to `max` in all (0: one per core).
    pub fn load(dir: &Path, max: usize) -> Result<Estonian, String> {
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
        let max = match max {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let et = Estonian::with_max(c_path(&lex)?, c_path(&disamb)?, max);
        let first = et
            .open()
            .ok_or_else(|| format!("{}: Vabamorf could not open the lexicons", dir.display()))?;
        {
            let mut pool = et.lock_pool();
            pool.idle.push(first);
            pool.opened = 1;
        }
        Ok(et)
    }

    fn with_max(lex: CString, disamb: CString, max: usize) -> Estonian {
        Estonian {
            lex,
            disamb,
            max: max.max(1),
            pool: Mutex::new(Pool {
                idle: Vec::new(),
                opened: 0,
                full: false,
            }),
            returned: Condvar::new(),
        }
    }

    fn open(&self) -> Option<Handle> {
        // SAFETY: both paths are NUL-terminated C strings that outlive the call.
        let handle = unsafe { ta_vm_open(self.lex.as_ptr(), self.disamb.as_ptr()) };
        (!handle.is_null()).then_some(Handle(handle))
    }

    fn lock_pool(&self) -> MutexGuard<'_, Pool> {
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An idle instance; else a new one while fewer than `max` are open; else wait for one.
    fn lease(&self) -> Lease<'_> {
        let mut pool = self.lock_pool();
        loop {
            if let Some(h) = pool.idle.pop() {
                return Lease {
                    owner: self,
                    handle: Some(h),
                };
            }
            if !pool.full && pool.opened < self.max {
                pool.opened += 1;
                drop(pool);
                if let Some(h) = self.open() {
                    return Lease {
                        owner: self,
                        handle: Some(h),
                    };
                }
                pool = self.lock_pool();
                pool.opened -= 1;
                pool.full = true;
                continue;
            }
            pool = self.returned.wait(pool).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Instances open now.
    #[cfg(test)]
    pub(crate) fn instances(&self) -> usize {
        self.lock_pool().opened
    }

    /// (lemma, POS letter) per word of every sentence, flattened; one instance for the text.
    pub fn analyze(&self, sentences: &[Vec<&str>]) -> Vec<(String, String)> {
        if sentences.iter().all(|s| s.is_empty()) {
            return Vec::new();
        }
        let lease = self.lease();
        let handle = lease.handle.as_ref().map_or(std::ptr::null_mut(), |h| h.0);
        sentences.iter().flat_map(|s| analyze_sentence(handle, s)).collect()
    }

    /// Every analysis Vabamorf leaves after disambiguation, per word of every sentence,
    /// flattened; phonetic markers off (estnltk's VabamorfTagger defaults). A word Vabamorf
    /// cannot analyse gets one analysis: itself as the root, POS `Z` or `X`.
    pub(crate) fn analyses(&self, sentences: &[Vec<&str>]) -> Vec<Vec<VmAnalysis>> {
        if sentences.iter().all(|s| s.is_empty()) {
            return Vec::new();
        }
        let lease = self.lease();
        let handle = lease.handle.as_ref().map_or(std::ptr::null_mut(), |h| h.0);
        let mut out = Vec::with_capacity(sentences.iter().map(Vec::len).sum());
        for words in sentences {
            // Vabamorf asserts on a word with no visible character: such words are not sent
            let sent: Vec<&str> = words.iter().copied().filter(|w| is_visible(w)).collect();
            let raw = call(ta_vm_analyze_all, handle, &sent).unwrap_or_default();
            let mut lines = raw.split('\n');
            out.extend(words.iter().map(|w| {
                let line = if is_visible(w) { lines.next().unwrap_or("") } else { "" };
                word_analyses(w, line)
            }));
        }
        out
    }
}

/// One Vabamorf analysis as Vabamorf gives it (compound markers kept in the root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VmAnalysis {
    pub root: String,
    /// `0` for a zero ending, empty for words that take none.
    pub ending: String,
    pub clitic: String,
    pub partofspeech: String,
    /// Case and number (`sg el`) or the verb form (`s`).
    pub form: String,
}

/// True for a word with a character other than white space and NUL.
fn is_visible(word: &str) -> bool {
    word.chars().any(|c| !c.is_whitespace() && c != '\0')
}

/// A word's analyses from one line of `ta_vm_analyze_all`.
fn word_analyses(word: &str, line: &str) -> Vec<VmAnalysis> {
    let mut out: Vec<VmAnalysis> = line
        .split('\x1f')
        .filter_map(|a| {
            let mut f = a.split('\t');
            let mut next = || f.next().map(str::to_string);
            Some(VmAnalysis {
                root: next()?,
                ending: next()?,
                clitic: next()?,
                partofspeech: next()?,
                form: next()?,
            })
        })
        .collect();
    if out.is_empty() {
        out.push(VmAnalysis {
            root: word.to_string(),
            ending: String::new(),
            clitic: String::new(),
            partofspeech: pos_tag(word, ""),
            form: String::new(),
        });
    }
    out
}

fn analyze_sentence(handle: *mut c_void, words: &[&str]) -> Vec<(String, String)> {
    let raw = call(ta_vm_analyze, handle, words).unwrap_or_default();
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

type AnalyzeFn = unsafe extern "C" fn(*mut c_void, *const *const c_char, c_int) -> *mut c_char;

/// One sentence through `analyze` on the instance `handle`, which the caller holds alone.
fn call(analyze: AnalyzeFn, handle: *mut c_void, words: &[&str]) -> Option<String> {
    if handle.is_null() {
        return None;
    }
    let owned: Vec<CString> = words
        .iter()
        .map(|w| CString::new(w.replace('\0', "")).unwrap_or_default())
        .collect();
    let ptrs: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
    // SAFETY: `handle` is a live instance held by this caller alone; `ptrs` points at
    // `ptrs.len()` NUL-terminated strings owned by `owned`, which outlives the call.
    let out = unsafe { analyze(handle, ptrs.as_ptr(), ptrs.len() as c_int) };
    if out.is_null() {
        return None;
    }
    // SAFETY: a non-null result is a NUL-terminated string allocated by the shim, read once
    // and then released with the shim's own `ta_vm_free`.
    let text = unsafe { CStr::from_ptr(out) }.to_string_lossy().into_owned();
    unsafe { ta_vm_free(out) };
    Some(text)
}

const PHONETIC_MARKERS: [char; 4] = ['~', '?', ']', '<'];
const COMPOUND_MARKERS: [char; 3] = ['_', '+', '='];

/// True for a root that is a single marker character (estnltk keeps it whole).
fn is_marker(root: &str) -> bool {
    root.chars().count() == 1
        && root
            .chars()
            .all(|c| PHONETIC_MARKERS.contains(&c) || COMPOUND_MARKERS.contains(&c) || c == '-')
}

/// estnltk `get_group_tokens`, flattened: the root's parts between `-` and `_`, markers removed.
pub(crate) fn root_tokens(root: &str) -> Vec<String> {
    if is_marker(root) {
        return vec![root.to_string()];
    }
    root.split('-').flat_map(|group| group.split('_').map(trim_markers)).collect()
}

/// estnltk `get_group_tokens` + `get_lemma`.
pub(crate) fn lemma_from_root(root: &str, pos: &str) -> String {
    let lemma = if is_marker(root) {
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
