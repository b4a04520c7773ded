import { outcome } from '../shared/app.js';

outcome().then((result) => {
  window.__ctxpack = result;
  document.body.textContent = JSON.stringify(result);
});
