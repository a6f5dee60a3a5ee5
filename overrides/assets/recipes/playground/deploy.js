/* Playground: a result as deployment files (mirrors macros/site/servers.py, deploy.py, kube.py).
 *
 * Owns, byte for byte as the Python writes them: SGLang's --config YAML and its env file, the
 * Docker Compose file and the Kubernetes manifests of a result, with the placeholders each
 * leaves to fill (deployFiles). The PD pair of a PD result is composed here from the same
 * selection (compose). Pure: no DOM; Node imports it for the parity test
 * (tests/js/deploy_parity.mjs, tests/playground/test_deploy_parity.py).
 */
import { catalogOf } from './releases.js';
import { compose } from './resolve.js';
import { text, wrap } from './render.js';
import { shlexSplit, flagText } from './flags.js';
import { list } from './python.js';

export var FORMATS = ['config', 'compose', 'k8s'];
var PLAIN = /^(?:[A-Za-z_/]|--?[A-Za-z])[A-Za-z0-9_./@+-]*$/;
var KEYWORDS = ['y', 'n', 'yes', 'no', 'on', 'off', 'true', 'false', 'null'];

// --- one YAML style (servers.py) ---------------------------------------------------------------
function Raw(s) { this.s = s; }
function scalar(v) {
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'number') return String(v);
  if (v instanceof Raw) return v.s;
  if (PLAIN.test(v) && KEYWORDS.indexOf(v.toLowerCase()) < 0) return v;
  return JSON.stringify(v);  // json.dumps(v, ensure_ascii=False): a YAML double-quoted scalar
}
function isMap(v) { return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Raw); }
function filled(v) { return Array.isArray(v) ? v.length > 0 : isMap(v) && Object.keys(v).length > 0; }
function flow(v) { return isMap(v) ? '{}' : Array.isArray(v) ? '[]' : scalar(v); }
export function yamlLines(value, indent) {
  indent = indent || '';
  var lines = [];
  if (isMap(value)) {
    Object.keys(value).forEach(function (key) {
      var item = value[key];
      if (filled(item)) {
        lines.push(indent + key + ':');
        lines = lines.concat(yamlLines(item, indent + (Array.isArray(item) ? '' : '  ')));
      } else lines.push(indent + key + ': ' + flow(item));
    });
  } else {
    value.forEach(function (item) {
      if (isMap(item) && filled(item)) {
        var inner = yamlLines(item, indent + '  ');
        lines.push(indent + '- ' + inner[0].slice(indent.length + 2));
        lines = lines.concat(inner.slice(1));
      } else lines.push(indent + '- ' + flow(item));
    });
  }
  return lines;
}
function commentLines(texts) {
  var out = [];
  texts.forEach(function (t) {
    t.split(/\r\n|\r|\n/).forEach(function (line) {
      wrap(line).forEach(function (part) { out.push(('# ' + part).replace(/\s+$/, '')); });
    });
  });
  return out;
}
function leftTokens(data, txt) {
  var out = [];
  list(data.reader_values).forEach(function (v) {
    v.tokens.forEach(function (t) { if (txt.indexOf(t) >= 0) out.push(t); });
  });
  return out;
}
function file(data, name, head, body) {
  var txt = head.concat(body).join('\n') + '\n';
  return { name: name, text: txt, placeholders: leftTokens(data, txt) };
}

