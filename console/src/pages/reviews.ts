// Reviews: the account's open review queue (GET /v1/reviews), a request form per carrier (POST /v1/overrides: a
// clearance for sanctions reasons, an override for the others), and the requests waiting for a second person
// (GET /v1/overrides?status=pending_approval) with Approve / Reject for keys holding the `approve` scope. A
// request's own author never sees Approve (the API refuses it too: 403 same_actor).
import { ApiError, call, type Identity } from '../api.js';
import { chip, el, field, replace, select, toast, when } from '../dom.js';

export const SANCTIONS_REASONS = new Set(['possible_ofac_match', 'possible_sam_exclusion', 'ofac_consolidated_match']);
const REASON_CODES = [
  ['false_positive_name_match', 'False positive name match'], ['verified_with_carrier', 'Verified with carrier'],
  ['verified_with_insurer', 'Verified with insurer'], ['customer_requirement', 'Customer requirement'],
  ['one_time_approval', 'One-time approval'], ['other', 'Other (note required)'],
] as const;

interface ReviewItem {
  id: string; mc_number: string; dot_number: string | null; legal_name: string | null; reasons: string[];
  evidence: unknown; first_seen_at: string; last_seen_at: string; seen_count: number; last_decision_id: string | null; status: string;
}
interface Override {
  id: string; mc_number: string; kind: string; status: string; reasons: string[]; reason_code: string; note?: string | null;
  scope: Record<string, unknown>; requested_by: string | null; requested_at?: string; expires_at?: string | null;
}
interface Page<T> { items?: T[]; data?: T[]; reviews?: T[]; overrides?: T[]; next_cursor?: string | null }
const itemsOf = <T>(page: Page<T>): T[] => page.items ?? page.data ?? page.reviews ?? page.overrides ?? [];

