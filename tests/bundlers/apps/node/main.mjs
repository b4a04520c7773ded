import { outcome } from '../shared/app.js';

// No top-level await: this file is also bundled to CommonJS.
outcome().then((result) => console.log(JSON.stringify(result)));
