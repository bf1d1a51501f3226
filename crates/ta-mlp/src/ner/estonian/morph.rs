//! Vabamorf's analyses as estnltk 1.7.5's default `morph_analysis` layer has them, which is
//! what the NER model was trained on: duplicates removed (PostMorphAnalysisTagger), sorted
//! by root + ending + clitic + POS + form (VabamorfAnalyzer), then ambiguous words reordered
//! (MorphAnalysisReorderer): by the word's own analysis probabilities in EDT where listed
//! (`et_edt-ud-train_amb_word_analyses_all.csv`), else by POS frequency
//! (`et_edt-ud-train_cat_postag_freq_all.csv`). The features read the first analysis most.
//!
//! Not ported: the post-analysis rules for numbers, pronouns and abbreviations, and
//! estnltk's compound tokens (ta's tokens are taken as they are).

use std::collections::HashMap;
use std::path::Path;

use super::features::Analysis;
use crate::estonian::{lemma_from_root, root_tokens, VmAnalysis};

pub const WORD_ORDERINGS: &str = "et_edt-ud-train_amb_word_analyses_all.csv";
pub const POS_FREQUENCIES: &str = "et_edt-ud-train_cat_postag_freq_all.csv";

/// (lemma, ending, clitic, partofspeech, form) and its probability, in file order.
type Ordering = Vec<([String; 5], f64)>;

pub struct Reorderer {
    words: HashMap<String, Ordering>,
    pos_freq: HashMap<String, u64>,
    pos_total: u64,
}

/// The rows of a tab-separated file with a header, as maps column → value.
fn read_tsv(path: &Path) -> Result<Vec<HashMap<String, String>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    Ok(lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            header
                .iter()
                .map(|h| h.to_string())
                .zip(l.split('\t').map(str::to_string))
                .collect()
        })
        .collect())
}

impl Reorderer {
    pub fn load(dir: &Path) -> Result<Reorderer, String> {
        let field = |row: &HashMap<String, String>, k: &str| row.get(k).cloned().unwrap_or_default();
        let mut words: HashMap<String, Ordering> = HashMap::new();
        let path = dir.join(WORD_ORDERINGS);
        for row in read_tsv(&path)? {
            let key = ["lemma", "ending", "clitic", "partofspeech", "form"].map(|k| field(&row, k));
            let prob = field(&row, "prob")
                .parse()
                .map_err(|_| format!("{}: a row without a numeric prob", path.display()))?;
            words.entry(field(&row, "text")).or_default().push((key, prob));
        }
        let path = dir.join(POS_FREQUENCIES);
        let mut pos_freq = HashMap::new();
        for row in read_tsv(&path)? {
            let freq = field(&row, "freq")
                .parse()
                .map_err(|_| format!("{}: a row without a numeric freq", path.display()))?;
            pos_freq.insert(field(&row, "partofspeech"), freq);
        }
        let pos_total = pos_freq.values().sum::<u64>().max(1);
        Ok(Reorderer {
            words,
            pos_freq,
            pos_total,
        })
    }

    /// A word's analyses in estnltk's order, as the features read them.
    pub fn analyses(&self, word: &str, vm: &[VmAnalysis]) -> Vec<Analysis> {
        let mut vm: Vec<&VmAnalysis> = vm
            .iter()
            .enumerate()
            .filter(|(i, a)| !vm[i + 1..].contains(a))
            .map(|(_, a)| a)
            .collect();
        let key = |a: &VmAnalysis| {
            [&a.root, &a.ending, &a.clitic, &a.partofspeech, &a.form]
                .map(String::as_str)
                .concat()
        };
        vm.sort_by_cached_key(|a| key(a));
        if vm.len() > 1 {
            self.reorder(word, &mut vm);
        }
        vm.into_iter()
            .map(|a| Analysis {
                root_tokens: root_tokens(&a.root),
                ending: a.ending.clone(),
                form: a.form.clone(),
                partofspeech: a.partofspeech.clone(),
            })
            .collect()
    }

