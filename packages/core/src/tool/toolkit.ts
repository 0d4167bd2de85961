import type { ToolSchema } from '../model/index.js';
import { InvalidInputError } from '../errors/index.js';
import { assertValidToolName } from './tool-name.js';
import type { AnyTool, Tool } from './types.js';

/** The tools an agent may call, by name. */
export class Toolkit {
  private readonly tools = new Map<string, Tool<unknown>>();
  private schemaList: ToolSchema[] | undefined;

  constructor(tools: readonly AnyTool[] = []) {
    for (const item of tools) this.add(item);
  }

  /**
   * Adds a tool. A second tool with the same name is refused
   * (`InvalidInputError`), and so is a name providers refuse
   * (`InvalidToolNameError`, see `TOOL_NAME_PATTERN`), whoever built the tool.
   */
  add(item: AnyTool): void {
    assertValidToolName(item.name);
    if (this.tools.has(item.name)) {
      throw new InvalidInputError(`Toolkit already has a tool named '${item.name}'.`);
    }
    this.tools.set(item.name, item as Tool<unknown>);
    this.schemaList = undefined;
  }

  /** The tool of that name, if any. */
  get(name: string): Tool<unknown> | undefined {
    return this.tools.get(name);
  }

  /** All tools, in the order they were added. */
  list(): Tool<unknown>[] {
    return [...this.tools.values()];
  }

  /** What the model is told about the tools (built once, rebuilt after `add`). */
  schemas(): ToolSchema[] {
    this.schemaList ??= this.list().map((item) => ({
      name: item.name,
      description: item.description,
      inputSchema: item.jsonSchema(),
    }));
    return this.schemaList;
  }
}
