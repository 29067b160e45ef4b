// Fuzzy matching for the command palette: every query character must appear in order; matches
// at word starts and in runs score higher, shorter labels break ties. Pure.

/** A score (higher is better), or null when the label does not contain the query in order. */
export function fuzzyScore(query: string, label: string): number | null {
  const q = query.trim().toLowerCase();
  if (q === '') return 0;
  const text = label.toLowerCase();
  let score = 0;
  let at = 0;
  let previous = -2;
  for (const char of q) {
    if (char === ' ') continue;
    const found = text.indexOf(char, at);
    if (found === -1) return null;
    const wordStart = found === 0 || /[\s/._:-]/.test(text[found - 1]!);
    score += 1 + (wordStart ? 3 : 0) + (found === previous + 1 ? 2 : 0);
    previous = found;
    at = found + 1;
  }
  return score - text.length / 100;
}

/** Items matching the query, best first (stable among equal scores). */
export function fuzzyFilter<T>(
  items: readonly T[],
  query: string,
  labelOf: (item: T) => string,
): T[] {
  return items
    .map((item, index) => ({ item, index, score: fuzzyScore(query, labelOf(item)) }))
    .filter((entry): entry is { item: T; index: number; score: number } => entry.score !== null)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.item);
}