    /// MorphAnalysisReorderer on one ambiguous word: each analysis gets the probability of
    /// its row in the word's ordering (0 when it has none; rows in file order, first match),
    /// or, for a word not listed, its POS frequency over the total; then a stable sort by that,
    /// highest first, when anything moved.
    fn reorder(&self, word: &str, vm: &mut Vec<&VmAnalysis>) {
        let ordering = self.words.get(word).or_else(|| self.words.get(&word.to_lowercase()));
        let mut scored: Vec<(&VmAnalysis, f64)> = match ordering {
            Some(rows) => {
                let lemmas: Vec<String> = vm.iter().map(|a| lemma_from_root(&a.root, &a.partofspeech)).collect();
                let mut taken = vec![false; vm.len()];
                let mut out = Vec::with_capacity(vm.len());
                for (key, prob) in rows {
                    let hit = (0..vm.len()).find(|&i| {
                        let a = vm[i];
                        lemmas[i] == key[0] && a.ending == key[1] && a.clitic == key[2] && a.partofspeech == key[3] && a.form == key[4]
                    });
                    if let Some(i) = hit {
                        out.push((vm[i], *prob));
                        taken[i] = true;
                    }
                }
                out.extend((0..vm.len()).filter(|&i| !taken[i]).map(|i| (vm[i], 0.0)));
                out
            }
            None => {
                let mut by_pos: Vec<(&VmAnalysis, u64)> = vm
                    .iter()
                    .map(|a| (*a, self.pos_freq.get(&a.partofspeech).copied().unwrap_or(0)))
                    .collect();
                by_pos.sort_by_key(|a| std::cmp::Reverse(a.1));
                if by_pos.iter().zip(vm.iter()).all(|(a, b)| std::ptr::eq(a.0, *b)) {
                    return;
                }
                by_pos.into_iter().map(|(a, f)| (a, f as f64 / self.pos_total as f64)).collect()
            }
        };
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        *vm = scored.into_iter().map(|(a, _)| a).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vm(root: &str, ending: &str, pos: &str, form: &str) -> VmAnalysis {
        VmAnalysis {
            root: root.into(),
            ending: ending.into(),
            clitic: String::new(),
            partofspeech: pos.into(),
            form: form.into(),
        }
    }

    fn order(r: &Reorderer, word: &str, analyses: &[VmAnalysis]) -> Vec<(String, String)> {
        r.analyses(word, analyses).into_iter().map(|a| (a.partofspeech, a.form)).collect()
    }

    #[test]
    fn analyses_come_in_estnltks_order() {
        let dir = std::env::temp_dir().join(format!("ta-et-morph-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(WORD_ORDERINGS),
            "text\tlemma\tending\tclitic\tpartofspeech\tform\tprob\tfreq\non\tolema\t0\t\tV\tvad\t0.8\t8\non\tolema\t0\t\tV\tb\t0.2\t2\n",
        )
        .unwrap();
        std::fs::write(dir.join(POS_FREQUENCIES), "partofspeech\tfreq\nS\t10\nH\t5\n").unwrap();
        let r = Reorderer::load(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let pairs = |v: &[(&str, &str)]| v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
        // listed word: its probabilities (the lower-cased word is looked up too)
        let on = [vm("ole", "0", "V", "b"), vm("ole", "0", "V", "vad")];
        assert_eq!(order(&r, "On", &on), pairs(&[("V", "vad"), ("V", "b")]));
        // other words: sorted by root, ending, clitic, POS, form; duplicates dropped; then by POS frequency
        let tartu = [
            vm("Tartu", "s", "H", "sg in"),
            vm("tartu", "s", "S", "sg in"),
            vm("Tartu", "s", "H", "sg in"),
        ];
        assert_eq!(order(&r, "Tartus", &tartu), pairs(&[("S", "sg in"), ("H", "sg in")]));
        let names = [vm("Mar", "i", "H", "sg g"), vm("Mari", "0", "H", "sg n")];
        assert_eq!(order(&r, "Mari", &names), pairs(&[("H", "sg n"), ("H", "sg g")]));
    }
}
