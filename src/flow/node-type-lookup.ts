import type { NodeType } from './node-type.js';

/** The part of a node registry the loader needs. */
export interface NodeTypeLookup {
  get(type: string): NodeType | undefined;
  types(): string[];
}
