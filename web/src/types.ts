// What the server sends: the API's answers as its OpenAPI document describes them
// (`/api/openapi.json`), generated from it into api-types.ts (`npm run api-types`) and named
// here for the pages.

import type { GameForViewer, GameView as GameAnnounced } from './api-types';

export type {
  Account,
  ChatLine,
  ClockView,
  MoveRecord,
  OptionInfo,
  RoleInfo,
  RoleMove,
  SeatRating,
  Side,
  TenjikuPowers,
  TimeControl,
  VariantInfo,
  WhoAmI,
} from './api-types';

/** Everything a client sees of a game: as a move announces it, and as `GET /api/games/{id}`
 * answers it, with the seat the logged-in viewer's account holds. */
export type GameView = GameAnnounced & Partial<Pick<GameForViewer, 'you'>>;
