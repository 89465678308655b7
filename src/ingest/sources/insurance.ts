// Insurance in force and pending cancellations. --insurance takes Motus Insur (headers, amounts in dollars by
// measurement), legacy Insur (9 headerless fields, thousands) or legacy ActPendInsur (11 headerless fields,
// thousands, with a cancel date). --insurance-history takes legacy InsHist (17 headerless fields), its
// Socrata tabular form, or Motus InsHist (headers); a future cancel date on a BIPD policy is a pending lapse.
import { readCsvBatches } from '../csv.js';
import { IngestError } from '../errors.js';
import { HeaderMap, looksLikeHeader, positionalReader, type RowReader } from '../fields.js';
import { grown, SlotIndex } from '../slot-index.js';
import { readOrQuarantine } from '../quarantine.js';
import { earlier, mcKey, plausibleBipd, SourceStats, toUsd, type AmountUnits, type LoadContext } from './common.js';

export interface InsuranceInfo {
  /** BIPD in force, in dollars: the contiguous tower from $0 (0 when none is). */
  bipdOnFileUsd: number;
  /** The tower without the policies whose cancellation is pending: what is left once it takes effect. */
  bipdAfterCancellationUsd: number;
  /** Earliest future cancel date of a BIPD policy. */
  cancellationOn: string | null;
  /** The highest layer on file that no layer beneath it reaches $0 through (excess over a missing primary), or null. */
  excessNotCountedUsd: number | null;
  /** Latest cancellation that took effect of a policy the file still lists or listed (evidence for a lapse). */
  cancelledOn: string | null;
}

/** One BIPD layer: it covers [from, to] dollars; `pending` when its cancellation is ahead. */
interface Layer { from: number; to: number; pending: boolean }

/**
 * The insurance in force: the highest amount x such that the layers cover every dollar of [0, x] (49 CFR 387.9
 * amounts are limits from the first dollar). An excess layer over a gap, or over a missing primary, counts nothing.
 */
export function contiguousTower(layers: ReadonlyArray<{ from: number; to: number }>): { inForce: number; notCounted: number | null } {
  let top = 0;
  for (const layer of [...layers].sort((a, b) => a.from - b.from)) {
    if (layer.from > top) break;
    top = Math.max(top, layer.to);
  }
  const above = layers.filter((layer) => layer.from > top).map((layer) => layer.to);
  return { inForce: top, notCounted: above.length > 0 ? Math.max(...above) : null };
}

/**
 * InsuranceInfo per MC as typed columns over the (possibly shared) MC slot index (see slot-index.ts): the top of
 * the primary layers (from $0) with and without pending cancellations, NaN = no row for the docket. Excess layers,
 * cancel dates and lapses are rare and sit in side maps. get() materialises the plain object.
 */
export class InsuranceTable {
  private primaryTop = new Float64Array(0);
  private primaryTopAfter = new Float64Array(0);
  private readonly excess = new Map<number, Layer[]>();
  private readonly cancellation = new Map<number, string>();
  private readonly cancelled = new Map<number, string>();

  constructor(private readonly index = new SlotIndex('mc')) {}

  get(mc: number): InsuranceInfo | undefined {
    const slot = this.index.get(mc);
    const top = slot < 0 ? NaN : (this.primaryTop[slot] ?? NaN);
    if (Number.isNaN(top)) return undefined;
    const excess = this.excess.get(slot) ?? [];
    const all = contiguousTower([{ from: 0, to: top }, ...excess]);
    const after = contiguousTower([{ from: 0, to: this.primaryTopAfter[slot] ?? 0 }, ...excess.filter((layer) => !layer.pending)]);
    return {
      bipdOnFileUsd: all.inForce, bipdAfterCancellationUsd: after.inForce, cancellationOn: this.cancellation.get(slot) ?? null,
      excessNotCountedUsd: all.notCounted, cancelledOn: this.cancelled.get(slot) ?? null,
    };
  }

  /** The docket's slot, created with nothing on file. */
  slot(mc: number): number {
    const slot = this.index.add(mc);
    this.primaryTop = grown(this.primaryTop, slot + 1, NaN);
    this.primaryTopAfter = grown(this.primaryTopAfter, slot + 1, NaN);
    if (Number.isNaN(this.primaryTop[slot])) {
      this.primaryTop[slot] = 0;
      this.primaryTopAfter[slot] = 0;
    }
    return slot;
  }

