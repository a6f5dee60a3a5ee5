// Which other options of a cell dimension give the very same command, for
// tests/playground/test_same_command.py: for each selection, effects.sameCommand
// (effects.same_command in Python).
//
//   node tests/js/same.mjs EXPORT.json SELECTIONS.json OUT.json
import { readFileSync, writeFileSync } from 'node:fs';
import { compose } from '../../overrides/assets/recipes/playground/resolve.js';
import { sameCommand } from '../../overrides/assets/recipes/playground/effects.js';
const [exportPath, selPath, outPath] = process.argv.slice(2);
const data = JSON.parse(readFileSync(exportPath, 'utf8'));
const selections = JSON.parse(readFileSync(selPath, 'utf8'));
writeFileSync(outPath, JSON.stringify(selections.map((sel) => sameCommand(data, compose(data, sel), sel))));
