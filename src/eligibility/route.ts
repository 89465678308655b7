// POST /v1/eligibility. Order of checks: 401 → 403 → 429 → 400/422 → verdict. Backend trouble at any step
// becomes a 200 degraded verdict (eligible: false), never an error status.
// Hot-path notes (issue 10, numbers in bench/README.md): the budget draw is joined without per-request
// allocations (BudgetLimiter.enqueue/pendingDraw), the response's header lines are pre-joined once per budget draw
// (headBlock), the body takes the canonical-body fast path (eligibility-body.ts), the verdict is written
// from its JSON template (serialiseVerdict), a check the draw will almost surely admit is decided and recorded
// in the same round trip as its draw (CheckExchange.startEarly), and a request waits for Redis as a list entry
// called back by its check, not as an async handler (CheckExchange).
import type { StoredApiKey } from '../auth/api-key.js';
import type { AuthResult, Authenticator } from '../auth/authenticate.js';
import { normaliseMcNumber } from '../core/mc-number.js';
import { AppError } from '../errors.js';
import { rateLimitHeaders, type BudgetDecision, type BudgetLimiter, type DrawHandle, type DrawOutcome } from '../ratelimit/budget.js';
import { isUnrecorded, type EligibilityService, type VerdictWaiter } from './service.js';
import { serialiseVerdict, verdictOutput, type VerdictOutput } from './verdict-bytes.js';
import type { Verdict } from '../core/verdict.js';
import type { Metrics } from '../metrics.js';
import type { LinePart } from '../log.js';
import type { HttpRequest, HttpResponse, Reply, Route } from '../http/types.js';
import { parseEligibilityBody, type EligibilityBody } from './body.js';

export { REFERENCE_MAX_CHARS } from './body.js';

export const ELIGIBILITY_BODY_LIMIT = 4 * 1024;

/** What the route uses of each part (narrowed so test/unit/eligibility-route.test.ts can drive it with fakes). */
export interface EligibilityDeps {
  auth: Pick<Authenticator, 'authenticate' | 'authenticateCached'>;
  budget: Pick<BudgetLimiter, 'enqueue' | 'pendingDraw' | 'likelyAdmits'>;
  eligibility: Pick<EligibilityService, 'checkInto' | 'evaluate' | 'withdraw'>;
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

// The access line's members (logRequest's parts), as bytes where they repeat: `,"key_id":"…","decision_id":"` of the
// last key seen (consecutive checks mostly share a key), then the verdict's members: the MC number's and the
// template's rest (verdictOutput) joined into one piece while both repeat (a cache-hot run), else `","mc_number":`,
// the MC number's JSON and the rest as three pieces (a cache-cold run: each MC number new, its rest mostly the
// not-found template's bytes), which spares joining and encoding a ~150-character string per line (Buffer.write of
// it was ~1.6k of a cache-cold check's instructions under callgrind).
let lastKeyId: string | null = null;
let lastKeyOpening: Uint8Array = Buffer.from(',"key_id":null,"decision_id":"');

function keyIdOpening(keyId: string | null): Uint8Array {
  if (keyId !== lastKeyId) {
    lastKeyOpening = Buffer.from(`,"key_id":${keyId === null ? 'null' : JSON.stringify(keyId)},"decision_id":"`);
    lastKeyId = keyId;
  }
  return lastKeyOpening;
}

/** Closes the decision id's string and opens the MC number's member. */
const MC_NUMBER_NAME = Buffer.from('","mc_number":');
let lastLogMc = '';
let lastLogRest: string | Uint8Array = '';
let lastVerdictMembers: Uint8Array | null = null;

function lineParts(keyId: string | null, decisionId: string, output: VerdictOutput, flags: Uint8Array): LinePart[] {
  const opening = keyIdOpening(keyId);
  if (output.logMc === lastLogMc && output.logRest === lastLogRest) {
    // Joined once per run of repeats; a text rest (a verdict without a template) is encoded only then.
    lastVerdictMembers ??= Buffer.concat([MC_NUMBER_NAME, Buffer.from(output.logMc),
      typeof output.logRest === 'string' ? Buffer.from(output.logRest) : output.logRest]);
    return [opening, decisionId, lastVerdictMembers, flags];
  }
  lastLogMc = output.logMc;
  lastLogRest = output.logRest;
  lastVerdictMembers = null;
  return [opening, decisionId, MC_NUMBER_NAME, output.logMc, output.logRest, flags];
}

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
    logParts: lineParts(keyId, verdict.decision_id, output, FLAGS[verdict.cache_hit ? 1 : 0][recorded ? 1 : 0]),
  };
}

/**
 * One request of the route from its budget draw to its answer. It waits as a list entry of its check's turn
 * (EligibilityService.checkInto calls it back) and reads the draw's outcome once settled, rather than as an async
 * handler awaiting promises: no promise, reaction or closure per request on the cache-hot path. Every step answers its own failures through `reply`.
 */
class CheckExchange implements VerdictWaiter {
  /** The draw's decision once known; a check answered while it is null was started early (startEarly). */
  private budget: BudgetDecision | null = null;
  /** An early check's verdict, waiting for the draw to confirm it. */
  private guessed: Verdict | null = null;

