// Known legitimate shared contacts (docs/identity.md, "Exceptions"): phone numbers, email addresses and physical
// addresses that never count as shared (a registered agent's office, a franchise's call centre), and DOT groups whose
// members never count each other (a large carrier's subsidiaries sharing a head-office phone). One JSON file, given
// to the ingest with --identity-exceptions or IDENTITY_EXCEPTIONS_FILE, checked whole: every problem is named.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { normaliseAddress, normaliseEmail, normalisePhone } from '../core/identity.js';

const entry = z.union([z.string(), z.object({ value: z.string(), note: z.string().max(500).optional() }).strict()]);

export const exceptionsSchema = z.object({
  phones: z.array(entry).max(100_000).default([]),
  emails: z.array(entry).max(100_000).default([]),
  /** "street, city, state, zip, country" (the census's physical address parts, in that order). */
  addresses: z.array(entry).max(100_000).default([]),
  dot_groups: z.array(z.object({
    name: z.string().min(1).max(200),
    dots: z.array(z.number().int().positive()).min(2).max(100_000),
  }).strict()).max(10_000).default([]),
}).strict();

/** The exception list as the shared-contact index applies it: normalised values, DOT → group. */
export interface ContactExceptions {
  phones: ReadonlySet<string>;
  emails: ReadonlySet<string>;
  addresses: ReadonlySet<string>;
  /** DOT → index of its group; carriers of one group are related. */
  groupOf: ReadonlyMap<number, number>;
  /** SHA-256 of the file, for the ingest report ('' without a file). */
  sha256: string;
}

export const NO_EXCEPTIONS: ContactExceptions = { phones: new Set(), emails: new Set(), addresses: new Set(), groupOf: new Map(), sha256: '' };

const valueOf = (item: z.infer<typeof entry>) => (typeof item === 'string' ? item : item.value);

/** Parses the file's text; throws one Error naming every problem (path: message). */
export function parseExceptions(text: string): ContactExceptions {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  const parsed = exceptionsSchema.safeParse(json);
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`).join('; '));
  const problems: string[] = [];
  const phones = new Set<string>();
  parsed.data.phones.forEach((item, i) => {
    const phone = normalisePhone(valueOf(item));
    if (phone.length < 7) problems.push(`phones.${i}: "${valueOf(item)}" is not a phone number`);
    else phones.add(phone);
  });
  const emails = new Set<string>();
  parsed.data.emails.forEach((item, i) => {
    const email = normaliseEmail(valueOf(item));
    if (!email.includes('@')) problems.push(`emails.${i}: "${valueOf(item)}" is not an email address`);
    else emails.add(email);
  });
  const addresses = new Set<string>();
  parsed.data.addresses.forEach((item, i) => {
    const parts = valueOf(item).split(',').map((part) => part.trim());
    const [street = '', city = '', state = '', zip = '', country = ''] = parts;
    if (parts.length !== 5 || street === '') problems.push(`addresses.${i}: give "street, city, state, zip, country" (5 parts)`);
    else addresses.add(normaliseAddress({ street, city, state, zip, country }));
  });
  const groupOf = new Map<number, number>();
  parsed.data.dot_groups.forEach((group, i) => {
    for (const dot of group.dots) {
      const other = groupOf.get(dot);
      if (other !== undefined && other !== i) problems.push(`dot_groups.${i}: DOT ${dot} is already in group ${other}`);
      else groupOf.set(dot, i);
    }
  });
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { phones, emails, addresses, groupOf, sha256: createHash('sha256').update(text).digest('hex') };
}

export async function loadExceptions(file: string): Promise<ContactExceptions> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    return parseExceptions(text);
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}
