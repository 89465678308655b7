// `carrier-eligibility jobs list|show|cancel`: batch jobs for operators. Reads the per-prefix job index
// (never KEYS/SCAN); cancel ends a job exactly as the owner's DELETE does.
import { InvalidArgumentError, type Command } from 'commander';
import { BatchJobs, isActiveStatus, jobView } from '../../batch/index.js';
import { CliError, printJson, withContext, type CliContext } from '../context.js';

function parseLimit(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 10_000) throw new InvalidArgumentError('must be an integer from 1 to 10000');
  return number;
}

function jobsOf({ config, redis }: CliContext): BatchJobs {
  return new BatchJobs(redis, config.REDIS_PREFIX, {
    deadlineSeconds: config.BATCH_JOB_DEADLINE_SECONDS, retentionSeconds: config.BATCH_RETENTION_SECONDS,
  });
}

export function register(program: Command): void {
  const jobs = program.command('jobs').description('inspect and cancel batch jobs');

  jobs.command('list')
    .description('most recent batch jobs first, as a JSON array (with the owning key id)')
    .option('--limit <n>', 'how many jobs', parseLimit, 50)
    .option('--key <id>', 'only jobs of this API key id')
    .option('--active', 'only queued or running jobs')
    .action(async (options: { limit: number; key?: string; active?: boolean }) => {
      await withContext(async (context) => {
        const recent = await jobsOf(context).recent(options.key || options.active ? 10_000 : options.limit);
        const selected = recent
          .filter((job) => (!options.key || job.key_id === options.key) && (!options.active || isActiveStatus(job.status)))
          .slice(0, options.limit);
        printJson(selected.map((job) => ({ key_id: job.key_id, ...jobView(job) })));
      });
    });

  jobs.command('show <id>')
    .description('one job\'s status and summary as JSON')
    .action(async (id: string) => {
      await withContext(async (context) => {
        const job = await jobsOf(context).read(id);
        if (!job) throw new CliError(`no batch job with id ${id}`);
        printJson({ key_id: job.key_id, ...jobView(job) });
      });
    });

  jobs.command('cancel <id>')
    .description('cancel a queued or running job; its unscreened rows become not_screened (job_cancelled)')
    .action(async (id: string) => {
      await withContext(async (context) => {
        const batch = jobsOf(context);
        const job = await batch.read(id);
        if (!job) throw new CliError(`no batch job with id ${id}`);
        if (!isActiveStatus(job.status)) throw new CliError(`job ${id} is already ${job.status}`);
        const { ended, job: after } = await batch.cancel(job);
        if (!ended) throw new CliError(`job ${id} finished (${after.status}) before it could be cancelled`);
        printJson({ key_id: after.key_id, ...jobView(after) });
      });
    });
}
