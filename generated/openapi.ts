// Written by `contract-kit generate` from openapi.yaml. Do not edit it by hand: run it again.

export interface paths {
    "/pets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List animals
         * @description Returns the animals in the store, ordered by `id` ascending, at most `limit` of them.
         *     When `status` is given, only animals with that availability status are returned. When
         *     more animals follow, the `Link` header carries the address of the next page.
         */
        get: operations["listPets"];
        put?: never;
        /**
         * Add an animal
         * @description Adds an animal to the store and returns it with the `id` the service assigned. `status`
         *     defaults to `available`. Unknown fields, including `id`, are refused. Send an
         *     `Idempotency-Key` to make retries safe.
         */
        post: operations["createPet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pets/feed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow the animals added
         * @description A stream of server-sent events (`text/event-stream`): an `added` event for each animal
         *     added from now on, in the order of their `id`s, whichever instance of the service added
         *     it. Each event's `id` is the animal's `id`, its `data` the animal as JSON; the first
         *     event has an `id` alone, where the stream begins. To resume after a break, send the last
         *     `id` received as `Last-Event-ID` (the client package does; a browser's `EventSource` sends
         *     no `Authorization` header, so use the client): the stream goes on from the animal after
         *     it, none lost and none repeated, also after a restart of the service. A `Last-Event-ID`
         *     past the last animal (from another deployment, or before a restore) begins at the last
         *     animal. The stream stays open; a comment line every 15 seconds keeps it alive. The
         *     request counts once against the key's plan.
         */
        get: operations["followPets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pets/{petId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Fetch an animal
         * @deprecated
         * @description Returns one animal by its identifier.
         *
         *     **Deprecated** since 1 January 2026 (`x-deprecated-at`): this operation will be removed
         *     on 5 December 2030 (`x-sunset`). Use `GET /pets` with the `status` filter instead
         *     (`x-successor`). Every response of this operation carries
         *     the `Deprecation`, `Sunset` and `Link` headers; after the sunset date it answers `410`.
         */
        get: operations["getPet"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * Format: int64
         * @description Unique identifier of an animal, assigned by the service.
         * @example 42
         */
        PetId: number;
        /**
         * Format: int64
         * @description Identifier of the category the animal belongs to. Stored as given. In a request body any JSON spelling of an integer in range is that integer, as JSON Schema counts it (`3`, `3.0`, `0.3e1`, `1e2`); a number whose exact value is not an integer is refused, even one that a double would round to an integer (`4503599627370496.5`), and so is an integer beyond 9007199254740991 in any spelling. Responses always write plain digits.
         * @example 3
         */
        CategoryId: number;
        /**
         * @description The animal's name: 1 to 100 characters (Unicode code points), stored and returned in Unicode Normalization Form C (NFC), so that "Café" typed either way is one name; a name whose NFC form is longer than 100 characters is refused. It may not hold control characters (`\p{Cc}`: U+0000-U+001F, U+007F-U+009F), bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), line or paragraph separators (U+2028, U+2029) or unpaired surrogates (U+D800-U+DFFF alone, which no store can keep), and it may not consist only of white space and invisible characters: Unicode's White_Space, Default_Ignorable_Code_Point and format characters (`\p{Cf}`), and U+2800 BRAILLE PATTERN BLANK. The pattern says all of this, and means the same with and without ECMA-262's `u` flag (a character above U+FFFF is one code point with it, a surrogate pair without it, and either way it is accepted; its lookaheads refuse a surrogate that is not part of a pair in both), except for the invisible characters above U+FFFF (U+110BD, U+110CD, U+13430-U+1343F, U+1BCA0-U+1BCA3, U+1D173-U+1D17A and the tags and variation selectors of U+E0000-U+E0FFF): no pattern can name those so that it means the same in both modes, so it takes them as visible, and the service refuses a name made only of invisible characters with `400` all the same. The invisible characters up to U+FFFF it names are spaces, U+00AD, U+034F, U+0600-U+0605, U+06DD, U+070F, U+0890, U+0891, U+08E2, Hangul fillers, U+17B4-U+17B5, Mongolian and other variation selectors, U+200B-U+200D, U+2060-U+2065, U+206A-U+206F, U+2800, U+FEFF and U+FFF0-U+FFFB. It matches in time linear in the name's length (`npm run lint` proves every pattern of this contract so).
         * @example Rex
         */
        PetName: string;
        /**
         * @description Availability status of an animal.
         * @example available
         * @enum {string}
         */
        PetStatus: "available" | "pending" | "sold";
        /** @description An animal to add. Fields other than these are refused. */
        NewPet: {
            name: components["schemas"]["PetName"];
            categoryId: components["schemas"]["CategoryId"];
            /** @default available */
            status?: components["schemas"]["PetStatus"];
        };
        /** @description An animal in the store. */
        Pet: {
            id: components["schemas"]["PetId"];
            name: components["schemas"]["PetName"];
            categoryId: components["schemas"]["CategoryId"];
            status: components["schemas"]["PetStatus"];
        };
        /**
         * @description Machine-readable error code; the set is closed and listed in the introduction.
         * @example invalid_request
         * @enum {string}
         */
        ErrorCode: "invalid_request" | "unauthorized" | "not_found" | "method_not_allowed" | "idempotency_key_in_use" | "gone" | "payload_too_large" | "unsupported_media_type" | "idempotency_key_reused" | "request_header_fields_too_large" | "rate_limited" | "key_temporarily_banned" | "internal_error" | "not_implemented" | "service_unavailable";
        /** @description One offending field of a request. */
        ErrorDetail: {
            /**
             * @description Where the field is (`body`, `query`, `path` or `header`) and its name, joined by a dot (`body.categoryId`, `query.limit`, `header.idempotency-key`); the place alone when the whole of it is at fault (`body` for a body that is missing or not JSON), and `request` when the request as a whole is, such as one that is not valid HTTP (a method HTTP does not have, a header line without a colon, a malformed request line).
             * @example body.categoryId
             */
            field: string;
            /**
             * @description What is wrong with the field.
             * @example must be <= 9007199254740991
             */
            message: string;
        };
        /** @description The body of every error response. */
        Error: {
            code: components["schemas"]["ErrorCode"];
            /**
             * @description Human-readable description of what went wrong.
             * @example The request is invalid; see details.
             */
            message: string;
            /**
             * @description The HTTP status code of the response.
             * @example 400
             */
            status: number;
            /** @description One entry per offending field, on `400` responses; at most 10. */
            details?: components["schemas"]["ErrorDetail"][];
        };
    };
    responses: {
        /** @description A parameter, header or the body is missing, malformed or out of range. */
        BadRequest: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The API key is missing, malformed, unknown, revoked or for another environment. */
        Unauthorized: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description No animal has this identifier. The 404 of `getPet`, with the deprecation headers that
         *     every response of that deprecated operation carries; an operation that is not deprecated
         *     needs a 404 response of its own, without them.
         */
        GetPetNotFound: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Deprecation: components["headers"]["Deprecation"];
                Sunset: components["headers"]["Sunset"];
                Link: components["headers"]["LinkSuccessor"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description `getPet` was removed on its sunset date. Carries the deprecation headers every response of
         *     that operation carries.
         */
        GetPetGone: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Deprecation: components["headers"]["Deprecation"];
                Sunset: components["headers"]["Sunset"];
                Link: components["headers"]["LinkSuccessor"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description A request with the same `Idempotency-Key` is still being processed; retry after
         *     `Retry-After` seconds, when its hold on the key ends unless it renews it (at most 3 seconds;
         *     a request renews its hold while it runs, and one cut off by a failure lets it end).
         */
        IdempotencyKeyInUse: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The `Idempotency-Key` was already used with a different body. */
        IdempotencyKeyReused: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request body is larger than the service accepts (16 KiB). */
        PayloadTooLarge: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The request headers are larger than the service accepts. Sent before the request is
         *     routed, so it carries no operation's own headers (a deprecated operation's `Deprecation`,
         *     `Sunset` and `Link`), and the connection is closed after it.
         */
        RequestHeaderFieldsTooLarge: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request body is not `application/json`. */
        UnsupportedMediaType: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The limit is used up (`rate_limited`), or the key is temporarily banned for ignoring
         *     `Retry-After` (`key_temporarily_banned`). Wait `Retry-After` seconds before retrying.
         */
        TooManyRequests: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Something failed inside the service. Nothing internal is revealed; quote `X-Request-Id` when reporting it. */
        InternalError: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A dependency of the service is unavailable. Wait `Retry-After` seconds before retrying. */
        ServiceUnavailable: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The animal's identifier is malformed or out of range. The 400 of `getPet`, with the
         *     deprecation headers that every response of that deprecated operation carries.
         */
        GetPetBadRequest: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Deprecation: components["headers"]["Deprecation"];
                Sunset: components["headers"]["Sunset"];
                Link: components["headers"]["LinkSuccessor"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The API key is missing, malformed, unknown, revoked or for another environment. The response
         *     of `getPet`, with the deprecation headers that every response of that deprecated operation
         *     carries.
         */
        GetPetUnauthorized: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                Deprecation: components["headers"]["Deprecation"];
                Sunset: components["headers"]["Sunset"];
                Link: components["headers"]["LinkSuccessor"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The limit is used up (`rate_limited`), or the key is temporarily banned for ignoring
         *     `Retry-After` (`key_temporarily_banned`). Wait `Retry-After` seconds before retrying.
         *     The response of `getPet`, with the deprecation headers that every response of that
         *     deprecated operation carries.
         */
        GetPetTooManyRequests: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                Deprecation: components["headers"]["Deprecation"];
                Sunset: components["headers"]["Sunset"];
                Link: components["headers"]["LinkSuccessor"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description Something failed inside the service. Nothing internal is revealed; quote `X-Request-Id` when
         *     reporting it. The response of `getPet`, with the deprecation headers that every response of
         *     that deprecated operation carries.
         */
        GetPetInternalError: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Deprecation: components["headers"]["Deprecation"];
                Sunset: components["headers"]["Sunset"];
                Link: components["headers"]["LinkSuccessor"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description A dependency of the service is unavailable. Wait `Retry-After` seconds before retrying. The
         *     response of `getPet`, with the deprecation headers that every response of that deprecated
         *     operation carries.
         */
        GetPetServiceUnavailable: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                Deprecation: components["headers"]["Deprecation"];
                Sunset: components["headers"]["Sunset"];
                Link: components["headers"]["LinkSuccessor"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /**
         * @description The largest number of animals to return, written in decimal digits only, without a leading zero: `01`, `1.0`, `1e1`, `+1` or `0x14` is refused with `400`, not read as a number.
         * @example 20
         */
        Limit: number;
        /**
         * @description When present, only animals with this availability status are returned.
         * @example available
         */
        StatusFilter: components["schemas"]["PetStatus"];
        /**
         * @description Opaque position in the list, taken from the `Link` header of the previous page. Do not
         *     build or change it yourself: its form may change at any time.
         * @example MjA
         */
        Cursor: string;
        /**
         * @description The identifier of the animal, written in decimal digits only, without a leading zero: `00042`, `42.0`, `4.2e1`, `+42` or `0x2A` is refused with `400`, not read as a number.
         * @example 42
         */
        PetId: components["schemas"]["PetId"];
        /**
         * @description A key of your choosing, unique per animal you mean to add (a UUID is a good choice). A
         *     retry with the same key and body returns the first response and creates nothing; the
         *     same key with another body is refused with `422`, and a retry while the first request
         *     is still in progress with `409`. Keys are scoped to your API key and kept for at least
         *     24 hours.
         * @example 5f1c9a56-8a0e-4a8b-9c53-2d3a4f6b7e01
         */
        IdempotencyKey: string;
    };
    requestBodies: never;
    headers: {
        /**
         * @description The limit of the window closest to running out; on a `429`, of the window that refused the request.
         * @example 60
         */
        "X-RateLimit-Limit": number;
        /**
         * @description Requests remaining in that window.
         * @example 59
         */
        "X-RateLimit-Remaining": number;
        /**
         * @description Unix timestamp, in seconds, at which that window resets.
         * @example 1798761600
         */
        "X-RateLimit-Reset": number;
        /**
         * @description Identifier of the request, to quote when reporting a problem. A valid `X-Request-Id` sent by the client is echoed.
         * @example 0f6a7c3e-5d2b-4b8e-9a41-7c2d9e8b1f30
         */
        "X-Request-Id": string;
        /**
         * @description Seconds to wait before sending another request.
         * @example 30
         */
        "Retry-After": number;
        /**
         * @description Present, with the value `true`, when the response is the stored answer to an earlier request with the same `Idempotency-Key`.
         * @example true
         */
        "Idempotent-Replayed": "true";
        /**
         * @description The authentication scheme to use (RFC 9110, section 11.6.1).
         * @example Bearer realm="animal-store"
         */
        "WWW-Authenticate": string;
        /**
         * @description When the operation was deprecated, as an RFC 9745 structured date (`@` and a Unix timestamp).
         * @example @1767225600
         */
        Deprecation: string;
        /**
         * @description When the operation will be removed (RFC 8594).
         * @example Thu, 05 Dec 2030 00:00:00 GMT
         */
        Sunset: "Thu, 05 Dec 2030 00:00:00 GMT";
        /**
         * @description The replacement of the deprecated operation, with `rel="successor-version"`.
         * @example </v1/pets>; rel="successor-version"
         */
        LinkSuccessor: string;
        /**
         * @description Present when more animals follow; the target is the next page, with `rel="next"`.
         * @example </v1/pets?limit=20&cursor=MjA>; rel="next"
         */
        LinkNext: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listPets: {
        parameters: {
            query?: {
                /**
                 * @description The largest number of animals to return, written in decimal digits only, without a leading zero: `01`, `1.0`, `1e1`, `+1` or `0x14` is refused with `400`, not read as a number.
                 * @example 20
                 */
                limit?: components["parameters"]["Limit"];
                /**
                 * @description When present, only animals with this availability status are returned.
                 * @example available
                 */
                status?: components["parameters"]["StatusFilter"];
                /**
                 * @description Opaque position in the list, taken from the `Link` header of the previous page. Do not
                 *     build or change it yourself: its form may change at any time.
                 * @example MjA
                 */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of animals, possibly empty. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Link: components["headers"]["LinkNext"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Pet"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createPet: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description A key of your choosing, unique per animal you mean to add (a UUID is a good choice). A
                 *     retry with the same key and body returns the first response and creates nothing; the
                 *     same key with another body is refused with `422`, and a retry while the first request
                 *     is still in progress with `409`. Keys are scoped to your API key and kept for at least
                 *     24 hours.
                 * @example 5f1c9a56-8a0e-4a8b-9c53-2d3a4f6b7e01
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewPet"];
            };
        };
        responses: {
            /**
             * @description The animal was added; the body is the stored animal. A retry with the same
             *     `Idempotency-Key` and body gets this same response again, with
             *     `Idempotent-Replayed: true`, and adds nothing.
             */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Pet"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    followPets: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description The `id` of the last event received; the stream resumes with the animal after it.
                 * @example 42
                 */
                "Last-Event-ID"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The events, as animals are added. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        /** @description The animal's `id`; in the first event, the last one's before the stream. */
                        id: string;
                        /** @enum {string} */
                        event?: "added";
                        /** @description The animal added, as JSON. */
                        data?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The identifier of the animal, written in decimal digits only, without a leading zero: `00042`, `42.0`, `4.2e1`, `+42` or `0x2A` is refused with `400`, not read as a number.
                 * @example 42
                 */
                petId: components["parameters"]["PetId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The animal. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["LinkSuccessor"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Pet"];
                };
            };
            400: components["responses"]["GetPetBadRequest"];
            401: components["responses"]["GetPetUnauthorized"];
            404: components["responses"]["GetPetNotFound"];
            410: components["responses"]["GetPetGone"];
            429: components["responses"]["GetPetTooManyRequests"];
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["GetPetInternalError"];
            503: components["responses"]["GetPetServiceUnavailable"];
        };
    };
}
