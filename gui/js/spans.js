// Code-point span handling for the highlighter (gui.md §4.5): splits a text at every mark
// boundary (spans count Unicode code points, not UTF-16 units) and finds search words.
// Pure: no DOM, unit-tested with node --test.

/**
 * @typedef {{start:number, end:number, label:string, value?:string}} Mark  [start, end) in code points
 * @typedef {{text:string, marks:Mark[]}} Segment  marks = the marks covering this piece
 */

/**
 * Splits text into pieces at every mark boundary.
 * @param {string} text
 * @param {Mark[]} marks
 * @returns {Segment[]}
 */
export function toSegments(text, marks) {
  const cps = Array.from(text);
  const n = cps.length;
  const valid = (marks || [])
    .map((m) => ({ ...m, start: Math.max(0, Math.min(n, m.start | 0)), end: Math.max(0, Math.min(n, m.end | 0)) }))
    .filter((m) => m.end > m.start);
  const cuts = new Set([0, n]);
  for (const m of valid) { cuts.add(m.start); cuts.add(m.end); }
  const points = [...cuts].sort((a, b) => a - b);
  const out = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i];
    const b = points[i + 1];
    const covering = valid.filter((m) => m.start <= a && m.end >= b);
    const piece = cps.slice(a, b).join('');
    const last = out[out.length - 1];
    if (covering.length === 0 && last && last.marks.length === 0) last.text += piece;
    else out.push({ text: piece, marks: covering });
  }
  return out;
}

/** Number of palette colours. */
export const PALETTE_SIZE = 8;

/** Stable palette index for a label (hash of its code points). */
export function colorIndex(label, size = PALETTE_SIZE) {
  let h = 0;
  for (const ch of String(label)) h = (h * 31 + ch.codePointAt(0)) >>> 0;
  return h % size;
}

/** Distinct labels in first-appearance order. */
export function legendLabels(marks) {
  const seen = [];
  for (const m of marks || []) if (!seen.includes(m.label)) seen.push(m.label);
  return seen;
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Converts a UTF-16 offset in text to a code-point offset. */
export function unitToCodePoint(text, unitOffset) {
  return Array.from(text.slice(0, unitOffset)).length;
}

/**
 * Marks occurrences of search words client-side: case-insensitive, at the start of a word
 * (whole-word prefix), as code-point spans.
 * @param {string} text
 * @param {string[]} words
 * @param {string} label
 * @returns {Mark[]}
 */
export function wordMarks(text, words, label = 'match') {
  const out = [];
  for (const w of words || []) {
    const word = w.trim();
    if (!word) continue;
    const re = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(word)}`, 'giu');
    for (const m of String(text).matchAll(re)) {
      const start = unitToCodePoint(text, m.index);
      out.push({ start, end: start + Array.from(m[0]).length, label, value: m[0] });
    }
  }
  return out;
}

/** Splits a search box into words (quotes and operators are not interpreted in phase 1). */
export function searchWords(q) {
  return String(q || '').split(/\s+/).map((w) => w.replace(/^["'(]+|["')]+$/g, '')).filter(Boolean);
}

/**
 * Facts of a document as marks for one field; fact spans are JSON strings ("[[s, e]]").
 * @param {Array<{fact:string, str_val:string, doc_path:string, spans:(string|Array)}>} facts
 * @param {string} field
 * @returns {Mark[]}
 */
export function factMarks(facts, field) {
  const out = [];
  for (const f of facts || []) {
    if (!f || f.doc_path !== field) continue;
    let spans = f.spans;
    if (typeof spans === 'string') {
      try { spans = JSON.parse(spans); } catch { spans = []; }
    }
    if (!Array.isArray(spans)) continue;
    for (const s of spans) {
      if (Array.isArray(s) && s.length === 2 && (s[0] !== 0 || s[1] !== 0)) {
        out.push({ start: s[0], end: s[1], label: f.fact, value: f.str_val });
      }
    }
  }
  return out;
}
