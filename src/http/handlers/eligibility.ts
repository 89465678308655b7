// POST /v1/eligibility. Order of checks: 401 → 403 → 429 → 400/422 → verdict. Backend trouble at any step
// becomes a 200 degraded verdict (eligible: false), never an error status.
// Hot-path notes (issue 10, numbers in bench/README.md): the check is one object that waits for its budget draw
// and its record write itself (EligibilityCheck, no promise per request), the response's header lines are pre-joined once per budget draw
// (headBlock), the body takes the canonical-body fast path (eligibility-body.ts) and the verdict is written
// from its JSON template (serialiseVerdict).
import type { AuthResult, Authenticator } from '../../auth/authenticate.js';
import type { StoredApiKey } from '../../auth/api-key.js';
import { normaliseMcNumber } from '../../core/mc-number.js';
import { AppError } from '../../errors.js';
import type { RecordContext } from '../../decisions/record-codec.js';
import type { RecordWaiter } from '../../decisions/recorder.js';
import { rateLimitHeaders, type BudgetDecision, type BudgetLimiter, type BudgetWaiter } from '../../ratelimit/budget.js';
import { isUnrecorded, serialiseVerdict, verdictBytes, verdictLogMembers, type EligibilityService, type Verdict } from '../../verdict/eligibility.js';
import type { Metrics } from '../../metrics.js';
import type { HttpRequest, HttpResponse, Reply, Route } from '../uws.js';
import { parseEligibilityBody } from './eligibility-body.js';

export { REFERENCE_MAX_CHARS } from './eligibility-body.js';

export const ELIGIBILITY_BODY_LIMIT = 4 * 1024;

export interface EligibilityDeps {
  auth: Authenticator;
  budget: BudgetLimiter;
  eligibility: EligibilityService;
  metrics: Metrics;
}

const VERDICT_HEAD = 'content-type: application/json\r\ncache-control: no-store';
/**
 * The header lines of a verdict answered under a budget decision. A coalesced draw shares one decision object
 * among all its requests, answered one after another, so a memo of the last decision joins the block once per
 * draw; uws.ts writes it with the status line in one native call instead of five writeHeader calls. Header
 * values here are numbers and constants (no CR/LF).
 */
let lastBudget: BudgetDecision | null = null;
let lastBlock = VERDICT_HEAD;

export function verdictHeadBlock(budget: BudgetDecision | null): string {
  if (budget === null) return VERDICT_HEAD;
  if (budget !== lastBudget) {
    const limit = rateLimitHeaders(budget);
    lastBlock = `${VERDICT_HEAD}\r\nratelimit-policy: ${limit['ratelimit-policy']}\r\nratelimit: ${limit.ratelimit}`;
    lastBudget = budget;
  }
  return lastBlock;
}

/** `,"key_id":"…"` of the last key seen: consecutive checks mostly share a key, so one JSON.stringify per run. */
let lastKeyId: string | null = null;
let lastKeyMember = ',"key_id":null';

function keyIdMember(keyId: string | null): string {
  if (keyId !== lastKeyId) {
    lastKeyMember = `,"key_id":${keyId === null ? 'null' : JSON.stringify(keyId)}`;
    lastKeyId = keyId;
  }
  return lastKeyMember;
}

function verdictResponse(verdict: Verdict, budget: BudgetDecision | null, keyId: string | null, recorded: boolean): HttpResponse {
  // The body: bytes spliced from the verdict's template when it has one, else its JSON text.
  const bytes = verdictBytes(verdict) ?? undefined;
  return {
    status: 200,
    headBlock: verdictHeadBlock(budget),
    bytes,
    text: bytes === undefined ? serialiseVerdict(verdict) : undefined,
    // The access line's fields, pre-rendered: the MC number and decision once per verdict template (verdictLogMembers).
    logJson: `${keyIdMember(keyId)},"decision_id":"${verdict.decision_id}"${verdictLogMembers(verdict)}`
      + (verdict.cache_hit ? ',"cache_hit":true' : ',"cache_hit":false') + (recorded ? ',"recorded":true' : ',"recorded":false'),
  };
}

