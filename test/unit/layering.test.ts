// The layering rules the README's map states ("Where each part lives"), checked on every file under src/ with
// TypeScript's own import scanner (type-only imports and re-exports count: a type cycle is still a cycle for a
// reader). Each rule names the files that break it, so a failure says what to move.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

/** Folders under src/ that are features: each has an index.ts, its public module. */
const FEATURES = ['eligibility', 'decisions', 'batch', 'monitoring', 'policy', 'console', 'overrides', 'identity'];
/** Entry points: the composition root and what starts it; the CLI. */
const COMPOSITION_ROOT = 'app.ts';
const MAY_IMPORT_ROOT = new Set(['main.ts']);
/** The HTTP adapter: the only code that touches uWebSockets.js. */
const HTTP_ADAPTER = 'http/';

interface SourceFile {
  /** Relative to src/, with forward slashes. */
  file: string;
  /** Relative imports resolved to files under src/ (relative to src/). */
  local: string[];
  /** Package imports (bare specifiers), node: built-ins included. */
  packages: string[];
  /** Named bindings imported from core/decide.ts. */
  decideNames: string[];
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (name.endsWith('.ts')) out.push(full);
  }
  return out;
}

function scan(): SourceFile[] {
  const files = walk(SRC);
  const known = new Set(files.map((file) => path.relative(SRC, file).split(path.sep).join('/')));
  return files.map((full) => {
    const text = readFileSync(full, 'utf8');
    const file = path.relative(SRC, full).split(path.sep).join('/');
    const local: string[] = [];
    const packages: string[] = [];
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) {
        packages.push(fileName);
        continue;
      }
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), fileName)).replace(/\.js$/, '.ts');
      if (known.has(target)) local.push(target);
    }
    const decideNames: string[] = [];
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false);
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const spec = statement.moduleSpecifier.text;
      if (!spec.startsWith('.') || path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)) !== 'core/decide.js') continue;
      const bindings = statement.importClause?.namedBindings;
      if (statement.importClause?.isTypeOnly || !bindings || !ts.isNamedImports(bindings)) continue;
      for (const element of bindings.elements) if (!element.isTypeOnly) decideNames.push((element.propertyName ?? element.name).text);
    }
    return { file, local, packages, decideNames };
  });
}

const sources = scan();
const featureOf = (file: string): string | null => {
  const top = file.split('/')[0] ?? '';
  return file.includes('/') && FEATURES.includes(top) ? top : null;
};

/** Every import cycle between files (strongly connected components of more than one file, or a file importing itself). */
function cycles(): string[][] {
  const graph = new Map(sources.map((source) => [source.file, source.local]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const violations = (rule: (source: SourceFile) => string[]): string[] => sources.flatMap(rule);

describe('layering (the README map\'s rules)', () => {
  it('scans the whole tree', () => {
    expect(sources.length).toBeGreaterThan(50);
    expect(sources.some((source) => source.file === COMPOSITION_ROOT)).toBe(true);
  });

  it('has no import cycle between files', () => {
    expect(cycles()).toEqual([]);
  });

  it('core imports only core and zod', () => {
    expect(violations(({ file, local, packages }) => (file.startsWith('core/')
      ? [...local.filter((target) => !target.startsWith('core/')), ...packages.filter((name) => name !== 'zod')].map((target) => `${file} -> ${target}`)
      : []))).toEqual([]);
  });

  it('only the HTTP adapter imports uWebSockets.js', () => {
    expect(violations(({ file, packages }) => (packages.some((name) => /uwebsockets/i.test(name)) && !file.startsWith(HTTP_ADAPTER) ? [file] : []))).toEqual([]);
  });

  it('nothing but main.ts imports the composition root', () => {
    expect(violations(({ file, local }) => (local.includes(COMPOSITION_ROOT) && !MAY_IMPORT_ROOT.has(file) ? [file] : []))).toEqual([]);
  });

  it('every feature has a public module, and code outside a feature imports only that', () => {
    for (const feature of FEATURES) expect(sources.some((source) => source.file === `${feature}/index.ts`), `${feature}/index.ts`).toBe(true);
    expect(violations(({ file, local }) => local.flatMap((target) => {
      const owner = featureOf(target);
      if (owner === null || featureOf(file) === owner || target === `${owner}/index.ts`) return [];
      return [`${file} -> ${target} (use ${owner}/index.ts)`];
    }))).toEqual([]);
  });

  it('shared code (core, http, redis, store, state, auth, ...) imports no feature', () => {
    expect(violations(({ file, local }) => {
      if (featureOf(file) !== null || file === COMPOSITION_ROOT || file.startsWith('cli/')) return [];
      return local.filter((target) => featureOf(target) !== null).map((target) => `${file} -> ${target}`);
    })).toEqual([]);
  });

  it('decides only through assess(): outside core, decide() is not imported (its evidence-free half only by the verdict templates)', () => {
    const deciding = ['decide', 'decideWithoutEvidence', 'withEvidence'];
    const allowed: Record<string, string[]> = { 'eligibility/verdict-bytes.ts': ['decideWithoutEvidence', 'withEvidence'] };
    expect(violations(({ file, decideNames }) => (file.startsWith('core/')
      ? []
      : decideNames.filter((name) => deciding.includes(name) && !(allowed[file] ?? []).includes(name)).map((name) => `${file} imports ${name}`)))).toEqual([]);
  });
});
