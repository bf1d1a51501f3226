//! Golden tests (mlp.md §3, §11 A6) and invariants (§2.1).
//!
//! Data-dependent tests use `$TA_MLP_DATA` (the directory holding `mlp/`) and then require
//! every resource to load; without it they use the default data directory, where
//! scripts/setup.sh installs the data, when it has `mlp/`, and are skipped otherwise.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::{json, Value};

use super::*;

pub(crate) fn data_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("TA_MLP_DATA") {
        return Some(PathBuf::from(dir));
    }
    // ta's default data directory, where scripts/setup.sh installs the data
    let default = dirs::data_dir()?.join("ta");
    default.join("mlp").is_dir().then_some(default)
}

/// Says that the calling test is skipped when `engine` is `None` (no language data).
pub(crate) fn or_skip<T>(engine: Option<T>) -> Option<T> {
    if engine.is_none() {
        println!("skipped: no language data (run scripts/setup.sh or set TA_MLP_DATA)");
    }
    engine
}

/// The fully loaded engine, or `None` (test skipped) when no data is available.
fn engine() -> Option<&'static MlpEngine> {
    static ENGINE: OnceLock<Option<MlpEngine>> = OnceLock::new();
    or_skip(
        ENGINE
            .get_or_init(|| {
                let dir = data_dir()?;
                let engine = MlpEngine::load(&dir, MlpConfig::default());
                assert!(
                    engine.alive() && engine.load_warnings().is_empty(),
                    "MLP data in {} incomplete: {:?} {:?}",
                    dir.display(),
                    engine.load_errors(),
                    engine.load_warnings()
                );
                Some(engine)
            })
            .as_ref(),
    )
}

/// A Russian-only engine (detection skipped, mlp.md §10.1): langdetect 1.0.9 with seed 0
/// calls the §3.3 phone example `mk`, so the default configuration would analyse it as `et`.
fn russian_engine() -> Option<MlpEngine> {
    let dir = or_skip(data_dir())?;
    let cfg = MlpConfig {
        languages: vec![Lang::Ru],
        default_language: Lang::Ru,
        ..MlpConfig::default()
    };
    Some(MlpEngine::load(&dir, cfg))
}

/// An engine without data configured for Estonian alone (nothing to detect): tokenization
/// and the regex facts of [`dataless`] analyzers.
fn bare_engine() -> &'static MlpEngine {
    static ENGINE: OnceLock<MlpEngine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let cfg = MlpConfig {
            languages: vec![Lang::Et],
            ..MlpConfig::default()
        };
        MlpEngine::load(std::path::Path::new("/nonexistent"), cfg)
    })
}

/// The analyzers that read no data files.
fn dataless() -> Analyzers {
    Analyzers {
        contacts: true,
        namemail: true,
        transliteration: true,
        ner: true,
        ..Analyzers::default()
    }
}

fn all() -> Analyzers {
    Analyzers::all()
}

fn run(engine: &MlpEngine, text: &str) -> Value {
    engine.process(text, &all()).unwrap()
}

/// `text` through the loaded engine with every analyzer, or without data through the bare one.
fn run_any(text: &str) -> Value {
    match engine() {
        Some(e) => run(e, text),
        None => bare_engine().process(text, &dataless()).unwrap(),
    }
}

#[test]
fn analyzers_parse() {
    assert_eq!(Analyzers::parse(&["all".into()]), Ok(Analyzers::all()));
    let a = Analyzers::parse(&["lemmas".into(), "contacts".into()]).unwrap();
    assert!(a.lemmas && a.contacts && !a.pos_tags);
    assert_eq!(Analyzers::parse(&["lang".into()]), Err("lang".into()));
    assert_eq!(Analyzers::parse(&["sentences".into()]), Err("sentences".into()));
}

