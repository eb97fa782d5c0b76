// Generated from the server's /openapi.json by scripts/generate-api-types.mjs (run by
// `npm run build`): do not edit. test/console/api-types.test.ts fails when it is stale.
export interface paths {
  '/healthz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The process is up (no auth, no I/O) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description alive */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              ok: true;
            };
          };
        };
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
  '/readyz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The store and the queue answer (else 503) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description ready */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              ok: true;
              /** @enum {string} */
              store: 'ok';
              /** @enum {string} */
              queue: 'ok';
            };
          };
        };
        /** @description a backend is unreachable */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
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
  '/v1/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Exchange an API key for an HttpOnly session cookie (the console) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            apiKey: string;
          };
        };
      };
      responses: {
        /** @description signed in; the cookie is set */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sessions/current': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller: key, role and tenant */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description the caller */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Caller'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    /** Sign out (clears the cookie) */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description signed out */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/executions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Executions of the tenant, newest first (keyset pages) */
    get: {
      parameters: {
        query?: {
          status?: string;
          flowId?: string;
          from?: string;
          to?: string;
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description a page */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: components['schemas']['ExecutionSummary'][];
              nextCursor: string | null;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    put?: never;
    /**
     * Start an execution of a published flow or an inline document
     * @description Idempotent with an Idempotency-Key header or a given executionId: a repeat returns the same execution with 200. `?wait=30s` holds the answer until it settles.
     */
    post: {
      parameters: {
        query?: {
          wait?: string;
        };
        header?: {
          'idempotency-key'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['StartExecution'];
        };
      };
      responses: {
        /** @description started earlier by the same key or id */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Execution'];
          };
        };
        /** @description started */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Execution'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/executions/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The whole execution: status, input, result or error, waiting, the node timeline
     * @description `?wait=10s` holds the answer while the execution is queued or running, until it ends or waits (at most the given time).
     */
    get: {
      parameters: {
        query?: {
          wait?: string;
        };
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description the execution */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Execution'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    /** Delete a terminal execution (admin) */
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
        /** @description deleted */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/executions/{id}/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Deliver an event to an execution (kept in its inbox until a node waits for it) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            type: string;
            /** @description any JSON value */
            data?: unknown;
            eventId?: string;
          };
        };
      };
      responses: {
        /** @description accepted */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              executionId: string;
              eventId: string;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/executions/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Cancel a queued, running or waiting execution */
    post: {
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
        /** @description cancellation requested */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              executionId: string;
              /** @enum {boolean} */
              accepted: true;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/executions/{id}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Retry a failed execution from the node that failed
     * @description With an Idempotency-Key header a repeat is answered 202 again and asks for nothing more.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          'idempotency-key'?: string;
        };
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description retry enqueued */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              executionId: string;
              /** @enum {boolean} */
              accepted: true;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/executions/{id}/replay': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start a new execution of the same pinned version, with the same or an edited input
     * @description With an Idempotency-Key header a repeat returns the replay the first request started, with 200.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          'idempotency-key'?: string;
        };
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': {
            input?: {
              [key: string]: unknown;
            };
          };
        };
      };
      responses: {
        /** @description a repeat (same Idempotency-Key): the replay it started */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Execution'];
          };
        };
        /** @description the new execution */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Execution'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/executions/{id}/stream': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Follow an execution as Server-Sent Events
     * @description Events: `snapshot` (the whole execution view, as `GET /v1/executions/{id}`), then `update` (the whole view again) when it moved on (checkpoints saved between two reads of the server, 100 ms apart while it changes, come as one update), then `end` `{executionId, status, version, reason}` once the execution is completed, error or cancelled; the stream then closes. Event ids are the state versions and increase; reconnect with `Last-Event-ID` (or `?lastEventId=`) to get an `update` only if the execution moved past it. On server shutdown a final `shutdown` event is sent. Authenticate as usual, or with `?ticket=` from `POST …/stream-tickets` (EventSource cannot send headers).
     */
    get: {
      parameters: {
        query?: {
          /** @description a single-use stream ticket */
          ticket?: string;
          /** @description as the Last-Event-ID header */
          lastEventId?: string;
        };
        header?: {
          'last-event-id'?: string;
        };
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description the event stream */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': string;
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
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
  '/v1/executions/{id}/stream-tickets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** A single-use ticket (valid 60 s) to open this execution’s stream with ?ticket= */
    post: {
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
        /** @description the ticket */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['StreamTicket'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/executions/{id}/flow': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The flow document the execution runs (the definition pinned by its flowHash), and its graph
     * @description What the console draws as the execution’s graph. 404 when the execution is unknown, or its definition is no longer stored.
     */
    get: {
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
        /** @description the pinned document */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['PinnedFlow'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
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
  '/v1/executions/{id}/rerun': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start a new execution of the same pinned version that keeps the results of the nodes before fromNode and runs from it
     * @description With an Idempotency-Key header a repeat returns the rerun the first request started, with 200. With ?dryRun=true nothing starts: the answer lists what would run again, effectful nodes marked. 400 when fromNode never ran, is inside a loop, map, parallel or child flow body, or `results` names a node that is not kept; 409 when the definition is no longer stored.
     */
    post: {
      parameters: {
        query?: {
          dryRun?: 'true' | 'false';
        };
        header?: {
          'idempotency-key'?: string;
        };
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            fromNode: string;
            input?: {
              [key: string]: unknown;
            };
            /** @description results to keep instead of the saved ones, by node id (kept nodes only) */
            results?: {
              [key: string]: unknown;
            };
          };
        };
      };
      responses: {
        /** @description a dry run: what would run again; or a repeat (same Idempotency-Key): the rerun it started */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json':
              components['schemas']['RerunDryRun'] | components['schemas']['Execution'];
          };
        };
        /** @description the new execution (with rerunOf and fromNode) */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Execution'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/approvals': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Approval nodes waiting for a decision, newest execution first
     * @description Pages follow the waiting executions of the tenant: a page may be shorter than `limit` (even empty with a `nextCursor`) when the executions it read wait for something else.
     */
    get: {
      parameters: {
        query?: {
          /** @description only `pending` (default) */
          status?: 'pending';
          /** @description as listed by the approval node (exact match) */
          approver?: string;
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description a page */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: components['schemas']['Approval'][];
              nextCursor: string | null;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
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
  '/v1/approvals/{executionId}/{nodeId}/decisions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Record an approver’s decision; delivers approval_decision once the strategy is met
     * @description 403 for an approver not on the list, 409 for a second decision by the same approver, an approval already decided, or an execution not waiting at that node.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          executionId: string;
          nodeId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /**
             * @description as listed by the approval node (exact match)
             * @example alice@example.com
             */
            approver: string;
            /** @enum {string} */
            decision: 'approve' | 'reject';
            comment?: string;
          };
        };
      };
      responses: {
        /** @description recorded; the approval with its decisions so far */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Approval'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/approvals/{executionId}/{nodeId}/links': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Signed, single-use, expiring approve/reject links for an approver without an account
     * @description `expiresIn`: seconds, or a number with a unit (`90s`, `30m`, `24h`, `7d`); default 7 days, at most 90. The two links of a pair share one use.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          executionId: string;
          nodeId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /**
             * @description as listed by the approval node (exact match)
             * @example alice@example.com
             */
            approver: string;
            expiresIn?: string | number;
          };
        };
      };
      responses: {
        /** @description the links (give them to the approver only) */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              approveUrl: string;
              rejectUrl: string;
              expiresAt: string;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/approval-links/{token}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The confirmation page of a signed approval link (never decides) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          token: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description the confirmation page */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/html': string;
          };
        };
        /** @description a tampered, expired, used or unknown link (403), no such approval (404), or nothing left to decide (409) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/html': string;
          };
        };
      };
    };
    put?: never;
    /**
     * Decide through a signed approval link (once)
     * @description Body (optional): a form or JSON with `comment`. Answers with a page, or with the approval as JSON when `Accept: application/json` (refusals are then problem+json).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          token: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description recorded */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/html': string;
            'application/json': components['schemas']['Approval'];
          };
        };
        /** @description a tampered, expired, used or unknown link (403), no such approval (404), or nothing left to decide (409) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/html': string;
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/flows': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant’s flows in id order (keyset pages) */
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description a page */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: components['schemas']['FlowSummary'][];
              nextCursor: string | null;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
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
  '/v1/flows/{flowId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A flow and its versions, newest first */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          flowId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description the flow */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Flow'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
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
  '/v1/flows/{flowId}/versions/{version}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A version with its document */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          flowId: string;
          version: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description the version */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['FlowVersion'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    /**
     * Save a draft (JSON, or YAML with Content-Type: application/yaml)
     * @description The document is validated (422 invalid_flow lists every issue). Its flow_id and version are set from the URL when absent and must agree when present. A published version is immutable: the same content again is 200, other content 409.
     */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          flowId: string;
          version: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never>;
          'application/yaml': string;
        };
      };
      responses: {
        /** @description the draft replaced, or the same published content */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['FlowVersion'];
          };
        };
        /** @description a new draft */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['FlowVersion'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    post?: never;
    /** Delete a draft (a published version is 409) */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          flowId: string;
          version: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description deleted */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/flows/{flowId}/versions/{version}/publish': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Publish a draft: from then on executions start it by flowId
     * @description Refused (422) when the analysis finds an error, a reference to an unpublished flow included. Publishing a published version again is 200.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          flowId: string;
          version: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description published */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['FlowVersion'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/flows/validate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Static analysis of a document (docs/validate.md); 200 even when it is invalid */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['ValidateFlow'];
        };
      };
      responses: {
        /** @description the issues */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['FlowValidation'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/flows/dry-run': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Run a flow in process, storing nothing, with a node trace
     * @description Give `flow`, or `flowId` (+ `version`, a draft or published; absent: the latest published). Pinned nodes give their output without running; `onlyNode` runs that node alone. A suspending node stops the run (`waiting`). The flow’s failure is `error` with HTTP 200. Private networks are out of reach unless the server allows them; the run is cut after 10 s.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['DryRun'];
        };
      };
      responses: {
        /** @description how the run went */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['DryRunResult'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/schedules': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Schedules of the tenant */
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description a page */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: components['schemas']['Schedule'][];
              nextCursor: string | null;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    put?: never;
    /**
     * Create a schedule (cron of 5 or 6 fields, IANA time zone, default UTC)
     * @description With an Idempotency-Key header a repeat returns the schedule the first request made, with 200.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          'idempotency-key'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            flowId: string;
            version?: string | null;
            cron: string;
            timezone?: string;
            input?: {
              [key: string]: unknown;
            };
            enabled?: boolean;
            /** @enum {string} */
            overlap?: 'allow' | 'skip';
          };
        };
      };
      responses: {
        /** @description a repeat (same Idempotency-Key): the schedule it made */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Schedule'];
          };
        };
        /** @description created */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Schedule'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/schedules/preview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The next fire times of a cron pattern in a time zone */
    get: {
      parameters: {
        query: {
          cron: string;
          timezone?: string;
          count?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description next times */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              cron: string;
              timezone: string;
              times: string[];
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
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
  '/v1/schedules/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One schedule */
    get: {
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
        /** @description the schedule */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Schedule'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    /** Delete a schedule */
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
        /** @description deleted */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    /** Change a schedule (enable/disable, cron, input, …) */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            flowId?: string;
            version?: string | null;
            cron?: string;
            timezone?: string;
            input?: {
              [key: string]: unknown;
            };
            enabled?: boolean;
            /** @enum {string} */
            overlap?: 'allow' | 'skip';
          };
        };
      };
      responses: {
        /** @description the changed schedule */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Schedule'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    trace?: never;
  };
  '/v1/schedules/{id}/trigger': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Fire the schedule now (outside its slots) */
    post: {
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
        /** @description a repeat (same Idempotency-Key): the run it started */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Execution'];
          };
        };
        /** @description the execution started */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Execution'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dead-letters': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Messages that could not be handled, newest first */
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description a page */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: components['schemas']['DeadLetter'][];
              nextCursor: string | null;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    /** Remove every dead letter (platform admin) */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description purged */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              purged: number;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dead-letters/{id}/replay': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Put a dead letter back on the queue (after a fix) */
    post: {
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
        /** @description replayed */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id: string;
              /** @enum {boolean} */
              replayed: true;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/bulk-operations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel, retry or replay many executions, by filter or by ids; runs in batches
     * @description With an Idempotency-Key header a repeat answers the operation the first request made.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          'idempotency-key'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @enum {string} */
            action: 'cancel' | 'retry' | 'replay';
            filter:
              | {
                  ids: string[];
                }
              | {
                  status?:
                    | (
                        | 'queued'
                        | 'running'
                        | 'waiting'
                        | 'completed'
                        | 'error'
                        | 'cancelled'
                        | 'suspended'
                      )[]
                    | string;
                  flowId?: string;
                  from?: string;
                  to?: string;
                };
          };
        };
      };
      responses: {
        /** @description accepted */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id: string;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/bulk-operations/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Progress of a bulk operation */
    get: {
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
        /** @description the operation */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['BulkOperation'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
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
  '/v1/workers': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Live workers, from their heartbeats */
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description live workers */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: components['schemas']['Worker'][];
              nextCursor: string | null;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
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
  '/v1/api-keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** API keys (a tenant admin sees its tenant’s; a platform admin all) */
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description keys */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: components['schemas']['ApiKey'][];
              nextCursor: string | null;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    put?: never;
    /**
     * Create a key; its token is in this answer only
     * @description With an Idempotency-Key header a repeat makes no second key: 409 naming the key the first made (its token cannot be shown again).
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          'idempotency-key'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name: string;
            /** @enum {string} */
            role: 'viewer' | 'operator' | 'admin';
            tenant?: string;
          };
        };
      };
      responses: {
        /** @description created */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              key: components['schemas']['ApiKey'];
              token: string;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/api-keys/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Revoke a key (its sessions end too) */
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
        /** @description revoked */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/audit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every write of the tenant, newest first */
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description a page */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: components['schemas']['AuditEntry'][];
              nextCursor: string | null;
            };
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
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
  '/v1/stats/executions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Executions started, completed and failed per minute (the console’s overview)
     * @description Counts the tenant’s executions created in the window: `started` by `createdAt`, `completed` and `failed` (status `error`) by `endedAt`. Reads at most 20000 executions (newest first); past that `truncated` is true.
     */
    get: {
      parameters: {
        query?: {
          /** @description default 1h */
          window?: '15m' | '1h' | '6h' | '24h';
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description per-minute counts */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ExecutionStats'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
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
  '/v1/stats/queue': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Depth of the task queue: ready, in flight, delayed, dead (platform keys)
     * @description The queue is shared by every tenant, so its depth would tell one tenant about the others: a tenant key gets 403.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description the queue */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['QueueStats'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description a problem (docs/http-api.md §3) */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['Problem'];
          };
        };
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
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    Problem: {
      type: string;
      title: string;
      status: number;
      /** @enum {string} */
      code:
        | 'unauthorized'
        | 'forbidden'
        | 'not_found'
        | 'invalid_request'
        | 'invalid_flow'
        | 'conflict'
        | 'execution_terminal'
        | 'payload_too_large'
        | 'rate_limited'
        | 'service_unavailable'
        | 'internal_error';
      detail: string;
      requestId: string;
      errors?: {
        path: string;
        message: string;
        /** @enum {string} */
        severity?: 'error' | 'warning';
        code?: string;
        nodeId?: string | null;
        suggestion?: string;
      }[];
    };
    Caller: {
      keyId: string | null;
      /** @enum {string} */
      role: 'viewer' | 'operator' | 'admin';
      tenant: string;
      keyTenant: string;
    };
    Execution: {
      executionId: string;
      /** @enum {string} */
      status: 'queued' | 'running' | 'waiting' | 'completed' | 'error' | 'cancelled';
      tenantId: string;
      flowId: string | null;
      flowVersion: string | null;
      flowHash: string | null;
      /** @description any JSON value */
      input?: unknown;
      /** @description any JSON value */
      result?: unknown;
      error?: {
        code: string | number | null;
        type: string | null;
        nodeId: string | null;
        message: string;
      };
      waiting?: {
        nodeId: string;
        eventType: string;
        dueAt: string | null;
      };
      nodes: {
        nodeId: string;
        type: string | null;
        /** @enum {string} */
        status: 'done' | 'running' | 'waiting' | 'failed' | 'cancelled';
        startedAt: string;
        endedAt: string | null;
        durationMs: number | null;
        attempts: number;
        /** @description any JSON value */
        output?: unknown;
      }[];
      createdAt: string;
      updatedAt: string;
      endedAt: string | null;
      version: number;
      /** @description operator retries made of this execution (ours) */
      retries: number;
      replayOf?: string;
      /** @description a rerun: the execution it reruns */
      rerunOf?: string;
      /** @description a rerun: the node it ran from */
      fromNode?: string;
      /** @description ours, running executions only: the worker holding its lease, or null when none does (it goes on when its message is delivered again) */
      lease?: {
        owner: string;
        expiresAt: string;
      } | null;
    };
    StartExecution: {
      flowId?: string;
      version?: string;
      /** @description an inline flow document */
      flow?: {
        [key: string]: unknown;
      };
      input?: {
        [key: string]: unknown;
      };
      executionId?: string;
    };
    ExecutionSummary: {
      executionId: string;
      /** @enum {string} */
      status: 'queued' | 'running' | 'waiting' | 'completed' | 'error' | 'cancelled';
      flowId: string | null;
      flowVersion: string | null;
      flowHash: string | null;
      createdAt: string;
      updatedAt: string;
      endedAt: string | null;
      error?: {
        code: string | number | null;
        type: string | null;
        nodeId: string | null;
        message: string;
      };
      waiting?: {
        nodeId: string;
        eventType: string;
        dueAt: string | null;
      };
    };
    StreamTicket: {
      ticket: string;
      /** @description ISO 8601; 60 s */
      expiresAt: string;
    };
    PinnedFlow: {
      executionId: string;
      flowId: string | null;
      flowVersion: string | null;
      flowHash: string;
      document: {
        [key: string]: unknown;
      };
      graph: components['schemas']['FlowGraph'];
    };
    /** @description The nodes and the edges the engine can follow between them, as the node types (plugins included) declare them. A node that does not load is listed without edges. */
    FlowGraph: {
      /** @description document order, one per id; then the missing ones */
      nodes: {
        id: string;
        type: string | null;
        /** @description an id an edge names but no node has (an unknown_target); type null */
        missing: boolean;
        /** @description true: a durable worker may recompute it after a crash (a retry or replay runs it again for free); false: effectful, its result is stored before the next node runs; null: the node did not load */
        replayable: boolean | null;
        /** @description why the node is effectful; null when replayable */
        effect: string | null;
      }[];
      edges: {
        from: string;
        to: string;
        /**
         * @description `next` of a non-branching node, or a target of a branching one
         * @enum {string}
         */
        kind: 'next' | 'branch';
        /** @description the words on the edge (`true`, a branch name), or null */
        label: string | null;
      }[];
    };
    RerunDryRun: {
      willRun: {
        nodeId: string;
        type: string;
        /** @description true: it may act on the world again (it is not replayable: see the flow graph) */
        effectful: boolean;
      }[];
    };
    Approval: {
      executionId: string;
      nodeId: string;
      approvalId: string;
      flowId: string | null;
      flowVersion: string | null;
      title: string;
      content: string;
      approvers: string[];
      /** @enum {string} */
      strategy: 'any' | 'all' | 'majority';
      allowComments: boolean;
      requireComments: boolean;
      decisions: {
        approver: string;
        /** @enum {string} */
        decision: 'approve' | 'reject';
        comment: string | null;
        decidedAt: string;
      }[];
      decided: boolean;
      /** @enum {string|null} */
      finalDecision: 'approve' | 'reject' | null;
      since: string;
    };
    FlowSummary: {
      flowId: string;
      /** @description the version published most recently: what a start without version runs */
      latestVersion: string | null;
      versionCount: number;
      createdAt: string;
      updatedAt: string;
    };
    Flow: components['schemas']['FlowSummary'] & {
      /** @description newest first */
      versions: components['schemas']['FlowVersionSummary'][];
    };
    FlowVersionSummary: {
      flowId: string;
      version: string;
      /** @enum {string} */
      status: 'draft' | 'published';
      /** @description SHA-256 of the canonical JSON: an execution’s flowHash */
      hash: string;
      createdAt: string;
      updatedAt: string;
      publishedAt: string | null;
    };
    FlowVersion: components['schemas']['FlowVersionSummary'] & {
      document: {
        [key: string]: unknown;
      };
      /** @description warnings found when it was saved */
      issues: components['schemas']['FlowIssue'][];
      graph: components['schemas']['FlowGraph'];
    };
    FlowIssue: {
      /** @enum {string} */
      severity: 'error' | 'warning';
      /** @enum {string} */
      code:
        | 'definition_error'
        | 'code_backend_disabled'
        | 'approver_invalid'
        | 'expression_parse_error'
        | 'wrong_argument_count'
        | 'unknown_target'
        | 'missing_next'
        | 'missing_start'
        | 'no_branches'
        | 'flow_not_found'
        | 'unknown_function'
        | 'unknown_root'
        | 'unknown_key'
        | 'unreachable_node'
        | 'duplicate_node_id'
        | 'unknown_node_reference'
        | 'node_not_upstream'
        | 'default_target_missing'
        | 'template_slot_not_parsed'
        | 'foreign_template_syntax'
        | 'env_not_exposed'
        | 'secret_env_exposed'
        | 'condition_ignored'
        | 'node_warning'
        | 'flow_check_failed'
        | 'analysis_failed';
      path: string;
      nodeId: string | null;
      message: string;
      suggestion?: string;
      column?: number;
    };
    FlowValidation: {
      valid: boolean;
      issues: components['schemas']['FlowIssue'][];
      graph: components['schemas']['FlowGraph'] & (Record<string, never> | null);
    };
    ValidateFlow: {
      /** @description a flow document, or its JSON or YAML text */
      flow:
        | {
            [key: string]: unknown;
          }
        | string;
    };
    DryRunResult: {
      /** @enum {string} */
      status: 'completed' | 'error' | 'waiting';
      /** @description any JSON value */
      result?: unknown;
      error?: {
        code: string | number | null;
        type: string | null;
        nodeId: string | null;
        message: string;
      };
      waiting?: {
        nodeId: string;
        eventType: string;
      };
      trace: {
        nodeId: string;
        type: string | null;
        /** @enum {string} */
        status: 'done' | 'pinned' | 'failed' | 'waiting';
        /** @description any JSON value */
        output?: unknown;
        durationMs: number;
      }[];
      /**
       * @description the trace stops at 1000 runs
       * @enum {boolean}
       */
      truncated?: true;
    };
    DryRun: {
      /** @description a flow document, or its JSON or YAML text */
      flow?:
        | {
            [key: string]: unknown;
          }
        | string;
      flowId?: string;
      /** @description a draft or published version; absent: the latest published */
      version?: string;
      input?: {
        [key: string]: unknown;
      };
      /** @description node id → the output it gives without running */
      pinned?: {
        [key: string]: unknown;
      };
      /** @description run only this node, against the input and the pinned outputs */
      onlyNode?: string;
    };
    Schedule: {
      id: string;
      flowId: string;
      version: string | null;
      cron: string;
      timezone: string;
      input: {
        [key: string]: unknown;
      };
      enabled: boolean;
      /** @enum {string} */
      overlap: 'allow' | 'skip';
      nextRunAt: string | null;
      lastRunAt: string | null;
      lastExecutionId: string | null;
      lastError: string | null;
      skipped: number;
      createdAt: string;
      updatedAt: string;
    };
    DeadLetter: {
      id: string;
      reason: string;
      lastError: string | null;
      deliveryCount: number;
      executionId: string | null;
      tenantId: string | null;
      kind: string | null;
      payload: string;
      at: string;
    };
    BulkOperation: {
      id: string;
      /** @enum {string} */
      action: 'cancel' | 'retry' | 'replay';
      /** @enum {string} */
      status: 'pending' | 'running' | 'completed';
      matched: number;
      done: number;
      failed: number;
      failures: {
        executionId: string;
        reason: string;
      }[];
      createdAt: string;
      updatedAt: string;
      completedAt: string | null;
    };
    Worker: {
      id: string;
      /** @description null unless the key is a platform key (tenant `*`) */
      host: string | null;
      /** @description null unless the key is a platform key (tenant `*`) */
      pid: number | null;
      version: string;
      concurrency: number;
      /** @description null unless the key is a platform key (tenant `*`) */
      inFlight: number | null;
      startedAt: string;
      lastSeenAt: string;
    };
    ApiKey: {
      id: string;
      name: string;
      /** @enum {string} */
      role: 'viewer' | 'operator' | 'admin';
      tenant: string;
      createdAt: string;
      lastUsedAt: string | null;
      revokedAt: string | null;
    };
    AuditEntry: {
      id: string;
      at: string;
      keyId: string | null;
      role: string;
      tenant: string;
      action: string;
      target: string;
      requestId: string;
      clientAddress: string | null;
    };
    ExecutionStats: {
      /** @enum {string} */
      window: '15m' | '1h' | '6h' | '24h';
      from: string;
      to: string;
      /** @enum {number} */
      bucketMs: 60000;
      /** @description one per minute, oldest first */
      buckets: {
        /** @description start of the minute (ISO 8601) */
        at: string;
        started: number;
        completed: number;
        failed: number;
      }[];
      /** @description executions read */
      counted: number;
      /** @description true when more than 20000 executions started in the window: the counts cover the newest ones only */
      truncated: boolean;
    };
    QueueStats: {
      ready: number;
      inFlight: number;
      delayed: number;
      deadLetters: number;
      oldestReadyAgeMs: number | null;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
