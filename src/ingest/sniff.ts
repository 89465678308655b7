// What a file really is, from its first bytes: every source is a plain-text CSV, so a compressed archive, a
// UTF-16 export, an HTML error page (Socrata's maintenance page answers 200) or a JSON API answer saved under a
// .csv name is refused by name before any loader tries to read it as rows.
import { open } from 'node:fs/promises';

const SNIFF_BYTES = 512;

/** The kind of a file that is not a plain-text CSV, or null when it may be one. */
export function sniffKind(head: Buffer): string | null {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'a gzip archive';
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5 || head[2] === 7)) return 'a ZIP archive';
  if (head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))) return 'UTF-16 text';
  // UTF-16 without a byte-order mark: every other byte of ASCII text is NUL.
  const sample = head.subarray(0, Math.min(head.length, 64));
  let nuls = 0;
  for (const byte of sample) if (byte === 0) nuls += 1;
  if (sample.length >= 8 && nuls * 3 >= sample.length) return 'UTF-16 text';
  if (nuls > 0) return 'a binary file';
  const text = head.toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart();
  if (/^<(!doctype\s+html|html|head|body|\?xml|title)\b/i.test(text)) return 'an HTML page';
  if (/^[[{]/.test(text) && /^[[{]\s*["{[\]]/.test(text)) return 'JSON';
  return null;
}

/** Reads the first bytes of a file and names what it is when it cannot be a CSV. */
export async function sniffFile(path: string): Promise<string | null> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
    return sniffKind(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}
