// The final table an operator reads after an ingest: rows read and skipped per file, carriers built,
// flags by reason (under the default rule set, evaluated at ingest time).
import { formatGuardTable } from './change-guards.js';
import { describeRemoved } from './list-diff.js';
import type { IngestReport } from './run.js';

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')).join('\n');
}

const n = (value: number) => value.toLocaleString('en-US');

/** The source's as-of and where it came from (content, flag, file_name), so an operator sees what dates the data. */
function asOfCell(report: IngestReport, source: keyof IngestReport['meta']['sources']): string {
  const freshness = report.meta.sources[source];
  if (!freshness?.as_of) return '-';
  return `${freshness.as_of.slice(0, 10)}${freshness.as_of_from ? ` (${freshness.as_of_from})` : ''}`;
}

export function formatIngestReport(report: IngestReport): string {
  const files = table([
    ['source', 'rows read', 'rejected/skipped', 'as of (from)', 'why skipped'],
    ...report.files.map((file) => [
      file.source, n(file.stats.rows), n(file.stats.skippedTotal), asOfCell(report, file.source),
      [...file.stats.skipped].map(([reason, count]) => `${reason} ${n(count)}`).join('; '),
    ]),
  ]);
  const reasons = Object.entries(report.reasons).filter(([, count]) => (count ?? 0) > 0).sort(([, a], [, b]) => (b ?? 0) - (a ?? 0));
  const flags = table([['reason', 'carriers'], ...reasons.map(([reason, count]) => [reason, n(count ?? 0)])]);
  const absent = Object.entries(report.meta.sources).filter(([, source]) => !source?.present).map(([name]) => name);
  return [
    `snapshot ${report.version} is current (replaced ${report.previous ?? 'nothing'}); data_as_of ${report.meta.data_as_of}`,
    '',
    files,
    '',
    `carriers built: ${n(report.carriers)} (eligible under the default rules: ${n(report.eligible)}; ambiguous MC: ${n(report.ambiguous)})`,
    absent.length > 0 ? `sources not given (recorded as present: false): ${absent.join(', ')}` : 'all sources present',
    '',
    flags,
    '',
    'change guards (serving snapshot → this ingest):',
    formatGuardTable(report.guards),
    '',
    report.newlyEligible.count === 0 ? 'carriers moving to eligible: none'
      : [`carriers moving from blocked or review to eligible: ${report.newlyEligible.count}`,
        ...report.newlyEligible.carriers.slice(0, 100).map((carrier) => `  MC${carrier.mc}: was ${carrier.was.join(', ') || '(not readable)'}${carrier.removed ? `; list entries removed: ${carrier.removed.join('; ')}` : ''}`),
        ...(report.newlyEligible.count > 100 ? [`  … and ${report.newlyEligible.count - 100} more`] : [])].join('\n'),
    '',
    report.removedEntries.length === 0 ? 'watch-list entries removed since the serving snapshot: none'
      : [`watch-list entries removed since the serving snapshot: ${report.removedEntries.length}`,
        ...report.removedEntries.map((entry) => `  ${entry.file}: ${describeRemoved(entry)}`)].join('\n'),
    '',
    report.quarantined.length === 0 ? 'rows set aside as unreadable: none'
      : [`rows set aside as unreadable (their carriers answer carrier_record_unreadable): ${report.quarantined.length}`,
        ...report.quarantined.slice(0, 50).map((row) => `  ${row.file}, row ${row.row ?? '-'}, field ${row.field ?? '-'}: ${row.why}${row.mc !== null ? ` (MC ${row.mc})` : row.dot !== null ? ` (DOT ${row.dot})` : ''}`),
        ...(report.quarantined.length > 50 ? [`  … and ${report.quarantined.length - 50} more`] : [])].join('\n'),
    '',
    `took ${(report.durationMs / 1000).toFixed(1)} s; warnings: ${report.warnings.length}; old versions removed: ${report.removedVersions.length}`,
  ].join('\n');
}
