// `carrier-eligibility rules publish FILE|--default` and `rules show`: versioned rule sets.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { DEFAULT_RULE_SET } from '../../core/ruleset.js';
import { currentRuleSet, publishRuleSet, RuleSetValidationError } from '../../store/rulesets.js';
import { CliError, printJson, withContext } from '../context.js';
import { messageOf } from '../../thrown.js';

export function register(program: Command): void {
  const rules = program.command('rules').description('publish and inspect the rule set verdicts apply');

  rules.command('publish [file]')
    .description('validate a rule set JSON file and publish it as the next version (prints it)')
    .option('--default', 'publish the built-in default rule set')
    .action(async (file: string | undefined, options: { default?: boolean }) => {
      let body: unknown = DEFAULT_RULE_SET;
      if (!options.default) {
        if (!file) throw new CliError('rules publish needs a FILE (or --default)');
        try {
          body = JSON.parse(await readFile(file, 'utf8'));
        } catch (error) {
          throw new CliError(`${file}: ${error instanceof SyntaxError ? 'not valid JSON' : messageOf(error)}`);
        }
      }
      await withContext(async ({ redis, keys }) => {
        try {
          printJson(await publishRuleSet(redis, keys, body));
        } catch (error) {
          if (error instanceof RuleSetValidationError) throw new CliError(`${file ?? 'default'}: ${error.message}`);
          throw error;
        }
      });
    });

  rules.command('show')
    .description('print the rule set in force (JSON)')
    .action(async () => {
      await withContext(async ({ redis, keys }) => {
        const current = await currentRuleSet(redis, keys);
        if (!current) throw new CliError('no rule set has been published (run: carrier-eligibility rules publish --default)');
        printJson(current);
      });
    });
}
