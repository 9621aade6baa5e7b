// Small shared helpers: a game's facts by name, a seat's stored token, times as text.

import { store } from './state';
import type { VariantInfo } from './types';

export function variantInfo(name: string): VariantInfo | undefined {
  return store.variants.find((v) => v.name === name);
}

export function tokenFor(id: string): string | null {
  return localStorage.getItem(`tsubame.token.${id}`);
}

/** A time control's main time: `10:00`, `0:30`. */
export function formatMs(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(h ? 2 : 1, '0');
  return `${h ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

// ---------------------------------------------------------------------------------------------
// The board

/** A name with its first letter in capitals, to begin a heading or a sentence ("falcon" ->
 * "Falcon"); words without capitals (Japanese) are as they are. */
export function title(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
