//! The English NER's transition parser (spaCy `TransitionBasedParser.v2`, state type `ner`,
//! greedy): each state's three feature tokens (the first buffer token, the open entity's first
//! token, the token before the buffer) through the precomputable affine layer with its padding
//! vector and maxout, the output layer, and the best valid `BiluoPushDown` move.

use super::tok2vec::dot;
use super::weights::Node;

/// spaCy's move numbers.
const BEGIN: u8 = 1;
const IN: u8 = 2;
const LAST: u8 = 3;
const UNIT: u8 = 4;
const OUT: u8 = 5;

/// An entity the parser found: tokens `start..end` with label `label` (index into `labels`).
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub label: usize,
}

pub struct Parser {
    /// Lower layer `W` (features × hidden × pieces × input), its bias and padding vector.
    lower_w: Vec<f32>,
    lower_b: Vec<f32>,
    pad: Vec<f32>,
    /// Output layer (classes × hidden) and bias.
    upper_w: Vec<f32>,
    upper_b: Vec<f32>,
    /// Each class: its move and label index (0: the empty label).
    classes: Vec<(u8, usize)>,
    /// Label names; index 0 is the empty label.
    pub labels: Vec<String>,
    n_hidden: usize,
    n_pieces: usize,
    n_in: usize,
}

const N_FEATS: usize = 3;

impl Parser {
    /// The parser from the model's nodes and the `moves` classes.
    pub fn load(nodes: &[Node], moves: Vec<(u8, String)>, n_in: usize) -> Result<Parser, String> {
        let lower = nodes
            .iter()
            .find(|n| n.name == "precomputable_affine")
            .ok_or("no precomputable_affine layer")?;
        let &[n_feats, n_hidden, n_pieces, _] = lower.shape("W") else {
            return Err("bad precomputable_affine weights".into());
        };
        if n_feats != N_FEATS {
            return Err(format!("{n_feats} state features, expected {N_FEATS}"));
        }
        let n_classes = moves.len();
        let upper = nodes
            .iter()
            .find(|n| n.name == "linear" && n.shape("W") == [n_classes, n_hidden])
            .ok_or_else(|| format!("no output layer for {n_classes} moves"))?;
        let mut labels = vec![String::new()];
        let mut classes = Vec::with_capacity(n_classes);
        for (action, label) in moves {
            let index = match labels.iter().position(|l| *l == label) {
                Some(i) => i,
                None => {
                    labels.push(label);
                    labels.len() - 1
                }
            };
            classes.push((action, index));
        }
        Ok(Parser {
            lower_w: lower.param("W", &[N_FEATS, n_hidden, n_pieces, n_in])?.to_vec(),
            lower_b: lower.param("b", &[n_hidden, n_pieces])?.to_vec(),
            pad: lower.param("pad", &[1, N_FEATS, n_hidden, n_pieces])?.to_vec(),
            upper_w: upper.param("W", &[n_classes, n_hidden])?.to_vec(),
            upper_b: upper.param("b", &[n_classes])?.to_vec(),
            classes,
            labels,
            n_hidden,
            n_pieces,
            n_in,
        })
    }

    /// Greedy BILUO decoding of a text: `tokvecs` (n × input width), whether each token
    /// starts a sentence and whether it is whitespace.
    pub fn parse(&self, tokvecs: &[f32], sent_start: &[bool], is_space: &[bool]) -> Vec<Span> {
        let n = sent_start.len();
        let hp = self.n_hidden * self.n_pieces;
        let mut unmaxed = vec![0f32; hp];
        let mut hidden = vec![0f32; self.n_hidden];
        let mut scores = vec![0f32; self.classes.len()];
        let mut spans: Vec<Span> = Vec::new();
        let mut open: Option<(usize, usize)> = None;
        for b in 0..n {
            let ent_start = open.map(|(s, _)| s);
            let ids = [Some(b), ent_start, ent_start.map(|_| b.wrapping_sub(1)).filter(|&i| i < n)];
            unmaxed.copy_from_slice(&self.lower_b);
            for (f, id) in ids.iter().enumerate() {
                let block = &mut unmaxed[..];
                match id {
                    Some(t) => {
                        let x = &tokvecs[t * self.n_in..(t + 1) * self.n_in];
                        let w = &self.lower_w[f * hp * self.n_in..(f + 1) * hp * self.n_in];
                        for (j, u) in block.iter_mut().enumerate() {
                            *u += dot(&w[j * self.n_in..(j + 1) * self.n_in], x);
                        }
                    }
                    None => {
                        for (u, p) in block.iter_mut().zip(&self.pad[f * hp..(f + 1) * hp]) {
                            *u += p;
                        }
                    }
                }
            }
            for (j, h) in hidden.iter_mut().enumerate() {
                let pieces = &unmaxed[j * self.n_pieces..(j + 1) * self.n_pieces];
                *h = pieces.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            }
            for (c, s) in scores.iter_mut().enumerate() {
                *s = dot(&self.upper_w[c * self.n_hidden..(c + 1) * self.n_hidden], &hidden) + self.upper_b[c];
            }
            let remaining = n - b;
            let next_starts = b + 1 < n && sent_start[b + 1];
            let valid = |&(action, label): &(u8, usize)| match action {
                BEGIN => open.is_none() && remaining >= 2 && label != 0 && !next_starts && !is_space[b],
                IN => matches!(open, Some((_, l)) if l == label) && remaining >= 2 && !next_starts,
                LAST => matches!(open, Some((_, l)) if l == label),
                UNIT => label != 0 && open.is_none() && !is_space[b],
                OUT => open.is_none(),
                _ => false,
            };
            let mut best: Option<usize> = None;
            for (c, class) in self.classes.iter().enumerate() {
                if valid(class) && best.is_none_or(|k| scores[c] > scores[k]) {
                    best = Some(c);
                }
            }
            let Some(best) = best else { break };
            let (action, label) = self.classes[best];
            match action {
                BEGIN => open = Some((b, label)),
                LAST => {
                    if let Some((start, label)) = open.take() {
                        spans.push(Span { start, end: b + 1, label });
                    }
                }
                UNIT => spans.push(Span {
                    start: b,
                    end: b + 1,
                    label,
                }),
                _ => {}
            }
        }
        spans
    }
}
