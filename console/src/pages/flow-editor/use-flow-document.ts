import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from '../../api/client';
import type { FlowDocument, FlowGraph, FlowValidation, FlowVersion } from '../../api/types';
import { parseDocument, TEMPLATE } from './document-text';
import type { EditorIssue } from './flow-issues';

/** Typing pauses this long before the text is validated (and the graph redrawn from it). */
const VALIDATE_AFTER_MS = 300;
/** The text is read as JSON this long after typing stops (its error shows under it). */
const PARSE_AFTER_MS = 150;

export interface FlowDocumentState {
  text: string;
  setText: (text: string) => void;
  /** The last text that parsed (ids, issue paths). */
  doc: FlowDocument | null;
  parseError: string | null;
  issues: EditorIssue[] | null;
  /** The graph the server drew of the last validated text (`validate`'s `graph`). */
  graph: FlowGraph | null;
  /** The issues are those of the text as it is now. */
  validated: boolean;
  validate: () => Promise<void>;
  /** Issues the server gave otherwise (a refused save or publish), of `forText` when named. */
  showIssues: (issues: EditorIssue[], forText?: string) => void;
}

/**
 * The document being edited: its text, parsed as you type, and validated by the server a
 * moment after typing stops, which answers the issues and the graph to draw. A version opens
 * with the issues and graph it was read with; a new flow is validated at once.
 */
export function useFlowDocument(record: FlowVersion | null): FlowDocumentState {
  const [text, setText] = useState(() =>
    record ? JSON.stringify(record.document, null, 2) : TEMPLATE,
  );
  const [doc, setDoc] = useState<FlowDocument | null>(() => parseDocument(text).doc);
  const [parseError, setParseError] = useState<string | null>(null);
  const [issues, setIssues] = useState<EditorIssue[] | null>(record ? record.issues : null);
  const [graph, setGraph] = useState<FlowGraph | null>(record ? record.graph : null);
  const [validatedText, setValidatedText] = useState<string | null>(record ? text : null);
  // Answers can come back out of order: only the latest request's is shown.
  const asked = useRef(0);

  const validate = async () => {
    const current = text;
    const ticket = ++asked.current;
    let answer: { issues: EditorIssue[]; graph: FlowGraph | null };
    try {
      answer = await api.post<FlowValidation>('/v1/flows/validate', { flow: current });
    } catch (e) {
      const issue = { severity: 'error', code: 'request', path: '', nodeId: null } as const;
      answer = { issues: [{ ...issue, message: messageOf(e) }], graph: null };
    }
    if (ticket !== asked.current) return;
    setIssues(answer.issues);
    if (answer.graph) setGraph(answer.graph); // text that is no document keeps the last drawing
    setValidatedText(current);
  };

  useEffect(() => {
    const timer = window.setTimeout(() => {
      const parsed = parseDocument(text);
      setParseError(parsed.error);
      if (parsed.doc) setDoc(parsed.doc);
    }, PARSE_AFTER_MS);
    return () => window.clearTimeout(timer);
  }, [text]);
  useEffect(() => {
    if (text === validatedText) return;
    const timer = window.setTimeout(() => void validate(), graph ? VALIDATE_AFTER_MS : 0);
    return () => window.clearTimeout(timer);
  }, [text]);

  return {
    text,
    setText,
    doc,
    parseError,
    issues,
    graph,
    validated: validatedText === text,
    validate,
    showIssues: (shown, forText) => {
      asked.current++; // a validation still under way is older than this
      setIssues(shown);
      if (forText !== undefined) setValidatedText(forText);
    },
  };
}
