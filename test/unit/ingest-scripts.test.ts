// The scheduled ingest's two shell steps (k8s/ingest/), run for real with file:// URLs and a stand-in CLI that
// prints its arguments: fetch writes every configured file plus fetched.env and fails without census/authority;
// run-ingest passes each fetched file and the publisher's date as --as-of-source, never the download time.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
/** The fetch step needs curl (the CronJob's image has it); a machine without it skips only those cases. */
const hasCurl = spawnSync('curl', ['--version']).status === 0;
const scripts = new URL('../../k8s/ingest/', import.meta.url).pathname;
let dir: string;
let fakeCli: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ce-ingest-scripts-'));
  fakeCli = join(dir, 'fake-cli.mjs');
  await writeFile(fakeCli, 'process.stdout.write(JSON.stringify(process.argv.slice(2)));\n');
  await writeFile(join(dir, 'census.src'), 'MCS150_DATE,DOT_NUMBER\n');
  await writeFile(join(dir, 'authority.src'), 'DOCKET_NUMBER\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!hasCurl)('fetch-sources.sh', () => {
  it('downloads the configured files and records them in fetched.env', async () => {
    const out = join(dir, 'out');
    await run('sh', [join(scripts, 'fetch-sources.sh')], {
      env: { PATH: process.env.PATH, OUT_DIR: out, CENSUS_URL: `file://${dir}/census.src`, AUTHORITY_URL: `file://${dir}/authority.src` },
    });
    expect(await readFile(join(out, 'census.csv'), 'utf8')).toBe('MCS150_DATE,DOT_NUMBER\n');
    const env = await readFile(join(out, 'fetched.env'), 'utf8');
    expect(env).toContain(`CENSUS_FILE='${out}/census.csv'`);
    expect(env).toContain(`AUTHORITY_FILE='${out}/authority.csv'`);
    expect(env).not.toContain('OFAC_SDN_FILE');
  });

  it('fails when a required file is not configured or cannot be fetched', async () => {
    const out = join(dir, 'out-missing');
    await expect(run('sh', [join(scripts, 'fetch-sources.sh')], {
      env: { PATH: process.env.PATH, OUT_DIR: out, CENSUS_URL: `file://${dir}/census.src` },
    })).rejects.toMatchObject({ code: 1 });
    await expect(run('sh', [join(scripts, 'fetch-sources.sh')], {
      env: { PATH: process.env.PATH, FETCH_RETRIES: '0', OUT_DIR: out, CENSUS_URL: `file://${dir}/nope`, AUTHORITY_URL: `file://${dir}/authority.src` },
    })).rejects.toBeDefined();
    await expect(readFile(join(out, 'fetched.env'), 'utf8')).rejects.toBeDefined();
  });
});

describe('run-ingest.sh', () => {
  it('passes each file, and the publisher date (rowsUpdatedAt first, else Last-Modified) as --as-of-source', async () => {
    const data = join(dir, 'data');
    await run('mkdir', ['-p', data]);
    await writeFile(join(data, 'fetched.env'), [
      `CENSUS_FILE='${data}/census.csv'`, "CENSUS_FETCHED_AT='2026-11-23T09:30:00Z'",
      "CENSUS_ROWS_UPDATED_AT='1763866800'", "CENSUS_LAST_MODIFIED='Mon, 01 Jan 2024 00:00:00 GMT'",
      `AUTHORITY_FILE='${data}/authority.csv'`, "AUTHORITY_FETCHED_AT='2026-11-23T09:30:00Z'",
      "AUTHORITY_ROWS_UPDATED_AT=''", "AUTHORITY_LAST_MODIFIED=''",
      `OFAC_SDN_FILE='${data}/ofac-sdn.csv'`, "OFAC_SDN_LAST_MODIFIED='Sun, 22 Nov 2026 14:05:00 GMT'",
      `OFAC_ALT_FILE='${data}/ofac-alt.csv'`, "OFAC_ALT_LAST_MODIFIED='Sun, 22 Nov 2026 14:05:00 GMT'",
      '',
    ].join('\n'));
    const { stdout } = await run('sh', [join(scripts, 'run-ingest.sh')], { env: { PATH: process.env.PATH, DATA_DIR: data, CLI: fakeCli } });
    const args = JSON.parse(stdout.slice(stdout.indexOf('['))) as string[];
    expect(args).toEqual([
      'ingest',
      '--census', `${data}/census.csv`, '--as-of-source', 'census=2025-11-23T03:00:00Z',
      // No publisher date: no flag (the ingest then needs a date in the content, or refuses). Never the fetch time.
      '--authority', `${data}/authority.csv`,
      '--ofac-sdn', `${data}/ofac-sdn.csv`, '--as-of-source', 'ofac_sdn=2026-11-22T14:05:00Z',
      '--ofac-alt', `${data}/ofac-alt.csv`,
    ]);
  });

  it('refuses to run when the fetch step did not finish', async () => {
    await expect(run('sh', [join(scripts, 'run-ingest.sh')], { env: { PATH: process.env.PATH, DATA_DIR: join(dir, 'empty'), CLI: fakeCli } }))
      .rejects.toMatchObject({ code: 1 });
  });
});
