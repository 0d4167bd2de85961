import './zod-config.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { takeToken } from './api/token.js';
import { App } from './app.js';
import './styles.css';

// The stored theme before the first paint (components/theme-toggle.tsx keeps it).
const theme = localStorage.getItem('parley.theme');
if (theme === 'light' || theme === 'dark') document.documentElement.dataset['theme'] = theme;

const token = takeToken({
  location: window.location,
  storage: window.sessionStorage,
  replaceUrl: (url) => window.history.replaceState(null, '', url),
});
const root = document.getElementById('root');
if (root !== null) {
  createRoot(root).render(
    <StrictMode>
      <App token={token} />
    </StrictMode>,
  );
}
