import type { IssueCode } from "./messages.js";

/**
 * One problem found in a request or spec.
 *
 * `path` names the field (`""` for the body itself, `"inputAssetIds[2]"` for an element), `code` is
 * a stable snake_case identifier to branch on, and `message` is a sentence meant for a person.
 *
 * @typeParam Code - The codes it may carry: the core's {@link IssueCode} (the default); an answer
 * of
 *   the reference server, which checks more than the core does, carries its own codes as well.
 */
export type Issue<Code extends string = IssueCode> = { path: string; code: Code; message: string };

/** The outcome of a check: the (normalized) value, or every issue found. */
export type Result<T> = { success: true; output: T } | { success: false; issues: Issue[] };

/** The ids of the built-in models. */
export type ModelId =
  | "alpha-img2"
  | "alpha-img2-official"
  | "alpha-img2-5-flare"
  | "alpha-img2-5-sunburst"
  | "beta-pro"
  | "beta2"
  | "beta"
  | "gamma-image-1.5";

/** What kind of task a request creates. */
export type GenerationType = "text-to-image" | "image-to-image";

/** Every aspect ratio a request may name (N7); each model accepts a subset (V1). */
export type AspectRatio =
  | "Auto"
  | "1:1"
  | "2:3"
  | "3:2"
  | "3:4"
  | "4:3"
  | "9:16"
  | "16:9"
  | "5:4"
  | "4:5"
  | "2:1"
  | "1:2"
  | "21:9"
  | "9:21"
  | "3:1"
  | "1:3";

/** A resolution tier; the pixel size depends on the ratio. */
export type Resolution = "1K" | "2K" | "4K";

/** A quality level. */
export type Quality = "low" | "medium" | "high";

/** A background mode. */
export type Background = "auto" | "opaque" | "transparent";

/**
 * The output image format a model always produces, or `null` where the interface does not fix it.
 */
export type OutputFormat = "png" | "jpeg" | "webp";

/**
 * A generation request after `normalizeRequest`: trimmed, defaults applied, references
 * de-duplicated.
 *
 * `idempotencyKey` stays absent when the body had none (N13).
 */
export type GenerationRequest = {
  prompt: string;
  modelId: ModelId;
  generationType: GenerationType;
  aspectRatio: AspectRatio;
  resolution: Resolution;
  quality: Quality;
  background: Background;
  imageCount: number;
  inputAssetIds: string[];
  idempotencyKey?: string;
};

/**
 * The `error.code` values the service answers with (S12), as the reference server sends them.
 */
export type ServiceErrorCode =
  | "invalid_json"
  | "invalid_request"
  | "asset_not_found"
  | "missing_api_key"
  | "invalid_api_key"
  | "insufficient_credits"
  | "not_found"
  | "method_not_allowed"
  | "idempotency_key_reused"
  | "payload_too_large"
  | "unsupported_media_type"
  | "internal_error"
  | "service_unavailable";

/** The 200 body of `GET /api/ping`: who the key belongs to (S9). */
export type PingAnswer = {
  ok: true;
  service: string;
  authProvider: "api_key";
  userId: string;
  apiKeyId: string;
};

/** The 200 body of `GET /api/query/credits`: the balance (S10). */
export type CreditsAnswer = {
  creditBalance: number;
  currency: "credits";
  userId: string;
  apiKeyId: string;
};
