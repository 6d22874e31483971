#!/usr/bin/env node
// Import graph of src/: fails on an import cycle between files, or on two feature modules
// (src/modules/<a>, src/modules/<b>) importing each other. Type-only imports count too: a pair of
// modules that need each other's types is still one module split in two.
// Usage: node scripts/import-graph.mjs [--list]   (--list prints every module -> module edge)
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const src = path.join(root, "src");

export function sourceFiles(dir = src) {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(p) && !p.endsWith(".d.ts") ? [p] : [];
  });
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s(?:[^'"`;]*?\sfrom\s)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function resolve(from, spec) {
  if (!spec.startsWith(".")) return null;
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`${path.relative(root, from)}: cannot resolve ${spec}`);
}

export function importGraph() {
  const graph = new Map();
  for (const file of sourceFiles()) {
    const text = readFileSync(file, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    const deps = new Set();
    for (const m of text.matchAll(IMPORT)) {
      const target = resolve(file, m[1] ?? m[2]);
      if (target) deps.add(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** Strongly connected components with more than one file (or a file importing itself): Tarjan. */
export function cycles(graph) {
  let index = 0;
  const idx = new Map(),
    low = new Map(),
    onStack = new Set(),
    stack = [],
    found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || graph.get(v)?.has(v)) found.push(scc.map((f) => path.relative(root, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

const moduleOf = (file) => /src\/modules\/([^/]+)\//.exec(file)?.[1] ?? null;

/** module -> modules it imports, with one example file edge each */
export function moduleEdges(graph) {
  const edges = new Map();
  for (const [from, deps] of graph) {
    const a = moduleOf(from);
    if (!a) continue;
    for (const to of deps) {
      const b = moduleOf(to);
      if (!b || a === b) continue;
      const key = `${a} -> ${b}`;
      if (!edges.has(key)) edges.set(key, `${path.relative(root, from)} -> ${path.relative(root, to)}`);
    }
  }
  return edges;
}

export function mutualPairs(graph) {
  const edges = moduleEdges(graph);
  const pairs = [];
  for (const key of edges.keys()) {
    const [a, b] = key.split(" -> ");
    if (a < b && edges.has(`${b} -> ${a}`))
      pairs.push({ pair: `${a} <-> ${b}`, there: edges.get(key), back: edges.get(`${b} -> ${a}`) });
  }
  return pairs;
}

/** Imports for side effects only (`import "./x"`): a module that registers itself on import. None in src/. */
export function sideEffectImports(files = sourceFiles()) {
  return files.flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .flatMap((line, i) =>
        /^\s*import\s+["'][^"']+["']/.test(line) ? [`${path.relative(root, f)}:${i + 1}: ${line.trim()}`] : [],
      ),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const graph = importGraph();
  if (process.argv.includes("--list")) for (const [k, v] of moduleEdges(graph)) console.log(`${k}    (${v})`);
  const found = cycles(graph);
  const pairs = mutualPairs(graph);
  for (const c of found) console.log(`cycle: ${c.join(" -> ")}`);
  for (const p of pairs) console.log(`pair: ${p.pair}\n  ${p.there}\n  ${p.back}`);
  const bare = sideEffectImports();
  for (const b of bare) console.log(`side-effect import: ${b}`);
  console.log(
    `${graph.size} files, ${found.length} cycles, ${pairs.length} mutual module pairs, ${bare.length} side-effect imports`,
  );
  process.exit(found.length || pairs.length || bare.length ? 1 : 0);
}
