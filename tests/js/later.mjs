// The export's two parts (macros/site/export.py split_export, playground/later.js), for
// tests/playground/test_export_split.py: the mounted part alone composes every cell, with
// its greying probes and same-command probes, exactly as the whole export does; a release
// only the later part holds asks for it (isLater), and once it is joined in (addLater) the
// result is the whole export's.
//
//   node tests/js/later.mjs NOW.json LATER.json WHOLE.json OUT.json
import { readFileSync, writeFileSync } from 'node:fs';
import { compose } from '../../overrides/assets/recipes/playground/resolve.js';
import { probeOptions, sameCommand } from '../../overrides/assets/recipes/playground/effects.js';
import { addLater, isLater } from '../../overrides/assets/recipes/playground/later.js';
import { FORMATS, deployFiles } from '../../overrides/assets/recipes/playground/deploy.js';
import { commandText, curlText, dockerText, footprintText, pythonText, routerText, text } from '../../overrides/assets/recipes/playground/render.js';

const [nowPath, laterPath, wholePath, outPath] = process.argv.slice(2);
const read = (p) => JSON.parse(readFileSync(p, 'utf8'));
const now = read(nowPath), later = read(laterPath), whole = read(wholePath);

// every text a result names, in words: each {id, fields} and each string that is a text id of
// the whole export (a missing text reads as its id)
function said(data, value, out = []) {
  if (Array.isArray(value)) value.forEach((v) => said(data, v, out));
  else if (value && typeof value === 'object') {
    if (typeof value.id === 'string' && value.fields && typeof value.fields === 'object') out.push(text(data, value));
    Object.values(value).forEach((v) => said(data, v, out));
  } else if (typeof value === 'string' && Object.hasOwn(whole.text, value)) out.push(text(data, value));
  return out;
}

function run(data, sel) {  // what a click shows, and what the page works out after it
  const res = compose(data, sel), probes = probeOptions(data, res);
  const printed = [commandText, routerText, dockerText, curlText, pythonText, footprintText]
    .map((f) => f(data, res));
  return JSON.stringify([res, printed, said(data, res), said(data, probes), probes,
                         sameCommand(data, res, sel)]);
}

function attempt(data, sel) {
  try { return { result: run(data, sel) }; } catch (e) {
    if (isLater(e)) return { later: true };
    return { error: String(e && e.stack || e) };
  }
}

const cells = whole.cells.map((cell) => {
  const got = attempt(now, cell.match);
  return { match: cell.match, later: !!got.later, error: got.error || null,
           same: got.result !== undefined && got.result === run(whole, cell.match) };
});

const first = whole.cells[0].match;
const releases = Object.keys(later.release_catalogs || {}).map((release) => {
  const sel = { ...first, sglang: release }, data = read(nowPath);
  const before = attempt(data, sel);
  addLater(data, read(laterPath));
  const after = attempt(data, sel);
  return { release, asked: !!before.later, error: after.error || null,
           same: after.result !== undefined && after.result === run(whole, sel) };
});

// the deployment files, with the later part joined in, as from the whole export
const joined = addLater(read(nowPath), later);
const res = compose(joined, first), wholeRes = compose(whole, first);
const deploy = FORMATS.every((fmt) =>
  JSON.stringify(deployFiles(joined, res, fmt)) === JSON.stringify(deployFiles(whole, wholeRes, fmt)));

writeFileSync(outPath, JSON.stringify({ cells, releases, deploy, left: 'later' in joined }));
