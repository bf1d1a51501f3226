// Unit tests of the topic analyzer logic (gui/js/topics.js): request bodies, bars, columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusteringBody, clusterBars, documentColumns, cellText, foundDocument, similarityText } from '../js/topics.js';

test('clusteringBody sends the query as a string and drops settings that do not apply', () => {
  const body = {
    description: 'topics', fields: ['text'], query: { query: { match_all: {} } }, num_cluster: 0,
    vectorizer: 'TfIdf Vectorizer', embedding: 3, use_lsi: false, num_topics: 50,
  };
  assert.deepEqual(clusteringBody(body), {
    description: 'topics', fields: ['text'], query: '{"query":{"match_all":{}}}', num_cluster: 0,
    vectorizer: 'TfIdf Vectorizer', use_lsi: false,
  });
  assert.deepEqual(clusteringBody({ vectorizer: 'Embedding Vectorizer', embedding: 3, use_lsi: true, num_topics: 20, query: '{"query":{}}' }),
    { vectorizer: 'Embedding Vectorizer', embedding: 3, use_lsi: true, num_topics: 20, query: '{"query":{}}' });
  // an edit body (description and stop words) goes as it is
  assert.deepEqual(clusteringBody({ description: 'd', stop_words: ['ja'] }), { description: 'd', stop_words: ['ja'] });
});

test('clusterBars: largest first, shares of the largest, words and a full text label', () => {
  const bars = clusterBars([
    { id: 8, document_count: 2, average_similarity: 0.4123, significant_words: [{ key: 'valem', count: 2 }] },
    { id: 7, document_count: 4, average_similarity: 1, significant_words: [] },
    { id: 9, document_count: 2, average_similarity: null, significant_words: [1, 2, 3, 4, 5, 6].map((i) => ({ key: `w${i}`, count: 3 })) },
    { id: 10, document_count: 0, average_similarity: 0, significant_words: [] },
  ]);
  assert.deepEqual(bars.map((b) => [b.id, b.count, b.share]), [[7, 4, 100], [8, 2, 50], [9, 2, 50], [10, 0, 0]]);
  assert.deepEqual(bars[2].words, ['w1', 'w2', 'w3', 'w4', 'w5']);
  assert.equal(bars[1].label, 'Cluster 8: 2 documents, similarity 0.41, words valem');
  assert.equal(bars[0].label, 'Cluster 7: 4 documents, similarity 1.00, words none');
  assert.equal(bars[2].similarity, '—');
  assert.equal(clusterBars([{ id: 1, document_count: 1, average_similarity: 0, significant_words: [] }])[0].label,
    'Cluster 1: 1 document, similarity 0.00, words none');
  // a tiny cluster beside a huge one is still drawn
  assert.equal(clusterBars([{ id: 1, document_count: 1000 }, { id: 2, document_count: 1 }])[1].share, 1);
  assert.deepEqual(clusterBars(undefined), []);
});

test('documentColumns: display fields first, then the first document keys, each once', () => {
  const docs = [{ id: 'a', index: 'i', content: { text: 'x', module: 'm', title: 't' } }, { id: 'b', content: { other: 1 } }];
  assert.deepEqual(documentColumns(docs, ['title', 'missing']), ['title', 'missing', 'text', 'module']);
  assert.deepEqual(documentColumns(docs), ['text', 'module', 'title']);
  assert.deepEqual(documentColumns([], ['title']), ['title']);
});

test('cellText and foundDocument', () => {
  assert.equal(cellText('plain'), 'plain');
  assert.equal(cellText(null), '—');
  assert.equal(cellText(3), '3');
  assert.equal(cellText([{ fact: 'TOPIC', str_val: 'sport', doc_path: 'text', spans: '[[0, 0]]' }, { fact: 'N', num_val: 2 }]), 'TOPIC: sport; N: 2');
  assert.equal(cellText({ a: 1 }), '{"a":1}');
  assert.deepEqual(foundDocument({ _id: 'x', _index: 'i', _type: '_doc', _source: { text: 't' } }), { id: 'x', index: 'i', content: { text: 't' } });
  assert.deepEqual(foundDocument({ text: 't' }), { id: null, index: null, content: { text: 't' } });
  assert.equal(similarityText(0.456), '0.46');
});