export function eligibilityRoute(deps: EligibilityDeps): Route {
  return {
    method: 'POST',
    pattern: '/v1/eligibility',
    maxBodyBytes: ELIGIBILITY_BODY_LIMIT,
    headers: ['x-api-key'],
    respond(request: HttpRequest, reply: Reply): void {
      new EligibilityCheck(deps, request, reply).start();
    },
  };
}

/**
 * One check, from its API key to its answer. Its steps are methods, and the object itself is what waits: it is
 * the waiter of its turn's budget draw (onBudget) and of its turn's record write (onRecorded). A cache-hot check
 * thus allocates this one object where the async handler it replaces allocated its promise, two awaits'
 * resumptions, the recorder's and check()'s promises and the adapter's then-callbacks (round 4, bench/README.md).
 * The rare paths (an uncached key, a cache miss, Redis down at authentication) keep their promises.
 */
class EligibilityCheck implements BudgetWaiter, RecordWaiter {
  private key: StoredApiKey | null = null;
  private budget: BudgetDecision | null = null;
  private verdict: Verdict | null = null;

  constructor(
    private readonly deps: EligibilityDeps,
    private readonly request: HttpRequest,
    private readonly reply: Reply,
  ) {}

  start(): void {
    const { auth } = this.deps;
    const { headers, requestId } = this.request;
    // A cached key is checked without a promise; only an uncached one waits for Redis. Both throw 401/403.
    const known = auth.authenticateCached(headers['x-api-key'], 'eligibility', requestId);
    if (known !== undefined) {
      this.authenticated(known);
      return;
    }
    auth.authenticate(headers['x-api-key'], 'eligibility', requestId)
      .then((result) => this.authenticated(result))
      .catch((error: unknown) => this.reply.fail(error));
  }

  private authenticated(auth: AuthResult): void {
    if (auth.kind === 'backend_unavailable') {
      // No key could be read, so no account to file a record under: this degraded verdict is logged only.
      const { mc_number } = parseEligibilityBody(this.request.body);
      this.deps.eligibility.evaluate(normaliseMcNumber(mc_number) ?? mc_number, false)
        .then((verdict) => this.answer(verdict))
        .catch((error: unknown) => this.reply.fail(error));
      return;
    }
    this.key = auth.key;
    this.deps.budget.enqueue(auth.key.id, auth.key.rate_per_minute, this);
  }

  onBudget(budget: BudgetDecision): void {
    try {
      const key = this.key as StoredApiKey;
      if (!budget.allowed) {
        throw new AppError('rate_limited', `The budget of ${budget.limit} checks per minute is spent; retry later.`, {
          headers: { 'retry-after': String(budget.retryAfterSeconds), ...rateLimitHeaders(budget) },
        });
      }
      this.budget = budget;
      const { mc_number, reference } = parseEligibilityBody(this.request.body);
      const mc = normaliseMcNumber(mc_number) ?? mc_number;
      const context: RecordContext = {
        kind: 'check', keyId: key.id, account: key.account, requestId: this.request.requestId, reference: reference ?? null,
        jobId: null, row: null,
      };
      const { eligibility } = this.deps;
      const now = eligibility.evaluateNow(mc, !budget.fromFallback);
      if (now !== null) {
        this.verdict = now;
        eligibility.recordThen(now, context, this);
        return;
      }
      eligibility.check(mc, !budget.fromFallback, context)
        .then((verdict) => this.answer(verdict))
        .catch((error: unknown) => this.reply.fail(error));
    } catch (error) {
      this.reply.fail(error);
    }
  }

  onRecorded(ok: boolean): void {
    try {
      this.answer(this.deps.eligibility.afterRecord(this.verdict as Verdict, ok));
    } catch (error) {
      this.reply.fail(error);
    }
  }

  private answer(verdict: Verdict): void {
    this.deps.metrics.countVerdict(verdict);
    this.reply.send(verdictResponse(verdict, this.budget, this.key === null ? null : this.key.id, !isUnrecorded(verdict)));
  }
}
