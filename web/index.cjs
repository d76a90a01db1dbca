// The CommonJS door into attnlab, which is an ES module (its WebAssembly glue is): require('attnlab')
// gives two async functions, as an ES module can only be loaded asynchronously from CommonJS.
//   const { init } = require('attnlab');
//   const lab = await init({ simd: 'auto' });        // the same Lab as `import { init } from 'attnlab'`
//   const attnlab = await require('attnlab').load();  // the whole module: init, AttnLabError, …
'use strict';

const load = () => import('./index.js');

exports.load = load;
exports.init = (options) => load().then((attnlab) => attnlab.init(options));
