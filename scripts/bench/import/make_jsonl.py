#!/usr/bin/env python3
"""Write a JSONL import corpus of at least SIZE_MB megabytes from real-text JSONL files.

usage: make_jsonl.py OUT SIZE_MB SOURCE.jsonl [SOURCE.jsonl ...]
Each output line is one document built from a source text: {"id_no", "text", "lang", "label",
"n", "score", "published", "meta": {"source", "module"}} and, on every fourth line,
"texta_facts" (two facts taken from the text's words). Source texts are cycled until the size
is reached; each pass rotates the words of every text, so the corpus keeps the vocabulary
and length distribution of real text without repeating documents verbatim.
Deterministic (seeded); stdlib only.
"""
import json
import random
import sys


def main():
    out, size_mb, sources = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    texts = []
    for path in sources:
        lang = path.rsplit("/", 1)[-1].split(".")[0]
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                texts.append((row["text"], lang, row.get("source", ""), row.get("module", row.get("label", ""))))
    if not texts:
        sys.exit("make_jsonl.py: no source texts")
    rng = random.Random(4711)
    labels = ["politics", "sports", "culture", "science", "economy", "weather"]
    target = int(size_mb * 1_000_000)
    written = n = 0
    with open(out, "w", encoding="utf-8") as fh:
        while written < target:
            rotation = n // len(texts)
            text, lang, source, module = texts[n % len(texts)]
            words = text.split(" ")
            if rotation and len(words) > 1:
                k = rotation % len(words)
                text = " ".join(words[k:] + words[:k])
            doc = {
                "id_no": n,
                "text": text,
                "lang": lang,
                "label": labels[n % len(labels)],
                "n": rng.randrange(1_000_000),
                "score": round(rng.random(), 4),
                "published": f"20{10 + n % 15:02d}-{1 + n % 12:02d}-{1 + n % 28:02d}T12:00:00Z",
                "meta": {"source": source, "module": module},
            }
            if n % 4 == 0 and len(words) > 2:
                doc["texta_facts"] = [
                    {"fact": "WORD", "str_val": words[0], "doc_path": "text", "spans": "[[0, 0]]"},
                    {"fact": "LAST", "str_val": words[-1], "doc_path": "text", "spans": "[[0, 0]]"},
                ]
            line = json.dumps(doc, ensure_ascii=False) + "\n"
            fh.write(line)
            written += len(line.encode("utf-8"))
            n += 1
    print(f"{out}: {n} documents, {written / 1e6:.1f} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
