// Encoding of carrier records inside snapshot hashes. One module owns it so ingest and lookups always agree.
// Compact delimited text, because 1M+ records must fit in < 300 bytes of Redis memory each and values must stay
// small enough for listpack-encoded hashes: dates are base-36 day numbers, amounts base-36 dollars, the MC is
// the hash field (not repeated), and hits (rare) ride at the end in their own compact form (src/store/hit-codec.ts).
// Older JSON values, and hits written as JSON, still decode.
//
//   R|dot|legal|dba|usdot|auth|granted|rev_pending|revoked|bipd_on_file|bipd_required|cancel|hazmat|safety|mcs150|oos_since|oos_reason|hits
//   S|facts|<R or Q record>                          (the verdict-rule facts in front; see encodeFacts)
//   A|dot,dot,...                                    (an MC listed under several DOT records)
//   I|identity JSON|<S, R or Q record>               (identity signals in front, when the carrier has any)
import type {
  AuthorityStatus, CarrierLookup, CarrierRecord, IdentityChangeFact, IdentitySignals, SharedContactFact,
} from '../core/carrier.js';
import { IDENTITY_FIELDS } from '../core/identity.js';
import { decodeHits, encodeHits } from './hit-codec.js';

export type StoredCarrier = CarrierRecord | { ambiguous: string[] };

const DAY_MS = 86_400_000;
const LEGAL_NAME_MAX = 80;
const DBA_NAME_MAX = 60;
const OOS_REASON_MAX = 60;
/** revocation_pending_on = '' (an order exists, no effective date yet) is stored as this marker. */
const NO_DATE = '-';

const AUTH_CODE: Record<AuthorityStatus, string> = { active: 'a', inactive: 'i', pending: 'p', none: 'n', unknown: 'u' };
const AUTH_STATUS = Object.fromEntries(Object.entries(AUTH_CODE).map(([status, code]) => [code, status])) as Record<string, AuthorityStatus>;

function text(value: string | null, max: number): string {
  return value === null ? '' : value.replace(/[|\r\n]/g, ' ').slice(0, max);
}

function date(value: string | null): string {
  if (value === null) return '';
  if (value === '') return NO_DATE;
  const ms = Date.parse(`${value.slice(0, 10)}T00:00:00Z`);
  return Number.isFinite(ms) ? Math.round(ms / DAY_MS).toString(36) : NO_DATE;
}

// A cache-cold check of a found carrier decodes up to six dates, and toISOString costs ~430 ns each (bench/micro):
// decodeCarrier took 2.2 µs for a record with two dates; carriers share their days, so each is formatted once.
const isoDays = new Map<string, string>();

function undate(value: string | undefined): string | null {
  if (!value) return null;
  if (value === NO_DATE) return '';
  let iso = isoDays.get(value);
  if (iso === undefined) {
    iso = new Date(parseInt(value, 36) * DAY_MS).toISOString().slice(0, 10);
    // Bounded: a snapshot's dates are days (tens of thousands at most); a full memo restarts.
    if (isoDays.size >= 100_000) isoDays.clear();
    isoDays.set(value, iso);
  }
  return iso;
}

function amount(value: number | null): string {
  return value === null ? '' : Math.round(value).toString(36);
}

function unamount(value: string | undefined): number | null {
  return value ? parseInt(value, 36) : null;
}

const SCOPE_CODE = { passenger: 'g', household_goods: 'h', unknown: 'u' } as const;
const fact = (value: string | null | undefined): string => (value ? value.replace(/[|;,\r\n]/g, ' ').slice(0, 12) : '');

/**
 * The verdict-rule facts (src/core/federal-rules.ts) in a few bytes: census docket status, carrier operation and
 * authority scope as one character each ('-' = none), then the rare ones as ';'-separated tagged tokens:
 * r prior revoked DOT, l lapsed-on date, a BIPD after the pending cancellation, x excess not counted.
 */
function encodeFacts(r: CarrierRecord): string | null {
  if (r.census === undefined && !r.authority.scope && r.insurance.bipd_after_cancellation_usd === undefined
    && !r.insurance.lapsed_on && !r.insurance.excess_not_counted_usd) return null;
  let out = `${fact(r.census?.docket_status).slice(0, 1) || '-'}${fact(r.census?.carrier_operation).slice(0, 1) || '-'}`
    + `${r.authority.scope ? SCOPE_CODE[r.authority.scope] : '-'}`;
  const prior = r.census?.prior_revoke_dot;
  if (prior !== null && prior !== undefined) out += `;r${fact(prior)}`;
  if (r.insurance.lapsed_on) out += `;l${date(r.insurance.lapsed_on)}`;
  const after = r.insurance.bipd_after_cancellation_usd;
  if (after !== undefined && after !== null) out += `;a${amount(after)}`;
  if (r.insurance.excess_not_counted_usd) out += `;x${amount(r.insurance.excess_not_counted_usd)}`;
  return out;
}

