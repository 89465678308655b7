// Decisions: a record read back by id (GET /v1/decisions/{id}) and shown as a compliance officer reads it: the
// verdict, each reason with its evidence, the sources with their as-of dates, the overrides applied, and the
// record itself as JSON to download.
import { call, type Identity } from '../api.js';
import { chip, el, field, replace, when } from '../dom.js';
import { errorText } from './reviews.js';

interface Evidence { reason: string; source: string; record_id: string | null; facts: Record<string, unknown> | null; rule: Record<string, unknown> | null }
interface SourceEvidence { source: string; present: boolean; as_of: string | null; ingested_at: string | null; files?: Array<{ name: string; sha256: string | null }> }
interface AppliedOverride { id: string; kind: string; reasons: string[]; reason_code: string; requested_by: string | null; approved_by: string | null; approved_at: string | null; expires_at: string | null }
interface Verdict {
  eligible: boolean; tier: string | null; reasons: string[]; degraded: boolean; mc_number: string; evaluated_at: string;
  data_as_of: string | null; ruleset_version: number | null; policy_version?: number | null;
  carrier?: { dot_number: string | null; legal_name: string | null } | null;
  evidence?: { reasons: Evidence[]; sources: SourceEvidence[] }; overrides?: AppliedOverride[];
}
interface DecisionRecord { decision_id: string; kind: string; verdict: Verdict; key_id: string; reference: string | null; ruleset?: { version: number; sha256: string } | null }

export function decisionsPage(main: HTMLElement, _me: Identity, initial: string | undefined): void {
  const id = el('input', { type: 'text', class: 'wide', spellcheck: 'false', autocomplete: 'off', value: initial ?? '', placeholder: '019a…' });
  const result = el('section', { 'aria-live': 'polite' });
  const form = el('form', { class: 'toolbar' }, field('Decision id', id), el('button', { type: 'submit' }, 'Look up'));
  const lookUp = async (): Promise<void> => {
    const wanted = id.value.trim();
    if (wanted === '') return;
    replace(result, el('p', { class: 'muted' }, 'Loading…'));
    try {
      const record = await call<DecisionRecord>('GET', `/v1/decisions/${encodeURIComponent(wanted)}`);
      replace(result, renderRecord(record));
      history.replaceState(null, '', `#/decisions/${encodeURIComponent(wanted)}`);
    } catch (error) {
      replace(result, el('p', { class: 'error', role: 'alert' }, errorText(error)));
    }
  };
  form.addEventListener('submit', (event) => { event.preventDefault(); void lookUp(); });
  replace(main, el('h1', {}, 'Decisions'), form, result);
  if (initial) void lookUp();
}

function renderRecord(record: DecisionRecord): HTMLElement {
  const v = record.verdict;
  const json = new Blob([JSON.stringify(record, null, 2)], { type: 'application/json' });
  const download = el('a', { href: URL.createObjectURL(json), download: `decision-${record.decision_id}.json`, class: 'button secondary' }, 'Download JSON');
  const outcome = v.eligible ? chip('Eligible', 'ok') : v.degraded ? chip('Not screened', 'warn') : v.tier === 'blocked' ? chip('Blocked', 'bad') : chip('Review', 'warn');
  const evidence = v.evidence?.reasons ?? [];
  const sources = v.evidence?.sources ?? [];
  const overrides = v.overrides ?? [];
  return el('article', { class: 'card', 'aria-label': `Decision ${record.decision_id}` },
    el('h2', {}, `MC ${v.mc_number} `, outcome),
    el('dl', { class: 'facts' },
      el('dt', {}, 'Carrier'), el('dd', {}, v.carrier?.legal_name ?? '—', v.carrier?.dot_number ? ` · USDOT ${v.carrier.dot_number}` : ''),
      el('dt', {}, 'Decision'), el('dd', {}, record.decision_id, ` (${record.kind === 'batch_row' ? 'roster row' : 'single check'})`),
      el('dt', {}, 'Evaluated'), el('dd', {}, when(v.evaluated_at)),
      el('dt', {}, 'Data as of'), el('dd', {}, when(v.data_as_of)),
      el('dt', {}, 'Rule set'), el('dd', {}, v.ruleset_version === null ? '—' : `v${v.ruleset_version}`, v.policy_version ? ` · account policy v${v.policy_version}` : ''),
      el('dt', {}, 'Tier'), el('dd', {}, v.tier ?? '—'),
      el('dt', {}, 'Reference'), el('dd', {}, record.reference ?? '—')),
    el('h3', {}, 'Reasons and evidence'),
    evidence.length === 0 ? el('p', { class: 'empty' }, 'No reason applied.') : el('ul', { class: 'evidence' }, ...evidence.map((e) =>
      el('li', {}, chip(e.reason, v.reasons.includes(e.reason) ? 'warn' : ''), ` ${e.source}${e.record_id ? ` #${e.record_id}` : ''}`,
        typeof e.facts?.explanation === 'string' ? el('p', { class: 'explain' }, e.facts.explanation) : null,
        e.facts ? el('pre', {}, JSON.stringify(e.facts, null, 2)) : null))),
    el('h3', {}, 'Overrides applied'),
    overrides.length === 0 ? el('p', { class: 'empty' }, 'None.') : el('ul', { class: 'evidence' }, ...overrides.map((o) =>
      el('li', { 'aria-label': `Override ${o.id}` }, chip(o.kind), ` ${o.id}: `, o.reasons.join(', '), ` · ${o.reason_code} · requested by ${o.requested_by ?? '—'}, approved by ${o.approved_by ?? '—'} ${when(o.approved_at)}`, o.expires_at ? ` · expires ${when(o.expires_at)}` : ''))),
    el('h3', {}, 'Sources'),
    el('table', { class: 'grid' },
      el('thead', {}, el('tr', {}, ...['Source', 'As of', 'Ingested', 'Files'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, ...sources.map((s) => el('tr', {},
        el('td', {}, s.source), el('td', {}, s.present ? when(s.as_of) : 'not present'), el('td', {}, when(s.ingested_at)),
        el('td', { class: 'mono' }, (s.files ?? []).map((f) => `${f.name} ${f.sha256?.slice(0, 12) ?? ''}`).join('; ')))))),
    el('p', {}, download));
}
