//! Pipelines cut short: every command that streams its output ends quietly when its reader
//! goes away.
use crate::common::{self, ta};
use serde_json::json;

/// Every command that streams its output, cut short by its reader (`ta … | head -1`), ends
/// quietly: exit 0 or SIGPIPE (141 in a shell), nothing on stderr. Each has far more output
/// than a pipe holds, so it writes after the reader is gone.
#[test]
fn a_reader_that_goes_away_is_not_an_error() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let d = tempfile::tempdir().expect("temp dir");
    let data = d.path();
    let file = |name: &str, text: String| {
        let path = data.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let texts = [
        ("crime", "varas murdis korterisse sisse ja Mari Tamm helistas politseisse"),
        ("weather", "homme sajab vihma ja tuul on tugev"),
    ];
    let doc = |i: usize| {
        let (label, text) = texts[i % 2];
        json!({"text": format!("{text} {i}"), "label": label,
               "texta_facts": [{"fact": "TEEMA", "str_val": label, "spans": "[[0, 0]]", "doc_path": "text"}]})
    };
    let labelled = file("labelled.jsonl", (0..60).map(|i| format!("{}\n", doc(i))).collect());
    let news = file("news.jsonl", (0..3000).map(|i| format!("{}\n", doc(i))).collect());
    let input = file("input.jsonl", (0..20_000).map(|i| format!("{}\n", doc(i))).collect());
    let names = file("names.txt", "Tamm, Mari\n".into());
    let train = ["--project", "1", "--description", "d", "--field", "text", "--label-field", "label"];
    let setup: Vec<Vec<&str>> = vec![
        vec!["project", "create", "--title", "p"],
        vec!["import", "--project", "1", "--index", "news", "--description", "n", &news],
        vec![
            "regex-tagger",
            "create",
            "--project",
            "1",
            "--description",
            "t",
            "--lexicon",
            "varas",
        ],
        vec![
            "regex-tagger-group",
            "create",
            "--project",
            "1",
            "--description",
            "g",
            "--tagger",
            "1",
        ],
        vec!["anonymizer", "create", "--project", "1", "--description", "a"],
        [&["tagger", "train"][..], &train, &["--positive", "crime", "--file", &labelled]].concat(),
        [
            &["torchtagger", "train"][..],
            &train,
            &["--architecture", "fastText", "--epochs", "1", "--file", &labelled],
        ]
        .concat(),
        vec![
            "tagger-group",
            "create",
            "--project",
            "1",
            "--description",
            "g",
            "--fact",
            "TEEMA",
            "--field",
            "text",
            "--min-samples",
            "5",
        ],
        vec![
            "embedding",
            "create",
            "--project",
            "1",
            "--description",
            "e",
            "--field",
            "text",
            "--min-freq",
            "1",
            "--dims",
            "10",
        ],
    ];
    for args in &setup {
        ta(data, args).ok();
    }
    let mut streams: Vec<Vec<&str>> = vec![
        vec!["search", "--project", "1", "varas"],
        vec!["regex-tagger", "tag", "1", "--field", "text"],
        vec!["regex-tagger-group", "tag", "1", "--field", "text"],
        vec!["anonymizer", "run", "1", "--names", &names],
        vec!["tagger", "tag", "1"],
        vec!["torchtagger", "tag", "1"],
        vec!["tagger-group", "tag", "1", "--no-lemmatize", "--no-ner"],
        vec!["embedding", "sentences", "--field", "text", "--embedding", "1"],
        vec!["completions", "bash"],
        vec!["man"],
        vec!["api", "--list"],
    ];
    if std::env::var_os("TA_MLP_DATA").is_some() {
        streams.push(vec!["mlp", "--field", "text", "--analyzers", "contacts"]);
    } else {
        println!("skipped: `ta mlp` under a closed pipe needs language data (TA_MLP_DATA)");
    }
    for args in streams {
        let mut child = common::ta_command(data)
            .args(&args)
            .stdin(std::fs::File::open(&input).unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "{args:?} printed nothing");
        let out = child.wait_with_output().unwrap();
        let quiet = out.status.success() || out.status.signal() == Some(libc::SIGPIPE);
        assert!(quiet, "{args:?} ended with {:?}", out.status);
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
}