// --- the servers of a selection (servers.py) ---------------------------------------------------
function whenKeys(node, out) {  // conditions: the keys a condition reads
  if (!Array.isArray(node)) return out;
  if (node[0] === 'key') out.push(node[1]);
  else if (node[0] === 'all' || node[0] === 'any') node[1].forEach(function (n) { whenKeys(n, out); });
  else if (node[0] === 'not') whenKeys(node[1], out);
  return out;
}
function selectionOf(res) {
  var flat = {}, k;
  for (k in res.match) flat[k] = res.match[k];
  for (k in res.picks) if (res.picks[k] !== null && res.picks[k] !== undefined) flat[k] = res.picks[k];
  if (res.avg_len !== null && res.avg_len !== undefined) flat.avg_len = res.avg_len;
  if (res.sglang !== res.sglang_default) flat.sglang = res.sglang;  // servers.chosen_release
  return flat;
}
function releaseTexts(data, res) {  // servers.release_texts
  return res.caveats.filter(function (c) { return c.kind === 'release' && !c.flag; })
    .map(function (c) { return text(data, c.text); });
}
export function pdPair(data, res) {
  if (!res.pd) return {};
  var other = res.pd === 'prefill' ? 'decode' : 'prefill', pair = {}, flat = selectionOf(res);
  pair[res.pd] = res;
  var options = {};
  data.model.dimensions.forEach(function (d) { options[d.id] = d.options.map(function (o) { return o.id; }); });
  data.axes.forEach(function (a) { options[a.id] = a.options.map(function (o) { return o.id; }); });
  var keys = whenKeys(data.model.pd[other].when, []).filter(function (k, i, a) { return a.indexOf(k) === i; }).sort();
  for (var i = 0; i < keys.length; i++) {
    var opts = options[keys[i]] || [];
    for (var j = 0; j < opts.length; j++) {
      var sel = {}, k;
      for (k in flat) sel[k] = flat[k];
      sel[keys[i]] = opts[j];
      var found = compose(data, sel);
      if (found.pd === other && found.hw === res.hw) {
        pair[other] = found;
        return { prefill: pair.prefill, decode: pair.decode };
      }
    }
  }
  return pair;
}
function groups(data, res) {
  if (!res.pd) return [{ role: 'server', res: res }];
  var pair = pdPair(data, res);
  return ['prefill', 'decode'].filter(function (r) { return pair[r]; }).map(function (r) { return { role: r, res: pair[r] }; });
}
function fills(data, role, node, target) {
  var out = {};
  list(data.reader_values).forEach(function (v) {
    var put = Object.prototype.hasOwnProperty.call(target, v.deploy || '') ? target[v.deploy || ''] : null;
    if (v.deploy === 'rank' && node !== null) put = String(node);
    if (v.deploy === 'leader' && Object.prototype.hasOwnProperty.call(target, role)) put = target[role];
    if (put !== null && put !== undefined) v.tokens.forEach(function (t) { out[t] = put; });
  });
  return out;
}
function fill(s, table) {
  Object.keys(table).forEach(function (t) { s = s.split(t).join(table[t]); });
  return s;
}
function serverWords(res) {
  var words = shlexSplit(res.program);
  res.flags.forEach(function (f) { words = words.concat([f.name], f.values); });
  return words;
}
function routerWords(data, res) {
  var words = shlexSplit(data.model.pd.router.program);
  res.router.forEach(function (g) { g.forEach(function (f) { words = words.concat([f.name], f.values); }); });
  return words;
}
function envPairs(res) {
  return res.env.map(function (e) { var i = e.indexOf('='); return [e.slice(0, i), e.slice(i + 1)]; });
}
function platformOf(data, hw) { return data.platforms.filter(function (p) { return p.id === hw; })[0]; }
function resourceOf(data, res) {  // servers.resource: the platform's own, else its vendor's
  var p = platformOf(data, res.hw);
  return p.resource || data.containers.vendors[p.vendor].resource;
}
export function devices(data, res) {
  var p = platformOf(data, res.hw);
  return p.gpus_per_node * (p.devices_per_card || 1);
}
function serverPort(data, res) {  // runmodes.server_port
  var names = list((data.catalog.roles || {}).port);
  var given = res.flags.filter(function (f) { return names.indexOf(f.name) >= 0 && f.values.length && f.values[0]; });
  return given.length ? given[given.length - 1].values[0] : String(data.catalog.flags[names[0]]['default']);
}
function hostNetwork(data, res) {
  var run = data.containers.vendors[platformOf(data, res.hw).vendor];
  return res.nodes > 1 || !!res.pd || !!run.host_network;
}
function readOptions(words, runFlags) {  // docker.read, the options only
  var out = [], i = 0;
  while (i < words.length) {
    var w = words[i];
    if (w.charAt(0) !== '-' || w === '-') break;
    var eq = w.indexOf('='), name = eq >= 0 ? w.slice(0, eq) : w;
    if (Object.prototype.hasOwnProperty.call(runFlags, name)) {
      if (eq >= 0 || !runFlags[name]) { out.push({ name: name, value: eq >= 0 ? w.slice(eq + 1) : null }); i += 1; }
      else { out.push({ name: name, value: i + 1 < words.length ? words[i + 1] : null }); i += 2; }
      continue;
    }
    var short = w.slice(0, 2);
    if (w.slice(0, 2) !== '--' && w.length > 2 && runFlags[short]) { out.push({ name: short, value: w.slice(2) }); i += 1; continue; }
    i += 1;
  }
  return out;
}
function optionSources(data, res) {
  var c = data.containers, run = c.vendors[platformOf(data, res.hw).vendor], texts = [];
  run.args.forEach(function (a) { texts.push(['vendor', a]); });
  list(res.docker_args).forEach(function (a) { texts.push(['image', a]); });
  if (run.per_device) for (var i = 0; i < devices(data, res); i++) texts.push(['vendor', run.per_device.split('{index}').join(String(i))]);
  c.shared.forEach(function (a) { texts.push(['shared', a]); });
  list(c.cache).forEach(function (a) { texts.push(['cache', a]); });
  texts.push(['net', hostNetwork(data, res) ? c.host_network : c.publish.split('{port}').join(serverPort(data, res))]);
  var out = [];
  texts.forEach(function (t) {
    readOptions(shlexSplit(t[1]), c.run_flags).forEach(function (o) { out.push([t[0], o]); });
  });
  return out;
}
function hostsFor(data, role) {
  var out = {};
  if (role !== 'prefill' && role !== 'decode') return out;
  out[role] = list(data.reader_values).filter(function (v) { return v.deploy === role; })[0].tokens[0];
  return out;
}
function missingTexts(data, gs) {
  var have = gs.map(function (g) { return g.role; });
  if (have.indexOf('server') >= 0) return [];
  return ['prefill', 'decode'].filter(function (r) { return have.indexOf(r) < 0; }).map(function (r) {
    return text(data, 'deploy.pd.missing', { role: r, token: hostsFor(data, r)[r] });
  });
}

