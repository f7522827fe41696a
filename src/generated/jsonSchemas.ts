/**
 * The JSON Schemas of the request and of every answer, converted from their valibot schemas by
 * scripts/jsonSchemas.ts (`npx tsx scripts/jsonSchemas.ts`). Generated: do not edit by hand; a
 * test fails when this file no longer matches the schemas.
 */

/** A JSON Schema as plain data. @internal */
export type GeneratedSchema = { readonly [key: string]: unknown };

/** The converted schemas by name; clone one before changing it. @internal */
export const JSON_SCHEMAS: Readonly<
  Record<
    | "request"
    | "requestInput"
    | "quoteSpec"
    | "generationAccepted"
    | "pricedQuote"
    | "unpricedQuote"
    | "ping"
    | "credits"
    | "error"
    | "nextChange",
    GeneratedSchema
  >
> = {
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
  requestInput: {
    type: "object",
    properties: {
      prompt: {
        type: "string",
        minLength: 1,
      },
      modelId: {
        type: "string",
        default: "alpha-img2-official",
      },
      generationType: {
        type: "string",
        default: "text-to-image",
      },
      aspectRatio: {
        type: "string",
      },
      resolution: {
        type: "string",
      },
      quality: {
        type: "string",
        default: "low",
      },
      background: {
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
      },
      idempotencyKey: {
        type: "string",
        minLength: 1,
      },
    },
    required: ["prompt"],
    $schema: "http://json-schema.org/draft-07/schema#",
  },
  quoteSpec: {
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
    $schema: "http://json-schema.org/draft-07/schema#",
  },
  generationAccepted: {
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
          },
          balanceAfterCredits: {
            type: "integer",
            minimum: 0,
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
          },
          balanceAfterCredits: {
            type: "integer",
            minimum: 0,
          },
        },
        required: ["totalCreditCost", "balanceAfterCredits"],
      },
    },
    required: ["batch", "billing"],
    $schema: "http://json-schema.org/draft-07/schema#",
  },
  pricedQuote: {
    type: "object",
    properties: {
      credits: {
        type: "integer",
        minimum: 0,
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
          },
          referenceCount: {
            type: "integer",
            minimum: 0,
          },
          referenceSurchargeCredits: {
            type: "integer",
            minimum: 0,
          },
          subtotalCredits: {
            type: "integer",
            minimum: 0,
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
        description: "The version of the catalog that priced this quote: the UTC date (YYYY-MM-DD) its prices took effect (P8).",
      },
      nextChange: {
        type: "object",
        properties: {
          version: {
            type: "string",
            description: "The later catalog's version: the UTC date (YYYY-MM-DD) it takes effect.",
          },
          effectiveAt: {
            type: "string",
            format: "date-time",
            description:
              "When it takes effect: 00:00 UTC of that date, as an ISO 8601 date-time. Quotes from this instant on use it.",
          },
          credits: {
            anyOf: [
              {
                type: "integer",
                minimum: 0,
              },
              {
                type: "null",
              },
            ],
            description:
              "What the same spec will cost per image under that catalog at the caller's current multiplier; null when that catalog cannot price it.",
          },
        },
        required: ["version", "effectiveAt", "credits"],
        description:
          "Present only when the server already knows a later catalog than the one in force (P8): a price preview can say when prices change. Absent otherwise.",
      },
    },
    required: ["credits", "breakdown", "catalogVersion"],
    $schema: "http://json-schema.org/draft-07/schema#",
  },
  unpricedQuote: {
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
        description: "The version of the catalog that priced this quote: the UTC date (YYYY-MM-DD) its prices took effect (P8).",
      },
      nextChange: {
        type: "object",
        properties: {
          version: {
            type: "string",
            description: "The later catalog's version: the UTC date (YYYY-MM-DD) it takes effect.",
          },
          effectiveAt: {
            type: "string",
            format: "date-time",
            description:
              "When it takes effect: 00:00 UTC of that date, as an ISO 8601 date-time. Quotes from this instant on use it.",
          },
          credits: {
            anyOf: [
              {
                type: "integer",
                minimum: 0,
              },
              {
                type: "null",
              },
            ],
            description:
              "What the same spec will cost per image under that catalog at the caller's current multiplier; null when that catalog cannot price it.",
          },
        },
        required: ["version", "effectiveAt", "credits"],
        description:
          "Present only when the server already knows a later catalog than the one in force (P8): a price preview can say when prices change. Absent otherwise.",
      },
    },
    required: ["credits", "reason", "message", "catalogVersion"],
    $schema: "http://json-schema.org/draft-07/schema#",
  },
  ping: {
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
    $schema: "http://json-schema.org/draft-07/schema#",
  },
  credits: {
    type: "object",
    properties: {
      creditBalance: {
        type: "integer",
        minimum: 0,
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
    $schema: "http://json-schema.org/draft-07/schema#",
  },
  error: {
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
    $schema: "http://json-schema.org/draft-07/schema#",
  },
  nextChange: {
    type: "object",
    properties: {
      version: {
        type: "string",
        description: "The later catalog's version: the UTC date (YYYY-MM-DD) it takes effect.",
      },
      effectiveAt: {
        type: "string",
        format: "date-time",
        description:
          "When it takes effect: 00:00 UTC of that date, as an ISO 8601 date-time. Quotes from this instant on use it.",
      },
      credits: {
        anyOf: [
          {
            type: "integer",
            minimum: 0,
          },
          {
            type: "null",
          },
        ],
        description:
          "What the same spec will cost per image under that catalog at the caller's current multiplier; null when that catalog cannot price it.",
      },
    },
    required: ["version", "effectiveAt", "credits"],
    description:
      "Present only when the server already knows a later catalog than the one in force (P8): a price preview can say when prices change. Absent otherwise.",
    $schema: "http://json-schema.org/draft-07/schema#",
  },
};
