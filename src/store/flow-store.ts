/** A stored flow definition: immutable once written (durable.md §3). */
export interface StoredFlow {
  /** SHA-256 of the canonical JSON of `document`. */
  flowHash: string;
  flowId: string | null;
  version: string | null;
  /** The parsed flow document as published. */
  document: Record<string, unknown>;
  createdAt: string;
}

/**
 * Flow definitions beside the executions, on the same backend: by content hash, and by
 * `flowId` + `version`. An execution pins the hash it started with and always resumes with
 * exactly that definition.
 */
export interface FlowStore {
  /**
   * Stores the document (idempotent for the same content). Publishing different content
   * under an existing `flowId` + `version` rejects with FlowVersionConflictError.
   */
  put(document: Record<string, unknown>): Promise<StoredFlow>;
  getByHash(flowHash: string): Promise<StoredFlow | null>;
  /** `version` null → the most recently published version of `flowId`. */
  getByVersion(flowId: string, version: string | null): Promise<StoredFlow | null>;
  close(): Promise<void>;
}
