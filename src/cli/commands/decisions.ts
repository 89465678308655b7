// `carrier-eligibility decisions show|export|verify`: decision records for operators and long-term archives.
// export writes gzip'd NDJSON per UTC hour with a signed SHA-256 manifest each (docs/decisions.md);
// verify checks a file against its manifest and the trusted Ed25519 public key.
import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import {
  exportDecisions, parsePublicKey, parseSigningKey, verifyExport, DecisionReader,
} from '../../decisions/index.js';
import { loadConfig } from '../../config.js';
import { CliError, printJson, withContext } from '../context.js';

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
      await withContext(async ({ redis, keys }) => {
        const view = await new DecisionReader(redis, keys).read(id);
        if (!view) throw new CliError(`no decision record with id ${id} (older than DECISION_RETENTION_DAYS? see the archive)`);
        printJson(view);
      });
    });

  decisions.command('export')
    .description('write records decided in [--from, --to) as gzip\'d NDJSON per UTC hour, each with a signed SHA-256 manifest')
    .requiredOption('--from <time>', 'start (inclusive), ISO 8601', parseInstant)
    .requiredOption('--to <time>', 'end (exclusive), ISO 8601', parseInstant)
    .requiredOption('--out <dir>', 'output directory (created if missing)')
    .action(async (options: { from: number; to: number; out: string }) => {
      if (options.to <= options.from) throw new CliError('--to must be after --from');
      await withContext(async ({ config, redis, keys }) => {
        const key = signingKey(config.DECISION_SIGNING_KEY);
        printJson(await exportDecisions(redis, keys, { fromMs: options.from, toMs: options.to, outDir: options.out, signingKey: key }));
      });
    });

  decisions.command('verify <file>')
    .description('check an exported file (or its manifest): Ed25519 signature under the trusted key, SHA-256, size, record count')
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
      const result = await verifyExport(file, trusted).catch((error: unknown) => {
        throw new CliError(`cannot verify ${file}: ${error instanceof Error ? error.message : String(error)}`);
      });
      if (!result.ok) throw new CliError(`verification FAILED for ${result.file}: ${result.problems.join('; ')}`);
      printJson(result);
    });
}
