// The active overrides as one replica holds them: account -> MC -> overrides, rebuilt from the {ctl} projection
// whenever its epoch moves (the live-state poll reads the epoch with the replica's other {ctl} keys, so a change
// reaches every replica within a poll). The verdict path asks it only for `conditional` verdicts and never waits
// for Redis: an account without overrides costs one Map lookup per conditional verdict, nothing per other one.
import type { ActiveOverride } from './model.js';

const NONE: readonly ActiveOverride[] = [];

export class OverrideRegistry {
  private byAccount = new Map<string, Map<string, ActiveOverride[]>>();
  private all: ActiveOverride[] = [];

  /** The account's active overrides for a carrier ([] when none; expired ones are the caller's to skip). */
  forCarrier(account: string, mc: string): readonly ActiveOverride[] {
    const carriers = this.byAccount.get(account);
    return carriers === undefined ? NONE : carriers.get(mc) ?? NONE;
  }

  replace(list: readonly ActiveOverride[]): void {
    const byAccount = new Map<string, Map<string, ActiveOverride[]>>();
    for (const override of list) {
      let carriers = byAccount.get(override.account);
      if (carriers === undefined) byAccount.set(override.account, carriers = new Map());
      const forMc = carriers.get(override.mc_number);
      if (forMc === undefined) carriers.set(override.mc_number, [override]);
      else forMc.push(override);
    }
    this.byAccount = byAccount;
    this.all = [...list];
  }

  /** Active overrides past their expiry at `nowMs` (they already cover nothing; the sweep records the expiry). */
  due(nowMs: number): ActiveOverride[] {
    return this.all.filter((override) => override.expires_at_ms <= nowMs);
  }

  get size(): number {
    return this.all.length;
  }
}
