// `carrier-eligibility decisions show|find|archive|export|verify`: decision records for operators, auditors and
// long-term archives. show and find read the Redis window and the continuous archive (docs/decisions-archive.md);
// archive runs one archiving pass now and evicts what is archived; export writes gzip'd NDJSON per UTC hour with
// a signed SHA-256 manifest each (docs/decisions.md); verify checks such a file, or a whole archive directory
// and its hash chain, under the trusted Ed25519 public key.
import { stat, readFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import {
  archiveReader, archiveStore, buildArchiver, isBundle, verifyBundle, writeBundle, parseLegalHold, placedHolds, placeHold, releaseHold, type HoldKind, DecisionLookup, DecisionReader, EVICT_MARGIN_SECONDS, exportDecisions, exportLines, FIND_MAX_LIMIT, leaseMs, LocalArchiveStore,
  parsePublicKey, parseSigningKey, secondOf, verifyArchive, verifyExport,
} from '../../decisions/index.js';
import { normaliseMcNumber } from '../../core/mc-number.js';
import { OverrideStore, overrideKeys } from '../../overrides/index.js';
import { loadConfig } from '../../config.js';
import { luaScripts } from '../../redis/scripts.js';
import { CliError, printJson, withContext } from '../context.js';
import { randomUUID } from 'node:crypto';

/** `0s`, `90m`, `36h`, `2d`: seconds. */
export function parseDuration(value: string): number {
  const match = /^(\d+)(s|m|h|d)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('must be a number and a unit: 0s, 90m, 36h, 2d');
  return Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as 's' | 'm' | 'h' | 'd'];
}

function parseMc(value: string): string {
  const mc = normaliseMcNumber(value);
  if (mc === null) throw new InvalidArgumentError('must be an MC number');
  return mc;
}

function parseInstant(value: string): number {
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || !Number.isFinite(ms)) throw new InvalidArgumentError('must be an ISO 8601 date or time (UTC if no offset)');
  return ms;
}

