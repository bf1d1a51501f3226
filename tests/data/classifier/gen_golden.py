"""Writes hashing.json, splits.json, vectorizers.json and optimisers.json beside this script
(scikit-learn 1.9.1, NumPy 2.4; e.g. with the venv of shared/peers/setup.sh)."""
import json, os, numpy as np, scipy.sparse as sp, sklearn
from sklearn.utils import murmurhash3_32
from sklearn.feature_extraction.text import HashingVectorizer, TfidfVectorizer, CountVectorizer
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from sklearn.calibration import _sigmoid_calibration

OUT = os.path.dirname(os.path.abspath(__file__)) + '/'
def dump(name, obj):
    with open(OUT + name, 'w', encoding='utf8') as f:
        json.dump(obj, f, ensure_ascii=False, separators=(',', ':'))
        f.write('\n')
def csr(m):
    m = sp.csr_matrix(m); m.sort_indices()
    return {"ncols": int(m.shape[1]), "indptr": m.indptr.tolist(), "indices": m.indices.tolist(), "data": m.data.tolist()}

# 1. Hashing: column and sign per token, and whole rows with n-grams (1, 2) and L2.
tokens = ["", "a", "the", "hello", "world,", "hello world", "spam!", "kõik", "jõulupuu", "ära", "Ülo", "привет", "мир",
          "и", "кот", "😀", "naïve", "straße", "100", "3.14", "http://example.com", "e-mail", "a b", "σοφος", "日本語",
          "tab\tinside", "x" * 100, "#hashtag", "@user", "don't"]
tokens += ["token%d" % i for i in range(70)]
rows = []
one = HashingVectorizer(analyzer=lambda t: [t], alternate_sign=True, norm=None)
for t in tokens:
    m = one.transform([t]); m.sort_indices()
    rows.append({"token": t, "murmur": murmurhash3_32(t, seed=0, positive=True), "column": int(m.indices[0]), "value": float(m.data[0])})
docs = [["hello", "world,", "hello", "world,"], ["kõik", "on", "hästi", "ära", "muretse"], ["привет", "мир", "привет"], [], ["a"]]
vec = HashingVectorizer(analyzer=lambda d: d, alternate_sign=True, norm=None, ngram_range=(1, 2))
bigrams = HashingVectorizer(tokenizer=str.split, token_pattern=None, lowercase=False, ngram_range=(1, 2))
dump("hashing.json", {"sklearn": sklearn.__version__, "tokens": rows, "docs": docs,
                      "rows": csr(bigrams.transform([" ".join(d) for d in docs]))})

# 2. NumPy legacy permutation and train_test_split.
perms = {str(n): np.random.RandomState(42).permutation(n).tolist() for n in [1, 2, 3, 7, 10, 100, 1000, 4837]}
splits = {}
for n in [5, 11, 100]:
    tr, te = train_test_split(list(range(n)), test_size=0.2, random_state=42)
    splits[str(n)] = {"train": tr, "test": te}
y = [True] * 13 + [False] * 29 + [True] * 3
folds = [{"train": a.tolist(), "test": b.tolist()} for a, b in StratifiedKFold(5).split(np.zeros(len(y)), y)]
dump("splits.json", {"numpy": np.__version__, "permutations": perms, "train_test_split": splits, "kfold_labels": y, "kfold": folds})

# 3. Count and TF-IDF on a small corpus (min_df 5).
rng = np.random.RandomState(0)
words = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mü"]
corpus = [[words[i] for i in rng.randint(0, len(words), rng.randint(0, 12))] for _ in range(40)]
texts = [" ".join(d) for d in corpus]
kw = dict(ngram_range=(1, 2), min_df=5, tokenizer=str.split, token_pattern=None, lowercase=False)
out = {"docs": corpus}
for name, v in [("count", CountVectorizer(**kw)), ("tfidf", TfidfVectorizer(**kw)), ("tf", TfidfVectorizer(use_idf=False, **kw))]:
    m = v.fit_transform(texts)
    out[name] = {"vocabulary": v.get_feature_names_out().tolist(), "rows": csr(m)}
out["idf"] = TfidfVectorizer(**kw).fit(texts).idf_.tolist()
dump("vectorizers.json", out)

# 4. Optimisers on a sparse problem: L1 squared-hinge selection, logistic regression, hinge SVM, Platt.
rng = np.random.RandomState(1)
n, d = 500, 40
X = sp.random(n, d, density=0.15, random_state=rng, format="csr")
true_w = rng.randn(d) * (rng.rand(d) < 0.4) * 3
y = (X @ true_w + 0.3 * rng.randn(n) > 0.1)
train, test = np.arange(400), np.arange(400, 500)
l1 = LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=1.0, tol=1e-4, max_iter=1000, random_state=0).fit(X[train], y[train])
lr = LogisticRegression(C=1.0, max_iter=100, tol=1e-4).fit(X[train], y[train])
svc = LinearSVC(loss="hinge", dual=True, C=1.0, tol=1e-4, max_iter=1000, random_state=42).fit(X[train], y[train])
dec = svc.decision_function(X[train])
a, b = _sigmoid_calibration(dec, y[train])
dump("optimisers.json", {"x": csr(X), "y": y.tolist(), "n_train": 400,
    "l1_selected": np.where(np.abs(l1.coef_[0]) >= 1e-5)[0].tolist(), "l1_coef": l1.coef_[0].tolist(),
    "lr_coef": lr.coef_[0].tolist(), "lr_intercept": float(lr.intercept_[0]), "lr_test_proba": lr.predict_proba(X[test])[:, 1].tolist(),
    "svc_coef": svc.coef_[0].tolist(), "svc_intercept": float(svc.intercept_[0]),
    "platt_decisions": dec.tolist(), "platt_a": float(a), "platt_b": float(b)})
print("ok")
