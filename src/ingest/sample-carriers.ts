// The bundled sample's carriers: every reason code a found carrier can get occurs at least once, plus plenty
// of clean carriers (preferred and standard). Dates are offsets from "now" so verdicts stay stable on any day.
// MC numbers: 1000xx eligible showcase, 2000xx one reason each, 3000xx filler (clean).
import type { Tier } from '../core/decide.js';
import type { Reason } from '../core/reasons.js';

export interface SampleCarrier {
  mc: number;
  dot: number;
  legal: string;
  dba?: string;
  usdotStatus?: 'A' | 'I';
  safety?: 'S' | 'C' | 'U' | '';
  hazmat?: boolean;
  mcs150DaysAgo?: number;
  addDaysAgo?: number;
  common?: 'A' | 'I' | 'N';
  commonPending?: boolean;
  revocationFlag?: boolean;
  /** BIPD on file in thousands (legacy units); 0 = none on file. */
  bipdK?: number;
  /** ActPendInsur cancel date offset (days from now). */
  policyCancelInDays?: number;
  /** InsHist BIPD cancellation offset; `replaced` makes it a replacement (not a lapse). */
  historyCancel?: { inDays: number; replaced?: boolean };
  revocation?: { effectiveInDays: number };
  oos?: { rescinded: boolean };
  /** A second census row (this DOT) also lists the MC: ambiguous. */
  secondDot?: number;
  /** Census DOCKET1_STATUS_CODE when it is not the one the Carrier file implies (A for active authority, else I). */
  censusDocketStatus?: 'A' | 'I';
  /** Census CARRIER_OPERATION (default A, interstate). */
  operation?: 'A' | 'B' | 'C';
  /** Census PRIOR_REVOKE_FLAG Y with this PRIOR_REVOKE_DOT_NUMBER. */
  priorRevokeDot?: number;
  /** ActPendInsur: the primary policy's cancellation took effect 5 days ago; an excess layer $1M-$5M is still listed. */
  excessOverCancelledPrimary?: boolean;
  /** InsHist: the only policy was cancelled yesterday and is gone from ActPendInsur; the Carrier file still says bipdK. */
  cancelledYesterday?: boolean;
  /** Legacy Carrier flags: the active common authority is for passengers only (PROPERTY_CHK N, PASSENGER_CHK Y). */
  passengerOnly?: boolean;
}

export interface DemoCarrier {
  mc: string;
  tier: Tier | null;
  reasons: Reason[];
  note?: string;
}

const d = (mc: number) => mc * 10 + 1;

export const SHOWCASE: SampleCarrier[] = [
  { mc: 100001, dot: d(100001), legal: 'HULL COOPERATIVE ASSOCIATION', safety: 'S', bipdK: 1000 },
  { mc: 100002, dot: d(100002), legal: 'PRAIRIE LINE CARRIERS INC', dba: 'PRAIRIE LINE', safety: '', bipdK: 750 },
  { mc: 100003, dot: d(100003), legal: 'SUNRISE CARTAGE LLC', safety: 'S', bipdK: 1000 },
  { mc: 100004, dot: d(100004), legal: 'GREAT LAKES REEFER EXPRESS', safety: 'S', bipdK: 5000, hazmat: true },
  { mc: 100005, dot: d(100005), legal: 'COPPER STATE FREIGHT CO', safety: '', bipdK: 1000, oos: { rescinded: true } },
  { mc: 100006, dot: d(100006), legal: 'BLUE RIDGE FLATBED LLC', safety: 'S', bipdK: 1000, historyCancel: { inDays: 10, replaced: true } },
];

