// The image and compose invariants, checked offline (no Docker engine on the build machines): a pinned Node 20
// Debian base (the uWS republish loads on Node 20 + glibc only), a runtime stage with production dependencies and
// compiled JavaScript only, a numeric non-root user; compose's Redis keeps its data (AOF) and never evicts;
// engines and .nvmrc name the Node version that works.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

interface Stage { from: string; name: string | null; instructions: { op: string; args: string }[] }

/** Dockerfile → stages (line continuations joined, comments dropped); ARG defaults substituted into FROM. */
function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const lines = text.replace(/\\\r?\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const match = /^(\w+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const op = (match[1] ?? '').toUpperCase();
    const rest = match[2] ?? '';
    if (op === 'ARG' && stages.length === 0) {
      const [key, value] = rest.split('=');
      if (key && value) args[key] = value;
    } else if (op === 'FROM') {
      const [image = '', , name = null] = rest.split(/\s+/);
      stages.push({ from: image.replace(/\$\{(\w+)\}/g, (_, key: string) => args[key] ?? ''), name, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push({ op, args: rest });
    }
  }
  return { args, stages };
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const runtime = dockerfile.stages.at(-1);

describe('Dockerfile', () => {
  it('builds on a Node 24 Debian 13 (glibc 2.41) image pinned to an exact version, in every stage', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of dockerfile.stages) expect(stage.from).toMatch(/^node:24\.\d+\.\d+-(trixie|trixie-slim)(@sha256:[0-9a-f]{64})?$/);
  });

  it('runtime stage: production dependencies only, compiled JavaScript, no TypeScript tooling', () => {
    const text = runtime?.instructions.map((instruction) => `${instruction.op} ${instruction.args}`).join('\n') ?? '';
    expect(text).toMatch(/npm ci --omit=dev/);
    expect(text).not.toMatch(/\b(tsx|esbuild|ts-node|tsc)\b/);
    expect(text).not.toMatch(/COPY\s+(--chown=\S+\s+)?src\b/);
    expect(text).toMatch(/COPY --from=build \/app\/dist/);
    const cmd = runtime?.instructions.filter((instruction) => instruction.op === 'CMD').at(-1)?.args;
    expect(JSON.parse(cmd ?? 'null')).toEqual(['node', 'dist/src/main.js']);
  });

  it('runs as a numeric non-root user (so Kubernetes runAsNonRoot can verify it)', () => {
    const user = runtime?.instructions.filter((instruction) => instruction.op === 'USER').at(-1)?.args ?? '';
    const [uid, gid] = user.split(':').map(Number);
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
  });

  it('.dockerignore keeps local state and dependencies out of the build context', () => {
    const ignored = read('.dockerignore').split('\n').map((line) => line.trim());
    for (const entry of ['.git', 'node_modules', 'dist', '.env']) expect(ignored).toContain(entry);
  });
});

const composeSchema = z.object({
  services: z.record(z.string(), z.object({
    image: z.string().optional(),
    command: z.union([z.string(), z.array(z.string())]).optional(),
    user: z.string().optional(),
    read_only: z.boolean().optional(),
    environment: z.record(z.string(), z.string()).optional(),
    profiles: z.array(z.string()).optional(),
  }).loose()),
  volumes: z.record(z.string(), z.unknown()).optional(),
});
const compose = composeSchema.parse(parse(read('compose.yaml'), { merge: true }));

describe('compose.yaml', () => {
  it('Redis keeps its data (AOF on a volume) and refuses writes when full instead of evicting', () => {
    const redis = compose.services.redis;
    const command = Array.isArray(redis?.command) ? redis.command.join(' ') : redis?.command ?? '';
    expect(command).toMatch(/--appendonly yes/);
    expect(command).toMatch(/--maxmemory-policy noeviction/);
    expect(command).toMatch(/--maxmemory \d+/);
  });

  it('every image is pinned to a version tag', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect({ name, image: service.image }).toEqual({ name, image: expect.stringMatching(/^[\w./-]+:\d+\.\d+\.\d+[\w.-]*$/) });
    }
  });

  it('api and worker run the image read-only as a non-root user, with their role and a heap sized to the limit', () => {
    for (const [name, role] of [['api', 'api'], ['worker', 'worker']] as const) {
      const service = compose.services[name];
      expect(service?.read_only).toBe(true);
      expect(service?.user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
      expect(service?.environment?.ROLE).toBe(role);
      expect(service?.environment?.NODE_OPTIONS).toMatch(/--max-old-space-size=\d+/);
      // Node 20 refuses to start with most V8 options in NODE_OPTIONS: this node binary must start with it and with
      // the service's node flags (the api's command: the image's CMD with V8 flags added).
      const command = service?.command;
      const flags = Array.isArray(command) && command[0] === 'node' ? command.slice(1, -1) : [];
      if (Array.isArray(command)) expect({ name, entry: command.at(-1) }).toEqual({ name, entry: 'dist/src/main.js' });
      const run = spawnSync(process.execPath, [...flags, '-e', 'process.exit(0)'], {
        env: { ...process.env, NODE_OPTIONS: service?.environment?.NODE_OPTIONS }, encoding: 'utf8',
      });
      expect({ name, stderr: run.stderr, status: run.status }).toEqual({ name, stderr: '', status: 0 });
    }
  });

  it('has an ingest job (on demand, not started by `up`)', () => {
    expect(compose.services.ingest?.profiles).toContain('ingest');
  });
});

describe('Node version', () => {
  it('engines admit Node 20, 22 and 24 (the LTS lines with a uWS binary) and .nvmrc names 24, the production runtime', () => {
    const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('^20.6.0 || ^22.0.0 || ^24.0.0');
    expect(read('.nvmrc').trim()).toBe('24');
  });
});