#[test]
fn missing_data_is_refused_naming_it() {
    let e = MlpEngine::load(std::path::Path::new("/nonexistent"), MlpConfig::default());
    assert!(!e.alive());
    assert!(e.load_errors().iter().any(|m| m.contains("profiles.json")));
    for analyzers in [all(), dataless()] {
        let refusal = e.process("The council postponed the vote.", &analyzers).unwrap_err();
        assert!(refusal.starts_with("language data missing for language detection: "), "{refusal}");
        assert!(refusal.contains("/nonexistent/mlp/lang/profiles.json"), "{refusal}");
        assert!(refusal.ends_with(INSTALL_HINT), "{refusal}");
    }
    // one configured language needs no detection; what the analyzers need is still checked
    let e = bare_engine();
    let refusal = e.process("Tere", &all()).unwrap_err();
    assert!(
        refusal.starts_with("language data missing for Estonian analysis (et): "),
        "{refusal}"
    );
    let out = e.process("Please write to info@example.com for details.", &dataless()).unwrap();
    assert_eq!(out["text"]["text"], "Please write to info@example.com for details .");
    assert_eq!(out["text"]["lang"], "et");
    assert_eq!(out["service_facts"][0]["str_val"], "info@example.com");
    assert_eq!(e.status(), json!({"loaded entities": [], "service": "ta-mlp", "version": "0.1.0"}));
}

/// Without a language's named-entity model, `ner` asked for by name is refused; through `all`
/// (or with other analyzers) the text is answered without entity facts.
#[test]
fn named_entities_without_their_model() {
    let e = bare_engine();
    let text = "Mari Tamm kolis Tallinnast Tartusse.";
    let named = Analyzers::parse(&["ner".into()]).unwrap();
    assert!(named.ner_required && !Analyzers::all().ner_required);
    assert!(Analyzers::parse(&["ner".into(), "all".into()]).unwrap().ner_required);
    let refusal = e.process(text, &named).unwrap_err();
    assert!(
        refusal.starts_with("language data missing for Estonian named entities (et): /nonexistent/mlp/et/ner/"),
        "{refusal}"
    );
    assert!(refusal.ends_with(INSTALL_HINT), "{refusal}");
    let out = e.process(text, &dataless()).unwrap();
    assert_eq!(out["texta_facts"], json!([]));
    let warnings = e.load_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("no named entities for Estonian (et): /nonexistent/mlp/et/ner/"),
        "{warnings:?}"
    );
}

/// A partial install (the Russian dictionary missing) refuses Russian texts only.
#[test]
fn a_missing_language_is_refused_alone() {
    let Some(dir) = or_skip(data_dir()) else { return };
    let partial = std::env::temp_dir().join(format!("ta-mlp-partial-{}", std::process::id()));
    std::fs::create_dir_all(partial.join("mlp")).unwrap();
    for part in ["lang", "en", "et", "entity_mapper"] {
        let link = partial.join("mlp").join(part);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(dir.join("mlp").join(part), link).unwrap();
    }
    let e = MlpEngine::load(&partial, MlpConfig::default());
    assert!(!e.alive());
    let english = e.process("The council postponed the vote on the new bridge.", &all()).unwrap();
    assert_eq!(english["text"]["lang"], "en");
    assert_eq!(english["text"]["pos_tags"], "DT NN VBD DT NN IN DT JJ NN .");
    let refusal = e.process("Лукашенко заявил о договоренности Москвы и Минска.", &all()).unwrap_err();
    assert!(
        refusal.starts_with("language data missing for Russian analysis (ru): "),
        "{refusal}"
    );
    assert!(refusal.contains("mlp/ru"), "{refusal}");
    std::fs::remove_dir_all(&partial).unwrap();
}

#[test]
fn empty_after_html_strip() {
    let Some(e) = engine() else { return };
    let out = run(e, "<br>");
    assert_eq!(
        out,
        json!({"text": {"text": "", "lang": "et", "lemmas": "", "pos_tags": ""}, "service_facts": [], "texta_facts": []})
    );
}

#[test]
fn golden_english() {
    let Some(e) = engine() else { return };
    let out = run(e, "Test sencences are rather difficult to come up with.");
    assert_eq!(out["text"]["text"], "Test sencences are rather difficult to come up with .");
    assert_eq!(out["text"]["lang"], "en");
    assert_eq!(out["text"]["pos_tags"], "NN NNS VBP RB JJ TO VB RB IN .");
    assert_eq!(out["texta_facts"], json!([]));
    let out = run(e, "Please write to info@example.com for details.");
    assert_eq!(out["text"]["text"], "Please write to info@example.com for details .");
    assert_eq!(
        out["service_facts"],
        json!([{"fact": "EMAIL", "str_val": "info@example.com", "spans": "[[16, 32]]", "doc_path": "text.text", "lemma": null}])
    );
    assert_eq!(out["texta_facts"], out["service_facts"]);
}

