/* Playground: what playground.js needs to mount a Playground, as one import (one request for
 * the page's modules, one chunk once the site's build has bundled them). DOM.
 */
export { parseHash } from './urlstate.js';
export { clear, el } from './dom.js';
export { Playground } from './ui.js';
export { quiet } from './later.js';
export { mountDeploy } from './deployui.js';
