// GET /v1/health: always 200 while the process runs (pods stay ready so callers get fail-closed verdicts, not
// connection errors); "degraded" says verdicts are currently withheld. Nothing internal is exposed.
import { degradedReasons } from '../../core/decide.js';
import { toEpochMs } from '../../core/dates.js';
import { SOURCE_NAMES } from '../../core/ruleset.js';
import type { LiveState } from '../../state/live-state.js';
import type { HttpResponse, Route } from '../uws.js';

export interface HealthDeps {
  state: LiveState;
  version: string;
  maxDataAgeSeconds: number;
  now?: () => number;
}

export function healthBody(deps: HealthDeps): Record<string, unknown> {
  const nowMs = (deps.now ?? Date.now)();
  const { snapshot, ruleset, redisUp } = deps.state;
  const asOf = snapshot ? toEpochMs(snapshot.data_as_of) : NaN;
  const problems = degradedReasons({
    ruleset, snapshot, backendAvailable: redisUp, maxDataAgeSeconds: deps.maxDataAgeSeconds, nowMs,
  });
  const sources = Object.fromEntries(SOURCE_NAMES.map((name) => {
    const source = snapshot?.sources[name];
    const sourceAsOf = source?.as_of ? toEpochMs(source.as_of) : NaN;
    const maxDays = ruleset?.rules.sources.max_age_days[name];
    const age = Number.isFinite(sourceAsOf) ? Math.max(0, Math.floor((nowMs - sourceAsOf) / 1000)) : null;
    return [name, {
      present: source?.present ?? false,
      required: ruleset?.rules.sources.required.includes(name) ?? false,
      as_of: source?.as_of ?? null,
      // Where as_of came from (file content, operator flag, file name) and when the file was ingested (additive).
      as_of_from: source?.as_of_from ?? null,
      ingested_at: source?.ingested_at ?? null,
      age_seconds: age,
      max_age_seconds: maxDays === undefined ? null : maxDays * 86_400,
      fresh: source?.present === true && (maxDays === undefined || (age !== null && age <= maxDays * 86_400)),
    }];
  }));
  return {
    status: problems.length === 0 ? 'ok' : 'degraded',
    version: deps.version,
    redis: redisUp ? 'up' : 'down',
    ruleset_version: ruleset?.version ?? null,
    data_as_of: snapshot?.data_as_of ?? null,
    data_age_seconds: Number.isFinite(asOf) ? Math.max(0, Math.floor((nowMs - asOf) / 1000)) : null,
    data_fresh: snapshot !== null && !problems.includes('data_stale'),
    degraded_reasons: problems,
    carrier_count: snapshot?.carrier_count ?? null,
    sources,
    // Lists the verdicts are NOT screened against: absent from the snapshot and not required by the rule set in
    // force (a required one that is absent makes every verdict data_stale instead). Additive field.
    not_screened: SOURCE_NAMES.filter((name) => snapshot?.sources[name]?.present !== true
      && !(ruleset?.rules.sources.required.includes(name) ?? false)),
  };
}

export function healthRoute(deps: HealthDeps): Route {
  return {
    method: 'GET',
    pattern: '/v1/health',
    maxBodyBytes: 0,
    handler: async (): Promise<HttpResponse> => ({ status: 200, headers: { 'cache-control': 'no-store' }, json: healthBody(deps) }),
  };
}
