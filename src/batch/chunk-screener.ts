// Screens one chunk of a job: plan each row, draw budget for the rows that need a lookup (waiting, never
// failing, when the key's batch share is spent), decide them against the job's pins, and record the chunk's
// CSV lines with batch-complete-chunk.lua, which makes the recording exactly-once.
//
// A degraded decision is not a screening result: the rows are retried a few times (a Redis blip, a rule set
// being republished) and only then reported as `error`, with the degraded reasons. Budget is drawn before
// the lookup, so a chunk re-screened after a worker crash draws again: budget is at-least-once, results are
// exactly-once.
import type { RedisClient } from '../redis/connection.js';
import type { KeyStore } from '../auth/key-store.js';
import type { SnapshotMeta } from '../core/carrier.js';
import type { Decision } from '../core/decide.js';
import type { DecisionRecorder, RecordContext } from '../decisions/index.js';
import type { Verdict } from '../core/verdict.js';
import type { Logger } from '../log.js';
import type { BudgetLimiter } from '../ratelimit/budget.js';
import { luaScripts } from '../redis/scripts.js';
import { reportLine, type RowResult } from './csv.js';
import { batchKeys, WORKER_GROUP } from './keys.js';
import { planRow, screenedResult, outcomeOf } from './outcome.js';
import type { PinnedCheck, PinnedScreening, PolicyPin } from './pinned-screening.js';
import { batchBudgetLimit } from './roster.js';
import { isActiveStatus, OUTCOMES, type Outcome, type StoredRow } from './types.js';
import { decodeStoredRows } from '../store/stored-json.js';

const DEGRADED_RETRY_DELAYS_MS = [100, 300, 900];
/** Longest single sleep while waiting for budget, so a cancel or shutdown is noticed promptly. */
const WAIT_SLICE_MS = 500;
/** Budget is asked again at least this often while waiting (one Lua call per waiting chunk). */
const BUDGET_RECHECK_MS = 1000;

export interface ChunkScreenerDeps {
  redis: RedisClient;
  prefix: string;
  screening: PinnedScreening;
  budget: BudgetLimiter;
  keyStore: KeyStore;
  headroom: number;
  retentionMs: number;
  /** Every screened row is a decision record, written before the chunk's report lines (null: records off). */
  recorder: DecisionRecorder | null;
  log: Logger;
  /** Told when a job waits for budget, so the worker reads no more of its chunks until then. */
  onBudgetWait(jobId: string, untilMs: number): void;
  /**
   * The step after deciding a row's `conditional` verdict (the key's account's overrides and review queue,
   * src/overrides/effect.ts): the verdict to report and record.
   */
  postDecision?: (verdict: Verdict, context: RecordContext) => Verdict;
}

export interface ChunkTask {
  jobId: string;
  entryId: string;
  chunkIndex: number;
  /** False once another worker has claimed the entry (or the worker is stopping): stop spending budget. */
  stillMine(): boolean;
}

