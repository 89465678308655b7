// Writes synthetic files in the real layouts: node --import tsx bench/generate-synthetic.ts --carriers N --out DIR
import { parseArgs } from 'node:util';
import { writeSyntheticFiles } from '../src/ingest/synthetic.js';

const { values } = parseArgs({ options: { carriers: { type: 'string', default: '1000000' }, out: { type: 'string', default: '.bench-out/synthetic' } } });
const carriers = Number(values.carriers);
if (!Number.isInteger(carriers) || carriers < 1) {
  process.stderr.write('generate-synthetic: --carriers must be a positive integer\n');
  process.exit(2);
}
const started = Date.now();
const files = await writeSyntheticFiles(values.out!, carriers);
process.stdout.write(`${JSON.stringify({ carriers, seconds: (Date.now() - started) / 1000, files }, null, 2)}\n`);
