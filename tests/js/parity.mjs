// Parity runner: composes every selection of a batch with the Playground's interpreter and
// prints what the Python side compares against macros.engine.resolve / macros.site.render.
//
//   node tests/js/parity.mjs EXPORT_EN.json EXPORT_KO.json SELECTIONS.json OUT.json
//
// SELECTIONS.json is a list of {hw, <dimension>: option, [avg_len], <axis>: option}. OUT.json gets
// one object per selection, in the same order (or {error} when the interpreter throws).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pg = require('../../overrides/assets/recipes/playground.js');

const [enPath, koPath, selPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: node tests/js/parity.mjs EXPORT_EN.json EXPORT_KO.json SELECTIONS.json OUT.json');
  process.exit(2);
}
const en = JSON.parse(readFileSync(enPath, 'utf8'));
const ko = JSON.parse(readFileSync(koPath, 'utf8'));
const selections = JSON.parse(readFileSync(selPath, 'utf8'));

const started = process.hrtime.bigint();
const out = selections.map((sel) => {
  try {
    const res = pg.compose(en, sel);
    const resKo = pg.compose(ko, sel);
    return {
      match: res.match, pd: res.pd,
      picks: Object.fromEntries(Object.entries(res.picks).filter(([, v]) => v !== null)),
      command_en: pg.commandText(en, res),
      command_ko: pg.commandText(ko, resKo),
      router: pg.routerText(en, res),
      docker_en: pg.dockerText(en, res),
      docker_ko: pg.dockerText(ko, resKo),
      curl_en: pg.curlText(en, res),
      curl_ko: pg.curlText(ko, resKo),
      python_ko: pg.pythonText(ko, resKo),
      status: res.status,
      cell_status: res.cell_status,
      sglang: res.sglang,
      calculations: res.calculations.map((c) => [c.id, c.pins, c.value, c.reason ? c.reason.id : null]),
      nodes: res.nodes,
      rules: [...new Set(res.diagnostics.map((d) => d.rule))].sort(),
      diagnostics_en: res.diagnostics.map((d) => [d.severity, d.rule, pg.text(en, d.message)]),
      diagnostics_ko: resKo.diagnostics.map((d) => [d.severity, d.rule, pg.text(ko, d.message)]),
      effective: res.effective.map((e) => [e.knob, e.value !== null ? e.value : pg.text(en, e.value_text), e.source, e.because]),
      caveats: res.caveats.map((c) => [c.kind, c.flag, pg.text(en, c.text)]).sort(),
    };
  } catch (err) {
    return { error: String(err && err.stack || err) };
  }
});
const ms = Number(process.hrtime.bigint() - started) / 1e6;
writeFileSync(outPath, JSON.stringify({ ms, results: out }));
console.log(`composed ${selections.length} selections x 2 languages in ${ms.toFixed(0)} ms`);
