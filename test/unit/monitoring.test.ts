// Pure parts of monitoring: SSRF address classes, the time schedule, change events, backoff, cursors, the
// watch-list import validation and the signature header (checked with the standardwebhooks package).
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { DEFAULT_RULE_SET } from '../../src/core/ruleset.js';
import { AppError } from '../../src/errors.js';
import { AccountView, changedPairs, changedPolicies, pairKey } from '../../src/monitoring/account-view.js';
import { backoffMs, compareIds } from '../../src/monitoring/delivery.js';
import { decodeCursor, encodeCursor } from '../../src/monitoring/event-store.js';
import { changeEvents, verdictChanged, type VerdictSummary } from '../../src/monitoring/events-model.js';
import { parseWatchItems } from '../../src/monitoring/routes.js';
import { parseWatchFile } from '../../src/cli/commands/watch.js';
import { nextChangeAt } from '../../src/monitoring/schedule.js';
import { parseRetryAfter, signatureHeader } from '../../src/monitoring/sender.js';
import { checkWebhookUrl, isPrivateAddress } from '../../src/monitoring/ssrf.js';
import { newSecret } from '../../src/monitoring/webhook-store.js';
import { MonitoringMetrics } from '../../src/monitoring/metrics.js';
import { Registry } from 'prom-client';
import { cleanCarrier } from '../helpers/harness.js';

const DAY = 86_400_000;

describe('SSRF guard', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '224.0.0.1'])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
  it('checks URLs: scheme, credentials, literal private addresses; the operator switch lifts the address check', async () => {
    expect(await checkWebhookUrl('http://127.0.0.1:9/x', false)).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('http://[::1]/x', false)).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('https://u:p@example.com/x', true)).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('file:///etc/passwd', true)).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('http://127.0.0.1:9/x', true)).toMatchObject({ ok: true });
    expect(await checkWebhookUrl('https://8.8.8.8/hook', false)).toMatchObject({ ok: true });
  });
});

describe('time schedule', () => {
  const now = Date.UTC(2026, 10, 1);
  it('names the earliest future instant a time rule can flip', () => {
    const record = cleanCarrier('1', {
      authority: { status: 'active', granted_on: '2026-10-01', revocation_pending_on: '2026-12-15', revoked_on: null },
      insurance: { bipd_on_file_usd: 1_000_000, bipd_required_usd: 750_000, cancellation_effective_on: '2026-12-20' },
      mcs150_date: '2025-01-10',
    });
    // new authority ages out on 2026-10-01 + 90 days = 2026-12-30; the cancellation enters its 30-day window on 2026-11-20.
    expect(new Date(nextChangeAt(record, DEFAULT_RULE_SET, now) as number).toISOString().slice(0, 10)).toBe('2026-11-20');
    // The cancellation takes effect on its day (2026-12-20): the policy leaves the insurance in force then.
    expect(new Date(nextChangeAt(record, DEFAULT_RULE_SET, Date.UTC(2026, 11, 16)) as number).toISOString().slice(0, 10)).toBe('2026-12-20');
  });
  it('is null when time alone cannot change the verdict', () => {
    expect(nextChangeAt(cleanCarrier('1', { mcs150_date: null }), DEFAULT_RULE_SET, now)).toBe(null);
  });
});

