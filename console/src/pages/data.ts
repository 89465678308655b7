// Data: per-source freshness from GET /v1/health, so an analyst can tell how old the facts behind a verdict are.
import { call, type Identity } from '../api.js';
import { append, chip, el, replace, when } from '../dom.js';
import { errorText } from './reviews.js';

interface Source { present: boolean; required: boolean; as_of: string | null; ingested_at: string | null; age_seconds: number | null; max_age_seconds: number; fresh: boolean }
interface Health { status: string; ruleset_version: number | null; data_as_of: string | null; carrier_count: number | null; degraded_reasons: string[]; sources: Record<string, Source>; not_screened?: string[] }

export async function dataPage(main: HTMLElement, _me: Identity): Promise<void> {
  replace(main, el('h1', {}, 'Data'));
  let health: Health;
  try {
    health = await call<Health>('GET', '/v1/health');
  } catch (error) {
    main.append(el('p', { class: 'error' }, errorText(error)));
    return;
  }
  const hours = (s: number | null) => (s === null ? '—' : `${(s / 3600).toFixed(1)} h`);
  append(main, [
    el('p', {}, 'Service ', chip(health.status, health.status === 'ok' ? 'ok' : 'warn'),
      ` · rule set v${health.ruleset_version ?? '—'} · ${health.carrier_count ?? 0} carriers · data as of ${when(health.data_as_of)}`),
    health.degraded_reasons.length > 0 ? el('p', { class: 'error' }, `Verdicts withheld: ${health.degraded_reasons.join(', ')}`) : null,
    el('table', { class: 'grid' },
      el('thead', {}, el('tr', {}, ...['Source', 'Required', 'As of', 'Ingested', 'Age', 'Limit', 'State'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, ...Object.entries(health.sources).map(([name, s]) => el('tr', {},
        el('td', {}, name), el('td', {}, s.required ? 'yes' : 'no'), el('td', {}, when(s.as_of)), el('td', {}, when(s.ingested_at)),
        el('td', {}, hours(s.age_seconds)), el('td', {}, hours(s.max_age_seconds)),
        el('td', {}, !s.present ? chip(s.required ? 'missing' : 'not screened', s.required ? 'bad' : '') : chip(s.fresh ? 'fresh' : 'stale', s.fresh ? 'ok' : 'bad'))))))]);
}
