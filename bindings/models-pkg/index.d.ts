// Type declarations of attnlab-models (written by hand).

export type ModelKind = 'seq2seq' | 'transformer-seq2seq' | 'han' | 'mmoe' | 'char-lm';

export interface ModelEntry {
  /** e.g. 'dates', 'g2p-cmudict', 'mmoe-synthetic/attention' */
  name: string;
  kind: ModelKind;
  title: string;
  /** path of the .safetensors inside this package, e.g. 'models/dates/model.safetensors' */
  file: string;
  /** bytes */
  size: number;
  /** lower-case hex SHA-256 of the file */
  sha256: string;
  /** path of the model's card (data, split, metrics, training command) inside this package */
  card: string;
}

export interface FetchModelOptions {
  /** folder holding the package's models/ (a URL, or a folder path in Node); default: next to this module */
  baseUrl?: string | URL;
  /** options for fetch() */
  init?: RequestInit;
}

export declare const models: ModelEntry[];
export function find(name: string): ModelEntry;
export function modelUrl(name: string, opts?: FetchModelOptions): string;
export function sha256(bytes: Uint8Array | ArrayBuffer): Promise<string>;
export function fetchModel(name: string, opts?: FetchModelOptions): Promise<Uint8Array>;
/** Builds the model with the API of attnlab's load(): Seq2Seq, HAN, MMoE or LanguageModel by kind. */
export function loadModel<T = any>(al: any, name: string, opts?: FetchModelOptions): Promise<T>;
