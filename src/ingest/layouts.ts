// The real public file layouts, for the writers (sample files, synthetic benchmark files). Parsers never use
// positions from here for headed files: they map by header name.

/** Company Census File (az4n-8mr2) header, 147 columns in the published order. */
export const CENSUS_COLUMNS = [
  'MCS150_DATE', 'ADD_DATE', 'STATUS_CODE', 'DOT_NUMBER', 'DUN_BRADSTREET_NO', 'PHY_OMC_REGION', 'SAFETY_INV_TERR',
  'CARRIER_OPERATION', 'BUSINESS_ORG_ID', 'MCS150_MILEAGE', 'MCS150_MILEAGE_YEAR', 'MCS151_MILEAGE', 'TOTAL_CARS',
  'MCS150_UPDATE_CODE_ID', 'PRIOR_REVOKE_FLAG', 'PRIOR_REVOKE_DOT_NUMBER', 'PHONE', 'FAX', 'CELL_PHONE',
  'COMPANY_OFFICER_1', 'COMPANY_OFFICER_2', 'BUSINESS_ORG_DESC', 'TRUCK_UNITS', 'POWER_UNITS', 'BUS_UNITS', 'FLEETSIZE',
  'REVIEW_ID', 'RECORDABLE_CRASH_RATE', 'MAIL_NATIONALITY_INDICATOR', 'PHY_NATIONALITY_INDICATOR', 'PHY_BARRIO',
  'MAIL_BARRIO', 'CARSHIP', 'DOCKET1PREFIX', 'DOCKET1', 'DOCKET2PREFIX', 'DOCKET2', 'DOCKET3PREFIX', 'DOCKET3',
  'POINTNUM', 'TOTAL_INTRASTATE_DRIVERS', 'MCSIPSTEP', 'MCSIPDATE', 'HM_Ind', 'INTERSTATE_BEYOND_100_MILES',
  'INTERSTATE_WITHIN_100_MILES', 'INTRASTATE_BEYOND_100_MILES', 'INTRASTATE_WITHIN_100_MILES', 'TOTAL_CDL',
  'TOTAL_DRIVERS', 'AVG_DRIVERS_LEASED_PER_MONTH', 'CLASSDEF', 'LEGAL_NAME', 'DBA_NAME', 'PHY_STREET', 'PHY_CITY',
  'PHY_COUNTRY', 'PHY_STATE', 'PHY_ZIP', 'PHY_CNTY', 'CARRIER_MAILING_STREET', 'CARRIER_MAILING_STATE',
  'CARRIER_MAILING_CITY', 'CARRIER_MAILING_COUNTRY', 'CARRIER_MAILING_ZIP', 'CARRIER_MAILING_CNTY',
  'CARRIER_MAILING_UND_DATE', 'DRIVER_INTER_TOTAL', 'EMAIL_ADDRESS', 'REVIEW_TYPE', 'REVIEW_DATE', 'SAFETY_RATING',
  'SAFETY_RATING_DATE', 'UNDELIV_PHY', 'CRGO_GENFREIGHT', 'CRGO_HOUSEHOLD', 'CRGO_METALSHEET', 'CRGO_MOTOVEH',
  'CRGO_DRIVETOW', 'CRGO_LOGPOLE', 'CRGO_BLDGMAT', 'CRGO_MOBILEHOME', 'CRGO_MACHLRG', 'CRGO_PRODUCE', 'CRGO_LIQGAS',
  'CRGO_INTERMODAL', 'CRGO_PASSENGERS', 'CRGO_OILFIELD', 'CRGO_LIVESTOCK', 'CRGO_GRAINFEED', 'CRGO_COALCOKE',
  'CRGO_MEAT', 'CRGO_GARBAGE', 'CRGO_USMAIL', 'CRGO_CHEM', 'CRGO_DRYBULK', 'CRGO_COLDFOOD', 'CRGO_BEVERAGES',
  'CRGO_PAPERPROD', 'CRGO_UTILITY', 'CRGO_FARMSUPP', 'CRGO_CONSTRUCT', 'CRGO_WATERWELL', 'CRGO_CARGOOTHR',
  'CRGO_CARGOOTHR_DESC', 'OWNTRUCK', 'OWNTRACT', 'OWNTRAIL', 'OWNCOACH', 'OWNSCHOOL_1_8', 'OWNSCHOOL_9_15',
  'OWNSCHOOL_16', 'OWNBUS_16', 'OWNVAN_1_8', 'OWNVAN_9_15', 'OWNLIMO_1_8', 'OWNLIMO_9_15', 'OWNLIMO_16', 'TRMTRUCK',
  'TRMTRACT', 'TRMTRAIL', 'TRMCOACH', 'TRMSCHOOL_1_8', 'TRMSCHOOL_9_15', 'TRMSCHOOL_16', 'TRMBUS_16', 'TRMVAN_1_8',
  'TRMVAN_9_15', 'TRMLIMO_1_8', 'TRMLIMO_9_15', 'TRMLIMO_16', 'TRPTRUCK', 'TRPTRACT', 'TRPTRAIL', 'TRPCOACH',
  'TRPSCHOOL_1_8', 'TRPSCHOOL_9_15', 'TRPSCHOOL_16', 'TRPBUS_16', 'TRPVAN_1_8', 'TRPVAN_9_15', 'TRPLIMO_1_8',
  'TRPLIMO_9_15', 'TRPLIMO_16', 'DOCKET1_STATUS_CODE', 'DOCKET2_STATUS_CODE', 'DOCKET3_STATUS_CODE',
] as const;

