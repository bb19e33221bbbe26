// Checks assets/chat/editors/importmap.json against what the editor and renderer modules really
// import: walks from each module through node_modules (here) the way a browser with that import
// map would, and reports every bare specifier the map lacks, every mapped file that is missing,
// and every file reached that looks like CommonJS (a browser cannot run those as modules).
//
//   node check-importmap.mjs           check; exit status 1 on any problem
//   node check-importmap.mjs --write   rewrite the map from the packages' own package.json
//
// The map is derived, not hand-written, so that a version bump cannot leave a stale path: the
// resolver follows "exports" with the conditions a browser build answers to, then "module",
// then "main", as bundlers do.
import { readFileSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { init, parse } from "es-module-lexer";

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, "node_modules");
const editors = resolve(here, "../../assets/chat/editors");
const mapFile = join(editors, "importmap.json");
// The URL prefix under which the local chat page serves `modules`.
const served = "/modules/";

// Conditions a browser ES module answers to, in the order Node's resolver would try them when a
// package lists several: production builds (Lexical's default entry reads `process.env`, which a
// browser lacks), then browser, then ESM.
const conditions = ["production", "browser", "import", "module", "default"];

// Specifiers the modules import by a familiar name while the files come from another package:
// the npm `highlight.js` package's ESM entries only wrap its CommonJS build, so the browser gets
// the ESM bundle of the same version from @highlightjs/cdn-assets.
const aliases = { "highlight.js": "@highlightjs/cdn-assets/es/highlight.min.js" };

function splitSpecifier(spec) {
  const parts = spec.split("/");
  const n = spec.startsWith("@") ? 2 : 1;
  return { name: parts.slice(0, n).join("/"), sub: ["."].concat(parts.slice(n)).join("/") };
}

function pickTarget(target) {
  if (typeof target === "string") return target;
  if (Array.isArray(target)) return target.map(pickTarget).find(Boolean) || null;
  if (target && typeof target === "object") {
    for (const [key, value] of Object.entries(target)) {
      if (conditions.includes(key)) {
        const found = pickTarget(value);
        if (found) return found;
      }
    }
  }
  return null;
}

// The file (path inside node_modules) a bare specifier names, or null.
function resolveBare(spec) {
  if (aliases[spec]) return aliases[spec];
  const { name, sub } = splitSpecifier(spec);
  const pkgFile = join(modules, name, "package.json");
  if (!existsSync(pkgFile)) return null;
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
  let exp = pkg.exports;
  if (exp !== undefined) {
    // Conditions at the top level stand for the package's main entry.
    if (typeof exp === "string" || Array.isArray(exp) || !Object.keys(exp).some((k) => k.startsWith("."))) {
      exp = { ".": exp };
    }
    let target = sub in exp ? pickTarget(exp[sub]) : null;
    if (!target) {
      for (const [pattern, value] of Object.entries(exp)) {
        const star = pattern.indexOf("*");
        if (star < 0) continue;
        const [pre, post] = [pattern.slice(0, star), pattern.slice(star + 1)];
        if (sub.startsWith(pre) && sub.endsWith(post) && sub.length >= pattern.length - 1) {
          const middle = sub.slice(pre.length, sub.length - post.length);
          target = pickTarget(value)?.replaceAll("*", middle) || null;
          if (target) break;
        }
      }
    }
    return target ? join(name, target) : null;
  }
  if (sub === ".") return join(name, pkg.module || pkg.main || "index.js");
  return join(name, sub);
}

// Every specifier a module's source imports or re-exports, statically or dynamically with a
// literal: es-module-lexer reads real syntax, so words in comments and strings ("import", "from")
// are not mistaken for imports. A dynamic import of a computed name has no specifier and is skipped.
function specifiers(source) {
  const [imports] = parse(source);
  return [...new Set(imports.map((i) => i.specifier).filter((s) => typeof s === "string"))];
}

// A file the lexer finds neither imports nor exports in, that uses require or module.exports.
function looksCommonJs(source) {
  const [imports, exports, , hasModuleSyntax] = parse(source);
  const esm = hasModuleSyntax ?? (imports.length > 0 || exports.length > 0);
  return !esm && /\brequire\s*\(|\bmodule\.exports\b|\bexports\.\w+\s*=/.test(source);
}

// Walks from the editor modules; `lookup(spec)` gives a path inside node_modules or null.
function walk(lookup) {
  const problems = [];
  const used = new Map(); // bare specifier -> path inside node_modules
  const seen = new Set();
  const queue = readdirSync(editors).filter((f) => f.endsWith(".js")).map((f) => join(editors, f));
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    if (!existsSync(file)) {
      problems.push(`missing file ${relative(here, file)}`);
      continue;
    }
    const source = readFileSync(file, "utf8");
    if (looksCommonJs(source)) problems.push(`CommonJS, not an ES module: ${relative(here, file)}`);
    for (const spec of specifiers(source)) {
      if (/^(?:\.{1,2})?\//.test(spec) && !spec.startsWith(served)) {
        queue.push(spec.startsWith("/") ? join(editors, "..", spec) : resolve(dirname(file), spec));
      } else if (spec.startsWith(served)) {
        queue.push(join(modules, spec.slice(served.length)));
      } else if (/^[a-z]+:/.test(spec)) {
        problems.push(`URL import ${spec} in ${relative(here, file)}`);
      } else {
        const path = lookup(spec);
        if (!path) {
          problems.push(`bare specifier "${spec}" (imported by ${relative(here, file)}) is not mapped`);
          continue;
        }
        used.set(spec, path);
        queue.push(join(modules, path));
      }
    }
  }
  return { problems, used, files: seen.size };
}

await init;

if (process.argv.includes("--write")) {
  const { problems, used } = walk(resolveBare);
  const imports = Object.fromEntries(
    [...used].sort(([a], [b]) => a.localeCompare(b)).map(([spec, path]) => [spec, served + path]),
  );
  writeFileSync(mapFile, JSON.stringify({ imports }, null, 2) + "\n");
  console.log(`wrote ${relative(here, mapFile)}: ${used.size} specifiers`);
  for (const p of problems) console.log("problem: " + p);
  process.exit(problems.length ? 1 : 0);
} else {
  const { imports } = JSON.parse(readFileSync(mapFile, "utf8"));
  const lookup = (spec) => (imports[spec]?.startsWith(served) ? imports[spec].slice(served.length) : null);
  const { problems, used, files } = walk(lookup);
  for (const spec of Object.keys(imports)) {
    if (!used.has(spec)) problems.push(`"${spec}" is mapped but nothing imports it`);
    if (imports[spec] !== served + resolveBare(spec)) {
      problems.push(`"${spec}" maps to ${imports[spec]}, its package says ${served}${resolveBare(spec)}`);
    }
  }
  for (const p of problems) console.log("problem: " + p);
  console.log(`${files} files walked, ${used.size} bare specifiers, ${problems.length} problems`);
  process.exit(problems.length ? 1 : 0);
}