// --- SGLang's config file (deploy.py) ----------------------------------------------------------
function typed(t) {
  if (/^(0|-?[1-9][0-9]*)$/.test(t)) return new Raw(t);
  if (/^-?[0-9]+\.[0-9]+$/.test(t)) {
    var n = parseFloat(t), a = Math.abs(n);
    if (n !== 0 && (a < 1e-4 || a >= 1e16)) return t;
    var s = String(n);
    if (s.indexOf('.') < 0 && s.indexOf('e') < 0) s += '.0';
    if (s === t) return new Raw(t);
  }
  return t;
}
function exactSpec(catalog, name) {
  var spec = catalog.flags[name];
  return spec && spec.name === name ? spec : null;
}
// The diffusion server's ServerArgs takes a file's value as the field's (no argparse between):
// a number flag's value is written as a number, and only one that is a number goes in.
var FIELD_TYPES = { int: 1, float: 1, str: 1 };
function fieldValue(t, spec) {
  if (spec.type === 'int' || spec.type === 'float') {
    var v = typed(t);
    if (v instanceof Raw && (spec.type === 'float' || /^(0|-?[1-9][0-9]*)$/.test(t))) return v;
  }
  return t;
}
function fieldReady(spec, values) {
  if (!FIELD_TYPES[spec.type] && spec.takes_value) return false;
  return spec.type === 'str' || values.every(function (v) { return fieldValue(v, spec) instanceof Raw; });
}
function fieldOf(spec) { return spec.field || spec.name.slice(2).replace(/-/g, '_'); }
export function configSplit(data, res) {
  var catalogs = [catalogOf(data, res.sglang)];
  if (catalogs[0] !== data.catalog) catalogs.push(data.catalog);
  var fields = catalogs[0].config === 'fields';
  var modelFlags = list((data.catalog.roles || {}).model);
  var perNode = [];
  list(data.reader_values).forEach(function (v) { if (v.deploy === 'rank' || v.deploy === 'self') perNode = perNode.concat(v.tokens); });
  var counts = {};
  res.flags.forEach(function (f) { counts[f.name] = (counts[f.name] || 0) + 1; });
  var config = {}, stay = [];
  res.flags.forEach(function (f) {
    var specs = catalogs.map(function (c) { return exactSpec(c, f.name); }), spec = specs[0];
    var keep = specs.some(function (s) { return !s || s.action !== spec.action || s.nargs !== spec.nargs; }) ||
      counts[f.name] > 1 || (spec.action !== 'store' && spec.action !== 'store_true') ||
      modelFlags.indexOf(spec.name) >= 0 ||
      (fields && (!fieldReady(spec, f.values) || specs.some(function (s) { return fieldOf(s) !== fieldOf(spec); }))) ||
      f.values.some(function (v) { return perNode.some(function (t) { return v.indexOf(t) >= 0; }); });
    var key = !spec ? '' : fields ? fieldOf(spec) : f.name.slice(2);  // no spec: it stays
    var one = fields ? function (v) { return fieldValue(v, spec); } : typed;
    if (!keep && spec.action === 'store_true' && !f.values.length) config[key] = true;
    else if (!keep && spec.action === 'store' && f.values.length && (spec.nargs === '+' || spec.nargs === '*' || f.values.length === 1)) {
      config[key] = (spec.nargs === '+' || spec.nargs === '*') ? f.values.map(one) : one(f.values[0]);
    } else stay.push(f);
  });
  return { config: config, stay: stay };
}
function hintLines(data, res) {
  return commentLines(res.hints.map(function (ref) { return text(data, ref); }).concat(releaseTexts(data, res)));
}
function configFiles(data, res) {
  var split = configSplit(data, res), stem = res.pd || 'server', id = data.model.id;
  var yamlName = id + '-' + stem + '.yaml', envName = id + '-' + stem + '.env';
  var run = [res.program + ' --config ' + yamlName].concat(split.stay.map(function (f) { return '  ' + flagText(f); }));
  run = run.map(function (l, i) { return i < run.length - 1 ? l + ' \\' : l; });
  var head = hintLines(data, res), intro;
  if (res.env.length) {
    intro = text(data, 'deploy.config.env', { file: envName });
    run = ['set -a; . ./' + envName + '; set +a'].concat(run);
  } else intro = text(data, 'deploy.config.run');
  head = head.concat(commentLines([intro]), run.map(function (l) { return '#   ' + l; }));
  var files = [file(data, yamlName, head, yamlLines(split.config))];
  if (res.env.length) files.push(file(data, envName, [], envPairs(res).map(function (p) { return p[0] + '=' + p[1]; })));
  return files;
}

