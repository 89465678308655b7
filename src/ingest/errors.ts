// One failure type for the whole ingest: it names the file, row, field and why, so the operator gets ONE line
// that says exactly what to fix. Anything else thrown during an ingest is a bug or an infrastructure failure.

export class IngestError extends Error {
  constructor(
    readonly file: string,
    readonly row: number | null,
    readonly field: string | null,
    readonly why: string,
  ) {
    const where = [file, row === null ? null : `row ${row}`, field === null ? null : `field ${field}`]
      .filter((part) => part !== null)
      .join(', ');
    super(`${where}: ${why}`);
    this.name = 'IngestError';
  }
}

/** A row whose value shows the whole file is wrong (units, layout): refuses the file, never set aside as one row. */
export class FileLevelError extends IngestError {}
