// The bearer token, kept per tab in sessionStorage (docs/dashboard.md "Authentication"): it
// survives a reload of the tab, not the tab, and is never written to localStorage.
export const TOKEN_KEY = 'yacron2.dashboard.token';

/** The token a `#token=<value>` fragment carries (the daemon's printed URL), or null. */
export function tokenInHash(hash: string): string | null {
  const match = /^#token=([^&]+)$/.exec(hash);
  if (match === null) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
}

export class TokenStore {
  readonly #storage: Storage | null;
  #memory: string | null = null;

  constructor(storage: Storage | null) {
    this.#storage = storage;
    try {
      this.#memory = storage?.getItem(TOKEN_KEY) ?? null;
    } catch {
      this.#memory = null;
    }
  }

  get(): string | null {
    return this.#memory;
  }

  set(token: string | null): void {
    const value = token === null || token.trim() === '' ? null : token.trim();
    this.#memory = value;
    try {
      if (value === null) this.#storage?.removeItem(TOKEN_KEY);
      else this.#storage?.setItem(TOKEN_KEY, value);
    } catch {
      // Kept in memory for this page only.
    }
  }
}
