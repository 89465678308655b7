// The bundled sample goes through the same ingest as production files. seedSample() writes the sample files
// (real layouts) into a temp dir with dates relative to now, then runs the normal ingest on them, so the demo
// verdicts in DEMO_CARRIERS hold on any future date. `scripts/make-sample.ts` writes the same files to sample/.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisClient } from '../redis/connection.js';
import type { SourceName } from '../core/ruleset.js';
import type { RedisKeys } from '../store/keys.js';
import {
  CENSUS_COLUMNS, csvLine, isoDaysFrom, legacyCarrierLine, mmddyyyy, OOS_COLUMNS, pad, quotedLine, REVOCATION_HEADER,
  SAM_V2_COLUMNS, yyyymmdd,
} from './layouts.js';
import { consoleProgress, silentProgress } from './progress.js';
import { runIngest, type IngestFiles, type IngestReport } from './run.js';
import { SAMPLE_CARRIERS, type SampleCarrier } from './sample-carriers.js';

export { DEMO_CARRIERS, type DemoCarrier } from './sample-carriers.js';

function censusRow(c: SampleCarrier, dot: number, nowMs: number): string {
  const values: Record<string, string> = {
    MCS150_DATE: `${yyyymmdd(isoDaysFrom(nowMs, -(c.mcs150DaysAgo ?? 120)))} 0000`,
    ADD_DATE: yyyymmdd(isoDaysFrom(nowMs, -(c.addDaysAgo ?? 3000))),
    STATUS_CODE: c.usdotStatus ?? 'A', DOT_NUMBER: String(dot), POWER_UNITS: '12',
    DOCKET1PREFIX: 'MC', DOCKET1: String(c.mc), HM_Ind: c.hazmat ? 'Y' : 'N',
    DOCKET1_STATUS_CODE: c.censusDocketStatus ?? ((c.common ?? 'A') === 'A' ? 'A' : 'I'),
    CARRIER_OPERATION: c.operation ?? 'A', PRIOR_REVOKE_FLAG: c.priorRevokeDot ? 'Y' : 'N',
    PRIOR_REVOKE_DOT_NUMBER: c.priorRevokeDot ? String(c.priorRevokeDot) : '',
    CLASSDEF: 'AUTHORIZED FOR HIRE', LEGAL_NAME: c.legal, DBA_NAME: c.dba ?? '', PHY_STATE: 'IL', PHY_COUNTRY: 'US',
    SAFETY_RATING: c.safety ?? '', CRGO_GENFREIGHT: 'X',
  };
  return csvLine(CENSUS_COLUMNS.map((column) => values[column] ?? ''));
}

const OFAC_NULLS = (count: number) => Array.from({ length: count }, () => '-0- ').join(',');
const OFAC_LINES = [
  // Two real SDN entities (public list, for layout realism) and fictional entries the sample carriers hit.
  `11195,"IRAN AIRCRAFT MANUFACTURING INDUSTRIAL COMPANY",-0- ,"NPWMD] [IFSR",${OFAC_NULLS(7)},"Sample copy."`,
  `44525,"BEL-KAP-STEEL LLC",-0- ,"BELARUS-EO14038",${OFAC_NULLS(7)},"Sample copy."`,
  `990001,"NORTHWIND MARITIME LOGISTICS",-0- ,"SAMPLE",${OFAC_NULLS(7)},"Fictional entry for the demo."`,
  `990002,"KASPIAN CARGO TRADING",-0- ,"SAMPLE",${OFAC_NULLS(7)},"Fictional entry for the demo."`,
  `990003,"VOLKOV, Ivan Petrovich","individual","SAMPLE",${OFAC_NULLS(7)},"Fictional person for the demo."`,
];
/** OFAC consolidated (non-SDN) list: a fictional sectoral-sanctions entry (the ofac_consolidated_match demo). */
const OFAC_CONS_LINES = [
  `990101,"VOLGA RIVER BANKING GROUP",-0- ,"UKRAINE-EO13662",${OFAC_NULLS(7)},"Fictional entry for the demo."`,
];
const OFAC_ALT_LINES = [
  '11195,11591,"aka","HESA TRADE CENTER",-0- ',
  '990002,990102,"aka","KASPIAN CARGO TRADING COMPANY",-0- ',
];

