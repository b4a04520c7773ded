'use client';
// A client component that plans in the browser, after hydration.
import { useEffect, useState } from 'react';
import { outcome } from '../../shared/app.js';

export default function Planner() {
  const [text, setText] = useState('planning…');
  useEffect(() => {
    outcome().then((result) => {
      window.__ctxpack = result;
      setText(JSON.stringify(result));
    });
  }, []);
  return <pre>{text}</pre>;
}
