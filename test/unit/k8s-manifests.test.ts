// Every YAML document under k8s/ is validated against the Kubernetes API schemas (kubernetes-models: one class per
// kind with the OpenAPI schema compiled into .validate()). Kinds it does not know — kustomize's Kustomization and
// the Prometheus Operator's PodMonitor / PrometheusRule — get a minimal shape check of the fields we use.
// Note: these schemas, like the API server without strict field validation, accept unknown fields; the
// invariants below check the fields that matter by name. Then the deployment invariants a platform team expects.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { loadConfig } from '../../src/config.js';
import { RequestDurations } from '../../src/metrics.js';

const root = new URL('../../k8s/', import.meta.url).pathname;

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

interface Manifest { file: string; doc: Record<string, unknown> & { apiVersion: string; kind: string; metadata?: { name?: string; labels?: Record<string, string> } } }

const manifests: Manifest[] = yamlFiles(root).flatMap((file) => parseAllDocuments(readFileSync(file, 'utf8')).map((document) => {
  if (document.errors.length > 0) throw new Error(`${relative(root, file)}: ${document.errors[0]?.message}`);
  const doc = document.toJS() as Manifest['doc'];
  return { file: relative(root, file), doc };
})).filter((manifest) => manifest.doc !== null);

const byKind = (kind: string) => manifests.filter((manifest) => manifest.doc.kind === kind);

// ---- minimal schemas for kinds kubernetes-models lacks ----
const kustomizationSchema = z.object({
  apiVersion: z.literal('kustomize.config.k8s.io/v1beta1'),
  kind: z.literal('Kustomization'),
  resources: z.array(z.string()).min(1),
  configMapGenerator: z.array(z.object({ name: z.string(), envs: z.array(z.string()).optional(), files: z.array(z.string()).optional() })).optional(),
  images: z.array(z.object({ name: z.string(), newName: z.string().optional(), newTag: z.string().optional() })).optional(),
}).loose();
const labelSelector = z.object({ matchLabels: z.record(z.string(), z.string()) });
const podMonitorSchema = z.object({
  apiVersion: z.literal('monitoring.coreos.com/v1'),
  metadata: z.object({ name: z.string() }),
  spec: z.object({ selector: labelSelector, podMetricsEndpoints: z.array(z.object({ port: z.string(), path: z.string() })).min(1) }),
});
const ruleSchema = z.object({
  alert: z.string(), expr: z.union([z.string(), z.number()]), for: z.string().regex(/^\d+[smh]$/).optional(),
  labels: z.object({ severity: z.enum(['warning', 'critical']) }), annotations: z.object({ summary: z.string() }).loose(),
});
const prometheusRuleSchema = z.object({
  apiVersion: z.literal('monitoring.coreos.com/v1'),
  metadata: z.object({ name: z.string() }),
  spec: z.object({ groups: z.array(z.object({ name: z.string(), rules: z.array(ruleSchema).min(1) })).min(1) }),
});
const OWN_SCHEMAS: Record<string, z.ZodType> = {
  Kustomization: kustomizationSchema, PodMonitor: podMonitorSchema, PrometheusRule: prometheusRuleSchema,
};

/** kubernetes-models module path for an apiVersion: 'apps/v1' → 'kubernetes-models/apps/v1', 'v1' → '.../v1'. */
async function modelClass(apiVersion: string, kind: string): Promise<(new (data: unknown) => { validate(): void }) | undefined> {
  const module = await import(`kubernetes-models/${apiVersion}`) as Record<string, unknown>;
  return module[kind] as (new (data: unknown) => { validate(): void }) | undefined;
}

describe('k8s manifests: schemas', () => {
  it('finds the manifests', () => {
    expect(manifests.length).toBeGreaterThan(15);
  });

  it.each(manifests.map((manifest) => [`${manifest.file} ${manifest.doc.kind}/${manifest.doc.metadata?.name ?? ''}`, manifest] as const))(
    '%s is valid', async (_, { doc }) => {
      const own = OWN_SCHEMAS[doc.kind];
      if (own) {
        own.parse(doc);
        return;
      }
      const Model = await modelClass(doc.apiVersion, doc.kind);
      expect(Model, `kubernetes-models has no ${doc.apiVersion} ${doc.kind}`).toBeDefined();
      if (Model) new Model(doc).validate();
    },
  );
});

