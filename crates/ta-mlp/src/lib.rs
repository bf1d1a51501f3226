//! Offline language processing ("MLP") behind `POST /mlp/texts/` (spec: mlp.md).
//!
//! `MlpEngine::load` reads `<data_dir>/mlp/` once (language profiles, English tagger and
//! lemma tables, the Russian dictionary, Vabamorf lexicons, entity lists) and records what
//! loaded; `process` turns one text into the response item
//! `{"text": {...}, "service_facts": [...], "texta_facts": [...]}`. The engine is Send + Sync:
//! share one instance across request threads. A text that needs data which did not load (the
//! language profiles, its language's analyser, the entity lists) is refused with a message
//! naming the missing files: missing data is never answered with a guess. A text whose
//! analysis fails with the data present gets the fallback of mlp.md §7 (tokens as lemmas, `X`
//! tags, regex facts) instead of failing the request.
//! The engine's `language` module connects it to the `Engine` (shared instance, request
//! validation, health).

mod english;
mod entities;
mod estonian;
mod facts;
mod html;
pub use self::html::normalize as normalize_html;
mod langdetect;
pub mod ner;
mod refiner;
pub use refiner::{TrainOptions, PRUNE_BELOW};
mod russian;
mod tokenize;

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use self::english::English;
use self::entities::EntityMapper;
use self::estonian::Estonian;
use self::facts::{Doc, Fact, FactExtractor};
use self::langdetect::LangDetector;
use self::ner::{Entity, Recognizer};
pub use self::russian::RuPos;
use self::russian::Russian;
use self::tokenize::Tokenizer;

/// The languages with a full pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    Et,
    En,
    Ru,
}

impl Lang {
    /// The language's English name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Et => "Estonian",
            Lang::En => "English",
            Lang::Ru => "Russian",
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Lang::Et => "et",
            Lang::En => "en",
            Lang::Ru => "ru",
        }
    }

    pub fn from_code(code: &str) -> Option<Lang> {
        match code {
            "et" => Some(Lang::Et),
            "en" => Some(Lang::En),
            "ru" => Some(Lang::Ru),
            _ => None,
        }
    }
}

/// Engine settings (the CLI face fills them from `TA_MLP_LANGUAGES`,
/// `TA_MLP_DEFAULT_LANGUAGE`, `TA_MLP_RU_POS` and `TA_MLP_ET_INSTANCES`).
#[derive(Debug, Clone)]
pub struct MlpConfig {
    pub languages: Vec<Lang>,
    pub default_language: Lang,
    pub ru_pos: RuPos,
    /// Most Vabamorf instances Estonian analysis opens (each about 29 MB); 0: one per core.
    pub et_instances: usize,
    /// Reported as `status.version`.
    pub version: String,
}

impl Default for MlpConfig {
    fn default() -> Self {
        MlpConfig {
            languages: vec![Lang::Et, Lang::En, Lang::Ru],
            default_language: Lang::Et,
            ru_pos: RuPos::Upos,
            et_instances: 0,
            version: "0.1.0".into(),
        }
    }
}

/// The analyzers of one request (texta-mlp 1.4's eight; `all` = every one).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Analyzers {
    pub lemmas: bool,
    pub pos_tags: bool,
    pub transliteration: bool,
    pub ner: bool,
    pub contacts: bool,
    pub entities: bool,
    pub namemail: bool,
    pub bounded: bool,
    /// `ner` was asked for by name (not through `all`): a text whose language has no
    /// named-entity model is refused instead of answered without entities.
    pub ner_required: bool,
}

impl Analyzers {
    pub const NAMES: [&'static str; 8] = [
        "lemmas",
        "pos_tags",
        "transliteration",
        "ner",
        "contacts",
        "entities",
        "namemail",
        "bounded",
    ];

    pub fn all() -> Analyzers {
        Analyzers {
            lemmas: true,
            pos_tags: true,
            transliteration: true,
            ner: true,
            contacts: true,
            entities: true,
            namemail: true,
            bounded: true,
            ner_required: false,
        }
    }

