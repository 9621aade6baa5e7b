// The view library for the views that change with the game: snabbdom's `h` and a `patch` with
// the modules the pages use (classes, properties, attributes, data attributes, event listeners).

import {
  attributesModule,
  classModule,
  datasetModule,
  eventListenersModule,
  h,
  init,
  propsModule,
  toVNode,
} from 'snabbdom';
import type { VNode } from 'snabbdom';

export { h, toVNode };
export type { VNode };

// The dataset module sets the `data-` attributes of nodes made with `toVNode`.
export const patch = init([
  classModule,
  propsModule,
  attributesModule,
  datasetModule,
  eventListenersModule,
]);
