"""Russian NER checks (ner.md §6): ta's port of natasha's slovnet news NER against the package.

N1  razdel's tokens of every text → the package's tags vs ta's (the `ner_ru` example, `tags`).
N2  each text → the package's entities vs ta's on ta's own tokens (`texts`); label-aware exact
    span F1 with the package as reference. A span is compared by its type and its surface with
    the whitespace removed (ta's tokenized text puts spaces between tokens), as a multiset per
    text.
N3  texts/s, one thread, load excluded: the package (razdel + NER per text) vs ta (ta's
    tokenizer + NER per text), in the same run.

Texts: a seeded sample of the LibreOffice help paragraphs (corpus JSONL, `text` field) and
template sentences filled with Faker ru_RU person names, cities, countries and organisations
in inflected forms (pymorphy3).

Usage: ru.py NER_RU_EXAMPLE DATA_DIR CORPUS_JSONL   (prints the table; exit 1 on a missed target)
"""

import json
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pymorphy3  # noqa: E402
import razdel  # noqa: E402
from faker import Faker  # noqa: E402
from natasha import NewsEmbedding, NewsNERTagger  # noqa: E402

PARAGRAPHS = 1500
TEMPLATES = 400
SEED = 35

PLACES = ["Москва", "Казань", "Новосибирск", "Екатеринбург", "Самара", "Минск", "Киев", "Берлин", "Париж",
          "Лондон", "Рим", "Таллин", "Рига", "Вильнюс", "Пекин", "Токио", "Франция", "Германия", "Италия",
          "Россия", "Белоруссия", "Эстония", "Латвия", "Китай", "Япония", "Испания", "Польша", "Сибирь",
          "Америка", "Европа", "Тверь", "Пермь", "Уфа", "Омск", "Воронеж", "Смоленск", "Калининград"]
ORGS = ["Газпром", "Сбербанк", "Роснефть", "Аэрофлот", "Яндекс", "Лукойл", "Ростелеком", "Росатом",
        "ООН", "НАТО", "ЮНЕСКО", "МВД", "ФСБ", "Минфин", "Госдума", "МТС", "ВТБ", "РЖД", "Евросоюз"]
TEMPLATES_TEXT = [
    "{per:nomn} заявил о договоренности {loc:gent} и {loc:gent} по нефти.",
    "В {loc:loct} прошла встреча {per:gent} с представителями компании «{org}».",
    "Компания «{org}» открыла новый офис в {loc:loct}, сообщил {per:nomn}.",
    "По словам {per:gent}, {org} не планирует уходить с рынка {loc:gent}.",
    "Письмо было отправлено {per:datv} из {loc:gent} на прошлой неделе.",
    "Сотрудники {org} встретились с {per:ablt} в {loc:loct}.",
    "{per:nomn} родился в {loc:loct} и много лет работал в {org}.",
    "Делегация из {loc:gent} прибыла в {loc:accs} по приглашению {per:gent}.",
    "Мы долго говорили о {per:loct}, а потом поехали в {loc:accs}.",
    "Глава {org} {per:nomn} провел переговоры с коллегами из {loc:gent}.",
]


def inflect(morph, words, case, want):
    """`words` (a name) in grammatical `case`, each word inflected alone; the input if any word fails."""
    out = []
    for word in words.split():
        parses = [p for p in morph.parse(word) if want is None or want & set(p.tag.grammemes)] or morph.parse(word)
        form = parses[0].inflect({case}) if parses else None
        if form is None:
            return words
        out.append(form.word.capitalize() if word[0].isupper() else form.word)
    return " ".join(out)


def template_texts(n):
    rng = random.Random(SEED)
    fake = Faker("ru_RU")
    fake.seed_instance(SEED)
    morph = pymorphy3.MorphAnalyzer()
    texts = []
    for i in range(n):
        template = TEMPLATES_TEXT[i % len(TEMPLATES_TEXT)]

        def fill(m):
            kind, case = m.group(1), m.group(2) or "nomn"
            if kind == "org":
                return rng.choice(ORGS)
            if kind == "loc":
                return inflect(morph, rng.choice(PLACES), case, {"Geox"})
            if rng.random() < 0.5:
                first, last = fake.first_name_male(), fake.last_name_male()
            else:
                first, last = fake.first_name_female(), fake.last_name_female()
            name = f"{first} {last}" if rng.random() < 0.7 else last
            return " ".join([inflect(morph, first, case, {"Name"})] * (name != last) + [inflect(morph, last, case, {"Surn"})])

        texts.append(re.sub(r"\{(per|loc|org)(?::(\w+))?\}", fill, template))
    return texts


