"""Writes text.json beside this script: golden token lists of the text processor (Python
str.strip/lower/split with the module's stop lists) for 200 texts sampled from the peer corpora."""
import json, os, random, sys
HERE = os.path.dirname(os.path.abspath(__file__))
R = os.path.join(HERE, '../../../crates/ta-classifier/src/resources/')
CORPORA = sys.argv[1] if len(sys.argv) > 1 else '/work/corpora'  # shared/peers/corpora.sh output
stop = set()
for f in ['stopwords_en.txt', 'stopwords_et.txt', 'stopwords_ru.txt', 'punctuation.txt']:
    stop |= {l.rstrip('\n') for l in open(R + f, encoding='utf8') if l.rstrip('\n') and not l.startswith('#')}
custom = "Custom\tWORDS  lõpp"
stop_all = stop | set(custom.lower().split())
rnd = random.Random(7)
texts = []
for lang in ['en', 'et', 'ru']:
    lines = open(f'{CORPORA}/{lang}.jsonl', encoding='utf8').readlines()
    for l in rnd.sample(lines, 60):
        t = json.loads(l)['text'][:240]
        words = t.split(' ')
        seps = [' ', ' ', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\u3000', ' \n ']
        texts.append(''.join(w + rnd.choice(seps) for w in words))
texts += ["", "   ", "\n\n", "ΣΟΦΟΣ ΟΔΟΣ", "İstanbul ẞ straße", "a\x1cb\x1fc", "tab\tsep\u2028line", "word, (paren) \"quote\" … ? !",
          "Custom words and lõpp LÕPP", "The and ja и", "x\u200by", "mixed Кот KASS cat", "  lead and trail  ", "\u0130\u0049", "ǅemal ﬁne"]
texts += ["line one\nline two\n\n  \nthird LINE, here" + str(i) for i in range(5)]
def tokens(t, stop_words):
    return [w for w in t.lower().strip().split() if w not in stop_words]
cases = []
for t in texts:
    v = t.strip()
    cases.append({"text": t,
                  "tokens": tokens(v, stop_all) if v else [],
                  "no_stop": tokens(v, set()) if v else [],
                  "sentences": [tokens(s, stop) for s in v.split('\n') if s]})
with open(os.path.join(HERE, 'text.json'), 'w', encoding='utf8') as f:
    json.dump({"custom_stop_words": custom, "cases": cases}, f, ensure_ascii=False, indent=0)
    f.write('\n')
print(len(cases))