// --- Docker Compose (deploy.py) ----------------------------------------------------------------
function dollars(s) { return s.split('$').join('$$'); }
function ulimit(value) {  // docker.ulimit: NAME=SOFT[:HARD]
  var m = /^([a-z]+)=(-?[0-9]+)(?::(-?[0-9]+))?$/.exec(value || '');
  if (!m) throw new Error('--ulimit ' + value + ' is no NAME=SOFT[:HARD] limit');
  var soft = parseInt(m[2], 10);
  return [m[1], m[3] === undefined ? soft : { soft: soft, hard: parseInt(m[3], 10) }];
}
function composeService(data, res, words, gpus, table) {
  var vendor = data.containers.vendors[platformOf(data, res.hw).vendor];
  var svc = { image: res.docker_image, command: words.map(dollars) }, env = [];
  optionSources(data, res).forEach(function (pair) {
    var source = pair[0], o = pair[1];
    if (!gpus && (source === 'vendor' || source === 'image')) return;
    var how = data.compose_keys[o.name];
    if (!how) throw new Error(source + ' docker option ' + o.name + ' has no Docker Compose key');
    var key = how[0];
    if (how[1] === 'gpus') {
      var entry = {}, g = vendor.gpus || {};
      Object.keys(g).forEach(function (k) { if (k !== 'capabilities') entry[k] = g[k]; });
      entry.count = /^[0-9]+$/.test(o.value) ? parseInt(o.value, 10) : o.value;
      if (g.capabilities) entry.capabilities = g.capabilities;
      if (!svc.deploy) svc.deploy = { resources: { reservations: { devices: [] } } };
      svc.deploy.resources.reservations.devices.push(entry);
    } else if (how[1] === 'switch') svc[key] = true;
    else if (how[1] === 'one') svc[key] = o.value;
    else if (how[1] === 'ulimit') {
      var lim = ulimit(o.value);
      (svc[key] = svc[key] || {})[lim[0]] = lim[1];
    } else if (how[1] === 'env') env.push(o.value);
    else (svc[key] = svc[key] || []).push(o.value);
  });
  if (gpus) envPairs(res).forEach(function (p) { env.push(dollars(fill(p[0] + '=' + p[1], table || {}))); });
  if (env.length) svc.environment = env;
  return svc;
}
function serviceNames(g) {
  var n = g.res.nodes, out = [];
  if (n === 1) return [g.role];
  for (var i = 0; i < n; i++) out.push(g.role + '-' + i);
  return out;
}
function composeFile(data, res) {
  var gs = groups(data, res), services = {}, hosts = {};
  gs.forEach(function (g) {
    serviceNames(g).forEach(function (name, i) {
      var table = fills(data, g.role, g.res.nodes > 1 ? i : null, hostsFor(data, g.role));
      var words = serverWords(g.res).map(function (w) { return fill(w, table); });
      services[name] = composeService(data, g.res, words, true, table);
    });
    hosts[g.role] = serviceNames(g)[0];
  });
  if (res.pd) {
    var router = composeService(data, res, routerWords(data, res), false);
    ['volumes', 'shm_size', 'ipc'].forEach(function (k) { delete router[k]; });
    router.depends_on = Object.keys(hosts).map(function (k) { return hosts[k]; });
    services.router = router;
  }
  var texts = [text(data, 'deploy.compose.head', { name: data.model.name })].concat(releaseTexts(data, res));
  if (res.pd) texts = texts.concat([text(data, 'deploy.compose.pd')], missingTexts(data, gs));
  else if (res.nodes > 1) texts.push(text(data, 'deploy.compose.nodes', { first: serviceNames(gs[0])[0] }));
  var name = data.model.id.toLowerCase().replace(/[^a-z0-9_-]/g, '-');
  return file(data, 'compose.yaml', commentLines(texts), yamlLines({ name: name, services: services }));
}

