// Highlighter (gui.md §4.5): a text with marked code-point spans, a legend of labels, colours
// from a fixed palette by label hash, overlaps striped; text rendered as text nodes only.
import { html } from '../preact.js';
import { toSegments, colorIndex, legendLabels } from '../spans.js';

export function Chip({ label, children, tone }) {
  const c = tone !== undefined ? tone : colorIndex(label);
  return html`<span class=${'chip c' + c}>${children || label}</span>`;
}

/**
 * @param {{text:string, marks:Array<{start:number,end:number,label:string,value?:string}>, legend?:boolean, block?:boolean}} props
 */
export function Highlighter({ text, marks, legend = true, block = true }) {
  const segs = toSegments(String(text ?? ''), marks || []);
  const labels = legendLabels(marks || []);
  const body = segs.map((s, i) => {
    if (!s.marks.length) return s.text;
    const title = s.marks.map((m) => `${m.label}: ${m.value ?? s.text}`).join('\n');
    const cls = s.marks.length > 1 ? 'striped' : 'c' + colorIndex(s.marks[0].label);
    return html`<mark key=${i} class=${cls} title=${title}>${s.text}</mark>`;
  });
  return html`<div class=${block ? 'highlight' : 'highlight inline'} data-testid="highlight">
    ${legend && labels.length ? html`<div class="legend" aria-label="Legend">${labels.map((l) => html`<${Chip} key=${l} label=${l} />`)}</div>` : null}
    <div class="hl-text">${body}</div>
  </div>`;
}
