#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/corpus/<target>/ from the test data: the conformance
cases (tests/conformance), the search tests' request bodies (crates/ta-search), the import
fixtures and the language-processing tests. Run from the repository root; deterministic, so
re-running it reproduces the committed seeds. Each file is in its target's input format (see
the comment at the top of fuzz/fuzz_targets/<target>.rs)."""

import glob
import hashlib
import json
import os
import re
import shutil

RS = "\x1e"  # section separator of the regex_tagger and anonymizer inputs
MAX_SEEDS = 48


def write(target, seeds):
    out = f"fuzz/corpus/{target}"
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    seen = set()
    for data in seeds:
        name = hashlib.sha1(data).hexdigest()[:16]
        if name in seen:
            continue
        seen.add(name)
        with open(f"{out}/{name}", "wb") as f:
            f.write(data)
        if len(seen) == MAX_SEEDS:
            break
    print(f"{target}: {len(seen)} seeds")


def jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def spread(items, key):
    """Distinct items by `key`, the most unusual (longest key) first."""
    by_key = {}
    for item in items:
        by_key.setdefault(key(item), item)
    return [by_key[k] for k in sorted(by_key, key=lambda k: (-len(k), k))]


def regex_tagger():
    cases = jsonl("tests/conformance/regex_tagger.jsonl")
    cases = [c for c in cases if "tagger" in c and isinstance(c.get("request", {}).get("text"), str)]
    seeds = []
    for c in spread(cases, lambda c: json.dumps([c["tagger"].get("lexicon"), c["tagger"].get("counter_lexicon")])):
        t = c["tagger"]
        match_type = {"prefix": 0, "exact": 1, "subword": 2}.get(t.get("match_type", "prefix"), 0)
        flags = (
            (t.get("operator") == "and")
            | match_type << 1
            | bool(t.get("return_fuzzy_match", True)) << 3
            | bool(t.get("ignore_case", True)) << 4
            | bool(t.get("ignore_punctuation", True)) << 5
            | (t.get("required_words", 1.0) < 1.0) << 6
        )
        counts = min(int(t.get("n_allowed_edits", 0)), 3) | min(int(t.get("phrase_slop", 0)), 7) << 2 | min(int(t.get("counter_slop", 0)), 7) << 5
        lexicon = "\n".join(str(x) for x in t.get("lexicon", []))
        counter = "\n".join(str(x) for x in t.get("counter_lexicon", []))
        body = RS.join([lexicon, counter, c["request"]["text"]])
        seeds.append(bytes([flags, counts]) + body.encode())
    write("regex_tagger", seeds)


def anonymizer():
    cases = [c for c in jsonl("tests/conformance/anonymizer.jsonl") if isinstance(c.get("request", {}).get("text"), str)]
    seeds = []
    for c in spread(cases, lambda c: json.dumps([c["request"].get("names"), c["request"]["text"]])):
        a = c["anonymizer"]
        threshold = {0.9: 0, 0.5: 1, 0.0: 2, 1.0: 3}.get(a.get("misspelling_threshold", 0.9), 0)
        flags = (
            bool(a.get("replace_misspelled_names", True))
            | bool(a.get("replace_single_last_names", True)) << 1
            | bool(a.get("replace_single_first_names", True)) << 2
            | bool(a.get("mimic_casing", True)) << 3
            | bool(a.get("auto_adjust_threshold", False)) << 4
            | threshold << 6
        )
        names = "\n".join(str(n) for n in c["request"].get("names", []))
        seeds.append(bytes([flags]) + (names + RS + c["request"]["text"]).encode())
    write("anonymizer", seeds)


def json_macros(path):
    """The `json!(...)` arguments of a Rust file that are plain JSON."""
    src = open(path, encoding="utf-8").read()
    found, i = [], 0
    while (j := src.find("json!(", i)) >= 0:
        k, depth = j + 6, 1
        while depth and k < len(src):
            depth += {"(": 1, ")": -1}.get(src[k], 0)
            k += 1
        i = k
        try:
            found.append(json.loads(src[j + 6 : k - 1]))
        except ValueError:
            pass
    return found


BODY_KEYS = {"query", "aggs", "aggregations", "sort", "size", "from", "_source", "highlight"}
CLAUSES = {
    "bool", "match", "match_all", "match_none", "match_phrase", "match_phrase_prefix", "multi_match", "term",
    "terms", "range", "exists", "prefix", "wildcard", "regexp", "fuzzy", "ids", "nested", "query_string",
    "simple_query_string", "constant_score", "dis_max", "more_like_this",
}


def search_dsl():
    bodies = [
        {"query": {"range": {"date": {"gte": "now-10y/y", "lt": "now+1d/d"}}}},
        {"query": {"range": {"date": {"gte": "2020-01-01||+1M/d", "lte": "2021-03-01||-1w", "format": "yyyy-MM-dd"}}}},
        {"query": {"range": {"n": {"gt": 2, "lte": 10}}}, "sort": [{"n": {"order": "desc", "missing": "_first"}}, "_score"]},
        {"size": 0, "aggs": {"per_month": {"date_histogram": {"field": "date", "calendar_interval": "month", "min_doc_count": 0}}}},
        {"size": 0, "aggs": {"facts": {"nested": {"path": "texta_facts"}, "aggs": {"f": {"terms": {"field": "texta_facts.fact"},
            "aggs": {"v": {"terms": {"field": "texta_facts.str_val"}, "aggs": {"back": {"reverse_nested": {}}}}}}}}}},
        {"size": 0, "aggs": {"all": {"global": {}, "aggs": {"n": {"avg": {"field": "n"}}}},
                             "f": {"filters": {"filters": {"a": {"match": {"text": "varas"}}}}}}},
        {"query": {"match": {"text": "varas"}}, "highlight": {"fields": {"text": {}}, "pre_tags": ["<b>"], "post_tags": ["</b>"]}},
        {"query": {"query_string": {"query": "text:(varas OR maja) AND n:[1 TO 6] -label:muu"}}, "_source": ["text", "a.*"]},
        {"query": {"more_like_this": {"fields": ["text"], "like": "Varas peeti kinni", "min_term_freq": 1, "min_doc_freq": 1}}},
        {"from": 2, "size": 1, "sort": [{"label": "asc"}, {"date": {"order": "asc"}}], "track_total_hits": True},
    ]
    for path in sorted(glob.glob("crates/ta-search/src/**/*.rs", recursive=True)):
        for v in json_macros(path):
            if isinstance(v, dict) and v and set(v) <= BODY_KEYS | {"track_total_hits", "search_after"}:
                bodies.append(v)
            elif isinstance(v, dict) and len(v) == 1 and next(iter(v)) in CLAUSES:
                bodies.append({"query": v})
    write("search_dsl", [json.dumps(b, ensure_ascii=False).encode() for b in spread(bodies, json.dumps)])


def import_files():
    seeds = [bytes([2]) + open("tests/fixtures/search_import.xlsx", "rb").read()]
    docs = [
        '{"text": "Varas peeti kinni.", "n": 5, "texta_facts": [{"fact": "PER", "str_val": "Mari", "spans": "[[0, 4]]"}]}',
        '{"a": {"b": [1, 2.5, null, true]}, "date": "2020-01-05T10:00:00Z"}',
        '{"text": "\\u00f5htu \\ud83d\\ude00", "_id": "x"}',
        "not json",
        "[1, 2]",
        "",
    ]
    seeds += [bytes([0]) + "\n".join(docs[i:] + docs[:i]).encode() for i in range(len(docs))]
    csvs = [
        (0, 'text,label,n\n"Varas, peeti kinni",politsei,5\nMaja,"tule""tõrje",10\n'),
        (1, "text;label\nüks;kaks\nkolm\n"),
        (2, "a\tb\tc\n1\t2\t3\n\t\t\n"),
        (3, "x|y\n\"unterminated|q\n"),
        (0, "only,header\n"),
        (0, ""),
    ]
    seeds += [bytes([1 | sep << 6]) + text.encode() for sep, text in csvs]
    write("import", seeds)


def multipart():
    def form(parts, boundary="XfuzzX", file_op=False):
        body = b""
        for name, value, filename in parts:
            disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
            body += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n".encode()
            if filename:
                body += b"Content-Type: application/octet-stream\r\n"
            body += b"\r\n" + value + b"\r\n"
        body += f"--{boundary}--\r\n".encode()
        return bytes([int(file_op)]) + f"multipart/form-data; boundary={boundary}\n".encode() + body

    seeds = [
        form([("text", "Politsei leidis varga.".encode(), None)]),
        form([("text", "Varas".encode(), None), ("text", b"", None)]),
        form([("text", "õ ä ö ü".encode(), None), ("file", b"ignored", "a.txt")]),
        form([("text", b"\xff\xfe", None)]),
        form([("\x00hidden", b"x", None), ("text", b"varas", None)]),
        form([("file", b"PK\x03\x04not a zip", "tagger.zip")], file_op=True),
        form([("file", b"", "../../etc/passwd")], file_op=True),
        form([("file", b"abc", "m.zip"), ("description", b"d", None)], boundary="a'b c", file_op=True),
        form([("text", b"x", None)])[:-10],
        bytes([0]) + b"multipart/form-data\n--x\r\n\r\n",
        bytes([1]) + b'multipart/form-data; boundary="q"\n--q\r\nContent-Disposition: form-data; name=file; filename*=UTF-8\'\'%C3%B5.zip\r\n\r\nz\r\n--q--\r\n',
        bytes([0]) + b"application/json\n{\"text\": \"varas\"}",
        bytes([0]) + b"application/x-www-form-urlencoded\ntext=varas&text=politsei",
    ]
    write("multipart", seeds)


def string_literals(path, min_len=6):
    """Rust string literals of at least `min_len` characters that read as JSON strings."""
    src = open(path, encoding="utf-8").read()
    found = []
    for m in re.findall(r'"((?:[^"\\\n]|\\.){%d,})"' % min_len, src):
        try:
            found.append(json.loads(f'"{m}"'))
        except ValueError:
            pass
    return found


def mlp():
    texts = []
    for path in ["crates/ta-mlp/src/html.rs", "crates/ta-mlp/src/tests.rs", "crates/ta-mlp/src/tokenize.rs", "crates/ta-mlp/src/facts.rs"]:
        texts += string_literals(path)
    for path in sorted(glob.glob("tests/fixtures/mlp/bench/x-*/**/page.html", recursive=True)):
        html = open(path, encoding="utf-8").read()
        texts += [html[i : i + 1500] for i in range(0, min(len(html), 4500), 1500)]
    write("mlp", [t.encode() for t in spread(texts, lambda t: t)])


def ner():
    texts = []
    paths = ["crates/ta-mlp/src/tests.rs", "crates/ta-mlp/src/ner/facts.rs"]
    paths += sorted(glob.glob("crates/ta-mlp/src/ner/*/tests.rs")) + sorted(glob.glob("crates/ta-mlp/src/ner/*.rs"))
    for path in paths:
        texts += string_literals(path)
    write("ner", [t.encode() for t in spread(texts, lambda t: t)])


if __name__ == "__main__":
    regex_tagger()
    anonymizer()
    search_dsl()
    import_files()
    multipart()
    mlp()
    ner()
