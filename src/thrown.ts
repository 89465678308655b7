// What a caught value says, without casting it: anything can be thrown, and a system error's code is only there
// when Node put it there.

/** The message of a caught value (an Error's message, else its string form). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The system error code of a caught value (ENOENT, EEXIST, EPERM, …), or undefined when it has none. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