export const WITH_REASONS: SampleCarrier[] = [
  { mc: 200001, dot: d(200001), legal: 'MIDNIGHT EXPRESS HAULERS LLC' },
  { mc: 200002, dot: d(200002), legal: 'Northwind Maritime Logistics, Inc.' },
  { mc: 200003, dot: d(200003), legal: 'KASPAIN CARGO TRADING LLC', dba: 'VOLGA RIVER BANKING GROUP' },
  { mc: 200004, dot: d(200004), legal: 'Redline Freight Solutions, L.L.C.' },
  { mc: 200005, dot: d(200005), legal: 'BLACKSTONE HAULAGE PARTNER INC' },
  { mc: 200006, dot: d(200006), legal: 'DUSTY ROAD TRUCKING LLC', oos: { rescinded: false } },
  { mc: 200007, dot: d(200007), legal: 'IDLE WHEELS TRANSPORT INC', common: 'I' },
  { mc: 200008, dot: d(200008), legal: 'REVOKED ROUTES LLC', common: 'I', revocation: { effectiveInDays: -20 } },
  { mc: 200009, dot: d(200009), legal: 'PENDING ORDER FREIGHT INC', revocationFlag: true, revocation: { effectiveInDays: 20 } },
  { mc: 200010, dot: d(200010), legal: 'UNSAFE AT ANY SPEED LLC', safety: 'U' },
  { mc: 200011, dot: d(200011), legal: 'CONDITIONAL CARRIERS INC', safety: 'C' },
  { mc: 200012, dot: d(200012), legal: 'DORMANT DOT LOGISTICS', usdotStatus: 'I' },
  { mc: 200013, dot: d(200013), legal: 'UNINSURED HAULING CO', bipdK: 0 },
  { mc: 200014, dot: d(200014), legal: 'THIN COVER TRANSPORT LLC', bipdK: 300 },
  { mc: 200015, dot: d(200015), legal: 'LAPSING POLICY LINES INC', historyCancel: { inDays: 10 } },
  { mc: 200016, dot: d(200016), legal: 'BRAND NEW AUTHORITY LLC', addDaysAgo: 30, mcs150DaysAgo: 30 },
  { mc: 200017, dot: d(200017), legal: 'PAPERWORK PENDING FREIGHT', mcs150DaysAgo: 1100 },
  { mc: 200018, dot: d(200018), legal: 'TWIN DOCKET EXPRESS INC', secondDot: d(200018) + 1 },
  { mc: 200019, dot: d(200019), legal: 'HAZMAT ON A BUDGET LLC', hazmat: true, bipdK: 750 },
  { mc: 200020, dot: d(200020), legal: 'PENDING APPLICATION CARRIERS', common: 'N', commonPending: true },
  { mc: 200021, dot: d(200021), legal: 'CANCEL NOTICE TRUCKING INC', policyCancelInDays: 15 },
  // A census row with no legal name: nothing to screen, so the record is set aside as unreadable.
  { mc: 200090, dot: d(200090), legal: '' },
  { mc: 200022, dot: d(200022), legal: 'TWO REGISTERS HAULING LLC', censusDocketStatus: 'I' },
  { mc: 200023, dot: d(200023), legal: 'FRESH COAT FREIGHT LLC', priorRevokeDot: 7654321 },
  { mc: 200024, dot: d(200024), legal: 'HOMETOWN ONLY CARTAGE INC', operation: 'C' },
  { mc: 200025, dot: d(200025), legal: 'TOP LAYER ONLY TRANSPORT', excessOverCancelledPrimary: true },
  { mc: 200026, dot: d(200026), legal: 'YESTERDAYS POLICY FREIGHT', cancelledYesterday: true },
  { mc: 200027, dot: d(200027), legal: 'CHARTER COACH LINES INC', passengerOnly: true },
];

const FIRST = ['ALPINE', 'BAYOU', 'CANYON', 'DELTA', 'EAGLE', 'FRONTIER', 'GRANITE', 'HARBOR', 'IRONWOOD', 'JUNIPER',
  'KEYSTONE', 'LONESTAR', 'MESA', 'NORTHSTAR', 'OZARK', 'PIEDMONT'];
const SECOND = ['VALLEY', 'RIVER', 'SUMMIT', 'PLAINS', 'COAST'];
const KIND = ['TRUCKING LLC', 'FREIGHT INC', 'TRANSPORT CO', 'LOGISTICS LLC'];

/** 240 clean carriers; every other one preferred (rated S with $1M), the rest standard (unrated, $750k). */
export const FILLER: SampleCarrier[] = Array.from({ length: 240 }, (_, i) => ({
  mc: 300001 + i, dot: d(300001 + i),
  legal: `${FIRST[i % FIRST.length]} ${SECOND[Math.floor(i / FIRST.length) % SECOND.length]} ${KIND[Math.floor(i / 80) % KIND.length]} ${Math.floor(i / 4) + 1}`,
  safety: i % 2 === 0 ? 'S' : '', bipdK: i % 2 === 0 ? 1000 : 750,
  // Filings spread over the last month, the newest today: the census's content as-of (newest MCS150_DATE) is today,
  // as in a real daily extract, so the sample is fresh without any operator flag for the census.
  mcs150DaysAgo: i % 30,
}));

export const SAMPLE_CARRIERS: SampleCarrier[] = [...SHOWCASE, ...WITH_REASONS, ...FILLER];

