// The API pods' Node options (k8s/api.yaml: the API container's NODE_OPTIONS and the node flags of its command), so
// a bench runs the service as production starts it (BENCH_K8S_NODE_OPTIONS=0: with Node's defaults).
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

interface Container { name: string; command?: string[]; env?: Array<{ name: string; value?: string }> }

function containersOf(doc: unknown): Container[] {
  if (typeof doc !== 'object' || doc === null || !('kind' in doc) || doc.kind !== 'Deployment') return [];
  const spec = (doc as { spec?: { template?: { spec?: { containers?: Container[] } } } }).spec;
  return spec?.template?.spec?.containers ?? [];
}

export function apiNodeOptions(root: string, enabled = process.env.BENCH_K8S_NODE_OPTIONS !== '0'): string[] {
  if (!enabled) return [];
  const documents = parseAllDocuments(readFileSync(`${root}/k8s/api.yaml`, 'utf8')).map((document) => document.toJS() as unknown);
  const api = documents.flatMap(containersOf).find((container) => container.name === 'api');
  const nodeOptions = api?.env?.find((entry) => entry.name === 'NODE_OPTIONS')?.value;
  if (api === undefined || nodeOptions === undefined) throw new Error('k8s/api.yaml: no NODE_OPTIONS for the API container');
  const flags = api.command?.[0] === 'node' ? api.command.slice(1, -1) : [];
  return [...nodeOptions.trim().split(/\s+/), ...flags];
}
