import { SandboxUnavailableError } from '../../errors.js';
import { bubblewrapArguments, bubblewrapProblem } from './bubblewrap.js';
import type { SandboxKind, SandboxOptions, SandboxPolicy, SandboxSetting } from './policy-types.js';

/**
 * A program and its arguments, and the descriptors it must get as its fd
 * 3, 4, … in this order (`inherit`; spawn's `stdio` after the first three).
 */
export type Invocation = { file: string; args: string[]; inherit: number[] };

/**
 * The port every sandbox program sits behind: whether it works here, and
 * how to run a command under a policy. Only bubblewrap (Linux) is built;
 * macOS's sandbox-exec would be a second adapter (ADR tools-0007).
 */
export interface SandboxAdapter {
  readonly kind: Exclude<SandboxKind, 'none'>;
  /** Why it cannot run here, or undefined when it can. */
  problem(): string | undefined;
  /** The invocation that runs `command` (program and arguments) under `policy`. */
  wrap(policy: SandboxPolicy, command: readonly string[]): Invocation;
}

/** bubblewrap, run directly (`bwrap`), one process per command. */
export class BubblewrapAdapter implements SandboxAdapter {
  readonly kind = 'bubblewrap';

  constructor(private readonly program = 'bwrap') {}

  problem(): string | undefined {
    return bubblewrapProblem(this.program);
  }

  wrap(policy: SandboxPolicy, command: readonly string[]): Invocation {
    const { args, inherit } = bubblewrapArguments(policy);
    return { file: this.program, args: [...args, ...command], inherit };
  }
}

/** What the person must do when a sandbox is required and there is none. */
export const INSTALL_HINT =
  'Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`; Arch: `pacman -S bubblewrap`) and make sure user namespaces are enabled, or set the Bash option `sandbox` to `auto` or `off`.';

/**
 * The sandbox of a Bash tool: the setting, the adapter, and what the
 * machine has. Detection is lazy (the first command, or `kind()`), and
 * done once per program and process.
 */
export class CommandSandbox {
  /** `auto`, `required` or `off`. */
  readonly setting: SandboxSetting;
  /** Hosts of `network.allow`. */
  readonly networkAllow: readonly string[];
  /** Whether `autoAllow` was asked for. */
  readonly autoAllow: boolean;
  private readonly adapter: SandboxAdapter;

  constructor(options: SandboxOptions = {}, adapter?: SandboxAdapter) {
    this.setting = options.mode ?? 'auto';
    this.networkAllow = options.network?.allow ?? [];
    this.autoAllow = options.autoAllow ?? false;
    this.adapter = adapter ?? new BubblewrapAdapter(options.bubblewrap);
  }

  /**
   * Whether auto-allow applies: asked for, a sandbox here, and no
   * `network.allow` (which would give an auto-allowed line the network).
   */
  autoAllows(): boolean {
    return this.autoAllow && this.networkAllow.length === 0 && this.kind() !== 'none';
  }

  /** The sandbox commands run in: `none` when the setting is `off` or the machine has none. */
  kind(): SandboxKind {
    return this.bareReason() === undefined ? this.adapter.kind : 'none';
  }

  /** Why commands run bare (`off`, or the adapter's problem); undefined when they are sandboxed. */
  bareReason(): string | undefined {
    if (this.setting === 'off') return 'the Bash option sandbox is off';
    return this.adapter.problem();
  }

  /**
   * The adapter to run commands with, or undefined to run them bare (the
   * setting is `off`, or `auto` and there is no sandbox). Throws
   * `SandboxUnavailableError` when the setting is `required` and there is none.
   */
  available(): SandboxAdapter | undefined {
    if (this.setting === 'off') return undefined;
    const problem = this.adapter.problem();
    if (problem === undefined) return this.adapter;
    if (this.setting === 'required') {
      throw new SandboxUnavailableError(
        `Bash needs a sandbox and there is none: ${problem}. ${INSTALL_HINT}`,
      );
    }
    return undefined;
  }
}
