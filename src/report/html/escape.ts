const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** JSON that is safe inside a <script> element: no `<`, `>` or `&` can end it or open a comment. */
export function jsonInScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export const formatInt = (n: number): string => Math.round(n).toLocaleString('en-US');
export const formatShare = (x: number | null): string => (x === null ? '—' : `${(100 * x).toFixed(1)}%`);
export const formatUsd = (x: number): string => `$${x.toFixed(x >= 100 ? 0 : 2)}`;