// ---- invariants ----
interface Container {
  name: string; image: string; command?: string[]; env?: { name: string; value?: string }[]; ports?: { name?: string; containerPort: number }[];
  resources?: { limits?: { memory?: string } }; readinessProbe?: { httpGet?: { port: string | number } };
  livenessProbe?: { httpGet?: { port: string | number } }; envFrom?: { configMapRef?: { name: string } }[];
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
}
interface PodSpec { containers: Container[]; initContainers?: Container[]; securityContext?: { runAsNonRoot?: boolean }; volumes?: { configMap?: { name: string } }[] }
interface PodTemplate { metadata: { labels: Record<string, string> }; spec: PodSpec }

function podTemplate(doc: Manifest['doc']): PodTemplate | null {
  const spec = doc.spec as Record<string, unknown> | undefined;
  if (doc.kind === 'CronJob') return ((spec?.jobTemplate as { spec: { template: PodTemplate } }).spec.template);
  if (['Deployment', 'StatefulSet', 'Job'].includes(doc.kind)) return spec?.template as PodTemplate;
  return null;
}

const app = manifests.filter((manifest) => !manifest.file.startsWith('redis/'));
const workloads = app.filter((manifest) => podTemplate(manifest.doc) !== null);
const ownContainers = workloads.flatMap((manifest) => {
  const template = podTemplate(manifest.doc);
  return (template?.spec.containers ?? []).filter((container) => container.image === 'carrier-eligibility')
    .map((container) => ({ manifest, container }));
});