#[test]
fn golden_estonian() {
    let Some(e) = engine() else { return };
    let out = run(e, "Selle eestikeelse lausega võiks midagi ehk öelda.");
    assert_eq!(
        out["text"],
        json!({"text": "Selle eestikeelse lausega võiks midagi ehk öelda .", "lang": "et",
               "lemmas": "see eestikeelne lause võima miski ehk ütlema .", "pos_tags": "P A S V P D V Z"})
    );
    let out = run(e, "Helista numbril 5123 4567.");
    assert_eq!(out["text"]["text"], "Helista numbril 5123 4567 .");
    assert_eq!(
        out["service_facts"],
        json!([{"fact": "PHONE", "str_val": "51234567", "spans": "[[16, 25]]", "doc_path": "text.text", "lemma": null}])
    );
}

#[test]
fn golden_russian() {
    let Some(e) = engine() else { return };
    let out = run(e, "Лукашенко заявил о договоренности Москвы и Минска по нефти.");
    assert_eq!(out["text"]["text"], "Лукашенко заявил о договоренности Москвы и Минска по нефти .");
    assert_eq!(out["text"]["lang"], "ru");
    assert_eq!(
        out["text"]["lemmas"],
        "лукашенко заявить о договоренность москва и минск по нефть ."
    );
    assert_eq!(out["text"]["pos_tags"], "PROPN VERB ADP NOUN PROPN CCONJ PROPN ADP NOUN PUNCT");
    let ru = russian_engine().expect("data present");
    let out = run(&ru, "Звоните по телефону +7 495 123-45-67.");
    assert_eq!(out["text"]["lemmas"], "звонить по телефон +7 495 123-45-67 .");
    assert_eq!(out["text"]["pos_tags"], "VERB ADP NOUN NUM NUM NUM PUNCT");
    assert_eq!(out["text"]["text"], "Звоните по телефону +7 495 123-45-67 .");
    assert_eq!(
        out["service_facts"],
        json!([{"fact": "PHONE", "str_val": "74951234567", "spans": "[[20, 36]]", "doc_path": "text.text", "lemma": null}])
    );
}

#[test]
fn golden_bounded() {
    let Some(e) = engine() else { return };
    let out = run(e, "Kirjuta Mari Tamm mari.tamm@example.ee");
    let kinds: Vec<&str> = out["texta_facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fact"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["BOUNDED", "PER", "NAMEMAIL", "EMAIL"]);
    assert_eq!(
        out["texta_facts"][0]["str_val"],
        "{'PER': ['Mari Tamm'], 'EMAIL': ['mari.tamm@example.ee']}"
    );
    assert_eq!(out["texta_facts"][0]["spans"], "[[8, 17], [18, 38]]");
}

#[test]
fn fallback_language_for_featureless_text() {
    let Some(e) = engine() else { return };
    for text in ["12345", "!!!"] {
        assert_eq!(run(e, text)["text"]["lang"], "et");
    }
}

#[test]
fn configured_runner_up_wins_over_default() {
    let configured = [Lang::Et, Lang::En, Lang::Ru];
    assert_eq!(choose_language(&[("bg", 0.6), ("ru", 0.4)], &configured), Some(Lang::Ru));
    assert_eq!(choose_language(&[("en", 0.9), ("et", 0.1)], &configured), Some(Lang::En));
    assert_eq!(choose_language(&[("ar", 0.99)], &configured), None);
    assert_eq!(choose_language(&[("bg", 0.6), ("ru", 0.4)], &[Lang::Et, Lang::En]), None);
    let decide = |ranked: &[(&str, f64)], text: &str| decide_language(ranked, text, &configured, Lang::Et);
    assert_eq!(decide(&[("mk", 0.99)], "Нажмите кнопку Формат."), Lang::Ru);
    assert_eq!(decide(&[("de", 0.99)], "Wählen Sie Format"), Lang::Et);
    assert_eq!(decide(&[], "12345"), Lang::Et);
    assert_eq!(
        decide_language(&[("mk", 0.99)], "Нажмите", &[Lang::Et, Lang::En], Lang::En),
        Lang::En
    );
    let Some(e) = engine() else { return };
    // langdetect's top answers: bg (with ru as runner-up), mk (alone), ar (the default)
    assert_eq!(e.detect("Выберите Сервис - Автозамена."), Lang::Ru);
    assert_eq!(e.detect("По завершении нажмите клавишу ESC."), Lang::Ru);
    assert_eq!(e.detect("مرحبا بالعالم، هذا نص عربي قصير للاختبار"), Lang::Et);
}

