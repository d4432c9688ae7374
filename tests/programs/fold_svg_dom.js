// fold_svg_dom.js: runs the script of an sp-fold SVG flame graph against
// a small stand-in for the browser's DOM, built from the SVG's frames, and
// checks tooltips, zoom on click, search and reset.  Exits 1 on failure.
//   node fold_svg_dom.js FILE.svg FRAME-NAME SEARCH-REGEX
'use strict';
const fs = require('fs');
const [file, target, term] = process.argv.slice(2);
const svg = fs.readFileSync(file, 'utf8');
const script = svg.substring(svg.indexOf('<![CDATA[') + 9, svg.indexOf(']]>'));
const unesc = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>')
  .replace(/&quot;/g, '"').replace(/&amp;/g, '&');

function el(tag, attrs, text) {
  const cls = new Set((attrs.class || '').split(' ').filter(Boolean));
  return {
    nodeName: tag, attrs: { ...attrs }, children: [], parentNode: null,
    textContent: text || '', handlers: {},
    getAttribute(k) { return this.attrs[k]; },
    setAttribute(k, v) { this.attrs[k] = String(v); },
    addEventListener(t, f) { this.handlers[t] = f; },
    getElementsByTagName(t) { return this.children.filter((c) => c.nodeName === t); },
    classList: { add: (c) => cls.add(c), remove: (c) => cls.delete(c), contains: (c) => cls.has(c) },
  };
}
function check(ok, what) {
  if (!ok) { console.error('FAIL: ' + what); process.exit(1); }
}

const FR = el('g', { id: 'frames' });
const re = /<g><title>(.*?)<\/title><rect x="([^"]+)" y="([^"]+)" width="([^"]+)"[^>]*\/><text[^>]*>(.*?)<\/text><\/g>/g;
let m;
while ((m = re.exec(svg))) {
  const g = el('g', {});
  for (const c of [el('title', {}, unesc(m[1])), el('rect', { x: m[2], y: m[3], width: m[4] }),
    el('text', {}, unesc(m[5]))]) {
    c.parentNode = g;
    g.children.push(c);
  }
  g.parentNode = FR;
  FR.children.push(g);
}
check(FR.children.length > 1, 'no frames found');
const ids = { frames: FR, details: el('text', {}), matched: el('text', {}),
  unzoom: el('text', { class: 'hide' }), search: el('text', {}),
  ignorecase: el('text', {}) };
global.document = { getElementById: (id) => ids[id] };
let url = '';
global.window = { addEventListener() {}, location: { search: '' },
  history: { replaceState: (s, t, u) => { url = u; } } };
global.prompt = () => term;
// eslint-disable-next-line no-eval
(0, eval)(script);
global.init({});

const name = (g) => g.children[0].textContent;
const rect = (g) => g.children[1];
const full = +rect(FR.children[0]).getAttribute('width');
const g = FR.children.find((x) => name(x).startsWith(target + ' ('));
check(g, 'no frame ' + target);
FR.handlers.mouseover({ target: g.children[2] });
check(ids.details.textContent === 'Function: ' + name(g), 'tooltip: ' + ids.details.textContent);
FR.handlers.click({ target: rect(g) });
check(Math.abs(+rect(g).getAttribute('width') - full) < 0.01,
  'zoomed width ' + rect(g).getAttribute('width'));
check(!ids.unzoom.classList.contains('hide'), 'Reset Zoom not shown');
const hidden = FR.children.filter((x) => x.classList.contains('hide')).length;
check(hidden > 0 || FR.children.length < 3, 'nothing hidden by the zoom');
ids.search.handlers.click();
check(/^Matched: [0-9.]+%$/.test(ids.matched.textContent), 'search: ' + ids.matched.textContent);
check(FR.children.some((x) => rect(x).getAttribute('fill') === 'rgb(230,0,230)'), 'no match highlighted');
ids.unzoom.handlers.click();
check(FR.children.every((x) => !x.classList.contains('hide')), 'reset left frames hidden');
check(Math.abs(+rect(g).getAttribute('width') - g.ow) < 0.01, 'reset width');
// The zoom and the search are kept in the URL, and come back from it.
FR.handlers.click({ target: rect(g) });
ids.search.handlers.click();
check(/[?&]x=[0-9.]+&y=[0-9]+/.test(url) && url.includes('s=' + encodeURIComponent(term)),
  'state not in the URL: ' + url);
const saved = url;
ids.matched.handlers.click();
ids.unzoom.handlers.click();
window.location.search = saved;
global.init({});
check(!ids.unzoom.classList.contains('hide'), 'zoom not restored from ' + saved);
check(Math.abs(+rect(g).getAttribute('width') - full) < 0.01, 'restored zoom width');
check(/^Matched/.test(ids.matched.textContent), 'search not restored from ' + saved);
// Case-insensitive search: the upper-case term matches with "ic" on only.
window.location.search = '';
ids.matched.handlers.click();
global.prompt = () => target.toUpperCase();
ids.search.handlers.click();
const hits = () => FR.children.filter((x) => rect(x).getAttribute('fill') === 'rgb(230,0,230)').length;
check(target.toUpperCase() === target || hits() === 0, 'matched without ignoring case');
ids.ignorecase.handlers.click();
check(hits() > 0, 'ic did not make the search ignore case');
check(url.includes('ic=1'), 'ic not in the URL: ' + url);
console.log('svg script ok: ' + FR.children.length + ' frames, ' + ids.matched.textContent);