export type ChunkOutcome = 'recorded' | 'completed' | 'skipped' | 'abandoned';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ChunkScreener {
  constructor(private readonly deps: ChunkScreenerDeps) {}

  async screen(task: ChunkTask): Promise<ChunkOutcome> {
    const { redis, prefix } = this.deps;
    const keys = batchKeys(prefix, task.jobId);
    const { status, keyId, snapshotVersion, rulesetVersion, chunkSize } = await luaScripts.batchBeginChunk(redis, keys.job, new Date().toISOString());
    if (!isActiveStatus(status) || !keyId) return 'skipped';
    const rowsJson = await redis.hget(keys.rows, String(task.chunkIndex));
    if (rowsJson === null) return 'skipped';
    const rows: StoredRow[] = decodeStoredRows(rowsJson, `${keys.rows} ${task.chunkIndex}`);
    const pins = { snapshot_version: snapshotVersion || null, ruleset_version: rulesetVersion ? Number(rulesetVersion) : null };
    const policy = parsePolicyPin(await redis.hget(keys.job, 'policy'));

    const plans = rows.map(planRow);
    const results: (RowResult | null)[] = plans.map((plan) => (plan.kind === 'skip' ? plan.result : null));
    const toScreen = plans.flatMap((plan, index) => (plan.kind === 'screen' ? [{ index, mc: plan.mc }] : []));
    let next = 0;
    while (next < toScreen.length) {
      if (!task.stillMine()) return 'abandoned';
      const key = await this.deps.keyStore.find(keyId);
      const limit = batchBudgetLimit(key?.rate_per_minute ?? 1, this.deps.headroom);
      const { admitted, retryAfterMs } = await this.deps.budget.drawUpTo(keyId, limit, toScreen.length - next);
      if (admitted === 0) {
        if (!(await this.waitForBudget(task, keys.job, retryAfterMs))) return 'abandoned';
        continue;
      }
      const batch = toScreen.slice(next, next + admitted);
      const account = key?.account ?? '';
      const screened = await this.decideWithRetries(pins, batch.map((row) => ({ mc: row.mc, asker: { account, reference: rows[row.index]?.[3] ?? null } })), policy);
      batch.forEach((row, position) => {
        results[row.index] = screened[position] ?? null;
      });
      next += admitted;
    }

    await this.afterDecision(task, keyId, rows, results, Number(chunkSize));
    await this.recordRows(task, keyId, rows, results, Number(chunkSize));

    const counts = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, 0])) as Record<Outcome, number>;
    const firstRow = task.chunkIndex * Number(chunkSize);
    const block = rows.map((row, index) => {
      const result = results[index];
      if (!result) throw new Error(`row ${firstRow + index + 1} has no result`);
      counts[result.outcome] += 1;
      return reportLine(firstRow + index + 1, row, result);
    }).join('');
    const recorded = await luaScripts.batchCompleteChunk(redis, keys, {
      group: WORKER_GROUP, entryId: task.entryId, chunkIndex: task.chunkIndex, block, rows: rows.length,
      counts: OUTCOMES.map((outcome) => counts[outcome]), nowIso: new Date().toISOString(), retentionMs: this.deps.retentionMs,
    });
    return recorded === 2 ? 'completed' : recorded === 1 ? 'recorded' : 'skipped';
  }

  /** Lifts the rows whose conditional verdicts the account's overrides cover (reference-scoped ones: by the row's ref). */
  private async afterDecision(task: ChunkTask, keyId: string, rows: readonly StoredRow[], results: Array<RowResult | null>, chunkSize: number): Promise<void> {
    const { postDecision } = this.deps;
    if (postDecision === undefined || !results.some((result) => result?.verdict?.tier === 'conditional')) return;
    const owner = await this.deps.keyStore.find(keyId);
    const firstRow = task.chunkIndex * chunkSize;
    results.forEach((result, index) => {
      const verdict = result?.verdict;
      if (!result || !verdict || verdict.tier !== 'conditional') return;
      const after = postDecision(verdict, {
        kind: 'batch_row', keyId, account: owner?.account ?? '', requestId: null, reference: rows[index]?.[3] ?? null,
        jobId: task.jobId, row: firstRow + index + 1,
      });
      if (after !== verdict) results[index] = { ...result, outcome: 'eligible', eligible: after.eligible, tier: after.tier, reasons: after.reasons, verdict: after };
    });
  }

  /**
   * Records every screened row's decision and waits for the acknowledgement, so a report line never names a
   * decision id without a record. A failed write throws: the chunk stays pending and is screened again.
   */
  private async recordRows(task: ChunkTask, keyId: string, rows: readonly StoredRow[], results: readonly (RowResult | null)[], chunkSize: number): Promise<void> {
    const { recorder } = this.deps;
    if (!recorder) return;
    const owner = await this.deps.keyStore.find(keyId);
    const firstRow = task.chunkIndex * chunkSize;
    let acknowledged: Promise<boolean> | null = null;
    results.forEach((result, index) => {
      if (!result?.verdict) return;
      acknowledged = recorder.record(result.verdict, {
        kind: 'batch_row', keyId, account: owner?.account ?? '', requestId: null, reference: rows[index]?.[3] ?? null,
        jobId: task.jobId, row: firstRow + index + 1,
      });
    });
    if (acknowledged !== null && !(await acknowledged)) throw new Error(`job ${task.jobId}: decision records of chunk ${task.chunkIndex} not stored`);
  }

  /**
   * Sleeps until the budget may have freed up, at most BUDGET_RECHECK_MS, so a raised rate_per_minute takes
   * effect promptly; false when the job ended or the chunk is no longer ours meanwhile.
   */
  private async waitForBudget(task: ChunkTask, jobKey: string, retryAfterMs: number): Promise<boolean> {
    const until = Date.now() + Math.min(BUDGET_RECHECK_MS, Math.max(50, retryAfterMs));
    this.deps.onBudgetWait(task.jobId, until);
    while (Date.now() < until) {
      await sleep(Math.min(WAIT_SLICE_MS, until - Date.now()));
      if (!task.stillMine() || !isActiveStatus(await this.deps.redis.hget(jobKey, 'status'))) return false;
    }
    return true;
  }

  /** Decisions for the MC numbers; degraded ones are retried, then reported as `error` with their reasons. */
  private async decideWithRetries(pins: Parameters<PinnedScreening['decideAll']>[0], checks: PinnedCheck[], policy: PolicyPin | null): Promise<RowResult[]> {
    const results: RowResult[] = new Array<RowResult>(checks.length);
    let pending = checks.map((check, index) => ({ ...check, index }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      const last = attempt >= DEGRADED_RETRY_DELAYS_MS.length;
      let decided: { decisions: Decision[]; nowMs: number; snapshot: SnapshotMeta | null } | null = null;
      try {
        decided = await this.deps.screening.decideAll(pins, pending, policy);
      } catch (error) {
        this.deps.log.warn({ err: error, attempt }, 'batch lookup failed');
        if (last) {
          for (const row of pending) results[row.index] = backendUnavailable(row.mc);
          break;
        }
      }
      if (decided) {
        const { decisions, nowMs, snapshot } = decided;
        this.deps.recorder?.noteSnapshot(snapshot);
        const retry: typeof pending = [];
        pending.forEach((row, position) => {
          const decision = decisions[position];
          if (!decision) throw new Error('decision missing');
          if (outcomeOf(decision) === 'error' && !last) retry.push(row);
          else results[row.index] = screenedResult(decision, row.mc, nowMs);
        });
        pending = retry;
      }
      if (pending.length > 0) await sleep(DEGRADED_RETRY_DELAYS_MS[attempt] ?? 0);
    }
    return results;
  }
}

function backendUnavailable(mc: string): RowResult {
  const decision: Decision = {
    eligible: false, found: false, tier: null, reasons: ['backend_unavailable'], degraded: true,
    ruleset_version: null, policy_version: null, data_as_of: null, carrier: null,
    evidence: { snapshot_version: null, reasons: [{ reason: 'backend_unavailable', source: 'service', record_id: null, facts: {}, rule: null }], sources: [] },
  };
  return screenedResult(decision, mc, Date.now());
}

/** The job's `policy` field: `<account>|<version>` when the submitting account had a policy, else empty. */
function parsePolicyPin(value: string | null): PolicyPin | null {
  if (!value) return null;
  const at = value.lastIndexOf('|');
  const version = Number(value.slice(at + 1));
  return at > 0 && Number.isSafeInteger(version) && version > 0 ? { account: value.slice(0, at), version } : null;
}