  constructor(
    private readonly deps: EligibilityDeps,
    private readonly request: HttpRequest,
    private readonly reply: Reply,
    private readonly key: StoredApiKey,
    private readonly ticket: number,
    private readonly draw: DrawHandle,
  ) {}

  /**
   * Starts the check in the same turn as its budget draw, for a draw that will almost surely admit it
   * (BudgetLimiter.likelyAdmits): a cache-hot check's decision record then goes out in the same socket write as
   * the draw, and the answer waits for one Redis round trip instead of two (a cache-cold one: two instead of
   * three). A body that is not a valid request waits for the draw instead, so 429 still comes before 400/422.
   */
  startEarly(): void {
    let body: EligibilityBody;
    try {
      body = parseEligibilityBody(this.request.body);
    } catch {
      this.afterDraw();
      return;
    }
    this.startCheck(body, true);
  }

  /** Goes on once the draw has decided: at once when it has (as it mostly has for a guessed check's verdict). */
  afterDraw(): void {
    const settled = this.draw.settled;
    if (settled !== null) {
      this.drawn(settled);
      return;
    }
    // The outcome never rejects: BudgetLimiter resolves it, from memory when Redis fails.
    void this.draw.outcome.then((outcome) => this.drawn(outcome));
  }

  checked(verdict: Verdict): void {
    if (this.budget === null) {
      this.guessed = verdict;
      this.afterDraw();
      return;
    }
    this.answer(verdict, this.budget);
  }

  checkFailed(error: unknown): void {
    this.reply.fail(error);
  }

  private drawn(outcome: DrawOutcome): void {
    try {
      const budget = outcome.decisionFor(this.ticket);
      const { guessed } = this;
      if (guessed !== null) {
        this.guessed = null;
        if (budget.allowed && !budget.fromFallback) {
          this.answer(guessed, budget);
          return;
        }
        // Refused, or drawn from the in-memory stand-in (Redis failed): answered below as if never guessed.
        this.deps.eligibility.withdraw(guessed);
      }
      if (!budget.allowed) {
        this.reply.fail(new AppError('rate_limited', `The budget of ${budget.limit} checks per minute is spent; retry later.`, {
          headers: { 'retry-after': String(budget.retryAfterSeconds), ...rateLimitHeaders(budget) },
        }));
        return;
      }
      this.budget = budget;
      this.startCheck(parseEligibilityBody(this.request.body), !budget.fromFallback);
    } catch (error) {
      this.reply.fail(error);
    }
  }

  /** Asks for the verdict of a valid body; checked() is told it once its decision record is acknowledged. */
  private startCheck(body: EligibilityBody, backendOk: boolean): void {
    const { key, request } = this;
    const mc = normaliseMcNumber(body.mc_number) ?? body.mc_number;
    this.deps.eligibility.checkInto(mc, backendOk, {
      kind: 'check', keyId: key.id, account: key.account, requestId: request.requestId, reference: body.reference ?? null,
      jobId: null, row: null,
    }, this);
  }

  private answer(verdict: Verdict, budget: BudgetDecision | null): void {
    let response: HttpResponse;
    try {
      this.deps.metrics.countVerdict(verdict);
      response = verdictResponse(verdict, budget, this.key.id, !isUnrecorded(verdict));
    } catch (error) {
      this.reply.fail(error);
      return;
    }
    this.reply.send(response);
  }
}

/** Everything after authentication: the degraded answer when no key could be read, else the budget draw and check. */
function admit(deps: EligibilityDeps, request: HttpRequest, reply: Reply, auth: AuthResult): void {
  try {
    if (auth.kind === 'backend_unavailable') {
      // No key could be read, so no account to file a record under: this degraded verdict is logged only.
      const { mc_number } = parseEligibilityBody(request.body);
      deps.eligibility.evaluate(normaliseMcNumber(mc_number) ?? mc_number, false).then((verdict) => {
        deps.metrics.countVerdict(verdict);
        reply.send(verdictResponse(verdict, null, null, false));
      }).catch((error: unknown) => reply.fail(error));
      return;
    }
    const { key } = auth;
    const ticket = deps.budget.enqueue(key.id, key.rate_per_minute);
    const exchange = new CheckExchange(deps, request, reply, key, ticket, deps.budget.pendingDraw(key.id));
    if (deps.budget.likelyAdmits(key.id)) exchange.startEarly();
    else exchange.afterDraw();
  } catch (error) {
    reply.fail(error);
  }
}

export function eligibilityRoute(deps: EligibilityDeps): Route {
  return {
    method: 'POST',
    pattern: '/v1/eligibility',
    maxBodyBytes: ELIGIBILITY_BODY_LIMIT,
    headers: ['x-api-key', 'x-forwarded-for'],
    handle(request: HttpRequest, reply: Reply): void {
      const presented = request.headers['x-api-key'];
      // A cached key is checked without a promise (401/403 are thrown, and answered by the adapter); only an
      // uncached one waits for Redis.
      const auth = deps.auth.authenticateCached(presented, 'eligibility', request.requestId, request);
      if (auth !== undefined) {
        admit(deps, request, reply, auth);
        return;
      }
      deps.auth.authenticate(presented, 'eligibility', request.requestId, request)
        .then((fresh) => admit(deps, request, reply, fresh), (error: unknown) => reply.fail(error));
    },
  };
}