function mebibytes(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`unexpected memory quantity ${quantity}`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

describe('k8s manifests: deployment invariants', () => {
  const kustomization = kustomizationSchema.parse(byKind('Kustomization').find((manifest) => manifest.file === 'kustomization.yaml')?.doc);

  it('kustomization lists every manifest file of k8s/ (and only existing ones); generators read existing files', () => {
    const topLevel = readdirSync(root).filter((name) => /\.ya?ml$/.test(name) && name !== 'kustomization.yaml').sort();
    expect([...kustomization.resources].sort()).toEqual(topLevel);
    for (const generator of kustomization.configMapGenerator ?? []) {
      for (const file of [...(generator.envs ?? []), ...(generator.files ?? [])]) expect(existsSync(join(root, file)), file).toBe(true);
    }
    const redis = kustomizationSchema.parse(byKind('Kustomization').find((manifest) => manifest.file === 'redis/kustomization.yaml')?.doc);
    for (const file of redis.resources) expect(existsSync(join(root, 'redis', file)), file).toBe(true);
  });

  it('no Deployment under an HPA sets replicas (each apply would reset the autoscaler)', () => {
    const targets = byKind('HorizontalPodAutoscaler').map((manifest) => (manifest.doc.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) {
      const deployment = byKind('Deployment').find((manifest) => manifest.doc.metadata?.name === target);
      expect(deployment, target).toBeDefined();
      expect((deployment?.doc.spec as Record<string, unknown>).replicas).toBeUndefined();
    }
  });

  it('every PDB uses maxUnavailable, and every Deployment and StatefulSet has one', () => {
    const pdbs = byKind('PodDisruptionBudget');
    for (const pdb of pdbs) {
      const spec = pdb.doc.spec as { maxUnavailable?: unknown; minAvailable?: unknown };
      expect(spec.minAvailable).toBeUndefined();
      expect(spec.maxUnavailable).toBe(1);
    }
    for (const workload of [...byKind('Deployment'), ...byKind('StatefulSet')]) {
      const labels = (podTemplate(workload.doc)?.metadata.labels) ?? {};
      const covered = pdbs.some((pdb) => Object.entries((pdb.doc.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels)
        .every(([key, value]) => labels[key] === value));
      expect(covered, `${workload.doc.metadata?.name} has no PDB`).toBe(true);
    }
  });

  it('workloads carry app.kubernetes.io/{name,instance,component} on themselves and their pods; selectors match pods', () => {
    for (const { doc } of workloads) {
      const labels = podTemplate(doc)?.metadata.labels ?? {};
      for (const key of ['app.kubernetes.io/name', 'app.kubernetes.io/instance', 'app.kubernetes.io/component']) {
        expect(labels[key], `${doc.metadata?.name} pod label ${key}`).toBeTruthy();
        expect(doc.metadata?.labels?.[key], `${doc.metadata?.name} label ${key}`).toBe(labels[key]);
      }
      const selector = (doc.spec as { selector?: { matchLabels: Record<string, string> } }).selector;
      for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) expect(labels[key]).toBe(value);
    }
  });

  it('every service container: probes on a declared port, non-root, read-only root, no privilege escalation', () => {
    for (const { doc } of [...byKind('Deployment'), ...byKind('StatefulSet')]) {
      const spec = podTemplate(doc)?.spec;
      expect(spec?.securityContext?.runAsNonRoot, doc.metadata?.name).toBe(true);
      for (const container of spec?.containers ?? []) {
        expect(container.readinessProbe, `${doc.metadata?.name}/${container.name} readiness`).toBeDefined();
        const ports = (container.ports ?? []).map((port) => port.name);
        for (const probe of [container.readinessProbe, container.livenessProbe]) {
          if (probe?.httpGet) expect(ports).toContain(probe.httpGet.port);
        }
        expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
        expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
      }
    }
  });

  it('API and worker both expose a metrics port, and liveness + readiness probes', () => {
    for (const name of ['carrier-eligibility-api', 'carrier-eligibility-worker']) {
      const container = podTemplate(byKind('Deployment').find((manifest) => manifest.doc.metadata?.name === name)?.doc ?? { apiVersion: '', kind: '' })?.spec.containers[0];
      expect(container?.ports?.find((port) => port.name === 'metrics')?.containerPort, name).toBe(9464);
      expect(container?.livenessProbe, name).toBeDefined();
      expect(container?.readinessProbe, name).toBeDefined();
    }
  });

  it('Node heap (NODE_OPTIONS --max-old-space-size) is 75 % of each container\'s memory limit', () => {
    expect(ownContainers.length).toBeGreaterThanOrEqual(4);
    for (const { manifest, container } of ownContainers) {
      const heap = /--max-old-space-size=(\d+)/.exec(container.env?.find((entry) => entry.name === 'NODE_OPTIONS')?.value ?? '')?.[1];
      const limit = container.resources?.limits?.memory;
      expect(heap, `${manifest.doc.metadata?.name}/${container.name}`).toBeDefined();
      expect(limit, `${manifest.doc.metadata?.name}/${container.name}`).toBeDefined();
      expect(Number(heap)).toBe(mebibytes(limit ?? '0Mi') * 0.75);
    }
  });

  // Node 20 exits at start (code 9, "… is not allowed in NODE_OPTIONS") when NODE_OPTIONS holds a V8 option off its
  // short list (--min-semi-space-size is not on it), and only a real start shows it. So each
  // container's NODE_OPTIONS and node flags are given to this very node binary, which must start.
  it('Node starts with each container\'s NODE_OPTIONS and node flags', () => {
    expect(ownContainers.length).toBeGreaterThanOrEqual(4);
    for (const { manifest, container } of ownContainers) {
      const where = `${manifest.doc.metadata?.name}/${container.name}`;
      const nodeOptions = container.env?.find((entry) => entry.name === 'NODE_OPTIONS')?.value ?? '';
      const flags = container.command?.[0] === 'node' ? container.command.slice(1, -1) : [];
      const run = spawnSync(process.execPath, [...flags, '-e', 'process.exit(0)'], {
        env: { ...process.env, NODE_OPTIONS: nodeOptions }, encoding: 'utf8',
      });
      expect(run.stderr, where).toBe('');
      expect(run.status, where).toBe(0);
    }
  });

  it('the API container runs the image\'s entry point (node dist/src/main.js), adding only V8 flags', () => {
    const api = ownContainers.find(({ container }) => container.name === 'api')?.container;
    expect(api?.command?.[0]).toBe('node');
    expect(api?.command?.at(-1)).toBe('dist/src/main.js');
    expect(api?.command?.length).toBeGreaterThan(2);
    for (const flag of api?.command?.slice(1, -1) ?? []) expect(flag).toMatch(/^--[a-z-]+=\d+$/);
  });

  it('config comes from generated ConfigMaps (hash-suffixed: a change rolls the pods), never from a fixed one', () => {
    const generated = new Set((kustomization.configMapGenerator ?? []).map((generator) => generator.name));
    expect(byKind('ConfigMap').filter((manifest) => !manifest.file.startsWith('redis/'))).toEqual([]);
    for (const { doc } of workloads) {
      const spec = podTemplate(doc)?.spec;
      const names = [
        ...[...(spec?.containers ?? []), ...(spec?.initContainers ?? [])].flatMap((container) => (container.envFrom ?? []).map((from) => from.configMapRef?.name)),
        ...(spec?.volumes ?? []).map((volume) => volume.configMap?.name),
      ].filter((name): name is string => name !== undefined);
      for (const name of names) expect(generated.has(name), `${doc.metadata?.name} uses ${name}`).toBe(true);
    }
  });

  it('NetworkPolicies cover every pod; the metrics port admits only the monitoring namespace', () => {
    const policies = byKind('NetworkPolicy').map((manifest) => manifest.doc.spec as {
      podSelector: { matchLabels: Record<string, string> }; policyTypes: string[];
      ingress?: { from?: { namespaceSelector?: { matchLabels: Record<string, string> } }[]; ports: { port: string | number }[] }[];
    });
    for (const { doc } of workloads) {
      const labels = podTemplate(doc)?.metadata.labels ?? {};
      const selecting = policies.filter((policy) => Object.entries(policy.podSelector.matchLabels).every(([key, value]) => labels[key] === value));
      expect(selecting.length, `${doc.metadata?.name} is not selected by a NetworkPolicy`).toBeGreaterThan(0);
      expect(selecting.some((policy) => policy.policyTypes.includes('Ingress') && policy.policyTypes.includes('Egress'))).toBe(true);
    }
    for (const policy of policies) {
      for (const rule of policy.ingress ?? []) {
        if (!rule.ports.some((port) => port.port === 'metrics' || port.port === 9464)) continue;
        expect(rule.from).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
      }
    }
  });

  it('the Service exposes the API port only (not metrics)', () => {
    const service = byKind('Service').find((manifest) => manifest.doc.metadata?.name === 'carrier-eligibility');
    const ports = (service?.doc.spec as { ports: { targetPort: string }[] }).ports;
    expect(ports.map((port) => port.targetPort)).toEqual(['http']);
  });

  describe('scheduled ingest and its alert', () => {
    const config = loadConfig(Object.fromEntries(readFileSync(join(root, 'config.env'), 'utf8').split('\n')
      .filter((line) => /^[A-Z0-9_]+=/.test(line)).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])));
    const cron = byKind('CronJob').find((manifest) => manifest.doc.metadata?.name === 'carrier-eligibility-ingest')?.doc;
    const rules = prometheusRuleSchema.parse(byKind('PrometheusRule')[0]?.doc).spec.groups.flatMap((group) => group.rules);

    it('runs at least daily, one at a time, fetching first and ingesting in the service image', () => {
      const spec = cron?.spec as { schedule: string; concurrencyPolicy: string };
      expect(spec.schedule).toMatch(/^\d+ \d+ \* \* \*$/);
      expect(spec.concurrencyPolicy).toBe('Forbid');
      const template = podTemplate(cron ?? { apiVersion: '', kind: '' });
      expect(template?.spec.initContainers?.[0]?.name).toBe('fetch');
      expect(template?.spec.containers[0]?.image).toBe('carrier-eligibility');
    });

    it('alerts on data age well before MAX_DATA_AGE_SECONDS (and after at most one missed daily run)', () => {
      const aging = rules.find((rule) => rule.alert === 'CarrierDataAging');
      const match = /ce_data_age_seconds\)\s*>\s*(\d+)\s*\*\s*3600/.exec(String(aging?.expr));
      const thresholdSeconds = Number(match?.[1]) * 3600;
      expect(thresholdSeconds).toBeGreaterThan(24 * 3600);
      expect(thresholdSeconds).toBeLessThanOrEqual(config.MAX_DATA_AGE_SECONDS * 0.75);
    });

    it("alerts on the eligibility check's p99 from the histogram the adapter writes, under the route it registers", () => {
      const durations = new RequestDurations();
      durations.observe(durations.slotOf('POST', '/v1/eligibility'), 1);
      const bucketSeries = /^(\w+_bucket)\{method="POST",route="([^"]+)"/m.exec(durations.exposition());
      const slow = String(rules.find((rule) => rule.alert === 'CarrierEligibilityChecksSlow')?.expr);
      expect(slow).toContain(`rate(${bucketSeries?.[1]}{route="${bucketSeries?.[2]}"}[5m])`);
      expect(slow).toMatch(/^histogram_quantile\(0\.99, sum by \(le\) \(/);
    });

    it('the decision export CronJob runs `decisions export --from --to --out`', () => {
      const exporter = byKind('CronJob').find((manifest) => manifest.doc.metadata?.name === 'carrier-eligibility-decision-export')?.doc;
      const command = (podTemplate(exporter ?? { apiVersion: '', kind: '' })?.spec.containers[0] as { command?: string[] } | undefined)?.command?.join(' ');
      expect(command).toMatch(/decisions export --from "\$from" --to "\$to" --out/);
    });
  });
});

