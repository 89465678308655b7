// The policies this replica decides with: every account's current version, compiled against the rule set in
// force, held in memory and reloaded when the policy epoch moves (one GET per poll) or the rule set changes. The
// hot path asks `forAccount()`: a Map lookup, nothing parsed per request. An account without a policy gets null.
import type { PublishedRuleSet } from '../core/ruleset.js';
import type { Logger } from '../log.js';
import { compilePolicy, type CompiledPolicy } from './apply.js';
import type { PublishedPolicy } from './document.js';
import type { PolicyStore } from './store.js';

export class PolicyBook {
  private policies = new Map<string, PublishedPolicy>();
  private compiled = new Map<string, CompiledPolicy>();
  private compiledFor: PublishedRuleSet | null = null;
  private epoch: string | null | undefined = undefined;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;

  constructor(private readonly store: PolicyStore, private readonly rulesetNow: () => PublishedRuleSet | null, private readonly log: Logger, private readonly pollMs: number) {}

  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => { if (!this.polling) void this.poll(); }, this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reloads when the epoch moved. A failed read keeps what was loaded (a policy only ever tightens verdicts). */
  poll(): Promise<void> {
    this.polling ??= this.reload().finally(() => { this.polling = null; });
    return this.polling;
  }

  /** The account's policy compiled against `ruleset` (the one the check decides with), or null without one. */
  forAccount(account: string, ruleset: PublishedRuleSet | null): CompiledPolicy | null {
    if (this.policies.size === 0 || ruleset === null) return null;
    if (ruleset !== this.compiledFor) {
      this.compiled.clear();
      this.compiledFor = ruleset;
    }
    let compiled = this.compiled.get(account);
    if (compiled === undefined) {
      const policy = this.policies.get(account);
      if (policy === undefined) return null;
      compiled = compilePolicy(policy, ruleset);
      this.compiled.set(account, compiled);
    }
    return compiled;
  }

  /** Whether the policies were read at least once (until then no account's policy can be known). */
  loaded(): boolean {
    return this.epoch !== undefined;
  }

  current(account: string): PublishedPolicy | null {
    return this.policies.get(account) ?? null;
  }

  private async reload(): Promise<void> {
    try {
      const epoch = await this.store.epoch();
      if (epoch === this.epoch) return;
      const versions = await this.store.currentVersions();
      const next = new Map<string, PublishedPolicy>();
      for (const [account, version] of versions) {
        const known = this.policies.get(account);
        const policy = known?.version === version ? known : await this.store.version(account, version);
        if (policy) next.set(account, policy);
      }
      this.policies = next;
      this.compiled.clear();
      this.compiledFor = this.rulesetNow();
      this.epoch = epoch;
    } catch (error) {
      this.log.warn({ err: error }, 'account policies could not be reloaded; keeping the loaded ones');
    }
  }
}