    /// Parses analyzer names; `Err` carries the first value that is not a valid choice.
    pub fn parse(names: &[String]) -> Result<Analyzers, String> {
        let mut a = Analyzers::default();
        for name in names {
            match name.as_str() {
                "all" => {
                    a = Analyzers {
                        ner_required: a.ner_required,
                        ..Analyzers::all()
                    }
                }
                "lemmas" => a.lemmas = true,
                "pos_tags" => a.pos_tags = true,
                "transliteration" => a.transliteration = true,
                "ner" => (a.ner, a.ner_required) = (true, true),
                "contacts" => a.contacts = true,
                "entities" => a.entities = true,
                "namemail" => a.namemail = true,
                "bounded" => a.bounded = true,
                other => return Err(other.to_string()),
            }
        }
        Ok(a)
    }

    fn needs_pipeline(&self) -> bool {
        self.lemmas || self.pos_tags || self.bounded
    }
}

/// A resource as loaded: the value, or what failed (file and reason).
type Loaded<T> = Result<T, String>;

/// Per-language analysers; a language that is not configured is `Err` too, but never asked for.
struct Pipelines {
    english: Loaded<English>,
    estonian: Loaded<Estonian>,
    russian: Loaded<Russian>,
}

/// The loaded engine; see the module doc.
pub struct MlpEngine {
    cfg: MlpConfig,
    data_dir: PathBuf,
    /// `Ok(None)` when one language is configured (nothing to detect).
    detector: Loaded<Option<LangDetector>>,
    pipelines: Pipelines,
    tokenizer: Tokenizer,
    facts: FactExtractor,
    entity_mapper: Loaded<EntityMapper>,
    entity_files: Vec<String>,
    /// Each configured language's named-entity recognizer.
    recognizers: Vec<(Lang, ner::Loaded)>,
    /// Entity texts never made facts (`mlp/not_entities.txt`, lower-cased; ner.md §4).
    not_entities: HashSet<String>,
    errors: Vec<String>,
}

/// Words, lemmas and tags of one analysed text.
struct Analysis {
    lang: Lang,
    words: Vec<String>,
    lemmas: Vec<String>,
    tags: Vec<String>,
    entities: Vec<Entity>,
}

fn record<T>(result: Loaded<T>, errors: &mut Vec<String>) -> Loaded<T> {
    if let Err(e) = &result {
        errors.push(e.clone());
    }
    result
}

/// Loads one language's analyser when the language is configured.
fn load_language<T>(cfg: &MlpConfig, lang: Lang, errors: &mut Vec<String>, load: impl FnOnce() -> Loaded<T>) -> Loaded<T> {
    if cfg.languages.contains(&lang) {
        record(load(), errors)
    } else {
        Err(format!("{} is not among the configured languages (TA_MLP_LANGUAGES)", lang.code()))
    }
}

/// The refusal of a text that needs `what`, whose data failed to load with `error`.
fn missing(what: &str, error: &str) -> String {
    format!("language data missing for {what}: {error}; {INSTALL_HINT}")
}

/// How to get the language data, said wherever it is missing.
pub const INSTALL_HINT: &str = "install it with scripts/setup.sh, or set TA_MLP_DATA to a directory holding mlp/";

