// Runs the Playground's Python-semantics helpers over a batch of cases, for
// tests/test_playground_parity.py::test_helpers_match_python.
//
//   node tests/js/helpers.mjs CASES.json OUT.json
import { readFileSync, writeFileSync } from 'node:fs';
import { calcField, fmt } from '../../overrides/assets/recipes/playground/calculator.js';
import { evaluate, fill } from '../../overrides/assets/recipes/playground/conditions.js';
import { parseFlagText, quote, setReaderPlaceholders } from '../../overrides/assets/recipes/playground/flags.js';
import { valueProblem } from '../../overrides/assets/recipes/playground/check.js';
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

setReaderPlaceholders(cases.placeholders || []);
const out = {
  fmt: cases.fmt.map((v) => fmt(v)),
  quote: cases.quote.map((v) => quote(v)),
  parse: cases.parse.map((t) => safe(() => parseFlagText(t).map((f) => [f.name, f.values]))),
  fill: cases.fill.map((c) => safe(() => fill(c.text, (name) => {
    if (!(name in c.names)) throw new Error('unknown ' + name);
    return c.names[name];
  }))),
  evaluate: cases.evaluate.map((c) => evaluate(c.cond, context(c))),
  field: cases.field.map((v) => calcField(v)),
  value: cases.value.map((c) => valueProblem(c.flag, c.spec, c.values, c.added)),
};
writeFileSync(outPath, JSON.stringify(out));
