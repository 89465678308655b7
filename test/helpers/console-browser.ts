// The console's bundle built once into a temporary directory, and Debian's Chromium driven by playwright-core
// (no browser download). Screenshots go to test-artifacts/console/.
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';

export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function buildConsole(): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), 'ce-console-'));
  await build({ configFile: join(process.cwd(), 'console', 'vite.config.ts'), logLevel: 'silent', build: { outDir, emptyOutDir: true } });
  return outDir;
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`the console tests need Chromium at ${CHROMIUM} (Debian package chromium; .ci/run installs it)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/** Collects every Content-Security-Policy violation the page reports (event and console message). */
export async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.exposeFunction('__cspViolation', (text: string) => { violations.push(text); });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      (window as unknown as { __cspViolation(text: string): void }).__cspViolation(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return violations;
}
