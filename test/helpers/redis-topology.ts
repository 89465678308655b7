// Private Redis topologies for the tests that need Redis' own distributed modes: a 3-master Cluster (no
// replicas: it is there to prove every command stays in one slot, not to test cluster failover) and a
// Sentinel group (primary, replica, three Sentinels). Each server runs in a temporary directory on a free
// port, without persistence, and is SIGKILLed on stop.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './private-redis.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ServerProcess {
  child: ChildProcess | null = null;

  constructor(readonly port: number, private readonly args: string[], private readonly dir: string) {}

  start(): void {
    this.child = spawn('redis-server', this.args, { cwd: this.dir, stdio: 'ignore' });
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.child = null;
  }

  client(): Redis {
    const redis = new Redis({ port: this.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
    redis.on('error', () => undefined);
    return redis;
  }

  async waitUntil(probe: (redis: Redis) => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
    const started = Date.now();
    for (;;) {
      const redis = this.client();
      try {
        await redis.connect();
        if (await probe(redis)) return;
      } catch {
        // not up yet
      } finally {
        redis.disconnect();
      }
      if (Date.now() - started > timeoutMs) throw new Error(`redis on ${this.port} not ready within ${timeoutMs} ms`);
      await sleep(50);
    }
  }
}

const BASE = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'];

export class LocalCluster {
  private constructor(readonly servers: ServerProcess[], private readonly dir: string) {}

  /** `host:port,…` for REDIS_CLUSTER_NODES. */
  get nodes(): string {
    return this.servers.map((server) => `127.0.0.1:${server.port}`).join(',');
  }

  static async start(masters = 3): Promise<LocalCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'ce-cluster-'));
    const servers: ServerProcess[] = [];
    for (let i = 0; i < masters; i++) {
      const port = await freePort();
      const nodeDir = join(dir, String(port));
      rmSync(nodeDir, { recursive: true, force: true });
      spawnSync('mkdir', ['-p', nodeDir]);
      const server = new ServerProcess(port, ['--port', String(port), ...BASE, '--cluster-enabled', 'yes',
        '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000'], nodeDir);
      server.start();
      servers.push(server);
    }
    const cluster = new LocalCluster(servers, dir);
    try {
      for (const server of servers) await server.waitUntil(async (redis) => (await redis.ping()) === 'PONG');
      const created = spawnSync('redis-cli', ['--cluster', 'create', ...servers.map((s) => `127.0.0.1:${s.port}`),
        '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' });
      if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
      for (const server of servers) {
        await server.waitUntil(async (redis) => String(await redis.call('CLUSTER', 'INFO')).includes('cluster_state:ok'));
      }
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export class LocalSentinelGroup {
  private constructor(
    readonly primary: ServerProcess,
    readonly replica: ServerProcess,
    readonly sentinels: ServerProcess[],
    readonly name: string,
    private readonly dir: string,
  ) {}

  /** `host:port,…` for REDIS_SENTINELS. */
  get sentinelList(): string {
    return this.sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(',');
  }

  static async start(name = 'cetest'): Promise<LocalSentinelGroup> {
    const dir = mkdtempSync(join(tmpdir(), 'ce-sentinel-'));
    const primaryPort = await freePort();
    const replicaPort = await freePort();
    const primary = new ServerProcess(primaryPort, ['--port', String(primaryPort), ...BASE], dir);
    const replica = new ServerProcess(replicaPort, ['--port', String(replicaPort), ...BASE, '--replicaof', '127.0.0.1', String(primaryPort)], dir);
    primary.start();
    replica.start();
    const sentinels: ServerProcess[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(file, [
        `port ${port}`, 'bind 127.0.0.1', 'protected-mode no', `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'));
      sentinels.push(new ServerProcess(port, [file, '--sentinel'], dir));
    }
    const group = new LocalSentinelGroup(primary, replica, sentinels, name, dir);
    try {
      await primary.waitUntil(async (redis) => (await redis.ping()) === 'PONG');
      await replica.waitUntil(async (redis) => String(await redis.info('replication')).includes('master_link_status:up'));
      for (const sentinel of sentinels) sentinel.start();
      for (const sentinel of sentinels) {
        await sentinel.waitUntil(async (redis) => {
          const replicas = await redis.call('SENTINEL', 'REPLICAS', name) as unknown[];
          const others = await redis.call('SENTINEL', 'SENTINELS', name) as unknown[];
          return replicas.length === 1 && others.length === 2;
        }, 15_000);
      }
    } catch (error) {
      await group.stop();
      throw error;
    }
    return group;
  }

  /** The port the Sentinels currently name as master. */
  async masterPort(): Promise<number> {
    const redis = this.sentinels[0]!.client();
    try {
      await redis.connect();
      const [, port] = await redis.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name) as [string, string];
      return Number(port);
    } finally {
      redis.disconnect();
    }
  }

  async stop(): Promise<void> {
    await Promise.all([this.primary, this.replica, ...this.sentinels].map((server) => server.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
