// The operator CLI. Each command module registers itself; they all read the same environment config as the
// service. Bad input gets one clear line on stderr and a non-zero exit.
import { Command, CommanderError } from 'commander';
import { SERVICE_VERSION } from '../app.js';
import { CliError } from './context.js';
import { register as registerKeys } from './commands/keys.js';
import { register as registerRules } from './commands/rules.js';

const program = new Command('carrier-eligibility')
  .description('Carrier Eligibility Decision Service: operator commands')
  .version(SERVICE_VERSION)
  .exitOverride()
  .configureOutput({ outputError: (message, write) => write(message.trimEnd().split('\n')[0] + '\n') });

registerKeys(program);
registerRules(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`carrier-eligibility: ${message}\n`);
  process.exit(error instanceof CliError ? 2 : 1);
}
