// Monitoring: the account's watch list with each carrier's current verdict, and the latest events.
import { call, type Identity } from '../api.js';
import { chip, el, replace, when } from '../dom.js';
import { errorText } from './reviews.js';

interface Watched { mc_number: string; verdict?: { eligible: boolean; tier: string | null; reasons: string[] } | null; added_at?: string }
interface EventItem { id: string; type: string; mc_number?: string; occurred_at?: string; created_at?: string; data?: unknown }
interface Page<T> { items?: T[]; data?: T[]; events?: T[]; next_cursor?: string | null }

export async function monitoringPage(main: HTMLElement, _me: Identity): Promise<void> {
  const watch = el('section', {}, el('h2', {}, 'Watch list'));
  const events = el('section', {}, el('h2', {}, 'Latest events'));
  replace(main, el('h1', {}, 'Monitoring'), watch, events);
  try {
    const page = await call<Page<Watched>>('GET', '/v1/watchlist?limit=200');
    const items = page.items ?? page.data ?? [];
    watch.append(items.length === 0 ? el('p', { class: 'empty' }, 'No carrier is watched.') : el('table', { class: 'grid' },
      el('thead', {}, el('tr', {}, ...['MC', 'Verdict', 'Reasons', 'Watched since'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, ...items.map((w) => el('tr', {}, el('td', {}, w.mc_number),
        el('td', {}, w.verdict ? chip(w.verdict.eligible ? 'eligible' : w.verdict.tier ?? 'not screened', w.verdict.eligible ? 'ok' : 'warn') : '—'),
        el('td', {}, ...(w.verdict?.reasons ?? []).map((r) => chip(r))), el('td', {}, when(w.added_at)))))));
  } catch (error) {
    watch.append(el('p', { class: 'error' }, errorText(error)));
  }
  try {
    const page = await call<Page<EventItem>>('GET', '/v1/events?limit=1000');
    const items = (page.items ?? page.events ?? page.data ?? []).slice(-50).reverse();
    events.append(items.length === 0 ? el('p', { class: 'empty' }, 'No events yet.') : el('ul', { class: 'evidence' },
      ...items.map((e) => el('li', {}, chip(e.type), ` MC ${e.mc_number ?? '—'} · ${when(e.occurred_at ?? e.created_at)}`))));
  } catch (error) {
    events.append(el('p', { class: 'error' }, errorText(error)));
  }
}
