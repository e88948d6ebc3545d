// Generated from docs/openapi.json by apps/console/scripts/write-api-types.ts; do not edit.

export interface paths {
    "/api/v1/{applicationId}/season": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The season end seasonal tasks expire at */
        get: operations["getSeason"];
        /**
         * Set the season end for seasonal tasks assigned from now on (role admin)
         * @description A 400 (VALIDATION_FAILED) also when endsAt is not in the future, a rule of the clock the schema cannot state.
         */
        put: operations["setSeason"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{applicationId}/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the application's tasks (isAchievement=true: its achievements); children are listed too and nested in their parent */
        get: operations["listApplicationTasks"];
        put?: never;
        /**
         * Create a task or achievement, a composite with its children inline (role admin)
         * @description A 400 (VALIDATION_FAILED) also when a rule across fields is broken, such as: an achievement is lifetime; children share their parent's family and isAchievement and have no children; names are not blank; reward items are distinct.
         */
        post: operations["createApplicationTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{applicationId}/tasks/{taskId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One application task */
        get: operations["getApplicationTask"];
        put?: never;
        post?: never;
        /** Archive a task with its children: hidden from the catalog and assignment; held gamer tasks keep working (role admin) */
        delete: operations["archiveApplicationTask"];
        options?: never;
        head?: never;
        /**
         * Change fields of a task; reaches future assignments only (role admin)
         * @description A 400 (VALIDATION_FAILED) also when a rule across fields is broken, such as: an achievement is lifetime; children share their parent's family and isAchievement and have no children; names are not blank; reward items are distinct. A patch is checked against the stored task it changes.
         */
        patch: operations["updateApplicationTask"];
        trace?: never;
    };
    "/api/v1/achievements": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The gamer's achievements (every achievement of the application, tracked without assignment) */
        get: operations["listAchievements"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/dead-letters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Stat events of the application the consumer gave up on, oldest first (role admin); next page in Link: rel="next" */
        get: operations["adminListDeadLetters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/dead-letters/{sequence}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a dead letter without replaying it (role admin) */
        delete: operations["adminDeleteDeadLetter"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/dead-letters/{sequence}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Publish a dead-lettered event again, unchanged (same eventId, so it never counts twice), then delete the letter (role admin) */
        post: operations["adminReplayDeadLetter"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/dead-letters/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replay every dead letter of the application, as one replay each (role admin) */
        post: operations["adminReplayAllDeadLetters"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/gamers/{gamerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A gamer's active tasks with progress, achievements and inventory (role admin); empty lists for a gamer without any */
        get: operations["adminGetGamerProgress"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness of the tasks service, stat-consumer lag and the application's dead-letter count (role admin) */
        get: operations["adminTasksHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List friends */
        get: operations["listFriends"];
        put?: never;
        /** Send a friend request (accepts a crossed pending request) */
        post: operations["sendFriendRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/{friendshipId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a friend */
        delete: operations["unfriend"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/{friendshipId}/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Accept an incoming friend request */
        post: operations["acceptFriendRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/admin/gamers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Find gamers of the token's application by display-name prefix, nobody excluded (role admin) */
        get: operations["adminSearchGamers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/admin/gamers/{gamerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A gamer's profile, friends, pending requests and blocks (role admin); 404 for a gamer the friendship service never saw */
        get: operations["adminGetGamerRelations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/admin/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness of the friendship service (role admin) */
        get: operations["adminFriendshipHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/block": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Block a gamer (removes any friendship or request between the two) */
        post: operations["blockGamer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/blocked": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List gamers the caller blocks */
        get: operations["listBlocked"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/blocked/{friendshipId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Unblock a gamer */
        delete: operations["unblockGamer"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/requests/incoming": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List incoming friend requests (user is the sender) */
        get: operations["listIncomingRequests"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/requests/incoming/{friendshipId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Reject an incoming friend request */
        delete: operations["rejectFriendRequest"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/requests/outgoing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List outgoing friend requests (user is the recipient) */
        get: operations["listOutgoingRequests"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/requests/outgoing/{friendshipId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Cancel an outgoing friend request */
        delete: operations["cancelFriendRequest"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/friendship/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search gamers by display-name prefix */
        get: operations["searchGamers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/inventory": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The gamer's inventory items */
        get: operations["listInventory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Report one game of one gamer (role server); 202 once JetStream stored it */
        post: operations["reportStats"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The gamer's active tasks with their child tasks */
        get: operations["listGamerTasks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/{taskId}/claim": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Claim a completed gamer task's rewards into the inventory, exactly once */
        post: operations["claimTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/assign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Assign numberOfTasks random tasks of a family the gamer does not hold (seasonal: all) */
        post: operations["assignTasks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The admin console (a single page; its data comes from the admin API) */
        get: operations["consolePage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/assets/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A built script, style sheet or image of the console */
        get: operations["consoleAsset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/config.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** How the console signs in (token paste, OIDC with PKCE) */
        get: operations["consoleConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (text exposition format) */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This OpenAPI document (gateway only) */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the process and every dependency answer (the gateway: both services) */
        get: operations["readyz"];
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
        Problem: {
            /** @description URI reference naming the problem type */
            type: string;
            title: string;
            status: number;
            detail?: string;
            /** @description stable UPPER_SNAKE error code */
            code: string;
            instance?: string;
            requestId?: string;
            /** @description validation failures */
            errors?: {
                path: string;
                message: string;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getSeason: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description UUID */
                applicationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        applicationId: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601 date-time, UTC
                         */
                        endsAt: string;
                        /**
                         * @description admin-set, or the end of the current calendar quarter while unset
                         * @enum {unknown}
                         */
                        source: "admin" | "quarter";
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    setSeason: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description UUID */
                applicationId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date-time
                     * @description ISO 8601 date-time, UTC
                     */
                    endsAt: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        applicationId: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601 date-time, UTC
                         */
                        endsAt: string;
                        /**
                         * @description admin-set, or the end of the current calendar quarter while unset
                         * @enum {unknown}
                         */
                        source: "admin" | "quarter";
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the size limit (BODY_LIMIT_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body of another media type than application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listApplicationTasks: {
        parameters: {
            query?: {
                /** @description true returns achievements, otherwise tasks */
                isAchievement?: "true" | "false" | "";
            };
            header?: never;
            path: {
                /** @description UUID */
                applicationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        id: string;
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        applicationId: string;
                        name: string;
                        /** @description what must be done */
                        description: string;
                        /** @description minimum value to reach for completion */
                        targetValue: number;
                        /** @description games within which the target must be reached; 0 means no limit */
                        numberOfGames: number;
                        /**
                         * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                         * @enum {unknown}
                         */
                        family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                        /** @description null when there is no parent */
                        parentTaskId: string | null;
                        /** @description the game stat the task is tied to */
                        applicationStatsId: string;
                        isAchievement: boolean;
                        rewards: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            inventoryItemId: string;
                            quantity: number;
                        }[];
                        /** @description child tasks of a composite parent */
                        children: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            applicationId: string;
                            name: string;
                            /** @description what must be done */
                            description: string;
                            /** @description minimum value to reach for completion */
                            targetValue: number;
                            /** @description games within which the target must be reached; 0 means no limit */
                            numberOfGames: number;
                            /**
                             * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                             * @enum {unknown}
                             */
                            family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                            /** @description null when there is no parent */
                            parentTaskId: string | null;
                            /** @description the game stat the task is tied to */
                            applicationStatsId: string;
                            isAchievement: boolean;
                            rewards: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                inventoryItemId: string;
                                quantity: number;
                            }[];
                        }[];
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createApplicationTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description UUID */
                applicationId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @description what must be done */
                    description?: string;
                    /** @description minimum value to reach for completion */
                    targetValue: number;
                    /** @description games within which the target must be reached; 0 means no limit */
                    numberOfGames: number;
                    /** @description the game stat the task is tied to */
                    applicationStatsId: string;
                    /** @description at most one entry per inventory item */
                    rewards?: {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        inventoryItemId: string;
                        quantity: number;
                    }[];
                    /**
                     * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                     * @enum {unknown}
                     */
                    family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                    /** @description default false; an achievement is always lifetime */
                    isAchievement?: boolean;
                    /** @description children are created inline in their parent */
                    parentTaskId?: null;
                    /** @description two or more child tasks make this a composite */
                    children?: {
                        name: string;
                        /** @description what must be done */
                        description?: string;
                        /** @description minimum value to reach for completion */
                        targetValue: number;
                        /** @description games within which the target must be reached; 0 means no limit */
                        numberOfGames: number;
                        /** @description the game stat the task is tied to */
                        applicationStatsId: string;
                        /** @description at most one entry per inventory item */
                        rewards?: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            inventoryItemId: string;
                            quantity: number;
                        }[];
                        /**
                         * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                         * @enum {unknown}
                         */
                        family?: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                        isAchievement?: boolean;
                        parentTaskId?: null;
                        /** @description refused: a child task cannot have children */
                        children?: unknown[];
                    }[];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        id: string;
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        applicationId: string;
                        name: string;
                        /** @description what must be done */
                        description: string;
                        /** @description minimum value to reach for completion */
                        targetValue: number;
                        /** @description games within which the target must be reached; 0 means no limit */
                        numberOfGames: number;
                        /**
                         * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                         * @enum {unknown}
                         */
                        family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                        /** @description null when there is no parent */
                        parentTaskId: string | null;
                        /** @description the game stat the task is tied to */
                        applicationStatsId: string;
                        isAchievement: boolean;
                        rewards: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            inventoryItemId: string;
                            quantity: number;
                        }[];
                        /** @description child tasks of a composite parent */
                        children: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            applicationId: string;
                            name: string;
                            /** @description what must be done */
                            description: string;
                            /** @description minimum value to reach for completion */
                            targetValue: number;
                            /** @description games within which the target must be reached; 0 means no limit */
                            numberOfGames: number;
                            /**
                             * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                             * @enum {unknown}
                             */
                            family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                            /** @description null when there is no parent */
                            parentTaskId: string | null;
                            /** @description the game stat the task is tied to */
                            applicationStatsId: string;
                            isAchievement: boolean;
                            rewards: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                inventoryItemId: string;
                                quantity: number;
                            }[];
                        }[];
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the size limit (BODY_LIMIT_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body of another media type than application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getApplicationTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description UUID */
                applicationId: string;
                /** @description UUID */
                taskId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        id: string;
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        applicationId: string;
                        name: string;
                        /** @description what must be done */
                        description: string;
                        /** @description minimum value to reach for completion */
                        targetValue: number;
                        /** @description games within which the target must be reached; 0 means no limit */
                        numberOfGames: number;
                        /**
                         * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                         * @enum {unknown}
                         */
                        family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                        /** @description null when there is no parent */
                        parentTaskId: string | null;
                        /** @description the game stat the task is tied to */
                        applicationStatsId: string;
                        isAchievement: boolean;
                        rewards: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            inventoryItemId: string;
                            quantity: number;
                        }[];
                        /** @description child tasks of a composite parent */
                        children: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            applicationId: string;
                            name: string;
                            /** @description what must be done */
                            description: string;
                            /** @description minimum value to reach for completion */
                            targetValue: number;
                            /** @description games within which the target must be reached; 0 means no limit */
                            numberOfGames: number;
                            /**
                             * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                             * @enum {unknown}
                             */
                            family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                            /** @description null when there is no parent */
                            parentTaskId: string | null;
                            /** @description the game stat the task is tied to */
                            applicationStatsId: string;
                            isAchievement: boolean;
                            rewards: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                inventoryItemId: string;
                                quantity: number;
                            }[];
                        }[];
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    archiveApplicationTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description UUID */
                applicationId: string;
                /** @description UUID */
                taskId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateApplicationTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description UUID */
                applicationId: string;
                /** @description UUID */
                taskId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @description what must be done */
                    description?: string;
                    /** @description minimum value to reach for completion */
                    targetValue?: number;
                    /** @description games within which the target must be reached; 0 means no limit */
                    numberOfGames?: number;
                    /** @description the game stat the task is tied to */
                    applicationStatsId?: string;
                    /**
                     * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                     * @enum {unknown}
                     */
                    family?: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                    isAchievement?: boolean;
                    rewards?: {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        inventoryItemId: string;
                        quantity: number;
                    }[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        id: string;
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        applicationId: string;
                        name: string;
                        /** @description what must be done */
                        description: string;
                        /** @description minimum value to reach for completion */
                        targetValue: number;
                        /** @description games within which the target must be reached; 0 means no limit */
                        numberOfGames: number;
                        /**
                         * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                         * @enum {unknown}
                         */
                        family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                        /** @description null when there is no parent */
                        parentTaskId: string | null;
                        /** @description the game stat the task is tied to */
                        applicationStatsId: string;
                        isAchievement: boolean;
                        rewards: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            inventoryItemId: string;
                            quantity: number;
                        }[];
                        /** @description child tasks of a composite parent */
                        children: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            applicationId: string;
                            name: string;
                            /** @description what must be done */
                            description: string;
                            /** @description minimum value to reach for completion */
                            targetValue: number;
                            /** @description games within which the target must be reached; 0 means no limit */
                            numberOfGames: number;
                            /**
                             * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                             * @enum {unknown}
                             */
                            family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                            /** @description null when there is no parent */
                            parentTaskId: string | null;
                            /** @description the game stat the task is tied to */
                            applicationStatsId: string;
                            isAchievement: boolean;
                            rewards: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                inventoryItemId: string;
                                quantity: number;
                            }[];
                        }[];
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the size limit (BODY_LIMIT_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body of another media type than application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listAchievements: {
        parameters: {
            query?: {
                /** @description true, false, or empty/absent for all */
                completed?: "true" | "false" | "";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description gamer task id: the taskId of POST /tasks/{taskId}/claim
                         */
                        id: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601 date-time, UTC
                         */
                        createdAt: string;
                        /** @description null for lifetime tasks and achievements */
                        expiredAt: string | null;
                        /** @description value reached in the current window; for a composite parent, the number of completed children */
                        progress: number;
                        /** @description games counted in the current numberOfGames window */
                        gamesPlayed: number;
                        completed: boolean;
                        /** @description rewards claimed into the inventory */
                        claimed: boolean;
                        task: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            applicationId: string;
                            name: string;
                            description: string;
                            applicationStatsId: string;
                            targetValue: number;
                            numberOfGames: number;
                            /**
                             * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                             * @enum {unknown}
                             */
                            family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                            parentTaskId: string | null;
                            isAchievement: boolean;
                            rewards: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                inventoryItemId: string;
                                quantity: number;
                            }[];
                            children: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                            }[];
                        };
                        /** @description child gamer tasks of a composite */
                        childTasks: {
                            /**
                             * Format: uuid
                             * @description gamer task id: the taskId of POST /tasks/{taskId}/claim
                             */
                            id: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601 date-time, UTC
                             */
                            createdAt: string;
                            /** @description null for lifetime tasks and achievements */
                            expiredAt: string | null;
                            /** @description value reached in the current window; for a composite parent, the number of completed children */
                            progress: number;
                            /** @description games counted in the current numberOfGames window */
                            gamesPlayed: number;
                            completed: boolean;
                            /** @description rewards claimed into the inventory */
                            claimed: boolean;
                            task: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                applicationId: string;
                                name: string;
                                description: string;
                                applicationStatsId: string;
                                targetValue: number;
                                numberOfGames: number;
                                /**
                                 * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                                 * @enum {unknown}
                                 */
                                family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                                parentTaskId: string | null;
                                isAchievement: boolean;
                                rewards: {
                                    /**
                                     * Format: uuid
                                     * @description UUID
                                     */
                                    inventoryItemId: string;
                                    quantity: number;
                                }[];
                                children: {
                                    /**
                                     * Format: uuid
                                     * @description UUID
                                     */
                                    id: string;
                                }[];
                            };
                        }[];
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    adminListDeadLetters: {
        parameters: {
            query?: {
                /** @description entries per list (default 50, at most 200) */
                limit?: number;
                /** @description list dead letters after this sequence (the next page: Link rel="next") */
                after?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the dead letter's sequence in the dead-letter stream (its id) */
                        sequence: number;
                        reason: string;
                        /** @description validation errors of a malformed event; empty otherwise */
                        errors: string[];
                        /** @description the stats subject the event came on */
                        subject: string;
                        /** @description the event's sequence in the stats stream */
                        streamSequence: number;
                        deliveryCount: number;
                        /**
                         * Format: date-time
                         * @description ISO 8601 date-time, UTC
                         */
                        deadLetteredAt: string;
                        /** @description the event's eventId, null when the payload has none */
                        eventId: string | null;
                        /** @description the event's gamerId, null when the payload has none */
                        gamerId: string | null;
                        /** @description the original message body (UTF-8) */
                        payload: string;
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    adminDeleteDeadLetter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the dead letter's sequence in the dead-letter stream (its id) */
                sequence: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    adminReplayDeadLetter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the dead letter's sequence in the dead-letter stream (its id) */
                sequence: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the dead letter's sequence in the dead-letter stream (its id) */
                        sequence: number;
                        eventId: string | null;
                        /** @description the stats stream it was published to again */
                        stream: string;
                        /** @description its new sequence there */
                        seq: number;
                        /** @description JetStream already held this replay (a repeated replay within the duplicate window) */
                        duplicate: boolean;
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    adminReplayAllDeadLetters: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        replayed: {
                            /** @description the dead letter's sequence in the dead-letter stream (its id) */
                            sequence: number;
                            eventId: string | null;
                            /** @description the stats stream it was published to again */
                            stream: string;
                            /** @description its new sequence there */
                            seq: number;
                            /** @description JetStream already held this replay (a repeated replay within the duplicate window) */
                            duplicate: boolean;
                        }[];
                        failed: {
                            /** @description the dead letter's sequence in the dead-letter stream (its id) */
                            sequence: number;
                            detail: string;
                        }[];
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    adminGetGamerProgress: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description UUID */
                gamerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        gamerId: string;
                        /** @description active gamer tasks with their child tasks (as GET /tasks shows them to the gamer) */
                        tasks: {
                            /**
                             * Format: uuid
                             * @description gamer task id: the taskId of POST /tasks/{taskId}/claim
                             */
                            id: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601 date-time, UTC
                             */
                            createdAt: string;
                            /** @description null for lifetime tasks and achievements */
                            expiredAt: string | null;
                            /** @description value reached in the current window; for a composite parent, the number of completed children */
                            progress: number;
                            /** @description games counted in the current numberOfGames window */
                            gamesPlayed: number;
                            completed: boolean;
                            /** @description rewards claimed into the inventory */
                            claimed: boolean;
                            task: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                applicationId: string;
                                name: string;
                                description: string;
                                applicationStatsId: string;
                                targetValue: number;
                                numberOfGames: number;
                                /**
                                 * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                                 * @enum {unknown}
                                 */
                                family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                                parentTaskId: string | null;
                                isAchievement: boolean;
                                rewards: {
                                    /**
                                     * Format: uuid
                                     * @description UUID
                                     */
                                    inventoryItemId: string;
                                    quantity: number;
                                }[];
                                children: {
                                    /**
                                     * Format: uuid
                                     * @description UUID
                                     */
                                    id: string;
                                }[];
                            };
                            /** @description child gamer tasks of a composite */
                            childTasks: {
                                /**
                                 * Format: uuid
                                 * @description gamer task id: the taskId of POST /tasks/{taskId}/claim
                                 */
                                id: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 date-time, UTC
                                 */
                                createdAt: string;
                                /** @description null for lifetime tasks and achievements */
                                expiredAt: string | null;
                                /** @description value reached in the current window; for a composite parent, the number of completed children */
                                progress: number;
                                /** @description games counted in the current numberOfGames window */
                                gamesPlayed: number;
                                completed: boolean;
                                /** @description rewards claimed into the inventory */
                                claimed: boolean;
                                task: {
                                    /**
                                     * Format: uuid
                                     * @description UUID
                                     */
                                    id: string;
                                    /**
                                     * Format: uuid
                                     * @description UUID
                                     */
                                    applicationId: string;
                                    name: string;
                                    description: string;
                                    applicationStatsId: string;
                                    targetValue: number;
                                    numberOfGames: number;
                                    /**
                                     * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                                     * @enum {unknown}
                                     */
                                    family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                                    parentTaskId: string | null;
                                    isAchievement: boolean;
                                    rewards: {
                                        /**
                                         * Format: uuid
                                         * @description UUID
                                         */
                                        inventoryItemId: string;
                                        quantity: number;
                                    }[];
                                    children: {
                                        /**
                                         * Format: uuid
                                         * @description UUID
                                         */
                                        id: string;
                                    }[];
                                };
                            }[];
                        }[];
                        /** @description achievements the gamer has a record of (an achievement no event touched yet is not listed) */
                        achievements: {
                            /**
                             * Format: uuid
                             * @description gamer task id: the taskId of POST /tasks/{taskId}/claim
                             */
                            id: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601 date-time, UTC
                             */
                            createdAt: string;
                            /** @description null for lifetime tasks and achievements */
                            expiredAt: string | null;
                            /** @description value reached in the current window; for a composite parent, the number of completed children */
                            progress: number;
                            /** @description games counted in the current numberOfGames window */
                            gamesPlayed: number;
                            completed: boolean;
                            /** @description rewards claimed into the inventory */
                            claimed: boolean;
                            task: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                applicationId: string;
                                name: string;
                                description: string;
                                applicationStatsId: string;
                                targetValue: number;
                                numberOfGames: number;
                                /**
                                 * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                                 * @enum {unknown}
                                 */
                                family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                                parentTaskId: string | null;
                                isAchievement: boolean;
                                rewards: {
                                    /**
                                     * Format: uuid
                                     * @description UUID
                                     */
                                    inventoryItemId: string;
                                    quantity: number;
                                }[];
                                children: {
                                    /**
                                     * Format: uuid
                                     * @description UUID
                                     */
                                    id: string;
                                }[];
                            };
                            /** @description child gamer tasks of a composite */
                            childTasks: {
                                /**
                                 * Format: uuid
                                 * @description gamer task id: the taskId of POST /tasks/{taskId}/claim
                                 */
                                id: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 date-time, UTC
                                 */
                                createdAt: string;
                                /** @description null for lifetime tasks and achievements */
                                expiredAt: string | null;
                                /** @description value reached in the current window; for a composite parent, the number of completed children */
                                progress: number;
                                /** @description games counted in the current numberOfGames window */
                                gamesPlayed: number;
                                completed: boolean;
                                /** @description rewards claimed into the inventory */
                                claimed: boolean;
                                task: {
                                    /**
                                     * Format: uuid
                                     * @description UUID
                                     */
                                    id: string;
                                    /**
                                     * Format: uuid
                                     * @description UUID
                                     */
                                    applicationId: string;
                                    name: string;
                                    description: string;
                                    applicationStatsId: string;
                                    targetValue: number;
                                    numberOfGames: number;
                                    /**
                                     * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                                     * @enum {unknown}
                                     */
                                    family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                                    parentTaskId: string | null;
                                    isAchievement: boolean;
                                    rewards: {
                                        /**
                                         * Format: uuid
                                         * @description UUID
                                         */
                                        inventoryItemId: string;
                                        quantity: number;
                                    }[];
                                    children: {
                                        /**
                                         * Format: uuid
                                         * @description UUID
                                         */
                                        id: string;
                                    }[];
                                };
                            }[];
                        }[];
                        inventory: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            inventoryItemId: string;
                            quantity: number;
                        }[];
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    adminTasksHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        service: string;
                        status: "ok" | "unavailable";
                        checks?: {
                            [key: string]: "ok" | "failed";
                        };
                        /**
                         * Format: date-time
                         * @description ISO 8601 date-time, UTC
                         */
                        at: string;
                        /** @description null when NATS did not answer */
                        consumer: {
                            /** @description stat events stored but not yet delivered (the lag) */
                            pending: number;
                            /** @description delivered, not yet acknowledged */
                            ackPending: number;
                            /** @description delivered more than once, not yet acknowledged */
                            redelivered: number;
                            /** @description pull requests waiting */
                            waiting: number;
                        } | null;
                        stream: {
                            /** @description stat events the stream keeps (every application) */
                            messages: number;
                            /** @description sequence of the last stored stat event (every application); its growth is the event rate */
                            lastSequence: number;
                            lastEventAt: string | null;
                        } | null;
                        deadLetters: number | null;
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listFriends: {
        parameters: {
            query?: {
                /** @description page size (default 50) */
                limit?: number;
                /** @description opaque cursor from a Link: rel="next" header */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        id: string;
                        status: "pending" | "accepted";
                        user: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            displayName: string;
                            avatar: string;
                        };
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sendFriendRequest: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uuid
                     * @description UUID
                     */
                    target: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ok: boolean;
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the size limit (BODY_LIMIT_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body of another media type than application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    unfriend: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description UUID */
                friendshipId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ok: boolean;
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    acceptFriendRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description UUID */
                friendshipId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ok: boolean;
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    adminSearchGamers: {
        parameters: {
            query: {
                /** @description display-name prefix, case-insensitive, literal */
                displayName: string;
                /** @description result size (default 20) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        id: string;
                        displayName: string;
                        avatar: string;
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    adminGetGamerRelations: {
        parameters: {
            query?: {
                /** @description entries per list (default 50, at most 200) */
                limit?: number;
            };
            header?: never;
            path: {
                /** @description UUID */
                gamerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        profile: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            displayName: string;
                            avatar: string;
                        };
                        friends: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            status: "pending" | "accepted";
                            user: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                                displayName: string;
                                avatar: string;
                            };
                        }[];
                        /** @description pending requests to the gamer (user is the sender) */
                        incoming: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            status: "pending" | "accepted";
                            user: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                                displayName: string;
                                avatar: string;
                            };
                        }[];
                        /** @description pending requests of the gamer (user is the recipient) */
                        outgoing: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            status: "pending" | "accepted";
                            user: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                                displayName: string;
                                avatar: string;
                            };
                        }[];
                        /** @description gamers this gamer blocks */
                        blocked: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            toGamer: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                                displayName: string;
                                avatar: string;
                            };
                        }[];
                        /** @description gamers who block this gamer */
                        blockedBy: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            displayName: string;
                            avatar: string;
                        }[];
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    adminFriendshipHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        service: string;
                        status: "ok" | "unavailable";
                        checks?: {
                            [key: string]: "ok" | "failed";
                        };
                        /**
                         * Format: date-time
                         * @description ISO 8601 date-time, UTC
                         */
                        at: string;
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    blockGamer: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uuid
                     * @description UUID
                     */
                    target: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ok: boolean;
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the size limit (BODY_LIMIT_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body of another media type than application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listBlocked: {
        parameters: {
            query?: {
                /** @description page size (default 50) */
                limit?: number;
                /** @description opaque cursor from a Link: rel="next" header */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        id: string;
                        toGamer: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            displayName: string;
                            avatar: string;
                        };
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    unblockGamer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description UUID */
                friendshipId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ok: boolean;
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listIncomingRequests: {
        parameters: {
            query?: {
                /** @description page size (default 50) */
                limit?: number;
                /** @description opaque cursor from a Link: rel="next" header */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        id: string;
                        status: "pending" | "accepted";
                        user: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            displayName: string;
                            avatar: string;
                        };
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    rejectFriendRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description UUID */
                friendshipId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ok: boolean;
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listOutgoingRequests: {
        parameters: {
            query?: {
                /** @description page size (default 50) */
                limit?: number;
                /** @description opaque cursor from a Link: rel="next" header */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        id: string;
                        status: "pending" | "accepted";
                        user: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            displayName: string;
                            avatar: string;
                        };
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    cancelFriendRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description UUID */
                friendshipId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ok: boolean;
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    searchGamers: {
        parameters: {
            query: {
                /** @description display-name prefix, case-insensitive, literal */
                displayName: string;
                /** @description result size (default 20) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        id: string;
                        displayName: string;
                        avatar: string;
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listInventory: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        inventoryItemId: string;
                        quantity: number;
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    reportStats: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uuid
                     * @description the deduplication key, also the JetStream message id
                     */
                    eventId: string;
                    /**
                     * Format: uuid
                     * @description UUID
                     */
                    applicationId: string;
                    /**
                     * Format: uuid
                     * @description UUID
                     */
                    gamerId: string;
                    gameId: string;
                    /**
                     * Format: date-time
                     * @description ISO 8601 date-time, UTC
                     */
                    occurredAt: string;
                    stats: {
                        /** @description the game stat the task is tied to */
                        applicationStatsId: string;
                        /** @description the game's amount of the stat */
                        value: number;
                    }[];
                };
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        eventId: string;
                        /** @description JetStream already held this eventId (within its duplicate window) */
                        duplicate: boolean;
                        stream: string;
                        seq: number;
                    };
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the size limit (BODY_LIMIT_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body of another media type than application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listGamerTasks: {
        parameters: {
            query?: {
                /** @description true, false, or empty/absent for all */
                completed?: "true" | "false" | "";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description gamer task id: the taskId of POST /tasks/{taskId}/claim
                         */
                        id: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601 date-time, UTC
                         */
                        createdAt: string;
                        /** @description null for lifetime tasks and achievements */
                        expiredAt: string | null;
                        /** @description value reached in the current window; for a composite parent, the number of completed children */
                        progress: number;
                        /** @description games counted in the current numberOfGames window */
                        gamesPlayed: number;
                        completed: boolean;
                        /** @description rewards claimed into the inventory */
                        claimed: boolean;
                        task: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            applicationId: string;
                            name: string;
                            description: string;
                            applicationStatsId: string;
                            targetValue: number;
                            numberOfGames: number;
                            /**
                             * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                             * @enum {unknown}
                             */
                            family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                            parentTaskId: string | null;
                            isAchievement: boolean;
                            rewards: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                inventoryItemId: string;
                                quantity: number;
                            }[];
                            children: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                            }[];
                        };
                        /** @description child gamer tasks of a composite */
                        childTasks: {
                            /**
                             * Format: uuid
                             * @description gamer task id: the taskId of POST /tasks/{taskId}/claim
                             */
                            id: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601 date-time, UTC
                             */
                            createdAt: string;
                            /** @description null for lifetime tasks and achievements */
                            expiredAt: string | null;
                            /** @description value reached in the current window; for a composite parent, the number of completed children */
                            progress: number;
                            /** @description games counted in the current numberOfGames window */
                            gamesPlayed: number;
                            completed: boolean;
                            /** @description rewards claimed into the inventory */
                            claimed: boolean;
                            task: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                applicationId: string;
                                name: string;
                                description: string;
                                applicationStatsId: string;
                                targetValue: number;
                                numberOfGames: number;
                                /**
                                 * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                                 * @enum {unknown}
                                 */
                                family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                                parentTaskId: string | null;
                                isAchievement: boolean;
                                rewards: {
                                    /**
                                     * Format: uuid
                                     * @description UUID
                                     */
                                    inventoryItemId: string;
                                    quantity: number;
                                }[];
                                children: {
                                    /**
                                     * Format: uuid
                                     * @description UUID
                                     */
                                    id: string;
                                }[];
                            };
                        }[];
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    claimTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the gamer task id (`id` in GET /tasks) */
                taskId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description UUID
                         */
                        inventoryItemId: string;
                        quantity: number;
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    assignTasks: {
        parameters: {
            query?: never;
            header?: {
                /** @description makes a retried assign safe: same key and body replay the first answer */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                     * @enum {unknown}
                     */
                    family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                    /** @description tasks to pick, at most 50 (a deployment may lower that with MAX_TASKS_PER_ASSIGN); ignored for seasonal, which assigns every seasonal task */
                    numberOfTasks: number;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description gamer task id: the taskId of POST /tasks/{taskId}/claim
                         */
                        id: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601 date-time, UTC
                         */
                        createdAt: string;
                        /** @description null for lifetime tasks and achievements */
                        expiredAt: string | null;
                        /** @description value reached in the current window; for a composite parent, the number of completed children */
                        progress: number;
                        /** @description games counted in the current numberOfGames window */
                        gamesPlayed: number;
                        completed: boolean;
                        /** @description rewards claimed into the inventory */
                        claimed: boolean;
                        task: {
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            id: string;
                            /**
                             * Format: uuid
                             * @description UUID
                             */
                            applicationId: string;
                            name: string;
                            description: string;
                            applicationStatsId: string;
                            targetValue: number;
                            numberOfGames: number;
                            /**
                             * @description daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses
                             * @enum {unknown}
                             */
                            family: "daily" | "weekly" | "monthly" | "seasonal" | "lifetime";
                            parentTaskId: string | null;
                            isAchievement: boolean;
                            rewards: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                inventoryItemId: string;
                                quantity: number;
                            }[];
                            children: {
                                /**
                                 * Format: uuid
                                 * @description UUID
                                 */
                                id: string;
                            }[];
                        };
                    }[];
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the size limit (BODY_LIMIT_BYTES) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body of another media type than application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS) */
            429: {
                headers: {
                    /** @description seconds until the window resets */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Upstream service timed out */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    consolePage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    consoleAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a built asset's file name */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description Invalid input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown, or not the caller's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    consoleConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description a pasted bearer token may sign in (development; CONSOLE_TOKEN_SIGN_IN) */
                        tokenSignIn: boolean;
                        /** @description authorization-code flow with PKCE, when configured (CONSOLE_OIDC_*) */
                        oidc: {
                            /** @description the identity provider's authorization endpoint */
                            authorizationUrl: string;
                            /** @description its token endpoint (the browser posts the code and PKCE verifier there) */
                            tokenUrl: string;
                            clientId: string;
                            scope: string;
                            /** @description an audience parameter some providers need for a JWT access token */
                            audience: string | null;
                            /**
                             * @description the token response field the API is called with
                             * @enum {unknown}
                             */
                            tokenField: "access_token" | "id_token";
                        } | null;
                    };
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    healthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        status: "ok" | "unavailable";
                        checks?: {
                            [key: string]: "ok" | "failed";
                        };
                    };
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        openapi: string;
                        info: {
                            [key: string]: unknown;
                        };
                        paths: {
                            [key: string]: unknown;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        status: "ok" | "unavailable";
                        checks?: {
                            [key: string]: "ok" | "failed";
                        };
                    };
                };
            };
            /** @description Method not allowed on this path (see Allow) */
            405: {
                headers: {
                    /** @description the methods this path takes */
                    Allow: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable (shutting down, or a dependency down) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        status: "ok" | "unavailable";
                        checks?: {
                            [key: string]: "ok" | "failed";
                        };
                    };
                };
            };
        };
    };
}
