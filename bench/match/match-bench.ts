// Matching benchmark. Reports, for a tune half and a held-out half of each evaluation set (eval-sets.ts):
//   - real FMCSA carrier names: share flagged (review or hard stop), hard stops;
//   - the independent generator's carrier names: share flagged, hard stops, name-only person hard stops;
//   - the independent planted variants of SDN entities, SDN individuals and SAM firms: share caught (flagged on
//     the right entry), by entry kind and by variation;
// then the project's own generated population and planted variants, and the matching cost per carrier.
//   node --import tsx bench/match/match-bench.ts [--carriers 100000] [--seed 7] [--show 40]
// Lists: the full real OFAC SDN list of July 2021 (sdn, alt, add), the consolidated non-SDN list (prim, alt, add)
// and the real SAM V2 sample, loaded through the ingest's own loaders. Tune on the tune halves only.
import { parseArgs } from 'node:util';
import type { WatchlistHit } from '../../src/core/carrier.js';
import { REASONS } from '../../src/core/reasons.js';
import { DEFAULT_RULE_SET } from '../../src/core/ruleset.js';
import { watchlistReason } from '../../src/core/watchlist-reasons.js';
import { readCsv } from '../../src/ingest/csv.js';
import type { WatchlistIndex } from '../../src/match/watchlist-index.js';
import { FRESH_SETS, freshRealCarriers, generatedCarriers, HALVES, plantedVariants, realCarriers, type Half, type InnocentCarrier } from './eval-sets.js';
import { loadRealLists, REAL } from './lists.js';
import { pick, population, rng } from './population.js';
import { VARIATION_KINDS, vary, type VariationKind } from './variants.js';

const { values } = parseArgs({
  options: {
    carriers: { type: 'string', default: '100000' }, seed: { type: 'string', default: '7' }, show: { type: 'string', default: '40' },
    json: { type: 'boolean', default: false },
  },
});
const carriers = Number(values.carriers);
const seed = Number(values.seed);
const show = Number(values.show);

/** Every set is matched as a domestic carrier would be: a US census address (listed parties are mostly abroad). */
const PLACE = { country: 'US', state: 'OH', city: 'COLUMBUS', zip: '43085' };

const reasonOf = (hit: WatchlistHit) => watchlistReason(hit, DEFAULT_RULE_SET);
const isHardStop = (hit: WatchlistHit) => {
  const reason = reasonOf(hit);
  return reason !== null && REASONS[reason].kind === 'hard_stop';
};
const isNameOnlyPersonHardStop = (hit: WatchlistHit) => isHardStop(hit) && hit.entity_type === 'individual' && !hit.confirmed;
const pct = (n: number, of: number) => (of === 0 ? '—' : `${((100 * n) / of).toFixed(n > 0 && (100 * n) / of < 0.1 ? 3 : 2)}%`);
const describe = (hit: WatchlistHit) => `${reasonOf(hit)} ${hit.list}:${hit.entry_id} "${hit.matched_name}" ${hit.score} (${hit.explanation})`;

interface InnocentResult { n: number; flagged: number; hard: number; personHard: number; alarms: string[] }

function innocent(index: WatchlistIndex, set: InnocentCarrier[]): InnocentResult {
  const out: InnocentResult = { n: set.length, flagged: 0, hard: 0, personHard: 0, alarms: [] };
  for (const carrier of set) {
    const hits = index.match([carrier.legal, carrier.dba], PLACE).filter((hit) => reasonOf(hit) !== null);
    if (hits.length === 0) continue;
    out.flagged += 1;
    if (hits.some(isHardStop)) out.hard += 1;
    if (hits.some(isNameOnlyPersonHardStop)) out.personHard += 1;
    out.alarms.push(`"${carrier.legal}"${carrier.dba ? ` dba "${carrier.dba}"` : ''} → ${describe(hits[0]!)}`);
  }
  return out;
}

interface Tally { n: number; caught: number; hard: number }
interface PlantedResult { all: Tally; byKind: Record<string, Tally>; byVariation: Record<string, Tally>; personHard: number; misses: string[] }

function planted(index: WatchlistIndex, half: Half): PlantedResult {
  const out: PlantedResult = { all: { n: 0, caught: 0, hard: 0 }, byKind: {}, byVariation: {}, personHard: 0, misses: [] };
  for (const variant of plantedVariants(half)) {
    const hits = index.match([variant.name], PLACE);
    const hit = hits.find((h) => h.list === variant.list && h.entry_id === variant.uid && reasonOf(h) !== null);
    if (hits.some(isNameOnlyPersonHardStop)) out.personHard += 1;
    for (const tally of [out.all, (out.byKind[variant.kind] ??= { n: 0, caught: 0, hard: 0 }), (out.byVariation[variant.variation] ??= { n: 0, caught: 0, hard: 0 })]) {
      tally.n += 1;
      if (hit) tally.caught += 1;
      if (hit && isHardStop(hit)) tally.hard += 1;
    }
    if (!hit) {
      out.misses.push(`${variant.kind} ${variant.variation}: "${variant.name}" (listed "${variant.listed}", ${variant.list}:${variant.uid}) best: ${hits[0] ? describe(hits[0]) : 'none'}`);
    }
  }
  return out;
}

