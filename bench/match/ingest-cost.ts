// Whole-ingest cost of matching: N synthetic carriers (the ingest's synthetic files, census names replaced by the
// realistic population of population.ts) ingested into Redis twice without watch lists and twice with the real
// OFAC SDN (+alt, add), consolidated (+alt, add) and SAM files; prints wall and CPU time of each run.
//   node --import tsx bench/match/ingest-cost.ts [carriers=100000]
import { readFile, writeFile } from 'node:fs/promises';
import { writeSyntheticFiles } from '../../src/ingest/synthetic.js';
import { CENSUS_COLUMNS } from '../../src/ingest/layouts.js';
import { runIngest } from '../../src/ingest/run.js';
import { population } from './population.js';
import { redisKeys } from '../../src/store/keys.js';
import { createRedis } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
const N = Number(process.argv[2] ?? 100000);
const dir = `.bench-out/match-ingest-${N}`;
const files = await writeSyntheticFiles(dir, N);
const column = (name: string) => (CENSUS_COLUMNS as readonly string[]).indexOf(name);
const [legalAt, dbaAt, stateAt, cityAt, zipAt] = ['LEGAL_NAME', 'DBA_NAME', 'PHY_STATE', 'PHY_CITY', 'PHY_ZIP'].map(column) as [number, number, number, number, number];
const people = population(N, 11);
const lines = (await readFile(files.census, 'utf8')).split('\n');
for (let i = 1; i < lines.length; i++) {
  if (!lines[i]) continue;
  // The synthetic census has no quoted commas, so a plain split is exact here.
  const cells = lines[i]!.split(','); const p = people[i - 1]!;
  cells[legalAt] = p.legal; cells[dbaAt] = p.dba ?? ''; cells[stateAt] = p.place.state; cells[cityAt] = p.place.city; cells[zipAt] = p.place.zip;
  lines[i] = cells.join(',');
}
await writeFile(files.census, lines.join('\n'));
const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'background', 10_000);
const R = 'test/fixtures/real';
const now = new Date().toISOString();
for (const withLists of [false, true, false, true]) {
  const prefix = `bench:match:${Math.random().toString(36).slice(2, 8)}:`;
  const lists = withLists ? {
    ofacSdn: `${R}/ofac/sdn_2021-07/sdn.csv`, ofacAlt: `${R}/ofac/sdn_2021-07/alt.csv`, ofacAdd: `${R}/ofac/sdn_2021-07/add.csv`,
    ofacCons: `${R}/ofac/cons_nonsdn/cons_prim.csv`, ofacConsAlt: `${R}/ofac/cons_nonsdn/cons_alt.csv`, ofacConsAdd: `${R}/ofac/cons_nonsdn/cons_add.csv`,
    sam: `${R}/sam_exclusions/SAM_Exclusions_Public_V2_sample_2023-11.csv`,
  } : {};
  const cpu0 = process.cpuUsage();
  const report = await runIngest(redis, redisKeys(prefix), {
    files: { census: files.census, authority: files.authority, insurance: files.insurance, ...lists },
    asOf: 'now', sourceAsOf: { authority: now, ofac_sdn: now, ofac_cons: now }, useRedisDnu: false, force: true,
  });
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ withLists, carriers: report.carriers, wall_ms: report.durationMs, cpu_ms: Math.round((cpu.user + cpu.system) / 1000), reasons: Object.fromEntries(Object.entries(report.reasons).filter(([k]) => /ofac|sam/.test(k))) }));
  await deleteByPrefix(redis, prefix);
}
redis.disconnect();
