// Insurance on file and pending cancellations. --insurance takes Motus Insur (headers, amounts in dollars by
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
  /** Highest BIPD limit among policies in force, in dollars (0 when none is). */
  bipdOnFileUsd: number;
  /** Earliest future cancel date of a BIPD policy. */
  cancellationOn: string | null;
}

/**
 * InsuranceInfo per MC as a typed column over the (possibly shared) MC slot index (see slot-index.ts), NaN = no
 * row for the docket; the few future cancel dates sit in a side map. get() materialises the plain object.
 */
export class InsuranceTable {
  private onFile = new Float64Array(0);
  private readonly cancellation = new Map<number, string>();

  constructor(private readonly index = new SlotIndex('mc')) {}

  get(mc: number): InsuranceInfo | undefined {
    const slot = this.index.get(mc);
    const onFile = slot < 0 ? NaN : (this.onFile[slot] ?? NaN);
    if (Number.isNaN(onFile)) return undefined;
    return { bipdOnFileUsd: onFile, cancellationOn: this.cancellation.get(slot) ?? null };
  }

  /** The docket's slot, created with nothing on file. */
  slot(mc: number): number {
    const slot = this.index.add(mc);
    this.onFile = grown(this.onFile, slot + 1, NaN);
    if (Number.isNaN(this.onFile[slot])) this.onFile[slot] = 0;
    return slot;
  }

  addPolicy(slot: number, amountUsd: number, cancel: string | null): void {
    this.onFile[slot] = Math.max(this.onFile[slot] ?? 0, amountUsd);
    if (cancel !== null) this.cancellation.set(slot, earlier(this.cancellation.get(slot), cancel) ?? cancel);
  }
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

export async function loadInsurance(file: string, context: LoadContext, stats: SourceStats): Promise<InsuranceTable> {
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
    if (cancel !== null && cancel <= context.today) return stats.skip('policy already cancelled');
    byMc.addPolicy(slot, plausibleBipd(fields, 'MAX_COV_AMOUNT', toUsd(fields.amount('MAX_COV_AMOUNT'), units), context) ?? 0, cancel);
  });
  return byMc;
}

export async function loadInsuranceHistory(file: string, context: LoadContext, stats: SourceStats): Promise<Map<number, string>> {
  const cancellations = new Map<number, string>();
  const legacy = (count: number) => (count >= 17 ? LEGACY_INSHIST : null);
  await eachRow(file, 'insurance_history', context, ['DOCKET_NUMBER', 'CANCL_EFFECTIVE_DATE'], legacy, (fields) => {
    stats.rows += 1;
    const mc = mcKey(fields.text('DOCKET_NUMBER'));
    if (mc === null) return stats.skip('not an MC docket');
    const cancel = fields.date('CANCL_EFFECTIVE_DATE');
    if (cancel === null || cancel < context.today) return stats.skip('no future cancellation');
    if (!isBipd(fields)) return stats.skip('not BIPD coverage');
    if (!isRealCancellation(fields)) return stats.skip('replaced or transferred');
    cancellations.set(mc, earlier(cancellations.get(mc), cancel) ?? cancel);
  });
  return cancellations;
}
