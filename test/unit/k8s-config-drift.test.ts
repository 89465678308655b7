// k8s/config.env (turned into the hash-suffixed ConfigMap by kustomize's configMapGenerator) carries exactly the
// settings of src/config.ts except the secrets, with values the schema accepts, each equal to its default unless
// listed as a deliberate Kubernetes choice; every workload takes REDIS_URL from the Secret.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema, loadConfig } from '../../src/config.js';

const read = (file: string) => readFileSync(new URL(`../../k8s/${file}`, import.meta.url), 'utf8');

/** KEY=value lines of an env file (comments and blank lines skipped; the value is everything after the first =). */
function envFile(text: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match?.[1]) data[match[1]] = match[2] ?? '';
  }
  return data;
}

/** From Secrets, never in the ConfigMap. */
const SECRET_KEYS = ['REDIS_URL', 'DECISION_SIGNING_KEY'];
/** Deliberately not the default on Kubernetes (and why: config.env's header). */
const K8S_CHOICES: Record<string, unknown> = { METRICS_PORT: 9464 };
const data = envFile(read('config.env'));
const schemaKeys = Object.keys(configSchema.shape);

describe('k8s config drift', () => {
  it('lists every config key in config.env, except the ones that come from a Secret', () => {
    expect(Object.keys(data).sort()).toEqual(schemaKeys.filter((key) => !SECRET_KEYS.includes(key)).sort());
  });

  it('has only values the config schema accepts, each equal to its default unless a listed Kubernetes choice', () => {
    expect(() => loadConfig(data)).not.toThrow();
    const defaults = loadConfig({});
    for (const [key, value] of Object.entries(loadConfig(data))) {
      const expected = key in K8S_CHOICES ? K8S_CHOICES[key] : defaults[key as keyof typeof defaults];
      expect({ key, value }).toEqual({ key, value: expected });
    }
  });

  it.each(['api.yaml', 'worker.yaml', 'cronjob-ingest.yaml', 'cronjob-decision-export.yaml'])(
    '%s takes REDIS_URL from a Secret and the settings from the generated ConfigMap', (file) => {
      const manifest = read(file);
      expect(manifest).toMatch(/- name: REDIS_URL\s+valueFrom:\s+secretKeyRef:/);
      expect(manifest).toContain('name: carrier-eligibility-config');
    },
  );

  it.each([['api.yaml', 'api'], ['worker.yaml', 'worker']])('%s sets ROLE=%s', (file, role) => {
    expect(read(file)).toMatch(new RegExp(`- name: ROLE\\s+value: ${role}\\n`));
  });
});
