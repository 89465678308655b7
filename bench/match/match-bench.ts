// Matching benchmark: recall on planted list-name variants, flag and hard-stop rates on a realistic generated
// carrier population, and the matching cost per carrier at ingest.
//   node --import tsx bench/match/match-bench.ts [--carriers 100000] [--seed 7] [--show 25]
// Lists: the full real OFAC SDN list of July 2021 (sdn, alt, add), the consolidated non-SDN list (prim, alt, add)
// and the real SAM V2 sample, loaded through the ingest's own loaders.
import { parseArgs } from 'node:util';
import type { WatchlistHit } from '../../src/core/carrier.js';
import { REASONS } from '../../src/core/reasons.js';
import { DEFAULT_RULE_SET } from '../../src/core/ruleset.js';
import { watchlistReason } from '../../src/core/watchlist-reasons.js';
import { readCsv } from '../../src/ingest/csv.js';
import { loadRealLists, REAL } from './lists.js';
import { pick, population, rng } from './population.js';
import { VARIATION_KINDS, vary, type VariationKind } from './variants.js';

const { values } = parseArgs({
  options: { carriers: { type: 'string', default: '100000' }, seed: { type: 'string', default: '7' }, show: { type: 'string', default: '25' } },
});
const carriers = Number(values.carriers);
const seed = Number(values.seed);
const show = Number(values.show);


interface Listed { list: 'ofac_sdn' | 'sam'; id: string; name: string; individual: boolean; group: string }

async function plantable(): Promise<Listed[]> {
  const out: Listed[] = [];
  for await (const { cells } of readCsv(`${REAL}/ofac/sdn_2021-07/sdn.csv`, { encoding: 'latin1' })) {
    const type = (cells[2] ?? '').trim();
    if (type === 'vessel' || type === 'aircraft') continue;
    const raw = (cells[1] ?? '').trim();
    const individual = type === 'individual';
    // Individuals as a sole proprietor writes them: "First Middle LAST".
    const comma = raw.indexOf(',');
    const name = individual && comma > 0 ? `${raw.slice(comma + 1).trim()} ${raw.slice(0, comma).trim()}` : raw;
    out.push({ list: 'ofac_sdn', id: (cells[0] ?? '').trim(), name, individual, group: individual ? 'sdn_individual' : 'sdn_entity' });
  }
  let header: string[] | null = null;
  for await (const { cells } of readCsv(`${REAL}/sam_exclusions/SAM_Exclusions_Public_V2_sample_2023-11.csv`)) {
    if (!header) { header = cells; continue; }
    const at = (name: string) => cells[header!.indexOf(name)] ?? '';
    if (at('Classification') === 'Individual') {
      out.push({ list: 'sam', id: at('SAM Number'), name: `${at('First')} ${at('Last')}`, individual: true, group: 'sam_individual' });
    } else out.push({ list: 'sam', id: at('SAM Number'), name: at('Name'), individual: false, group: 'sam_firm' });
  }
  return out;
}

const reasonOf = (hit: WatchlistHit) => watchlistReason(hit, DEFAULT_RULE_SET);
const isHardStop = (hit: WatchlistHit) => {
  const reason = reasonOf(hit);
  return reason !== null && REASONS[reason].kind === 'hard_stop';
};