const blocked = (mc: number, reasons: Reason[], note: string): DemoCarrier => ({ mc: String(mc), tier: 'blocked', reasons, note });
const review = (mc: number, reasons: Reason[], note: string): DemoCarrier => ({ mc: String(mc), tier: 'conditional', reasons, note });

/** Expected verdicts under the default rule set (an integration test holds the sample to these). */
/**
 * Reasons the one-day sample does not show: the identity signals need a census history (two or more ingests with
 * changed contact data, the exception list, AuthHist grants). test/integration/identity-signals.test.ts shows each
 * over successive real-layout sample ingests.
 */
export const NOT_IN_DEMO: readonly Reason[] = [
  'recent_contact_change', 'recent_address_change', 'recent_name_change', 'shared_contact', 'authority_reactivated',
];

export const DEMO_CARRIERS: DemoCarrier[] = [
  { mc: '100001', tier: 'preferred', reasons: [], note: 'rated S, $1M BIPD' },
  blocked(200001, ['do_not_use'], 'on the do-not-use list'),
  { mc: '100002', tier: 'standard', reasons: [], note: 'unrated, $750k BIPD' },
  { mc: '100003', tier: 'preferred', reasons: [], note: 'name matches a SAM exclusion that has terminated' },
  { mc: '100004', tier: 'preferred', reasons: [], note: 'hazmat with $5M BIPD' },
  { mc: '100005', tier: 'standard', reasons: [], note: 'OOS order says ACTIVE but was rescinded' },
  { mc: '100006', tier: 'preferred', reasons: [], note: 'policy replaced (not a lapse)' },
  blocked(200002, ['ofac_sdn_match'], 'name equals an SDN entry but for punctuation and suffix'),
  review(200003, ['possible_ofac_match', 'ofac_consolidated_match'], 'name similar to an SDN alias; DBA equals an OFAC consolidated (non-SDN, sectoral) entry'),
  blocked(200004, ['sam_exclusion'], 'active SAM exclusion'),
  review(200005, ['possible_sam_exclusion'], 'name similar to an active SAM exclusion'),
  blocked(200006, ['out_of_service_order'], 'new-entrant OOS order in force'),
  blocked(200007, ['authority_not_active'], 'authority inactive'),
  blocked(200008, ['authority_not_active', 'authority_revoked'], 'involuntary revocation took effect'),
  review(200009, ['authority_revocation_pending'], 'involuntary revocation effective in 20 days'),
  blocked(200010, ['unsatisfactory_safety_rating'], 'rated U'),
  review(200011, ['conditional_safety_rating'], 'rated C'),
  blocked(200012, ['usdot_inactive'], 'census STATUS_CODE I'),
  blocked(200013, ['insurance_lapsed', 'insurance_not_on_file'], 'BIPD on file 00000: nothing in force (49 CFR 387.7)'),
  blocked(200014, ['insurance_below_federal_minimum', 'insurance_below_minimum'], '$300k BIPD, FMCSA requires $750k (49 CFR 387.9)'),
  review(200015, ['insurance_cancellation_pending'], 'BIPD cancellation (InsHist) in 10 days'),
  review(200016, ['new_authority'], 'DOT added 30 days ago'),
  review(200017, ['mcs150_outdated'], 'MCS-150 filed 3 years ago'),
  review(200018, ['ambiguous_mc_number'], 'MC listed under two DOT records'),
  blocked(200019, ['insurance_below_federal_minimum', 'insurance_below_minimum'], 'hazmat carrier with $750k (49 CFR 387.9: $5M assumed for hazmat)'),
  blocked(200020, ['authority_not_active'], 'authority application pending'),
  review(200021, ['insurance_cancellation_pending'], 'BIPD cancellation (ActPendInsur) in 15 days'),
  blocked(200090, ['carrier_record_unreadable'], 'census row with an empty LEGAL_NAME (nothing to screen)'),
  review(200022, ['authority_records_disagree'], 'census docket status I, Carrier file authority active'),
  review(200023, ['prior_revocation_link'], 'census PRIOR_REVOKE_FLAG Y, linked to revoked DOT 7654321'),
  review(200024, ['intrastate_only_census'], 'census CARRIER_OPERATION C (intrastate only) with interstate authority'),
  blocked(200025, ['insurance_lapsed', 'insurance_not_on_file'], 'excess layer $1M-$5M over a primary cancelled 5 days ago (49 CFR 387.7)'),
  blocked(200026, ['insurance_lapsed', 'insurance_not_on_file'], 'cancelled yesterday in InsHist, gone from ActPendInsur; Carrier file still 01000'),
  blocked(200027, ['authority_not_active'], 'active authority for passengers only (no property authority)'),
];
