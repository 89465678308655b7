// The evaluation sets the matching benchmark reports, each in a tune half and a held-out half:
//   - real FMCSA carrier names (bench/match/data), innocent: any flag is a false alarm; a fresh set of them too;
//   - the independent generator's carrier names (bench/match/independent), innocent by construction;
//   - the independent planted variants of listed parties (bench/match/independent), each must be flagged.
// Real names are split by FNV-1a of the legal name; the independent files come already split.
import { readFileSync } from 'node:fs';

export type Half = 'tune' | 'heldout';
export const HALVES: readonly Half[] = ['tune', 'heldout'];

export interface InnocentCarrier { legal: string; dba: string | null }

export interface PlantedVariant {
  /** What the carrier registered. */
  name: string;
  list: 'ofac_sdn' | 'sam';
  uid: string;
  kind: 'entity' | 'individual' | 'firm';
  listed: string;
  variation: string;
}

const DATA = 'bench/match/data';
const INDEPENDENT = 'bench/match/independent';

/** FNV-1a, 32 bits: a stable split that does not depend on file order. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter((line) => line.trim() !== '');

export function realCarriers(half: Half): InnocentCarrier[] {
  return lines(`${DATA}/fmcsa-census-names.tsv`)
    .map((line) => { const [legal = '', dba = ''] = line.split('\t'); return { legal: legal.trim(), dba: dba.trim() || null }; })
    .filter((carrier) => carrier.legal !== '' && (fnv1a(carrier.legal) % 2 === 0) === (half === 'tune'));
}

/** The further sets of real carrier names from another sample (bench/match/data/README.md), each reported on its own. */
export const FRESH_SETS = ['fresh', 'fresh2'] as const;

export function freshRealCarriers(set: typeof FRESH_SETS[number]): InnocentCarrier[] {
  return lines(`${DATA}/fmcsa-census-names-${set}.tsv`)
    .map((line) => { const [legal = '', dba = ''] = line.split('\t'); return { legal: legal.trim(), dba: dba.trim() || null }; })
    .filter((carrier) => carrier.legal !== '');
}

export function generatedCarriers(half: Half): InnocentCarrier[] {
  return lines(`${INDEPENDENT}/generated-${half}.txt`).map((legal) => ({ legal: legal.trim(), dba: null }));
}

interface PlantedLine { name: string; list: string; uid: string; entry_kind: string; listed_name: string; variation: string }

export function plantedVariants(half: Half): PlantedVariant[] {
  return lines(`${INDEPENDENT}/planted-${half}.jsonl`).map((line) => {
    const raw = JSON.parse(line) as PlantedLine;
    return {
      name: raw.name, list: raw.list === 'sam' ? 'sam' : 'ofac_sdn', uid: raw.uid,
      kind: raw.entry_kind === 'individual' ? 'individual' : raw.entry_kind === 'firm' ? 'firm' : 'entity',
      listed: raw.listed_name, variation: raw.variation,
    };
  });
}
