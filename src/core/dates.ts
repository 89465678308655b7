// Date arithmetic for decide(): pure, on ISO YYYY-MM-DD strings and epoch milliseconds, UTC throughout.

const DAY_MS = 86_400_000;

/** Epoch ms of an ISO date (YYYY-MM-DD or full RFC 3339); NaN when unparseable. */
export function toEpochMs(isoDate: string): number {
  let ms = parsedDates.get(isoDate);
  if (ms === undefined) {
    ms = Date.parse(isoDate.length === 10 ? `${isoDate}T00:00:00Z` : isoDate);
    // Bounded: carrier dates are days (tens of thousands at most) and snapshot dates few; a full cache restarts.
    if (parsedDates.size >= 100_000) parsedDates.clear();
    parsedDates.set(isoDate, ms);
  }
  return ms;
}

// decide() parses the same snapshot and source as-of dates on every check (ten sources under the default rule
// set) and the carrier's own dates on every check of it: a Map hit is ~10 times cheaper than Date.parse, and
// this was 2–3 % of a cache-hot request in the profile.
const parsedDates = new Map<string, number>();

export function daysBetween(fromMs: number, toMs: number): number {
  return Math.floor((toMs - fromMs) / DAY_MS);
}

/** Epoch ms of `months` calendar months before `nowMs` (UTC), for "older than N months" checks. */
export function monthsBefore(nowMs: number, months: number): number {
  // Depends only on the UTC day and the months: every check of a day asks the same question.
  const day = Math.floor(nowMs / DAY_MS);
  if (day === monthsMemo.day && months === monthsMemo.months) return monthsMemo.value;
  const now = new Date(nowMs);
  const value = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, now.getUTCDate());
  monthsMemo = { day, months, value };
  return value;
}
let monthsMemo = { day: Number.NaN, months: Number.NaN, value: Number.NaN };

export function startOfDayMs(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS;
}

export { DAY_MS };

// ---------------------------------------------------------------------------------------------------------------
// The one strict date parser. Every date that enters the service (ingest fields, CLI flags, DNU rows, key expiry)
// goes through parseCalendarDate or parseInstant: calendar-valid only (no Feb 30, no month 13, no hour 24), only
// the formats the caller names, never Date.parse's silent roll-over ("2026-02-30" → 2 March) or local-time guess.

/** How far ahead of this machine's clock an "as of" may be before it is refused (clock skew between hosts). */
export const FUTURE_SKEW_MS = 5 * 60_000;

/**
 * Field date layouts of the public files:
 * - `mdy`: MM/DD/YYYY (1- or 2-digit month/day), legacy L&I files and SAM dates;
 * - `ymd`: YYYYMMDD, optionally followed by a blank and a 4-6 digit time ("20250429 0000"), census and Motus;
 * - `iso`: YYYY-MM-DD, optionally with a time part (OOS dates, SAM Creation_Date).
 */
export type DateFormat = 'mdy' | 'ymd' | 'iso';
export const ALL_DATE_FORMATS: readonly DateFormat[] = ['mdy', 'ymd', 'iso'];

const MIN_YEAR = 1900;
const MAX_YEAR = 2199;

