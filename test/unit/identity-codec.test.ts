// Identity normalisation and the compact stored form: formatting alone is no change, substance is.
import { describe, expect, it } from 'vitest';
import { fingerprint, normaliseAddress, normaliseEmail, normaliseOfficers, normalisePhone, type IdentityValues } from '../../src/core/identity.js';
import { decodeChange, decodeIdentity, diffIdentity, encodeChange, encodeIdentity, storedForm } from '../../src/identity/codec.js';

const base: IdentityValues = {
  legal_name: 'ACME TRUCKING LLC', dba_name: '', phone: '6025550100', cell_phone: '', email: 'ops@acme.example',
  physical_address: '1 MAIN ST, PHOENIX, AZ, 85001, US', mailing_address: '', officers: 'JANE DOE',
};

describe('identity normalisation and codec', () => {
  it('normalises phones, emails, addresses and officers', () => {
    expect(normalisePhone('+1 (602) 555-0100')).toBe('6025550100');
    expect(normaliseEmail('  Ops@ACME.example ')).toBe('ops@acme.example');
    expect(normaliseAddress({ street: '1  Main St.', city: 'Phoenix', state: 'az', zip: '85001-1234', country: 'US' }))
      .toBe('1 MAIN ST, PHOENIX, AZ, 85001, US');
    expect(normaliseOfficers(['john roe', 'Jane  Doe'])).toBe(normaliseOfficers(['JANE DOE', 'JOHN ROE']));
    expect(fingerprint('')).toBe('');
    expect(fingerprint('A')).not.toBe(fingerprint('B'));
  });

  it('round-trips the stored line and history entries; diffs only changed fields', () => {
    const stored = storedForm(base);
    expect(decodeIdentity(encodeIdentity(stored))).toEqual(stored);
    expect(decodeIdentity('garbage')).toBeNull();
    expect(diffIdentity(stored, base)).toEqual([]);
    expect(diffIdentity(stored, { ...base, phone: '4805550199', physical_address: '2 ELM ST' })).toEqual([
      { field: 'phone', old: '6025550100', new: '4805550199' },
      { field: 'physical_address', old: null, new: '2 ELM ST' },
    ]);
    const change = { field: 'email' as const, old: 'a@b.example', new: 'c@d.example', snapshot: 'v1', seen_on: '2026-11-01' };
    expect(decodeChange(encodeChange(change))).toEqual(change);
    expect(decodeChange('[99,null,"x","v","d"]')).toBeNull();
  });
});