describe('change events', () => {
  const summary = (reasons: string[], eligible: boolean, tier: VerdictSummary['tier']): VerdictSummary => ({
    eligible, tier, reasons: reasons as VerdictSummary['reasons'], dot: '9', ruleset_version: 1, data_as_of: null,
    evidence: reasons.map((reason) => ({ reason: reason as VerdictSummary['reasons'][number], source: 'insurance_history', record_id: null, facts: { cancellation_effective_on: '2026-11-25', filed_on: '2026-10-30' }, rule: null })),
  });
  it('a new data version with the same verdict is not a change; a tier or reason change is', () => {
    expect(verdictChanged(summary([], true, 'preferred'), { ...summary([], true, 'preferred'), data_as_of: 'x' })).toBe(false);
    expect(verdictChanged(summary([], true, 'preferred'), summary([], true, 'standard'))).toBe(true);
    expect(verdictChanged(summary(['new_authority'], false, 'conditional'), summary(['mcs150_outdated'], false, 'conditional'))).toBe(true);
  });
  it('a pending cancellation adds an at-risk event with the effective date; occurred_at is the source date', () => {
    let n = 0;
    const events = changeEvents(summary([], true, 'preferred'), summary(['insurance_cancellation_pending'], false, 'conditional'), {
      mc: '5', trigger: 'snapshot', observedMs: Date.UTC(2026, 10, 2), decisionId: 'd', newId: () => `e${n++}`,
      record: cleanCarrier('5', { insurance: { bipd_on_file_usd: 1, bipd_required_usd: 1, cancellation_effective_on: '2026-11-25' } }),
    });
    expect(events.map((event) => [event.id, event.type])).toEqual([['e0', 'verdict.changed'], ['e1', 'carrier.at_risk']]);
    expect(events[1]).toMatchObject({ effective_on: '2026-11-25', occurred_at: '2026-10-30T00:00:00.000Z', reasons_added: [{ reason: 'insurance_cancellation_pending' }] });
  });
});