// --- Kubernetes (kube.py) ----------------------------------------------------------------------
var LWS_API = 'leaderworkerset.x-k8s.io/v1', LWS_LABEL = 'leaderworkerset.sigs.k8s.io';
var POD_IP = 'POD_IP';
var POD_FIELDS = ['--privileged', '--cap-add', '--shm-size', '-v', '--volume', '-e', '--env', '-w'];
var UNITS = { b: '', k: 'Ki', m: 'Mi', g: 'Gi' };
function dnsName(s) {
  return s.toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/-+/g, '-').replace(/^-+|-+$/g, '').slice(0, 50);
}
function quantity(size) {
  var m = /^([0-9]+)([bkmgBKMG]?)$/.exec(size);
  return m[1] + UNITS[(m[2] || 'b').toLowerCase()];
}
function escapeK8s(w) { return w.split('$(').join('$$('); }
function podSpec(data, res, words, gpus, extraEnv, table) {
  var vendor = data.containers.vendors[platformOf(data, res.hw).vendor], kube = data.containers.kubernetes;
  var container = { name: 'sglang', image: res.docker_image, command: words };
  var env = extraEnv.slice(), mounts = [], volumes = [], security = {}, pod = {};
  if (gpus) envPairs(res).forEach(function (p) { env.push({ name: p[0], value: fill(escapeK8s(p[1]), table) }); });
  optionSources(data, res).forEach(function (pair) {
    var source = pair[0], o = pair[1];
    if (((source === 'vendor' || source === 'image') && !gpus) || (source === 'image' && POD_FIELDS.indexOf(o.name) < 0)) return;
    if (o.name === '--gpus' || o.name === '--device') {
      var limits = {}; limits[resourceOf(data, res)] = devices(data, res);
      container.resources = { limits: limits };
    } else if (o.name === '--privileged') security.privileged = true;
    else if (o.name === '--cap-add') (security.capabilities = security.capabilities || { add: [] }).add.push(o.value);
    else if (o.name === '--security-opt') security.seccompProfile = { type: 'Unconfined' };
    else if (o.name === '--shm-size' && gpus) {
      volumes = volumes.filter(function (v) { return v.name !== 'shm'; });
      mounts = mounts.filter(function (m) { return m.name !== 'shm'; });
      volumes.push({ name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: quantity(o.value) } });
      mounts.push({ name: 'shm', mountPath: '/dev/shm' });
    } else if (o.name === '-w') container.workingDir = o.value;
    else if ((o.name === '-v' || o.name === '--volume') && gpus) {
      var at = o.value.indexOf(':'), host = o.value.slice(0, at), inside = o.value.slice(at + 1).split(':')[0];
      var name = source === 'cache' ? 'cache' : 'host-' + volumes.length;
      volumes.push(source === 'cache' ? { name: name, persistentVolumeClaim: { claimName: kube.cache_claim } }
        : { name: name, hostPath: { path: host } });
      mounts.push({ name: name, mountPath: inside });
    } else if (o.name === '-e' || o.name === '--env') {
      var eq = o.value.indexOf('=');
      env.push(eq >= 0 ? { name: o.value.slice(0, eq), value: o.value.slice(eq + 1) } : { name: o.value, valueFrom: {
        secretKeyRef: { name: kube.token_secret, key: o.value, optional: true } } });
    } else if ((o.name === '--network' || o.name === '--net') && o.value === 'host' && vendor.host_network) {
      pod.hostNetwork = true; pod.dnsPolicy = 'ClusterFirstWithHostNet';
    } else if (o.name === '-p' || o.name === '--publish') {
      var parts = o.value.split(':');
      container.ports = [{ name: 'http', containerPort: parseInt(parts[parts.length - 1], 10) }];
    }
  });
  if (env.length) container.env = env;
  if (mounts.length) container.volumeMounts = mounts;
  if (Object.keys(security).length) container.securityContext = security;
  pod.containers = [container];
  if (volumes.length) pod.volumes = volumes;
  return pod;
}
function labels(app, component) { return { 'app.kubernetes.io/name': app, 'app.kubernetes.io/component': component }; }
function service(name, selector, ports) {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: name }, spec: { selector: selector,
    ports: Object.keys(ports).map(function (k) { return { name: k, port: ports[k], targetPort: ports[k] }; }) } };
}
function workload(name, lbls, nodes, pod) {
  var template = { metadata: { labels: lbls }, spec: pod };
  if (nodes === 1) {
    return [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: name },
      spec: { replicas: 1, selector: { matchLabels: lbls }, template: template } }, lbls];
  }
  var leader = {};
  leader[LWS_LABEL + '/name'] = name; leader[LWS_LABEL + '/worker-index'] = '0';
  return [{ apiVersion: LWS_API, kind: 'LeaderWorkerSet', metadata: { name: name },
    spec: { replicas: 1, leaderWorkerTemplate: { size: nodes, restartPolicy: 'RecreateGroupOnPodRestart',
      workerTemplate: template } } }, leader];
}
function manifests(data, res, gs) {
  var app = dnsName(data.model.id), names = {};
  gs.forEach(function (g) { names[g.role] = g.role === 'server' ? app : app + '-' + g.role; });
  var target = { leader: '$(LWS_LEADER_ADDRESS)', rank: '$(LWS_WORKER_INDEX)', self: '$(' + POD_IP + ')' };
  ['prefill', 'decode'].forEach(function (r) { if (names[r]) target[r] = names[r]; });
  var table = fills(data, '', null, target);
  var kube = data.containers.kubernetes;
  var docs = [{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: kube.cache_claim },
    spec: { accessModes: [kube.cache_access], resources: { requests: { storage: kube.cache_size } } } }];
  var ownIp = [{ name: POD_IP, valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }];
  gs.forEach(function (g) {
    var words = serverWords(g.res).map(function (w) { return fill(escapeK8s(w), table); });
    var usesIp = words.concat(g.res.env.map(function (e) { return fill(e, table); }))
      .some(function (w) { return w.indexOf('$(' + POD_IP + ')') >= 0; });
    var pod = podSpec(data, g.res, words, true, usesIp ? ownIp : [], table);
    var wl = workload(names[g.role], labels(app, g.role), g.res.nodes, pod);
    var ports = { http: parseInt(serverPort(data, g.res), 10) };
    if (g.role === 'prefill') ports.bootstrap = data.model.pd.bootstrap_port;
    docs.push(wl[0], service(names[g.role], wl[1], ports));
  });
  if (res.pd) {
    var words = routerWords(data, res).map(function (w) { return fill(escapeK8s(w), table); });
    var router = app + '-router', wl = workload(router, labels(app, 'router'), 1, podSpec(data, res, words, false, [], table));
    docs.push(wl[0], service(router, wl[1], { http: data.model.pd.router.port }));
  }
  return docs;
}
function noPodField(data, gs) {  // kube.no_pod_field
  var out = [];
  gs.forEach(function (g) {
    optionSources(data, g.res).forEach(function (pair) {
      var o = pair[1], t = o.value === null ? o.name : o.name + ' ' + o.value;
      if (pair[0] === 'image' && POD_FIELDS.indexOf(o.name) < 0 && out.indexOf(t) < 0) out.push(t);
    });
  });
  return out;
}
function k8sFile(data, res) {
  var name = dnsName(data.model.id) + '.k8s.yaml', gs = groups(data, res);
  var texts = [text(data, 'deploy.k8s.head', { name: data.model.name, file: name })].concat(releaseTexts(data, res));
  if (gs.some(function (g) { return g.res.nodes > 1; })) texts.push(text(data, 'deploy.k8s.lws'));
  var unset = noPodField(data, gs);
  if (unset.length) texts.push(text(data, 'deploy.k8s.no-field', { options: unset.join(', ') }));
  texts = texts.concat(missingTexts(data, gs));
  var body = [];
  manifests(data, res, gs).forEach(function (doc) { body = body.concat(['---'], yamlLines(doc)); });
  return file(data, name, commentLines(texts), body);
}

/** deploy.files: the files of a result in one format, each {name, text, placeholders}. */
export function deployFiles(data, res, fmt) {
  // deploy.files: no image is published for the selection, nothing a container could run
  if ((fmt === 'compose' || fmt === 'k8s') && res.docker_image === null) return [];
  if (fmt === 'config') return configFiles(data, res);
  if (fmt === 'compose') return [composeFile(data, res)];
  if (fmt === 'k8s') return [k8sFile(data, res)];
  throw new Error('unknown format ' + fmt);
}