def corpus_texts(path, n):
    with open(path, encoding="utf-8") as f:
        paragraphs = [json.loads(line)["text"] for line in f]
    paragraphs = [p for p in paragraphs if p.strip()]
    return random.Random(SEED).sample(paragraphs, min(n, len(paragraphs)))


def run_example(example, data, mode, lines):
    stdin = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    done = subprocess.run([example, data, mode], input=stdin, capture_output=True, text=True, env=env, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def package_tags(tagger, tokens):
    """The package's tags of one text's tokens, as `tagger(text)` computes them (a batch of one)."""
    infer = tagger.infer
    return next(infer.decoder(infer.process(infer.encoder([tokens]))))


def key(entity_type, surface):
    return entity_type, re.sub(r"\s+", "", surface)


def main():
    example, data, corpus = sys.argv[1:4]
    texts = corpus_texts(corpus, PARAGRAPHS) + template_texts(TEMPLATES)
    tagger = NewsNERTagger(NewsEmbedding())

    # N1
    tokens = [[t.text for t in razdel.tokenize(text)] for text in texts]
    tokens = [t for t in tokens if t]
    ours, log1 = run_example(example, data, "tags", tokens)
    same = total = 0
    for toks, tags in zip(tokens, ours):
        theirs = package_tags(tagger, toks)
        same += sum(a == b for a, b in zip(theirs, tags))
        total += len(toks)
    n1 = same / total

    # N2 and N3
    started = time.perf_counter()
    reference = [tagger(text) for text in texts]
    package_s = time.perf_counter() - started
    reference = [Counter(key(s.type, m.text[s.start:s.stop]) for s in m.spans) for m in reference]
    ours, log2 = run_example(example, data, "texts", texts)
    ta_s = float(re.search(r"tokenize\+ner: \d+ texts in ([\d.]+) s", log2).group(1))
    load_s = float(re.search(r"load: ([\d.]+) s", log2).group(1))
    ours = [Counter(key(t, "".join(o["tokens"][a:b + 1])) for t, a, b in o["entities"]) for o in ours]
    tp = sum(sum((r & o).values()) for r, o in zip(reference, ours))
    ref_n = sum(sum(r.values()) for r in reference)
    our_n = sum(sum(o.values()) for o in ours)
    precision, recall = tp / max(our_n, 1), tp / max(ref_n, 1)
    f1 = 2 * precision * recall / max(precision + recall, 1e-9)
    by_type = Counter(t for r in reference for (t, _), c in r.items() for _ in range(c))

    ta_rate, package_rate = len(texts) / ta_s, len(texts) / package_s
    rows = [
        ("N1 token tags = package's", f"{n1:.4f} of {total} tokens", "", ">= 0.995", n1 >= 0.995),
        ("N2 span F1 vs package", f"{f1:.4f} (P {precision:.4f}, R {recall:.4f})",
         f"{ref_n} entities ({', '.join(f'{k} {v}' for k, v in sorted(by_type.items()))})", ">= 0.95, >= 300 ent.",
         f1 >= 0.95 and ref_n >= 300),
        ("N3 texts/s, one thread", f"{ta_rate:.0f}", f"{package_rate:.0f}", ">= 3x", ta_rate >= 3 * package_rate),
    ]
    print(f"Russian NER: {len(texts)} texts ({PARAGRAPHS} help paragraphs sampled, {TEMPLATES} template sentences); "
          f"ta load {load_s:.3f} s")
    print(f"{'check':28} | {'ta':36} | {'package':40} | {'target':20} | ok")
    for name, a, b, target, ok in rows:
        print(f"{name:28} | {a:36} | {b:40} | {target:20} | {'yes' if ok else 'NO'}")
    print(f"N3 ratio: {ta_rate / package_rate:.2f}x")
    sys.exit(0 if all(r[-1] for r in rows) else 1)


if __name__ == "__main__":
    main()