impl MlpEngine {
    /// Loads everything under `<data_dir>/mlp/`; never panics. Failures are kept and shown by
    /// `load_errors` / `alive`; what did load still serves the texts that need only it.
    pub fn load(data_dir: &Path, cfg: MlpConfig) -> MlpEngine {
        let dir = data_dir.join("mlp");
        let mut errors = Vec::new();
        let detector = match cfg.languages.len() {
            1 => Ok(None),
            _ => record(LangDetector::load(&dir.join("lang/profiles.json")).map(Some), &mut errors),
        };
        let pipelines = Pipelines {
            english: load_language(&cfg, Lang::En, &mut errors, || English::load(&dir.join("en"))),
            estonian: load_language(&cfg, Lang::Et, &mut errors, || Estonian::load(&dir.join("et"), cfg.et_instances)),
            russian: load_language(&cfg, Lang::Ru, &mut errors, || Russian::load(&dir.join("ru"), cfg.ru_pos)),
        };
        let (entity_mapper, entity_files) = match record(EntityMapper::load(&dir.join("entity_mapper")), &mut errors) {
            Ok((mapper, files)) => {
                let files = files
                    .iter()
                    .map(|f| f.strip_prefix(data_dir).unwrap_or(f).to_string_lossy().into_owned())
                    .collect();
                (Ok(mapper), files)
            }
            Err(e) => (Err(e), Vec::new()),
        };
        let recognizers = cfg
            .languages
            .iter()
            .map(|&lang| (lang, ner::load(lang, &dir.join(lang.code()).join("ner"))))
            .collect();
        let not_entities = std::fs::read_to_string(dir.join("not_entities.txt"))
            .map(|list| {
                list.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_lowercase)
                    .collect()
            })
            .unwrap_or_default();
        MlpEngine {
            cfg,
            data_dir: data_dir.to_path_buf(),
            detector,
            pipelines,
            tokenizer: Tokenizer::default(),
            facts: FactExtractor::default(),
            entity_mapper,
            entity_files,
            recognizers,
            not_entities,
            errors,
        }
    }

    /// What loaded only in part without stopping any text: the languages whose named-entity
    /// model files are missing (their texts get no entity facts unless `ner` is asked for by
    /// name, which is refused).
    pub fn load_warnings(&self) -> Vec<String> {
        self.recognizers
            .iter()
            .filter_map(|(lang, r)| {
                r.as_ref()
                    .err()
                    .map(|e| format!("no named entities for {} ({}): {e}", lang.name(), lang.code()))
            })
            .collect()
    }

    /// The recognizer of `lang`, or why there is none.
    fn recognizer(&self, lang: Lang) -> Result<&dyn Recognizer, String> {
        let what = || format!("{} named entities ({})", lang.name(), lang.code());
        match self.recognizers.iter().find(|(l, _)| *l == lang).map(|(_, r)| r) {
            Some(Ok(r)) => Ok(r.as_ref()),
            Some(Err(e)) => Err(missing(&what(), e)),
            None => Err(missing(&what(), "not among the configured languages (TA_MLP_LANGUAGES)")),
        }
    }

    /// True when every configured language's resources and the profiles loaded.
    pub fn alive(&self) -> bool {
        self.errors.is_empty()
    }

    /// What failed to load (file and reason), for logs and start-up messages.
    pub fn load_errors(&self) -> &[String] {
        &self.errors
    }

    /// The data directory the engine was loaded from.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The `/health` `mlp.status` object.
    pub fn status(&self) -> Value {
        json!({"loaded entities": self.entity_files, "service": "ta-mlp", "version": self.cfg.version})
    }

    /// One response item for an already trimmed text, or, when the text needs data that did
    /// not load, the refusal naming it.
    pub fn process(&self, text: &str, analyzers: &Analyzers) -> Result<Value, String> {
        let normalized = html::normalize(text);
        let lang = self.detect_checked(&normalized)?;
        self.check_ready(lang, analyzers)?;
        let analysis = catch_unwind(AssertUnwindSafe(|| self.analyze(&normalized, lang, analyzers)))
            .unwrap_or_else(|_| self.fallback(&normalized, lang));
        let joined = analysis.words.join(" ");
        let facts = catch_unwind(AssertUnwindSafe(|| self.extract_facts(&joined, &analysis, analyzers))).unwrap_or_default();
        Ok(respond(&joined, &analysis, analyzers, &facts))
    }

    /// The language of `text` (mlp.md §2.5, with the departures in the README): see
    /// [`decide_language`]. Without the language profiles every text gets the default
    /// language: callers check [`MlpEngine::alive`] first, or use `process`, which refuses.
    pub fn detect(&self, text: &str) -> Lang {
        self.detect_checked(text).unwrap_or(self.cfg.default_language)
    }

    /// The most probable language of `text` among all the detector's profiles (an ISO 639-1
    /// code, not only the configured languages; `/mlp/detect_lang/`, `lang_index`), or None
    /// when it finds none; `Err` when the profiles did not load.
    pub fn detect_any(&self, text: &str) -> Result<Option<String>, String> {
        match &self.detector {
            Ok(None) => Ok(Some(self.cfg.languages[0].code().to_string())),
            Ok(Some(detector)) => Ok(detector.ranked(&html::normalize(text)).first().map(|(code, _)| code.to_string())),
            Err(e) => Err(missing("language detection", e)),
        }
    }

    fn detect_checked(&self, text: &str) -> Result<Lang, String> {
        match &self.detector {
            Ok(None) => Ok(self.cfg.languages[0]),
            Ok(Some(detector)) => Ok(decide_language(
                &detector.ranked(text),
                text,
                &self.cfg.languages,
                self.cfg.default_language,
            )),
            Err(e) => Err(missing("language detection", e)),
        }
    }

    /// `Err` naming what `analyzers` need for a text in `lang` and did not load.
    fn check_ready(&self, lang: Lang, analyzers: &Analyzers) -> Result<(), String> {
        if analyzers.needs_pipeline() {
            let p = &self.pipelines;
            let loaded = match lang {
                Lang::En => p.english.as_ref().map(drop),
                Lang::Et => p.estonian.as_ref().map(drop),
                Lang::Ru => p.russian.as_ref().map(drop),
            };
            loaded.map_err(|e| missing(&format!("{} analysis ({})", lang.name(), lang.code()), e))?;
        }
        if analyzers.entities {
            self.entity_mapper.as_ref().map_err(|e| missing("the entities analyzer", e))?;
        }
        if analyzers.ner_required {
            self.recognizer(lang)?;
        }
        Ok(())
    }

    fn analyze(&self, text: &str, lang: Lang, analyzers: &Analyzers) -> Analysis {
        let sentences = self.tokenizer.tokenize(text, lang);
        let words: Vec<Vec<&str>> = sentences.iter().map(|s| s.iter().map(|t| t.text.as_str()).collect()).collect();
        let flat: Vec<String> = words.iter().flatten().map(|w| w.to_string()).collect();
        let pairs = if analyzers.needs_pipeline() {
            self.run_pipeline(lang, &words)
        } else {
            None
        };
        let (lemmas, tags) = match pairs.filter(|p| p.len() == flat.len()) {
            Some(p) => p.into_iter().map(|(l, t)| (clean_lemma(&l), clean_tag(&t))).unzip(),
            None => (flat.clone(), vec!["X".to_string(); flat.len()]),
        };
        // ner.md §3: the model runs for `ner` and for `contacts` (addresses)
        let entities = match self.recognizer(lang) {
            Ok(r) if analyzers.ner || analyzers.contacts => r.entities(&words),
            _ => Vec::new(),
        };
        Analysis {
            lang,
            words: flat,
            lemmas,
            tags,
            entities,
        }
    }

    fn run_pipeline(&self, lang: Lang, words: &[Vec<&str>]) -> Option<Vec<(String, String)>> {
        let p = &self.pipelines;
        match lang {
            Lang::En => p.english.as_ref().ok().map(|e| e.analyze(words)),
            Lang::Et => p.estonian.as_ref().ok().map(|e| e.analyze(words)),
            Lang::Ru => p.russian.as_ref().ok().map(|r| r.analyze(words)),
        }
    }

    /// mlp.md §7: tokens as lemmas, `X` tags (whitespace split if even tokenizing failed).
    fn fallback(&self, text: &str, lang: Lang) -> Analysis {
        let words: Vec<String> = text.split_whitespace().map(String::from).collect();
        Analysis {
            lang,
            lemmas: words.clone(),
            tags: vec!["X".into(); words.len()],
            words,
            entities: Vec::new(),
        }
    }

    fn extract_facts(&self, joined: &str, analysis: &Analysis, analyzers: &Analyzers) -> Vec<Fact> {
        let doc = Doc::new(joined, &analysis.words, &analysis.lemmas);
        let mut found = Vec::new();
        if analyzers.ner {
            found.extend(ner::facts::entity_facts(&doc, &analysis.entities, &self.not_entities));
        }
        if analyzers.contacts {
            found.extend(self.facts.emails(&doc));
            found.extend(self.facts.phones(&doc));
            found.extend(ner::facts::address_facts(&doc, &analysis.entities, analysis.lang));
        }
        if let (true, Ok(mapper)) = (analyzers.entities, &self.entity_mapper) {
            found.extend(self.facts.entities(&doc, mapper));
        }
        if analyzers.namemail {
            found.extend(self.facts.namemails(&doc));
        }
        if analyzers.bounded {
            let bounded = self.facts.bounded(&doc, &mut found);
            found.extend(bounded);
        }
        facts::finish(found)
    }

    /// Language analysis only (for benchmarks): tokens with lemma and tag, per sentence.
    pub fn analyze_tokens(&self, sentences: &[Vec<&str>], lang: Lang) -> Option<Vec<(String, String)>> {
        self.run_pipeline(lang, sentences)
            .map(|pairs| pairs.into_iter().map(|(l, t)| (clean_lemma(&l), clean_tag(&t))).collect())
    }

    /// Whether the Russian dictionary has `word` (`None` when Russian is not loaded); words
    /// it lacks are analysed by the suffix guesser.
    pub fn russian_knows(&self, word: &str) -> Option<bool> {
        self.pipelines.russian.as_ref().ok().map(|r| r.knows(word))
    }

    /// Trains the English tag refiner from silver sentences with the port in `en/` of
    /// `data_dir`; the file's bytes (`ta mlp train-en`).
    pub fn train_english_refiner(
        data_dir: &Path,
        silver: &Path,
        opts: TrainOptions,
        progress: impl FnMut(usize, f64),
    ) -> Result<Vec<u8>, String> {
        refiner::train_from_file(&data_dir.join("mlp/en"), silver, opts, progress).map(|r| r.to_bytes())
    }

    /// Raw textblob-aptagger PTB tags (for the WSJ fidelity benchmark).
    pub fn english_raw_tags(&self, sentences: &[Vec<&str>]) -> Option<Vec<String>> {
        self.pipelines.english.as_ref().ok().map(|e| e.tag_raw(sentences))
    }

    /// Tokenized text of `text` in `lang`, sentence by sentence.
    pub fn tokenize(&self, text: &str, lang: Lang) -> Vec<Vec<String>> {
        let normalized = html::normalize(text);
        self.tokenizer
            .tokenize(&normalized, lang)
            .into_iter()
            .map(|s| s.into_iter().map(|t| t.text).collect())
            .collect()
    }
}