  /** A layer in force covering [fromUsd, toUsd]; `cancel` is its pending cancellation date (ahead), if any. */
  addPolicy(slot: number, fromUsd: number, toUsd: number, cancel: string | null): void {
    if (fromUsd <= 0) {
      this.primaryTop[slot] = Math.max(this.primaryTop[slot] ?? 0, toUsd);
      if (cancel === null) this.primaryTopAfter[slot] = Math.max(this.primaryTopAfter[slot] ?? 0, toUsd);
    } else {
      const layers = this.excess.get(slot) ?? [];
      layers.push({ from: fromUsd, to: toUsd, pending: cancel !== null });
      this.excess.set(slot, layers);
    }
    if (cancel !== null) this.cancellation.set(slot, earlier(this.cancellation.get(slot), cancel) ?? cancel);
  }

  /** A listed policy whose cancellation already took effect: it counts nothing; the date is kept as evidence. */
  addCancelled(slot: number, on: string): void {
    const known = this.cancelled.get(slot);
    if (known === undefined || on > known) this.cancelled.set(slot, on);
  }
}

/**
 * What the insurance history says per docket: the pending cancellations (earliest date, and which policies), and
 * the docket's last BIPD event that already took effect: a real cancellation (a lapse, unless a later policy is on
 * file) or a replacement (coverage carried on by another policy).
 */
export interface InsuranceHistory {
  pending: Map<number, { on: string; policies: Set<string> }>;
  last: Map<number, { on: string; lapse: boolean; policy: string }>;
}

export function emptyHistory(): InsuranceHistory {
  return { pending: new Map(), last: new Map() };
}

const LEGACY_INSUR = ['DOCKET_NUMBER', 'INS_TYPE_CODE', 'INS_CLASS_CODE', 'MAX_COV_AMOUNT', 'UNDERL_LIM_AMOUNT',
  'POLICY_NO', 'EFFECTIVE_DATE', 'INS_FORM_CODE', 'NAME_COMPANY'] as const;
const LEGACY_ACTPEND = ['DOCKET_NUMBER', 'DOT_NUMBER', 'INS_FORM_CODE', 'INS_TYPE_DESC', 'NAME_COMPANY', 'POLICY_NO',
  'TRANS_DATE', 'UNDERL_LIM_AMOUNT', 'MAX_COV_AMOUNT', 'EFFECTIVE_DATE', 'CANCL_EFFECTIVE_DATE'] as const;
const LEGACY_INSHIST = ['DOCKET_NUMBER', 'DOT_NUMBER', 'INS_FORM_CODE', 'CANCL_METHOD_GEN', 'INS_CANCL_FORM',
  'INS_TYPE_IND', 'INS_TYPE_DESC', 'POLICY_NO', 'MIN_COV_AMOUNT', 'INS_CLASS_CODE', 'EFFECTIVE_DATE',
  'UNDERL_LIM_AMOUNT', 'MAX_COV_AMOUNT', 'CANCL_EFFECTIVE_DATE', 'CANCL_METHOD', 'INSER_BRANCH', 'NAME_COMPANY'] as const;

/** Legacy L&I files (and their Socrata views) write MM/DD/YYYY; Motus writes YYYYMMDD (data-formats §3.2, §3.3). */
export const LEGACY_DATE_FORMATS = ['mdy'] as const;
export const MOTUS_DATE_FORMATS = ['ymd'] as const;

const BIPD_FORMS = new Set(['82', '91', '91X']);
const OTHER_FORMS = new Set(['34', '83', '84', '85', '85C', '35', '36']);

