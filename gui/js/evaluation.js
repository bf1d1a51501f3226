// Evaluator results for display (collection.md §6): the confusion matrix as heat-map cells
// with their class labels, the per-class rows of individual_results and their ordering, the
// fact names and values a create form offers. Pure: no DOM, unit-tested with node --test.

/** A JSON-encoded matrix (`confusion_matrix`) as an array of rows; [] when unreadable. */
export function parseMatrix(text) {
  try {
    const m = JSON.parse(text);
    return Array.isArray(m) && m.every((row) => Array.isArray(row)) ? m.filter((row) => row.length) : [];
  } catch {
    return [];
  }
}

/**
 * The names of the matrix's rows and columns: the evaluated value's negative and positive for
 * a binary evaluator, the sorted classes (individual_results' keys in alphabetic order) for a
 * multilabel one, else 1, 2, ….
 */
export function matrixLabels(evaluator, classes, size) {
  if (evaluator.evaluation_type === 'binary') return [`not ${evaluator.true_fact_value}`, evaluator.true_fact_value];
  const sorted = [...(classes || [])].sort();
  return sorted.length === size ? sorted : Array.from({ length: size }, (_, i) => String(i + 1));
}

/**
 * Heat-map rows: `[{label, cells: [{count, shade, truth, predicted}]}]`, shade in [0, 1]
 * relative to the largest count.
 */
export function heatRows(matrix, labels) {
  const max = Math.max(1, ...matrix.flat());
  return matrix.map((row, i) => ({
    label: labels[i],
    cells: row.map((count, j) => ({ count, shade: count / max, truth: labels[i], predicted: labels[j] })),
  }));
}

/** A cell's background from white to dark blue, and a text colour that stays readable. */
export function cellColours(shade) {
  const mix = (from, to) => Math.round(from + (to - from) * shade);
  return { background: `rgb(${mix(247, 8)}, ${mix(251, 48)}, ${mix(255, 107)})`, color: shade > 0.5 ? '#fff' : '#000' };
}

/** individual_results' `filtered_results` as rows `{label, precision, recall, f1_score, accuracy, count}`. */
export function classRows(filtered) {
  return Object.entries(filtered || {}).map(([label, r]) => ({
    label, precision: r.precision, recall: r.recall, f1_score: r.f1_score, accuracy: r.accuracy, count: r.count,
  }));
}

/** Rows ordered by `key` (`label` or a score), descending when `desc`; ties stay in label order. */
export function sortRows(rows, key, desc) {
  const byLabel = [...rows].sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  if (key === 'label') return desc ? byLabel.reverse() : byLabel;
  return byLabel.sort((a, b) => (desc ? b[key] - a[key] : a[key] - b[key]));
}

/** get_facts' answer as select options: fact names, and the values of the fact `name`. */
export function factOptions(facts) {
  return (facts || []).map((f) => ({ value: f.name, label: f.name }));
}

export function valueOptions(facts, name) {
  const fact = (facts || []).find((f) => f.name === name);
  return fact ? fact.values.map((v) => ({ value: String(v), label: String(v) })) : [];
}
