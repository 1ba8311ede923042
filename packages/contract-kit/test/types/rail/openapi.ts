// Written by renderTypes from test/fixtures/rail-3.1.yaml (test/types/fixture-types.ts). Do not edit it by hand.

export interface paths {
    "/stations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List stations */
        get: operations["get-stations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stations/{station-id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                "station-id": number;
            };
            cookie?: never;
        };
        /** One station */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    "station-id": number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The station */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Station"];
                    };
                };
                404: components["responses"]["Problem"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stations/{station-id}/map.png": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                "station-id": number;
            };
            cookie?: never;
        };
        get: operations["find station map"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bookings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Book a seat */
        post: operations["create-booking"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bookings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A booking, deprecated
         * @deprecated
         */
        get: operations["delete"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    bookingConfirmed: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["bookingConfirmed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Station: {
            id: number;
            name: string;
        };
        NewBooking: {
            station: number;
            seats: number;
        };
        Booking: {
            id: string;
            station: number;
            seats: number;
        };
        Problem: {
            type: string;
            title: string;
            status: number;
            detail?: string;
            instance?: string;
            code?: string;
            errors?: unknown[];
        };
    };
    responses: {
        /** @description A problem */
        Problem: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "get-stations": {
        parameters: {
            query?: {
                limit?: number;
                country?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Stations */
            200: {
                headers: {
                    "X-Total-Count"?: number;
                    /** @description Whether more stations match than were listed. */
                    "X-Partial"?: boolean;
                    /** @description The server that answered, a header declared with content rather than a schema. */
                    "X-Served-By"?: {
                        "text/plain": string;
                    };
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Station"][];
                };
            };
            400: components["responses"]["Problem"];
        };
    };
    "find station map": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                "station-id": number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A map */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/png": string;
                };
            };
        };
    };
    "create-booking": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewBooking"];
                "application/xml": components["schemas"]["NewBooking"];
            };
        };
        responses: {
            /** @description Booked */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Booking"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
        };
    };
    delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The booking as text */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            404: components["responses"]["Problem"];
        };
    };
    bookingConfirmed: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Booking"];
            };
        };
        responses: {
            /** @description Received */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
