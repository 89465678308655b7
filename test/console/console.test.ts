// The compliance console in a real browser against a real service and Redis: sign in, a roster screened and its
// report downloaded, a decision looked up with its evidence, the monitoring and data pages, and a screenshot of
// each page; no Content-Security-Policy violation anywhere.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSample } from '../../src/ingest/sample.js';
import { ensureRuleSet } from '../../src/store/rulesets.js';
import { ARTIFACTS, buildConsole, launchBrowser, watchCsp } from '../helpers/console-browser.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let csp: string[];
let key: string;

async function signIn(p: Page, apiKey: string): Promise<void> {
  await p.goto(`${t.baseUrl}/console/`);
  await p.getByLabel('API key').fill(apiKey);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Reviews', level: 1 }).waitFor();
}

beforeAll(async () => {
  const dir = await buildConsole();
  t = await startTestApp({ CONSOLE_DIR: dir });
  await seedSample(t.redis, t.keys, { quiet: true });
  await ensureRuleSet(t.redis, t.keys);
  ({ key } = await t.createKey({ scopes: ['eligibility', 'batch', 'monitoring'] }));
  await t.app.parts.state.poll();
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  page = await context.newPage();
  csp = await watchCsp(page);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe('compliance console', () => {
  it('is served with a strict Content-Security-Policy and cache headers', async () => {
    const index = await t.get('/console/');
    expect(index.status).toBe(200);
    const policy = index.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1] ?? '';
    const js = await t.get(asset);
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect((await t.get('/console/../package.json')).status).toBe(404);
  });

  it('refuses a wrong key without saying why, and keeps the key out of URLs and cookies', async () => {
    await page.goto(`${t.baseUrl}/console/`);
    await page.getByLabel('API key').fill('cek_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('That API key was not accepted.');
    await page.screenshot({ path: join(ARTIFACTS, 'sign-in.png') });
    await signIn(page, key);
    expect(page.url()).not.toContain(key);
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toContain(key);
    await page.screenshot({ path: join(ARTIFACTS, 'reviews.png'), fullPage: true });
  });

  it('clears a sanctions review with four eyes: the requester is not offered Approve, another person approves, the decision shows the clearance', async () => {
    const { key: requester } = await t.createKey({ scopes: ['eligibility', 'review'], actor: 'riley.requester' });
    const { key: approver } = await t.createKey({ scopes: ['eligibility', 'review', 'approve'], actor: 'avery.approver' });
    const first = await (await t.post('/v1/eligibility', { mc_number: 'MC-200003' }, { 'x-api-key': requester })).json() as { eligible: boolean; reasons: string[] };
    expect(first.eligible).toBe(false);
    const asker = await context.newPage();
    await signIn(asker, requester);
    const row = asker.getByRole('row', { name: /MC 200003/ });
    await expect.poll(async () => { await asker.reload(); await asker.getByRole('heading', { name: 'Reviews', level: 1 }).waitFor(); return row.count(); }, { timeout: 10_000 }).toBe(1);
    await row.getByRole('button', { name: 'Clear match' }).click();
    const form = asker.getByRole('form', { name: 'Clear match for MC 200003' });
    await form.getByLabel('Note').fill('Different company: listed entity is a Caspian shipping firm, carrier is a US LLC (checked addresses).');
    await form.getByRole('button', { name: 'Submit request' }).click();
    const request = asker.getByRole('listitem', { name: /^Request / });
    await request.waitFor();
    expect(await request.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await request.textContent()).toContain('Your own request');
    await asker.screenshot({ path: join(ARTIFACTS, 'reviews-requested.png'), fullPage: true });
    const pending = await (await t.get('/v1/overrides?status=pending_approval', { 'x-api-key': approver })).json() as { items: Array<{ id: string }> };
    const id = pending.items[0]?.id ?? '';
    // The API refuses the requester's own approval too (same_actor), whatever a client shows.
    const own = await t.post(`/v1/overrides/${id}/approve`, {}, { 'x-api-key': requester });
    expect(own.status).toBe(403);
    await asker.close();

    const second = await context.newPage();
    await signIn(second, approver);
    await second.getByRole('listitem', { name: `Request ${id}` }).getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => second.getByRole('status').textContent()).toContain('approved');
    await second.screenshot({ path: join(ARTIFACTS, 'reviews-approved.png'), fullPage: true });
    await expect.poll(async () => (await (await t.post('/v1/eligibility', { mc_number: 'MC-200003' }, { 'x-api-key': requester })).json() as { eligible: boolean }).eligible, { timeout: 5000 }).toBe(true);
    const after = await (await t.post('/v1/eligibility', { mc_number: 'MC-200003' }, { 'x-api-key': requester })).json() as { eligible: boolean; decision_id: string; overrides?: Array<{ id: string }> };
    expect(after.overrides?.map((o) => o.id)).toEqual([id]);
    await second.getByRole('link', { name: 'Decisions' }).click();
    await second.getByLabel('Decision id').fill(after.decision_id);
    await second.getByRole('button', { name: 'Look up' }).click();
    const override = second.getByRole('listitem', { name: `Override ${id}` });
    await override.waitFor();
    expect(await override.textContent()).toContain('avery.approver');
    await second.screenshot({ path: join(ARTIFACTS, 'decision-with-override.png'), fullPage: true });
    await second.close();
  });

  it('screens a roster: rows that cannot be screened shown first, progress, chart, table and report download', async () => {
    await page.getByRole('link', { name: 'Rosters' }).click();
    await page.getByLabel('Roster CSV').setInputFiles({
      name: 'roster.csv', mimeType: 'text/csv',
      buffer: Buffer.from('mc,ref\nMC-100001,load-1\n200002,load-2\n,no mc\nnot-an-mc,x\n100003,load-3\n'),
    });
    await expect.poll(() => page.getByRole('list', { name: 'Rows that cannot be screened' }).textContent()).toContain('Line 4: no MC number');
    await page.getByRole('button', { name: 'Screen 3 carriers' }).click();
    await page.getByRole('button', { name: 'Download report' }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('progressbar', { name: 'Screening progress' }).getAttribute('value')).toBe('100');
    expect(await page.getByRole('img').getAttribute('aria-label')).toMatch(/eligible \d/);
    await expect.poll(() => page.locator('table.grid tbody tr').count()).toBe(3);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download report' }).click()]);
    const report = readFileSync(await download.path(), 'utf8');
    expect(report.split('\n')[0]).toMatch(/^row,ref,mc,/);
    expect(report).toContain('load-2');
    await page.getByLabel('Outcome').selectOption('hard_stop');
    await expect.poll(() => page.locator('table.grid tbody tr').count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'rosters.png'), fullPage: true });
  });

  it('looks up a decision and shows its reasons, evidence and sources, with a JSON download', async () => {
    const verdict = await (await t.post('/v1/eligibility', { mc_number: 'MC-200003' }, { 'x-api-key': key })).json() as { decision_id: string; reasons: string[] };
    await page.getByRole('link', { name: 'Decisions' }).click();
    await page.getByLabel('Decision id').fill(verdict.decision_id);
    await page.getByRole('button', { name: 'Look up' }).click();
    const article = page.getByRole('article', { name: `Decision ${verdict.decision_id}` });
    await article.waitFor();
    for (const reason of verdict.reasons) expect(await article.textContent()).toContain(reason);
    expect(await article.getByRole('cell', { name: 'census', exact: true }).count()).toBe(1);
    const link = article.getByRole('link', { name: 'Download JSON' });
    expect(await link.getAttribute('download')).toBe(`decision-${verdict.decision_id}.json`);
    await page.screenshot({ path: join(ARTIFACTS, 'decisions.png'), fullPage: true });
  });

  it('shows the watch list, events and per-source freshness', async () => {
    await t.post('/v1/watchlist', { items: [{ mc_number: '100001' }] }, { 'x-api-key': key });
    await page.getByRole('link', { name: 'Monitoring' }).click();
    await page.getByRole('heading', { name: 'Watch list' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'monitoring.png'), fullPage: true });
    await page.getByRole('link', { name: 'Data' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'census', exact: true }).count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'data.png'), fullPage: true });
  });

  it('is usable at a tablet width', async () => {
    await page.setViewportSize({ width: 820, height: 1180 });
    await page.getByRole('link', { name: 'Reviews' }).click();
    await page.getByRole('heading', { name: 'Reviews', level: 1 }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(ARTIFACTS, 'reviews-tablet.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('reported no Content-Security-Policy violation', () => {
    expect(csp).toEqual([]);
  });
});
