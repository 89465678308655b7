import uWS from 'uWebSockets.js';
import { describe, expect, it } from 'vitest';
import { assertNativeUws, isNativeFunction } from '../../src/http/uws.js';
import { glibcVersion, loadUws, uwsPackageFor } from '../../src/http/uws-binary.js';

describe('uWebSockets.js native check', () => {
  it('accepts the native binary installed here', () => {
    expect(isNativeFunction(uWS.App)).toBe(true);
    expect(() => assertNativeUws()).not.toThrow();
  });

  it('refuses the JS fallback with one line naming the other engine', () => {
    function App() {
      return { listen: () => undefined };
    }
    expect(isNativeFunction(App)).toBe(false);
    expect(isNativeFunction(undefined)).toBe(false);
    expect(() => assertNativeUws(App)).toThrow(/native binary did not load .*JS fallback detected; refusing to start\. Set HTTP_ENGINE=node/);
  });
});

describe('uWebSockets.js republish per Node', () => {
  it('picks the Node 20 republish on 20 and the btc-vision one on 22 and 24', () => {
    expect(uwsPackageFor(20)).toBe('uWebSockets.js');
    expect(uwsPackageFor(22)).toBe('@btc-vision/uwebsockets.js');
    expect(uwsPackageFor(24)).toBe('@btc-vision/uwebsockets.js');
  });

  it('loads the binary for the running Node where its libc allows', () => {
    const major = Number(process.versions.node.split('.')[0]);
    const glibc = glibcVersion();
    const loads = major <= 20 || (glibc !== null && Number(glibc.split('.')[1]) >= 38 && glibc.startsWith('2.'));
    if (loads) {
      expect(isNativeFunction(loadUws().App)).toBe(true);
    } else {
      expect(() => loadUws()).toThrow(/refusing to start\. Set HTTP_ENGINE=node/);
    }
  });

  const oldGlibc = (glibcVersion() ?? '2.99').split('.')[1] as string;
  it.skipIf(Number(oldGlibc) >= 38)('refuses in one line, naming HTTP_ENGINE=node, when the btc-vision binary needs a newer glibc than this one', () => {
    // The btc-vision binaries carry Node 20's ABI too: loading them here checks the refusal on a glibc < 2.38.
    let message = '';
    try {
      loadUws(24);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/from @btc-vision\/uwebsockets\.js: .*GLIBC_2\.3[89].*refusing to start\. Set HTTP_ENGINE=node/);
    expect(message).not.toContain('\n');
  });
});
