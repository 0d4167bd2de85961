/** @parley/core/testing: deterministic fakes that ship as product. */
export { ScriptedModel } from './scripted-model.js';
export type {
  ScriptedModelOptions,
  ScriptedStep,
  ScriptedToolCall,
  ScriptedTurn,
} from './scripted-model.js';
