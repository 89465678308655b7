// Summarises a V8 .cpuprofile (from `BENCH_CPU_PROF=1 npm run bench`): self time by function, top N, as shares of
// all samples and of the non-idle ones. `node --import tsx bench/profile-summary.ts FILE.cpuprofile [N]`
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts FILE.cpuprofile [N]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map<string, number>();
let total = 0;
let idle = 0;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  const frame = byId.get(id)?.callFrame;
  if (!frame) return;
  total += delta;
  if (frame.functionName === '(idle)') idle += delta;
  const where = frame.url ? `${frame.url.replace(/^.*\/(node_modules|src|bench)\//, '$1/')}:${frame.lineNumber + 1}` : '';
  const name = `${frame.functionName || '(anonymous)'} ${where}`.trim();
  self.set(name, (self.get(name) ?? 0) + delta);
});
const busy = total - idle;
process.stdout.write(`samples ${profile.samples.length}, ${(total / 1e6).toFixed(2)} s, idle ${((idle / total) * 100).toFixed(1)}%\n`);
process.stdout.write('| self % of busy | function |\n|---:|---|\n');
for (const [name, micros] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 40))) {
  if (name.startsWith('(idle)')) continue;
  process.stdout.write(`| ${((micros / busy) * 100).toFixed(1)} | ${name} |\n`);
}
