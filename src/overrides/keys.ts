// Redis keys of overrides, clearances and the review queue, built with the `tagged` scheme of src/store/keys.ts:
//   {ovr:<account>}  one account's override records, its append-only override log, its review items and their
//                    index. Every state change of an override is one script in this slot.
//   {ctl}            the replicas' projection: every active override of every account (id -> JSON) and an
//                    epoch moved on each change, read by the live-state poll with the other {ctl} keys, so an
//                    approval, revocation, expiry or invalidation reaches every replica within a poll (1 s).
import { createHash } from 'node:crypto';
import { tagged } from '../store/keys.js';

/** Accounts are free text chosen by the operator; anything that could break a hash tag is hashed. */
function accountTag(account: string): string {
  return /^[A-Za-z0-9._-]{1,64}$/.test(account) ? account : `h${createHash('sha256').update(account).digest('hex').slice(0, 24)}`;
}

export function overrideKeys(prefix: string) {
  const acct = (account: string, rest: string) => tagged(prefix, `ovr:${accountTag(account)}`, rest);
  const ctl = (rest: string) => tagged(prefix, 'ctl', rest);
  return {
    /** Hash id -> JSON OverrideRecord. */
    records: (account: string) => acct(account, 'records'),
    /** Stream: every state change (id, action, JSON history entry); never trimmed. */
    log: (account: string) => acct(account, 'log'),
    /** List: one override's history entries, oldest first (also in `log`). */
    history: (account: string, id: string) => acct(account, `h:${id}`),
    /** Hash MC -> JSON review item. */
    reviews: (account: string) => acct(account, 'reviews'),
    /** Zset MC -> MC as a number: the account's review items in MC order. */
    reviewIndex: (account: string) => acct(account, 'reviews:idx'),
    /** Set of accounts with any override or review (for export and tools, never a request path). */
    accounts: ctl('ovr:accounts'),
    /** Hash override id -> JSON OverrideRecord of every active override of every account. */
    active: ctl('ovr:active'),
    /** Counter moved on every change of `active`; replicas reload `active` when it moves. */
    epoch: ctl('ovr:epoch'),
  } as const;
}

export type OverrideKeys = ReturnType<typeof overrideKeys>;
