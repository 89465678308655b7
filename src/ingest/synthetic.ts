// Synthetic files in the real layouts at any size, for the 1M-carrier benchmark and the kill-mid-ingest test.
// Streams to disk in chunks (never holds a whole file). Roughly 10% of carriers get a problem, so the matcher,
// joins and flags are exercised at scale, not only the happy path.
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CENSUS_COLUMNS, csvLine, isoDaysFrom, legacyCarrierLine, mmddyyyy, OOS_COLUMNS, pad, quotedLine, REVOCATION_HEADER,
  SAM_V2_COLUMNS, yyyymmdd,
} from './layouts.js';
import type { IngestFiles } from './run.js';

const WORDS = ['ALPINE', 'BAYOU', 'CANYON', 'DELTA', 'EAGLE', 'FRONTIER', 'GRANITE', 'HARBOR', 'IRONWOOD', 'JUNIPER',
  'KEYSTONE', 'LONESTAR', 'MESA', 'NORTHSTAR', 'OZARK', 'PIEDMONT', 'QUARRY', 'REDWOOD', 'SIERRA', 'TIMBER', 'UNION',
  'VALLEY', 'WILLOW', 'YUKON', 'ZEPHYR', 'SUMMIT', 'PRAIRIE', 'COASTAL', 'MIDWEST', 'PATRIOT'];
const KINDS = ['TRUCKING LLC', 'FREIGHT INC', 'TRANSPORT CO', 'LOGISTICS LLC', 'EXPRESS INC', 'CARRIERS LLC'];
const CENSUS_INDEX = new Map<string, number>(CENSUS_COLUMNS.map((name, index) => [name, index]));

class Out {
  private buffer: string[] = [];
  private readonly stream: WriteStream;
  constructor(readonly path: string, private readonly encoding: BufferEncoding = 'utf8', private readonly eol = '\n') {
    this.stream = createWriteStream(path, { encoding });
  }
  async line(text: string): Promise<void> {
    this.buffer.push(text);
    if (this.buffer.length >= 5000) await this.flush();
  }
  private async flush(): Promise<void> {
    const chunk = this.buffer.join(this.eol) + this.eol;
    this.buffer = [];
    if (!this.stream.write(chunk, this.encoding)) await new Promise<void>((resolve) => this.stream.once('drain', () => resolve()));
  }
  async close(trailer = ''): Promise<void> {
    if (this.buffer.length > 0) await this.flush();
    await new Promise<void>((resolve, reject) => this.stream.end(trailer, () => resolve()).once('error', reject));
  }
}

function name(i: number): string {
  const a = WORDS[i % WORDS.length]!;
  const b = WORDS[Math.floor(i / WORDS.length) % WORDS.length]!;
  return `${a} ${b} ${KINDS[Math.floor(i / 900) % KINDS.length]} ${Math.floor(i / 5400) + 1}`;
}

