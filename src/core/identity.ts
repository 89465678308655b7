// Carrier identity as the census states it (names, contact, addresses, officers), normalised so that a change is
// a change of substance and not of spelling: phones keep their digits, emails are lower-case, names and addresses
// upper-case with punctuation dropped and whitespace collapsed. Pure: the ingest and the identity feature share it.

export const IDENTITY_FIELDS = [
  'legal_name', 'dba_name', 'phone', 'cell_phone', 'email', 'physical_address', 'mailing_address', 'officers',
] as const;
export type IdentityField = typeof IDENTITY_FIELDS[number];
/** Normalised identity of one carrier; '' where the census leaves a field blank. */
export type IdentityValues = Record<IdentityField, string>;
export type IdentityKind = 'name' | 'contact' | 'address' | 'officers';

export const IDENTITY_KIND: Record<IdentityField, IdentityKind> = {
  legal_name: 'name', dba_name: 'name', phone: 'contact', cell_phone: 'contact', email: 'contact',
  physical_address: 'address', mailing_address: 'address', officers: 'officers',
};

/** Digits only; a leading country code 1 on an 11-digit number is dropped (the census mixes both). */
export function normalisePhone(raw: string): string {
  const digits = raw.replace(/\D/g, '');
  return digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits;
}

export function normaliseEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

/** Upper case, punctuation dropped, whitespace collapsed. */
export function normaliseText(raw: string): string {
  return raw.toUpperCase().replace(/[.,#'"]/g, '').replace(/\s+/g, ' ').trim();
}

/** Street, city, state, ZIP (first five digits), country as one normalised line; '' when all are blank. */
export function normaliseAddress(parts: { street: string; city: string; state: string; zip: string; country: string }): string {
  const zip = parts.zip.replace(/\D/g, '').slice(0, 5);
  const line = [parts.street, parts.city, parts.state, zip, parts.country].map(normaliseText);
  return line.every((part) => part === '') ? '' : line.join(', ');
}

/** Officers in a stable order, so a swap of officer 1 and 2 is no change. */
export function normaliseOfficers(names: readonly string[]): string {
  return names.map(normaliseText).filter(Boolean).sort().join('; ');
}

/** 32-bit FNV-1a of a normalised value in base 36 (at most 7 characters); '' for a blank value. */
export function fingerprint(value: string): string {
  if (value === '') return '';
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i += 1) {
    hash ^= value.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}
