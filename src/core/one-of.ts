// Narrows a string to one of a closed list of literals (scopes, statuses, reason codes) without a cast:
// `includes` on a literal tuple only takes its own members, so callers used to widen the tuple with `as`.

/** True when `value` is one of `values`, which then types it as that union. */
export function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return values.some((candidate) => candidate === value);
}
