import type { FlowIssue } from '../flow/analysis/flow-issue.js';
import {
  type ControlKey,
  type ControlPage,
  type ControlStore,
  ID_SEPARATOR,
  MAX_CONTROL_LIMIT,
} from '../store/control-store.js';
import type { FlowStore } from '../store/flow-store.js';
import { ConflictError, NotFoundError } from '../errors/control-errors.js';
/** A flow document as the API receives and stores it: a parsed JSON object. */
type FlowDocument = Record<string, unknown>;

export type VersionStatus = 'draft' | 'published';

/** One version of a flow in the catalog (control collection `flow_versions`). */
export interface FlowVersionRecord {
  flowId: string;
  version: string;
  status: VersionStatus;
  /** The content hash: for a published version, the `flowHash` its executions pin. */
  hash: string;
  document: FlowDocument;
  /** What the analysis found when it was saved or published: warnings (errors refuse both). */
  issues: FlowIssue[];
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
}

/** A flow of the catalog: derived from its versions after every write. */
export interface FlowSummary {
  flowId: string;
  /** The version published most recently (what a start without `version` runs), or null. */
  latestVersion: string | null;
  versionCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface Draft {
  flowId: string;
  version: string;
  document: FlowDocument;
  hash: string;
  issues: FlowIssue[];
}

export type SaveOutcome = 'created' | 'replaced' | 'unchanged';

const COLLECTION = 'flow_versions';
/** Record ids: `flow␟<flowId>` (summaries) and `version␟<flowId>␟<version>`. */
const FLOW_PREFIX = `flow${ID_SEPARATOR}`;
const MAX_ATTEMPTS = 5;

/**
 * The tenant's flows as the API manages them (docs/http-api.md §4 Flows): drafts and published versions
 * in the control store, publications in the FlowStore, which stays the truth of what runs. A
 * published version never changes; a draft can be replaced or deleted.
 */
export class FlowVersions {
  constructor(
    private readonly control: ControlStore,
    private readonly flows: FlowStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(tenant: string, flowId: string, version: string): Promise<FlowVersionRecord | null> {
    return (
      (await this.control.get<FlowVersionRecord>(versionKey(tenant, flowId, version)))?.doc ?? null
    );
  }

  /** A flow with at least one version, or null. */
  async summary(tenant: string, flowId: string): Promise<FlowSummary | null> {
    const record = await this.control.get<FlowSummary>(summaryKey(tenant, flowId));
    return record && record.doc.versionCount > 0 ? record.doc : null;
  }

  /** Every version of a flow, newest first. */
  async versions(tenant: string, flowId: string): Promise<FlowVersionRecord[]> {
    const prefix = versionKey(tenant, flowId, '').id;
    const all: FlowVersionRecord[] = [];
    let after: string | null = null;
    do {
      const page: ControlPage<FlowVersionRecord> = await this.control.list<FlowVersionRecord>({
        collection: COLLECTION,
        tenant,
        prefix,
        after,
        limit: MAX_CONTROL_LIMIT,
      });
      all.push(...page.items.map((item) => item.doc));
      after = page.next;
    } while (after !== null);
    return all.sort(
      (a, b) => b.createdAt.localeCompare(a.createdAt) || b.version.localeCompare(a.version),
    );
  }

  /** Flows in id order, keyset paged: `after` is the `next` of the previous page. */
  async list(tenant: string, limit: number, after: string | null) {
    const page = await this.control.list<FlowSummary>({
      collection: COLLECTION,
      tenant,
      prefix: FLOW_PREFIX,
      after,
      limit,
    });
    const items = page.items.map((item) => item.doc).filter((flow) => flow.versionCount > 0);
    return { items, next: page.next };
  }

  /**
   * Creates or replaces a draft (compare-and-set on the record). A published version is
   * immutable: the same content again is `unchanged`, other content a 409.
   */
  async saveDraft(
    tenant: string,
    draft: Draft,
  ): Promise<{ record: FlowVersionRecord; outcome: SaveOutcome }> {
    const key = versionKey(tenant, draft.flowId, draft.version);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const existing = await this.control.get<FlowVersionRecord>(key);
      if (existing?.doc.status === 'published') {
        if (existing.doc.hash === draft.hash) return { record: existing.doc, outcome: 'unchanged' };
        throw publishedConflict(draft.flowId, draft.version, 'replaced');
      }
      await this.refuseForeignPublication(tenant, draft);
      const at = this.now().toISOString();
      const record: FlowVersionRecord = {
        ...draft,
        status: 'draft',
        createdAt: existing?.doc.createdAt ?? at,
        updatedAt: at,
        publishedAt: null,
      };
      const written = existing
        ? await this.control.replace(key, record, existing.version)
        : await this.control.create(key, record);
      if (written) {
        await this.refreshSummary(tenant, draft.flowId);
        return { record, outcome: existing ? 'replaced' : 'created' };
      }
    }
    throw new ConflictError('the version changed while it was being saved; retry');
  }