/// The first language of langdetect's ranking (`(code, probability)`, most probable first)
/// that is among `configured`.
pub fn choose_language(ranked: &[(&str, f64)], configured: &[Lang]) -> Option<Lang> {
    ranked
        .iter()
        .filter_map(|(code, _)| Lang::from_code(code))
        .find(|l| configured.contains(l))
}

/// The language ta analyses `text` as, from langdetect's ranking (`detect_langs`):
/// 1. the most probable configured language it reports (probability above 0.1); when its
///    top answer is configured, that answer, as in texta-mlp 1.4;
/// 2. else, for a text written mostly in Cyrillic letters, `ru` when configured (langdetect
///    calls short Russian menu texts `bg` or `mk`; the default language is Latin-script);
/// 3. else the default.
pub fn decide_language(ranked: &[(&str, f64)], text: &str, configured: &[Lang], default: Lang) -> Lang {
    if let Some(lang) = choose_language(ranked, configured) {
        return lang;
    }
    let letters = text.chars().filter(|c| c.is_alphabetic());
    let (cyrillic, all) = letters.fold((0usize, 0usize), |(c, n), ch| {
        (c + ('\u{400}'..='\u{4ff}').contains(&ch) as usize, n + 1)
    });
    if configured.contains(&Lang::Ru) && cyrillic * 2 > all {
        return Lang::Ru;
    }
    default
}