async function main(): Promise<void> {
  const started = performance.now();
  const index = await loadRealLists();
  index.match(['warm up']);
  const loadMs = performance.now() - started;

  // Recall on planted variants.
  const r = rng(seed);
  const listed = await plantable();
  const groups: Record<string, Listed[]> = {};
  for (const entry of listed) (groups[entry.group] ??= []).push(entry);
  const quota: Record<string, number> = { sdn_entity: 18, sdn_individual: 10, sam_firm: 99, sam_individual: 99 };
  const planted: Array<{ entry: Listed; kind: VariationKind; variant: string }> = [];
  for (const [group, entries] of Object.entries(groups)) {
    const chosen = entries.length <= (quota[group] ?? 0) ? entries : Array.from({ length: quota[group]! }, () => pick(r, entries));
    for (const entry of chosen) {
      for (const kind of VARIATION_KINDS) {
        if (entry.group === 'sam_individual' && kind !== 'word_order' && kind !== 'exact' && kind !== 'typo') continue;
        const variant = vary(r, entry.name, kind, entry.individual);
        if (variant) planted.push({ entry, kind, variant });
      }
    }
  }
  const byKind: Record<string, { n: number; caught: number; hard: number }> = {};
  const byGroup: Record<string, { n: number; caught: number; hard: number }> = {};
  const misses: string[] = [];
  const place = { country: 'US', state: 'OH', city: 'COLUMBUS', zip: '43085' };
  for (const { entry, kind, variant } of planted) {
    const hits = index.match([variant], place);
    const hit = hits.find((h) => h.list === entry.list && h.entry_id === entry.id && reasonOf(h) !== null);
    for (const bucket of [(byKind[kind] ??= { n: 0, caught: 0, hard: 0 }), (byGroup[entry.group] ??= { n: 0, caught: 0, hard: 0 })]) {
      bucket.n += 1;
      if (hit) bucket.caught += 1;
      if (hit && isHardStop(hit)) bucket.hard += 1;
    }
    if (!hit) misses.push(`${entry.group} ${kind}: "${variant}" (listed "${entry.name}") best: ${hits[0] ? `${hits[0].matched_name} ${hits[0].score}` : 'none'}`);
  }
  const caught = planted.length - misses.length;

  // Flag rate on the population, and cost per carrier.
  const people = population(carriers, seed);
  let flagged = 0; let hardStops = 0; let personHardStops = 0; let personNameOnlyHardStops = 0; let withHits = 0;
  const reasonCounts: Record<string, number> = {};
  const samples: string[] = [];
  const hardSamples: string[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const results: WatchlistHit[][] = new Array(people.length);
  for (let i = 0; i < people.length; i++) {
    const carrier = people[i]!;
    results[i] = index.match([carrier.legal, carrier.dba], carrier.place);
  }
  const matchMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const matchCpuMs = (cpu.user + cpu.system) / 1000;
  const work = { ...index.work };
  people.forEach((carrier, i) => {
    const hits = results[i]!;
    if (hits.length > 0) withHits += 1;
    const reasons = hits.map(reasonOf).filter((x) => x !== null);
    if (reasons.length === 0) return;
    flagged += 1;
    for (const reason of new Set(reasons)) reasonCounts[reason] = (reasonCounts[reason] ?? 0) + 1;
    const hard = hits.some(isHardStop);
    if (hard) hardStops += 1;
    if (hard && carrier.person) personHardStops += 1;
    if (hits.some((h) => isHardStop(h) && h.entity_type === 'individual' && !h.confirmed)) personNameOnlyHardStops += 1;
    if (hard) hardSamples.push(`"${carrier.legal}"${carrier.dba ? ` dba "${carrier.dba}"` : ''} → ${hits.filter(isHardStop).map((h) => `${reasonOf(h)} ${h.list}:${h.entry_id} "${h.matched_name}" ${h.score}`).join('; ')}`);
    if (samples.length < show) {
      const h = hits.find((x) => reasonOf(x) !== null)!;
      samples.push(`${carrier.person ? 'P' : 'B'} "${carrier.legal}"${carrier.dba ? ` dba "${carrier.dba}"` : ''} → ${reasonOf(h)} ${h.list}:${h.entry_id} "${h.matched_name}" ${h.score} (${h.explanation})`);
    }
  });
  // CPU time, not wall time: on a shared machine the wall clock also counts other processes' turns.
  const perCarrierUs = (matchCpuMs * 1000) / people.length;
  const summary = {
    lists: { names: index.size, load_and_index_ms: Math.round(loadMs) },
    recall: {
      planted: planted.length, caught, recall: +(caught / planted.length).toFixed(4),
      by_kind: byKind, by_group: byGroup,
    },
    population: {
      carriers: people.length, persons: people.filter((p) => p.person).length, with_dba: people.filter((p) => p.dba).length,
      with_any_hit_over_floor: withHits, flagged, flag_rate: +(flagged / people.length).toFixed(5), hard_stops: hardStops,
      hard_stop_rate: +(hardStops / people.length).toFixed(5), person_carrier_hard_stops: personHardStops,
      person_name_only_hard_stops: personNameOnlyHardStops, reasons: reasonCounts,
    },
    cost: {
      match_wall_ms: Math.round(matchMs), match_cpu_ms: Math.round(matchCpuMs), names_queried: work.queries,
      candidates_touched_per_name: +(work.touched / Math.max(1, work.queries)).toFixed(1),
      candidates_scored_per_name: +(work.scored / Math.max(1, work.queries)).toFixed(1), per_carrier_us: +perCarrierUs.toFixed(1),
      per_carrier_wall_us: +((matchMs * 1000) / people.length).toFixed(1),
      extrapolated_1m_carriers_cpu_s: +((perCarrierUs * 1_000_000) / 1e6).toFixed(1),
    },
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  if (misses.length > 0) process.stdout.write(`\nmissed (${misses.length}):\n${misses.slice(0, 60).join('\n')}\n`);
  if (hardSamples.length > 0) process.stdout.write(`\nhard stops:\n${hardSamples.slice(0, 20).join('\n')}\n`);
  if (samples.length > 0) process.stdout.write(`\nflag samples:\n${samples.join('\n')}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
