// The real list files the matching benchmark and tests load, through the ingest's own loaders.
import { SourceStats, type LoadContext } from '../../src/ingest/sources/common.js';
import {
  loadOfacAddresses, loadOfacAliases, loadOfacPrimary, loadSamExclusions,
} from '../../src/ingest/sources/watchlists.js';
import { WatchlistIndex } from '../../src/match/watchlist-index.js';

export const REAL = 'test/fixtures/real';

const context: LoadContext = {
  today: '2024-01-01', nowMs: Date.parse('2024-01-01T00:00:00Z'), insuranceUnits: 'auto', onBytes: () => undefined, warn: () => undefined,
};

/** Full OFAC SDN list of July 2021 (sdn, alt, add), the consolidated non-SDN list (prim, alt, add), the SAM V2 sample. */
export async function loadRealLists(): Promise<WatchlistIndex> {
  const index = new WatchlistIndex();
  const sdn = await loadOfacPrimary(`${REAL}/ofac/sdn_2021-07/sdn.csv`, 'ofac_sdn', index, context, new SourceStats());
  await loadOfacAliases(`${REAL}/ofac/sdn_2021-07/alt.csv`, 'ofac_sdn', sdn, index, context, new SourceStats());
  await loadOfacAddresses(`${REAL}/ofac/sdn_2021-07/add.csv`, 'ofac_sdn', index, context, new SourceStats());
  const cons = await loadOfacPrimary(`${REAL}/ofac/cons_nonsdn/cons_prim.csv`, 'ofac_cons', index, context, new SourceStats());
  await loadOfacAliases(`${REAL}/ofac/cons_nonsdn/cons_alt.csv`, 'ofac_cons', cons, index, context, new SourceStats());
  await loadOfacAddresses(`${REAL}/ofac/cons_nonsdn/cons_add.csv`, 'ofac_cons', index, context, new SourceStats());
  await loadSamExclusions(`${REAL}/sam_exclusions/SAM_Exclusions_Public_V2_sample_2023-11.csv`, index, context, new SourceStats());
  return index;
}