/// mlp.md §2.3: `_`/`=` removed from lemmas longer than 2 characters; no whitespace; empty → `X`.
fn clean_lemma(lemma: &str) -> String {
    let lemma: String = lemma.chars().filter(|c| !c.is_whitespace()).collect();
    let lemma = if lemma.chars().count() > 2 {
        lemma.replace(['_', '='], "")
    } else {
        lemma
    };
    if lemma.is_empty() {
        "X".into()
    } else {
        lemma
    }
}

/// mlp.md §2.4: a missing tag or `_` becomes `X`.
fn clean_tag(tag: &str) -> String {
    let tag: String = tag.chars().filter(|c| !c.is_whitespace()).collect();
    if tag.is_empty() || tag == "_" {
        "X".into()
    } else {
        tag
    }
}

fn respond(joined: &str, analysis: &Analysis, analyzers: &Analyzers, facts: &[Fact]) -> Value {
    let mut text = serde_json::Map::new();
    text.insert("text".into(), json!(joined));
    text.insert("lang".into(), json!(analysis.lang.code()));
    if analyzers.lemmas {
        text.insert("lemmas".into(), json!(analysis.lemmas.join(" ")));
    }
    if analyzers.pos_tags {
        text.insert("pos_tags".into(), json!(analysis.tags.join(" ")));
    }
    let facts: Vec<Value> = facts.iter().map(Fact::to_json).collect();
    json!({"text": Value::Object(text), "service_facts": facts, "texta_facts": facts})
}

/// SplitMix64: a small fixed-seed generator for seeded shuffles (the refiner's training order,
/// `ta mlp bench`'s samples).
pub struct SplitMix(pub u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests;
