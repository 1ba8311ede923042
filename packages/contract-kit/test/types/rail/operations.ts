// Written by renderTypes from test/fixtures/rail-3.1.yaml (test/types/fixture-types.ts). Do not edit it by hand.

import type { paths } from './openapi.js';

/** Each operation of the contract, by the name its handler goes by. */
export interface Operations {
  /** List stations: GET /stations */
  getStations: paths["/stations"]["get"];
  /** One station: GET /stations/{station-id} */
  getStationsByStationId: paths["/stations/{station-id}"]["get"];
  /** GET /stations/{station-id}/map.png */
  findStationMap: paths["/stations/{station-id}/map.png"]["get"];
  /** Book a seat: POST /bookings */
  createBooking: paths["/bookings"]["post"];
  /** A booking, deprecated: GET /bookings/{id} */
  deleteOperation: paths["/bookings/{id}"]["get"];
}
