// What every page shares: the games the server hosts, who is logged in, and the page shown
// now (what it leaves behind when another is shown, how it redraws, how to show the page of
// the address).

import type { VariantInfo, WhoAmI } from './types';

export const store: { variants: VariantInfo[]; me: WhoAmI } = {
  variants: [],
  me: { account: null, your_turn: 0 },
};

export const page: { rerender: () => void; cleanup: () => void; route: () => void; holdsWork: () => boolean;
  playing: () => string | null } = {
  rerender: () => {},
  cleanup: () => {},
  route: () => {},
  /** Whether the page holds work its address does not keep (an analysis's moves, an imported
   * record, a puzzle half solved), which drawing it again would lose. */
  holdsWork: () => false,
  /** The game the visitor is playing on this page (seated, the game in play), if any: one
   * whose clock would run on if the page were left. */
  playing: () => null,
};

/** Shows the page at `path`, one of the site's addresses, as following a link to it would;
 * `replace`: in place of the page shown now in the history (a join link is not gone back to). */
export function navigate(path: string, replace = false) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  page.route();
}
