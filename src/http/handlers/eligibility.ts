// POST /v1/eligibility. Order of checks: 401 → 403 → 429 → 400/422 → verdict. Backend trouble at any step
// becomes a 200 degraded verdict (eligible: false), never an error status.
// Hot-path notes (issue 10, numbers in bench/README.md): the budget draw is joined without per-request
// allocations (BudgetLimiter.enqueue/pendingDraw), the response's header lines are pre-joined once per budget draw
// (headBlock), the body takes the canonical-body fast path (eligibility-body.ts), the verdict is written
// from its JSON template (serialiseVerdict), and a check the draw will almost surely admit is decided and recorded
// in the same round trip as its draw (checkEarly).
import type { StoredApiKey } from '../../auth/api-key.js';
import type { Authenticator } from '../../auth/authenticate.js';
import { normaliseMcNumber } from '../../core/mc-number.js';
import { AppError } from '../../errors.js';
import { rateLimitHeaders, type BudgetDecision, type BudgetLimiter } from '../../ratelimit/budget.js';
import { isUnrecorded, serialiseVerdict, verdictOutput, type EligibilityService, type Verdict } from '../../verdict/eligibility.js';
import type { Metrics } from '../../metrics.js';
import type { LinePart } from '../../log.js';
import type { HttpRequest, HttpResponse, Route } from '../uws.js';
import { parseEligibilityBody, type EligibilityBody } from './eligibility-body.js';

export { REFERENCE_MAX_CHARS } from './eligibility-body.js';

export const ELIGIBILITY_BODY_LIMIT = 4 * 1024;

