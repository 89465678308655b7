// Second half of `npm run build` (after tsc): copies what tsc does not emit but the compiled code reads at run
// time — every non-TypeScript file under src/ (Lua scripts, the OpenAPI document) — into dist/src/, and writes
// dist/package.json. That file marks dist/ as ESM on its own and carries the version src/version.ts reads from
// '../package.json' (which, from dist/src/version.js, is dist/package.json). Plain JavaScript, so building needs no tsx.
// Usage: node scripts/build-assets.mjs [OUT_DIR]   (default dist/, the outDir of tsconfig.build.json)
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('../', import.meta.url);
const out = pathToFileURL(`${resolve(process.argv[2] ?? new URL('dist', root).pathname)}/`);
cpSync(new URL('src/', root), new URL('src/', out), {
  recursive: true,
  filter: (source) => !source.endsWith('.ts'),
});
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
writeFileSync(new URL('package.json', out), `${JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module', private: true }, null, 2)}\n`);
