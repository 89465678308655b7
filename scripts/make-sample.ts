// Writes the bundled sample files (real FMCSA / OFAC / SAM layouts) into sample/ with dates relative to today,
// plus sample/demo-carriers.json (expected verdicts). `seed --sample` regenerates the same files on the fly,
// so these copies are for reading and for running `carrier-eligibility ingest` by hand.
//   node --import tsx scripts/make-sample.ts [DIR]
import { writeFile } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { relative } from 'node:path';
import { DEMO_CARRIERS, sampleSourceAsOf, writeSampleFiles } from '../src/ingest/sample.js';

const dir = process.argv[2] ?? 'sample';
await mkdir(dir, { recursive: true });
const files = await writeSampleFiles(dir);
await writeFile(`${dir}/demo-carriers.json`, `${JSON.stringify(DEMO_CARRIERS, null, 2)}\n`);
const flag = (name: string) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
process.stdout.write(`wrote ${dir}/; ingest them with:\n  carrier-eligibility ingest ${Object.entries(files)
  .map(([name, file]) => `${flag(name)} ${relative(process.cwd(), file)}`).join(' ')} --as-of now ${
  // The legacy Carrier and InsHist files and OFAC carry no date of their own: their as-of is the operator's to give.
  Object.entries(sampleSourceAsOf(Date.now())).map(([source, at]) => `--as-of-source ${source}=${at.slice(0, 10)}`).join(' ')}\n`);
