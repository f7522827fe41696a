/**
 * The JSON Schemas of the generation request and of every body of both OpenAPI documents,
 * converted from their valibot schemas by scripts/jsonSchemas.ts (`npx tsx scripts/jsonSchemas.ts`).
 * Generated: do not edit by hand; a test fails when this file no longer matches the schemas.
 */

/** A JSON Schema as plain data. @internal */
export type GeneratedSchema = { readonly [key: string]: unknown };

/** The converted schemas; clone one before changing it. @internal */
export const JSON_SCHEMAS: {
  request: GeneratedSchema;
  service: Readonly<
    Record<
      | "GenerationRequest"
      | "GenerationAccepted"
      | "QuoteSpec"
      | "Quote"
      | "PricedQuote"
      | "UnpricedQuote"
      | "NextChange"
      | "Ping"
      | "Credits"
      | "Error",
      GeneratedSchema
    >
  >;
  admin: Readonly<
    Record<
      | "NewUser"
      | "CreatedUser"
      | "User"
      | "NewApiKey"
      | "CreatedApiKey"
      | "CreatedAsset"
      | "MultiplierChange"
      | "MultiplierSet"
      | "Grant"
      | "Balance"
      | "LedgerEntry"
      | "Ledger"
      | "RevokedApiKey"
      | "Job"
      | "Refund"
      | "Task"
      | "ResetRequest"
      | "Clock"
      | "ResetDone"
      | "ClockChange"
      | "NewFault"
      | "FaultId"
      | "Fault"
      | "Faults"
      | "FaultsCleared"
      | "JournalEntry"
      | "Journal"
      | "Document"
      | "Error",
      GeneratedSchema
    >
  >;
} = {
  request: {
    type: "object",
    properties: {
      prompt: {
        type: "string",
        minLength: 1,
      },
      modelId: {
        type: "string",
        enum: [
          "alpha-img2",
          "alpha-img2-official",
          "alpha-img2-5-flare",
          "alpha-img2-5-sunburst",
          "beta-pro",
          "beta2",
          "beta",
          "gamma-image-1.5",
        ],
        default: "alpha-img2-official",
      },
      generationType: {
        type: "string",
        enum: ["text-to-image", "image-to-image"],
        default: "text-to-image",
      },
      aspectRatio: {
        type: "string",
        enum: [
          "Auto",
          "1:1",
          "2:3",
          "3:2",
          "3:4",
          "4:3",
          "9:16",
          "16:9",
          "5:4",
          "4:5",
          "2:1",
          "1:2",
          "21:9",
          "9:21",
          "3:1",
          "1:3",
        ],
      },
      resolution: {
        type: "string",
        enum: ["1K", "2K", "4K"],
      },
      quality: {
        type: "string",
        enum: ["low", "medium", "high"],
        default: "low",
      },
      background: {
        type: "string",
        enum: ["auto", "opaque", "transparent"],
        default: "auto",
      },
      imageCount: {
        type: "integer",
        minimum: 1,
        default: 1,
      },
      inputAssetIds: {
        type: "array",
        items: {
          type: "string",
          minLength: 1,
        },
        maxItems: 14,
      },
      idempotencyKey: {
        type: "string",
        minLength: 1,
      },
    },
    required: ["prompt"],
    $schema: "http://json-schema.org/draft-07/schema#",
  },
  service: {
    GenerationRequest: {
      type: "object",
      properties: {
        prompt: {
          type: "string",
          minLength: 1,
        },
        modelId: {
          enum: [
            "alpha-img2",
            "alpha-img2-official",
            "alpha-img2-5-flare",
            "alpha-img2-5-sunburst",
            "beta-pro",
            "beta2",
            "beta",
            "gamma-image-1.5",
          ],
          type: "string",
          default: "alpha-img2-official",
        },
        generationType: {
          enum: ["text-to-image", "image-to-image"],
          type: "string",
          default: "text-to-image",
        },
        aspectRatio: {
          enum: [
            "Auto",
            "1:1",
            "2:3",
            "3:2",
            "3:4",
            "4:3",
            "9:16",
            "16:9",
            "5:4",
            "4:5",
            "2:1",
            "1:2",
            "21:9",
            "9:21",
            "3:1",
            "1:3",
          ],
          type: "string",
        },
        resolution: {
          enum: ["1K", "2K", "4K"],
          type: "string",
        },
        quality: {
          enum: ["low", "medium", "high"],
          type: "string",
          default: "low",
        },
        background: {
          enum: ["auto", "opaque", "transparent"],
          type: "string",
          default: "auto",
        },
        imageCount: {
          type: "integer",
          minimum: 1,
          default: 1,
        },
        inputAssetIds: {
          type: "array",
          items: {
            type: "string",
            minLength: 1,
          },
          maxItems: 14,
        },
        idempotencyKey: {
          type: "string",
          minLength: 1,
        },
      },
      required: ["prompt"],
    },
    GenerationAccepted: {
      type: "object",
      properties: {
        batch: {
          type: "object",
          properties: {
            taskId: {
              type: "string",
              pattern: "^task_",
            },
            request: {
              type: "object",
              properties: {
                imageCount: {
                  type: "integer",
                  minimum: 1,
                  maximum: 9007199254740991,
                },
                modelId: {
                  type: "string",
                },
                aspectRatio: {
                  enum: [
                    "Auto",
                    "1:1",
                    "2:3",
                    "3:2",
                    "3:4",
                    "4:3",
                    "9:16",
                    "16:9",
                    "5:4",
                    "4:5",
                    "2:1",
                    "1:2",
                    "21:9",
                    "9:21",
                    "3:1",
                    "1:3",
                  ],
                  type: "string",
                },
                resolution: {
                  enum: ["1K", "2K", "4K"],
                  type: "string",
                },
                prompt: {
                  type: "string",
                },
              },
              required: ["imageCount", "modelId", "aspectRatio", "resolution", "prompt"],
            },
            results: {
              type: "array",
              items: {
                type: "object",
                properties: {
                  job: {
                    type: "object",
                    properties: {
                      id: {
                        type: "string",
                        pattern: "^job_",
                      },
                      status: {
                        const: "queued",
                      },
                    },
                    required: ["id", "status"],
                  },
                  assets: {
                    type: "array",
                    items: {},
                  },
                },
                required: ["job", "assets"],
              },
            },
            totalCreditCost: {
              type: "integer",
              minimum: 0,
              maximum: 9007199254740991,
            },
            balanceAfterCredits: {
              type: "integer",
              minimum: 0,
              maximum: 9007199254740991,
            },
          },
          required: ["taskId", "request", "results", "totalCreditCost", "balanceAfterCredits"],
        },
        billing: {
          type: "object",
          properties: {
            totalCreditCost: {
              type: "integer",
              minimum: 0,
              maximum: 9007199254740991,
            },
            balanceAfterCredits: {
              type: "integer",
              minimum: 0,
              maximum: 9007199254740991,
            },
          },
          required: ["totalCreditCost", "balanceAfterCredits"],
        },
      },
      required: ["batch", "billing"],
    },
    QuoteSpec: {
      type: "object",
      properties: {
        kind: {
          type: "string",
        },
        modelId: {
          type: "string",
        },
        resolution: {
          type: "string",
        },
        quality: {
          type: "string",
        },
        referenceImageCount: {
          type: "number",
        },
      },
      required: ["kind", "modelId"],
      additionalProperties: false,
    },
    Quote: {
      anyOf: [
        {
          $ref: "#/components/schemas/PricedQuote",
        },
        {
          $ref: "#/components/schemas/UnpricedQuote",
        },
      ],
    },
    PricedQuote: {
      type: "object",
      properties: {
        credits: {
          type: "integer",
          minimum: 0,
          maximum: 9007199254740991,
        },
        breakdown: {
          type: "object",
          properties: {
            modelId: {
              type: "string",
            },
            resolution: {
              enum: ["1K", "2K", "4K"],
              type: "string",
            },
            quality: {
              enum: ["low", "medium", "high"],
              type: "string",
            },
            baseCredits: {
              type: "integer",
              minimum: 0,
              maximum: 9007199254740991,
            },
            referenceCount: {
              type: "integer",
              minimum: 0,
              maximum: 9007199254740991,
            },
            referenceSurchargeCredits: {
              type: "integer",
              minimum: 0,
              maximum: 9007199254740991,
            },
            subtotalCredits: {
              type: "integer",
              minimum: 0,
              maximum: 9007199254740991,
            },
            multiplier: {
              type: "string",
            },
            rounding: {
              const: "half-up",
            },
            credits: {
              type: "integer",
              minimum: 0,
              maximum: 9007199254740991,
            },
          },
          required: [
            "modelId",
            "resolution",
            "quality",
            "baseCredits",
            "referenceCount",
            "referenceSurchargeCredits",
            "subtotalCredits",
            "multiplier",
            "rounding",
            "credits",
          ],
        },
        catalogVersion: {
          type: "string",
        },
        nextChange: {
          $ref: "#/components/schemas/NextChange",
        },
      },
      required: ["credits", "breakdown", "catalogVersion"],
    },
    UnpricedQuote: {
      type: "object",
      properties: {
        credits: {
          type: "null",
        },
        reason: {
          type: "string",
        },
        message: {
          type: "string",
        },
        catalogVersion: {
          type: "string",
        },
        nextChange: {
          $ref: "#/components/schemas/NextChange",
        },
      },
      required: ["credits", "reason", "message", "catalogVersion"],
    },
    NextChange: {
      type: "object",
      properties: {
        version: {
          type: "string",
        },
        effectiveAt: {
          type: "string",
          format: "date-time",
        },
        credits: {
          anyOf: [
            {
              type: "integer",
              minimum: 0,
              maximum: 9007199254740991,
            },
            {
              type: "null",
            },
          ],
        },
      },
      required: ["version", "effectiveAt", "credits"],
      description:
        "Present only when the server already knows a later catalog than the one in force (P8).",
    },
    Ping: {
      type: "object",
      properties: {
        ok: {
          const: true,
        },
        service: {
          type: "string",
        },
        authProvider: {
          const: "api_key",
        },
        userId: {
          type: "string",
          pattern: "^usr_",
        },
        apiKeyId: {
          type: "string",
          pattern: "^apk_",
        },
      },
      required: ["ok", "service", "authProvider", "userId", "apiKeyId"],
    },
    Credits: {
      type: "object",
      properties: {
        creditBalance: {
          type: "integer",
          minimum: 0,
          maximum: 9007199254740991,
        },
        currency: {
          const: "credits",
        },
        userId: {
          type: "string",
          pattern: "^usr_",
        },
        apiKeyId: {
          type: "string",
          pattern: "^apk_",
        },
      },
      required: ["creditBalance", "currency", "userId", "apiKeyId"],
    },
    Error: {
      type: "object",
      properties: {
        error: {
          type: "object",
          properties: {
            message: {
              type: "string",
            },
            code: {
              enum: [
                "invalid_json",
                "invalid_request",
                "asset_not_found",
                "missing_api_key",
                "invalid_api_key",
                "insufficient_credits",
                "not_found",
                "method_not_allowed",
                "idempotency_key_reused",
                "payload_too_large",
                "unsupported_media_type",
                "internal_error",
                "service_unavailable",
              ],
              type: "string",
            },
            param: {
              type: "string",
            },
            issues: {
              type: "array",
              items: {
                type: "object",
                properties: {
                  path: {
                    type: "string",
                  },
                  code: {
                    type: "string",
                  },
                  message: {
                    type: "string",
                  },
                },
                required: ["path", "code", "message"],
              },
            },
            requestId: {
              type: "string",
            },
          },
          required: ["message", "code", "requestId"],
        },
      },
      required: ["error"],
    },
  },
  admin: {
    NewUser: {
      type: "object",
      properties: {
        credits: {
          type: "integer",
          minimum: 0,
          maximum: 9007199254740991,
        },
        multiplier: {
          anyOf: [
            {
              type: "string",
            },
            {
              type: "number",
            },
          ],
          description:
            'A plain decimal from 0 to 1000, such as "1.15" (or a number in that range); default 1 (P4).',
        },
      },
      required: ["credits"],
      additionalProperties: false,
    },
    CreatedUser: {
      type: "object",
      properties: {
        userId: {
          type: "string",
          pattern: "^usr_",
        },
      },
      required: ["userId"],
    },
    User: {
      type: "object",
      properties: {
        userId: {
          type: "string",
          pattern: "^usr_",
        },
        balance: {
          type: "integer",
          minimum: 0,
          maximum: 9007199254740991,
        },
        multiplier: {
          type: "string",
          description: 'An exact plain decimal, such as "1.15".',
        },
      },
      required: ["userId", "balance", "multiplier"],
    },
    NewApiKey: {
      type: "object",
      properties: {
        mode: {
          enum: ["live", "test"],
          type: "string",
        },
      },
      required: [],
      additionalProperties: false,
    },
    CreatedApiKey: {
      type: "object",
      properties: {
        apiKeyId: {
          type: "string",
          pattern: "^apk_",
        },
        key: {
          type: "string",
          pattern: "^ck_(live|test)_",
        },
      },
      required: ["apiKeyId", "key"],
    },
    CreatedAsset: {
      type: "object",
      properties: {
        assetId: {
          type: "string",
          pattern: "^ast_",
        },
      },
      required: ["assetId"],
    },
    MultiplierChange: {
      type: "object",
      properties: {
        multiplier: {
          anyOf: [
            {
              type: "string",
            },
            {
              type: "number",
            },
          ],
          description:
            'A plain decimal from 0 to 1000, such as "1.15" (or a number in that range); default 1 (P4).',
        },
      },
      required: ["multiplier"],
      additionalProperties: false,
    },
    MultiplierSet: {
      type: "object",
      properties: {
        userId: {
          type: "string",
          pattern: "^usr_",
        },
        multiplier: {
          type: "string",
          description: 'An exact plain decimal, such as "1.15".',
        },
      },
      required: ["userId", "multiplier"],
    },
    Grant: {
      type: "object",
      properties: {
        credits: {
          type: "integer",
          minimum: 0,
          maximum: 9007199254740991,
        },
      },
      required: ["credits"],
      additionalProperties: false,
    },
    Balance: {
      type: "object",
      properties: {
        userId: {
          type: "string",
          pattern: "^usr_",
        },
        balance: {
          type: "integer",
          minimum: 0,
          maximum: 9007199254740991,
        },
      },
      required: ["userId", "balance"],
    },
    LedgerEntry: {
      type: "object",
      properties: {
        kind: {
          enum: ["grant", "debit", "refund"],
          type: "string",
        },
        credits: {
          type: "integer",
          minimum: 0,
          maximum: 9007199254740991,
        },
        at: {
          type: "string",
          format: "date-time",
        },
        taskId: {
          type: "string",
          pattern: "^task_",
        },
        jobId: {
          type: "string",
          pattern: "^job_",
        },
      },
      required: ["kind", "credits", "at"],
    },
    Ledger: {
      type: "object",
      properties: {
        entries: {
          type: "array",
          items: {
            $ref: "#/components/schemas/LedgerEntry",
          },
        },
      },
      required: ["entries"],
    },
    RevokedApiKey: {
      type: "object",
      properties: {
        apiKeyId: {
          type: "string",
          pattern: "^apk_",
        },
      },
      required: ["apiKeyId"],
    },
    Job: {
      type: "object",
      properties: {
        jobId: {
          type: "string",
          pattern: "^job_",
        },
        taskId: {
          type: "string",
          pattern: "^task_",
        },
        status: {
          enum: ["queued", "failed"],
          type: "string",
        },
        credits: {
          type: "integer",
          minimum: 0,
          maximum: 9007199254740991,
        },
      },
      required: ["jobId", "taskId", "status", "credits"],
    },
    Refund: {
      type: "object",
      properties: {
        refundedCredits: {
          type: "integer",
          minimum: 0,
          maximum: 9007199254740991,
        },
      },
      required: ["refundedCredits"],
    },
    Task: {
      type: "object",
      properties: {
        taskId: {
          type: "string",
          pattern: "^task_",
        },
        userId: {
          type: "string",
          pattern: "^usr_",
        },
        createdAt: {
          type: "string",
          format: "date-time",
        },
        aspectRatio: {
          enum: [
            "Auto",
            "1:1",
            "2:3",
            "3:2",
            "3:4",
            "4:3",
            "9:16",
            "16:9",
            "5:4",
            "4:5",
            "2:1",
            "1:2",
            "21:9",
            "9:21",
            "3:1",
            "1:3",
          ],
          type: "string",
        },
        resolution: {
          enum: ["1K", "2K", "4K"],
          type: "string",
        },
        quality: {
          enum: ["low", "medium", "high"],
          type: "string",
        },
        background: {
          enum: ["auto", "opaque", "transparent"],
          type: "string",
        },
        referenceCount: {
          type: "integer",
          minimum: 0,
          maximum: 9007199254740991,
        },
        multiplier: {
          type: "string",
          description: 'An exact plain decimal, such as "1.15".',
        },
        catalogVersion: {
          type: "string",
        },
        totalCreditCost: {
          type: "integer",
          minimum: 0,
          maximum: 9007199254740991,
        },
        jobs: {
          type: "array",
          items: {
            $ref: "#/components/schemas/Job",
          },
        },
        request: {
          type: "object",
          propertyNames: {
            type: "string",
          },
          additionalProperties: {},
          description: "The normalized request, with its idempotency key (S8).",
        },
        clientIdempotencyKey: {
          type: "boolean",
        },
      },
      required: [
        "taskId",
        "userId",
        "createdAt",
        "aspectRatio",
        "resolution",
        "quality",
        "background",
        "referenceCount",
        "multiplier",
        "catalogVersion",
        "totalCreditCost",
        "jobs",
        "request",
        "clientIdempotencyKey",
      ],
    },
    ResetRequest: {
      type: "object",
      properties: {},
      required: [],
      additionalProperties: false,
    },
    Clock: {
      type: "object",
      properties: {
        now: {
          type: "string",
          format: "date-time",
        },
        frozen: {
          type: "boolean",
        },
      },
      required: ["now", "frozen"],
    },
    ResetDone: {
      type: "object",
      properties: {
        reset: {
          const: true,
        },
        clock: {
          $ref: "#/components/schemas/Clock",
        },
      },
      required: ["reset", "clock"],
    },
    ClockChange: {
      anyOf: [
        {
          type: "object",
          properties: {
            now: {
              type: "string",
            },
          },
          required: ["now"],
          additionalProperties: false,
        },
        {
          type: "object",
          properties: {
            advanceMs: {
              type: "integer",
              minimum: 0,
              maximum: 9007199254740991,
            },
          },
          required: ["advanceMs"],
          additionalProperties: false,
        },
        {
          type: "object",
          properties: {
            frozen: {
              type: "boolean",
            },
          },
          required: ["frozen"],
          additionalProperties: false,
        },
      ],
    },
    NewFault: {
      type: "object",
      properties: {
        kind: {
          enum: ["unavailable", "internal", "delay", "lose_answer"],
          type: "string",
        },
        method: {
          enum: ["GET", "POST"],
          type: "string",
        },
        path: {
          enum: ["/api/generations", "/api/pricing/quote", "/api/ping", "/api/query/credits"],
          type: "string",
        },
        apiKeyId: {
          type: "string",
          pattern: "^apk_",
        },
        delayMs: {
          type: "integer",
          minimum: 0,
          maximum: 60000,
        },
        retryAfterS: {
          type: "integer",
          minimum: 1,
          maximum: 3600,
        },
        times: {
          type: "integer",
          minimum: 1,
          maximum: 1000,
        },
      },
      required: ["kind"],
      additionalProperties: false,
    },
    FaultId: {
      type: "object",
      properties: {
        faultId: {
          type: "string",
          pattern: "^flt_[0-9a-f]{16}$",
        },
      },
      required: ["faultId"],
    },
    Fault: {
      type: "object",
      properties: {
        faultId: {
          type: "string",
          pattern: "^flt_[0-9a-f]{16}$",
        },
        kind: {
          enum: ["unavailable", "internal", "delay", "lose_answer"],
          type: "string",
        },
        method: {
          enum: ["GET", "POST"],
          type: "string",
        },
        path: {
          enum: ["/api/generations", "/api/pricing/quote", "/api/ping", "/api/query/credits"],
          type: "string",
        },
        apiKeyId: {
          type: "string",
          pattern: "^apk_",
        },
        delayMs: {
          type: "integer",
          minimum: 0,
          maximum: 60000,
        },
        retryAfterS: {
          type: "integer",
          minimum: 1,
          maximum: 3600,
        },
        timesLeft: {
          type: "integer",
          minimum: 1,
          maximum: 9007199254740991,
        },
      },
      required: ["faultId", "kind", "timesLeft"],
    },
    Faults: {
      type: "object",
      properties: {
        faults: {
          type: "array",
          items: {
            $ref: "#/components/schemas/Fault",
          },
        },
      },
      required: ["faults"],
    },
    FaultsCleared: {
      type: "object",
      properties: {
        removed: {
          type: "integer",
          minimum: 0,
          maximum: 9007199254740991,
        },
      },
      required: ["removed"],
    },
    JournalEntry: {
      type: "object",
      properties: {
        requestId: {
          type: "string",
        },
        method: {
          type: "string",
        },
        path: {
          type: "string",
        },
        status: {
          type: "integer",
          minimum: 0,
          maximum: 599,
        },
        at: {
          type: "string",
          format: "date-time",
        },
        durationMs: {
          type: "number",
          minimum: 0,
        },
        apiKeyId: {
          type: "string",
          pattern: "^apk_",
        },
        idempotencyKey: {
          type: "string",
          maxLength: 128,
        },
        issueCodes: {
          type: "array",
          items: {
            type: "string",
          },
        },
      },
      required: ["requestId", "method", "path", "status", "at", "durationMs"],
    },
    Journal: {
      type: "object",
      properties: {
        requests: {
          type: "array",
          items: {
            $ref: "#/components/schemas/JournalEntry",
          },
        },
      },
      required: ["requests"],
    },
    Document: {
      type: "object",
      properties: {
        openapi: {
          const: "3.1.0",
        },
      },
      required: ["openapi"],
      additionalProperties: {},
    },
    Error: {
      type: "object",
      properties: {
        error: {
          type: "object",
          properties: {
            message: {
              type: "string",
            },
            code: {
              enum: [
                "invalid_json",
                "not_found",
                "method_not_allowed",
                "payload_too_large",
                "unsupported_media_type",
                "internal_error",
                "service_unavailable",
                "invalid_request",
                "missing_admin_token",
                "invalid_admin_token",
                "unknown_user",
                "unknown_api_key",
                "unknown_job",
                "unknown_task",
                "unknown_fault",
                "too_many_attempts",
              ],
              type: "string",
            },
            param: {
              type: "string",
            },
            issues: {
              type: "array",
              items: {
                type: "object",
                properties: {
                  path: {
                    type: "string",
                  },
                  code: {
                    type: "string",
                  },
                  message: {
                    type: "string",
                  },
                },
                required: ["path", "code", "message"],
              },
            },
            requestId: {
              type: "string",
            },
          },
          required: ["message", "code", "requestId"],
        },
      },
      required: ["error"],
    },
  },
};
