// Deploy parity runner: the Playground's deployment files (playground/deploy.js) for a batch
// of selections, for the Python side to compare with macros.site.deploy.
//
//   node tests/js/deploy_parity.mjs EXPORT_EN.json EXPORT_KO.json SELECTIONS.json OUT.json
//
// OUT.json gets one object per selection, in the same order: {en: {format: [files]}, ko: …}
// (or {error} when the interpreter throws).
import { readFileSync, writeFileSync } from 'node:fs';
import { compose } from '../../overrides/assets/recipes/playground/resolve.js';
import { FORMATS, deployFiles } from '../../overrides/assets/recipes/playground/deploy.js';

const [enPath, koPath, selPath, outPath] = process.argv.slice(2);
const exports = { en: JSON.parse(readFileSync(enPath, 'utf8')), ko: JSON.parse(readFileSync(koPath, 'utf8')) };
const selections = JSON.parse(readFileSync(selPath, 'utf8'));
const out = selections.map((sel) => {
  try {
    const row = {};
    for (const lang of ['en', 'ko']) {
      const data = exports[lang], res = compose(data, sel);
      row[lang] = Object.fromEntries(FORMATS.map((fmt) => [fmt, deployFiles(data, res, fmt)]));
    }
    return row;
  } catch (err) {
    return { error: String(err && err.stack || err) };
  }
});
writeFileSync(outPath, JSON.stringify(out));
console.log(`deployment files for ${selections.length} selections x 2 languages`);