/** creationDate: the extract's Creation_Date (ISO), the SAM file's content as-of. */
function samRow(name: string, terminationDate: string, samNumber: string, creationDate: string): string {
  const values: Record<string, string> = {
    Classification: 'Firm', Name: name, Country: 'USA', 'Exclusion Program': 'Reciprocal', 'Excluding Agency': 'GSA',
    'Exclusion Type': 'Ineligible (Proceedings Completed)', 'Active Date': '01/15/2024', 'Termination Date': terminationDate,
    'SAM Number': samNumber, 'Creation_Date': creationDate,
  };
  return quotedLine(SAM_V2_COLUMNS.map((column) => values[column] ?? ''));
}

export async function writeSampleFiles(dir: string, nowMs = Date.now()): Promise<IngestFiles> {
  await mkdir(dir, { recursive: true });
  const day = (offset: number) => isoDaysFrom(nowMs, offset);
  const census = [csvLine(CENSUS_COLUMNS)];
  const carriers: string[] = [];
  const policies: string[] = [];
  const history: string[] = [];
  const revocations = [quotedLine(REVOCATION_HEADER)];
  const oos = [csvLine(OOS_COLUMNS)];
  for (const c of SAMPLE_CARRIERS) {
    census.push(censusRow(c, c.dot, nowMs));
    if (c.secondDot) census.push(censusRow({ ...c, legal: `${c.legal} (WEST)` }, c.secondDot, nowMs));
    const bipdK = c.bipdK ?? 1000;
    carriers.push(legacyCarrierLine({
      mc: c.mc, dot: c.dot, common: c.common ?? 'A', commonPending: c.commonPending ? 'Y' : 'N',
      commonRevPending: c.revocationFlag ? 'Y' : 'N', bipdRequiredK: c.hazmat ? 1000 : 750, bipdOnFileK: bipdK,
      legalName: c.legal.toUpperCase(), dbaName: c.dba, ...(c.passengerOnly ? { property: 'N', passenger: 'Y' } : {}),
    }));
    // ActPendInsur: docket, DOT, form, type, insurer, policy, posted, underlying, max (thousands), effective, cancel.
    // Posted (TRANS_DATE) over the last week, the newest today: the file's content as-of.
    const policy = (type: string, number: string, underlyingK: number, maxK: number, cancel: string) => quotedLine([`MC${pad(c.mc, 6)}`,
      pad(c.dot, 8), '91X', type, 'PLAINS MUTUAL INSURANCE CO', number, mmddyyyy(day(-(c.mc % 7))), String(underlyingK), String(maxK),
      mmddyyyy(day(-365)), cancel]);
    if (c.excessOverCancelledPrimary) {
      policies.push(policy('BIPD/Primary', `PL${c.mc}`, 0, 1000, mmddyyyy(day(-5))));
      policies.push(policy('BIPD/Excess', `XS${c.mc}`, 1000, 5000, ''));
    } else if (bipdK > 0 && !c.cancelledYesterday) {
      policies.push(policy('BIPD/Primary', `PL${c.mc}`, 0, bipdK, c.policyCancelInDays === undefined ? '' : mmddyyyy(day(c.policyCancelInDays))));
    }
    if (c.cancelledYesterday) {
      history.push(quotedLine([`MC${pad(c.mc, 6)}`, pad(c.dot, 8), '91X', 'cancelled', '35', ' ', 'BIPD/Primary', `PL${c.mc}`, '750', 'P',
        mmddyyyy(day(-365)), '0', String(bipdK), mmddyyyy(day(-1)), 'TERM/CANCL', '', 'PLAINS MUTUAL INSURANCE CO']));
    }
    if (c.historyCancel) {
      history.push(quotedLine([`MC${pad(c.mc, 6)}`, pad(c.dot, 8), '91X', c.historyCancel.replaced ? 'replaced' : 'cancelled',
        c.historyCancel.replaced ? '91X' : '35', ' ', 'BIPD/Primary', `OLD${c.mc}`, '750', 'P', mmddyyyy(day(-800)), '0',
        String(bipdK), mmddyyyy(day(c.historyCancel.inDays)), c.historyCancel.replaced ? 'Term/REPL' : 'TERM/CANCL', '',
        'OLD LINE CASUALTY CO']));
    }
    if (c.revocation) {
      revocations.push(quotedLine([`MC${pad(c.mc, 6)}`, pad(c.dot, 8), 'COMMON', mmddyyyy(day(c.revocation.effectiveInDays - 30)),
        'INVOLUNTARY REVOCATION', mmddyyyy(day(c.revocation.effectiveInDays))]));
    }
    if (c.oos) {
      // The order in force was served yesterday: the newest OOS_DATE is the file's content as-of.
      oos.push(csvLine([c.dot, c.legal, '', day(c.oos.rescinded ? -60 : -1), 'New Entrant Revoked - Refusal of Audit/No Contact', 'ACTIVE',
        c.oos.rescinded ? day(-30) : '']));
    }
  }
  // Real-data traps the parsers must survive: a voluntary revocation, a broker-only order, a zero DOT.
  revocations.push(quotedLine(['MC300001', pad(d300001(), 8), 'COMMON', mmddyyyy(day(-90)), 'VOLUNTARY REVOCATION', '']));
  revocations.push(quotedLine(['MC300002', '00000000', 'BROKER', mmddyyyy(day(-90)), 'INVOLUNTARY REVOCATION', mmddyyyy(day(-60))]));
  const sam = [quotedLine(SAM_V2_COLUMNS),
    samRow('REDLINE FREIGHT SOLUTIONS', 'Indefinite', 'S4MSAMPLE01', day(0)),
    samRow('BLACKSTONE HAULAGE PARTNERS', mmddyyyy(day(400)), 'S4MSAMPLE02', day(0)),
    samRow('SUNRISE CARTAGE LLC', mmddyyyy(day(-30)), 'S4MSAMPLE03', day(-1))];
  const dnu = ['mc_number,reason,added_at,expires_at', `MC-200001,Double-brokered a load,${day(-10)},`,
    `300003,Expired ban (ignored),${day(-400)},${day(-5)}`];

  const files = {
    census: join(dir, 'census_az4n-8mr2.csv'), authority: join(dir, 'li_carrier_legacy.txt'),
    insurance: join(dir, 'li_actpendinsur_legacy.txt'), insuranceHistory: join(dir, 'li_inshist_legacy.txt'),
    revocations: join(dir, 'li_revocation_legacy.csv'), oos: join(dir, 'oos_p2mt-9ige.csv'), ofacSdn: join(dir, 'sdn.csv'),
    ofacAlt: join(dir, 'alt.csv'), sam: join(dir, 'SAM_Exclusions_Public_V2.csv'), dnu: join(dir, 'do_not_use.csv'),
    ofacCons: join(dir, 'cons_prim.csv'),
  } satisfies IngestFiles;
  const lf = (lines: string[]) => `${lines.join('\n')}\n`;
  // OFAC ships CRLF lines and a final Ctrl-Z line; the sample does too.
  const ofac = (lines: string[]) => `${lines.join('\r\n')}\r\n\x1A`;
  await writeFile(files.census, lf(census));
  await writeFile(files.authority, lf(carriers));
  await writeFile(files.insurance, lf(policies));
  await writeFile(files.insuranceHistory, lf(history));
  await writeFile(files.revocations, lf(revocations));
  await writeFile(files.oos, lf(oos));
  await writeFile(files.ofacSdn, ofac(OFAC_LINES), 'latin1');
  await writeFile(files.ofacAlt, ofac(OFAC_ALT_LINES), 'latin1');
  await writeFile(files.ofacCons, ofac(OFAC_CONS_LINES), 'latin1');
  await writeFile(files.sam, lf(sam));
  await writeFile(files.dnu, lf(dnu));
  return files;
}