/** Whether a policy row is BI&PD liability (the only coverage the verdict's insurance rules look at). */
export function isBipd(fields: RowReader): boolean {
  // Legacy InsHist: INS_TYPE_IND is " " for BIPD and "*" for everything else; "*" is explicit, so it wins.
  if (fields.text('INS_TYPE_IND') === '*') return false;
  const form = fields.text('INS_FORM_CODE').toUpperCase().replace(/^BMC-?/, '');
  if (BIPD_FORMS.has(form)) return true;
  if (OTHER_FORMS.has(form)) return false;
  const typeCode = fields.text('INS_TYPE_CODE');
  if (typeCode !== '') return typeCode === '1';
  const description = fields.text('INS_TYPE_DESC');
  if (/BI ?& ?PD|BIPD/i.test(description)) return true;
  if (description !== '') return false;
  return fields.text('INS_TYPE_IND') === '';
}

/** A replacement, transfer or name change ends one policy because another takes over: not a lapse. */
export function isRealCancellation(fields: RowReader): boolean {
  const method = `${fields.text('CANCL_METHOD_GEN')} ${fields.text('CANCL_METHOD')} ${fields.text('FILING_STATUS_REASON')}`;
  return !/REPL|TRANSFER|NAME CHANGE/i.test(method);
}

type Layout = { header: HeaderMap; units: AmountUnits } | { names: readonly string[]; count: number };

type RowHandler = (fields: RowReader, units: AmountUnits) => void;

/** Calls `handle` per data row (header or legacy layout detected from the first row); batched, no await per row. */
async function eachRow(
  file: string, source: 'insurance' | 'insurance_history', context: LoadContext, required: string[],
  legacy: (count: number) => readonly string[] | null, handle: RowHandler,
) {
  let layout: Layout | null = null;
  for await (const batch of readCsvBatches(file, { onBytes: context.onBytes })) {
    for (const { row, cells } of batch) {
      if (layout === null) {
        if (looksLikeHeader(cells)) {
          // Motus files name the DOT column USDOT_NUMBER and write YYYYMMDD; the legacy tabular views call it
          // DOT_NUMBER and keep the legacy MM/DD/YYYY.
          const motus = cells.some((cell) => cell.trim().toUpperCase() === 'USDOT_NUMBER');
          const header = new HeaderMap(file, cells, required, motus ? MOTUS_DATE_FORMATS : LEGACY_DATE_FORMATS);
          // Which rows are BI&PD is read from one of these; without any, every policy would count as BIPD.
          if (!['INS_FORM_CODE', 'INS_TYPE_CODE', 'INS_TYPE_DESC'].some((name) => header.has(name))) {
            throw new IngestError(file, 1, 'INS_FORM_CODE', 'required column missing from header (or INS_TYPE_CODE / INS_TYPE_DESC)');
          }
          layout = { header, units: motus ? context.insuranceUnits : 'thousands' };
          continue;
        }
        const names = legacy(cells.length);
        if (!names) throw new IngestError(file, row, null, `unrecognised layout: ${cells.length} fields and no header`);
        layout = { names, count: names.length };
      }
      const fields = 'header' in layout ? layout.header.reader(row, cells)
        : positionalReader(file, row, cells, layout.names, layout.count, LEGACY_DATE_FORMATS);
      const units = 'header' in layout ? layout.units : 'thousands';
      readOrQuarantine(context.quarantine, source, () => handle(fields, units), () => ({ mc: mcKey(fields.text('DOCKET_NUMBER')) }));
    }
  }
}

/** The policy's layer: [underlying, max]; an excess layer without an underlying amount cannot be placed (counts nothing). */
function layerOf(fields: RowReader, units: AmountUnits, context: LoadContext): { from: number; to: number } {
  const to = plausibleBipd(fields, 'MAX_COV_AMOUNT', toUsd(fields.amount('MAX_COV_AMOUNT'), units), context) ?? 0;
  const underlying = plausibleBipd(fields, 'UNDERL_LIM_AMOUNT', toUsd(fields.amount('UNDERL_LIM_AMOUNT'), units), context) ?? 0;
  const excess = fields.text('INS_CLASS_CODE').toUpperCase() === 'E' || /EXCESS/i.test(fields.text('INS_TYPE_DESC'));
  return { from: underlying > 0 ? underlying : excess ? Number.POSITIVE_INFINITY : 0, to };
}

