// `carrier-eligibility reviews list --account A`: the account's review queue from the operator's side, each item
// with its status now, exactly as GET /v1/reviews lists it (src/overrides/review-queue.ts).
import { InvalidArgumentError, type Command } from 'commander';
import { REASON_CODES, type Reason } from '../../core/reasons.js';
import { decodeReviewCursor, isReviewStatus, REVIEW_STATUSES, type ReviewStatus } from '../../overrides/index.js';
import { printJson, withContext } from '../context.js';
import { overrideAdmin, parseLimit } from './overrides.js';

export function register(program: Command): void {
  const reviews = program.command('reviews').description("an account's review queue: carriers that drew a conditional verdict (docs/overrides.md)");

  reviews.command('list')
    .description("the account's review items in MC order (JSON), each with its status now: open, covered or closed")
    .requiredOption('--account <account>', 'account the queue belongs to')
    .option('--status <status>', `only this status: ${REVIEW_STATUSES.join(', ')}`, (value: string): ReviewStatus => {
      if (!isReviewStatus(value)) throw new InvalidArgumentError(`must be one of ${REVIEW_STATUSES.join(', ')}`);
      return value;
    })
    .option('--reason <code>', 'only items carrying this reason', (value: string): Reason => {
      const reason = REASON_CODES.find((code) => code === value);
      if (reason === undefined) throw new InvalidArgumentError('must be a reason code');
      return reason;
    })
    .option('--after <cursor>', 'go on after this cursor (the next_cursor of a previous page)', (value: string) => {
      const mc = decodeReviewCursor(value);
      if (mc === null) throw new InvalidArgumentError('must be the next_cursor of a previous page');
      return mc;
    })
    .option('--limit <n>', 'items per page (1-500)', parseLimit(500), 100)
    .action(async (options: { account: string; status?: ReviewStatus; reason?: Reason; after?: string; limit: number }) => {
      await withContext(async (ctx) => {
        const { queue } = overrideAdmin(ctx);
        const page = await queue.list(options.account, {
          status: options.status ?? null, reason: options.reason ?? null, after: options.after ?? null, limit: options.limit,
        });
        printJson({ account: options.account, ...page });
      });
    });
}
