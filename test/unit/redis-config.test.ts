import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { describeTarget, redisTarget } from '../../src/redis/connection.js';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('REDIS_MODE', () => {
  it('defaults to standalone on REDIS_URL', () => {
    expect(redisTarget(loadConfig({}))).toEqual({ mode: 'standalone', url: 'redis://127.0.0.1:6379' });
  });

  it('sentinel needs the Sentinels and the master name; parses host:port lists', () => {
    const config = loadConfig({ REDIS_MODE: 'sentinel', REDIS_SENTINELS: 's1:26379, 10.0.0.2:26380', REDIS_SENTINEL_NAME: 'ce-main' });
    expect(redisTarget(config)).toMatchObject({
      mode: 'sentinel', name: 'ce-main', sentinels: [{ host: 's1', port: 26379 }, { host: '10.0.0.2', port: 26380 }],
    });
    expect(describeTarget(redisTarget(config))).toBe('sentinel ce-main via s1:26379,10.0.0.2:26380');
    expect(problems({ REDIS_MODE: 'sentinel' })).toEqual([
      'REDIS_SENTINELS: required when REDIS_MODE=sentinel', 'REDIS_SENTINEL_NAME: required when REDIS_MODE=sentinel',
    ]);
  });

  it('cluster needs its nodes; lists every problem at once, each bad entry by name', () => {
    expect(redisTarget(loadConfig({ REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: 'a:7000,b:7001' }))).toMatchObject({
      mode: 'cluster', nodes: [{ host: 'a', port: 7000 }, { host: 'b', port: 7001 }],
    });
    const found = problems({ REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: 'a:7000,b,c:99999', PORT: 'x', REDIS_SENTINEL_NAME: 'm' });
    expect(found).toEqual(expect.arrayContaining([
      'REDIS_CLUSTER_NODES: "b" is not host:port', 'REDIS_CLUSTER_NODES: "c:99999" is not host:port',
      'REDIS_SENTINEL_NAME: only used when REDIS_MODE=sentinel',
    ]));
    expect(found.some((problem) => problem.startsWith('PORT:'))).toBe(true);
    expect(problems({ REDIS_MODE: 'cluster' })).toEqual(['REDIS_CLUSTER_NODES: required when REDIS_MODE=cluster']);
    expect(problems({ REDIS_MODE: 'replicated' })[0]).toMatch(/^REDIS_MODE:/);
  });
});
