import { useEffect, useState } from 'react';

type Theme = 'light' | 'dark' | 'system';
const STORAGE_KEY = 'parley.theme';

function storedTheme(): Theme {
  const stored = localStorage.getItem(STORAGE_KEY);
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

/**
 * Light, dark, or the system's choice (`prefers-color-scheme`), kept in
 * `localStorage`; the choice is the `data-theme` of the page's root.
 */
export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  useEffect(() => {
    if (theme === 'system') {
      delete document.documentElement.dataset['theme'];
      localStorage.removeItem(STORAGE_KEY);
    } else {
      document.documentElement.dataset['theme'] = theme;
      localStorage.setItem(STORAGE_KEY, theme);
    }
  }, [theme]);
  return (
    <label className="theme-toggle">
      Theme{' '}
      <select
        value={theme}
        onChange={(event) =>
          setTheme(
            event.target.value === 'light'
              ? 'light'
              : event.target.value === 'dark'
                ? 'dark'
                : 'system',
          )
        }
      >
        <option value="system">System</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}
