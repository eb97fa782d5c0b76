/** scripts/api-types.mjs, for the test that checks the generated file is current. */
export declare const API_TYPES_PATH: string;
export declare function apiTypesSource(document: unknown): Promise<string>;