/** Days in a month of the proleptic Gregorian calendar (month 1-12). */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** ISO YYYY-MM-DD when year/month/day name a real calendar day in range; null otherwise. */
export function calendarDate(year: number, month: number, day: number): string | null {
  if (!Number.isInteger(year) || year < MIN_YEAR || year > MAX_YEAR) return null;
  if (!Number.isInteger(month) || month < 1 || month > 12) return null;
  if (!Number.isInteger(day) || day < 1 || day > daysInMonth(year, month)) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const MDY = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;
const YMD = /^(\d{4})(\d{2})(\d{2})(?:\s+(\d{2})(\d{2})(\d{2})?)?$/;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function validTime(hour: string | undefined, minute: string | undefined, second: string | undefined): boolean {
  if (hour === undefined) return true;
  return Number(hour) <= 23 && Number(minute) <= 59 && (second === undefined || Number(second) <= 59);
}

/**
 * A file field's calendar day in one of `formats`: ISO YYYY-MM-DD; null for an empty cell; undefined for anything
 * else (unparseable, impossible, out of range, or a format the source does not use). The time part some layouts
 * append is checked for validity and dropped: the files' dates are days.
 */
export function parseCalendarDate(raw: string, formats: readonly DateFormat[] = ALL_DATE_FORMATS): string | null | undefined {
  const value = raw.trim();
  if (value === '') return null;
  for (const format of formats) {
    if (format === 'mdy') {
      const m = MDY.exec(value);
      if (m) return calendarDate(Number(m[3]), Number(m[1]), Number(m[2])) ?? undefined;
    } else if (format === 'ymd') {
      const m = YMD.exec(value);
      if (m) return validTime(m[4], m[5], m[6]) ? calendarDate(Number(m[1]), Number(m[2]), Number(m[3])) ?? undefined : undefined;
    } else {
      const m = ISO_DAY.exec(value);
      if (m) return validTime(m[4], m[5], m[6]) ? calendarDate(Number(m[1]), Number(m[2]), Number(m[3])) ?? undefined : undefined;
    }
  }
  return undefined;
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

export interface InstantOptions {
  /** The clock reading "future" is measured against. */
  nowMs: number;
  /** Accept the word "now" (the clock reading). */
  allowNow?: boolean;
  /** Refuse an instant later than now + FUTURE_SKEW_MS (an "as of" cannot lie in the future). */
  notFuture?: boolean;
  /** Refuse an instant earlier than now (an expiry that has already passed is a typo, not a wish). */
  notPast?: boolean;
}

/**
 * A point in time given by a person (CLI flag, DNU row): `YYYY-MM-DD` (midnight UTC) or RFC 3339 with an explicit
 * zone (`2026-11-21T06:00:00Z`, `…+01:00`); a time without a zone is refused rather than guessed. Returns the
 * instant as an RFC 3339 UTC string, or `{error}` with one line saying why.
 */
export function parseInstant(raw: string, options: InstantOptions): { iso: string; ms: number } | { error: string } {
  const value = raw.trim();
  if (options.allowNow && value === 'now') return { iso: new Date(options.nowMs).toISOString(), ms: options.nowMs };
  const m = INSTANT.exec(value);
  const expected = `expected YYYY-MM-DD or an RFC 3339 date-time with a zone${options.allowNow ? ", or 'now'" : ''}`;
  if (!m) return { error: `not a date: "${raw}" (${expected})` };
  const day = calendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
  if (day === null) return { error: `not a calendar date: "${raw}"` };
  if (!validTime(m[4], m[5], m[6])) return { error: `not a valid time of day: "${raw}"` };
  const ms = Date.parse(m[4] === undefined ? `${day}T00:00:00Z` : value);
  if (!Number.isFinite(ms)) return { error: `not a date: "${raw}" (${expected})` };
  if (options.notFuture && ms > options.nowMs + FUTURE_SKEW_MS) {
    return { error: `"${raw}" is in the future (now is ${new Date(options.nowMs).toISOString()})` };
  }
  if (options.notPast && ms < options.nowMs) {
    return { error: `"${raw}" is already in the past (now is ${new Date(options.nowMs).toISOString()})` };
  }
  return { iso: new Date(ms).toISOString(), ms };
}

/** A calendar day (ISO YYYY-MM-DD) later than the day `nowMs` falls on, beyond the clock skew. */
export function isFutureDay(isoDay: string, nowMs: number): boolean {
  return Date.parse(`${isoDay}T00:00:00Z`) > nowMs + FUTURE_SKEW_MS;
}

// ---------- ISO timestamps of the current millisecond ----------

/** Two- and three-digit zero-padded numbers, for isoTimestamp. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, value) => String(value).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, value) => String(value).padStart(3, '0'));
/** 10000-01-01T00:00:00Z: below it (and from 1970) every year has four digits. */
const YEAR_10000_MS = 253_402_300_800_000;

let isoMs = Number.NaN;
let iso = '';

/**
 * `new Date(ms).toISOString()`, for the stamps every answer carries (a verdict's evaluated_at, its decision
 * record's, the access line's time): one memo of the last millisecond shared by all of them, so a millisecond is
 * formatted once whoever asks, and the formatting done in integer arithmetic for 1970–9999. toISOString formats
 * through C++ snprintf: under callgrind it was 10 % of a cache-hot check's instructions, when the verdict, the
 * record and the access line each kept their own memo. Anything else (before 1970,
 * fractions, NaN) is toISOString's, errors included.
 */
export function isoTimestamp(ms: number): string {
  if (ms !== isoMs) {
    iso = ms >= 0 && ms < YEAR_10000_MS && Number.isInteger(ms) ? formatIso(ms) : new Date(ms).toISOString();
    isoMs = ms;
  }
  return iso;
}

/** A non-negative integer ms before year 10000 as ISO 8601 (civil-from-days, H. Hinnant's algorithm). */
function formatIso(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  const shifted = days + 719_468; // days from 0000-03-01: leap days fall at the end of each shifted year
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  return `${year}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[millis]}Z`;
}