function decodeFacts(encoded: string, record: CarrierRecord): void {
  const [head = '---', ...tokens] = encoded.split(';');
  const char = (index: number): string | null => (head[index] && head[index] !== '-' ? head[index]! : null);
  const census: NonNullable<CarrierRecord['census']> = { docket_status: char(0), carrier_operation: char(1), prior_revoke_dot: null };
  const scope = char(2);
  if (scope === 'g') record.authority.scope = 'passenger';
  else if (scope === 'h') record.authority.scope = 'household_goods';
  else if (scope === 'u') record.authority.scope = 'unknown';
  for (const token of tokens) {
    const value = token.slice(1);
    if (token[0] === 'r') census.prior_revoke_dot = value;
    else if (token[0] === 'l') record.insurance.lapsed_on = undate(value);
    else if (token[0] === 'a') record.insurance.bipd_after_cancellation_usd = unamount(value) ?? 0;
    else if (token[0] === 'x') record.insurance.excess_not_counted_usd = unamount(value);
  }
  record.census = census;
}

/** Identity values in the record: '|' never appears (the JSON is one '|'-separated part), 100 characters at most. */
const IDENTITY_VALUE_MAX = 100;
const identityValue = (value: string) => value.replace(/[|\r\n]/g, ' ').slice(0, IDENTITY_VALUE_MAX);

type EncodedChange = [number, string | null, string, string];
interface EncodedIdentity {
  c?: EncodedChange; a?: EncodedChange; n?: EncodedChange;
  /** [p(hone) | e(mail), value, unrelated carriers, "dot,dot"] */
  s?: Array<[string, string, number, string]>;
  /** [on, r(evocation) | i(nactivity), since] (days as base-36 day numbers) */
  r?: [string, string, string];
}

function encodeChange(change: IdentityChangeFact): EncodedChange {
  const index = (IDENTITY_FIELDS as readonly string[]).indexOf(change.field);
  return [index, change.old === null ? null : identityValue(change.old), identityValue(change.new), date(change.first_seen_on)];
}

function decodeChange(encoded: EncodedChange | undefined): IdentityChangeFact | undefined {
  if (encoded === undefined) return undefined;
  const [index, old, now, day] = encoded;
  return { field: IDENTITY_FIELDS[index] ?? 'unknown', old, new: now, first_seen_on: undate(day) ?? '' };
}

function encodeIdentity(signals: IdentitySignals): string {
  const out: EncodedIdentity = {};
  if (signals.contact) out.c = encodeChange(signals.contact);
  if (signals.address) out.a = encodeChange(signals.address);
  if (signals.name) out.n = encodeChange(signals.name);
  if (signals.shared?.length) {
    out.s = signals.shared.map((item) => [item.field === 'phone' ? 'p' : 'e', identityValue(item.value), item.unrelated, item.dots.slice(0, 10).join(',')]);
  }
  if (signals.reactivated) out.r = [date(signals.reactivated.on), signals.reactivated.after === 'revocation' ? 'r' : 'i', date(signals.reactivated.since)];
  return JSON.stringify(out);
}

function decodeIdentity(json: string): IdentitySignals {
  const encoded = JSON.parse(json) as EncodedIdentity;
  const signals: IdentitySignals = {};
  const contact = decodeChange(encoded.c);
  const address = decodeChange(encoded.a);
  const name = decodeChange(encoded.n);
  if (contact) signals.contact = contact;
  if (address) signals.address = address;
  if (name) signals.name = name;
  if (encoded.s) {
    signals.shared = encoded.s.map(([field, value, unrelated, dots]): SharedContactFact => ({
      field: field === 'p' ? 'phone' : 'email', value, unrelated, dots: dots.split(',').filter(Boolean),
    }));
  }
  if (encoded.r) {
    const [on, after, since] = encoded.r;
    signals.reactivated = { on: undate(on) ?? '', after: after === 'r' ? 'revocation' : 'inactivity', since: undate(since) ?? '' };
  }
  return signals;
}

const hasSignals = (signals: IdentitySignals | undefined): signals is IdentitySignals =>
  signals !== undefined && (signals.contact !== undefined || signals.address !== undefined || signals.name !== undefined
    || (signals.shared?.length ?? 0) > 0 || signals.reactivated !== undefined);