describe('delivery helpers', () => {
  it('backs off exponentially with jitter, capped, never sooner than Retry-After', () => {
    expect(backoffMs(1, 1000, null, 0)).toBe(500);
    expect(backoffMs(4, 1000, null, 1)).toBe(8000);
    expect(backoffMs(40, 1000, null, 1)).toBe(3_600_000);
    expect(backoffMs(1, 1000, 120_000, 0)).toBe(120_000);
    expect(parseRetryAfter('30', 0)).toBe(30_000);
    expect(parseRetryAfter(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(parseRetryAfter('soon', 0)).toBe(null);
  });
  it('orders stream ids numerically and round-trips cursors', () => {
    expect(compareIds('9-5', '10-0')).toBeLessThan(0);
    expect(compareIds('10-10', '10-9')).toBeGreaterThan(0);
    expect(decodeCursor(encodeCursor('1795454338560-4'))).toBe('1795454338560-4');
    expect(decodeCursor('1795454338560-4')).toBe(null);
    expect(decodeCursor('c1.abc')).toBe(null);
  });
  it('signs once per valid secret; the standardwebhooks verifier accepts either secret', () => {
    const [a, b] = [newSecret(), newSecret()];
    const now = new Date();
    const body = '{"id":"x"}';
    const header = signatureHeader([a, b], 'msg_1', now, body);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': header };
    for (const secret of [a, b]) expect(new Webhook(secret).verify(body, headers)).toEqual({ id: 'x' });
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify('{"id":"y"}', headers)).toThrow();
  });
});

describe('watch-list import', () => {
  it('normalises MC numbers and names every bad row like batch does', () => {
    expect(parseWatchItems({ items: [{ mc: ' mc-00042 ', ref: 'r' }, { mc: '7' }] })).toEqual([{ mc: '42', ref: 'r' }, { mc: '7', ref: null }]);
    const error = (() => {
      try {
        parseWatchItems({ items: [{ mc: 'x' }, { mc: '1', ref: 5 }] });
      } catch (caught) {
        return caught as AppError;
      }
      return null;
    })();
    expect(error?.kind).toBe('validation_failed');
    expect(error?.errors?.map((item) => item.path)).toEqual(['items.0.mc', 'items.1.ref']);
  });
});

describe('watch import file', () => {
  it('reads one MC per line with an optional reference, skipping a header and blank lines; a bad line names itself', () => {
    expect(parseWatchFile('mc,ref\nMC-000123,lane 1, west\n\n456\n', 'f.csv')).toEqual([{ mc: '123', ref: 'lane 1, west' }, { mc: '456', ref: null }]);
    expect(() => parseWatchFile('123\nnot-an-mc\n', 'f.csv')).toThrow('f.csv line 2');
  });
});

describe('monitoring metrics', () => {
  it('reports the oldest undelivered event among endpoints this worker still looks at', async () => {
    let now = 100_000;
    const registry = new Registry();
    const metrics = new MonitoringMetrics(registry, () => now);
    const oldest = async () => (await registry.getSingleMetric('ce_webhook_oldest_undelivered_seconds')!.get()).values[0]!.value;
    expect(await oldest()).toBe(0);
    metrics.backlogOf('a', 40_000);
    metrics.backlogOf('b', 70_000);
    expect(await oldest()).toBe(60);
    now += 8_000;
    metrics.backlogSeen('b');
    metrics.backlogOf('c', null);
    now += 5_000;
    // 'a' was not looked at for 13 s (another worker owns it now): only 'b' counts.
    expect(await oldest()).toBe(43);
    metrics.backlogOf('b', null);
    expect(await oldest()).toBe(0);
  });

  it('exposes every event type and delivery outcome from the start', async () => {
    const registry = new Registry();
    const metrics = new MonitoringMetrics(registry);
    metrics.delivery('retry');
    metrics.eventStored('carrier.at_risk');
    const text = await registry.metrics();
    expect(text).toContain('ce_webhook_deliveries_total{outcome="retry"} 1');
    expect(text).toContain('ce_webhook_deliveries_total{outcome="failed"} 0');
    expect(text).toContain('ce_monitoring_events_total{type="carrier.at_risk"} 1');
    expect(text).toContain('ce_monitoring_events_total{type="screening.restored"} 0');
  });
});

describe('account view: what moved since the detector last looked', () => {
  it('names accounts whose policy version moved (a first one included) and pairs whose covering overrides changed', () => {
    expect(changedPolicies(new Map([['acme', 1], ['globex', 2]]), new Map([['acme', 2], ['globex', 2], ['initech', 1]]))).toEqual(['acme', 'initech']);
    const before = new Map([[pairKey('acme', '1'), 'ovr_a'], [pairKey('acme', '2'), 'ovr_b'], [pairKey('odd:name', '3'), 'ovr_c']]);
    const after = new Map([[pairKey('acme', '1'), 'ovr_a'], [pairKey('acme', '2'), 'ovr_b,ovr_d'], [pairKey('globex', '1'), 'ovr_e']]);
    expect(changedPairs(before, after)).toEqual([{ account: 'acme', mc: '2' }, { account: 'odd:name', mc: '3' }, { account: 'globex', mc: '1' }]);
  });

  it('decides on its own only an account with a policy or overrides for the carrier, and keeps processed pairs in view', () => {
    const floor = { version: 1, published_at: '2026-01-01T00:00:00Z', rules: DEFAULT_RULE_SET };
    const active = [{ id: 'ovr_a', account: 'globex', mc: '7', expiresAtMs: 5000 }, { id: 'ovr_b', account: 'globex', mc: '7', expiresAtMs: 3000 }];
    const view = new AccountView(null, new Map([['acme', 1]]), new Map([['acme', floor]]), '1', { active, apply: (verdict) => verdict },
      new Map([[pairKey('initech', '7'), 'ovr_old']]));
    expect(view.decidesOwn('acme', '9')).toBe(true);
    expect(view.decidesOwn('globex', '7')).toBe(true);
    expect(view.decidesOwn('globex', '8')).toBe(false);
    expect(view.ownOf('7', ['acme', 'globex', 'initech', 'hooli'])).toEqual(['acme', 'globex', 'initech']);
    expect(view.ownOf('8', ['globex', 'hooli'])).toEqual([]);
    expect(view.overrideExpiry('globex', '7', 1000)).toBe(3000);
    expect(view.overrideExpiry('globex', '7', 3000)).toBe(5000);
    expect(view.pairs.get(pairKey('globex', '7'))).toBe('ovr_a,ovr_b');
    expect(new AccountView(null, new Map(), new Map(), null, null, new Map()).any).toBe(false);
  });
});
