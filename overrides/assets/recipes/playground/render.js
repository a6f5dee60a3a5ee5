/* Playground: the text a result prints as (mirrors macros/site/render.py and macros/site/runmodes.py).
 *
 * Owns the export's text lookup with its {field} and '@id' fields (text), the comment wrap,
 * and the printed blocks: the server command (commandText), the PD router (routerText), the
 * same command inside docker run (dockerText), a curl request and an OpenAI client call
 * (curlText, pythonText). Pure: no DOM; Node imports it for the parity tests.
 */
import { has, list, splitLines } from './python.js';
import { envText, flagText, quote, shlexSplit } from './flags.js';
import { PARTICLE, form } from './josa.js';

export function text(data, ref, extra) {
  if (typeof ref === 'string') ref = { id: ref, fields: {} };
  var fields = {}, k;
  for (k in ref.fields || {}) fields[k] = ref.fields[k];
  for (k in extra || {}) fields[k] = extra[k];
  Object.keys(fields).forEach(function (name) {
    if (fields[name] && typeof fields[name] === 'object') { fields[name] = text(data, fields[name]); return; }
    var v = String(fields[name]);
    if (v.charAt(0) === '@') fields[name] = text(data, v.slice(1));
  });
  var raw = has(data.text, ref.id) ? data.text[ref.id] : undefined;
  if (raw === undefined) raw = ref.id;
  if (Object.keys(fields).length) raw = fill(raw, fields, data.lang);
  return raw;
}

// model.fill: each {field} filled in; in Korean the particle written after it takes the
// form the value calls for (josa.js)
export function fill(raw, fields, lang) {
  var out = '', at = 0, re = /\{([a-z_]+)\}/g, m;
  while ((m = re.exec(raw)) !== null) {
    if (!has(fields, m[1])) continue;
    var value = String(fields[m[1]]);
    out += raw.slice(at, m.index) + value;
    at = m.index + m[0].length;
    var written = lang === 'ko' ? PARTICLE.exec(raw.slice(at)) : null;
    if (written) { out += form(value, written[1]); at += written[1].length; }
  }
  return out + raw.slice(at);
}

function continued(body) {
  return body.map(function (line, i) { return i < body.length - 1 ? line + ' \\' : line; });
}

// render.wrap: greedy word wrap of a comment line; indented (code-like) lines stay whole.
var WRAP = 78;
var WIDE = [[0x1100, 0x115F], [0x2E80, 0xA4CF], [0xAC00, 0xD7A3], [0xF900, 0xFAFF],
            [0xFE30, 0xFE4F], [0xFF00, 0xFF60], [0xFFE0, 0xFFE6]];
function width(s) {  // render.width: two columns for Hangul, CJK and full-width forms
  var n = 0;
  for (var i = 0; i < s.length; i++) {
    var cp = s.codePointAt(i);
    if (cp > 0xFFFF) i++;
    n += WIDE.some(function (r) { return cp >= r[0] && cp <= r[1]; }) ? 2 : 1;
  }
  return n;
}
export function wrap(line) {  // render.wrap: the comment lines of a command, at most WRAP wide
  if (width(line) <= WRAP || line.slice(0, 2) === '  ') return [line];
  var out = [], cur = '', curWidth = 0;
  line.split(' ').forEach(function (word) {
    var w = width(word);
    if (cur && curWidth + 1 + w > WRAP) { out.push(cur); cur = word; curWidth = w; }
    else if (cur) { cur = cur + ' ' + word; curWidth += 1 + w; }
    else { cur = word; curWidth = w; }
  });
  out.push(cur);
  return out;
}

function hintLines(data, res) {
  var lines = [];
  res.hints.forEach(function (ref) {
    splitLines(text(data, ref)).forEach(function (line) {
      wrap(line).forEach(function (part) { lines.push(('# ' + part).replace(/\s+$/, '')); });
    });
  });
  return lines;
}

export function commandText(data, res) {
  var body = res.env.map(envText).concat([res.program], res.flags.map(function (f) { return '  ' + flagText(f); }));
  return hintLines(data, res).concat(continued(body)).join('\n');
}

export function routerText(data, res) {
  if (!res.router) return null;
  var body = [data.model.pd.router.program].concat(res.router.map(function (group) {
    return '  ' + group.map(flagText).join(' ');
  }));
  return continued(body).join('\n');
}

