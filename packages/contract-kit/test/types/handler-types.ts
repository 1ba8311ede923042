// Type-level tests of Handlers, checked by `npm run typecheck`: each @ts-expect-error proves
// that the line after it does not compile (tsc fails on a directive that is not needed).
import type { Handlers, TypedHandler } from 'contract-kit';
import type { Operations } from './rail/operations.js';

type Rail = Handlers<Operations, { clock: () => number }>;

// A handler map with every operation, each answering what its operation declares, compiles.
export const handlers = {
  getStations: ({ query }) => ({
    status: 200,
    headers: { 'X-Total-Count': 1, 'X-Partial': false, 'X-Served-By': 'central-1' },
    body: [{ id: query.limit ?? 1, name: 'Central' }],
  }),
  getStationsByStationId: ({ path }) => ({ status: 200, body: { id: path['station-id'], name: 'Central' } }),
  findStationMap: () => ({ status: 200, body: new Uint8Array([0x89]) }),
  createBooking: (input, { clock }) => {
    if (input.contentType === 'application/xml') return { status: 201, body: { id: input.body.slice(0, 4), station: 1, seats: 1 } };
    return { status: 201, body: { id: String(clock()), station: input.body.station, seats: input.body.seats } };
  },
  deleteOperation: ({ path }) => ({ status: 200, body: `booking ${path.id}` }),
} satisfies Rail;

// @ts-expect-error a map without createBooking
export const missing: Rail = { getStations: handlers.getStations };

// @ts-expect-error getStations declares no 201
export const wrongStatus: TypedHandler<Operations['getStations']> = () => ({ status: 201, body: [] });

// @ts-expect-error X-Partial is a boolean
export const wrongHeader: TypedHandler<Operations['getStations']> = () => ({ status: 200, headers: { 'X-Partial': 'no' }, body: [] });

// @ts-expect-error a Station's name is a string
export const wrongBody: TypedHandler<Operations['getStations']> = () => ({ status: 200, body: [{ id: 1, name: 2 }] });

// @ts-expect-error the problem+json of a 404 is not a text body
export const wrongMediaType: TypedHandler<Operations['getStationsByStationId']> = () => ({
  status: 404,
  contentType: 'text/plain',
  body: 'gone',
});

// A text answer is a string; an XML body arrives as its text.
// @ts-expect-error deleteOperation answers text/plain, not an object
export const wrongText: TypedHandler<Operations['deleteOperation']> = () => ({ status: 200, body: { id: 'x' } });

export const xmlIsText: TypedHandler<Operations['createBooking']> = (input) => {
  if (input.contentType === 'application/xml') {
    // @ts-expect-error an XML body is text, not its parsed fields
    const seats: number = input.body.seats;
    return { status: 201, body: { id: 'x', station: 1, seats } };
  }
  return { status: 201, body: { id: 'x', ...input.body } };
};

// Parameters are typed from the contract: station-id is a number, limit an optional number.
export const typedParameters: TypedHandler<Operations['getStationsByStationId']> = ({ path }) => {
  // @ts-expect-error station-id is a number
  const id: string = path['station-id'];
  return { status: 200, body: { id: Number(id), name: 'x' } };
};
