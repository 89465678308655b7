// The one place that picks and loads the uWebSockets.js binary for the running Node. uWS is published upstream
// only outside the npm registry, so the service uses registry republishes, each covering some Node ABIs:
//   Node 20      -> `uWebSockets.js` (an alias of @trufflesuite/uws-js-unofficial 20.30, glibc >= 2.27)
//   Node 22, 24  -> `@btc-vision/uwebsockets.js` 20.57 (binaries linked against glibc >= 2.38: Debian 13, Ubuntu 24.04)
// Whatever is picked must be native code: the Node 20 republish silently falls back to a slow JS shim when its
// binary does not load, and the service refuses that rather than serve on it.
import { createRequire } from 'node:module';
import type * as UwsModule from 'uWebSockets.js';

export type Uws = typeof UwsModule;

const requireFromHere = createRequire(import.meta.url);

/** The package that carries a uWS binary for this Node major. */
export function uwsPackageFor(nodeMajor: number): string {
  return nodeMajor <= 20 ? 'uWebSockets.js' : '@btc-vision/uwebsockets.js';
}

/** The running glibc's version (e.g. "2.36"), or null on another libc or platform. */
export function glibcVersion(): string | null {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime ?? null;
}

export function isNativeFunction(candidate: unknown): boolean {
  return typeof candidate === 'function' && /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(candidate));
}

/** One line naming the runtime, what was tried, and the engine that needs no native code. */
function refusal(packageName: string, why: string): Error {
  const glibc = glibcVersion();
  return new Error(`HTTP_ENGINE=uws: the uWebSockets.js native binary did not load on Node ${process.versions.node} `
    + `(${process.platform}-${process.arch}, glibc ${glibc ?? 'none'}) from ${packageName}: ${why}; refusing to start. `
    + 'Set HTTP_ENGINE=node to serve with node:http (no native code), or run Node 20, or Node 22/24 with glibc >= 2.38.');
}

export function assertNativeUws(app: unknown, packageName = uwsPackageFor(Number(process.versions.node.split('.')[0]))): void {
  if (!isNativeFunction(app)) throw refusal(packageName, 'JS fallback detected');
}

/** Loads the binary for this Node, or throws one line saying why and naming HTTP_ENGINE=node. */
export function loadUws(nodeMajor = Number(process.versions.node.split('.')[0])): Uws {
  const packageName = uwsPackageFor(nodeMajor);
  let loaded: Uws;
  try {
    loaded = requireFromHere(packageName) as Uws;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The republishes' messages span lines; the dynamic loader's own reason (e.g. a missing GLIBC_2.38) is the last.
    const reason = message.split('\n').map((line) => line.trim()).filter((line) => line !== '').at(-1) ?? 'unknown error';
    throw refusal(packageName, reason);
  }
  assertNativeUws(loaded.App, packageName);
  return loaded;
}
