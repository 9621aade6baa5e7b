// What every page shares: the games the server hosts, who is logged in, and the page shown
// now (what it leaves behind when another is shown, how it redraws, how to show the page of
// the address).

import type { VariantInfo, WhoAmI } from './types';

export const store: { variants: VariantInfo[]; me: WhoAmI } = {
  variants: [],
  me: { account: null, your_turn: 0 },
};

export const page: { rerender: () => void; cleanup: () => void; route: () => void } = {
  rerender: () => {},
  cleanup: () => {},
  route: () => {},
};
