// Shared by the launchers in bin/. In a checkout (the .ts source present and the tsx dev dependency installed) it
// runs the TypeScript sources, so nothing runs older than the code beside it; in the image (or any install with
// --omit=dev) it runs the compiled JavaScript from `npm run build` (dist/), with no TypeScript tooling at run time.
import { existsSync } from 'node:fs';

async function tsxRegister() {
  try {
    return (await import('tsx/esm/api')).register;
  } catch {
    return null;
  }
}

/** @param {string} entry path under src/ without extension, e.g. 'cli/main' */
export async function launch(entry) {
  const source = new URL(`../src/${entry}.ts`, import.meta.url);
  const compiled = new URL(`../dist/src/${entry}.js`, import.meta.url);
  const register = existsSync(source) ? await tsxRegister() : null;
  if (register) {
    register();
    await import(source.href);
  } else if (existsSync(compiled)) {
    await import(compiled.href);
  } else {
    process.stderr.write(`carrier-eligibility: neither dist/src/${entry}.js (run \`npm run build\`) nor tsx to run src/${entry}.ts\n`);
    process.exit(1);
  }
}