export function encodeCarrier(value: StoredCarrier): string {
  if ('ambiguous' in value) return `A|${value.ambiguous.join(',')}`;
  // The verdict-rule facts ride in front: S|facts|<the R or Q record>; identity signals in front of those.
  const facts = encodeFacts(value);
  const record = facts === null ? encodeRecord(value) : `S|${facts}|${encodeRecord(value)}`;
  return hasSignals(value.identity) ? `I|${encodeIdentity(value.identity)}|${record}` : record;
}

function encodeRecord(value: CarrierRecord): string {
  const r = value;
  // A record with unreadable fields is tagged Q:<fields> instead of R (older records never carry it).
  const tag = r.unreadable?.length ? `Q:${r.unreadable.map((field) => field.replace(/[|,]/g, ' ')).join(',')}` : 'R';
  const legal = text(r.legal_name, LEGAL_NAME_MAX);
  const dba = text(r.dba_name, DBA_NAME_MAX);
  return [
    tag, r.dot ?? '', legal, dba, text(r.usdot_status, 4),
    AUTH_CODE[r.authority.status], date(r.authority.granted_on), date(r.authority.revocation_pending_on),
    date(r.authority.revoked_on), amount(r.insurance.bipd_on_file_usd), amount(r.insurance.bipd_required_usd),
    date(r.insurance.cancellation_effective_on), r.hazmat ? '1' : '', text(r.safety_rating, 1), date(r.mcs150_date),
    r.oos_order ? date(r.oos_order.since) : '', r.oos_order ? text(r.oos_order.reason || 'out-of-service order', OOS_REASON_MAX) : '',
    // Hits name the carrier by the names stored here rather than repeating them (src/store/hit-codec.ts).
    encodeHits(r.hits, { legal, dba: dba || null }),
  ].join('|');
}

/**
 * The lookup of every MC number a snapshot does not hold: one shared object, so the verdict template built for
 * it (src/eligibility/service.ts, keyed by lookup) serves every unknown number instead of one per number.
 */
export const NOT_FOUND: CarrierLookup = Object.freeze({ kind: 'not_found' });

export function decodeCarrier(mc: string, encoded: string | null): CarrierLookup {
  if (encoded === null) return NOT_FOUND;
  if (encoded.startsWith('{')) {
    const value = JSON.parse(encoded) as StoredCarrier;
    if ('ambiguous' in value) return { kind: 'ambiguous', mc, dot_numbers: value.ambiguous };
    return { kind: 'found', record: value };
  }
  let parts = encoded.split('|');
  if (parts[0] === 'A') return { kind: 'ambiguous', mc, dot_numbers: (parts[1] ?? '').split(',').filter(Boolean) };
  const identity = parts[0] === 'I' ? decodeIdentity(parts[1] ?? '{}') : null;
  if (identity !== null) parts = parts.slice(2);
  const facts = parts[0] === 'S' ? parts[1] ?? '' : null;
  if (facts !== null) parts = parts.slice(2);
  const tag = parts[0] ?? '';
  const unreadable = tag.startsWith('Q:') ? tag.slice(2).split(',').filter(Boolean) : null;
  if ((tag !== 'R' && unreadable === null) || parts.length < 18) throw new Error(`undecodable carrier record for MC ${mc}`);
  const p = (index: number): string => parts[index] ?? '';
  const record: CarrierRecord = {
    mc,
    dot: p(1) || null,
    legal_name: p(2),
    dba_name: p(3) || null,
    usdot_status: p(4) || null,
    authority: {
      status: AUTH_STATUS[p(5)] ?? 'unknown',
      granted_on: undate(p(6)),
      revocation_pending_on: undate(p(7)),
      revoked_on: undate(p(8)),
    },
    insurance: {
      bipd_on_file_usd: unamount(p(9)),
      bipd_required_usd: unamount(p(10)),
      cancellation_effective_on: undate(p(11)),
    },
    hazmat: p(12) === '1',
    safety_rating: p(13) || null,
    mcs150_date: undate(p(14)),
    oos_order: p(16) ? { since: undate(p(15)), reason: p(16) } : null,
    // Hit JSON may itself contain '|' (names), so it is everything after the 17th separator.
    hits: decodeHits(parts.length === 18 ? p(17) : parts.slice(17).join('|'), { legal: p(2), dba: p(3) || null }),
    ...(unreadable ? { unreadable } : {}),
  };
  if (facts !== null) decodeFacts(facts, record);
  if (identity !== null) record.identity = identity;
  return { kind: 'found', record };
}
