// Parity runner: composes every selection of a batch with the Playground's interpreter and
// prints what the Python side compares against macros.engine.resolve / macros.site.render.
//
//   node tests/js/parity.mjs EXPORT_EN.json EXPORT_KO.json SELECTIONS.json OUT.json
//
// SELECTIONS.json is a list of {hw, <dimension>: option, [avg_len], <axis>: option}. OUT.json gets
// one object per selection, in the same order (or {error} when the interpreter throws).
import { readFileSync, writeFileSync } from 'node:fs';
import { compose } from '../../overrides/assets/recipes/playground/resolve.js';
import { recordFields } from '../../overrides/assets/recipes/playground/records.js';
import { commandText, curlText, dockerText, footprintText, pythonText, routerText, text } from '../../overrides/assets/recipes/playground/render.js';

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
    const res = compose(en, sel);
    const resKo = compose(ko, sel);
    return {
      match: res.match, pd: res.pd,
      picks: Object.fromEntries(Object.entries(res.picks).filter(([, v]) => v !== null)),
      command_en: commandText(en, res),
      command_ko: commandText(ko, resKo),
      router: routerText(en, res),
      docker_en: dockerText(en, res),
      docker_ko: dockerText(ko, resKo),
      curl_en: curlText(en, res),
      curl_ko: curlText(ko, resKo),
      python_ko: pythonText(ko, resKo),
      status: res.status,
      cell_status: res.cell_status,
      sglang: res.sglang,
      calculations: res.calculations.map((c) => [c.id, c.pins, c.value, c.reason ? c.reason.id : null]),
      nodes: res.nodes,
      footprint_en: footprintText(en, res),
      footprint_ko: footprintText(ko, resKo),
      rules: [...new Set(res.diagnostics.map((d) => d.rule))].sort(),
      diagnostics_en: res.diagnostics.map((d) => [d.severity, d.rule, text(en, d.message)]),
      diagnostics_ko: resKo.diagnostics.map((d) => [d.severity, d.rule, text(ko, d.message)]),
      effective: res.effective.map((e) => [e.knob, e.value !== null ? e.value : text(en, e.value_text), e.source, e.because]),
      caveats: res.caveats.map((c) => [c.kind, c.flag, text(en, c.text)]).sort(),
      record_ko: res.record ? text(ko, { id: 'record.on', fields: recordFields(ko, resKo.record, text(ko, { id: 'record.unknown', fields: {} })) }) : null,
    };
  } catch (err) {
    return { error: String(err && err.stack || err) };
  }
});
const ms = Number(process.hrtime.bigint() - started) / 1e6;
writeFileSync(outPath, JSON.stringify({ ms, results: out }));
console.log(`composed ${selections.length} selections x 2 languages in ${ms.toFixed(0)} ms`);
