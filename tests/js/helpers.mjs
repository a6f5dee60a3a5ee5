// Runs the Playground's Python-semantics helpers over a batch of cases, for
// tests/test_playground_parity.py::test_helpers_match_python.
//
//   node tests/js/helpers.mjs CASES.json OUT.json
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pg = require('../../overrides/assets/recipes/playground.js');
const [casesPath, outPath] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(casesPath, 'utf8'));

function context(c) {  // a fixed context: null means "not known"
  return {
    value: (key) => (c.values && key in c.values ? c.values[key] : null),
    flags: () => c.flags,
    cellFlags: () => c.cell_flags,
    env: () => c.env,
  };
}

function safe(fn) {
  try { return { ok: fn() }; } catch (err) { return { error: true }; }
}

pg.setReaderPlaceholders(cases.placeholders || []);
const out = {
  fmt: cases.fmt.map((v) => pg.fmt(v)),
  quote: cases.quote.map((v) => pg.quote(v)),
  parse: cases.parse.map((t) => safe(() => pg.parseFlagText(t).map((f) => [f.name, f.values]))),
  fill: cases.fill.map((c) => safe(() => pg.fill(c.text, (name) => {
    if (!(name in c.names)) throw new Error('unknown ' + name);
    return c.names[name];
  }))),
  evaluate: cases.evaluate.map((c) => pg.evaluate(c.cond, context(c))),
  field: cases.field.map((v) => pg.calcField(v)),
  value: cases.value.map((c) => pg.valueProblem(c.flag, c.spec, c.values, c.added)),
};
writeFileSync(outPath, JSON.stringify(out));
