import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 8080, HOST: '0.0.0.0', REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: 'ce:', ROLE: 'both', LOG_LEVEL: 'info',
    });
    expect(config.RATE_PER_MINUTE_DEFAULT).toBeGreaterThan(0);
    expect(config.MAX_DATA_AGE_SECONDS).toBeGreaterThan(0);
  });

  it('coerces numbers from strings and treats empty values as unset', () => {
    const config = loadConfig({ PORT: '9090', RATE_PER_MINUTE_DEFAULT: '1200', HOST: '' });
    expect(config.PORT).toBe(9090);
    expect(config.RATE_PER_MINUTE_DEFAULT).toBe(1200);
    expect(config.HOST).toBe('0.0.0.0');
  });

  it('lists every problem at once', () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: 'eighty', REDIS_URL: 'http://x', ROLE: 'boss', RATE_PER_MINUTE_DEFAULT: '0', REDIS_PREFIX: 'has space' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems;
    expect(problems).toHaveLength(5);
    for (const name of ['PORT', 'REDIS_URL', 'ROLE', 'RATE_PER_MINUTE_DEFAULT', 'REDIS_PREFIX']) {
      expect(problems.some((problem) => problem.startsWith(`${name}:`))).toBe(true);
    }
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true);
  });
});