#[test]
fn russian_unknown_words_are_guessed() {
    let Some(e) = engine() else { return };
    let words = ["автозамены", "HTML-документах", "лист2", "смартфонами"];
    assert_eq!(e.russian_knows("автозамены"), Some(false));
    let out = e.analyze_tokens(&[words.to_vec()], Lang::Ru).unwrap();
    let lemmas: Vec<&str> = out.iter().map(|(l, _)| l.as_str()).collect();
    let tags: Vec<&str> = out.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(lemmas, ["автозамена", "html-документ", "лист2", "смартфон"]);
    assert_eq!(tags, ["NOUN", "NOUN", "X", "NOUN"]);
}

/// `n` Estonian texts: ordered pairs of help-style and everyday sentences, so that the
/// disambiguator sees each sentence in varied company.
fn estonian_texts(n: usize) -> Vec<String> {
    const BASE: &[&str] = &[
        "Selle eestikeelse lausega võiks midagi ehk öelda.",
        "Valige Tööriistad - Automaatkorrektuur ja klõpsake sakil Asendus.",
        "Kui lahter on tühi, jätab funktsioon selle arvutamisel vahele.",
        "Dokumendi salvestamiseks vajutage klahvikombinatsiooni Ctrl+S.",
        "Tabeli read ja veerud saab peita või uuesti nähtavaks teha.",
        "Mari läks eile poodi ja ostis leiba, piima ning kolm õuna.",
        "Kas sa tuled homme meile õhtusöögile?",
        "Ilm oli nii ilus, et otsustasime minna mere äärde jalutama.",
        "Kõik muudatused salvestatakse automaatselt iga kümne minuti järel.",
        "Pildi suuruse muutmiseks lohistage selle nurgas olevat käepidet.",
        "Vali loendist sobiv keel ning kinnita valik nupuga Sobib.",
        "Tallinna vanalinn on kantud UNESCO maailmapärandi nimekirja.",
        "Ta ei teadnud, kas peaks naerma või nutma.",
        "Lõpuks jõudsid nad pärast pikka teekonda koju.",
        "Teksti vormindamiseks kasutage vormindusriba nuppe.",
        "See valem arvutab kahe kuupäeva vahelise päevade arvu.",
        "Lapsed mängisid õues, kuni hakkas sadama.",
        "Andmebaasi tabelisse lisatakse uus kirje.",
        "Esitluse slaidide vahetamiseks klõpsake hiirega.",
        "Eesti Vabariigi president pidas vabariigi aastapäeval kõne.",
        "Printeri sätete muutmiseks avage dialoog Printeri sätted.",
        "Kassid magavad päikese käes ja koerad hauguvad aia taga.",
        "Makrode salvestamine ei ole kõigis moodulites võimalik.",
        "Õpetaja palus õpilastel raamatud lahti teha leheküljelt kaksteist.",
        "Kui soovite kustutada mitu lahtrit korraga, valige need esmalt.",
        "Suvel sõidame vanaemale külla Saaremaale.",
        "Sõnaraamatu abil leiab tundmatutele sõnadele tähenduse.",
        "Diagrammi tüüpi saab hiljem muuta kontekstimenüü kaudu.",
        "Tema vend töötab Tartus arstina juba kümme aastat.",
        "Väljad võivad sisaldada teksti, numbreid või kuupäevi.",
        "Ära unusta enne lahkumist tuld kustutada!",
        "Otsi ja asenda dialoogis saab kasutada regulaaravaldisi.",
    ];
    let k = BASE.len();
    (0..n)
        .map(|i| format!("{} {}", BASE[i % k], BASE[(i / k + i * 7 + 3) % k]))
        .collect()
}

