// Which options the Playground greys as having no effect, for tests/test_no_effect.py:
// for each selection, the options probeOptions greys with their reason (effects.probe_options).
//
//   node tests/js/idle.mjs EXPORT.json SELECTIONS.json OUT.json
import { readFileSync, writeFileSync } from 'node:fs';
import { compose } from '../../overrides/assets/recipes/playground/resolve.js';
import { probeOptions } from '../../overrides/assets/recipes/playground/effects.js';
const [exportPath, selPath, outPath] = process.argv.slice(2);
const data = JSON.parse(readFileSync(exportPath, 'utf8'));
const selections = JSON.parse(readFileSync(selPath, 'utf8'));
const out = selections.map((sel) => {
  const res = compose(data, sel);
  return probeOptions(data, res);
});
writeFileSync(outPath, JSON.stringify(out));
