#!/usr/bin/env python3
"""texta-anonymizer with fixed replacers, for checking ta's output (run with the peer venv's Python).

usage: reference.py TEXTS.jsonl CONFIG.json REPLACERS.json OUT.jsonl
TEXTS: one JSON string per line. REPLACERS: one initials string per name. Writes {"i", "text"} per text, or
{"i", "error"} where the reference raises (it uses matched text as a regex pattern).
"""
import json
import sys

from texta_anonymizer.anonymizer import Anonymizer

FIELDS = ("replace_misspelled_names", "replace_single_last_names", "replace_single_first_names",
          "misspelling_threshold", "mimic_casing", "auto_adjust_threshold")

texts_path, config_path, replacers_path, out_path = sys.argv[1:5]
with open(config_path, encoding="utf-8") as fh:
    cfg = json.load(fh)
with open(replacers_path, encoding="utf-8") as fh:
    replacers = json.load(fh)
anonymizer = Anonymizer(**{k: cfg[k] for k in FIELDS if k in cfg})
names = anonymizer._format_names(cfg["names"])
with open(texts_path, encoding="utf-8") as src, open(out_path, "w", encoding="utf-8") as out:
    for i, line in enumerate(src):
        try:
            row = {"i": i, "text": anonymizer.anonymize_text(json.loads(line), names, replacers)}
        except Exception as e:  # noqa: BLE001 - the peer raises re.error and others alike
            row = {"i": i, "error": type(e).__name__}
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
