// k8s/configmap.yaml carries exactly the settings of src/config.ts (REDIS_URL comes from a Secret instead),
// with values the schema accepts, and both Deployments take REDIS_URL from that Secret.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema, loadConfig } from '../../src/config.js';

const read = (file: string) => readFileSync(new URL(`../../k8s/${file}`, import.meta.url), 'utf8');

/** The `data:` block of the ConfigMap as a map; the file is flat `KEY: "value"` lines, so no YAML parser. */
function configMapData(yaml: string): Record<string, string> {
  const block = yaml.split(/^data:\s*$/m)[1] ?? '';
  const data: Record<string, string> = {};
  for (const line of block.split('\n')) {
    const match = /^ {2}([A-Z0-9_]+):\s*"?(.*?)"?\s*$/.exec(line);
    if (match?.[1]) data[match[1]] = match[2] ?? '';
    else if (/^\S/.test(line)) break;
  }
  return data;
}

const SECRET_KEYS = ['REDIS_URL'];
const data = configMapData(read('configmap.yaml'));
const schemaKeys = Object.keys(configSchema.shape);

describe('k8s config drift', () => {
  it('lists every config key in the ConfigMap, except the ones that come from a Secret', () => {
    expect(Object.keys(data).sort()).toEqual(schemaKeys.filter((key) => !SECRET_KEYS.includes(key)).sort());
  });

  it('has only values the config schema accepts, each equal to its default', () => {
    expect(() => loadConfig(data)).not.toThrow();
    const defaults = loadConfig({});
    for (const [key, value] of Object.entries(loadConfig(data))) {
      expect({ key, value }).toEqual({ key, value: defaults[key as keyof typeof defaults] });
    }
  });

  it.each(['api.yaml', 'worker.yaml'])('%s takes REDIS_URL from a Secret and sets its ROLE', (file) => {
    const manifest = read(file);
    expect(manifest).toMatch(/- name: REDIS_URL\s+valueFrom:\s+secretKeyRef:/);
    expect(manifest).toContain(`value: ${file === 'api.yaml' ? 'api' : 'worker'}`);
    expect(manifest).toContain('name: carrier-eligibility-config');
  });
});