export async function writeSyntheticFiles(dir: string, carriers: number, nowMs = Date.now()): Promise<IngestFiles> {
  await mkdir(dir, { recursive: true });
  const day = (offset: number) => isoDaysFrom(nowMs, offset);
  const files = {
    census: join(dir, 'census_az4n-8mr2.csv'), authority: join(dir, 'li_carrier_legacy.txt'),
    insurance: join(dir, 'li_actpendinsur_legacy.txt'), insuranceHistory: join(dir, 'li_inshist_legacy.txt'),
    revocations: join(dir, 'li_revocation_legacy.csv'), oos: join(dir, 'oos_p2mt-9ige.csv'), ofacSdn: join(dir, 'sdn.csv'),
    ofacAlt: join(dir, 'alt.csv'), sam: join(dir, 'SAM_Exclusions_Public_V2.csv'), dnu: join(dir, 'do_not_use.csv'),
  } satisfies IngestFiles;
  const census = new Out(files.census);
  const authority = new Out(files.authority);
  const insurance = new Out(files.insurance);
  const history = new Out(files.insuranceHistory);
  const revocations = new Out(files.revocations);
  const oos = new Out(files.oos);
  const dnu = new Out(files.dnu);
  await census.line(csvLine(CENSUS_COLUMNS));
  await revocations.line(quotedLine(REVOCATION_HEADER));
  await oos.line(csvLine(OOS_COLUMNS));
  await dnu.line('mc_number,reason,added_at,expires_at');
  const mcs150 = `${yyyymmdd(day(-200))} 0000`;
  const added = yyyymmdd(day(-3000));
  const row = new Array<string>(CENSUS_COLUMNS.length).fill('');
  const set = (column: string, value: string) => { row[CENSUS_INDEX.get(column)!] = value; };
  for (let i = 0; i < carriers; i++) {
    const mc = 1_000_000 + i;
    const dot = 3_000_000 + i;
    const legal = name(i);
    const problem = i % 10 === 7 ? Math.floor(i / 10) % 6 : -1;
    row.fill('');
    set('MCS150_DATE', problem === 0 ? `${yyyymmdd(day(-1000))} 0000` : mcs150);
    set('ADD_DATE', added); set('STATUS_CODE', problem === 1 ? 'I' : 'A'); set('DOT_NUMBER', String(dot));
    set('CARRIER_OPERATION', 'A'); set('POWER_UNITS', String(1 + (i % 40))); set('TOTAL_DRIVERS', String(1 + (i % 45)));
    set('DOCKET1PREFIX', 'MC'); set('DOCKET1', String(mc)); set('DOCKET1_STATUS_CODE', 'A'); set('HM_Ind', i % 50 === 0 ? 'Y' : 'N');
    set('CLASSDEF', 'AUTHORIZED FOR HIRE'); set('LEGAL_NAME', legal); set('DBA_NAME', i % 7 === 0 ? `${WORDS[i % 30]} LINES` : '');
    set('PHY_STREET', `${i % 9000} MAIN ST`); set('PHY_CITY', 'SPRINGFIELD'); set('PHY_STATE', 'IL'); set('PHY_ZIP', '62701');
    set('PHY_COUNTRY', 'US'); set('SAFETY_RATING', problem === 2 ? 'C' : i % 3 === 0 ? 'S' : ''); set('CRGO_GENFREIGHT', 'X');
    // Contact data as the census carries it, one phone and e-mail address per carrier (the identity history's input).
    set('PHONE', String(2_000_000_000 + i)); if (i % 3 === 0) set('CELL_PHONE', String(3_000_000_000 + i));
    if (i % 10 < 7) set('EMAIL_ADDRESS', `owner${i}@carrier${i % 1000}.example`);
    await census.line(csvLine(row));
    const bipdK = problem === 3 ? 0 : i % 2 === 0 ? 1000 : 750;
    await authority.line(legacyCarrierLine({ mc, dot, common: problem === 4 ? 'I' : 'A', bipdRequiredK: 750, bipdOnFileK: bipdK, legalName: legal }));
    if (bipdK > 0) {
      await insurance.line(quotedLine([`MC${pad(mc, 6)}`, pad(dot, 8), '91X', 'BIPD/Primary', 'PLAINS MUTUAL INSURANCE CO',
        `PL${mc}`, mmddyyyy(day(-(i % 30))), '0', String(bipdK), mmddyyyy(day(-365)), '']));
    }
    if (problem === 5) {
      await history.line(quotedLine([`MC${pad(mc, 6)}`, pad(dot, 8), '91X', 'cancelled', '35', ' ', 'BIPD/Primary', `O${mc}`, '750',
        'P', mmddyyyy(day(-800)), '0', '1000', mmddyyyy(day(12)), 'TERM/CANCL', '', 'OLD LINE CASUALTY CO']));
    }
    if (i % 500 === 3) {
      await revocations.line(quotedLine([`MC${pad(mc, 6)}`, pad(dot, 8), 'COMMON', mmddyyyy(day(-10)), 'INVOLUNTARY REVOCATION', mmddyyyy(day(20))]));
    }
    if (i % 700 === 5) await oos.line(csvLine([dot, legal, '', day(-30), 'New Entrant Revoked - Failure of Safety Audit', 'ACTIVE', '']));
    if (i % 2000 === 11) await dnu.line(`MC${mc},synthetic ban,${day(-5)},`);
  }
  await Promise.all([census.close(), authority.close(), insurance.close(), history.close(), revocations.close(), oos.close(), dnu.close()]);
  await writeWatchlists(files, day);
  return files;
}

/** ~10k OFAC entities (+ aliases) and ~5k SAM firms; a few carry carrier names so matches happen. */
async function writeWatchlists(files: { ofacSdn: string; ofacAlt: string; sam: string }, day: (offset: number) => string): Promise<void> {
  const sdn = new Out(files.ofacSdn, 'latin1', '\r\n');
  const alt = new Out(files.ofacAlt, 'latin1', '\r\n');
  const nulls = Array.from({ length: 7 }, () => '-0- ').join(',');
  for (let i = 0; i < 10_000; i++) {
    const entity = i % 1000 === 0 ? name(i * 37 + 7) : `${WORDS[i % 30]}-${(i * 7919).toString(36).toUpperCase()} TRADING ${i}`;
    await sdn.line(`${20_000 + i},"${entity}",-0- ,"SDGT",${nulls},"Synthetic."`);
    if (i % 2 === 0) await alt.line(`${20_000 + i},${90_000 + i},"aka","${entity} GROUP",-0- `);
  }
  await sdn.close('\x1A');
  await alt.close('\x1A');
  const sam = new Out(files.sam);
  await sam.line(quotedLine(SAM_V2_COLUMNS));
  const at = (column: string) => SAM_V2_COLUMNS.indexOf(column as (typeof SAM_V2_COLUMNS)[number]);
  for (let i = 0; i < 5000; i++) {
    const values = new Array<string>(SAM_V2_COLUMNS.length).fill('');
    values[at('Classification')] = 'Firm';
    values[at('Name')] = i % 500 === 0 ? name(i * 53 + 3) : `EXCLUDED ${(i * 104729).toString(36).toUpperCase()} SERVICES`;
    values[at('Termination Date')] = i % 3 === 0 ? mmddyyyy(day(-10)) : 'Indefinite';
    values[at('SAM Number')] = `S4MSYN${i}`;
    // The extract's Creation_Date: the SAM file's content as-of (the ingest needs no flag for it).
    values[at('Creation_Date')] = day(0);
    await sam.line(quotedLine(values));
  }
  await sam.close();
}