function signingKey(text: string | undefined) {
  if (!text) throw new CliError('DECISION_SIGNING_KEY is not set: export manifests must be signed (docs/decisions.md)');
  try {
    return parseSigningKey(text);
  } catch (error) {
    throw new CliError(`DECISION_SIGNING_KEY is not a usable Ed25519 private key: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function register(program: Command): void {
  const decisions = program.command('decisions').description('decision records: show one, export a time range, verify an export');

  decisions.command('show <id>')
    .description('one decision record as JSON (verdict with evidence, key, request id, reference, rule set hash, snapshot manifest)')
    .action(async (id: string) => {
      await withContext(async ({ config, redis, keys }) => {
        const view = await new DecisionLookup(redis, keys, new DecisionReader(redis, keys), archiveReader(config)).read(id);
        if (!view) throw new CliError(`no decision record with id ${id} in Redis or the archive`);
        printJson(view);
      });
    });

  decisions.command('find')
    .description('an account\'s records in [--from, --to) from the Redis window and the archive, as NDJSON in decision-id order')
    .requiredOption('--account <account>', 'the account whose records to list')
    .option('--mc <mc>', 'only this carrier', parseMc)
    .requiredOption('--from <time>', 'start (inclusive), ISO 8601', parseInstant)
    .requiredOption('--to <time>', 'end (exclusive), ISO 8601', parseInstant)
    .action(async (options: { account: string; mc?: string; from: number; to: number }) => {
      if (options.to <= options.from) throw new CliError('--to must be after --from');
      await withContext(async ({ config, redis, keys }) => {
        const lookup = new DecisionLookup(redis, keys, new DecisionReader(redis, keys, true), archiveReader(config));
        let cursor: string | null = null;
        do {
          const page = await lookup.find({ account: options.account, mc: options.mc ?? null, fromMs: options.from, toMs: options.to, limit: FIND_MAX_LIMIT, cursor });
          for (const item of page.items) process.stdout.write(`${JSON.stringify(item)}\n`);
          cursor = page.next_cursor;
        } while (cursor !== null);
      });
    });

  decisions.command('archive')
    .description('one archiving pass now (every record up to this second), then evict from Redis the archived records older than DURATION')
    .option('--evict-older-than <duration>', 'evict archived records older than this (0s: all archived); default DECISION_RETENTION_DAYS', parseDuration)
    .action(async (options: { evictOlderThan?: number }) => {
      await withContext(async ({ config, redis, keys }) => {
        signingKey(config.DECISION_SIGNING_KEY);
        const token = randomUUID();
        if (!(await luaScripts.decisionArchiverLock(redis, keys.decisionArchiverLease, token, leaseMs(config)))) {
          throw new CliError('another archiver holds the lease (a worker is archiving); try again after its pass');
        }
        try {
          const archiver = buildArchiver(config, redis, keys);
          const now = Date.now();
          const pass = await archiver.archiveUntil(secondOf(now) + 1);
          const olderThan = options.evictOlderThan ?? config.DECISION_RETENTION_DAYS * 86_400;
          const cutoff = secondOf(now) + 1 - olderThan;
          // The archiver never evicts the last EVICT_MARGIN_SECONDS (writes in flight): `0s` waits them out, so
          // every record this pass archived leaves Redis.
          const wait = (cutoff + EVICT_MARGIN_SECONDS) * 1000 - Date.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          const evicted = await archiver.evictBefore(cutoff);
          printJson({ ...pass, evicted_buckets: evicted.buckets, catch_ups: evicted.catch_ups, store: archiver.store.description });
        } finally {
          await luaScripts.decisionArchiverLock(redis, keys.decisionArchiverLease, token, 0);
        }
      });
    });

  const hold = decisions.command('legal-hold')
    .description('accounts and MC numbers whose archived records are never deleted (DECISION_ARCHIVE_YEARS does not apply to them)');
  const target = (options: { account?: string; mc?: string }): { kind: HoldKind; value: string } => {
    if ((options.account === undefined) === (options.mc === undefined)) throw new CliError('give exactly one of --account or --mc');
    return options.account !== undefined ? { kind: 'account', value: options.account } : { kind: 'mc', value: options.mc as string };
  };
  const archiveConfig = () => {
    try {
      return loadConfig(process.env);
    } catch (error) {
      throw new CliError(error instanceof Error ? error.message.replace(/\n\s*/g, ' ') : String(error));
    }
  };
  hold.command('place')
    .description('place a hold: the account\'s (or every account\'s records of the MC number) archived records are kept past DECISION_ARCHIVE_YEARS')
    .option('--account <account>', 'hold this account\'s records')
    .option('--mc <mc>', 'hold every record of this carrier', parseMc)
    .requiredOption('--reason <text>', 'why (matter, claim or order number): kept in the hold and its log')
    .option('--by <name>', 'who places it (kept in the hold and its log)')
    .action(async (options: { account?: string; mc?: string; reason: string; by?: string }) => {
      const { kind, value } = target(options);
      const store = archiveStore(archiveConfig());
      const placed = await placeHold(store, kind, value, options.reason, options.by ?? null);
      printJson({ placed, kind, value, store: store.description });
    });
  hold.command('release')
    .description('release a hold placed with `legal-hold place` (holds in DECISION_LEGAL_HOLD are released by changing the config)')
    .option('--account <account>', 'the held account')
    .option('--mc <mc>', 'the held carrier', parseMc)
    .requiredOption('--reason <text>', 'why the hold ends: kept in the hold log')
    .option('--by <name>', 'who releases it (kept in the hold log)')
    .action(async (options: { account?: string; mc?: string; reason: string; by?: string }) => {
      const { kind, value } = target(options);
      const store = archiveStore(archiveConfig());
      if (!(await releaseHold(store, kind, value, options.reason, options.by ?? null))) throw new CliError(`no ${kind} hold on ${value} was placed in ${store.description}`);
      printJson({ released: true, kind, value, store: store.description });
    });
  hold.command('list')
    .description('the holds in force: placed ones (with reason, who and when) and those from DECISION_LEGAL_HOLD')
    .action(async () => {
      const config = archiveConfig();
      const configured = parseLegalHold(config.DECISION_LEGAL_HOLD);
      printJson({
        placed: await placedHolds(archiveStore(config)),
        configured: [...[...configured.accounts].map((value) => ({ kind: 'account', value })), ...[...configured.mcs].map((value) => ({ kind: 'mc', value }))],
      });
    });

  decisions.command('export')
    .description('hourly: records decided in [--from, --to), and the override log of that range, as gzip\'d NDJSON per UTC hour from Redis, each with a signed manifest (--out); '
      + 'audit bundle: one account\'s records in the period from the Redis window and the archive, with its override log, as ONE signed file (--account, --bundle)')
    .requiredOption('--from <time>', 'start (inclusive), ISO 8601', parseInstant)
    .requiredOption('--to <time>', 'end (exclusive), ISO 8601', parseInstant)
    .option('--out <dir>', 'hourly files: output directory (created if missing)')
    .option('--account <account>', 'bundle: the account whose records to export')
    .option('--mc <mc>', 'bundle: only this carrier', parseMc)
    .option('--bundle <file>', 'bundle: the file to write (gzip\'d NDJSON, signed; check it with `decisions verify FILE`)')
    .action(async (options: { from: number; to: number; out?: string; account?: string; mc?: string; bundle?: string }) => {
      if (options.to <= options.from) throw new CliError('--to must be after --from');
      if ((options.out === undefined) === (options.bundle === undefined)) throw new CliError('give either --out DIR (hourly files) or --bundle FILE with --account');
      await withContext(async ({ config, redis, keys }) => {
        const key = signingKey(config.DECISION_SIGNING_KEY);
        const overrides = new OverrideStore(redis, overrideKeys(config.REDIS_PREFIX));
        if (options.out !== undefined) {
          const range = { fromMs: options.from, toMs: options.to, outDir: options.out, signingKey: key };
          const decided = await exportDecisions(redis, keys, range);
          // Every override state change of the range goes with the decisions it changed (src/overrides' log).
          const log = await exportLines('override-log', async (from, to) => (await overrides.logLines(from, to)).map((line) => JSON.stringify(line)), range);
          printJson({ ...decided, override_log: { files: log.files, entries: log.records } });
          return;
        }
        if (options.account === undefined) throw new CliError('--bundle needs --account: a bundle holds one account\'s records');
        const lookup = new DecisionLookup(redis, keys, new DecisionReader(redis, keys, true), archiveReader(config));
        const writer = await writeBundle(lookup, redis, keys, {
          path: options.bundle as string, account: options.account, mc: options.mc ?? null, fromMs: options.from, toMs: options.to,
        });
        // The account's override state changes in the period (src/overrides' log), before the bundle is signed.
        for (const entry of await overrides.logLines(options.from, options.to)) {
          if (entry.account === options.account) await writer.add('override_log', { entry });
        }
        printJson(await writer.finish(key));
      });
    });

  decisions.command('verify <path>')
    .description('check an archive directory end to end (every file and the hash chain), an audit bundle, or one exported file or its manifest, under the trusted key')
    .option('--public-key <file>', 'trusted public key (PEM or base64 SPKI); default: the public half of DECISION_SIGNING_KEY')
    .action(async (file: string, options: { publicKey?: string }) => {
      let trusted;
      try {
        if (options.publicKey) trusted = parsePublicKey(await readFile(options.publicKey, 'utf8'));
        else {
          const text = loadConfig(process.env).DECISION_SIGNING_KEY;
          if (!text) throw new Error('give --public-key or set DECISION_SIGNING_KEY');
          trusted = parsePublicKey(text);
        }
      } catch (error) {
        throw new CliError(`no trusted public key: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (await isBundle(file)) {
        const bundle = await verifyBundle(file, trusted);
        if (!bundle.ok) throw new CliError(`verification FAILED for ${file}: ${bundle.problem ?? 'unknown'}`);
        printJson(bundle);
        return;
      }
      if ((await stat(file).catch(() => null))?.isDirectory()) {
        const years = loadConfig({ DECISION_ARCHIVE_YEARS: process.env.DECISION_ARCHIVE_YEARS }).DECISION_ARCHIVE_YEARS;
        const chain = await verifyArchive(new LocalArchiveStore(file), trusted, { nowMs: Date.now(), archiveYears: years });
        if (!chain.ok && chain.problem) throw new CliError(`verification FAILED at ${chain.problem.file}: ${chain.problem.what}`);
        printJson(chain);
        return;
      }
      const result = await verifyExport(file, trusted).catch((error: unknown) => {
        throw new CliError(`cannot verify ${file}: ${error instanceof Error ? error.message : String(error)}`);
      });
      if (!result.ok) throw new CliError(`verification FAILED for ${result.file}: ${result.problems.join('; ')}`);
      printJson(result);
    });
}