function d300001(): number {
  return 300001 * 10 + 1;
}

export interface SeedOptions {
  quiet?: boolean;
  nowMs?: number;
  /** Merge the live Redis DNU hash too (default false: the sample stays reproducible). */
  useRedisDnu?: boolean;
}

/**
 * The as-of an operator (or the scheduled ingest) passes for the sample files whose formats carry no date: the
 * legacy Carrier and InsHist files and OFAC. Generated now, so "now" is their publication date.
 */
export function sampleSourceAsOf(nowMs: number): Partial<Record<SourceName, string>> {
  const now = new Date(nowMs).toISOString();
  return { authority: now, insurance_history: now, ofac_sdn: now, ofac_cons: now };
}

/** Regenerates the sample with dates relative to now and ingests it (--as-of now, --force). */
export async function seedSample(redis: RedisClient, keys: RedisKeys, options: SeedOptions = {}): Promise<IngestReport> {
  const dir = await mkdtemp(join(tmpdir(), 'ce-sample-'));
  try {
    const nowMs = options.nowMs ?? Date.now();
    const files = await writeSampleFiles(dir, nowMs);
    return await runIngest(redis, keys, {
      files, asOf: 'now', sourceAsOf: sampleSourceAsOf(nowMs), nowMs, force: true, useRedisDnu: options.useRedisDnu ?? false,
      progress: options.quiet ? silentProgress : consoleProgress(),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
