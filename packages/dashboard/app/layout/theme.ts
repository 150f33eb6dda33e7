import { useCallback, useSyncExternalStore } from "react";

export type Theme = "light" | "dark";
const STORAGE_KEY = "svc.theme";
const listeners = new Set<() => void>();
const systemScheme = () => window.matchMedia("(prefers-color-scheme: dark)");
const systemDark = () => systemScheme().matches;

/** The chosen theme, or the system's when the user never chose. */
function currentTheme(): Theme {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored === "light" || stored === "dark") return stored;
  return systemDark() ? "dark" : "light";
}

/** Sets `data-theme` on <html>, which styles.css reads; call once before the first render. */
export function applyTheme(): void {
  document.documentElement.dataset["theme"] = currentTheme();
}

export function useTheme(): [Theme, (theme: Theme) => void] {
  const theme = useSyncExternalStore((listener) => {
    // Until the user chooses, the theme follows the system's, also when that changes.
    const onSystemChange = () => {
      applyTheme();
      listener();
    };
    const scheme = systemScheme();
    scheme.addEventListener("change", onSystemChange);
    listeners.add(listener);
    return () => {
      scheme.removeEventListener("change", onSystemChange);
      listeners.delete(listener);
    };
  }, currentTheme);
  const setTheme = useCallback((next: Theme) => {
    localStorage.setItem(STORAGE_KEY, next);
    applyTheme();
    for (const listener of listeners) listener();
  }, []);
  return [theme, setTheme];
}