export async function reviewsPage(main: HTMLElement, me: Identity): Promise<void> {
  const queue = el('section', { 'aria-labelledby': 'queue-h' });
  const pending = el('section', { 'aria-labelledby': 'pending-h' });
  const reasonFilter = select([['', 'All reasons']]);
  replace(main,
    el('h1', {}, 'Reviews'),
    el('p', { class: 'muted' }, 'Carriers whose last verdict was a review. A clearance or override needs a second person to approve it before it changes a verdict.'),
    el('div', { class: 'toolbar' }, field('Reason', reasonFilter)),
    queue, pending);
  let items: ReviewItem[] = [];

  const renderQueue = (): void => {
    const wanted = reasonFilter.value;
    const shown = wanted === '' ? items : items.filter((item) => item.reasons.includes(wanted));
    replace(queue, el('h2', { id: 'queue-h' }, `Open reviews (${shown.length})`),
      shown.length === 0 ? el('p', { class: 'empty' }, 'Nothing waits for review.') : el('table', { class: 'grid' },
        el('thead', {}, el('tr', {}, ...['Carrier', 'Reasons', 'First seen', 'Last seen', 'Seen', ''].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, ...shown.flatMap((item) => reviewRows(item, me, refresh)))));
  };
  const refresh = async (): Promise<void> => {
    try {
      items = itemsOf(await call<Page<ReviewItem>>('GET', '/v1/reviews?status=open&limit=200'));
    } catch (error) {
      replace(queue, el('h2', { id: 'queue-h' }, 'Open reviews'), el('p', { class: 'error' }, errorText(error)));
      items = [];
    }
    const reasons = [...new Set(items.flatMap((item) => item.reasons))].sort();
    const keep = reasonFilter.value;
    replace(reasonFilter, el('option', { value: '' }, 'All reasons'), ...reasons.map((r) => el('option', { value: r, selected: r === keep }, r)));
    if (items.length > 0 || queue.childElementCount === 0) renderQueue();
    await renderPending(pending, me, refresh);
  };
  reasonFilter.addEventListener('change', renderQueue);
  await refresh();
}

/** A carrier's row and the detail row under it (evidence or a request form, shown on demand). */
function reviewRows(item: ReviewItem, me: Identity, refresh: () => Promise<void>): HTMLTableRowElement[] {
  const sanctions = item.reasons.filter((r) => SANCTIONS_REASONS.has(r));
  const others = item.reasons.filter((r) => !SANCTIONS_REASONS.has(r));
  const detail = el('td', { colspan: 6 });
  const detailRow = el('tr', { class: 'detail', hidden: true }, detail);
  const open = (content: HTMLElement) => { replace(detail, content); detailRow.hidden = false; content.querySelector<HTMLElement>('select, input, textarea, pre')?.focus(); };
  const row = el('tr', {},
    el('td', {}, el('strong', {}, `MC ${item.mc_number}`), el('br'), item.legal_name ?? '', item.dot_number ? el('span', { class: 'muted' }, ` · USDOT ${item.dot_number}`) : null),
    el('td', {}, ...item.reasons.map((r) => chip(r, SANCTIONS_REASONS.has(r) ? 'warn' : ''))),
    el('td', {}, when(item.first_seen_at)), el('td', {}, when(item.last_seen_at)), el('td', {}, String(item.seen_count)),
    el('td', { class: 'actions' },
      el('button', { type: 'button', class: 'secondary', onclick: () => open(el('pre', { tabindex: 0, 'aria-label': `Evidence for MC ${item.mc_number}` }, JSON.stringify(item.evidence, null, 2))) }, 'Evidence'),
      others.length > 0 ? el('button', { type: 'button', onclick: () => open(requestForm(item, others, 'override', me, refresh)) }, 'Request override') : null,
      sanctions.length > 0 ? el('button', { type: 'button', onclick: () => open(requestForm(item, sanctions, 'clearance', me, refresh)) }, 'Clear match') : null));
  return [row, detailRow];
}

function requestForm(item: ReviewItem, reasons: string[], kind: 'override' | 'clearance', me: Identity, refresh: () => Promise<void>): HTMLElement {
  const code = select(REASON_CODES, kind === 'clearance' ? 'false_positive_name_match' : 'verified_with_insurer');
  const scope = select(kind === 'clearance'
    ? [['until_change', 'Until the listing or the carrier\'s name changes'], ['until', 'Until a date']]
    : [['until_change', 'Until the facts change'], ['until', 'Until a date'], ['reference', 'One load (reference)']]);
  const until = el('input', { type: 'date' });
  const reference = el('input', { type: 'text', maxlength: 128 });
  const note = el('textarea', { rows: 3, maxlength: 2000 });
  const actor = el('input', { type: 'text', maxlength: 128, autocomplete: 'name' });
  const untilField = field('Until', until);
  const referenceField = field('Reference', reference);
  const sync = () => { untilField.hidden = scope.value !== 'until'; referenceField.hidden = scope.value !== 'reference'; };
  scope.addEventListener('change', sync);
  sync();
  const form = el('form', { class: 'inline-form', 'aria-label': kind === 'clearance' ? `Clear match for MC ${item.mc_number}` : `Request override for MC ${item.mc_number}` },
    el('p', {}, `${kind === 'clearance' ? 'Clearance' : 'Override'} of `, ...reasons.map((r) => chip(r))),
    field('Reason code', code), field('Scope', scope), untilField, referenceField, field('Note', note),
    me.actor ? el('p', { class: 'muted' }, `Requested as ${me.actor}`) : field('Your name', actor),
    el('button', { type: 'submit' }, 'Submit request'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const scopeBody = scope.value === 'reference' ? { reference: reference.value }
      : scope.value === 'until' ? { until: new Date(`${until.value}T23:59:59Z`).toISOString() } : { until_change: true };
    void call<Override>('POST', '/v1/overrides', {
      mc_number: item.mc_number, reasons, scope: scopeBody, reason_code: code.value,
      ...(note.value.trim() === '' ? {} : { note: note.value.trim() }), ...(me.actor ? {} : { actor: actor.value.trim() }),
    }).then(async (created) => {
      toast(`${created.kind === 'clearance' ? 'Clearance' : 'Override'} ${created.id} is ${created.status.replace('_', ' ')}.`);
      await refresh();
    }, (error: unknown) => toast(errorText(error), 'error'));
  });
  return form;
}

async function renderPending(section: HTMLElement, me: Identity, refresh: () => Promise<void>): Promise<void> {
  let list: Override[];
  try {
    list = itemsOf(await call<Page<Override>>('GET', '/v1/overrides?status=pending_approval'));
  } catch (error) {
    replace(section, el('h2', { id: 'pending-h' }, 'Pending approval'), el('p', { class: 'error' }, errorText(error)));
    return;
  }
  const canApprove = me.scopes.includes('approve');
  replace(section, el('h2', { id: 'pending-h' }, 'Pending approval'),
    list.length === 0 ? el('p', { class: 'empty' }, 'No request waits for approval.') : el('ul', { class: 'cards' }, ...list.map((o) => {
      const own = me.actor !== null && o.requested_by === me.actor;
      const decide = (verb: 'approve' | 'reject') => () => {
        const actorName = me.actor ?? window.prompt('Your name, for the record') ?? '';
        void call('POST', `/v1/overrides/${encodeURIComponent(o.id)}/${verb}`, { ...(me.actor ? {} : { actor: actorName }) })
          .then(async () => { toast(`${o.id} ${verb === 'approve' ? 'approved' : 'rejected'}.`); await refresh(); }, (error: unknown) => toast(errorText(error), 'error'));
      };
      return el('li', { class: 'card', 'aria-label': `Request ${o.id}` },
        el('p', {}, el('strong', {}, `MC ${o.mc_number}`), ` · ${o.kind} · `, ...o.reasons.map((r) => chip(r))),
        el('p', { class: 'muted' }, `${o.reason_code} · requested by ${o.requested_by ?? 'unknown'} ${when(o.requested_at)}`, o.note ? ` · “${o.note}”` : ''),
        canApprove && !own ? el('div', { class: 'actions' },
          el('button', { type: 'button', onclick: decide('approve') }, 'Approve'),
          el('button', { type: 'button', class: 'secondary', onclick: decide('reject') }, 'Reject'))
          : el('p', { class: 'muted' }, own ? 'Your own request: another person approves it.' : 'Needs a key with the approve scope.'));
    })));
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.status === 403 && error.code === 'same_actor' ? 'You cannot approve your own request.' : error.message;
  return 'The service could not be reached.';
}
