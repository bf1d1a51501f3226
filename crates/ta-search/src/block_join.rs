//! Block joins between the embedded store's documents and their fact documents. A document
//! and its `texta_facts` entries (one fact document each) are added as one group, so in a
//! segment every fact document follows its parent, after the parent's other facts only, and
//! merges keep that order. `BlockJoin::parents_of` turns a query over fact documents into the
//! documents owning them (`nested`), `BlockJoin::facts_of` a query over documents into their
//! fact documents (fact aggregations). Each walks the segment's parent documents (`_kind: d`)
//! once beside the matches; no stored field is read.

use tantivy::query::{BitSetDocSet, ConstScorer, EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{BitSet, DocId, DocSet, Score, SegmentReader, TantivyError, Term, TERMINATED};

use super::dsl::KIND_DOC;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    ToParents,
    ToFacts,
}

/// A query over the other side of the document/fact blocks of `inner`'s matches.
#[derive(Debug)]
pub struct BlockJoin {
    inner: Box<dyn Query>,
    kind: Field,
    direction: Direction,
}

impl Clone for BlockJoin {
    fn clone(&self) -> Self {
        BlockJoin {
            inner: self.inner.box_clone(),
            kind: self.kind,
            direction: self.direction,
        }
    }
}

impl BlockJoin {
    /// The documents owning the fact documents `facts` matches (`kind`: the `_kind` field).
    pub fn parents_of(facts: Box<dyn Query>, kind: Field) -> Self {
        BlockJoin {
            inner: facts,
            kind,
            direction: Direction::ToParents,
        }
    }

    /// The fact documents of the documents `parents` matches.
    pub fn facts_of(parents: Box<dyn Query>, kind: Field) -> Self {
        BlockJoin {
            inner: parents,
            kind,
            direction: Direction::ToFacts,
        }
    }
}

impl Query for BlockJoin {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let unscored = match scoring.searcher() {
            Some(searcher) => EnableScoring::disabled_from_searcher(searcher),
            None => EnableScoring::disabled_from_schema(scoring.schema()),
        };
        Ok(Box::new(BlockJoinWeight {
            inner: self.inner.weight(unscored)?,
            kind: self.kind,
            direction: self.direction,
        }))
    }
}

struct BlockJoinWeight {
    inner: Box<dyn Weight>,
    kind: Field,
    direction: Direction,
}

impl BlockJoinWeight {
    /// The joined documents of one segment.
    fn joined(&self, reader: &SegmentReader) -> tantivy::Result<BitSet> {
        let alive = reader.alive_bitset();
        let mut matches = self.inner.scorer(reader, 1.0)?;
        let mut parents: Box<dyn DocSet> = match reader
            .inverted_index(self.kind)?
            .read_postings(&Term::from_field_text(self.kind, KIND_DOC), IndexRecordOption::Basic)?
        {
            Some(postings) => Box::new(postings),
            None => Box::new(tantivy::query::EmptyScorer),
        };
        let max_doc = reader.max_doc();
        let mut joined = BitSet::with_max_value(max_doc);
        // both walks only move forward: the matches and the parents are in doc order
        let mut owner: Option<DocId> = None;
        let mut doc = matches.doc();
        while doc != TERMINATED {
            if alive.is_none_or(|bits| bits.is_alive(doc)) {
                match self.direction {
                    Direction::ToParents => {
                        while parents.doc() < doc {
                            owner = Some(parents.doc());
                            parents.advance();
                        }
                        if let Some(owner) = owner {
                            joined.insert(owner);
                        }
                    }
                    Direction::ToFacts => {
                        let next = if parents.doc() <= doc {
                            parents.seek(doc + 1)
                        } else {
                            parents.doc()
                        };
                        for fact in doc + 1..next.min(max_doc) {
                            joined.insert(fact);
                        }
                    }
                }
            }
            doc = matches.advance();
        }
        Ok(joined)
    }
}

impl Weight for BlockJoinWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        Ok(Box::new(ConstScorer::new(BitSetDocSet::from(self.joined(reader)?), boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        if self.scorer(reader, 1.0)?.seek(doc) != doc {
            return Err(TantivyError::InvalidArgument(format!("document #({doc}) does not match")));
        }
        Ok(Explanation::new("block join", 1.0))
    }
}
