// Reading a roster CSV in the browser: RFC 4180 fields (quotes, doubled quotes, CRLF), a header naming the columns,
// and the rows that cannot be screened named before anything is sent.
export interface RosterRow { mc: string; dot?: string; ref?: string }

export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i += 1; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(cell); rows.push(row); row = []; cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) { row.push(cell); rows.push(row); }
  return rows.filter((r) => r.some((v) => v.trim() !== ''));
}

export function rosterRows(table: string[][]): { ok: RosterRow[]; rejected: Array<{ line: number; why: string }> } {
  const [header = [], ...lines] = table;
  const names = header.map((h) => h.trim().toLowerCase().replace(/^\ufeff/, ''));
  const mcAt = names.findIndex((n) => n === 'mc' || n === 'mc_number' || n === 'mc number');
  const dotAt = names.findIndex((n) => n === 'dot' || n === 'dot_number' || n === 'usdot');
  const refAt = names.findIndex((n) => n === 'ref' || n === 'reference');
  const ok: RosterRow[] = [];
  const rejected: Array<{ line: number; why: string }> = [];
  if (mcAt < 0) return { ok, rejected: [{ line: 1, why: 'the header has no mc column' }] };
  lines.forEach((cells, i) => {
    const mc = (cells[mcAt] ?? '').trim();
    const line = i + 2;
    if (mc === '') { rejected.push({ line, why: 'no MC number' }); return; }
    if (!/^(MC[-\s]?)?\d{1,8}$/i.test(mc)) { rejected.push({ line, why: `"${mc.slice(0, 40)}" is not an MC number` }); return; }
    const row: RosterRow = { mc };
    const dot = dotAt >= 0 ? (cells[dotAt] ?? '').trim() : '';
    const ref = refAt >= 0 ? (cells[refAt] ?? '').trim() : '';
    if (dot !== '') row.dot = dot;
    if (ref !== '') row.ref = ref.slice(0, 128);
    ok.push(row);
  });
  return { ok, rejected };
}