/** `kubectl kustomize` renders offline; where kubectl is installed, check what would really be applied. */
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

describe.skipIf(!kubectl)('k8s manifests: rendered by kubectl kustomize', () => {
  const render = (dir: string) => {
    const result = spawnSync('kubectl', ['kustomize', join(root, dir)], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`kubectl kustomize ${dir}: ${result.stderr}`);
    return parseAllDocuments(result.stdout).map((document) => document.toJS() as Manifest['doc']);
  };

  it.each(['.', 'redis'])('k8s/%s renders, and every rendered object is valid', async (dir) => {
    for (const doc of render(dir)) {
      const own = OWN_SCHEMAS[doc.kind];
      if (own) own.parse(doc);
      else {
        const Model = await modelClass(doc.apiVersion, doc.kind);
        expect(Model, `${doc.apiVersion} ${doc.kind}`).toBeDefined();
        if (Model) new Model(doc).validate();
      }
    }
  });

  it('ConfigMaps get content-hash names and every reference points at them (a config change rolls the pods)', () => {
    const docs = render('.');
    const configMaps = docs.filter((doc) => doc.kind === 'ConfigMap').map((doc) => doc.metadata?.name ?? '');
    expect(configMaps.length).toBe(3);
    for (const name of configMaps) expect(name).toMatch(/^carrier-eligibility-[a-z-]+-[a-z0-9]{10}$/);
    for (const doc of docs) {
      const spec = podTemplate(doc)?.spec;
      if (!spec) continue;
      const references = [
        ...[...spec.containers, ...(spec.initContainers ?? [])].flatMap((container) => (container.envFrom ?? []).map((from) => from.configMapRef?.name)),
        ...(spec.volumes ?? []).map((volume) => volume.configMap?.name),
      ].filter((name): name is string => name !== undefined);
      for (const reference of references) expect(configMaps, `${doc.metadata?.name} → ${reference}`).toContain(reference);
    }
  });

  it('the image is rewritten everywhere and the version label is on objects and pods but in no selector', () => {
    const docs = render('.');
    for (const doc of docs) {
      expect(doc.metadata?.labels?.['app.kubernetes.io/version'], `${doc.kind}/${doc.metadata?.name}`).toBe('1.0.0');
      const template = podTemplate(doc);
      if (!template) continue;
      expect(template.metadata.labels['app.kubernetes.io/version']).toBe('1.0.0');
      const selector = (doc.spec as { selector?: { matchLabels: Record<string, string> } }).selector;
      expect(selector?.matchLabels['app.kubernetes.io/version']).toBeUndefined();
      for (const container of [...template.spec.containers, ...(template.spec.initContainers ?? [])]) {
        expect(container.image).not.toBe('carrier-eligibility');
      }
    }
  });
});

beforeAll(() => {
  expect(existsSync(root)).toBe(true);
});
