// The operator CLI. Each command module registers itself; they all read the same environment config as the
// service. Bad input gets one clear line on stderr and a non-zero exit.
import { Command, CommanderError } from 'commander';
import { SERVICE_VERSION } from '../version.js';
import { CliError } from './context.js';
import { register as registerKeys } from './commands/keys.js';
import { register as registerRules } from './commands/rules.js';
import { register as registerPolicy } from './commands/policy.js';
import { register as registerIngest } from './commands/ingest.js';
import { register as registerData } from './commands/data.js';
import { register as registerDnu } from './commands/dnu.js';
import { register as registerSeed } from './commands/seed.js';
import { register as registerJobs } from './commands/jobs.js';
import { register as registerGenerate } from './commands/generate.js';
import { register as registerDecisions } from './commands/decisions.js';
import { register as registerWatch } from './commands/watch.js';
import { register as registerWebhooks } from './commands/webhooks.js';
import { register as registerEvents } from './commands/events.js';
import { register as registerReviews } from './commands/reviews.js';
import { register as registerOverrides } from './commands/overrides.js';

const program = new Command('carrier-eligibility')
  .description('Carrier Eligibility Decision Service: operator commands')
  .version(SERVICE_VERSION)
  .exitOverride()
  .configureOutput({ outputError: (message, write) => write(message.trimEnd().split('\n')[0] + '\n') });

registerKeys(program);
registerRules(program);
registerPolicy(program);
registerIngest(program);
registerData(program);
registerDnu(program);
registerSeed(program);
registerJobs(program);
registerGenerate(program);
registerDecisions(program);
registerWatch(program);
registerWebhooks(program);
registerEvents(program);
registerReviews(program);
registerOverrides(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`carrier-eligibility: ${message}\n`);
  process.exit(error instanceof CliError ? 2 : 1);
}