// runmodes.py: the selection inside docker run, a curl request and an OpenAI client call.
var HOST = 'localhost', PER_LINE = 4;
function dockerWord(text) {  // a leading ~/ stays bare, for the shell to expand
  if (text.slice(0, 2) === '~/' && quote(text.slice(1)) === text.slice(1)) return text;
  return quote(text);
}
function dockerOption(text) { return shlexSplit(text).map(dockerWord).join(' '); }
function serverPort(data, res) {  // runmodes.server_port: the flags of the port role
  var names = list((data.catalog.roles || {}).port);
  var given = res.flags.filter(function (f) { return names.indexOf(f.name) >= 0 && f.values.length && f.values[0]; });
  return given.length ? given[given.length - 1].values[0] : String(data.catalog.flags[names[0]]['default']);
}
function clientPort(data, res) { return res.pd ? String(data.model.pd.router.port) : serverPort(data, res); }
function platformOf(data, hw) { return data.platforms.filter(function (p) { return p.id === hw; })[0]; }
function dockerOptions(data, res) {
  var c = data.containers, platform = platformOf(data, res.hw), run = c.vendors[platform.vendor];
  var lines = run.args.map(dockerOption).concat(list(res.docker_args).map(dockerOption));
  if (run.per_device) {
    var each = [], devices = platform.gpus_per_node * (platform.devices_per_card || 1);
    for (var i = 0; i < devices; i++) each.push(dockerOption(run.per_device.split('{index}').join(String(i))));
    for (var j = 0; j < each.length; j += PER_LINE) lines.push(each.slice(j, j + PER_LINE).join(' '));
  }
  lines = lines.concat(c.shared.map(dockerOption));
  if (res.nodes > 1 || res.pd || run.host_network) lines.push(dockerOption(c.host_network));
  else lines.push(dockerOption(c.publish.split('{port}').join(serverPort(data, res))));
  lines = lines.concat(list(c.cache).map(dockerOption));
  return lines.concat(res.env.map(function (e) { return dockerOption(c.env) + ' ' + envText(e); }));
}
// render.footprint_text: the cell's GPUs per node (its platform's unless it uses fewer) × nodes
export function footprintText(data, res) {
  var platform = platformOf(data, res.hw), per = res.gpus_per_node;
  return text(data, { id: platform.vendor === 'huawei' ? 'ui.footprint.npu' : 'ui.footprint', fields: {
    total: String(res.nodes * per), nodes: String(res.nodes), per_node: String(per) } }) +
    (platform.hbm_gb ? ' · ' + text(data, { id: 'ui.hbm', fields: { gb: String(platform.hbm_gb) } }) : '');
}
// runmodes.install_text: no image is published for the selection (the Python form only)
export function installText(data, res) {
  return wrap(text(data, 'ui.run.no-image')).map(function (part) { return ('# ' + part).replace(/\s+$/, ''); })
    .concat(list(res.install), [''], [commandText(data, res)]).join('\n');
}
export function dockerText(data, res) {
  if (res.docker_image === null) return installText(data, res);
  var body = ['docker run'].concat(dockerOptions(data, res).map(function (l) { return '  ' + l; }),
    ['  ' + dockerWord(res.docker_image), '  ' + res.program], res.flags.map(function (f) { return '    ' + flagText(f); }));
  return hintLines(data, res).concat(continued(body)).join('\n');
}
function runMessage(data) { return JSON.stringify(text(data, 'ui.run.message')); }
// runmodes.literal: a JSON value on one line, or the Python literal of it
export function literal(value, python) {
  if (Array.isArray(value)) return '[' + value.map(function (v) { return literal(v, python); }).join(', ') + ']';
  if (value !== null && typeof value === 'object') {
    return '{' + Object.keys(value).sort().map(function (k) { return JSON.stringify(k) + ': ' + literal(value[k], python); }).join(', ') + '}';
  }
  if (python && value === null) return 'None';
  if (python && typeof value === 'boolean') return value ? 'True' : 'False';
  return JSON.stringify(value);
}
function jobBody(data, res) {  // runmodes._job_body: the shared body, then the task's fields
  var body = {model: res.model_name}, request = data.model.request, given = request.body;
  Object.keys(given).forEach(function (k) { body[k] = given[k]; });
  var task = list(request.tasks).filter(function (t) { return t.id === res.request; })[0];
  if (task) Object.keys(task.body).forEach(function (k) { body[k] = task.body[k]; });
  return body;
}
function jobUrl(data, res) { return 'http://' + HOST + ':' + clientPort(data, res) + data.model.request.endpoint; }
export function curlText(data, res) {
  if (data.model.request) {
    return continued(['curl -sS -X POST ' + quote(jobUrl(data, res)), '  -H ' + quote('Content-Type: application/json'),
      '  -d ' + quote(literal(jobBody(data, res)))]).join('\n');
  }
  var url = 'http://' + HOST + ':' + clientPort(data, res) + '/v1/chat/completions';
  var body = '{"model": ' + JSON.stringify(res.model_name) + ', "messages": [{"role": "user", "content": ' +
    runMessage(data) + '}]}';
  return continued(['curl ' + quote(url), '  -H ' + quote('Content-Type: application/json'), '  -d ' + quote(body)]).join('\n');
}
export function pythonText(data, res) {
  if (data.model.request) {
    var body = jobBody(data, res);
    return ['import json', 'import time', 'import urllib.request', '',
      'url = ' + JSON.stringify(jobUrl(data, res)), 'body = {'].concat(
      Object.keys(body).sort().map(function (k) { return '    ' + JSON.stringify(k) + ': ' + literal(body[k], true) + ','; }),
      ['}', 'request = urllib.request.Request(url, data=json.dumps(body).encode(),',
        '                                 headers={"Content-Type": "application/json"})',
        'job = json.load(urllib.request.urlopen(request))',
        'while job["status"] not in ("completed", "failed"):', '    time.sleep(5)',
        '    job = json.load(urllib.request.urlopen(f"{url}/{job[\'id\']}"))',
        'if job["status"] == "failed":', '    raise SystemExit(f"generation failed: {job}")',
        'content = urllib.request.urlopen(f"{url}/{job[\'id\']}/content").read()',
        'print(job["id"], len(content), "bytes")']).join('\n');
  }
  var base = 'http://' + HOST + ':' + clientPort(data, res) + '/v1';
  return ['from openai import OpenAI', '',
    'client = OpenAI(base_url=' + JSON.stringify(base) + ', api_key="EMPTY")',
    'response = client.chat.completions.create(',
    '    model=' + JSON.stringify(res.model_name) + ',',
    '    messages=[{"role": "user", "content": ' + runMessage(data) + '}],',
    ')', 'print(response.choices[0].message.content)'].join('\n');
}