export const SAM_V2_COLUMNS = [
  'Classification', 'Name', 'Prefix', 'First', 'Middle', 'Last', 'Suffix', 'Address 1', 'Address 2', 'Address 3',
  'Address 4', 'City', 'State / Province', 'Country', 'Zip Code', 'Open Data Flag', 'Blank (Deprecated)',
  'Unique Entity ID', 'Exclusion Program', 'Excluding Agency', 'CT Code', 'Exclusion Type', 'Additional Comments',
  'Active Date', 'Termination Date', 'Record Status', 'Cross-Reference', 'SAM Number', 'CAGE', 'NPI', 'Creation_Date',
] as const;

export const OOS_COLUMNS = ['DOT_NUMBER', 'LEGAL_NAME', 'DBA_NAME', 'OOS_DATE', 'OOS_REASON', 'STATUS', 'RESCIND_DATE'] as const;

export const REVOCATION_HEADER = ['DOCKET_NUMBER', 'DOT_NUMBER', 'OPERATING_AUTHORITY_REGISTRATION_TYPE', 'SERVE_DATE',
  'REVOCATION_TYPE', 'EFFECTIVE_DATE'] as const;

/** Every field double-quoted, as the legacy L&I files and SAM extracts write them. */
export function quotedLine(fields: ReadonlyArray<string | number>): string {
  return fields.map((field) => `"${String(field).replace(/"/g, '""')}"`).join(',');
}

/** Census-style CSV: quote only when needed. */
export function csvLine(fields: ReadonlyArray<string | number>): string {
  return fields.map((field) => {
    const text = String(field);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  }).join(',');
}

export const pad = (value: number, width: number) => String(value).padStart(width, '0');
export const mmddyyyy = (iso: string) => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;
export const yyyymmdd = (iso: string) => iso.slice(0, 10).replace(/-/g, '');
export const isoDaysFrom = (nowMs: number, days: number) => new Date(nowMs + days * 86_400_000).toISOString().slice(0, 10);

/** Legacy L&I Carrier row, 43 headerless fields; amounts in thousands, DOT padded to 8 digits. */
export function legacyCarrierLine(c: {
  mc: number; dot: number; common: string; contract?: string; commonPending?: string; commonRevPending?: string;
  bipdRequiredK: number; bipdOnFileK: number; legalName: string; dbaName?: string;
  /** Freight / Passenger / Household Goods flags (PROPERTY_CHK, PASSENGER_CHK, HHG_CHK); default property only. */
  property?: string; passenger?: string; householdGoods?: string;
}): string {
  return quotedLine([
    `MC${pad(c.mc, 6)}`, pad(c.dot, 8), ' ', '', c.common, c.contract ?? 'N', 'N', c.commonPending ?? 'N', 'N', 'N',
    c.commonRevPending ?? 'N', 'N', 'N', c.property ?? 'Y', c.passenger ?? 'N', c.householdGoods ?? 'N', 'N', 'N', pad(c.bipdRequiredK, 5), 'Y', 'N', pad(c.bipdOnFileK, 5),
    'Y', 'N', 'Y', c.dbaName ?? '', c.legalName, '100 MAIN ST', '', 'SPRINGFIELD', 'IL', 'US', '62701', '2175550100', '',
    '', '', '', '', '', '', '', '',
  ]);
}
