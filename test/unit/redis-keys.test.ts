// The key scheme of docs/redis.md, checked on the names themselves (the `cluster` project checks the same on a
// real Cluster with CLUSTER KEYSLOT): control keys share {ctl}, rate and slot keys share their key id's tag, job
// keys their job id's, and carrier buckets carry no tag so a snapshot spreads over every slot.
import { describe, expect, it } from 'vitest';
import { batchGlobalKeys, batchKeys } from '../../src/batch/keys.js';
import { redisKeys } from '../../src/store/keys.js';

const tagOf = (key: string) => /\{([^}]*)\}/.exec(key)?.[1] ?? null;

describe('redis key scheme', () => {
  const keys = redisKeys('ce:');

  it('puts every key a poll, flip, key save or DNU change touches together under {ctl}', () => {
    const control = [
      keys.snapshotCurrent, keys.snapshotMeta('v1'), keys.snapshotVersions, keys.snapshotRetired, keys.ingestLock,
      keys.rulesetSeq, keys.rulesetCurrent, keys.ruleset(3), keys.apiKey('abc'), keys.apiKeyIndex, keys.apiKeyEpoch,
      keys.doNotUse, keys.doNotUseLog, keys.doNotUseEpoch, keys.deploymentMark,
    ];
    for (const key of control) {
      expect(key.startsWith('ce:')).toBe(true);
      expect(tagOf(key)).toBe('ctl');
    }
    expect(new Set(control).size).toBe(control.length);
  });

  it('leaves carrier buckets untagged, and tags rate windows, batch slots and job keys by their id', () => {
    expect(tagOf(keys.carrierBucket('v1', 42))).toBeNull();
    expect(tagOf(keys.rateLog('k1'))).toBe('k1');
    expect(tagOf(keys.rateSum('k1'))).toBe('k1');
    expect(tagOf(batchGlobalKeys('ce:').activeSlot('k1'))).toBe('k1');
    const job = batchKeys('ce:', 'j1');
    expect(new Set([job.job, job.rows, job.out, job.stream].map(tagOf))).toEqual(new Set(['j1']));
    const global = batchGlobalKeys('ce:');
    expect(new Set([global.activeJobs, global.index, global.announce].map(tagOf))).toEqual(new Set(['jobs']));
  });

  it('names the head every decision bucket starts with, and no other key of the scheme', () => {
    for (const second of [0, 1_764_000_000, 2_000_000_123]) expect(keys.decisionBucket(second).startsWith(keys.decisionBucketsHead)).toBe(true);
    const others = [keys.decisionEvidence('v1', '12345', 'a'), keys.snapshotManifest('v1'), keys.rateLog('dec'), keys.snapshotCurrent];
    for (const key of others) expect(key.startsWith(keys.decisionBucketsHead)).toBe(false);
  });
});