/** The history's last event cancelled this policy (same number, or either number blank and the policy older). */
function cancelledByHistory(history: InsuranceHistory, mc: number, policy: string, effective: string | null): string | null {
  const last = history.last.get(mc);
  if (!last || !last.lapse) return null;
  // A policy (re)written after the cancellation is a later policy, not the cancelled one.
  if (effective !== null && effective > last.on) return null;
  const same = policy !== '' && last.policy !== '' ? policy === last.policy : effective === null || effective <= last.on;
  return same ? last.on : null;
}

export async function loadInsurance(file: string, context: LoadContext, stats: SourceStats, history = emptyHistory()): Promise<InsuranceTable> {
  const byMc = new InsuranceTable(context.mcSlots);
  const legacy = (count: number) => (count === 9 ? LEGACY_INSUR : count === 11 ? LEGACY_ACTPEND : null);
  await eachRow(file, 'insurance', context, ['DOCKET_NUMBER', 'MAX_COV_AMOUNT', 'EFFECTIVE_DATE'], legacy, (fields, units) => {
    stats.rows += 1;
    const mc = mcKey(fields.text('DOCKET_NUMBER'));
    if (mc === null) return stats.skip('not an MC docket');
    // Daily-difference removals are blank tombstones: only the docket is filled.
    if (fields.text('INS_FORM_CODE') === '' && fields.text('INS_TYPE_CODE') === '' && fields.text('POLICY_NO') === '') {
      return stats.skip('blank removal record');
    }
    // Posted date (ActPendInsur, Motus Insur): when FMCSA received the filing, so the file's content as-of.
    stats.seen(fields.pastDate('TRANS_DATE', context.nowMs));
    const slot = byMc.slot(mc);
    if (!isBipd(fields)) return stats.skip('not BIPD coverage');
    const effective = fields.date('EFFECTIVE_DATE');
    const cancel = fields.date('CANCL_EFFECTIVE_DATE');
    if (effective !== null && effective > context.today) return stats.skip('policy not yet effective');
    if (cancel !== null && cancel <= context.today) {
      byMc.addCancelled(slot, cancel);
      return stats.skip('policy already cancelled');
    }
    // A cancellation in the insurance history that took effect removes the policy, whatever this file still says.
    const policy = fields.text('POLICY_NO');
    const cancelledOn = cancelledByHistory(history, mc, policy, effective);
    if (cancelledOn !== null) {
      byMc.addCancelled(slot, cancelledOn);
      return stats.skip('cancelled in the insurance history');
    }
    const pending = history.pending.get(mc);
    const pendingOn = cancel ?? (pending && (policy === '' || pending.policies.has(policy) || pending.policies.has('')) ? pending.on : null);
    const { from, to } = layerOf(fields, units, context);
    byMc.addPolicy(slot, from, to, pendingOn);
  });
  return byMc;
}

export async function loadInsuranceHistory(file: string, context: LoadContext, stats: SourceStats): Promise<InsuranceHistory> {
  const history = emptyHistory();
  const legacy = (count: number) => (count >= 17 ? LEGACY_INSHIST : null);
  await eachRow(file, 'insurance_history', context, ['DOCKET_NUMBER', 'CANCL_EFFECTIVE_DATE'], legacy, (fields) => {
    stats.rows += 1;
    const mc = mcKey(fields.text('DOCKET_NUMBER'));
    if (mc === null) return stats.skip('not an MC docket');
    const cancel = fields.date('CANCL_EFFECTIVE_DATE');
    if (cancel === null) return stats.skip('no cancellation date');
    if (!isBipd(fields)) return stats.skip('not BIPD coverage');
    const lapse = isRealCancellation(fields);
    const policy = fields.text('POLICY_NO');
    if (cancel > context.today) {
      if (!lapse) return stats.skip('replaced or transferred');
      const pending = history.pending.get(mc) ?? { on: cancel, policies: new Set<string>() };
      pending.on = earlier(pending.on, cancel) ?? cancel;
      pending.policies.add(policy);
      history.pending.set(mc, pending);
      return;
    }
    // Took effect: keep the docket's last event; on one day a cancellation outweighs a replacement (fail closed).
    const last = history.last.get(mc);
    if (!last || cancel > last.on || (cancel === last.on && lapse && !last.lapse)) history.last.set(mc, { on: cancel, lapse, policy });
  });
  return history;
}