  /**
   * Publishes a draft exactly as given (the caller analysed this content): into the FlowStore
   * first — from then on it runs, and another content under the version is a 409 there — then
   * the record, written whatever happened to the draft meanwhile, so it shows what runs.
   */
  async publish(
    tenant: string,
    draft: FlowVersionRecord,
    issues: FlowIssue[],
  ): Promise<{ record: FlowVersionRecord; published: boolean }> {
    const stored = await this.flows.put(draft.document, { tenantId: tenant });
    // Published meanwhile (a repeated or concurrent request): kept as it is. Written again, its
    // publishedAt would move, and a repeat landing after a newer version's publication would
    // make this one the latest again.
    const key = versionKey(tenant, draft.flowId, draft.version);
    const current = await this.control.get<FlowVersionRecord>(key);
    if (current?.doc.status === 'published' && current.doc.hash === stored.flowHash)
      return { record: current.doc, published: false };
    const at = this.now().toISOString();
    const record: FlowVersionRecord = {
      ...draft,
      status: 'published',
      hash: stored.flowHash,
      issues,
      updatedAt: at,
      publishedAt: at,
    };
    // Compare-and-set against what was read: of two concurrent publications one writes, the
    // other finds it published. Anything else that changed it meanwhile (a draft saved again)
    // is overwritten, as before: the record shows what runs.
    if (current === null || !(await this.control.replace(key, record, current.version))) {
      const now = await this.control.get<FlowVersionRecord>(key);
      if (now?.doc.status === 'published' && now.doc.hash === stored.flowHash)
        return { record: now.doc, published: false };
      await this.control.put(key, record);
    }
    await this.refreshSummary(tenant, draft.flowId);
    return { record, published: true };
  }

  /** Deletes a draft; 404 when absent, 409 for a published version (which is put back). */
  async deleteDraft(tenant: string, flowId: string, version: string): Promise<void> {
    const key = versionKey(tenant, flowId, version);
    // A published version is refused without being touched; only a draft is taken.
    const current = await this.control.get<FlowVersionRecord>(key);
    if (!current) throw versionNotFound(flowId, version);
    if (current.doc.status === 'published') throw publishedConflict(flowId, version, 'deleted');
    // Taken atomically, so a publication that landed since the read is never lost: it is put
    // back, over a draft a racing PUT may have created meanwhile (what runs is the truth).
    const taken = await this.control.take<FlowVersionRecord>(key);
    if (!taken) throw versionNotFound(flowId, version);
    if (taken.doc.status === 'published') {
      await this.control.put(key, taken.doc);
      throw publishedConflict(flowId, version, 'deleted');
    }
    await this.refreshSummary(tenant, flowId);
  }

  /** A version the FlowStore already runs with other content (an inline start named it) stays. */
  private async refuseForeignPublication(tenant: string, draft: Draft): Promise<void> {
    const published = await this.flows.getByVersion(draft.flowId, draft.version, {
      tenantId: tenant,
    });
    if (published && published.flowHash !== draft.hash)
      throw new ConflictError(
        `flow '${draft.flowId}' version '${draft.version}' already runs with other content (started inline with that flow_id and version); save under another version`,
      );
  }

  /**
   * Recomputes the flow's summary from its versions, compare-and-set: of two concurrent writers
   * the one that loses recomputes, so the last summary written saw every version. A summary is
   * never deleted (a delete cannot be conditional); a flow with no version is left out of reads.
   */
  private async refreshSummary(tenant: string, flowId: string): Promise<void> {
    const key = summaryKey(tenant, flowId);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.control.get<FlowSummary>(key);
      const versions = await this.versions(tenant, flowId);
      const at = this.now().toISOString();
      const latest = versions
        .filter((v) => v.publishedAt !== null)
        .sort((a, b) => b.publishedAt!.localeCompare(a.publishedAt!))[0];
      const summary: FlowSummary = {
        flowId,
        latestVersion: latest?.version ?? null,
        versionCount: versions.length,
        createdAt: current && current.doc.versionCount > 0 ? current.doc.createdAt : at,
        updatedAt: at,
      };
      const written = current
        ? await this.control.replace(key, summary, current.version)
        : await this.control.create(key, summary);
      if (written) return;
    }
    // Derived data: the next write to the flow recomputes it.
  }
}

function versionKey(tenant: string, flowId: string, version: string): ControlKey {
  return { collection: COLLECTION, tenant, id: ['version', flowId, version].join(ID_SEPARATOR) };
}

function summaryKey(tenant: string, flowId: string): ControlKey {
  return { collection: COLLECTION, tenant, id: `${FLOW_PREFIX}${flowId}` };
}

export function versionNotFound(flowId: string, version: string): NotFoundError {
  return new NotFoundError(`flow '${flowId}' has no version '${version}'`);
}

function publishedConflict(flowId: string, version: string, verb: string): ConflictError {
  return new ConflictError(
    `flow '${flowId}' version '${version}' is published and cannot be ${verb}; save a new version`,
  );
}
