// The CLI's date flags go through the one strict parser: an impossible or future date is refused with one line,
// never rolled over (2026-02-30 → 2 March) into a lapsed ban, an expired key or data that never ages. The commands
// are registered in-process (fast); one case runs the real binary for the exit code and the single stderr line.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { register as registerDnu } from '../../src/cli/commands/dnu.js';
import { register as registerIngest } from '../../src/cli/commands/ingest.js';
import { register as registerKeys } from '../../src/cli/commands/keys.js';
import { runCli } from '../helpers/cli.js';
import { randomPrefix } from '../helpers/harness.js';

/** Runs one command line in-process; resolves to the error message it was refused with ('' if accepted). */
async function refusal(args: string[]): Promise<string> {
  const program = new Command('carrier-eligibility').exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  registerKeys(program);
  registerIngest(program);
  registerDnu(program);
  for (const command of program.commands) command.exitOverride().configureOutput({ writeErr: () => undefined });
  try {
    await program.parseAsync(['node', 'carrier-eligibility', ...args]);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('CLI date flags', () => {
  it.each([
    [['dnu', 'add', '100001', '--reason', 'x', '--expires-at', '2026-02-30'], 'expires_at: not a calendar date: "2026-02-30"'],
    [['dnu', 'add', '100001', '--reason', 'x', '--expires-at', '2020-01-01'], 'expires_at: "2020-01-01" is already in the past'],
    [['keys', 'create', '--account', 'a', '--scopes', 'eligibility', '--expires-at', '2027-02-30'], 'not a calendar date: "2027-02-30"'],
    [['ingest', '--census', 'package.json', '--authority', 'package.json', '--as-of', '2099-01-01'], 'ingest aborted, current snapshot unchanged: --as-of: "2099-01-01" is in the future'],
    [['ingest', '--census', 'package.json', '--authority', 'package.json', '--as-of-source', 'ofac_sdn=2026-02-30'], 'ingest aborted, current snapshot unchanged: --as-of-source, field ofac_sdn: not a calendar date: "2026-02-30"'],
    [['ingest', '--census', 'package.json', '--authority', 'package.json', '--as-of-source', 'ofac=2026-11-01'], 'ingest aborted, current snapshot unchanged: --as-of-source: unknown source "ofac"'],
  ])('%j is refused', async (args, line) => {
    const message = await refusal(args);
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toContain(line);
  });

  it('the real binary: exit code 2 and one line on stderr', async () => {
    const result = await runCli(randomPrefix(), 'dnu', 'add', '100001', '--reason', 'x', '--expires-at', '2026-02-30');
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual(['carrier-eligibility: expires_at: not a calendar date: "2026-02-30"']);
  });
});