/** What the route uses of each part (narrowed so test/unit/eligibility-route.test.ts can drive it with fakes). */
export interface EligibilityDeps {
  auth: Pick<Authenticator, 'authenticate' | 'authenticateCached'>;
  budget: Pick<BudgetLimiter, 'enqueue' | 'pendingDraw' | 'likelyAdmits'>;
  eligibility: Pick<EligibilityService, 'check' | 'evaluate' | 'withdraw'>;
  metrics: Pick<Metrics, 'countVerdict'>;
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

// The access line's members (logRequest's parts), as bytes where they repeat: `,"key_id":"…"` of the last key seen
// (consecutive checks mostly share a key), and the verdict's members of the last verdict template, which
// verdictOutput gives as the same string while the template and MC number repeat (a cache-hot run). A verdict's
// members seen for the first time stay a string (cache-cold checks rarely repeat one): encoding those to bytes
// would cost more than writing them once.
let lastKeyId: string | null = null;
let lastKeyMember: Uint8Array = Buffer.from(',"key_id":null');

function keyIdMember(keyId: string | null): Uint8Array {
  if (keyId !== lastKeyId) {
    lastKeyMember = Buffer.from(`,"key_id":${keyId === null ? 'null' : JSON.stringify(keyId)}`);
    lastKeyId = keyId;
  }
  return lastKeyMember;
}

let lastVerdictMembers = '';
let lastVerdictBytes: Uint8Array | null = null;

function verdictMembers(members: string): LinePart {
  if (members !== lastVerdictMembers) {
    lastVerdictMembers = members;
    lastVerdictBytes = null;
    return members;
  }
  return lastVerdictBytes ??= Buffer.from(members);
}

const DECISION_ID_OPEN = Buffer.from(',"decision_id":"');
const QUOTE = Buffer.from('"');
/** The closing members, by [cache_hit][recorded]. */
const FLAGS = [
  [Buffer.from(',"cache_hit":false,"recorded":false'), Buffer.from(',"cache_hit":false,"recorded":true')],
  [Buffer.from(',"cache_hit":true,"recorded":false'), Buffer.from(',"cache_hit":true,"recorded":true')],
] as const;

function verdictResponse(verdict: Verdict, budget: BudgetDecision | null, keyId: string | null, recorded: boolean): HttpResponse {
  // The body: bytes spliced from the verdict's template when it has one, else its JSON text.
  const output = verdictOutput(verdict);
  const bytes = output.bytes ?? undefined;
  return {
    status: 200,
    headBlock: verdictHeadBlock(budget),
    bytes,
    text: bytes === undefined ? serialiseVerdict(verdict) : undefined,
    // The access line's fields: key, decision id (a UUID: nothing to escape), the verdict's members, the flags.
    logParts: [keyIdMember(keyId), DECISION_ID_OPEN, verdict.decision_id, QUOTE, verdictMembers(output.logMembers),
      FLAGS[verdict.cache_hit ? 1 : 0][recorded ? 1 : 0]],
  };
}

/**
 * The check started in the same turn as its budget draw, when the draw will almost surely admit it
 * (BudgetLimiter.likelyAdmits): a cache-hot check's decision record then goes out in the same socket write as the
 * draw, and the answer waits for one Redis round trip instead of two (a cache-cold one: two instead of three).
 * Null when the body is not a valid request: that is answered after the draw, so 429 still comes before 400/422.
 */
function checkEarly(deps: EligibilityDeps, request: HttpRequest, key: StoredApiKey): Promise<Verdict> | null {
  let body: EligibilityBody;
  try {
    body = parseEligibilityBody(request.body);
  } catch {
    return null;
  }
  return startCheck(deps, request, key, body, true);
}

/** The verdict for a valid body, given once its decision record is acknowledged (EligibilityService.check). */
function startCheck(deps: EligibilityDeps, request: HttpRequest, key: StoredApiKey, body: EligibilityBody, backendOk: boolean): Promise<Verdict> {
  const mc = normaliseMcNumber(body.mc_number) ?? body.mc_number;
  return deps.eligibility.check(mc, backendOk, {
    kind: 'check', keyId: key.id, account: key.account, requestId: request.requestId, reference: body.reference ?? null,
    jobId: null, row: null,
  });
}

export function eligibilityRoute(deps: EligibilityDeps): Route {
  return {
    method: 'POST',
    pattern: '/v1/eligibility',
    maxBodyBytes: ELIGIBILITY_BODY_LIMIT,
    headers: ['x-api-key'],
    async handler(request: HttpRequest): Promise<HttpResponse> {
      const presented = request.headers['x-api-key'];
      // A cached key is checked without a promise; only an uncached one waits for Redis.
      const auth = deps.auth.authenticateCached(presented, 'eligibility', request.requestId)
        ?? await deps.auth.authenticate(presented, 'eligibility', request.requestId);
      if (auth.kind === 'backend_unavailable') {
        // No key could be read, so no account to file a record under: this degraded verdict is logged only.
        const { mc_number } = parseEligibilityBody(request.body);
        const verdict = await deps.eligibility.evaluate(normaliseMcNumber(mc_number) ?? mc_number, false);
        deps.metrics.countVerdict(verdict);
        return verdictResponse(verdict, null, null, false);
      }
      const { key } = auth;
      const ticket = deps.budget.enqueue(key.id, key.rate_per_minute);
      const draw = deps.budget.pendingDraw(key.id);
      const early = deps.budget.likelyAdmits(key.id) ? checkEarly(deps, request, key) : null;
      // The early check is awaited before the draw's outcome, which never rejects (BudgetLimiter resolves it, from
      // memory when Redis fails): so a check that rejects (a bug, never a Redis failure, which check() turns into a
      // degraded verdict) is observed at once, never left as an unhandled rejection that would end the process.
      // By then the draw has mostly settled (its reply comes first), so its outcome is read without an await.
      const guessed = early === null ? null : await early;
      const budget = (draw.settled ?? await draw.outcome).decisionFor(ticket);
      if (guessed !== null) {
        if (budget.allowed && !budget.fromFallback) {
          deps.metrics.countVerdict(guessed);
          return verdictResponse(guessed, budget, key.id, !isUnrecorded(guessed));
        }
        // Refused, or drawn from the in-memory stand-in (Redis failed): answered below as if never guessed.
        deps.eligibility.withdraw(guessed);
      }
      if (!budget.allowed) {
        throw new AppError('rate_limited', `The budget of ${budget.limit} checks per minute is spent; retry later.`, {
          headers: { 'retry-after': String(budget.retryAfterSeconds), ...rateLimitHeaders(budget) },
        });
      }
      const verdict = await startCheck(deps, request, key, parseEligibilityBody(request.body), !budget.fromFallback);
      deps.metrics.countVerdict(verdict);
      return verdictResponse(verdict, budget, key.id, !isUnrecorded(verdict));
    },
  };
}
