// Listed addresses against the carrier's census address. Agreement raises a score and, at ZIP or city+state
// level, counts as the secondary identifier that lets a person match become decisive; a listed party whose
// every known address is in another country is less likely to be this carrier, so disagreement lowers it.
// The adjustments are small on purpose: an address is weak evidence next to a name, and lists hold old ones.

export interface PlaceOf {
  /** ISO 3166 alpha-2 for the countries carriers are in (US, CA, MX), else the list's own upper-cased name. */
  country: string | null;
  state: string | null;
  city: string | null;
  /** First five digits of a US ZIP. */
  zip: string | null;
}

const COUNTRY_ALIASES: Record<string, string> = {
  US: 'US', USA: 'US', 'UNITED STATES': 'US', 'UNITED STATES OF AMERICA': 'US', 'U S A': 'US', 'U S': 'US',
  MX: 'MX', MEX: 'MX', MEXICO: 'MX', CA: 'CA', CAN: 'CA', CANADA: 'CA',
};

export function normaliseCountry(raw: string | null | undefined): string | null {
  const value = (raw ?? '').toUpperCase().replace(/[^A-Z ]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (value === '') return null;
  return COUNTRY_ALIASES[value] ?? value;
}

function clean(raw: string | null | undefined): string | null {
  const value = (raw ?? '').toUpperCase().replace(/[^A-Z0-9 ]+/g, ' ').replace(/\s+/g, ' ').trim();
  return value === '' ? null : value;
}

export function place(input: { country?: string | null; state?: string | null; city?: string | null; zip?: string | null }): PlaceOf {
  const zip = (input.zip ?? '').replace(/\D/g, '').slice(0, 5);
  return { country: normaliseCountry(input.country), state: clean(input.state), city: clean(input.city), zip: zip.length === 5 ? zip : null };
}

/** OFAC add.csv "City/State/Province/Postal Code" ("Miami, FL 33166"); state and ZIP are read for US addresses only. */
export function parseOfacPlace(cityStateZip: string, country: string): PlaceOf {
  const normalisedCountry = normaliseCountry(country);
  const [city = '', ...rest] = cityStateZip.split(',');
  if (normalisedCountry !== 'US') return place({ country, city: rest.length > 0 ? city : cityStateZip || null });
  const tail = rest.join(' ');
  const state = /\b([A-Z]{2})\b/.exec(tail.toUpperCase())?.[1] ?? null;
  const zip = /\b(\d{5})(?:-\d{4})?\b/.exec(cityStateZip)?.[1] ?? null;
  return place({ country, city, state, zip });
}

export interface AddressVerdict {
  /** Added to the name score (negative when the addresses disagree). */
  delta: number;
  /** ZIP, or city and state, agree: a secondary identifier. */
  confirmed: boolean;
  agreed: string[];
  note: string | null;
}

const NONE: AddressVerdict = { delta: 0, confirmed: false, agreed: [], note: null };

export function compareAddresses(listed: readonly PlaceOf[], carrier: PlaceOf | null, individual: boolean): AddressVerdict {
  if (!carrier || listed.length === 0 || !carrier.country) return NONE;
  const sameCountry = listed.filter((p) => p.country === carrier.country);
  for (const p of sameCountry) {
    if (p.zip && carrier.zip && p.zip === carrier.zip) return { delta: 0.03, confirmed: true, agreed: ['country', 'zip'], note: `ZIP ${p.zip} agrees` };
    if (p.city && p.state && p.city === carrier.city && p.state === carrier.state) {
      return { delta: 0.03, confirmed: true, agreed: ['country', 'state', 'city'], note: `${p.city}, ${p.state} agrees` };
    }
  }
  if (sameCountry.some((p) => p.state && p.state === carrier.state)) return { delta: 0.01, confirmed: false, agreed: ['country', 'state'], note: 'state agrees' };
  if (sameCountry.length > 0) {
    const statesDiffer = carrier.state !== null && sameCountry.every((p) => p.state !== null && p.state !== carrier.state);
    if (statesDiffer && individual) return { delta: -0.03, confirmed: false, agreed: ['country'], note: 'state differs' };
    return { delta: 0, confirmed: false, agreed: ['country'], note: null };
  }
  const known = listed.filter((p) => p.country !== null);
  if (known.length === 0) return NONE;
  return { delta: individual ? -0.04 : -0.01, confirmed: false, agreed: [], note: `listed in ${known[0]!.country}, carrier in ${carrier.country}` };
}