interface Row { set: string; measure: string; values: string[]; goal: string }

function table(rows: Row[], columns: string[]): string {
  const header = ['set', 'measure', ...columns, 'goal'];
  const body = rows.map((row) => [row.set, row.measure, ...row.values, row.goal]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

/** The project's own planted variants (bench/match/variants.ts) of SDN and SAM entries. */
async function projectPlanted(index: WatchlistIndex): Promise<{ n: number; caught: number; misses: string[] }> {
  interface Listed { list: 'ofac_sdn' | 'sam'; id: string; name: string; individual: boolean; group: string }
  const listed: Listed[] = [];
  for await (const { cells } of readCsv(`${REAL}/ofac/sdn_2021-07/sdn.csv`, { encoding: 'latin1' })) {
    const type = (cells[2] ?? '').trim();
    if (type === 'vessel' || type === 'aircraft') continue;
    const raw = (cells[1] ?? '').trim();
    const individual = type === 'individual';
    const comma = raw.indexOf(',');
    const name = individual && comma > 0 ? `${raw.slice(comma + 1).trim()} ${raw.slice(0, comma).trim()}` : raw;
    listed.push({ list: 'ofac_sdn', id: (cells[0] ?? '').trim(), name, individual, group: individual ? 'sdn_individual' : 'sdn_entity' });
  }
  let header: string[] | null = null;
  for await (const { cells } of readCsv(`${REAL}/sam_exclusions/SAM_Exclusions_Public_V2_sample_2023-11.csv`)) {
    if (!header) { header = cells; continue; }
    const at = (name: string) => cells[header!.indexOf(name)] ?? '';
    if (at('Classification') === 'Individual') listed.push({ list: 'sam', id: at('SAM Number'), name: `${at('First')} ${at('Last')}`, individual: true, group: 'sam_individual' });
    else listed.push({ list: 'sam', id: at('SAM Number'), name: at('Name'), individual: false, group: 'sam_firm' });
  }
  const r = rng(seed);
  const groups: Record<string, Listed[]> = {};
  for (const entry of listed) (groups[entry.group] ??= []).push(entry);
  const quota: Record<string, number> = { sdn_entity: 18, sdn_individual: 10, sam_firm: 99, sam_individual: 99 };
  const misses: string[] = [];
  let n = 0;
  for (const [group, entries] of Object.entries(groups)) {
    const chosen = entries.length <= (quota[group] ?? 0) ? entries : Array.from({ length: quota[group]! }, () => pick(r, entries));
    for (const entry of chosen) {
      for (const kind of VARIATION_KINDS as readonly VariationKind[]) {
        if (entry.group === 'sam_individual' && kind !== 'word_order' && kind !== 'exact' && kind !== 'typo') continue;
        const variant = vary(r, entry.name, kind, entry.individual);
        if (!variant) continue;
        n += 1;
        const hits = index.match([variant], PLACE);
        if (!hits.some((h) => h.list === entry.list && h.entry_id === entry.id && reasonOf(h) !== null)) misses.push(`${entry.group} ${kind}: "${variant}" (listed "${entry.name}")`);
      }
    }
  }
  return { n, caught: n - misses.length, misses };
}

async function main(): Promise<void> {
  const started = performance.now();
  const index = await loadRealLists();
  index.match(['warm up']);
  const loadMs = performance.now() - started;

  const real = HALVES.map((half) => innocent(index, realCarriers(half)));
  const fresh = FRESH_SETS.map((set) => ({ set, ...innocent(index, freshRealCarriers(set)) }));
  const generated = HALVES.map((half) => innocent(index, generatedCarriers(half)));
  const plants = HALVES.map((half) => planted(index, half));

  const rows: Row[] = [];
  const both = (set: string, measure: string, value: (i: number) => string, goal: string) => rows.push({ set, measure, values: [0, 1].map(value), goal });
  both('real FMCSA carrier names', 'carriers', (i) => String(real[i]!.n), '');
  both('real FMCSA carrier names', 'flagged (review or hard stop)', (i) => `${pct(real[i]!.flagged, real[i]!.n)} (${real[i]!.flagged})`, '≤ 0.1%');
  both('real FMCSA carrier names', 'hard stops', (i) => String(real[i]!.hard), '0');
  both('independent generated names', 'carriers', (i) => String(generated[i]!.n), '');
  both('independent generated names', 'flagged (review or hard stop)', (i) => `${pct(generated[i]!.flagged, generated[i]!.n)} (${generated[i]!.flagged})`, '≤ 0.2%');
  both('independent generated names', 'hard stops', (i) => String(generated[i]!.hard), '');
  both('independent planted variants', 'planted', (i) => String(plants[i]!.all.n), '≥ 300 in all');
  both('independent planted variants', 'caught (flagged on the listed entry)', (i) => `${pct(plants[i]!.all.caught, plants[i]!.all.n)} (${plants[i]!.all.caught})`, '≥ 97%');
  for (const kind of ['entity', 'individual', 'firm']) {
    const label = kind === 'firm' ? 'SAM firms' : kind === 'entity' ? 'SDN entities' : 'SDN individuals';
    both('independent planted variants', `— ${label}`, (i) => { const t = plants[i]!.byKind[kind]; return t ? `${pct(t.caught, t.n)} (${t.caught}/${t.n})` : '—'; }, '');
  }
  both('independent planted variants', 'of which hard stops', (i) => String(plants[i]!.all.hard), '');
  both('all sets', 'name-only person hard stops', (i) => String(real[i]!.personHard + generated[i]!.personHard + plants[i]!.personHard), '0');
  const variations = [...new Set(plants.flatMap((p) => Object.keys(p.byVariation)))].sort();
  const byVariation: Row[] = variations.map((variation) => ({
    set: 'planted', measure: variation, goal: '',
    values: [0, 1].map((i) => { const t = plants[i]!.byVariation[variation]; return t ? `${t.caught}/${t.n}` : '—'; }),
  }));

  const out: string[] = [];
  out.push(`lists: ${index.size} names, loaded and indexed in ${Math.round(loadMs)} ms\n`);
  out.push(table(rows, ['tune', 'held-out']));
  for (const f of fresh) {
    out.push(`\nreal FMCSA carrier names, set ${f.set} (bench/match/data/README.md): ${f.n} carriers, flagged ${pct(f.flagged, f.n)} (${f.flagged}), hard stops ${f.hard}, name-only person hard stops ${f.personHard}`);
    if (f.alarms.length > 0) out.push(f.alarms.slice(0, show).join('\n'));
  }
  out.push(`\nrecall by variation (caught/planted):\n${table(byVariation, ['tune', 'held-out'])}`);
  HALVES.forEach((half, i) => {
    out.push(`\n== ${half} half ==`);
    out.push(`missed planted variants (${plants[i]!.misses.length}):\n${plants[i]!.misses.slice(0, show).join('\n')}`);
    out.push(`false alarms on real names (${real[i]!.alarms.length}):\n${real[i]!.alarms.slice(0, show).join('\n')}`);
    out.push(`false alarms on generated names (${generated[i]!.alarms.length}):\n${generated[i]!.alarms.slice(0, show).join('\n')}`);
  });

  // The project's own sets: its planted variants, its generated population, and the matching cost per carrier.
  const own = await projectPlanted(index);
  out.push(`\n== project's own sets ==\nplanted variants (bench/match/variants.ts): ${pct(own.caught, own.n)} caught (${own.caught}/${own.n})`);
  if (own.misses.length > 0) out.push(own.misses.slice(0, show).join('\n'));
  if (carriers > 0) {
    const people = population(carriers, seed);
    const before = { ...index.work };
    const cpu0 = process.cpuUsage();
    const results = people.map((carrier) => index.match([carrier.legal, carrier.dba], carrier.place));
    const cpu = process.cpuUsage(cpu0);
    const queries = index.work.queries - before.queries;
    let flagged = 0; let hard = 0; let personHard = 0;
    for (const hits of results) {
      if (!hits.some((hit) => reasonOf(hit) !== null)) continue;
      flagged += 1;
      if (hits.some(isHardStop)) hard += 1;
      if (hits.some(isNameOnlyPersonHardStop)) personHard += 1;
    }
    const perCarrierUs = (cpu.user + cpu.system) / people.length;
    out.push(`generated population (bench/match/population.ts, ${people.length} carriers): ${pct(flagged, people.length)} flagged (${flagged}), ${hard} hard stops, ${personHard} name-only person hard stops`);
    out.push(`matching CPU per carrier: ${perCarrierUs.toFixed(1)} µs; candidates touched / scored per name: ${((index.work.touched - before.touched) / queries).toFixed(1)} / ${((index.work.scored - before.scored) / queries).toFixed(1)}`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ real, fresh, generated, planted: plants.map((p) => ({ ...p, misses: p.misses.length })) })}\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
