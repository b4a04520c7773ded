// A CommonJS user: require('ctxpack') picks dist/node.cjs.
const ctxpack = require('ctxpack');
const { outcomeWith } = require('../shared/plan.js');

outcomeWith(ctxpack).then((result) => console.log(JSON.stringify(result)));