/// Separate Vabamorf instances share no mutable state (README, "Estonian concurrency"):
/// the same texts analysed one by one and then from several threads at once, over several
/// instances, give identical lemmas and tags.
#[test]
fn estonian_parallel_equals_sequential() {
    use rayon::prelude::*;
    let (Some(e), Some(dir)) = (engine(), data_dir()) else { return };
    let texts = estonian_texts(320);
    let tokens: Vec<Vec<Vec<String>>> = texts
        .iter()
        .map(|t| {
            e.tokenizer
                .tokenize(t, Lang::Et)
                .iter()
                .map(|s| s.iter().map(|tok| tok.text.clone()).collect())
                .collect()
        })
        .collect();
    let et = estonian::Estonian::load(&dir.join("mlp/et"), 4).unwrap();
    let analyse = |sentences: &Vec<Vec<String>>| {
        let words: Vec<Vec<&str>> = sentences.iter().map(|s| s.iter().map(String::as_str).collect()).collect();
        et.analyze(&words)
    };
    let sequential: Vec<_> = tokens.iter().map(analyse).collect();
    assert!(sequential.iter().flatten().all(|(_, tag)| tag != "X"), "unanalysed words");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    for _ in 0..3 {
        let parallel: Vec<_> = pool.install(|| tokens.par_iter().map(analyse).collect());
        assert_eq!(parallel, sequential);
    }
    assert!(et.instances() >= 2, "the parallel runs used one instance");
    // the engine's own pool, through `process`
    let sequential: Vec<Value> = texts.iter().map(|t| run(e, t)).collect();
    let parallel: Vec<Value> = pool.install(|| texts.par_iter().map(|t| run(e, t)).collect());
    assert_eq!(parallel, sequential);
}

/// Deterministic pseudo-random texts mixing scripts, HTML, emoji, numbers and contacts.
fn random_texts(n: usize) -> Vec<String> {
    const PIECES: &[&str] = &[
        "Tere",
        "maailm",
        "hello",
        "world",
        "don't",
        "Привет",
        "мир",
        "123-45-67",
        "+372 5123 4567",
        "info@example.com",
        "<b>",
        "</b>",
        "<br>",
        "&amp;",
        "&#128512;",
        "😀",
        "👍🏽",
        "...",
        "?!",
        "(",
        ")",
        "-",
        "—",
        "\n\n",
        "\n",
        "  ",
        "\t",
        "a < b",
        "<script>x</script>",
        "COVID-19",
        "17.25",
        "1,000",
        "Mr.",
        "т.е.",
        "nt.",
        "'s",
        "'",
        "\"",
        "_",
        "=",
        "e\u{301}",
        "\u{200b}",
        "ß",
        "İ",
        "x_y",
        "https://x.ee/a.",
        "Mari Tamm",
        "12.03.2020",
        "Date: 12 34 56",
        "ё",
        "Ёлка",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|_| {
            let len = (next() % 40) as usize;
            (0..len)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect::<Vec<_>>()
                .join(if next() % 3 == 0 { "" } else { " " })
        })
        .collect()
}

fn check_invariants(out: &Value) {
    let t = &out["text"];
    let text = t["text"].as_str().unwrap();
    // without language data only the dataless analyzers run: no lemmas or tags to check
    let (Some(lemmas), Some(tags)) = (t["lemmas"].as_str(), t["pos_tags"].as_str()) else {
        assert!(t.get("lemmas").is_none() && t.get("pos_tags").is_none(), "{out}");
        return check_facts(out, text);
    };
    let (w, l, p): (Vec<&str>, Vec<&str>, Vec<&str>) = (text.split(' ').collect(), lemmas.split(' ').collect(), tags.split(' ').collect());
    assert_eq!((w.len(), l.len()), (p.len(), p.len()), "lengths differ: {out}");
    if !text.is_empty() {
        for item in w.iter().chain(&l).chain(&p) {
            assert!(
                !item.is_empty() && !item.contains(char::is_whitespace),
                "bad item {item:?} in {out}"
            );
        }
    }
    check_facts(out, text);
}

/// Facts agree in both lists and their spans lie inside the text.
fn check_facts(out: &Value, text: &str) {
    let n = text.chars().count();
    assert_eq!(out["service_facts"], out["texta_facts"]);
    for f in out["texta_facts"].as_array().unwrap() {
        let spans: Vec<(usize, usize)> = serde_json::from_str(f["spans"].as_str().unwrap()).unwrap();
        assert!(spans.iter().all(|(s, e)| s < e && *e <= n), "span outside text: {f}");
        assert!(f.get("lemma").is_some());
    }
}

#[test]
fn invariants_on_random_texts() {
    for text in random_texts(1000) {
        check_invariants(&run_any(text.trim()));
    }
}

#[test]
fn invariants_on_long_text() {
    let text = random_texts(400).join(" ");
    let long: String = text.chars().cycle().take(100_000).collect();
    check_invariants(&run_any(long.trim()));
}
