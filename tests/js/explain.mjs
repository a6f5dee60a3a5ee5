// What the Playground says a greyed option would need, for tests/playground/test_no_effect.py:
// for each selection, every option probeOptions greys, with explainOption's text in both
// languages (effects.explain).
//
//   node tests/js/explain.mjs EXPORT_EN.json EXPORT_KO.json SELECTIONS.json OUT.json
import { readFileSync, writeFileSync } from 'node:fs';
import { compose } from '../../overrides/assets/recipes/playground/resolve.js';
import { explainOption, probeOptions } from '../../overrides/assets/recipes/playground/effects.js';
import { text } from '../../overrides/assets/recipes/playground/render.js';
const [enPath, koPath, selPath, outPath] = process.argv.slice(2);
const en = JSON.parse(readFileSync(enPath, 'utf8'));
const ko = JSON.parse(readFileSync(koPath, 'utf8'));
const selections = JSON.parse(readFileSync(selPath, 'utf8'));
const out = selections.map((sel) => {
  const res = compose(en, sel), resKo = compose(ko, sel), probed = probeOptions(en, res), said = {};
  Object.keys(probed).sort().forEach((axis) => Object.keys(probed[axis]).sort().forEach((option) => {
    const why = explainOption(en, res, axis, option, probed[axis][option]);
    const whyKo = explainOption(ko, resKo, axis, option, probed[axis][option]);
    said[axis + '=' + option] = [text(en, why.reason, why.fields), text(ko, whyKo.reason, whyKo.fields)];
  }));
  return said;
});
writeFileSync(outPath, JSON.stringify(out));
