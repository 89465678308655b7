import uWS from 'uWebSockets.js';
import { describe, expect, it } from 'vitest';
import { assertNativeUws, isNativeFunction } from '../../src/http/uws.js';

describe('uWebSockets.js native check', () => {
  it('accepts the native binary installed here', () => {
    expect(isNativeFunction(uWS.App)).toBe(true);
    expect(() => assertNativeUws()).not.toThrow();
  });

  it('refuses the JS fallback with a clear message', () => {
    function App() {
      return { listen: () => undefined };
    }
    expect(isNativeFunction(App)).toBe(false);
    expect(isNativeFunction(undefined)).toBe(false);
    expect(() => assertNativeUws(App)).toThrow(/native binary did not load \(JS fallback detected\); refusing to start/);
  });
});
