// Summarises a .heapprofile from BENCH_HEAP_PROF=1: sampled bytes by allocating function (self), top N, with the
// share of all sampled bytes. `node --import tsx bench/heap-summary.ts FILE.heapprofile [N]`
import { readFileSync } from 'node:fs';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: heap-summary.ts FILE.heapprofile [N]');
const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
const bySite = new Map<string, number>();
let total = 0;
const visit = (node: HeapNode, caller: string): void => {
  const frame = node.callFrame;
  const where = frame.url ? `${frame.url.replace(/^.*\/(node_modules|src|bench)\//, '$1/')}:${frame.lineNumber + 1}` : '';
  const name = `${frame.functionName || '(anonymous)'} ${where}`.trim();
  if (node.selfSize > 0) {
    const site = `${name}  ← ${caller}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
  }
  for (const child of node.children) visit(child, name);
};
visit(head, '');
process.stdout.write(`sampled ${(total / 1e6).toFixed(1)} MB\n| share | MB | allocating function ← its caller |\n|---:|---:|---|\n`);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 40))) {
  process.stdout.write(`| ${(100 * bytes / total).toFixed(1)} % | ${(bytes / 1e6).toFixed(2)} | ${site} |\n`);
}
