// Rosters: a CSV file screened as a batch job. Rows that cannot be screened (no MC number) are shown before
// submitting; the job is polled with a progress bar, its outcome summary drawn as a bar chart, its report shown
// as a filterable table and offered for download (GET /v1/batch/{id}/report, RFC 4180 CSV).
import { call, download, saveBlob, type Identity } from '../api.js';
import { el, field, replace, select, toast } from '../dom.js';
import { parseCsv, rosterRows, type RosterRow } from '../roster.js';
import { errorText } from './reviews.js';

interface BatchStatus { job_id: string; status: string; total: number; processed?: number; completed?: number; summary?: Record<string, number> }
const OUTCOMES = ['eligible', 'review', 'hard_stop', 'not_found', 'not_screened', 'error'] as const;

export function rostersPage(main: HTMLElement, _me: Identity): void {
  const file = el('input', { type: 'file', accept: '.csv,text/csv' });
  const preview = el('section', { 'aria-live': 'polite' });
  const job = el('section', { 'aria-live': 'polite' });
  replace(main, el('h1', {}, 'Rosters'),
    el('p', { class: 'muted' }, 'Upload a CSV with an mc (or mc_number) column, and optionally dot and ref. Up to 5000 rows.'),
    field('Roster CSV', file), preview, job);
  file.addEventListener('change', () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    void chosen.text().then((text) => showPreview(preview, job, rosterRows(parseCsv(text))));
  });
}

function showPreview(preview: HTMLElement, job: HTMLElement, rows: { ok: RosterRow[]; rejected: Array<{ line: number; why: string }> }): void {
  const submit = el('button', { type: 'button', disabled: rows.ok.length === 0 || rows.ok.length > 5000 }, `Screen ${rows.ok.length} carriers`);
  submit.addEventListener('click', () => {
    submit.disabled = true;
    void call<BatchStatus>('POST', '/v1/batch', { items: rows.ok }).then((accepted) => follow(job, accepted.job_id), (error: unknown) => {
      submit.disabled = false;
      toast(errorText(error), 'error');
    });
  });
  replace(preview,
    el('p', {}, `${rows.ok.length} rows ready`, rows.rejected.length > 0 ? `, ${rows.rejected.length} cannot be screened:` : '.'),
    rows.rejected.length === 0 ? null : el('ul', { class: 'rejected', 'aria-label': 'Rows that cannot be screened' },
      ...rows.rejected.slice(0, 50).map((r) => el('li', {}, `Line ${r.line}: ${r.why}`))),
    rows.ok.length > 5000 ? el('p', { class: 'error' }, 'A roster holds at most 5000 rows; split the file.') : null,
    submit);
}

async function follow(section: HTMLElement, jobId: string): Promise<void> {
  const bar = el('progress', { max: 100, value: 0, 'aria-label': 'Screening progress' });
  const label = el('span', {}, 'Queued');
  replace(section, el('h2', {}, `Job ${jobId}`), el('p', {}, bar, ' ', label));
  for (;;) {
    let status: BatchStatus;
    try {
      status = await call<BatchStatus>('GET', `/v1/batch/${encodeURIComponent(jobId)}`);
    } catch (error) {
      replace(label, errorText(error));
      return;
    }
    const done = status.processed ?? status.completed ?? Object.values(status.summary ?? {}).reduce((a, b) => a + b, 0);
    bar.value = status.total === 0 ? 100 : Math.round((done / status.total) * 100);
    replace(label, `${status.status}: ${done} of ${status.total}`);
    if (status.status === 'completed' || status.status === 'failed' || status.status === 'cancelled') {
      await showResult(section, jobId, status);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function showResult(section: HTMLElement, jobId: string, status: BatchStatus): Promise<void> {
  const blob = await download(`/v1/batch/${encodeURIComponent(jobId)}/report`);
  const table = parseCsv(await blob.text());
  const [header = [], ...lines] = table;
  const filter = select([['', 'All outcomes'], ...OUTCOMES.map((o) => [o, o] as const)]);
  const body = el('tbody');
  const col = (name: string) => header.indexOf(name);
  const shownColumns = ['row', 'ref', 'mc', 'outcome', 'tier', 'reasons', 'decision_id'].filter((c) => col(c) >= 0);
  const render = () => replace(body, ...lines.filter((l) => filter.value === '' || l[col('outcome')] === filter.value)
    .map((l) => el('tr', {}, ...shownColumns.map((c) => el('td', { class: c === 'decision_id' ? 'mono' : '' },
      c === 'decision_id' && l[col(c)] ? el('a', { href: `#/decisions/${l[col(c)] ?? ''}` }, l[col(c)] ?? '') : l[col(c)] ?? '')))));
  filter.addEventListener('change', render);
  render();
  const save = el('button', { type: 'button' }, 'Download report');
  save.addEventListener('click', () => saveBlob(blob, `roster-${jobId}.csv`));
  section.append(
    el('h3', {}, 'Outcomes'), chart(status.summary ?? {}),
    el('div', { class: 'toolbar' }, field('Outcome', filter), save),
    el('table', { class: 'grid' }, el('thead', {}, el('tr', {}, ...shownColumns.map((c) => el('th', { scope: 'col' }, c)))), body));
}

/** The outcome summary as horizontal bars (SVG built with the DOM; values also as text for screen readers). */
function chart(summary: Record<string, number>): Element {
  const ns = 'http://www.w3.org/2000/svg';
  const max = Math.max(1, ...OUTCOMES.map((o) => summary[o] ?? 0));
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 420 ${OUTCOMES.length * 26}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', OUTCOMES.map((o) => `${o} ${summary[o] ?? 0}`).join(', '));
  svg.setAttribute('class', 'chart');
  OUTCOMES.forEach((outcome, i) => {
    const value = summary[outcome] ?? 0;
    const text = document.createElementNS(ns, 'text');
    text.setAttribute('x', '0'); text.setAttribute('y', String(i * 26 + 17));
    text.textContent = outcome;
    const rect = document.createElementNS(ns, 'rect');
    rect.setAttribute('x', '110'); rect.setAttribute('y', String(i * 26 + 4));
    rect.setAttribute('height', '18'); rect.setAttribute('width', String(Math.round((value / max) * 260)));
    rect.setAttribute('class', `bar ${outcome}`);
    const count = document.createElementNS(ns, 'text');
    count.setAttribute('x', String(116 + Math.round((value / max) * 260))); count.setAttribute('y', String(i * 26 + 17));
    count.textContent = String(value);
    svg.append(text, rect, count);
  });
  return svg;
}
